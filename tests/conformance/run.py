#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""Differential conformance suite: envd against systemd's environment.d generator.

Every case of cases.py is written out to a temporary directory and loaded by
`envd show --inherit --format nul --root ROOT` under `env -i HOME=...`.  The
result is compared with what systemd's generator produces for the same files:

  * live, when we are root (or may create a user namespace), the generator is
    installed and unshare(1) exists: the generator runs in a few private mount
    namespaces (one per worker) in which each case's directories are
    bind-mounted over the four system directories in turn;
  * otherwise from expected.json, the generator's results recorded by
    `run.py --record`.

When both are available a difference between the live and the recorded
generator output is reported as drift.  Cases marked as deviations must give
their `expect` list from envd; the generator is shown to differ (or crash).

Exit status: 0 when every case passed, 1 on failures, 77 when envd is missing
(or, with --gen-only, when no live generator can be run).
"""

import argparse
import concurrent.futures
import ctypes
import ctypes.util
import difflib
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # never litter the source tree (distcheck: read-only)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cases as corpus  # noqa: E402

GENERATOR = "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator"
EXPECTED = os.path.join(HERE, "expected.json")
SYSTEM_DIRS = (
    ("etc", "/etc/environment.d"),
    ("run", "/run/environment.d"),
    ("usrlocal", "/usr/local/lib/environment.d"),
    ("usr", "/usr/lib/environment.d"),
)
TIMEOUT = 20

# ---------------------------------------------------------------------------
# materializing a case


def _write_entries(dirpath, entries, mode=0o755):
    os.makedirs(dirpath, mode=0o755, exist_ok=True)
    for name, item in entries.items():
        path = os.path.join(dirpath, name)
        if isinstance(item, corpus.File):
            with open(path, "wb") as f:
                f.write(item.content)
            os.chmod(path, item.mode)
        elif isinstance(item, corpus.Socket):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            cwd = os.getcwd()
            os.chdir(dirpath)  # a relative name: socket paths are short
            try:
                s.bind(name)
            finally:
                os.chdir(cwd)
                s.close()
        elif isinstance(item, (bytes, bytearray)):
            with open(path, "wb") as f:
                f.write(item)
            os.chmod(path, 0o644)
        elif isinstance(item, str):
            with open(path, "wb") as f:
                f.write(item.encode())
            os.chmod(path, 0o644)
        elif isinstance(item, corpus.Symlink):
            os.symlink(item.target, path)
        elif isinstance(item, corpus.Dir):
            _write_entries(path, item.entries, item.mode)
        else:
            raise TypeError("%s: unsupported entry %r" % (path, item))
    os.chmod(dirpath, mode)


def _subst(value, where):
    if isinstance(value, str):
        value = value.encode()
    for key, path in where.items():
        value = value.replace(b"{" + key.encode() + b"}", path.encode())
    return value


class Materialized:
    """A case written out under base/<index>."""

    def __init__(self, case, base, index):
        self.case = case
        self.dir = os.path.join(base, "%03d" % index)
        self.home = os.path.join(self.dir, "home")
        self.root = os.path.join(self.dir, "root")
        self.xdg = os.path.join(self.dir, "xdg")
        where = {"case": self.dir, "home": self.home, "xdg": self.xdg}
        os.makedirs(self.home, mode=0o755)
        files = case.files
        for key in files:
            if key not in ("home", "user", "xdg") and key not in dict(SYSTEM_DIRS):
                raise ValueError("%s: unknown directory key %s" % (case.name, key))
        if "home" in files:
            _write_entries(self.home, files["home"])
        if "user" in files:
            _write_entries(os.path.join(self.home, ".config", "environment.d"), files["user"])
        if "xdg" in files:
            _write_entries(os.path.join(self.xdg, "environment.d"), files["xdg"])
        self.sysdirs = {}
        for key, sysdir in SYSTEM_DIRS:
            d = self.root + sysdir
            self.sysdirs[key] = d
            if files.get(key) is corpus.MISSING:
                # envd sees no directory; the generator an empty one (the
                # bind mount needs a source): the same thing to systemd.
                os.makedirs(d + ".empty", mode=0o755)
                self.sysdirs[key] = d + ".empty"
                continue
            ents = files.get(key, {})
            if isinstance(ents, corpus.Dir):
                _write_entries(d, ents.entries, ents.mode)
            else:
                _write_entries(d, ents)
        self.etc_environment = None
        if case.etc_environment is not None:
            self.etc_environment = self.root + "/etc/environment"
            with open(self.etc_environment, "wb") as f:
                f.write(case.etc_environment)
            os.chmod(self.etc_environment, 0o644)
        env = []
        if not case.no_home:
            env.append(b"HOME=" + self.home.encode())
        for name, value in case.env:
            env.append(_subst(name, where) + b"=" + _subst(value, where))
        self.env = env

    def normalize(self, outcome):
        """Replaces this case's temporary path by {case} in the values."""
        d = self.dir.encode()
        outcome.pairs = [(n, v.replace(d, b"{case}")) for n, v in outcome.pairs]
        return outcome

    def env_dict(self):
        d = {}
        for item in self.env:
            k, _, v = item.partition(b"=")
            d[k] = v
        return d


