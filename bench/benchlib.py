# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""benchlib.py - helpers of bench/run.py: hyperfine and callgrind results,
and the comparison of envd's output with systemd's generator's."""

import json
import re
import subprocess


def times_of(path):
    """The run times (seconds) of a hyperfine (or "time") JSON export."""
    with open(path) as f:
        return json.load(f)["results"][0]["times"]


def median_of(path):
    """The median (seconds) of a hyperfine (or "time") JSON export."""
    with open(path) as f:
        return json.load(f)["results"][0]["median"]


SIMPLE = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def unquote(v):
    """Undoes systemd's shell_maybe_quote() on one value (best effort)."""
    if len(v) < 2 or v[0] != '"' or v[-1] != '"':
        return v
    s, out, i = v[1:-1], bytearray(), 0
    b = s.encode("utf-8", "surrogateescape")
    while i < len(b):
        c = b[i]
        if c != 0x5C or i + 1 >= len(b):
            out.append(c)
            i += 1
            continue
        n = chr(b[i + 1])
        if n in SIMPLE:
            out += SIMPLE[n].encode()
            i += 2
        elif n in "01234567" and i + 3 < len(b):
            out.append(int(b[i + 1:i + 4], 8) & 0xFF)
            i += 4
        elif n == "x":
            out.append(int(b[i + 2:i + 4], 16))
            i += 4
        elif n in "uU":
            w = 4 if n == "u" else 8
            out += chr(int(b[i + 2:i + 2 + w], 16)).encode()
            i += 2 + w
        else:
            out.append(b[i + 1])
            i += 2
    return out.decode("utf-8", "surrogateescape")


def decode(path):
    with open(path, "rb") as f:
        text = f.read().decode("utf-8", "surrogateescape")
    pairs = []
    for line in text.split("\n"):
        if not line:
            continue
        name, sep, value = line.partition("=")
        pairs.append((name, unquote(value) if sep else None))
    return pairs


def compare(gen, envd, diff_out):
    """0 when the generator's output GEN and envd's ENVD hold the same
    assignments in the same order; else 1, with the differences in
    DIFF_OUT."""
    g, e = decode(gen), decode(envd)
    if g == e:
        return 0
    gd, ed = dict(g), dict(e)
    only_g = [k for k, _ in g if k not in ed]
    only_e = [k for k, _ in e if k not in gd]
    vals = [k for k, _ in g if k in ed and gd[k] != ed[k]]
    order = [k for k, _ in g if k in ed] != [k for k, _ in e if k in gd]
    lines = []
    for k in only_g:
        lines.append("only generator: %s=%r" % (k, gd[k]))
    for k in only_e:
        lines.append("only envd:      %s=%r" % (k, ed[k]))
    for k in vals:
        lines.append("value %s: generator %r, envd %r" % (k, gd[k], ed[k]))
    if order:
        lines.append("order of first definition differs")
    with open(diff_out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 1


def ir_of(path):
    """The total instruction count (Ir) of a callgrind output file."""
    total = None
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or (total is None and line.startswith("summary:")):
                total = int(line.split()[1])
    if total is None:
        raise SystemExit("benchlib: no totals in %s" % path)
    return total


def inclusive(path):
    """A function REGEX -> the largest inclusive Ir of the functions whose
    callgrind_annotate line matches REGEX (None when none does)."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True).stdout.splitlines()

    def largest(regex):
        best = None
        for line in out:
            w = line.split()
            if w and re.search(regex, line) and re.fullmatch(r"[0-9,]+", w[0]):
                n = int(w[0].replace(",", ""))
                best = n if best is None or n > best else best
        return best
    return largest
