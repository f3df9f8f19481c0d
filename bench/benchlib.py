# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""benchlib.py - helpers of bench/run.py and bench/login.py: hyperfine and
callgrind results (the calls of a profile dumped in parts), and the
comparison of envd's output with systemd's generator's."""

import glob
import json
import os
import re


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
    """The total instruction count (Ir) of a callgrind output file.  0 for
    an empty file that has parts (PATH.1): callgrind creates a process's
    file when the process starts, and a process that took another user's
    ids since (an exec'd reader) can no longer write it at its exit; what
    it did up to its last dump is in the parts (bench/floor_helper.c:
    --dump-before=floor_switch makes one before its switch), the few
    instructions after are lost."""
    if os.path.getsize(path) == 0 and os.path.exists(path + ".1"):
        return 0
    total = None
    with open(path) as f:
        for line in f:
            if line.startswith("totals:") or (total is None and line.startswith("summary:")):
                total = int(line.split()[1])
    if total is None:
        raise SystemExit("benchlib: no totals in %s" % path)
    return total


def parts_of(path):
    """The part files of one process's callgrind profile, in dump order:
    PATH.1, PATH.2, ... then PATH itself (--dump-before=fork writes the
    parts before each fork as PATH.N and the last one, at exit, as PATH)."""
    n = [x for x in glob.glob(glob.escape(path) + ".*") if x[len(path) + 1:].isdigit()]
    return sorted(n, key=lambda x: int(x[len(path) + 1:])) + [path]


def header(path, key):
    """The value of a header line "KEY: value" of a callgrind file."""
    with open(path) as f:
        for line in f:
            if line.startswith(key + ":"):
                return line.split(":", 1)[1].strip()
            if line.startswith(("fn=", "ob=", "fl=")):
                break
    return None


NAME_KIND = {"ob": "ob", "cob": "ob", "fl": "fl", "fi": "fl", "fe": "fl", "cfi": "fl", "cfl": "fl",
             "fn": "fn", "cfn": "fn"}


def arcs(paths):
    """The calls in the parts PATHS of one process (in dump order) as
    (caller, caller object, callee, callee object, calls, inclusive Ir).

    Read with this rather than callgrind_annotate: callgrind's name
    compression runs across the parts of a process, so a later part names
    an object or a file by a number defined only in an earlier part (and
    callgrind_annotate, reading that part alone, shows "???" there); and a
    function on the stack when a part was dumped has its cost after the
    dump in the next part, as a call with calls=0 from its caller."""
    names = {"ob": {}, "fl": {}, "fn": {}}
    out = []
    for path in paths:
        ob = fn = cob = cfn = None
        npos, pending = 1, False
        with open(path) as f:
            for line in f:
                c = line[:1]
                if c.isdigit() or c in "+-*":
                    if pending:
                        w = line.split()
                        ir = int(w[npos]) if len(w) > npos else 0
                        out.append((fn, ob, cfn, cob if cob is not None else ob, calls, ir))
                        pending, cob, cfn = False, None, None
                    continue
                key, sep, val = line.rstrip("\n").partition("=")
                if not sep:
                    if line.startswith("positions:"):
                        npos = len(line.split()) - 1
                    continue
                if key == "calls":
                    calls, pending = int(val.split()[0]), True
                    continue
                kind = NAME_KIND.get(key)
                if kind is None:
                    continue
                m = re.match(r"\((\d+)\)(?: (.*))?$", val)
                if m:
                    if m.group(2) is not None:
                        names[kind][m.group(1)] = m.group(2)
                    name = names[kind].get(m.group(1), "???")
                else:
                    name = val
                if key == "ob":
                    ob = name
                elif key == "fn":
                    fn = name
                elif key == "cob":
                    cob = name
                elif key == "cfn":
                    cfn = name
    return out


def inclusive_of(calls, fn, obj=None, caller_obj=None):
    """The inclusive Ir of the function FN (in an object whose path ends
    with OBJ) over every part of a process: the sum of the calls into it
    from other functions (from an object ending with CALLER_OBJ), the calls
    on the stack at a dump included in every part."""
    return sum(ir for caller, cob_, callee, ob, _, ir in calls
               if callee == fn and (obj is None or (ob or "").endswith(obj)) and
               (caller_obj is None or (cob_ or "").endswith(caller_obj)) and
               not (caller == fn and cob_ == ob))


def entered_in(paths, fn, obj):
    """The index in PATHS (one process's parts in dump order) of the first
    part that calls FN of OBJ (calls >= 1), or None."""
    for i, p in enumerate(paths):
        if any(callee == fn and (ob or "").endswith(obj) and n > 0 for _, _, callee, ob, n, _ in arcs([p])):
            return i
    return None