# ---------------------------------------------------------------------------
# the generator, in a private mount namespace


def _libc():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
    libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
    return libc


MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MNT_DETACH = 2


def _mount(libc, src, dst, fstype, flags, data=None):
    if libc.mount(src and src.encode(), dst.encode(), fstype and fstype.encode(), flags,
                  data and data.encode()) != 0:
        err = ctypes.get_errno()
        raise OSError(err, "mount %s on %s: %s" % (src, dst, os.strerror(err)))


def gen_worker():
    """Runs inside `unshare -m`: reads a job list (JSON) on stdin, writes results."""
    job = json.load(sys.stdin)
    libc = _libc()
    _mount(libc, None, "/", None, MS_REC | MS_PRIVATE)
    # Give each system directory a mount point.  Where one does not exist,
    # its nearest existing ancestor gets an overlay (its contents stay, as the
    # generator may live there) or, failing that, an empty tmpfs; either way
    # only in this namespace, never on the real file system.
    scratch = job["scratch"]
    _mount(libc, "tmpfs", scratch, "tmpfs", 0, "mode=0700")
    for n, (_, sysdir) in enumerate(SYSTEM_DIRS):
        if os.path.isdir(sysdir):
            continue
        anc = os.path.dirname(sysdir)
        while not os.path.isdir(anc):
            anc = os.path.dirname(anc)
        upper, work = os.path.join(scratch, "u%d" % n), os.path.join(scratch, "w%d" % n)
        os.mkdir(upper)
        os.mkdir(work)
        try:
            _mount(libc, "overlay", anc, "overlay", 0,
                   "lowerdir=%s,upperdir=%s,workdir=%s" % (anc, upper, work))
        except OSError:
            _mount(libc, "tmpfs", anc, "tmpfs", 0, "mode=0755")
        os.makedirs(sysdir, mode=0o755, exist_ok=True)
    results = []
    for c in job["cases"]:
        mounted = []
        try:
            for key, sysdir in SYSTEM_DIRS:
                _mount(libc, c["dirs"][key], sysdir, None, MS_BIND)
                mounted.append(sysdir)
            if c["etc_environment"]:
                if not os.path.isfile("/etc/environment"):
                    results.append({"rc": "no /etc/environment to mount over", "out": "", "err": ""})
                    continue
                _mount(libc, c["etc_environment"], "/etc/environment", None, MS_BIND)
                mounted.append("/etc/environment")
            env = dict(bytes.fromhex(e).split(b"=", 1) for e in c["env"])
            try:
                p = subprocess.run([job["generator"]], env=env, cwd=c["cwd"], stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=TIMEOUT)
                results.append({"rc": p.returncode, "out": p.stdout.hex(), "err": p.stderr.hex()})
            except subprocess.TimeoutExpired:
                results.append({"rc": "timeout", "out": "", "err": ""})
        finally:
            for m in reversed(mounted):
                libc.umount2(m.encode(), MNT_DETACH)
    json.dump({"results": results}, sys.stdout)
    return 0


def live_generator_usable():
    """Returns the unshare command line to use, or None (with the reason)."""
    if not os.access(GENERATOR, os.X_OK):
        return None, "generator not installed"
    unshare = shutil.which("unshare")
    if not unshare:
        return None, "unshare not found"
    if os.geteuid() == 0:
        return [unshare, "-m", "--propagation", "private"], None
    # Unprivileged: a user namespace with our uid mapped to root may do.
    return [unshare, "-U", "-r", "-m", "--propagation", "private"], None


