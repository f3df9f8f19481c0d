#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""gen_random.py SEED: prints a random ~/.pam_environment for tests/e2e/import.sh.

Lines are drawn from pam_env's syntax and its corners: valid and invalid
names, NAME=VALUE lines, DEFAULT= and OVERRIDE= (quoted, empty, repeated),
${VAR} and @{ITEM} references (unterminated ones too), escapes, '#', blanks
where pam_env does not expect them, continued lines, CR and non-UTF-8 bytes.
The same seed gives the same file."""
import random
import sys

RAW_BYTE = "\x01"  # stands for a byte that is not UTF-8
NAMES = ["A", "B", "C", "DISPLAY", "TERM", "PATH", "LANG", "X1", "BAD-N", "HOME"]
REFS = ["A", "B", "C", "DISPLAY", "TERM", "PATH", "LANG", "HOME", "NOPE", "1X", ""]
ITEMS = ["HOME", "SHELL", "PAM_USER", "PAM_TTY", "BOGUS"]
LITERALS = ["a", "b", "x/y", ":", "{", "}", "'", "\\", "\\$", "\\@", "$", "@", "é",
            RAW_BYTE, "\r", "$$", "-", "=", "~"]


def piece(r):
    k = r.random()
    if k < 0.35:
        return r.choice(LITERALS)
    if k < 0.7:
        return "${%s}" % r.choice(REFS)
    if k < 0.8:
        return "@{%s}" % r.choice(ITEMS)
    if k < 0.82:
        return "${" + r.choice(REFS)
    return r.choice(LITERALS)


def value(r):
    v = "".join(piece(r) for _ in range(r.randint(0, 4)))
    k = r.random()
    if k < 0.25:
        return '"' + v.replace('"', "") + '"'
    if k < 0.3:
        return '""'
    return v


def line(r):
    k = r.random()
    if k < 0.08:
        return "# comment " + r.choice(LITERALS)
    if k < 0.12:
        return ""
    name = r.choice(NAMES)
    if r.random() < 0.1:
        name += "=" + "".join(r.choice(LITERALS) for _ in range(r.randint(0, 2)))
    s = ("  " if r.random() < 0.03 else "") + name
    for _ in range(r.choice([0, 1, 1, 2, 2, 3])):
        s += r.choice([" ", "\t", "  "]) + r.choice(["DEFAULT=", "OVERRIDE="]) + value(r)
    if r.random() < 0.05:
        s += " "
    if r.random() < 0.05:
        s += "#c"
    if r.random() < 0.07:
        s += "\\\n" + ("" if r.random() < 0.7 else "  ") + value(r)
    return s


def main():
    r = random.Random(int(sys.argv[1]))
    text = "\n".join(line(r) for _ in range(r.randint(1, 12)))
    if r.random() < 0.9:
        text += "\n"
    sys.stdout.buffer.write(text.encode("utf-8").replace(RAW_BYTE.encode(), b"\xe9"))


if __name__ == "__main__":
    main()
