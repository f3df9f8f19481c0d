#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""run.py - pam_envd benchmarks (./dev bench).

    bench/run.py BUILDDIR [envd|pam|login|snippet|groups|all] [--json FILE]
    bench/run.py --compare BEFORE.json AFTER.json

Sections:
  envd  envd against systemd's environment.d generator on generated trees:
        output check, wall time (hyperfine) and
        instruction counts (callgrind) with their growth per size step.
  pam   session open with pam_envd (reader=ENVD_READER) last in a
        login-like stack, against the same stack with pam_permit, with the
        floor (bench/pam_floor.c: only the calls pam_envd cannot do without,
        its reader an exec'd bench/floor_helper.c) and with pam_env reading
        the same tree as ~/.pam_environment: output check (the user's own
        variables included: the run stops when envd shows none), instructions
        (callgrind, every process and program) and wall time (pamtester
        under hyperfine), then pam_envd's growth with the tree.  Needs root
        (useradd, /etc/pam.d); users and services are removed on exit.
  login a real login, su -l USER -c true, every process under callgrind
        (bench/login.py) with no module ("none"), with the floor and with
        pam_envd (reader=ENVD_READER), on the small and the medium tree,
        under each LANG of BENCH_LOGIN_LANGS; each login checked first for
        the user's variables; where the instructions go per process; wall
        time, the modules' logins interleaved; then the reader's start
        alone (bench/reader_start.c), in instructions and microseconds.
        Needs root (useradd, a private mount namespace over /etc/pam.d).
  snippet  the login-shell snippet (/etc/profile.d/pam_envd.sh): what it
        adds to every login shell, envd's instructions (callgrind) and the
        wall time of sh sourcing it against sh alone (hyperfine), with a
        copy of Debian's /etc/pam.d where the pair is enabled in
        common-session, where it is disabled (envd stops after reading
        every service: no service applies pam_envd.so) and where the
        directory cannot be read (no check: the snippet before it had one).
  groups  what a user's groups cost the session open: a local user in
        300 groups made for the run, 70 of them with a directory in an
        admin_dir= tree (more than the 64 looked up), against one in 3,
        through pam_permit, the module without admin_dir= and with it
        (bench/pam_open, one session): output check, instructions
        (callgrind, the exec'd reader included) split into getgrouplist,
        the admin lookups (getgrnam_r) and the rest, wall time (hyperfine)
        and the two lookups timed alone.  No target: figures and ratios.
        Needs root (groupadd, useradd, /etc/pam.d); the groups, users and
        services are removed on exit.

The contract (verdicts printed, never a failing exit status):
  - a real login (su -l, every process) on the typical (small) tree:
    pam_envd's instructions above the floor's at most 0.04x the login
    without a module, and its wall time at most 1.05x the floor's (the
    median over rounds of the paired ratio, logins interleaved);
  - per process (one session, as sshd and display managers do it, every
    process and program of it) the module pam_envd adds at most 0.80x
    the instructions pam_env
    (user_readenv) adds doing the equivalent work, each over the same
    stack with pam_permit in its place;
  - envd show is linear: 10x the input costs at most 11x the instructions;
  - envd show is at least 20x faster than systemd's generator at 13,000
    assignments (the large tree).
--json FILE saves every figure; --compare prints each figure of two saved
runs and the change in percent (the cost of a code change is one command).

When envd and the generator disagree on a tree, bench/minimize.py ENVD
_build/bench/trees/SIZE shrinks it to a small repro.

Environment knobs:
  BENCH_SIZES   sizes to run, default "small medium large"
  BENCH_RUNS    minimum timed runs per command (default 10)
  BENCH_WARMUP  warmup runs per command (default 3)
  BENCH_OUT     output directory (default TOP/_build/bench)
  ENVD          envd binary (default BUILDDIR/src/envd)
  PAM_ENVD      the module (default BUILDDIR/pam_envd/.libs/pam_envd.so)
  BENCH_PAM_SESSIONS  extra sessions per process for Ir/session (default 10)
  BENCH_PAM_ENV_SIZES sizes measured with pam_env too (default "small medium")
  BENCH_PAM_ROUNDS    timing rounds, each timing every stack in turn (default 5)
  BENCH_LOGIN_LANGS   LANG of the measured logins (default "C C.UTF-8")
  BENCH_LOGIN_SIZES   trees of the measured logins (default "small medium")
  BENCH_LOGIN_RUNS    logins per module, the median counts (default 3)
  BENCH_LOGIN_WALL    timed logins per module, interleaved (default 60)
  BENCH_START_RUNS    timed starts of the reader (default 300)
  BENCH_GROUPS        groups of the large user (default 300)
  BENCH_GROUPS_ADMIN  of them with an admin directory (default 70)
  BENCH_GROUPS_RUNS   callgrind runs per stack and user, the median counts (default 3)
  BENCH_GROUPS_ROUNDS timing rounds, stacks and users taking turns (default 3)
  ENVD_READER   the reader program the module and envd run (default
                BUILDDIR/helper/reader: a build tree's module finds no other)

The table goes to stdout and to BENCH_OUT/results.txt; raw data (trees,
outputs, hyperfine JSON, callgrind files) stay in BENCH_OUT.
"""

import glob
import grp
import json
import os
import pwd
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import benchlib  # noqa: E402
import login  # noqa: E402

GENERATOR = "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator"
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"  # PATH of every measured process
PAM_STACK = [
    "session  required  pam_env.so readenv=1",
    "session  required  pam_env.so readenv=1 envfile=/etc/default/locale",
    "session  required  pam_limits.so",
    "session  required  pam_unix.so",
    "session  optional  pam_umask.so",
]


class Bench:
    def __init__(self, builddir):
        self.builddir = os.path.abspath(builddir)
        self.out = os.environ.get("BENCH_OUT") or os.path.join(TOP, "_build", "bench")
        self.sizes = (os.environ.get("BENCH_SIZES") or "small medium large").split()
        self.runs = int(os.environ.get("BENCH_RUNS") or 10)
        self.warmup = int(os.environ.get("BENCH_WARMUP") or 3)
        self.envd = os.environ.get("ENVD") or os.path.join(self.builddir, "src", "envd")
        # the reader a build tree's module and envd run (the installed one
        # is elsewhere, or another build's)
        self.reader = os.path.abspath(os.environ.get("ENVD_READER") or
                                      os.path.join(self.builddir, "helper", "reader"))
        self.hyperfine = shutil.which("hyperfine")
        self.figures = {}
        self.cg_files = {}  # callgrind(): out_file -> (first process files, children files)
        os.makedirs(self.out, exist_ok=True)
        self.results = open(os.path.join(self.out, "results.txt"), "w")

    # ---- output ----

    def say(self, *lines):
        for line in lines:
            print(line)
            self.results.write(line + "\n")
        sys.stdout.flush()

    def die(self, msg):
        self.say("run.py: " + msg)
        raise SystemExit(1)

    def machine(self):
        cpu = ""
        try:
            with open("/proc/cpuinfo") as f:
                m = re.search(r"^model name\s*:\s*(.*)$", f.read(), re.M)
                cpu = m.group(1) if m else ""
        except OSError:
            pass
        commit = capture(["git", "-C", TOP, "describe", "--always", "--dirty"]) or "unknown"
        sysd = capture(["dpkg-query", "-W", "-f=${Version}", "systemd"]) or "unknown"
        hf = capture([self.hyperfine, "--version"]) if self.hyperfine else "no hyperfine (no wall times)"
        vg = capture(["valgrind", "--version"]) or "none"
        u = os.uname()
        self.say("pam_envd benchmarks, %s, commit %s" % (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), commit),
                 "machine: %d CPUs, %s, %s %s %s" % (os.cpu_count(), cpu or u.machine, u.sysname, u.release, u.machine),
                 "tools:   %s; %s; systemd %s; running as uid %d" % (hf, vg, sysd, os.getuid()),
                 "envd:    " + self.envd)
        self.figures["commit"] = commit

    # ---- running and timing ----

    def time_cmd(self, json_path, env, argv, runs=None, warmup=None, wrap=()):
        """Median wall time (s) of argv run with exactly env (hyperfine);
        None without hyperfine.  wrap: a prefix (the namespace) around it."""
        if not self.hyperfine:
            return None
        runs = self.runs if runs is None else runs
        warmup = self.warmup if warmup is None else warmup
        cmd = list(wrap) + ["env", "-i"] + ["%s=%s" % kv for kv in env.items()] + [
            self.hyperfine, "-N", "--style", "basic", "--warmup", str(warmup),
            "--min-runs", str(runs), "--export-json", json_path, "--", shlex.join(argv)]
        log = json_path[:-5] + ".log"
        with open(log, "w") as f:
            if subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT) != 0:
                self.die("timing failed: %s (see %s)" % (shlex.join(argv), log))
        return benchlib.median_of(json_path)

    def callgrind(self, out_file, env, argv, programs=False):
        """Total Ir of argv and of every process it forks; with programs,
        of every program they exec too (--trace-children: the module's
        exec'd reader, helper/reader.c, and the processes it forks; the
        floor's helper, bench/floor_helper.c, whose profile is dumped
        before its switch: benchlib.ir_of).
        Profiles are dumped before each fork, so that a child does not
        count again what its parent did before it (callgrind's counters
        are inherited); the figure is the sum of every file.  The files
        stay as OUT_FILE.PID[.N]; self.cg_files[out_file] says which are
        the first process's (its parts in dump order) and which its
        children's."""
        log = out_file[:-4] + ".log"
        # a directory the reader child, which is the user, can write in
        cgdir = os.path.join(os.path.dirname(out_file), "callgrind")
        os.makedirs(cgdir, exist_ok=True)
        os.chmod(cgdir, 0o1777)
        prefix = os.path.join(cgdir, os.path.basename(out_file))
        for old in glob.glob(prefix + ".*"):
            os.unlink(old)
        with open(log, "w") as f:
            proc = subprocess.Popen(["env", "-i"] + ["%s=%s" % kv for kv in env.items()] +
                                    ["valgrind", "--tool=callgrind", "--dump-before=fork"] +
                                    (["--trace-children=yes", "--vgdb=no", "--dump-before=floor_switch"]
                                     if programs else []) +
                                    ["--callgrind-out-file=" + prefix + ".%p"] + argv,
                                    stdout=subprocess.DEVNULL, stderr=f)
            rc = proc.wait()
        files = glob.glob(prefix + ".*")
        if rc != 0 or not files:
            self.die("callgrind run failed: %s (see %s)" % (shlex.join(argv), log))
        first = benchlib.parts_of("%s.%d" % (prefix, proc.pid))
        self.cg_files[out_file] = (first, [x for x in files if x not in first])
        return sum(benchlib.ir_of(x) for x in files)

    # ---- envd against the generator ----

    def in_ns(self, root):
        """A prefix that runs a command in a private mount namespace where
        root's environment.d directories replace the system ones and the
        other two (if present) are empty."""
        script = ('set -e; root=$1 empty=$2; shift 2; '
                  'mount --bind "$root/etc/environment.d" /etc/environment.d; '
                  'mount --bind "$root/usr/lib/environment.d" /usr/lib/environment.d; '
                  'for d in /run/environment.d /usr/local/lib/environment.d; do '
                  'if [ -d "$d" ]; then mount --bind "$empty" "$d"; fi; done; exec "$@"')
        return ["unshare", "-m", "--", "bash", "-c", script, "in_ns", root,
                os.path.join(self.out, "empty")]

    def generator_note(self):
        if os.getuid() != 0:
            return "needs root for a private mount namespace"
        if not os.access(GENERATOR, os.X_OK):
            return GENERATOR + " not installed"
        if not (os.path.isdir("/etc/environment.d") and os.path.isdir("/usr/lib/environment.d")):
            return "/etc/environment.d or /usr/lib/environment.d missing (nothing to bind over)"
        if subprocess.call(["unshare", "-m", "true"], stderr=subprocess.DEVNULL) != 0:
            return "unshare -m not permitted here"
        return None

    def make_trees(self):
        self.trees = {}
        for d in ("empty", "trees/empty/root/etc/environment.d", "trees/empty/root/usr/lib/environment.d",
                  "trees/empty/home/.config/environment.d"):
            os.makedirs(os.path.join(self.out, d), exist_ok=True)
        for s in self.sizes:
            root, home = (os.path.join(self.out, "trees", s, x) for x in ("root", "home"))
            info = json.loads(run_ok([sys.executable, os.path.join(HERE, "gen_tree.py"), "--size", s,
                                      "--json", root, home], "gen_tree.py failed for " + s))
            self.trees[s] = info

    def envd_cmd(self, s):
        return [self.envd, "show", "--inherit", "--format", "env", "--root",
                os.path.join(self.out, "trees", s, "root")]

    def section_envd(self):
        self.say("", "== envd vs systemd's environment.d generator")
        if not os.access(self.envd, os.X_OK):
            self.die("no envd binary at %s (build it with ./dev build)" % self.envd)
        notes = []
        gen_note = self.generator_note()
        if gen_note:
            notes.append("note: generator column skipped: " + gen_note)
        if not self.hyperfine:
            notes.append("note: hyperfine missing: no wall times")
        self.make_trees()
        same, t_envd, t_gen = {}, {}, {}
        for s in self.sizes:
            home = os.path.join(self.out, "trees", s, "home")
            env = {"HOME": home, "PATH": BASE_PATH}
            o, e = (os.path.join(self.out, "%s.envd.%s" % (s, x)) for x in ("out", "err"))
            with open(o, "wb") as fo, open(e, "wb") as fe:
                rc = subprocess.call(["env", "-i", "HOME=" + home, "PATH=" + BASE_PATH] + self.envd_cmd(s),
                                     stdout=fo, stderr=fe)
            if rc != 0:
                self.die("envd failed on the %s tree (exit %d): see %s" % (s, rc, e))
            if os.path.getsize(e):
                notes.append("warning: envd printed diagnostics on the %s tree (see %s)" % (s, e))
            same[s] = "-"
            if not gen_note:
                root = os.path.join(self.out, "trees", s, "root")
                g = os.path.join(self.out, s + ".generator.out")
                with open(g, "wb") as fo:
                    if subprocess.call(self.in_ns(root) + ["env", "-i", "HOME=" + home, "PATH=" + BASE_PATH,
                                                           GENERATOR], stdout=fo, stderr=subprocess.DEVNULL) != 0:
                        self.die("the generator failed on the %s tree" % s)
                diff = os.path.join(self.out, s + ".diff.txt")
                if benchlib.compare(g, o, diff) == 0:
                    same[s] = "same"
                else:
                    same[s] = "DIFFERS"
                    notes.append("WARNING: envd and the generator differ on the %s tree (details: %s; the tree: %s)"
                                 % (s, diff, os.path.join(self.out, "trees", s)))
        for s in self.sizes if self.hyperfine else ():
            home = os.path.join(self.out, "trees", s, "home")
            env = {"HOME": home, "PATH": BASE_PATH}
            t_envd[s] = self.time_cmd(os.path.join(self.out, s + ".envd.json"), env, self.envd_cmd(s))
            if not gen_note:
                root = os.path.join(self.out, "trees", s, "root")
                t_gen[s] = self.time_cmd(os.path.join(self.out, s + ".generator.json"), env, [GENERATOR],
                                         wrap=self.in_ns(root))

        self.say("", "wall time, median of >= %d runs after %d warmup runs (env -i HOME=... PATH=%s);"
                 % (self.runs, self.warmup, BASE_PATH),
                 "envd: envd show --inherit --format env --root ROOT",
                 "generator: %s in a private mount namespace" % GENERATOR,
                 "output: 'same' = the same assignments in the same order, after undoing the generator's quoting",
                 "")
        fmt = "%-7s %6s %7s %8s  %-7s %10s %13s %10s  %s"
        self.say(fmt % ("size", "files", "assign", "KiB", "output", "envd ms", "generator ms", "gen/envd", "target"))
        for s in self.sizes:
            t = self.trees[s]
            r = ratio(t_gen.get(s), t_envd.get(s))
            tgt = ""
            if s == "large":
                if r is None:
                    tgt = ">= 20x: not measured"
                else:
                    tgt = ">= 20x " + ("PASS" if r >= 20 else "MISS")
            self.say(fmt % (s, t["files"], t["assignments"], "%.1f" % (t["bytes"] / 1024), same[s],
                            ms(t_envd.get(s)), ms(t_gen.get(s)), "%.1fx" % r if r is not None else "-", tgt))
            for k, t in (("envd", t_envd), ("generator", t_gen)):
                if s in t:
                    self.figures["%s.%s.ms" % (k, s)] = t[s] * 1000
        self.section_envd_ir()
        self.section_syscalls()
        if notes:
            self.say("", *notes)

    def strace_calls(self, env, argv):
        """System calls made by argv and every process it forks (strace -f
        -c), or None without strace."""
        out = os.path.join(self.out, "strace.txt")
        rc = subprocess.call(["strace", "-f", "-c", "-o", out, "env", "-i"] +
                             ["%s=%s" % kv for kv in env.items()] + argv,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if rc != 0:
            self.die("strace failed: %s" % shlex.join(argv))
        with open(out) as f:
            for line in f:
                w = line.split()
                if w and w[-1] == "total":
                    return int(w[3])
        self.die("no total in " + out)

    def section_syscalls(self):
        """System calls per file: the large tree against an empty one, the
        system side (root reads it), the user side read by envd as root
        for another user, in the reader child (lib/child.c) that is the
        user, and the user side read by the user's own envd."""
        self.say("", "system calls per file (strace -f -c, the large tree minus an empty one, every process "
                 "counted); target: at most 6", "")
        if not shutil.which("strace"):
            self.say("skipped: strace not installed")
            return
        t = self.trees.get("large")
        if t is None:
            self.say("skipped: no large tree (BENCH_SIZES)")
            return
        root = os.path.join(self.out, "trees", "large", "root")
        empty = os.path.join(self.out, "trees", "empty", "root")
        home = os.path.join(self.out, "trees", "large", "home")
        ud = os.path.join(home, ".config", "environment.d")
        n_user = len([f for f in os.listdir(ud) if f.endswith(".conf")])
        n_sys = t["files"] - n_user
        env = {"PATH": BASE_PATH, "HOME": home}
        rows = []
        sys_calls = (self.strace_calls(env, [self.envd, "show", "--no-user", "--root", root]) -
                     self.strace_calls(env, [self.envd, "show", "--no-user", "--root", empty]))
        rows.append(("system side (root)", n_sys, sys_calls))
        user_here = (self.strace_calls(env, [self.envd, "show", "--inherit", "--root", empty]) -
                     self.strace_calls({"PATH": BASE_PATH, "HOME": os.path.join(self.out, "trees", "empty", "home")},
                                       [self.envd, "show", "--inherit", "--root", empty]))
        rows.append(("user side, in envd", n_user, user_here))
        child = self.user_side_in_child(ud, empty)
        if child is not None:
            rows.append(("user side, reader child", n_user, child))
        fmt = "%-26s %6s %9s %9s  %s"
        self.say(fmt % ("side", "files", "calls", "per file", "target"))
        for name, files, calls in rows:
            per = calls / files
            self.figures["syscalls.%s" % name.split(",")[0].split()[0]] = per
            self.say(fmt % (name, files, calls, "%.2f" % per, "<= 6 " + ("PASS" if per <= 6 else "MISS")))

    def user_side_in_child(self, ud, empty):
        """The user side read through the reader child: envd show USER as
        root for a scratch user whose environment.d is a copy of ud.
        None when not root or without useradd."""
        if os.getuid() != 0 or not shutil.which("useradd"):
            self.say("(user side through the reader child: needs root and useradd)")
            return None
        user = "envdsc%05d" % (os.getpid() % 100000)
        base = tempfile.mkdtemp(prefix="envd-syscalls.", dir="/tmp")
        os.chmod(base, 0o755)
        try:
            home = os.path.join(base, "home")
            if subprocess.call(["useradd", "-M", "-d", home, "-s", "/bin/sh", "-U", user],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) != 0:
                self.say("(user side through the reader child: useradd failed)")
                return None
            pw = pwd.getpwnam(user)
            dest = os.path.join(home, ".config", "environment.d")
            shutil.copytree(ud, dest)
            for d, _, files in os.walk(home):
                os.chown(d, pw.pw_uid, pw.pw_gid)
                for f in files:
                    os.chown(os.path.join(d, f), pw.pw_uid, pw.pw_gid)
            env = {"PATH": BASE_PATH, "ENVD_READER": self.reader}
            full = self.strace_calls(env, [self.envd, "show", "--root", empty, user])
            shutil.rmtree(dest)
            os.makedirs(dest)
            os.chown(dest, pw.pw_uid, pw.pw_gid)
            none = self.strace_calls(env, [self.envd, "show", "--root", empty, user])
            if full - none <= 0:
                self.die("the user side through the reader made no system calls: skipped (no reader at %s?)"
                         % self.reader)
            return full - none
        finally:
            subprocess.call(["userdel", user], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            shutil.rmtree(base, ignore_errors=True)

    def section_envd_ir(self):
        self.say("", "instructions executed by envd (valgrind --tool=callgrind, total Ir; 'empty' is an empty tree)",
                 "")
        if not shutil.which("valgrind"):
            self.say("skipped: valgrind not installed")
            return
        ir = {}
        for s in ["empty"] + self.sizes:
            ir[s] = self.callgrind(os.path.join(self.out, "callgrind.%s.out" % s),
                                   {"HOME": os.path.join(self.out, "trees", s, "home"), "PATH": BASE_PATH},
                                   self.envd_cmd(s))
            self.figures["envd.%s.Ir" % s] = ir[s]
        fmt = "%-7s %6s %7s %15s %12s"
        self.say(fmt % ("size", "files", "assign", "Ir", "Ir/assign"), fmt % ("empty", 0, 0, ir["empty"], "-"))
        for s in self.sizes:
            t = self.trees[s]
            self.say(fmt % (s, t["files"], t["assignments"], ir[s],
                            "%.0f" % ((ir[s] - ir["empty"]) / t["assignments"])))
        self.say("", "growth per step; target: instructions grow at most 1.1x as fast as the input",
                 "(10x the input => at most 11x the instructions)", "")
        fmt = "%-16s %7s %8s %8s %9s %12s %9s  %s"
        self.say(fmt % ("step", "files", "assign", "bytes", "Ir", "Ir - empty", "limit", "status"))
        for prev, s in zip(self.sizes, self.sizes[1:]):
            a, b = self.trees[s], self.trees[prev]
            ri = ir[s] / ir[prev]
            rm = "x%.2f" % ((ir[s] - ir["empty"]) / (ir[prev] - ir["empty"])) if ir[prev] > ir["empty"] else "-"
            lim = 1.1 * a["assignments"] / b["assignments"]
            self.say(fmt % ("%s -> %s" % (prev, s), "x%.1f" % (a["files"] / b["files"]),
                            "x%.1f" % (a["assignments"] / b["assignments"]), "x%.1f" % (a["bytes"] / b["bytes"]),
                            "x%.2f" % ri, rm, "x%.2f" % lim, "PASS" if ri <= lim else "MISS"))

    # ---- the login-shell snippet ----

    def snippet_pam_dirs(self):
        """Copies of /etc/pam.d (the common-* files and the services a
        package owns, as tests/docs/readme.sh takes them): "on" with the
        deployment pair in common-session, "off" without it."""
        dirs = {}
        for name in ("on", "off"):
            d = os.path.join(self.out, "snippet", "pam.d." + name)
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
            for f in sorted(os.listdir("/etc/pam.d")):
                src = os.path.join("/etc/pam.d", f)
                if not os.path.isfile(src):
                    continue
                owned = subprocess.call(["dpkg-query", "-S", src], stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL) == 0
                if not (f.startswith("common-") or owned):
                    continue
                with open(src) as i:
                    text = i.read()
                if f == "common-session" and name == "on":
                    text = "session optional pam_envd.so cleanup\n" + text + "session optional pam_envd.so\n"
                if f == "common-session" and name == "off":
                    text = "".join(x for x in text.splitlines(True) if "pam_envd" not in x)
                with open(os.path.join(d, f), "w") as o:
                    o.write(text)
            dirs[name] = d
        dirs["unreadable"] = os.path.join(self.out, "snippet", "no-such-dir")
        return dirs

    def section_snippet(self):
        """The snippet's cost per login shell: envd -q show --reapply=PATH
        as the snippet runs it, in Ir and in wall time (sh sourcing the
        snippet, less sh alone)."""
        self.say("", "== the login-shell snippet (/etc/profile.d/pam_envd.sh), per login shell")
        if not os.access(self.envd, os.X_OK):
            self.die("no envd binary at %s (build it with ./dev build)" % self.envd)
        base = os.path.join(self.out, "snippet")
        home = os.path.join(base, "home")
        root = os.path.join(base, "root")
        os.makedirs(os.path.join(home, ".config", "environment.d"), exist_ok=True)
        for d in ("etc", "run", "usr/local/lib", "usr/lib"):
            os.makedirs(os.path.join(root, d, "environment.d"), exist_ok=True)
        with open(os.path.join(home, ".config", "environment.d", "10-path.conf"), "w") as f:
            f.write("PATH=$HOME/.local/bin:$PATH\nEDITOR=vim\n")
        dirs = self.snippet_pam_dirs()
        env = {"HOME": home, "PATH": BASE_PATH, "LANG": "C"}
        with open(os.path.join(TOP, "profile", "pam_envd.sh.in")) as f:
            snippet = f.read()
        fmt = "%-11s %11s %9s %12s  %s"
        self.say("services: %d in the copy of /etc/pam.d" % len(os.listdir(dirs["on"])), "",
                 fmt % ("pam.d", "envd Ir", "vs none", "wall (sh)", "output"))
        ir = {}
        for name in ("unreadable", "on", "off"):
            argv = [self.envd, "-q", "--pam-dir=" + dirs[name], "--root=" + root, "show",
                    "--reapply=PATH", "--format=shell"]
            out = subprocess.run(["env", "-i"] + ["%s=%s" % kv for kv in env.items()] + argv,
                                 capture_output=True, text=True).stdout.strip()
            ir[name] = None
            if shutil.which("valgrind"):
                ir[name] = self.callgrind(os.path.join(base, "callgrind.%s.out" % name), env, argv)
                self.figures["snippet.%s.Ir" % name] = ir[name]
            # the snippet as installed, with this envd, this PAM directory
            # and the scratch --root
            path = os.path.join(base, "pam_envd.%s.sh" % name)
            with open(path, "w") as f:
                f.write(snippet.replace("'@bindir@/envd' -q show", "'@bindir@/envd' -q --pam-dir='%s' "
                                        "--root='%s' show" % (dirs[name], root))
                        .replace("@bindir@/envd", self.envd).replace("@sysconfdir@", base))
            with_ = self.time_cmd(os.path.join(base, "sh.%s.json" % name), env,
                                  ["sh", "-c", '. "$0"; :', path], runs=max(self.runs, 50))
            alone = self.time_cmd(os.path.join(base, "sh.none.json"), env, ["sh", "-c", ":"],
                                  runs=max(self.runs, 50))
            wall = with_ - alone if with_ is not None and alone is not None else None
            if wall is not None:
                self.figures["snippet.%s.ms" % name] = wall * 1e3
            self.say(fmt % (name, ir[name] if ir[name] is not None else "-",
                            r2(ir[name], ir["unreadable"]) if ir[name] and ir["unreadable"] else "-",
                            ms(wall) if wall is not None else "-", out or "(nothing)"))
        if ir.get("on") and ir.get("off") and ir.get("unreadable"):
            self.say("", "the check that a service applies pam_envd.so: +%d Ir enabled, %+d Ir disabled "
                     "(envd then loads nothing)" % (ir["on"] - ir["unreadable"], ir["off"] - ir["unreadable"]))

    # ---- a whole login ----

    def section_login(self):
        """bench/login.py's measurement for none, the floor and pam_envd
        on each tree and LANG, with interleaved wall times; the verdicts:
        pam_envd above the floor at most 0.04x the login, su -l at most
        1.05x the floor's in wall time, on the small tree; then the
        reader's start alone (helper_start)."""
        self.say("", "== a real login: su -l USER -c true, every process (bench/login.py)")
        if os.getuid() != 0:
            self.say("skipped: needs root (useradd, unshare -m, mount)")
            return
        missing = [c for c in ("valgrind", "unshare", "mount", "useradd", "userdel", "su", "cc")
                   if not shutil.which(c)]
        if missing:
            self.say("skipped: missing " + " ".join(missing))
            return
        module_src = os.environ.get("PAM_ENVD") or os.path.join(self.builddir, "pam_envd", ".libs", "pam_envd.so")
        if not os.path.isfile(module_src) or not os.access(self.envd, os.X_OK) or not os.path.isfile(self.reader):
            self.die("no module at %s, no envd at %s or no reader at %s (build them with ./dev build)"
                     % (module_src, self.envd, self.reader))
        out = os.path.join(self.out, "login")
        os.makedirs(out, exist_ok=True)
        # copies: a rebuild cannot change them mid-run
        module = os.path.join(out, "pam_envd.so")
        shutil.copy(module_src, module)
        reader = os.path.join(out, "reader")
        shutil.copy(self.reader, reader)
        os.chmod(reader, 0o755)
        langs = (os.environ.get("BENCH_LOGIN_LANGS") or "C C.UTF-8").split()
        sizes = (os.environ.get("BENCH_LOGIN_SIZES") or "small medium").split()
        runs = int(os.environ.get("BENCH_LOGIN_RUNS") or 3)
        wall_runs = int(os.environ.get("BENCH_LOGIN_WALL") or 60)
        user = "envdl%07d" % os.getpid()
        self.say("valgrind --tool=callgrind --trace-children=yes --dump-before=fork, total Ir summed over every",
                 "process of the login (su with its PAM stack, the module's reader and the processes it forks,",
                 "the login shell and what it runs); median of %d logins per module, the modules taking turns;"
                 % runs,
                 "user %s made for the run; none = no pam_envd line in common-session; floor =" % user,
                 "bench/pam_floor.c writing envd show's variables (the least a module doing this work costs, in",
                 "pam_envd's process shape: an exec'd helper, bench/floor_helper.c, that takes the user's ids and",
                 "answers one byte); pam_envd = a copy of %s with reader=%s (a copy of %s)"
                 % (module_src, reader, self.reader),
                 "reading the tree (bench/gen_tree.py: small = 10 files, 40 assignments; medium = 100 files,",
                 "1,300 assignments); LANG = su's (the login shell gets the PAM environment's: su -l); each",
                 "module's login checked first: the variables of the user's files reach the login shell",
                 "above floor = (pam_envd - floor) / none; wall: %d logins per module, interleaved (login.py)"
                 % wall_runs, "")
        fmt = "%-6s %-8s %-9s %12s %10s %8s %12s %8s %9s %15s %8s"
        verdicts, details, walls = [], [], []
        self.say(fmt % ("tree", "LANG", "module", "Ir/login", "vs none", "x none", "above floor", "x none",
                        "wall ms", "q1-q3", "x floor"))
        for lang in langs:
            for size in sizes:
                res = login.logins([("none", None), ("pam_envd", module)], size=size, lang=lang, runs=runs,
                                   user=user, floor=self.envd, progress=None, reader=reader,
                                   wall_runs=wall_runs)
                ir, w = res["Ir"], res["wall"]
                for name in res["names"]:
                    above = ir[name] - ir["floor"] if name == "pam_envd" else None
                    x = w.get(name)
                    self.say(fmt % (size, lang, name, ir[name], "%+d" % (ir[name] - ir["none"]),
                                    fx(ratio(ir[name], ir["none"])), "%+d" % above if above is not None else "",
                                    fx(ratio(above, ir["none"])) if above is not None else "",
                                    "%.2f" % x["median"] if x else "-",
                                    "%.2f-%.2f" % (x["q1"], x["q3"]) if x else "-",
                                    fx(x["ratio"]) if x else "-"))
                    key = "login.%s.%s.%s" % (lang, size, name)
                    self.figures[key + ".Ir"] = ir[name]
                    self.figures[key + ".x_none"] = ratio(ir[name], ir["none"])
                    if x:
                        self.figures[key + ".wall_ms"] = x["median"]
                        self.figures[key + ".wall_x_floor"] = x["ratio"]
                xm, xf = ratio(ir["pam_envd"], ir["none"]), ratio(ir["floor"], ir["none"])
                above = ratio(ir["pam_envd"] - ir["floor"], ir["none"])
                self.figures["login.%s.%s.pam_envd.above_floor" % (lang, size)] = ir["pam_envd"] - ir["floor"]
                self.figures["login.%s.%s.pam_envd.above_floor_x" % (lang, size)] = above
                line = ("%s tree, LANG=%s: pam_envd %s none, floor %s; pam_envd above the floor %+d Ir, %s the "
                        "login" % (size, lang, fx(xm), fx(xf), ir["pam_envd"] - ir["floor"], fx(above)))
                if size == "small":
                    line += " (target 0.04x: %s)" % ("PASS" if above <= 0.04 else "MISS")
                    if w:
                        x = w["pam_envd"]
                        line += ("; wall %s the floor's, q1-q3 %.3f-%.3f (target 1.05x: %s)"
                                 % (fx(x["ratio"]), x["ratio_q1"], x["ratio_q3"],
                                    "PASS" if x["ratio"] <= 1.05 else "MISS"))
                verdicts.append(line)
                details.extend(login.breakdown(res, header=not details,
                                               title="%s tree, LANG=%s:" % (size, lang)))
                walls.extend(["%s tree, LANG=%s:" % (size, lang)] + login.wall_lines(res))
        self.say("", "the contract (issue 35): on the small tree, pam_envd's instructions above the floor at most",
                 "0.04x the login, and su -l with pam_envd at most 1.05x the floor's in wall time",
                 *("  " + v for v in verdicts))
        self.say("", *details)
        if walls:
            self.say("", *walls)
        self.helper_start(out, reader)

    def helper_start(self, out, reader):
        """The reader's own start, apart: bench/reader_start.c starts it
        as lib/spawn.c does, with an empty input (up to its first read,
        and its exit) and with a root login's look-up of a user (up to its
        answer), and the floor's helper with an empty input; instructions
        (callgrind, the started program's processes only) and wall time
        (microseconds, median and quartiles of BENCH_START_RUNS, default
        300)."""
        n = int(os.environ.get("BENCH_START_RUNS") or 300)
        self.say("", "== the reader's start, apart (bench/reader_start.c: clone and exec as lib/spawn.c, each reaped)")
        proto = sorted(glob.glob(os.path.join(TOP, "lib", "**", "proto.h"), recursive=True))
        if not proto:
            self.say("skipped: no lib/**/proto.h")
            return
        driver = os.path.join(out, "reader_start")
        helper = os.path.join(out, "floor_helper")
        run_ok(["cc", "-O2", "-Wall", "-I", os.path.dirname(proto[0]), "-o", driver,
                os.path.join(HERE, "reader_start.c")], "cannot build bench/reader_start.c")
        run_ok(["cc", "-O2", "-Wall", "-o", helper, os.path.join(HERE, "floor_helper.c")],
               "cannot build bench/floor_helper.c")
        os.chmod(helper, 0o755)
        user = "nobody"  # a user of the passwd file, in no group of its own
        try:
            pwd.getpwnam(user)
        except KeyError:
            user = pwd.getpwuid(0).pw_name
        cases = [("reader, empty input (start to first read, exit)", "reader.start", [reader]),
                 ("reader, a root login's look-up of %s (to its answer)" % user, "reader.lookup",
                  ["-l", user, reader]),
                 ("floor helper, empty input", "floor_helper.start", [helper])]
        fmt = "%-58s %10s %10s %16s"
        self.say("instructions: callgrind --trace-children=yes on one start, the started program's processes;",
                 "time: %d starts in a row, median and q1-q3, microseconds (no valgrind)" % n, "",
                 fmt % ("program", "Ir", "us", "q1-q3 us"))
        for title, key, args in cases:
            f = os.path.join(out, "callgrind.%s.out" % key)
            self.callgrind(f, {"PATH": BASE_PATH}, [driver, "-n", "1"] + args, programs=True)
            first, children = self.cg_files[f]
            ir = sum(benchlib.ir_of(x) for x in children)
            line = run_ok(["env", "-i", "PATH=" + BASE_PATH, driver, "-n", str(n)] + args,
                          "reader_start failed: " + title).split()
            med, q1, q3 = (float(x) for x in line[1:4])
            self.say(fmt % (title, ir, "%.0f" % med, "%.0f-%.0f" % (q1, q3)))
            self.figures["start.%s.Ir" % key] = ir
            self.figures["start.%s.us" % key] = med

    # ---- PAM sessions ----

    def section_pam(self):
        self.say("", "== PAM session open: pam_envd vs pam_permit vs pam_env")
        if os.getuid() != 0:
            self.say("skipped: needs root (real users with useradd, services in /etc/pam.d)")
            return
        missing = [c for c in ("cc", "useradd", "userdel", "groupdel", "getent") if not shutil.which(c)]
        if missing:
            self.say("skipped: missing " + " ".join(missing))
            return
        pam = PamBench(self)
        try:
            pam.run()
        finally:
            pam.cleanup()


    # ---- a user in many groups ----

    def section_groups(self):
        self.say("", "== a user in many groups: getgrouplist and the admin_dir group lookups at session open")
        if os.getuid() != 0:
            self.say("skipped: needs root (groupadd, useradd, services in /etc/pam.d)")
            return
        missing = [c for c in ("cc", "groupadd", "groupdel", "useradd", "userdel", "usermod", "getent")
                   if not shutil.which(c)]
        if missing:
            self.say("skipped: missing " + " ".join(missing))
            return
        gb = GroupsBench(self)

        def stop(signum, frame):
            raise SystemExit("run.py: signal %d, the groups, users and services made are removed" % signum)
        old = signal.signal(signal.SIGTERM, stop)
        try:
            gb.run()
        finally:
            gb.cleanup()
            signal.signal(signal.SIGTERM, old)


class GroupsBench:
    """What a user's groups cost the session open: a local user in
    BENCH_GROUPS groups made for the run (default 300), BENCH_GROUPS_ADMIN
    of them (default 70) with a directory in an admin_dir= tree, against
    the same kind of user in 3 groups (its own and two with a directory),
    through three one-line stacks: pam_permit, the module without
    admin_dir= (its getgrouplist for the reader) and with it (the lookup
    of each ADMIN/group entry, at most ENVD_MAX_ADMIN_GROUPS, in name
    order).  Groups, users and services are removed at the end, also
    when the run fails or is stopped (SIGINT, SIGTERM)."""

    CAP = 64  # lib/envd.h ENVD_MAX_ADMIN_GROUPS

    def __init__(self, b):
        self.b = b
        self.out = os.path.join(b.out, "groups")
        self.tag = "envdg%07d" % os.getpid()  # one length: the same Ir run to run
        self.ngroups = int(os.environ.get("BENCH_GROUPS") or 300)
        self.nadmin = min(int(os.environ.get("BENCH_GROUPS_ADMIN") or 70), self.ngroups)
        self.runs = int(os.environ.get("BENCH_GROUPS_RUNS") or 3)
        self.rounds = int(os.environ.get("BENCH_GROUPS_ROUNDS") or 3)
        self.groups, self.users, self.services, self.tmp = [], [], [], None

    def cleanup(self):
        for s in self.services:
            try:
                os.unlink("/etc/pam.d/" + s)
            except FileNotFoundError:
                pass
        for u in self.users:
            self.retry(["userdel", u])
            if subprocess.call(["getent", "group", u], stdout=subprocess.DEVNULL) == 0:
                self.retry(["groupdel", u])
        for g in self.groups:
            self.retry(["groupdel", g])
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.services, self.users, self.groups, self.tmp = [], [], [], None

    @staticmethod
    def retry(argv):
        """argv, again while the account files are locked (exit 10 or 1:
        another process is changing them)."""
        for _ in range(30):
            p = subprocess.run(argv, capture_output=True, text=True)
            if p.returncode not in (1, 10):
                return p
            time.sleep(0.3)
        return p

    def must(self, argv):
        p = self.retry(argv)
        if p.returncode != 0:
            self.b.die("%s failed: %s" % (shlex.join(argv), p.stderr.strip()))

    def service(self, name, line):
        path = "/etc/pam.d/" + name
        if os.path.exists(path):
            self.b.die(path + " exists already")
        self.services.append(name)
        with open(path, "w") as f:
            f.write("# pam_envd benchmark (bench/run.py, pid %d); removed when the run ends\n" % os.getpid())
            f.write("auth     required  pam_deny.so\naccount  required  pam_deny.so\n"
                    "password required  pam_deny.so\nsession  required  %s\n" % line)
        os.chmod(path, 0o644)

    def group_name(self, i):
        return "%sx%03d" % (self.tag, i)

    def setup(self):
        """The groups, the admin tree, the two users and the services."""
        b = self.b
        shutil.rmtree(self.out, ignore_errors=True)
        os.makedirs(self.out)
        module_src = os.environ.get("PAM_ENVD") or os.path.join(b.builddir, "pam_envd", ".libs", "pam_envd.so")
        reader_src = os.environ.get("ENVD_READER") or os.path.join(b.builddir, "helper", "reader")
        if not os.path.isfile(module_src) or not os.path.isfile(reader_src):
            b.die("no module at %s or no reader at %s (build them with ./dev build)" % (module_src, reader_src))
        # copies: a rebuild during the run changes nothing under callgrind
        self.module = os.path.join(self.out, "pam_envd.so")
        self.reader = os.path.join(self.out, "reader")
        shutil.copy(module_src, self.module)
        shutil.copy(reader_src, self.reader)
        os.chmod(self.reader, 0o755)
        self.driver = os.path.join(self.out, "pam_open")
        run_ok(["cc", "-O2", "-Wall", "-o", self.driver, os.path.join(HERE, "pam_open.c"), "-lpam"],
               "cannot build %s (libpam0g-dev?)" % self.driver)
        self.tmp = tempfile.mkdtemp(prefix="pam_envd-bench-groups.", dir="/tmp")
        os.chmod(self.tmp, 0o755)
        names = [self.group_name(i) for i in range(self.ngroups)]
        for g in names:
            if subprocess.call(["getent", "group", g], stdout=subprocess.DEVNULL) == 0:
                b.die("group %s exists already" % g)
            self.must(["groupadd", g])
            self.groups.append(g)
        # the admin tree: a directory for every fourth group (as many as
        # asked for), each setting one variable; root's, as admin_dir wants
        step = max(1, self.ngroups // self.nadmin) if self.nadmin else 1
        self.admin_groups = [names[i] for i in range(0, self.ngroups, step)][:self.nadmin]
        self.admin = os.path.join(self.out, "admin")
        for g in self.admin_groups:
            d = os.path.join(self.admin, "group", g)
            os.makedirs(d)
            # a name of its own: a file name masks the same name in later directories
            with open(os.path.join(d, "50-%s.conf" % g[len(self.tag):]), "w") as f:
                f.write("ROLE_%s=%s\n" % (g[len(self.tag):], g))
        self.sysdir = os.path.join(self.out, "system")
        os.makedirs(self.sysdir)
        # the user in 3 groups: its own and the first two with a directory
        self.members = {"few": self.admin_groups[:2], "many": names}
        self.user = {"few": self.tag + "f", "many": self.tag + "m"}
        for k in ("few", "many"):
            u = self.user[k]
            home = os.path.join(self.tmp, u)
            self.must(["useradd", "-M", "-d", home, "-s", "/bin/sh", "-U", "-K", "UMASK=022", u])
            self.users.append(u)
            self.must(["usermod", "-a", "-G", ",".join(self.members[k]), u])
            d = os.path.join(home, ".config", "environment.d")
            os.makedirs(d)
            with open(os.path.join(d, "10-user.conf"), "w") as f:
                f.write("USER_SIDE=read\n")
            run_ok(["chown", "-R", "%s:%s" % (u, u), home], "chown " + home)
        base = "%s reader=%s system_dirs=%s" % (self.module, self.reader, self.sysdir)
        self.stacks = {"permit": "pam_permit.so", "groups": base, "admin": base + " admin_dir=" + self.admin}
        for k, line in self.stacks.items():
            self.service("%s-%s" % (self.tag, k), line)

    def check(self, k):
        """The admin stack's PAM environment for user k: the user's file
        and the variable of each group of the user whose directory is among
        the first CAP of ADMIN/group in name order, nothing else of it."""
        f = os.path.join(self.out, "%s.admin.nul" % k)
        with open(f, "wb") as o:
            if subprocess.call(["env", "-i", "PATH=" + BASE_PATH, self.driver, "-p", self.svc("admin"),
                                self.user[k]], stdout=o, stderr=subprocess.DEVNULL) != 0:
                self.b.die("the admin stack fails for %s" % self.user[k])
        env = read_nul(f)
        got = sorted(v for n, v in env.items() if n.startswith("ROLE_"))
        mine = set(self.members[k])
        want = sorted(g for g in sorted(self.admin_groups)[:self.CAP] if g in mine)
        if env.get("USER_SIDE") != "read" or got != want:
            self.b.die("the admin stack for %s: USER_SIDE=%r, %d group variables, expected %d (%s)"
                       % (self.user[k], env.get("USER_SIDE"), len(got), len(want), f))
        return len(got)

    def svc(self, stack):
        return "%s-%s" % (self.tag, stack)

    def ir(self, stack, k, run):
        """One callgrind run of a session of user k through stack: the
        total and its parts."""
        f = os.path.join(self.out, "callgrind.%s.%s.%d.out" % (stack, k, run))
        total = self.b.callgrind(f, {"PATH": BASE_PATH}, [self.driver, self.svc(stack), self.user[k]],
                                 programs=True)
        first, children = self.b.cg_files[f]
        calls = benchlib.arcs(first)
        so = os.path.basename(self.module)
        open_ = benchlib.inclusive_of(calls, "pam_sm_open_session", so)
        return {"total": total,
                "module": open_ + sum(benchlib.ir_of(x) for x in children),
                "reader": sum(benchlib.ir_of(x) for x in children),
                "getgrouplist": libc_call(calls, "getgrouplist", so),
                "getgrnam_r": libc_call(calls, "getgrnam_r", so)}

    def lookups_wall(self, k, n=200):
        """Median wall time (s) of the user's getgrouplist, and of the
        admin lookups (getgrnam of the first CAP entries), in this process."""
        u = pwd.getpwnam(self.user[k])
        names = sorted(self.admin_groups)[:self.CAP]
        t_gl, t_gn = [], []
        for _ in range(n):
            t0 = time.perf_counter()
            os.getgrouplist(u.pw_name, u.pw_gid)
            t1 = time.perf_counter()
            for g in names:
                grp.getgrnam(g)
            t2 = time.perf_counter()
            t_gl.append(t1 - t0)
            t_gn.append(t2 - t1)
        return statistics.median(t_gl), statistics.median(t_gn)

    def run(self):
        b = self.b
        self.setup()
        ng = {k: len(os.getgrouplist(self.user[k], pwd.getpwnam(self.user[k]).pw_gid)) for k in self.user}
        nvars = {k: self.check(k) for k in self.user}
        b.say("users: %s in %d groups, %s in %d (getgrouplist's count, the user's own included), both local"
              % (self.user["many"], ng["many"], self.user["few"], ng["few"]),
              "       (useradd, usermod -a -G; /etc/group holds all %d groups made for the run meanwhile)"
              % self.ngroups,
              "admin: %s/group: %d directories, one file each (every %s); at most %d entries are looked up,"
              % (self.admin, len(self.admin_groups), "group" if len(self.admin_groups) == self.ngroups
                 else "%dth group" % max(1, self.ngroups // max(1, self.nadmin)), self.CAP),
              "       the first in name order: %s gets %d group variables, %s %d (checked)"
              % (self.user["many"], nvars["many"], self.user["few"], nvars["few"]),
              "NSS:   group: %s" % nss_line("group"),
              "stacks (/etc/pam.d/%s-*, one session line each, the driver bench/pam_open, one session):" % self.tag,
              "  permit: pam_permit.so",
              "  groups: pam_envd.so reader=READER system_dirs=EMPTY (getgrouplist for the reader)",
              "  admin:  the same with admin_dir=%s (getgrouplist, the lookup of each entry)" % self.admin)

        irs = {}
        if shutil.which("valgrind"):
            for run in range(self.runs):
                for stack in ("permit", "groups", "admin"):
                    for k in ("few", "many"):
                        irs.setdefault((stack, k), []).append(self.ir(stack, k, run))
        ir = {key: {p: statistics.median(r[p] for r in v) for p in v[0]} for key, v in irs.items()}

        hf = {}
        if b.hyperfine:
            parts = {}
            for rnd in range(self.rounds):
                for stack in ("permit", "groups", "admin"):
                    for k in ("few", "many"):
                        j = os.path.join(self.out, "%s.%s.%d.json" % (stack, k, rnd))
                        b.time_cmd(j, {"PATH": BASE_PATH}, [self.driver, self.svc(stack), self.user[k]])
                        parts.setdefault((stack, k), []).append(j)
            hf = {key: statistics.median(t for j in v for t in benchlib.times_of(j)) for key, v in parts.items()}
        gl = {k: self.lookups_wall(k) for k in self.user}
        self.report(ng, ir, hf, gl)

    def report(self, ng, ir, hf, gl):
        b = self.b
        if ir:
            b.say("", "instructions (valgrind --tool=callgrind --trace-children=yes, the driver's process and the",
                  "reader it execs, median of %d runs): module = pam_sm_open_session in the login process plus"
                  % self.runs,
                  "the reader; getgrouplist, getgrnam_r = their calls from pam_envd.so (libc and NSS inclusive);",
                  "rest = module - getgrouplist - getgrnam_r (the engine, the admin and group directories' reading,",
                  "the reader)", "")
            fmt = "%-7s %-5s %6s %11s %10s %12s %10s %10s %9s"
            b.say(fmt % ("stack", "user", "groups", "Ir/process", "module", "getgrouplist", "getgrnam_r", "rest",
                         "reader"))
            for stack in ("permit", "groups", "admin"):
                for k in ("few", "many"):
                    r = ir[(stack, k)]
                    rest = r["module"] - r["getgrouplist"] - r["getgrnam_r"]
                    b.say(fmt % (stack, k, ng[k], r["total"], r["module"] if stack != "permit" else "-",
                                 r["getgrouplist"] if stack != "permit" else "-",
                                 r["getgrnam_r"] if stack == "admin" else "-",
                                 rest if stack != "permit" else "-", r["reader"] if stack != "permit" else "-"))
                    for p in ("total", "module", "getgrouplist", "getgrnam_r", "reader"):
                        b.figures["groups.%s.%s.%s_Ir" % (stack, k, p)] = r[p]
            b.say("", "%d groups against %d (the same stack, the same admin tree):" % (ng["many"], ng["few"]))
            for stack in ("groups", "admin"):
                f, m = ir[(stack, "few")], ir[(stack, "many")]
                b.say("  %-7s process %s, module %s (%+d Ir), getgrouplist %s (%+d Ir)"
                      % (stack, fx(ratio(m["total"], f["total"])), fx(ratio(m["module"], f["module"])),
                         m["module"] - f["module"], fx(ratio(m["getgrouplist"], f["getgrouplist"])),
                         m["getgrouplist"] - f["getgrouplist"]))
                b.figures["groups.%s.module_x" % stack] = ratio(m["module"], f["module"])
            for k in ("few", "many"):
                a, g = ir[("admin", k)], ir[("groups", k)]
                b.say("  admin_dir= for %s: %+d Ir over the module without it (%s), %d of it in getgrnam_r"
                      % (k, a["module"] - g["module"], fx(ratio(a["module"], g["module"])), a["getgrnam_r"]))
        if hf:
            b.say("", "wall time of the driver's process (hyperfine, %d rounds of >= %d runs after %d warmup runs,"
                  % (self.rounds, b.runs, b.warmup),
                  "the stacks and users taking turns; module = the stack less the pam_permit stack, same user)", "")
            fmt = "%-7s %9s %9s %9s %9s %8s"
            b.say(fmt % ("stack", "few ms", "module", "many ms", "module", "ratio"))
            for stack in ("permit", "groups", "admin"):
                row = [stack]
                mods = {}
                for k in ("few", "many"):
                    t = hf[(stack, k)]
                    mods[k] = t - hf[("permit", k)]
                    row += ["%.3f" % (t * 1e3), "%.3f" % (mods[k] * 1e3) if stack != "permit" else "-"]
                    b.figures["groups.%s.%s.ms" % (stack, k)] = t * 1e3
                row.append(fx(ratio(mods["many"], mods["few"])) if stack != "permit" else
                           fx(ratio(hf[(stack, "many")], hf[(stack, "few")])))
                b.say(fmt % tuple(row))
        b.say("", "the lookups alone, in this process (median of 200; Python's os.getgrouplist, grp.getgrnam):")
        for k in ("few", "many"):
            b.say("  %-4s getgrouplist %.1f us; getgrnam of the first %d entries of ADMIN/group %.1f us"
                  % (k, gl[k][0] * 1e6, self.CAP, gl[k][1] * 1e6))
            b.figures["groups.lookup.%s.getgrouplist_us" % k] = gl[k][0] * 1e6
            b.figures["groups.lookup.%s.getgrnam_us" % k] = gl[k][1] * 1e6
        if hf:
            b.say("", "the admin stack's module wall time split with these (the rest: the engine, the reader, the",
                  "admin and group directories read, each path opened component by component):")
            for k in ("few", "many"):
                m = hf[("admin", k)] - hf[("permit", k)]
                b.say("  %-4s %.3f ms = getgrouplist %.3f + admin lookups %.3f + rest %.3f"
                      % (k, m * 1e3, gl[k][0] * 1e3, gl[k][1] * 1e3, (m - gl[k][0] - gl[k][1]) * 1e3))
        if ir:
            per = ir[("admin", "many")]["getgrnam_r"] / self.CAP
            b.say("", "one admin lookup: %d Ir (NSS files: /etc/group read through, %d lines now), the same"
                  % (per, count_lines("/etc/group")),
                  "for both users: its cost is the group database's, not the user's groups'")
            b.figures["groups.getgrnam_r_Ir_each"] = per
        b.say("", "both run in the login process, outside the reader's 3 s bound: getgrouplist once, getgrnam_r",
              "once per entry of ADMIN/group up to %d, whatever the user's groups (pam_envd(8))" % self.CAP,
              "raw data: " + self.out)


class PamBench:
    """Real users (home in a temporary directory) and real /etc/pam.d
    services, all removed at the end, also when the run fails.  Every
    service is the session part of a Debian login stack, the module under
    test last."""

    def __init__(self, b):
        self.b = b
        self.out = os.path.join(b.out, "pam")
        self.tag = "envdb%07d" % os.getpid()  # one length: the same Ir run to run
        self.users, self.services = [], []
        self.tmp = None
        self.sessions = int(os.environ.get("BENCH_PAM_SESSIONS") or 10)
        self.rounds = int(os.environ.get("BENCH_PAM_ROUNDS") or 5)
        self.env_sizes = (os.environ.get("BENCH_PAM_ENV_SIZES") or "small medium").split()
        self.sizes = ["small"] + [s for s in b.sizes if s != "small"]
        self.chk, self.warns, self.user_side = {}, [], {}

    def cleanup(self):
        for s in self.services:
            try:
                os.unlink("/etc/pam.d/" + s)
            except FileNotFoundError:
                pass
        for u in self.users:
            for _ in range(10):  # another process may hold the passwd lock
                subprocess.call(["userdel", u], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                if subprocess.call(["getent", "passwd", u], stdout=subprocess.DEVNULL) != 0:
                    break
                time.sleep(0.3)
            if subprocess.call(["getent", "group", u], stdout=subprocess.DEVNULL) == 0:
                subprocess.call(["groupdel", u], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if self.tmp:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.services, self.users, self.tmp = [], [], None

    def add_user(self, name, home):
        for _ in range(30):
            p = subprocess.run(["useradd", "-M", "-d", home, "-s", "/bin/sh", "-U", "-K", "UMASK=022", name],
                               capture_output=True, text=True)
            if p.returncode == 0:
                self.users.append(name)
                return
            if p.returncode not in (1, 10):  # 1, 10: the files are locked: retry
                break
            time.sleep(0.3)
        self.b.die("useradd %s failed: %s" % (name, p.stderr.strip()))

    def service(self, name, *lines):
        path = "/etc/pam.d/" + name
        if os.path.exists(path):
            self.b.die(path + " exists already")
        self.services.append(name)
        with open(path, "w") as f:
            f.write("# pam_envd benchmark (bench/run.py, pid %d); removed when the run ends\n" % os.getpid())
            f.write("auth     required  pam_deny.so\naccount  required  pam_deny.so\n"
                    "password required  pam_deny.so\n")
            f.write("\n".join(PAM_STACK + list(lines)) + "\n")
        os.chmod(path, 0o644)

    def driver_env(self, svc, user, out_path):
        with open(out_path, "wb") as f:
            if subprocess.call(["env", "-i", "PATH=" + BASE_PATH, self.driver, "-p", svc, user], stdout=f) != 0:
                self.b.die("the %s stack fails for %s" % (svc, user))

    def check(self, tag, size, actual):
        """The PAM environment ACTUAL against the size's base environment
        with envd show's result on top (the conformance tests hold envd show
        to systemd's generator): every variable there with its value, nothing
        else added, changed or lost (PAM_* and a shell's PWD, SHLVL, OLDPWD
        and _, which pam_exec recorders add, aside)."""
        want = read_nul(os.path.join(self.out, size + ".base.nul"))
        want.update(read_nul(os.path.join(self.out, size + ".show.nul")))
        got = read_nul(actual)
        bad = ["%s: %r, expected %r" % (k, got.get(k), want.get(k)) for k in sorted(set(want) | set(got))
               if not (k.startswith("PAM_") or k in ("PWD", "SHLVL", "OLDPWD", "_")) and want.get(k) != got.get(k)]
        self.chk[tag] = "ok (%d variables)" % self.nvars[size]
        if bad:
            self.chk[tag] = "DIFFERS"
            details = os.path.join(self.out, tag + ".diff.txt")
            with open(details, "w") as f:
                f.write("\n".join(bad) + "\n")
            self.warns.append("WARNING: %s (%s tree): %d difference(s), first: %s (details: %s)"
                              % (tag, size, len(bad), bad[0], details))

    def ir(self, tag, svc, user, n):
        """Ir of n sessions in one process, every process and program of
        them (the module's reader, the floor's helper) included."""
        f = os.path.join(self.out, "callgrind.%s.n%d.out" % (tag, n))
        return self.b.callgrind(f, {"PATH": BASE_PATH}, [self.driver, "-n", str(n), svc, user], programs=True)

    def show(self, root, user, out, extra=()):
        """envd show --format nul --root ROOT USER into OUT, with the
        reader the module runs."""
        with open(out, "wb") as f:
            if subprocess.call(["env", "-i", "PATH=" + BASE_PATH, "ENVD_READER=" + self.reader, self.b.envd,
                                "show", "--format", "nul", "--root", root] + list(extra) + [user],
                               stdout=f, stderr=subprocess.DEVNULL) != 0:
                self.b.die("envd show %s failed" % user)

    def user_vars(self, s, root, user, show):
        """Dies unless envd show USER (SHOW) has variables the user's own
        files give (against --no-user): the output checks compare each
        stack's result with SHOW, and would pass on a user side skipped
        by both (no reader)."""
        system = os.path.join(self.out, s + ".system.nul")
        self.show(root, user, system, ["--no-user"])
        mine, sys_env = read_nul(show), read_nul(system)
        self.user_side[s] = len([k for k, v in mine.items() if sys_env.get(k) != v])
        if not self.user_side[s]:
            self.b.die("envd show %s on the %s tree gives nothing from the user's files: the user side was "
                       "skipped (reader %s)" % (user, s, self.reader))

    def svc_of(self, v, s):
        return "%s-envd-%s" % (self.tag, s) if v == "envd" else "%s-%s" % (self.tag, v)

    def user_of(self, s):
        return self.tag + s[0]

    def run(self):
        b = self.b
        module_src = os.environ.get("PAM_ENVD") or os.path.join(b.builddir, "pam_envd", ".libs", "pam_envd.so")
        if not os.path.isfile(module_src):
            b.die("no module at %s (build it with ./dev build)" % module_src)
        pamtester = shutil.which("pamtester")
        has_vg = shutil.which("valgrind") is not None
        if not pamtester:
            self.warns.append("note: pamtester missing: no pamtester times, no pamtester check")
        if not b.hyperfine:
            self.warns.append("note: hyperfine missing, pamtester timed with a Python loop")
        if not has_vg:
            self.warns.append("note: valgrind missing: no instruction counts")
        shutil.rmtree(self.out, ignore_errors=True)
        os.makedirs(self.out)
        self.tmp = tempfile.mkdtemp(prefix="pam_envd-bench.", dir="/tmp")
        os.chmod(self.tmp, 0o755)
        # a copy: a rebuild during the run must not change the module between
        # two sessions (callgrind aborts on code that changes under it)
        module = os.path.join(self.out, "pam_envd.so")
        shutil.copy(module_src, module)
        if not os.path.isfile(b.reader):
            b.die("no reader at %s (build it with ./dev build, or set ENVD_READER)" % b.reader)
        self.reader = os.path.join(self.out, "reader")
        shutil.copy(b.reader, self.reader)
        os.chmod(self.reader, 0o755)
        # every line of the module names the reader: a build tree's module
        # finds none of its own, and would read the system side only
        module_line = "%s reader=%s" % (module, self.reader)
        self.driver = os.path.join(self.out, "pam_open")
        run_ok(["cc", "-O2", "-Wall", "-o", self.driver, os.path.join(HERE, "pam_open.c"), "-lpam"],
               "cannot build %s (libpam0g-dev?)" % self.driver)
        floor_so = os.path.join(self.out, "pam_floor.so")
        run_ok(["cc", "-O2", "-Wall", "-fPIC", "-shared", "-o", floor_so, os.path.join(HERE, "pam_floor.c"),
                "-lpam"], "cannot build the floor module bench/pam_floor.c")
        floor_helper = os.path.join(self.out, "floor_helper")
        run_ok(["cc", "-O2", "-Wall", "-o", floor_helper, os.path.join(HERE, "floor_helper.c")],
               "cannot build the floor's helper bench/floor_helper.c")
        os.chmod(floor_helper, 0o755)
        record = os.path.join(self.tmp, "record")
        with open(record, "w") as f:
            f.write('#!/bin/sh\nexec env -0 >"$1"\n')
        os.chmod(record, 0o755)

        # 1. users, trees, services; what each stack leaves in the PAM environment
        self.service(self.tag + "-permit", "session  required  pam_permit.so")
        self.service(self.tag + "-env", "session  required  pam_env.so readenv=0 user_readenv=1")
        self.trees, self.nvars = {}, {}
        for s in self.sizes:
            u, home = self.user_of(s), os.path.join(self.tmp, "home", self.user_of(s))
            root = os.path.join(self.out, "trees", s, "root")
            os.makedirs(home)
            self.trees[s] = json.loads(run_ok([sys.executable, os.path.join(HERE, "gen_tree.py"), "--size", s,
                                               "--json", root, home], "gen_tree.py failed for " + s))
            self.add_user(u, home)
            run_ok(["chown", "-R", "%s:%s" % (u, u), home], "chown " + home)
            os.chmod(home, 0o755)
            shell = pwd.getpwnam(u).pw_shell
            dirs = "%s/etc/environment.d:%s/usr/lib/environment.d" % (root, root)
            self.service(self.svc_of("envd", s), "session  required  %s system_dirs=%s" % (module_line, dirs))
            base = os.path.join(self.out, s + ".base.nul")
            self.driver_env(self.tag + "-permit", u, base)
            show = os.path.join(self.out, s + ".show.nul")
            self.show(root, u, show)
            self.user_vars(s, root, u, show)
            self.nvars[s] = len(read_nul(show))
            conf = os.path.join(self.out, s + ".pam_environment")
            run_ok([sys.executable, os.path.join(HERE, "pam_envconf.py"),
                    "--dir", os.path.join(home, ".config", "environment.d"),
                    "--dir", root + "/etc/environment.d", "--dir", root + "/usr/lib/environment.d",
                    "--base", base, "--home", home, "--shell", shell, "--user", u,
                    "--default-path", BASE_PATH, "--conf", conf],
                   "cannot translate the %s tree for pam_env" % s)
            run_ok(["install", "-o", u, "-g", u, "-m", "644", conf, os.path.join(home, ".pam_environment")],
                   "install .pam_environment")
            # 2. the outputs: both modules give envd show's result
            self.driver_env(self.svc_of("envd", s), u, os.path.join(self.out, s + ".envd.nul"))
            self.check("envd." + s, s, os.path.join(self.out, s + ".envd.nul"))
            if s in self.env_sizes:
                self.driver_env(self.svc_of("env", s), u, os.path.join(self.out, s + ".env.nul"))
                self.check("env." + s, s, os.path.join(self.out, s + ".env.nul"))
            if s == "small":
                # the floor writes what pam_envd writes: the variables of the result
                self.service(self.tag + "-floor", "session  required  %s vars=%s helper=%s"
                             % (floor_so, show, floor_helper))
                self.driver_env(self.tag + "-floor", u, os.path.join(self.out, s + ".floor.nul"))
                self.check("floor." + s, s, os.path.join(self.out, s + ".floor.nul"))
        u = self.user_of("small")
        if pamtester:
            # the pamtester path, seen by a pam_exec recorder stacked after the module
            root = os.path.join(self.out, "trees", "small", "root")
            for v in ("envd", "env"):
                svc = "%s-rec-%s" % (self.tag, v)
                rec = os.path.join(self.tmp, v + ".rec")
                first = ("session  required  %s system_dirs=%s/etc/environment.d:%s/usr/lib/environment.d"
                         % (module_line, root, root) if v == "envd"
                         else "session  required  pam_env.so readenv=0 user_readenv=1")
                self.service(svc, first, "session  required  pam_exec.so %s %s" % (record, rec))
                run_ok(["env", "-i", "PATH=" + BASE_PATH, pamtester, svc, u, "open_session", "close_session"],
                       "pamtester %s %s failed" % (svc, u))
                dest = os.path.join(self.out, "small.pamtester-%s.nul" % v)
                shutil.copy(rec, dest)
                self.check("pamtester-%s.small" % v, "small", dest)

        # 3. instructions: one session per process, and per extra session in a process
        self.ir1, self.irn, self.sess, self.nsess = {}, {}, {}, {}
        if has_vg:
            # size by size: the four stacks of the small tree, which the
            # contract compares, back to back (other work on the machine
            # changes /etc files, and the cost of a stack with them)
            for s in self.sizes:
                for v in ("permit", "floor", "envd", "env"):
                    if (v in ("permit", "floor") and s != "small") or (v == "env" and s not in self.env_sizes):
                        continue
                    key = "%s.%s" % (v, s)
                    svc, u = self.svc_of(v, s), self.user_of(s)
                    self.ir1[key] = self.ir(key, svc, u, 1)
                    # extra sessions: at most BENCH_PAM_SESSIONS, about 3e9 Ir in all
                    k = max(1, min(self.sessions, 3000000000 // self.ir1[key]))
                    self.nsess[key] = k
                    self.irn[key] = self.ir(key, svc, u, k + 1)
                    self.sess[key] = (self.irn[key] - self.ir1[key]) // k

        # 4. wall time, in rounds that take turns between the stacks, so that
        # a load that comes and goes hits them all alike
        combos = ["permit.small", "floor.small", "envd.small", "env.small"]
        hf_parts = {k: [] for k in combos}
        for rnd in range(1, self.rounds + 1) if pamtester and b.hyperfine else ():
            for key in combos:
                v, s = key.split(".")
                j = os.path.join(self.out, "%s.pamtester.%d.json" % (key, rnd))
                b.time_cmd(j, {"PATH": BASE_PATH}, [pamtester, self.svc_of(v, s), self.user_of(s), "open_session",
                                                    "close_session"])
                hf_parts[key].append(j)
        self.hf = {k: statistics.median(t for j in hf_parts[k] for t in benchlib.times_of(j))
                   for k in combos if hf_parts[k]}
        self.report(module, module_src)
        if pamtester and b.hyperfine:
            self.at_the_cap(module_line, pamtester)
        if self.warns:
            b.say("", *self.warns)

    def at_the_cap(self, module, pamtester):
        """Root CPU of one open and close through the deployment pair when
        a user's file sets more variables than the cap (ENVD_MAX_USER_VARS):
        libpam's pam_putenv makes n variables cost n^2, at open and again at
        close.  Target: at most 50 ms over the same login with no user
        variables."""
        b = self.b
        cap = 2048  # lib/envd.h ENVD_MAX_USER_VARS
        svc = "%s-cap" % self.tag
        self.service(svc, "session  optional  %s cleanup" % module,
                     "session  optional  %s system_dirs=%s" % (module, os.path.join(self.tmp, "nosys")))
        cpu = {}
        for tag, n in (("none", 0), ("cap", cap + 512)):
            u = self.tag + tag[0] + "x"
            home = os.path.join(self.tmp, "home", u)
            d = os.path.join(home, ".config", "environment.d")
            os.makedirs(d)
            with open(os.path.join(d, "50-many.conf"), "w") as f:
                f.write("".join("CAP_%05d=value-%d\n" % (i, i) for i in range(n)))
            self.add_user(u, home)
            pw = pwd.getpwnam(u)
            for p in (home, os.path.join(home, ".config"), d, os.path.join(d, "50-many.conf")):
                os.chown(p, pw.pw_uid, pw.pw_gid)
            j = os.path.join(self.out, "cap.%s.json" % tag)
            b.time_cmd(j, {"PATH": BASE_PATH}, [pamtester, svc, u, "open_session", "close_session"])
            with open(j) as f:
                r = json.load(f)["results"][0]
            cpu[tag] = 1000.0 * (r["user"] + r["system"])
        extra = cpu["cap"] - cpu["none"]
        b.figures["pam.cap.cpu_ms"] = extra
        b.say("", "at the cap: a user file of %d variables (%d set, the cap), open_session and close_session"
              % (cap + 512, cap), "through the pair (cleanup + module), pamtester under hyperfine, user+system CPU:",
              "  no user variables %.1f ms, at the cap %.1f ms: %+.1f ms (target <= 50 ms: %s)"
              % (cpu["none"], cpu["cap"], extra, "PASS" if extra <= 50 else "MISS"))

    def report(self, module, module_src):
        b, s = self.b, "small"
        ir1, sess, hf = self.ir1, self.sess, self.hf
        b.say("", "stack: /etc/pam.d/SERVICE made for the run (the session part of Debian's login), then the module "
                  "under test:")
        b.say(*("  " + line for line in PAM_STACK))
        b.say("  pam_permit: session required pam_permit.so",
              "  pam_floor:  session required pam_floor.so vars=FILE helper=HELPER (bench/pam_floor.c; FILE:",
              "              envd show's result; HELPER: bench/floor_helper.c)",
              "  pam_envd:   session required %s reader=%s" % (module, self.reader),
              "              system_dirs=TREE/etc/environment.d:TREE/usr/lib/environment.d",
              "              (copies of %s and %s)" % (module_src, b.reader),
              "              (and the user's ~/.config/environment.d, the default)",
              "  pam_env:    session required pam_env.so readenv=0 user_readenv=1 (the tree as ~/.pam_environment,",
              "              one 'NAME DEFAULT=value' line per assignment, by bench/pam_envconf.py)",
              "users: real, made with useradd for the run, home with the tree's user part; trees by gen_tree.py")
        b.say("", "output check: the PAM environment after open_session against the base environment with "
                  "envd show --root TREE USER's result on top",
              "  (ENVD_READER=%s; its user side checked: on each tree the user's files give %s variables"
              % (self.reader, ", ".join("%s %d" % kv for kv in self.user_side.items())),
              "  that envd show --no-user lacks)")
        for name in sorted(self.chk, key=lambda n: (n.rsplit(".", 1)[1], n.rsplit(".", 1)[0])):
            b.say("  %-22s %-7s %s" % (name.rsplit(".", 1)[0], name.rsplit(".", 1)[1], self.chk[name]))
        b.say("  (envd = pam_envd stack, env = pam_env stack, through bench/pam_open; pamtester-* = pamtester with",
              "   a pam_exec recorder stacked after the module)")
        t = self.trees[s]
        b.say("", "typical config: the small tree, %d files, %d assignments (%d variables)"
              % (t["files"], t["assignments"], self.nvars[s]),
              "  Ir/process  valgrind --tool=callgrind, total Ir of one bench/pam_open process: pam_start,",
              "              pam_open_session, pam_close_session, pam_end (process start-up included)",
              "  Ir/session  Ir added by each further transaction in the same process: (Ir(n=K+1) - Ir(n=1)) / K,",
              "              K = %s (fewer on big trees, where one session costs more)"
              % self.nsess.get("permit.small", self.sessions),
              "  pamtester   median wall time of 'pamtester SERVICE USER open_session close_session' (hyperfine,",
              "              %d rounds of >= %d runs after %d warmup runs, the stacks taking turns)"
              % (self.rounds, b.runs, b.warmup), "")
        fmt = "%-11s %11s %6s %11s %6s %13s %6s"
        b.say(fmt % ("module", "Ir/process", "ratio", "Ir/session", "ratio", "pamtester ms", "ratio"))
        for v in ("permit", "floor", "envd", "env"):
            k, p = v + "." + s, "permit." + s
            b.say(fmt % ("pam_" + v, ir1.get(k, "-"), r2(ir1.get(k), ir1.get(p)), sess.get(k, "-"),
                         r2(sess.get(k), sess.get(p)), "%.2f" % (hf[k] * 1000) if k in hf else "-",
                         r2(hf.get(k), hf.get(p))))
            for name, d in (("Ir_process", ir1), ("Ir_session", sess)):
                if k in d:
                    b.figures["pam.%s.%s" % (v, name)] = d[k]
            if k in hf:
                b.figures["pam.%s.pamtester_ms" % v] = hf[k] * 1000
        p = ir1.get("permit.small")
        e_ip, n_ip = ratio(ir1.get("envd.small"), p), ratio(ir1.get("env.small"), p)
        e_is, n_is = ratio(sess.get("envd.small"), sess.get("permit.small")), ratio(
            sess.get("env.small"), sess.get("permit.small"))
        # the contract: the module's added instructions (its stack's minus
        # the pam_permit stack's) at most 0.80x pam_env's doing the same work
        m_ip = ratio(diff_of(ir1, "envd.small", "permit.small"), diff_of(ir1, "env.small", "permit.small"))
        m_is = ratio(diff_of(sess, "envd.small", "permit.small"), diff_of(sess, "env.small", "permit.small"))
        verdict = "not measured" if m_ip is None else "PASS" if m_ip <= 0.80 else "MISS"
        b.say("", "the stacks against the pam_permit stack (the whole process's instructions):",
              "  one session per process:  pam_envd stack %s  pam_env stack %s" % (fx(e_ip), fx(n_ip)),
              "  per session in a process: pam_envd stack %s  pam_env stack %s" % (fx(e_is), fx(n_is)),
              "target: per process, pam_envd at most 0.80x pam_env doing the same work; compared: the module's",
              "added instructions, (pam_envd stack - pam_permit stack) / (pam_env stack - pam_permit stack):",
              "  one session per process:  %s / %s = %s  target 0.80x: %s"
              % (diff_of(ir1, "envd.small", "permit.small") or "-", diff_of(ir1, "env.small", "permit.small") or "-",
                 fx(m_ip), verdict))
        self.group_lookups(b, ir1)
        b.say("  per session in a process: %s / %s = %s"
              % (diff_of(sess, "envd.small", "permit.small") or "-",
                 diff_of(sess, "env.small", "permit.small") or "-", fx(m_is)),
              "floor: bench/pam_floor.c in pam_envd's place, doing only what pam_envd cannot do without",
              "  (pam_modutil_getpwnam, pam_getenvlist, getgrouplist, a helper exec'd as pam_envd execs its",
              "  reader, bench/floor_helper.c, that takes the user's ids and sends a byte, one pam_putenv per",
              "  variable of the same result):",
              "  instructions %s per process, %s per session"
              % (fx(ratio(ir1.get("floor.small"), p)),
                 fx(ratio(sess.get("floor.small"), sess.get("permit.small")))),
              "  pam_envd's own work (pam_envd stack - floor stack) / pam_permit stack: %s per process"
              % (fx(ratio(ir1["envd.small"] - ir1["floor.small"], p))
                 if "envd.small" in ir1 and "floor.small" in ir1 else "-"),
              "wall time against the pam_permit stack: pamtester pam_envd %s, pam_env %s"
              % (fx(ratio(hf.get("envd.small"), hf.get("permit.small"))),
                 fx(ratio(hf.get("env.small"), hf.get("permit.small")))))
        b.figures["pam.envd.ratio_process"] = e_ip
        b.figures["pam.env.ratio_process"] = n_ip
        b.figures["pam.envd_vs_env.module_process"] = m_ip
        b.figures["pam.envd_vs_env.module_session"] = m_is

        base = sess.get("permit.small")
        b.say("", "growth with the tree: module Ir = Ir/session of the stack - Ir/session of the pam_permit stack", "")
        fmt = "%-7s %6s %7s %6s %-7s %3s %12s %12s %9s %13s %12s %9s"
        b.say(fmt % ("size", "files", "assign", "vars", "output", "K", "envd Ir/sess", "module Ir", "Ir/assign",
                     "pam_env Ir/s", "module Ir", "Ir/assign"))
        for s2 in self.sizes:
            t = self.trees[s2]
            ke, kn = "envd." + s2, "env." + s2
            b.say(fmt % (s2, t["files"], t["assignments"], self.nvars[s2], self.chk.get(ke, "-").split(" ")[0],
                         self.nsess.get(ke, "-"), sess.get(ke, "-"), diff(sess.get(ke), base, 1),
                         diff(sess.get(ke), base, t["assignments"]), sess.get(kn, "-"), diff(sess.get(kn), base, 1),
                         diff(sess.get(kn), base, t["assignments"])))
        for s2 in self.sizes:
            if s2 not in self.env_sizes:
                b.say("(pam_env not run on the %s tree: BENCH_PAM_ENV_SIZES=\"%s\")" % (s2, " ".join(self.env_sizes)))
        b.say("", "where pam_envd's instructions go, in the one-session processes (callgrind.envd.SIZE.n1.out.*,",
              "every part of the login process read in dump order: a call on the stack when a part is dumped,",
              "before a fork, goes on in the next part): module = pam_envd's pam_sm_open_session in the login",
              "process plus its readers (the programs it execs and their forks: all of their instructions);",
              "engine = envd_load in the login process; reader = the readers; getgrouplist (libc) and",
              "pam_putenv (libpam): their calls from pam_envd.so (a root login's getgrouplist is in the reader)",
              "")
        fmt = "%-7s %7s %13s %13s %11s %12s %13s %8s"
        b.say(fmt % ("size", "assign", "module", "engine", "reader", "getgrouplist", "pam_putenv", "putenv%"))
        own = {}
        for s2 in self.sizes:
            f = os.path.join(self.out, "callgrind.envd.%s.n1.out" % s2)
            if f not in b.cg_files:
                continue
            first, children = b.cg_files[f]
            calls = benchlib.arcs(first)
            so = os.path.basename(module)
            reader = sum(benchlib.ir_of(x) for x in children)
            tot = benchlib.inclusive_of(calls, "pam_sm_open_session", so) + reader
            eng = benchlib.inclusive_of(calls, "envd_load", so)
            gg = benchlib.inclusive_of(calls, "getgrouplist", caller_obj=so)
            pe = benchlib.inclusive_of(calls, "pam_putenv", caller_obj=so)
            b.say(fmt % (s2, self.trees[s2]["assignments"], tot, eng, reader, gg, pe, "%.1f%%" % (100 * pe / tot)))
            b.figures["pam.envd.%s.module_Ir" % s2] = tot
            b.figures["pam.envd.%s.putenv_Ir" % s2] = pe
            own[s2] = tot - pe
        b.say("", "growth of pam_envd's own work: module - pam_putenv (libpam's pam_putenv searches the whole",
              "PAM environment on every call, so n variables cost n^2/2 comparisons there; Linux-PAM has no",
              "call that sets many at once); target: linear (at most 1.1x as fast as the assignments)", "")
        fmt = "%-16s %8s %14s %9s  %s"
        b.say(fmt % ("step", "assign", "module-putenv", "limit", "status"))
        for prev, s2 in zip(self.sizes, self.sizes[1:]):
            if s2 in own and prev in own:
                ra = self.trees[s2]["assignments"] / self.trees[prev]["assignments"]
                ro = own[s2] / own[prev]
                b.say(fmt % ("%s -> %s" % (prev, s2), "x%.1f" % ra, "x%.2f" % ro, "x%.2f" % (1.1 * ra),
                             "PASS" if ro <= 1.1 * ra else "MISS"))
        b.say("", "raw data: %s (PAM environments *.nul, callgrind.*.out, pamtester JSON, the translated "
                  ".pam_environment)" % self.out)

    def group_lookups(self, b, ir1):
        """The contract's ratio without the user's group lookup, which both
        modules make through NSS for the same user (pam_envd's getgrouplist
        for its reader, pam_env's initgroups in pam_modutil_drop_priv): its
        cost is the machine's NSS configuration's (loading an NSS module
        such as libnss_systemd is most of it), added alike to both sides."""
        def lookup(v, fn):
            f = os.path.join(self.out, "callgrind.%s.small.n1.out" % v)
            if f not in b.cg_files:
                return None
            # pam_env looks up in the login process, pam_envd (as root) in
            # its reader: every process, each read on its own (callgrind's
            # names are numbered per process)
            first, children = b.cg_files[f]
            return sum(benchlib.inclusive_of(benchlib.arcs(parts), fn) for parts in [first] + by_process(children))
        ge = {v: lookup(v, "getgrouplist") for v in ("permit", "envd", "env")}
        gi = {v: lookup(v, "initgroups") for v in ("permit", "envd", "env")}
        if None in ge.values() or None in gi.values():
            return
        # initgroups calls getgrouplist's worker, not getgrouplist: the two
        # never count the same instructions
        g = {v: ge[v] + gi[v] for v in ge}
        me = diff_of(ir1, "envd.small", "permit.small")
        mn = diff_of(ir1, "env.small", "permit.small")
        if me is None or mn is None:
            return
        ae, an = me - (g["envd"] - g["permit"]), mn - (g["env"] - g["permit"])
        b.say("  the same without the user's group lookup, which both make through NSS (pam_envd's",
              "  getgrouplist in its reader, %d Ir; pam_env's initgroups, %d Ir: the cost of the machine's NSS"
              % (g["envd"] - g["permit"], g["env"] - g["permit"]),
              "  configuration, most of it loading an NSS module such as libnss_systemd, alike on both",
              "  sides, so that it pulls the ratio towards 1): %d / %d = %s" % (ae, an, fx(ratio(ae, an))))
        b.figures["pam.envd_vs_env.module_process_no_groups"] = ratio(ae, an)


# ---- small helpers ----

def read_nul(path):
    """A NUL-separated NAME=VALUE file as a dict (the first of a name wins)."""
    env = {}
    with open(path, "rb") as f:
        for e in f.read().split(b"\0"):
            name, sep, value = e.decode("utf-8", "surrogateescape").partition("=")
            if sep and name not in env:
                env[name] = value
    return env


def by_process(files):
    """Callgrind files FILE.PID[.N] grouped by process, each process's
    parts in dump order."""
    pids = {}
    for f in files:
        m = re.match(r"(.*\.\d+)(?:\.\d+)?$", f)
        pids.setdefault(m.group(1) if m else f, None)
    return [benchlib.parts_of(base) for base in pids]


def libc_call(calls, fn, caller_obj):
    """The inclusive Ir of the calls from CALLER_OBJ into the library
    function FN, under its name or a versioned one (getgrnam_r@@GLIBC_2.2.5)."""
    return sum(benchlib.inclusive_of(calls, name, caller_obj=caller_obj)
               for name in {c for _, _, c, _, _, _ in calls if c and c.split("@")[0] == fn})


def count_lines(path):
    try:
        with open(path, "rb") as f:
            return f.read().count(b"\n")
    except OSError:
        return 0


def nss_line(db):
    """The services of db in /etc/nsswitch.conf, or "?"."""
    try:
        with open("/etc/nsswitch.conf") as f:
            for line in f:
                w = line.split("#", 1)[0].split(":", 1)
                if len(w) == 2 and w[0].strip() == db:
                    return " ".join(w[1].split())
    except OSError:
        pass
    return "?"


def capture(argv):
    try:
        p = subprocess.run(argv, capture_output=True, text=True)
    except (OSError, TypeError):
        return ""
    return p.stdout.strip().splitlines()[0] if p.returncode == 0 and p.stdout.strip() else ""


def run_ok(argv, what):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        sys.stderr.write(p.stderr)
        print("run.py: " + what, file=sys.stderr)
        raise SystemExit(1)
    return p.stdout


def ratio(a, b):
    return a / b if a is not None and b else None


def diff_of(d, a, b):
    """d[a] - d[b], or None when either is missing."""
    return d[a] - d[b] if a in d and b in d else None


def fx(r):
    return "%.3fx" % r if r is not None else "-"


def r2(a, b):
    r = ratio(a, b)
    return "%.2f" % r if r is not None else "-"


def diff(a, b, n):
    return "%.0f" % ((a - b) / n) if a is not None and b is not None else "-"


def ms(seconds, div=None):
    if seconds is None:
        return "-"
    return "%.3f" % (seconds / div) if div else "%.2f" % (seconds * 1000)


def compare_files(before, after):
    with open(before) as f:
        a = json.load(f)
    with open(after) as f:
        b = json.load(f)
    keys = sorted(set(a) | set(b))
    w = max([32] + [len(k) for k in keys])
    print("%-*s %16s %16s %9s" % (w, "figure", "before (%s)" % a.get("commit", "?"),
                                  "after (%s)" % b.get("commit", "?"), "change"))
    for k in keys:
        if k == "commit":
            continue
        x, y = a.get(k), b.get(k)
        ch = "%+.2f%%" % (100 * (y - x) / x) if isinstance(x, (int, float)) and isinstance(y, (int, float)) and x \
            else "-"
        print("%-*s %16s %16s %9s" % (w, k, num(x), num(y), ch))


def num(v):
    if v is None:
        return "-"
    return "%.3f" % v if isinstance(v, float) else str(v)


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    if len(argv) == 3 and argv[0] == "--compare":
        compare_files(argv[1], argv[2])
        return 0
    json_out = None
    if "--json" in argv:
        i = argv.index("--json")
        if i + 1 >= len(argv):
            sys.exit(__doc__)
        json_out = argv[i + 1]
        del argv[i:i + 2]
    if not argv or len(argv) > 2 or not os.path.isdir(argv[0]):
        sys.exit(__doc__)
    section = argv[1] if len(argv) > 1 else "all"
    if section not in ("envd", "pam", "login", "snippet", "groups", "all"):
        sys.exit(__doc__)
    b = Bench(argv[0])
    b.machine()
    if section in ("envd", "all"):
        b.section_envd()
    if section in ("pam", "all"):
        b.section_pam()
    if section in ("login", "all"):
        b.section_login()
    if section in ("snippet", "all"):
        b.section_snippet()
    if section in ("groups", "all"):
        b.section_groups()
    b.say("", "results: " + b.results.name)
    if json_out:
        with open(json_out, "w") as f:
            json.dump(b.figures, f, indent=1, sort_keys=True)
        b.say("figures: " + json_out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