def run_generator(mats, unshare_cmd, workers=4):
    """Runs the generator for every case: the cases are split among a few
    worker processes, each in its own mount namespace."""
    n = max(1, min(workers, len(mats)))
    chunks = [mats[i::n] for i in range(n)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=n) as ex:
        parts = list(ex.map(lambda ch: _run_generator_chunk(ch, unshare_cmd), chunks))
    out = [None] * len(mats)
    for i in range(n):
        out[i::n] = parts[i]
    return out


def _run_generator_chunk(mats, unshare_cmd):
    if not mats:
        return []
    scratch = tempfile.mkdtemp(prefix=".ns-", dir=os.path.dirname(mats[0].dir))
    job = {
        "generator": GENERATOR,
        "scratch": scratch,
        "cases": [{
            "dirs": m.sysdirs,
            "env": [e.hex() for e in m.env],
            "cwd": m.dir,
            "etc_environment": m.etc_environment,
        } for m in mats],
    }
    p = subprocess.run(unshare_cmd + [sys.executable, os.path.abspath(__file__), "--gen-worker"],
                       input=json.dumps(job).encode(), capture_output=True,
                       timeout=TIMEOUT * (len(mats) + 1))
    if p.returncode != 0:
        raise RuntimeError("generator namespace failed (rc %d): %s" %
                           (p.returncode, p.stderr.decode(errors="replace").strip()[-2000:]))
    out = []
    for r in json.loads(p.stdout)["results"]:
        out.append(Outcome.from_generator(r["rc"], bytes.fromhex(r["out"]), bytes.fromhex(r["err"])))
    return out


# ---------------------------------------------------------------------------
# outcomes


class Outcome:
    """What one program produced: status ("ok", "exit N", "signal N", "timeout",
    "bad output") and the ordered (name, value) byte pairs."""

    def __init__(self, status, pairs, stderr=b""):
        self.status = status
        self.pairs = pairs
        self.stderr = stderr

    @staticmethod
    def status_of(rc):
        if isinstance(rc, str):
            return rc
        if rc == 0:
            return "ok"
        if rc < 0:
            return "signal %d" % -rc
        return "exit %d" % rc

    @classmethod
    def from_generator(cls, rc, out, err):
        status = cls.status_of(rc)
        try:
            pairs = parse_generator_output(out)
        except ValueError as e:
            status, pairs = "bad output (%s)" % e, []
        return cls(status, pairs, err)

    def same(self, other):
        return self.status == other.status and self.pairs == other.pairs

    def to_json(self):
        return {"status": self.status, "vars": [[enc(n), enc(v)] for n, v in self.pairs]}

    @classmethod
    def from_json(cls, j):
        return cls(j["status"], [(dec(n), dec(v)) for n, v in j["vars"]])


class Digest:
    """A long recorded value, kept as its length and SHA-256."""

    def __init__(self, length, sha256):
        self.length = length
        self.sha256 = sha256

    def __eq__(self, other):
        if isinstance(other, Digest):
            return (self.length, self.sha256) == (other.length, other.sha256)
        if isinstance(other, (bytes, bytearray)):
            return len(other) == self.length and hashlib.sha256(other).hexdigest() == self.sha256
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return "<%d bytes, sha256 %s...>" % (self.length, self.sha256[:16])


LONG = 256  # longer values are recorded as Digests


def enc(b):
    """bytes -> JSON: a string when it is UTF-8, else {"hex": ...}; long ones
    as {"len": ..., "sha256": ...}."""
    if isinstance(b, Digest):
        return {"len": b.length, "sha256": b.sha256}
    if len(b) > LONG:
        return {"len": len(b), "sha256": hashlib.sha256(b).hexdigest()}
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return {"hex": b.hex()}


def dec(j):
    if isinstance(j, dict):
        if "sha256" in j:
            return Digest(j["len"], j["sha256"])
        return bytes.fromhex(j["hex"])
    return j.encode("utf-8")


_SIMPLE_ESCAPES = {
    ord("a"): b"\a", ord("b"): b"\b", ord("f"): b"\f", ord("n"): b"\n",
    ord("r"): b"\r", ord("t"): b"\t", ord("v"): b"\v",
}


