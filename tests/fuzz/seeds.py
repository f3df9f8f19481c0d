#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""Writes the seed corpus of the fuzz harnesses into tests/fuzz/corpus/.

Two sources: every case of the conformance suite (tests/conformance/cases.py,
read, never changed), and the hostile inputs of SECURITY.md (NUL bytes,
invalid UTF-8, CR-only line ends, deep and exponential expansions, values
past the caps, FIFOs, /dev/null and dangling links, unsafe modes, refused
names).  The hostile seeds are all kept; of the conformance seeds only those
in which libFuzzer's -merge finds coverage the others lack, so that the
committed corpus stays small.  Files this script writes are named seed-*; any
other file in a corpus directory (a finding kept as a regression test) is
left alone.

    tests/fuzz/seeds.py [--build DIR] [HARNESS...]   select and commit seeds
    tests/fuzz/seeds.py --all DIR [HARNESS...]       write every candidate

The first needs the libFuzzer build (./dev fuzz makes it in _build/fuzz);
./dev fuzz uses the second as extra starting points.  The input formats are
described in fuzz.h (tree harnesses) and at the top of fuzz_expand.c.
"""

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
sys.path.insert(0, os.path.join(HERE, "..", "conformance"))
import cases as conformance  # noqa: E402

SEP = b"\x1e"
DIR_LETTER = {"user": b"u", "xdg": b"u", "etc": b"e", "run": b"r", "usrlocal": b"l", "usr": b"s"}
SYSTEM_PATH = {"etc/environment.d": b"e", "run/environment.d": b"r",
               "usr/local/lib/environment.d": b"l", "usr/lib/environment.d": b"s"}
MAX_SEED = 8192          # bytes; the fuzzers' -max_len follows the largest seed
MAX_SECTIONS = 31        # FUZZ_MAX_SECTIONS in fuzz.h, less one for knobs
WHERE = {"home": b"/home/fuzz", "xdg": b"/home/fuzz/xdg", "case": b"/home/fuzz/case"}


def b(x):
    return x.encode() if isinstance(x, str) else x


def subst(v):
    v = b(v)
    for k, p in WHERE.items():
        v = v.replace(b"{" + k.encode() + b"}", p)
    return v


# ---------------------------------------------------------------------------
# the tree format of fuzz_load and fuzz_module


def section(letter, kind, name, content=b""):
    return SEP + letter + kind + b(name) + b"\n" + b(content)


def link_section(letter, name, target):
    t = target
    if t == "/dev/null":
        return section(letter, b"~", name)
    if t == conformance.DANGLING.target:
        return section(letter, b"!", name)
    m = re.match(r"^(?:\.\./)+(.*)/([^/]+)$", t)
    if m and m.group(1) in SYSTEM_PATH:
        return section(letter, b">", name, b"../" + SYSTEM_PATH[m.group(1)] + b"/" + b(m.group(2)))
    if "/" not in t:
        return section(letter, b">", name, t)
    return None  # into the home or elsewhere: not expressible


def entries_of(entries):
    """The entries of a directory key (a whole directory may be a Dir)."""
    if entries is conformance.MISSING or not (isinstance(entries, dict) or hasattr(entries, "entries")):
        return {}
    return entries if isinstance(entries, dict) else entries.entries


def file_content(item):
    """(content, unsafe) of a regular file entry, or None."""
    if isinstance(item, (bytes, str)):
        return b(item), False
    if hasattr(conformance, "File") and isinstance(item, conformance.File):
        return b(item.content), bool(item.mode & 0o022)
    return None


def tree_input(files, env=(), knobs=None):
    out = []
    for key, entries in files.items():
        if key not in DIR_LETTER:
            continue
        letter = DIR_LETTER[key]
        for name, item in entries_of(entries).items():
            fc = file_content(item)
            if fc is not None:
                out.append(section(letter, b"0" if fc[1] else b":", name, fc[0]))
            elif isinstance(item, conformance.Symlink):
                s = link_section(letter, name, item.target)
                if s:
                    out.append(s)
            elif isinstance(item, conformance.Dir):
                out.append(section(letter, b"/", name))
            elif hasattr(conformance, "Socket") and isinstance(item, conformance.Socket):
                out.append(section(letter, b"|", name))  # the nearest the harness makes
    out = out[:MAX_SECTIONS]
    base = [subst(n) + b"=" + subst(v) for n, v in env if b"\n" not in subst(v)]
    if base:
        out.append(SEP + b"b\n" + b"\n".join(base) + b"\n")
    if knobs is not None:
        out.append(SEP + b"o\n" + bytes(knobs))
    return b"".join(out)


# ---------------------------------------------------------------------------
# fuzz_expand: byte 0 picks the limits, "@NAME=VALUE" lines, then the text

EXPAND_ALL = 0xff  # max_out 65536, budget unbounded, depth 32


def expand_input(text, env=(), params=EXPAND_ALL):
    table = b"".join(b"@" + subst(n) + b"=" + subst(v) + b"\n" for n, v in env
                     if b"\n" not in subst(v) and not subst(n).startswith(b"@"))
    return bytes([params]) + table + b(text)


def values_with_dollar(content):
    """The raw value text of each line holding a '$' (good enough for seeds)."""
    for line in re.split(rb"[\r\n]", b(content)):
        k, eq, v = line.partition(b"=")
        if eq and b"$" in v:
            yield v


# ---------------------------------------------------------------------------


def conformance_seeds():
    parse, load, expand = {}, {}, {}
    for c in conformance.CASES:
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", c.name)
        files = c.files
        i = 0
        for key, entries in files.items():
            if key not in DIR_LETTER:
                continue
            for fname, item in entries_of(entries).items():
                fc = file_content(item)
                if fc is not None and len(fc[0]) <= MAX_SEED:
                    parse["%s.%d" % (name, i)] = fc[0]
                    for j, v in enumerate(values_with_dollar(fc[0])):
                        expand["%s.%d.%d" % (name, i, j)] = expand_input(v, c.env)
                    i += 1
        t = tree_input(files, c.env)
        if t and len(t) <= MAX_SEED:
            load[name] = t
    return parse, load, expand


def hostile_seeds():
    """SECURITY.md's hostile matrix, as far as one input can hold it."""
    parse, load, module, expand = {}, {}, {}, {}
    deep = "".join("${U%d:-" % i for i in range(40)) + "x" + "}" * 40
    expo = "A=xxxxxxxxxxxxxxxx\n" + "A=$A$A$A$A\n" * 12
    expo_braced = "A=0123456789\n" + "A=${A}${A:-$A}${A:+$A$A}\n" * 10
    many = "".join("V%d=%d\n" % (i, i) for i in range(300))
    texts = {
        "nul": b"A=1\nB=\x00\nC=3\n",
        "nul-comment": b"# \x00\nA=1\n",
        "utf8-invalid": b"A=\xff\nB=\xc3\nC=\xed\xa0\x80\nD=\xef\xbf\xbe\nE=\xf4\x90\x80\x80\nF=ok\n",
        "utf8-key": b"\xff=1\nA\xc3=2\n\xef\xbb\xbfB=3\n",
        "cr-only": b"A=1\rB='x\ry'\r# c\\\rC=\"a\\\rb\"\rD=3",
        "crlf-continuation": b"A=a\\\r\nb\r\nB=\"x\\\r\ny\"\r\n",
        "deep": ("A=" + deep + "\n").encode(),
        "deep-alternate": ("X=1\nA=" + "${X:+" * 40 + "y" + "}" * 40 + "\n").encode(),
        "exponential": expo.encode(),
        "exponential-braced": expo_braced.encode(),
        "huge-value": b"A=" + b"v" * 6000 + b"\nB=$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A$A\n",
        "huge-name": b"N" * 3000 + b"=1\n",
        "many-assignments": many.encode(),
        "open-quotes": b"A=\"never closed\nB=1\nC='also\n",
        "backslash-eof": b"A=x\\",
        "backslash-newline-blank": b"A=\\\n   \nB=\\\n\t x \\\n",
        "unsupported-forms": b"A=${X:=w}${U:-d}\nB=${X:x}}${U:-d}\nC=${X:?e}${:-}${:+}\n",
        "braces": b"A=${U:-{{{}}}}\nB=${U:-}}}}\nC=${{}}\nD=${U:-${V:-${W:-{}}}\n",
        "dollars": b"A=$$$$$\nB=$\nC=${\nD=$${X}\nE=$1$_$a",
        "refused-names": b"LD_PRELOAD=/tmp/x.so\nBASH_ENV=/tmp/x\nPYTHONPATH=/tmp\nXDG_SEAT=seat0\n"
                         b"GCONV_PATH=/tmp\nBASH_FUNC_x%%=() { id; }\nPATH=$HOME/bin:$PATH\n",
        "export-and-junk": b"export A=1\n=x\n==y\n A B=1\nno equals\n;c\n#c\nOK=1\n",
        "control-chars": b"A=\x01\x02\x1b[31m\x7f\nB='\t\x0b\x0c'\n",
        "secret-lint": b"PATH=~/bin::$(id)`id`%h # |secret&<>\nX=${UNSET}|@^[]!\n",
    }
    for k, v in texts.items():
        parse["hostile-" + k] = v
        load["hostile-" + k] = v
    # trees: entries no file system should make a login wait for or trust
    load["hostile-tree-entries"] = b"".join([
        b"A=user\n",
        section(b"u", b"|", "fifo.conf"),
        section(b"u", b"~", "devnull.conf"),
        section(b"u", b"!", "dangling.conf"),
        section(b"u", b"/", "dir.conf"),
        section(b"u", b"0", "unsafe.conf", "U=unsafe\n"),
        section(b"u", b">", "loop-a.conf", "loop-b.conf"),
        section(b"u", b">", "loop-b.conf", "loop-a.conf"),
        section(b"e", b"|", "fifo.conf"),
        section(b"e", b"0", "unsafe2.conf", "S=unsafe\n"),
        section(b"e", b":", "fifo.conf", "M=masked\n"),
        section(b"s", b">", "up.conf", "../u/50-input.conf"),
        section(b"e", b":", "x.txt", "NOTCONF=1\n"),
        section(b"e", b":", ".hidden.conf", "HIDDEN=1\n"),
    ])
    load["hostile-many-files"] = b"".join(
        [section(b"uerls"[i % 5:i % 5 + 1], b":", "%02d.conf" % i, "V%d=%d\nO=${O}.%d\n" % (i, i, i))
         for i in range(30)])
    load["hostile-user-refused-system-allowed"] = b"".join([
        b"LD_PRELOAD=/tmp/user.so\nLD_LIBRARY_PATH=/tmp\nOK=1\n",
        section(b"e", b":", "10-site.conf", "LD_LIBRARY_PATH=/opt/lib\n"),
        SEP + b"b\nHOME=/home/fuzz\nPATH=/usr/bin\n",
    ])
    # the same trees under each knob combination worth a seed (fuzz.h, fuzz_load.c)
    for knobs, tag in (([0x01, 0], "nooverwrite"), ([0x02, 0], "noexpand"), ([0xc4, 0], "lint-debug"),
                       ([0x08, 0], "nopolicy"), ([0x10, 0], "nouserdir"), ([0x20, 0], "userdir-0777"),
                       ([0xc0, 1], "small-limits"), ([0xc0, 2], "expansion-limits"),
                       ([0xc0, 3 | 16 << 2], "tiny-limits")):
        for k in ("exponential", "refused-names"):
            load["knobs-%s-%s" % (tag, k)] = texts[k] + SEP + b"b\nA=base\nPATH=/bin\n" + SEP + b"o\n" + bytes(knobs)
    # module: knobs of fuzz_module.c
    module.update({k: v for k, v in load.items() if not k.startswith("knobs-")})
    for knobs, tag in (([0x01, 0], "debug"), ([0x02, 0], "nouser"), ([0x04, 0], "nooverwrite"),
                       ([0x08, 0], "noexpand"), ([0x11, 0, 0x01, 0x00], "max_env-256"),
                       ([0x21, 0, 0, 0, ord("L"), ord("D"), ord("_"), ord("*")], "user_allow-LD"),
                       ([0x41, 0, 0, 0, ord("O"), ord("K")], "user_deny-OK"),
                       ([0x81, 0], "userdir-0777"), ([0x01, 1], "unknown-user")):
        for k in ("refused-names",):
            module["knobs-%s-%s" % (tag, k)] = (texts[k] + SEP + b"b\nHOME=/home/fuzz\nPATH=/bin\n"
                                                 + SEP + b"o\n" + bytes(knobs))
    # expand: limits from byte 0 (bits 0-2 max_out, 3-5 budget, 6-7 depth)
    exprs = {
        "deep": deep, "alternate": "${X:+${X:+${X:+${X:+${X:+y}}}}}",
        "expo": "$A$A$A$A${A}${A:-$A}${A:+$A$A}", "dollars": "$$$$ $ ${ $${X} $1 $_ $a",
        "unsupported": "${X:=w}${U:-d}${X:x}}${U:-d}", "braces": "${U:-{{{}}}}${U:-}}}}${{}}",
        "nul": "A\x00$A", "self": "$X${X}${X:-$X}", "empty-name": "${:-d}${:+a}[${}]",
    }
    table = [("A", "aaaaaaaa"), ("X", "x"), ("E", ""), ("P", "/usr/bin:/bin")]
    for k, e in exprs.items():
        for params in (0xff, 0x52):
            expand["hostile-%s-%02x" % (k, params)] = expand_input(e, table, params)
    return parse, load, module, expand


