#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""benchlib.py - helpers of bench/run.py, as a module and as a command.

    benchlib.py time OUT.json RUNS WARMUP -- CMD...
        Runs CMD (stdout and stderr to /dev/null) WARMUP times, then RUNS
        times, and writes hyperfine-shaped JSON: {"results": [{"median": s,
        "mean": s, "min": s, "max": s, "times": [...]}]}.  Used when hyperfine
        is missing.  CMD inherits this process's environment.
    benchlib.py median FILE.json
        Prints the median (seconds) of a hyperfine (or "time") JSON export.
    benchlib.py compare GENERATOR_OUT ENVD_OUT [DIFF_OUT]
        Decodes both outputs (the generator's "NAME=value" lines, values
        shell-quoted when needed) and compares the ordered assignments.
        Prints "same" and exits 0, or prints a summary, writes the details
        to DIFF_OUT, and exits 1.
    benchlib.py ir CALLGRIND_OUT
        Prints the total instruction count (Ir) of a callgrind output file.
"""

import json
import os
import re
import statistics
import subprocess
import sys
import time


def cmd_time(out, runs, warmup, argv):
    runs, warmup = int(runs), int(warmup)
    times = []
    with open(os.devnull, "wb") as null:
        for i in range(warmup + runs):
            t0 = time.perf_counter()
            rc = subprocess.call(argv, stdout=null, stderr=null)
            t1 = time.perf_counter()
            if rc != 0:
                sys.exit("benchlib: %s exited with %d" % (argv[0], rc))
            if i >= warmup:
                times.append(t1 - t0)
    res = {"command": " ".join(argv), "median": statistics.median(times),
           "mean": statistics.fmean(times), "min": min(times), "max": max(times),
           "times": times}
    with open(out, "w") as f:
        json.dump({"results": [res]}, f)


def times_of(path):
    """The run times (seconds) of a hyperfine (or "time") JSON export."""
    with open(path) as f:
        return json.load(f)["results"][0]["times"]


def median_of(path):
    """The median (seconds) of a hyperfine (or "time") JSON export."""
    with open(path) as f:
        return json.load(f)["results"][0]["median"]


def cmd_median(path):
    print("%.9f" % median_of(path))


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


def cmd_compare(gen, envd, diff_out=None):
    with open(gen, "rb") as f1, open(envd, "rb") as f2:
        if f1.read() == f2.read():
            print("same")
            return 0
    g, e = decode(gen), decode(envd)
    if g == e:
        print("same")
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
    print("DIFFERENT: %d only in generator, %d only in envd, %d values differ%s; first: %s"
          % (len(only_g), len(only_e), len(vals), ", order differs" if order else "",
             lines[0] if lines else "?"))
    if diff_out:
        with open(diff_out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 1


def compare(gen, envd, diff_out=None):
    """cmd_compare without its line on stdout: 0 when the same."""
    with open(os.devnull, "w") as null:
        saved, sys.stdout = sys.stdout, null
        try:
            return cmd_compare(gen, envd, diff_out)
        finally:
            sys.stdout = saved


def ir_of(path):
    """The total instruction count (Ir) of a callgrind output file."""
    total = None
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or (total is None and line.startswith("summary:")):
                total = int(line.split()[1])
    if total is None:
        sys.exit("benchlib: no totals in %s" % path)
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


def cmd_ir(path):
    print(ir_of(path))


def main(argv):
    if len(argv) >= 5 and argv[0] == "time" and argv[4] == "--":
        cmd_time(argv[1], argv[2], argv[3], argv[5:])
    elif len(argv) == 2 and argv[0] == "median":
        cmd_median(argv[1])
    elif len(argv) in (3, 4) and argv[0] == "compare":
        return cmd_compare(*argv[1:])
    elif len(argv) == 2 and argv[0] == "ir":
        cmd_ir(argv[1])
    else:
        sys.exit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