def unquote_generator_value(v):
    """Undoes the generator's transport quoting: a value with special
    characters is printed inside double quotes with C-style escapes."""
    if not (len(v) >= 2 and v[:1] == b'"' and v[-1:] == b'"'):
        return v
    s = v[1:-1]
    out = bytearray()
    i = 0
    while i < len(s):
        c = s[i]
        if c != 0x5C:  # backslash
            if c == 0x22:
                raise ValueError("unescaped quote in %r" % v)
            out.append(c)
            i += 1
            continue
        if i + 1 >= len(s):
            raise ValueError("trailing backslash in %r" % v)
        n = s[i + 1]
        if n in _SIMPLE_ESCAPES:
            out += _SIMPLE_ESCAPES[n]
            i += 2
        elif 0x30 <= n <= 0x37:
            digits = s[i + 1:i + 4]
            if len(digits) != 3 or any(not 0x30 <= d <= 0x37 for d in digits):
                raise ValueError("bad octal escape in %r" % v)
            out.append(int(digits, 8) & 0xFF)
            i += 4
        elif n == ord("x"):
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        else:  # \" \\ \$ \` and anything else: the character itself
            out.append(n)
            i += 2
    return bytes(out)


def parse_generator_output(out):
    pairs = []
    if not out:
        return pairs
    if not out.endswith(b"\n"):
        raise ValueError("no final newline")
    for line in out[:-1].split(b"\n"):
        name, eq, value = line.partition(b"=")
        if not eq:
            raise ValueError("line without '=': %r" % line)
        pairs.append((name, unquote_generator_value(value)))
    return pairs


def parse_nul_output(out):
    pairs = []
    if not out:
        return pairs
    if not out.endswith(b"\0"):
        raise ValueError("no final NUL")
    for item in out[:-1].split(b"\0"):
        name, eq, value = item.partition(b"=")
        if not eq:
            raise ValueError("entry without '=': %r" % item)
        pairs.append((name, value))
    return pairs


# ---------------------------------------------------------------------------
# envd