def candidates():
    """{harness: (kept, pool)}: the hostile seeds, always committed, and the
    conformance seeds, committed only where they add coverage."""
    cparse, cload, cexpand = conformance_seeds()
    hparse, hload, hmodule, hexpand = hostile_seeds()
    return {
        "fuzz_parse": (hparse, cparse),
        "fuzz_load": (hload, cload),
        "fuzz_module": (hmodule, cload),
        "fuzz_expand": (hexpand, cexpand),
    }


def dedup(seeds):
    byhash = {}
    for name in sorted(seeds):
        byhash.setdefault(hashlib.sha1(seeds[name]).hexdigest(), (name, seeds[name]))
    return {"seed-" + n: data for n, data in byhash.values()}


def write_dir(d, files):
    os.makedirs(d, exist_ok=True)
    for f, data in files.items():
        with open(os.path.join(d, f), "wb") as fh:
            fh.write(data)


def merge(build, harnesses):
    """Commits the kept seeds and the pool seeds that libFuzzer's -merge finds
    new coverage in (with the fuzz build's harnesses)."""
    for harness, (kept, pool) in candidates().items():
        if harnesses and harness not in harnesses:
            continue
        binary = os.path.join(build, "tests", "fuzz", harness)
        if not os.access(binary, os.X_OK):
            print("seeds.py: %s not built (./dev fuzz builds it)" % binary, file=sys.stderr)
            return 1
        d = os.path.join(CORPUS, harness)
        os.makedirs(d, exist_ok=True)
        kept = dedup(kept)
        pool = {k: v for k, v in dedup(pool).items() if v not in kept.values()}
        with tempfile.TemporaryDirectory(prefix="envd-seeds.") as tmp:
            out, src = os.path.join(tmp, "out"), os.path.join(tmp, "pool")
            write_dir(out, kept)
            for f in os.listdir(d):  # findings kept as regression tests
                if not f.startswith("seed-"):
                    shutil.copy(os.path.join(d, f), out)
            write_dir(src, pool)
            before = set(os.listdir(out))
            p = subprocess.run([binary, "-merge=1", "-use_counters=0", "-timeout=30", "-rss_limit_mb=4096", out, src],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if p.returncode != 0:
                print(p.stderr.decode(errors="replace")[-3000:], file=sys.stderr)
                return 1
            byhash = {hashlib.sha1(v).hexdigest(): k for k, v in pool.items()}
            chosen = {byhash[f]: pool[byhash[f]] for f in set(os.listdir(out)) - before if f in byhash}
        for f in os.listdir(d):
            if f.startswith("seed-"):
                os.unlink(os.path.join(d, f))
        write_dir(d, {**kept, **chosen})
        print("%s: %d hostile seeds, %d of %d conformance seeds add coverage" %
              (harness, len(kept), len(chosen), len(pool)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--all", metavar="DIR", help="write every candidate seed into DIR/<harness>/ and stop")
    ap.add_argument("--build", metavar="DIR", default=os.path.join(HERE, "..", "..", "_build", "fuzz"),
                    help="the --enable-fuzzing build whose harnesses select seeds (default: _build/fuzz)")
    ap.add_argument("harness", nargs="*", help="only these harnesses")
    args = ap.parse_args()
    if args.all:
        for harness, (kept, pool) in candidates().items():
            if not args.harness or harness in args.harness:
                write_dir(os.path.join(args.all, harness), dedup({**pool, **kept}))
        return 0
    return merge(args.build, args.harness)


if __name__ == "__main__":
    sys.exit(main())
