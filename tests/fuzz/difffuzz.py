#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""Differential fuzzing: random environment.d inputs through envd and systemd.

Generates random inputs from a grammar of the environment.d syntax (keys and
blanks, quotes, escapes, continuations, $-forms and braces, comments, CR,
LF and CRLF line ends, several files across the user and system
directories, a base environment), runs each through

  * envd:  `envd show --inherit --format nul --root ROOT` under
           `env -i HOME=... (base)`, and
  * systemd's environment.d generator, as root in a private mount namespace
    with the case's directories bind-mounted over the system ones,

both through the conformance suite's runner (tests/conformance/run.py, used,
not changed), and reports every disagreement outside the documented
deviations.  The grammar never produces those deviations on purpose: values
are valid UTF-8 without noncharacters, and no comment ends in a backslash
(Debian 12's systemd 252 continues such a comment; envd follows >= 254).  A
disagreement is then shrunk (files, lines, bytes, base variables) while it
lasts, and saved with both outputs under OUT/disagreement-N/.

    difffuzz.py --envd PATH [-n N] [--seed S] [--out DIR] [--batch B]

Exit status: 0 when everything agreed, 1 on disagreements, 77 when the
generator cannot run here (not installed, no unshare, no namespaces).
"""

import argparse
import json
import os
import random
import re
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
import cases as corpus  # noqa: E402
import run as runner  # noqa: E402

# ---------------------------------------------------------------------------
# the grammar

# Names assigned: none that envd's default policy refuses from user files (a
# documented deviation, covered by the conformance cases).
NAMES = ["A", "B", "C", "X", "PATH", "_x1", "a_B9", "LONG_NAME_" + "N" * 20]
REF_NAMES = NAMES + ["HOME", "U", "UNSET", "E", "A_1", "B2", "1x", "9", "é"]
BAD_KEYS = ["1A", "A-B", "A.B", "A B", "export A", "é", "A$", "\"Q\"", "'S'", "A\\", "=", ""]
TEXT = "abcxyzABC019_-./:@%~,+=!?*&|<>()[]`^"
UNICODE = ["é", "ß", "€", "😀", "\u00a0", "\u2028", "\u200b", "\x1b", "\x01", "\x7f", "\x0b", "\x0c",
           "\u0085", "\ufeff"]
DIRS = ["user", "etc", "run", "usrlocal", "usr"]
FILE_NAMES = ["10-a.conf", "20-b.conf", "50.conf", "9-z.conf", "a.conf", "B.conf", "x.conf"]


class Gen:
    def __init__(self, rnd):
        self.r = rnd

    def chance(self, p):
        return self.r.random() < p

    def pick(self, seq):
        return self.r.choice(seq)

    def text(self, n=None, extra=""):
        n = self.r.randint(0, 6) if n is None else n
        out = []
        for _ in range(n):
            x = self.r.random()
            if x < 0.75:
                out.append(self.pick(TEXT + extra))
            elif x < 0.85:
                out.append(self.pick(" \t"))
            else:
                out.append(self.pick(UNICODE))
        return "".join(out)

    def ref_name(self):
        return self.pick(REF_NAMES)

    def word(self, depth):
        """The WORD of ${X:-WORD}: text, references, braces."""
        parts = []
        for _ in range(self.r.randint(0, 3)):
            x = self.r.random()
            if x < 0.4:
                parts.append(self.text(extra="'\""))
            elif x < 0.8 and depth < 4:
                parts.append(self.dollar(depth + 1))
            elif x < 0.9:
                parts.append(self.pick(["{", "}", "{}", "{x}", "\\$", "\\}"]))
            else:
                parts.append(self.pick(["\\\n", "\n", "\r"]))
        return "".join(parts)

    def dollar(self, depth=0):
        n = self.ref_name()
        x = self.r.random()
        if x < 0.25:
            return "$" + n
        if x < 0.45:
            return "${%s}" % n
        if x < 0.6:
            return "${%s:-%s}" % (n, self.word(depth))
        if x < 0.75:
            return "${%s:+%s}" % (n, self.word(depth))
        return self.pick(["$$", "$", "${", "${" + n, "${%s:" % n, "${%s:-" % n, "${%s:=w}" % n,
                          "${%s:?e}" % n, "${%s:x}" % n, "${%s:}" % n, "${}", "${:-d}", "${:+a}",
                          "${%s-d}" % n, "$$" + n, "$(id)", "${%s:0:2}" % n])

    def squote(self):
        inner = "".join(self.pick([self.text(), "\\", "\\\\", "$", self.dollar(), "\"", "\n", "\r\n",
                                   "\\\n", "#", ";"]) for _ in range(self.r.randint(0, 3)))
        return "'" + inner + ("'" if not self.chance(0.03) else "")

    def dquote(self):
        inner = "".join(self.pick([self.text(), "\\\"", "\\\\", "\\`", "\\$", "\\x", "\\n", "\\\n",
                                   "\\\r\n", "\\", "'", "\n", self.dollar(), "$", "#"])
                        for _ in range(self.r.randint(0, 3)))
        return "\"" + inner + ("\"" if not self.chance(0.03) else "")

    def value(self):
        pieces = []
        for _ in range(self.r.randint(0, 5)):
            x = self.r.random()
            if x < 0.3:
                pieces.append(self.text(extra="#;"))
            elif x < 0.5:
                pieces.append(self.dollar())
            elif x < 0.6:
                pieces.append(self.squote())
            elif x < 0.7:
                pieces.append(self.dquote())
            elif x < 0.8:
                pieces.append("\\" + self.pick(list("\\$\"' #;a{}n") + ["\n", "\r", "\r\n", "\t", "é"]))
            elif x < 0.9:
                pieces.append(self.pick([" ", "\t", "  ", " \t"]))
            else:
                pieces.append(self.pick(["\"", "'", "{", "}", "=", "#", ";", "\\\n  ", "\\\n\t#"]))
        return "".join(pieces)

    def blanks(self):
        return self.pick(["", "", "", " ", "\t", "  ", " \t "])

    def comment_text(self):
        t = self.text(extra="\\#;='\"$")
        while t.endswith("\\"):  # the documented 252/254 deviation: never produced
            t = t[:-1]
        return t

    def line(self):
        x = self.r.random()
        if x < 0.7:
            key = self.pick(NAMES) if self.chance(0.92) else self.pick(BAD_KEYS)
            return self.blanks() + key + self.blanks() + "=" + self.blanks() + self.value() + self.blanks()
        if x < 0.8:
            return self.blanks() + self.pick("#;") + self.comment_text()
        if x < 0.88:
            return self.blanks()
        if x < 0.94:
            return self.pick(["JUNK", "two words", "A", "export A", "#=x", "${A}"]) + self.text()
        return self.pick(NAMES) + "=" + self.pick(["", "''", "\"\"", " ", "\\", "\"\\", "'\\"])

    SOUP = ["A", "B", "X", "_", "1", "=", "==", "$", "$$", "{", "}", "${", ":-", ":+", ":", "-", "+",
            "\"", "'", "\\", "\n", "\r", "\r\n", " ", "\t", "#", ";", "x", "é", "😀", "${A}", "$A",
            "${U:-", "${X:+", "export ", "\x0b", "\x0c", "\x1b"]

    def soup(self):
        """Tokens of the syntax in any order: odd interactions of the rules."""
        return "".join(self.pick(self.SOUP) for _ in range(self.r.randint(1, 40))).encode()

    def content(self):
        if self.chance(0.3):
            return self.soup()
        out = []
        n = self.r.randint(1, 8) if self.chance(0.9) else self.r.randint(8, 30)
        for i in range(n):
            out.append(self.line())
            if i + 1 < n or self.chance(0.8):
                out.append(self.pick(["\n"] * 7 + ["\r\n", "\r\n", "\r"]))
        data = "".join(out).encode()
        if self.chance(0.01):
            data = data.replace(b"=", b"=\x00", 1)  # a NUL byte: the whole file is skipped
        return data

    def files(self):
        files = {}
        for _ in range(self.r.randint(1, 3)):
            d = self.pick(DIRS)
            name = self.pick(FILE_NAMES)
            x = self.r.random()
            if x < 0.9:
                item = self.content()
            elif x < 0.92:
                item = b""
            elif x < 0.94:
                item = corpus.DEVNULL
            elif x < 0.96:
                item = corpus.Symlink(self.pick(FILE_NAMES))  # a sibling, itself, or nothing
            elif x < 0.98 and d != "user":
                item = corpus.Symlink("../../usr/lib/environment.d/" + self.pick(FILE_NAMES))
            else:
                item = corpus.Dir({})
            files.setdefault(d, {})[name] = item
        return files

    def env(self):
        env = {}
        for n in self.r.sample(["A", "X", "E", "PATH", "B2", "U2"], self.r.randint(0, 4)):
            env[n] = "" if n == "E" else self.text(extra="${}:")
        return env


def make_case(name, files, env):
    c = object.__new__(corpus.Case)
    c.name = name
    c.description = "difffuzz"
    c.files = files
    c.env = list(env.items())
    c.expect = None
    c.deviation = None
    c.no_home = False
    c.etc_environment = None
    return c


# ---------------------------------------------------------------------------
# running both


class Runner:
    def __init__(self, envd, unshare_cmd):
        self.envd = envd
        self.unshare_cmd = unshare_cmd
        self.runs = 0

    def outcomes(self, cases):
        base = tempfile.mkdtemp(prefix="envd-difffuzz.", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        os.chmod(base, 0o755)
        try:
            old = os.umask(0o022)
            try:
                mats = [runner.Materialized(c, base, i) for i, c in enumerate(cases)]
            finally:
                os.umask(old)
            gens = runner.run_generator(mats, self.unshare_cmd, workers=1)
            out = []
            for m, g in zip(mats, gens):
                e = runner.run_envd(self.envd, m)
                out.append((m.normalize(e), m.normalize(g)))
            self.runs += len(cases)
            return out
        finally:
            shutil.rmtree(base, ignore_errors=True)


def agree(e, g):
    return e.same(g)


REFUSED = re.compile(rb"^(LD_.*|HOME|USER|LOGNAME|SHELL|BASH_ENV|ENV|IFS|PS4|TMPDIR)$")


def deviation(case, e, g):
    """A documented deviation explains the difference: returns its name."""
    en, gn = dict(e.pairs), dict(g.pairs)
    differ = [n for n in set(en) | set(gn) if en.get(n) != gn.get(n)]
    if differ and "user" in case.files and all(REFUSED.match(n) for n in differ):
        return "name refused by envd's policy in a user file"
    for entries in case.files.values():
        for item in (entries.values() if isinstance(entries, dict) else []):
            if not isinstance(item, bytes):
                continue
            for line in re.split(rb"[\r\n]", item):
                s = line.lstrip(b" \t")
                if s[:1] in (b"#", b";") and s.endswith(b"\\"):
                    return "comment ending in a backslash (systemd 252)"
            try:
                item.decode("utf-8")
            except UnicodeDecodeError:
                return "invalid UTF-8"
    return None


# ---------------------------------------------------------------------------
# shrinking


def reductions(case):
    """Smaller variants of a case, biggest cuts first."""
    files, env = case.files, dict(case.env)
    # drop a file
    for d in files:
        for n in files[d]:
            f2 = {k: dict(v) for k, v in files.items()}
            del f2[d][n]
            if not f2[d]:
                del f2[d]
            yield f2, env
    # drop a base variable
    for n in env:
        e2 = dict(env)
        del e2[n]
        yield files, e2
    for d in files:
        for n, item in files[d].items():
            if not isinstance(item, bytes):
                continue
            # drop a line, then halve, then single bytes
            lines = re.split(rb"(?<=\n)|(?<=\r)(?!\n)", item)
            for i in range(len(lines)):
                yield replace(files, d, n, b"".join(lines[:i] + lines[i + 1:])), env
            for size in (len(item) // 2, len(item) // 4, 8, 4, 2, 1):
                if size < 1:
                    continue
                for i in range(0, len(item), size):
                    yield replace(files, d, n, item[:i] + item[i + size:]), env
            # simplify bytes: a letter for anything else
            for i, c in enumerate(item):
                if c not in b"a\n=":
                    yield replace(files, d, n, item[:i] + b"a" + item[i + 1:]), env


def replace(files, d, n, data):
    f2 = {k: dict(v) for k, v in files.items()}
    f2[d][n] = data
    return f2


def shrink(rn, case, deadline):
    cur = case
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        cands = [make_case(case.name, f, e) for f, e in reductions(cur)]
        # in batches, so that the first disagreeing variant wins early
        for i in range(0, len(cands), 64):
            batch = cands[i:i + 64]
            for c, (e, g) in zip(batch, rn.outcomes(batch)):
                if not agree(e, g) and not deviation(c, e, g):
                    cur = c
                    progress = True
                    break
            if progress or time.monotonic() >= deadline:
                break
    return cur


# ---------------------------------------------------------------------------
# reporting


def describe(case):
    lines = []
    for d, entries in case.files.items():
        for n, item in entries.items():
            lines.append("  %s/%s: %s" % (d, n, repr(item) if not isinstance(item, bytes) else repr(item)[1:]))
    for n, v in case.env:
        lines.append("  env %s=%r" % (n, v))
    return "\n".join(lines)


def render(o):
    lines = ["    status: " + o.status]
    lines += ["    %s=%s" % (runner.show(n)[1:-1], runner.show(v)) for n, v in o.pairs]
    return "\n".join(lines)


def save(outdir, k, case, e, g):
    d = os.path.join(outdir, "disagreement-%d" % k)
    os.makedirs(d, exist_ok=True)
    for dd, entries in case.files.items():
        for n, item in entries.items():
            if isinstance(item, bytes):
                os.makedirs(os.path.join(d, dd), exist_ok=True)
                with open(os.path.join(d, dd, n), "wb") as f:
                    f.write(item)
    report = "input:\n%s\nenvd:\n%s\ngenerator:\n%s\n" % (describe(case), render(e), render(g))
    with open(os.path.join(d, "report.txt"), "w") as f:
        f.write(report)
    with open(os.path.join(d, "case.json"), "w") as f:
        json.dump({"files": {dd: {n: (item.hex() if isinstance(item, bytes) else repr(item))
                                  for n, item in ents.items()} for dd, ents in case.files.items()},
                   "env": case.env}, f, indent=1)
    return d, report


def signature(e, g):
    """Disagreements that differ only in details count once."""
    en, gn = dict(e.pairs), dict(g.pairs)
    names = sorted(set(en) | set(gn))
    diff = [n for n in names if en.get(n) != gn.get(n)]
    return (e.status, g.status, len(diff) > 0, [n for n, _ in e.pairs] == [n for n, _ in g.pairs])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envd", required=True, help="the envd binary")
    ap.add_argument("-n", type=int, default=2000, help="number of random inputs (2000)")
    ap.add_argument("--seed", type=int, default=None, help="random seed (default: from the clock)")
    ap.add_argument("--batch", type=int, default=200, help="inputs per generator namespace (200)")
    ap.add_argument("--out", default=None, help="where disagreements go (default: a temporary directory)")
    ap.add_argument("--max-reports", type=int, default=20, help="stop after this many disagreements (20)")
    ap.add_argument("--shrink-seconds", type=float, default=120, help="time to shrink each one (120)")
    args = ap.parse_args()

    if not (os.path.isfile(args.envd) and os.access(args.envd, os.X_OK)):
        print("difffuzz: no envd at %s" % args.envd, file=sys.stderr)
        return 1
    args.envd = os.path.abspath(args.envd)  # both programs run in the case's directory
    unshare_cmd, why = runner.live_generator_usable()
    if not unshare_cmd:
        print("SKIP: %s" % why)
        return 77
    seed = args.seed if args.seed is not None else int(time.time())
    outdir = args.out or tempfile.mkdtemp(prefix="envd-difffuzz-out.")
    os.makedirs(outdir, exist_ok=True)
    print("difffuzz: %d inputs, seed %d, disagreements into %s" % (args.n, seed, outdir), flush=True)
    rnd = random.Random(seed)
    gen = Gen(rnd)
    rn = Runner(args.envd, unshare_cmd)
    found, seen, done, dev = 0, set(), 0, 0
    t0 = time.monotonic()
    try:
        # both programs must work at all
        (e, g), = rn.outcomes([make_case("probe", {"etc": {"a.conf": b"A=1\n"}}, {})])
        if g.status != "ok" or g.pairs != [(b"A", b"1")]:
            print("SKIP: the generator does not run here (%s)" % g.status)
            return 77
        if e.status != "ok" or e.pairs != [(b"A", b"1")]:
            print("difffuzz: envd does not work (%s)" % e.status, file=sys.stderr)
            return 1
    except (RuntimeError, OSError) as ex:
        print("SKIP: the generator namespace fails: %s" % ex)
        return 77
    while done < args.n and found < args.max_reports:
        batch = []
        for i in range(min(args.batch, args.n - done)):
            batch.append(make_case("r%d" % (done + i), gen.files(), gen.env()))
        results = rn.outcomes(batch)
        for c, (e, g) in zip(batch, results):
            if agree(e, g):
                continue
            why = deviation(c, e, g)
            if why:
                dev += 1
                continue
            sig = signature(e, g)
            small = shrink(rn, c, time.monotonic() + args.shrink_seconds)
            (se, sg), = rn.outcomes([small])
            if agree(se, sg):  # flaky: keep the original
                small, se, sg = c, e, g
            found += 1
            d, report = save(outdir, found, small, se, sg)
            print("DISAGREEMENT %d (%s, %s)%s\n%s" % (found, c.name, d, " (similar to an earlier one)"
                                                       if sig in seen else "", report), flush=True)
            seen.add(sig)
            if found >= args.max_reports:
                break
        done += len(batch)
        print("difffuzz: %d/%d inputs, %d disagreements, %d explained by deviations, %.0fs" %
              (done, args.n, found, dev, time.monotonic() - t0), flush=True)
    print("difffuzz: %d inputs (%d runs with shrinking), %d disagreements, seed %d" %
          (done, rn.runs, found, seed))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