def run_envd(envd, m):
    argv = [envd, "show", "--inherit", "--format", "nul", "--root", m.root]
    try:
        p = subprocess.run(argv, env=m.env_dict(), cwd=m.dir, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return Outcome("timeout", [])
    except OSError as e:
        return Outcome("cannot run: %s" % e, [])
    status = Outcome.status_of(p.returncode)
    try:
        pairs = parse_nul_output(p.stdout)
    except ValueError as e:
        status, pairs = "bad output (%s)" % e, []
    return Outcome(status, pairs, p.stderr)


# ---------------------------------------------------------------------------
# reporting


def show(b):
    """A readable, unambiguous rendering of bytes."""
    if isinstance(b, bytes) and len(b) > LONG:
        return "%s... <%d bytes, sha256 %s...>" % (repr(b[:40])[1:], len(b), hashlib.sha256(b).hexdigest()[:16])
    return repr(b)[1:] if isinstance(b, bytes) else repr(b)


def render(o):
    lines = ["status: " + o.status]
    lines += ["%s=%s" % (show(n)[1:-1], show(v)) for n, v in o.pairs]
    return lines


def diff(label_a, a, label_b, b):
    return "\n".join(clip(["      " + line for line in difflib.unified_diff(
        render(a), render(b), label_a, label_b, lineterm="", n=5)], 60))


def case_input(case):
    lines = []
    for key in sorted(case.files, key=lambda k: ["home", "user", "xdg", "etc", "run", "usrlocal", "usr"].index(k)):
        ents = case.files[key]
        if ents is corpus.MISSING:
            lines.append("      %s: (missing)" % key)
            continue
        if isinstance(ents, corpus.Dir):
            lines.append("      %s: %r" % (key, ents))
            continue
        for name, item in ents.items():
            shown = name if name.isprintable() else repr(name)
            lines.append("      %s/%s: %s" % (key, shown, item if not isinstance(item, bytes) else show(item)))
    if case.etc_environment is not None:
        lines.append("      /etc/environment: %s" % show(case.etc_environment))
    if case.no_home:
        lines.append("      (no HOME)")
    for n, v in case.env:
        lines.append("      env %s=%s" % (n if isinstance(n, str) else show(n), show(v if isinstance(v, bytes) else v.encode())))
    return "\n".join(clip(lines))


def clip(lines, most=40):
    if len(lines) <= most:
        return lines
    return lines[:most] + ["      ... (%d more lines)" % (len(lines) - most)]


def expected_outcome(case):
    if case.expect is None:
        return None
    pairs = []
    for n, v in case.expect:
        v = v.encode() if isinstance(v, str) else v
        v = v.replace(b"{home}", b"{case}/home").replace(b"{xdg}", b"{case}/xdg")
        pairs.append((n.encode() if isinstance(n, str) else n, v))
    return Outcome("ok", pairs)


# ---------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--envd", help="envd binary (default: $ENVD)")
    ap.add_argument("--record", action="store_true", help="rewrite expected.json from the live generator")
    ap.add_argument("--gen-only", action="store_true",
                    help="check the live generator against the recorded results and the cases' expect lists")
    ap.add_argument("--no-live", action="store_true", help="use expected.json even when the generator can run")
    ap.add_argument("-k", dest="pattern", help="only cases whose name contains this")
    ap.add_argument("-v", "--verbose", action="store_true", help="show stderr of both programs on failure")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--gen-worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.gen_worker:
        return gen_worker()

    t0 = time.monotonic()
    cases = corpus.CASES
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        print("conformance: duplicate case names: %s" % ", ".join(sorted(dup)), file=sys.stderr)
        return 1
    if args.pattern:
        cases = [c for c in cases if args.pattern in c.name]

    envd = None
    if not (args.record or args.gen_only):
        envd = args.envd or os.environ.get("ENVD")
        if not envd:
            top = os.environ.get("top_builddir") or os.path.join(HERE, "..", "..", "_build", "plain")
            envd = os.path.join(top, "src", "envd")
        if not (os.path.isfile(envd) and os.access(envd, os.X_OK)):
            print("SKIP: envd not found at %s" % envd)
            return 77
        envd = os.path.abspath(envd)  # it runs in each case's directory

    recorded = {}
    if os.path.exists(EXPECTED):
        with open(EXPECTED) as f:
            recorded = {k: Outcome.from_json(v) for k, v in json.load(f)["cases"].items()}

    # The temporary tree must not lie under a directory the namespace covers.
    tmpbase = None
    covered = ("/run", "/usr/local", "/etc/environment.d", "/usr/lib/environment.d")
    # /dev/shm first: writing the cases there is much faster than on disk.
    for cand in (os.environ.get("TMPDIR"), "/dev/shm", "/tmp", "/var/tmp"):
        if cand and os.path.isdir(cand) and os.access(cand, os.W_OK | os.X_OK):
            real = os.path.realpath(cand) + "/"
            if not any(real.startswith(c + "/") for c in covered):
                tmpbase = cand
                break
    old_umask = os.umask(0o022)
    tmp = tempfile.mkdtemp(prefix="envd-conformance.", dir=tmpbase)
    os.chmod(tmp, 0o755)
    os.umask(old_umask)

    try:
        os.umask(0o022)
        tm = time.monotonic()
        mats = [Materialized(c, tmp, i) for i, c in enumerate(cases)]
        timing = ["files %.1fs" % (time.monotonic() - tm)]

        # The generator (one namespace, sequential) and envd (a thread pool)
        # run at the same time.
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(8, os.cpu_count() or 2) + 1)
        gen_job = None
        live = None
        live_note = None
        if not args.no_live:
            unshare_cmd, live_note = live_generator_usable()
            if unshare_cmd:
                def timed_generator():
                    tg = time.monotonic()
                    out = run_generator(mats, unshare_cmd, workers=min(4, os.cpu_count() or 1))
                    return out, time.monotonic() - tg
                gen_job = pool.submit(timed_generator)

        envd_out = [None] * len(mats)
        if envd:
            te = time.monotonic()
            for i, o in enumerate(pool.map(lambda m: run_envd(envd, m), mats)):
                envd_out[i] = mats[i].normalize(o)
            timing.append("envd %.1fs" % (time.monotonic() - te))
        if gen_job is not None:
            try:
                out, dt = gen_job.result()
                live = [m.normalize(o) for m, o in zip(mats, out)]
                timing.append("generator %.1fs" % dt)
            except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
                live_note = str(e)
        pool.shutdown()
        if live is None and (args.record or args.gen_only):
            print("conformance: cannot run the live generator: %s" % live_note, file=sys.stderr)
            return 1 if args.record else 77

        if args.record:
            return record(cases, live, recorded)

        return compare(args, cases, envd_out, live, live_note, recorded, t0, timing)
    finally:
        if args.keep:
            print("kept %s" % tmp, file=sys.stderr)
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def record(cases, live, recorded):
    bad = 0
    for case, g in zip(cases, live):
        exp = expected_outcome(case)
        if case.deviation is None and g.status != "ok":
            print("corpus: %s: the generator failed (%s) but the case is not a deviation" % (case.name, g.status))
            bad += 1
        if case.deviation is None and exp is not None and not exp.same(g):
            print("corpus: %s: the generator disagrees with the case's expect list\n%s" %
                  (case.name, diff("expect", exp, "generator", g)))
            bad += 1
    data = {}
    if os.path.exists(EXPECTED):
        with open(EXPECTED) as f:
            data = json.load(f)
    allcases = data.get("cases", {})
    for case, g in zip(cases, live):
        allcases[case.name] = g.to_json()
    # drop recordings of cases that no longer exist; keep corpus order
    order = [c.name for c in corpus.CASES]
    allcases = {n: allcases[n] for n in order if n in allcases}
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "systemd"], capture_output=True, text=True)
    out = {
        "generator": GENERATOR,
        "systemd": version.stdout.strip() if version.returncode == 0 else "unknown",
        "cases": allcases,
    }
    with open(EXPECTED + ".tmp", "w") as f:
        write_expected(f, out)
    os.replace(EXPECTED + ".tmp", EXPECTED)
    print("recorded %d cases into %s (%d corpus problems)" % (len(cases), EXPECTED, bad))
    return 1 if bad else 0


