#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""pam_envconf.py - the pam_env counterpart of an environment.d tree, for bench/run.py.

    pam_envconf.py --dir DIR [--dir DIR]... --base BASE --home H --shell S
                   --user U --default-path P --conf OUT

Reads the environment.d directories DIR (highest precedence first: the user
directory, then the system ones) and writes to OUT the same assignments in
pam_env.conf syntax, for ~/.pam_environment with pam_env user_readenv=1: one
"NAME DEFAULT=value" line per assignment, in the order they are applied.
BASE is the PAM environment the module starts from (NUL-ended NAME=VALUE
entries, the output of the same stack with pam_permit); the expansion base is
BASE plus HOME, USER, LOGNAME and SHELL from passwd and PATH=P for whichever
BASE lacks, as for pam_envd.  Prints "N files, M assignments, K variables".

Why a reader of its own: pam_env must do the same work as pam_envd, so every
plain ${X} and $X stays a reference that pam_env expands itself.  pam_env has
no ${X:-word} or ${X:+word}: those are resolved here with the state known at
that point, which takes the values the files set so far.  It knows only the
subset of the syntax bench/gen_tree.py writes (comments, blank lines,
NAME=value with unquoted, "double"- and 'single'-quoted parts and backslash
escapes; $X, ${X}, ${X:-word} and ${X:+word}, nested) and stops on anything
else.  Whether the result is right is not its word: bench/run.py checks what
pam_env and pam_envd put in the PAM environment against envd show.  Passwd
fallbacks become @{HOME}, @{SHELL} and @{PAM_USER}; the default PATH, which
pam_env does not know, is written out.
"""

import argparse
import os
import sys

NAME_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")


class Untranslatable(Exception):
    pass


def read_nul(path):
    env = {}
    with open(path, "rb") as f:
        data = f.read()
    for e in data.split(b"\0"):
        if not e:
            continue
        s = e.decode("utf-8", "surrogateescape")
        name, sep, value = s.partition("=")
        if sep and name not in env:
            env[name] = value
    return env


# ---- files -------------------------------------------------------------------

def files_in_order(dirs):
    chosen = {}
    for d in dirs:
        try:
            names = os.listdir(d)
        except FileNotFoundError:
            continue
        for n in names:
            if n.endswith(".conf") and n not in chosen:
                chosen[n] = os.path.join(d, n)
    out = []
    for n in sorted(chosen, key=lambda s: s.encode()):
        p = chosen[n]
        if os.path.realpath(p) == "/dev/null":
            continue  # masked
        if os.path.isfile(p):
            out.append(p)
    return out


def unquote(raw, where):
    """NAME=... right-hand side to its string, as systemd's env-file parser."""
    out, i = [], 0
    raw = raw.rstrip(" \t")
    while i < len(raw):
        c = raw[i]
        if c == "\\" and i + 1 < len(raw):
            out.append(raw[i + 1])
            i += 2
        elif c == "'":
            j = raw.find("'", i + 1)
            if j < 0:
                raise Untranslatable("%s: unterminated '" % where)
            out.append(raw[i + 1:j])
            i = j + 1
        elif c == '"':
            i += 1
            while i < len(raw) and raw[i] != '"':
                if raw[i] == "\\" and i + 1 < len(raw):
                    if raw[i + 1] in '"\\`$':
                        out.append(raw[i + 1])
                    else:
                        out.append(raw[i:i + 2])
                    i += 2
                else:
                    out.append(raw[i])
                    i += 1
            if i >= len(raw):
                raise Untranslatable('%s: unterminated "' % where)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def assignments(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n").lstrip(" \t")
            if not line or line[0] in "#;":
                continue
            name, sep, raw = line.partition("=")
            name = name.rstrip(" \t")
            if not sep or not name or not set(name) <= NAME_CHARS or name[0].isdigit():
                raise Untranslatable("%s:%d: not an assignment this script knows" % (path, n))
            yield name, unquote(raw.lstrip(" \t"), "%s:%d" % (path, n)), "%s:%d" % (path, n)


# ---- expansion and translation -------------------------------------------------

def pam_lit(s, where):
    for bad in '"\n\r':
        if bad in s:
            raise Untranslatable("%s: pam_env cannot hold %r in a value" % (where, bad))
    return s.replace("\\", "\\\\").replace("$", "\\$").replace("@", "\\@")


class State:
    def __init__(self, base, pw, default_path):
        self.base = base          # the PAM environment at the start
        self.pw = pw              # HOME, USER, LOGNAME, SHELL from passwd
        self.default_path = default_path
        self.assigned = {}        # what the files set so far

    def value(self, name):
        for d in (self.assigned, self.base):
            if name in d:
                return d[name]
        if name in self.pw:
            return self.pw[name]
        if name == "PATH":
            return self.default_path
        return None

    def ref(self, name, where):
        """How pam_env refers to the current value of name."""
        if name in self.assigned or name in self.base:
            return "${%s}" % name
        if name == "HOME":
            return "@{HOME}"
        if name == "SHELL":
            return "@{SHELL}"
        if name in ("USER", "LOGNAME"):
            return "@{PAM_USER}"
        if name == "PATH":
            return pam_lit(self.default_path, where)
        return ""


def close_brace(s, i):
    """Index of the '}' closing the ${ whose body starts at i."""
    depth = 1
    while i < len(s):
        if s.startswith("${", i):
            depth += 1
            i += 2
            continue
        if s[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return -1


def expand(s, st, where):
    """Returns (value, pam_env text) of s."""
    val, txt, i = [], [], 0
    while i < len(s):
        c = s[i]
        if c != "$" or i + 1 >= len(s):
            val.append(c)
            txt.append(pam_lit(c, where))
            i += 1
            continue
        if s[i + 1] == "{":
            end = close_brace(s, i + 2)
            if end < 0:
                raise Untranslatable("%s: unterminated ${" % where)
            body = s[i + 2:end]
            j = 0
            while j < len(body) and body[j] in NAME_CHARS:
                j += 1
            name, op = body[:j], body[j:j + 2]
            if not name:
                raise Untranslatable("%s: ${%s}" % (where, body))
            cur = st.value(name)
            if j == len(body):
                val.append(cur or "")
                txt.append(st.ref(name, where))
            elif op == ":-":
                if cur:
                    val.append(cur)
                    txt.append(st.ref(name, where))
                else:
                    v, t = expand(body[j + 2:], st, where)
                    val.append(v)
                    txt.append(t)
            elif op == ":+":
                if cur:
                    v, t = expand(body[j + 2:], st, where)
                    val.append(v)
                    txt.append(t)
            else:
                raise Untranslatable("%s: ${%s}" % (where, body))
            i = end + 1
            continue
        j = i + 1
        while j < len(s) and s[j] in NAME_CHARS:
            j += 1
        if j == i + 1:
            val.append("$")
            txt.append(pam_lit("$", where))
            i += 1
            continue
        name = s[i + 1:j]
        val.append(st.value(name) or "")
        txt.append(st.ref(name, where))
        i = j
    return "".join(val), "".join(txt)


def cmd_translate(a):
    base = read_nul(a.base)
    pw = {"HOME": a.home, "USER": a.user, "LOGNAME": a.user, "SHELL": a.shell}
    st = State(base, pw, a.default_path)
    files = files_in_order(a.dir)
    lines, count = [], 0
    for path in files:
        for name, raw, where in assignments(path):
            value, text = expand(raw, st, where)
            if value == "":
                raise Untranslatable("%s: an empty value (pam_env would unset %s)" % (where, name))
            if any(ch in text for ch in " \t"):
                text = '"%s"' % text
            lines.append("%s DEFAULT=%s\n" % (name, text))
            st.assigned[name] = value
            count += 1
    with open(a.conf, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write("# pam_env counterpart of %s, written by bench/pam_envconf.py\n" % " ".join(a.dir))
        f.writelines(lines)
    print("%d files, %d assignments, %d variables" % (len(files), count, len(st.assigned)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", action="append", required=True)
    for opt in ("base", "home", "shell", "user", "default-path", "conf"):
        ap.add_argument("--" + opt, required=True)
    try:
        cmd_translate(ap.parse_args())
    except Untranslatable as e:
        print("pam_envconf.py: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