def write_expected(f, out):
    """JSON with one line per variable, so that diffs of the file are readable."""
    dump = lambda x: json.dumps(x, ensure_ascii=True)
    f.write("{\n")
    for key in ("generator", "systemd"):
        f.write(" %s: %s,\n" % (dump(key), dump(out[key])))
    f.write(' "cases": {\n')
    items = list(out["cases"].items())
    for i, (name, c) in enumerate(items):
        f.write("  %s: {\"status\": %s, \"vars\": [" % (dump(name), dump(c["status"])))
        f.write(",".join("\n   " + dump(p) for p in c["vars"]))
        f.write("]}%s\n" % ("," if i + 1 < len(items) else ""))
    f.write(" }\n}\n")


def compare(args, cases, envd_out, live, live_note, recorded, t0, timing):
    fails = notes = 0
    source = "live generator" if live else "recorded generator output"
    if live is None:
        print("# comparing with expected.json (%s)" % live_note)
    for i, case in enumerate(cases):
        problems = []
        info = []
        g_live = live[i] if live else None
        g_rec = recorded.get(case.name)
        g = g_live or g_rec
        e = envd_out[i]
        exp = expected_outcome(case)
        if g_live and g_rec and not g_live.same(g_rec):
            info.append("drift: the live generator differs from expected.json\n%s" %
                        diff("recorded", g_rec, "live", g_live))
        if case.deviation is not None:
            if e is not None and not exp.same(e):
                problems.append("envd differs from the deviation's expect list\n%s" % diff("expect", exp, "envd", e))
            if g is not None and exp.same(g):
                info.append("the %s now agrees with this deviation's expect list" % source)
        else:
            if g is None:
                problems.append("no recorded generator output (run run.py --record)")
            else:
                if g.status != "ok":
                    problems.append("the generator failed (%s): make this case a deviation" % g.status)
                if exp is not None and not exp.same(g):
                    problems.append("corpus: the case's expect list differs from the %s\n%s" %
                                    (source, diff("expect", exp, "generator", g)))
                if e is not None and not g.same(e):
                    problems.append("envd differs from the %s\n%s" % (source, diff("generator", g, "envd", e)))
        if problems:
            fails += 1
            print("FAIL %s" % case.name)
            print("    %s" % case.description)
            print("    input:\n%s" % case_input(case))
            for p in problems:
                print("    " + p)
            if args.verbose and e is not None and e.stderr:
                print("    envd stderr:\n" + "\n".join("      " + l for l in e.stderr.decode(errors="replace").splitlines()))
            if args.verbose and g_live is not None and g_live.stderr:
                print("    generator stderr:\n" + "\n".join("      " + l for l in g_live.stderr.decode(errors="replace").splitlines()))
        else:
            extra = ""
            if case.deviation is not None and g is not None:
                extra = "  (deviation; generator: %s)" % (g.status if g.status != "ok" else "differs")
            print("ok   %s%s" % (case.name, extra))
        for n in info:
            notes += 1
            print("NOTE %s: %s" % (case.name, n))
    dt = time.monotonic() - t0
    what = "envd vs %s" % source if any(o is not None for o in envd_out) else "%s vs expectations" % source
    print("# %d cases (%s): %d passed, %d failed, %d notes, %.1fs (%s)" %
          (len(cases), what, len(cases) - fails, fails, notes, dt, ", ".join(timing)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
