#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""login.py - what pam_envd costs a real login, in instructions.

    bench/login.py --reader PATH --module NAME=PATH [--module NAME=PATH ...]
                   [--runs N] [--mode su|pamtester] [--size small|medium|large]
                   [--user USER] [--keep-user] [--wall N] [--lang LANG]
                   [--floor ENVD] [--keep-profiles DIR]

Counts the instructions (valgrind --tool=callgrind, total Ir) of one whole
login, once with no pam_envd line at all ("none") and once per module given.
A login is
  su        su -l USER -c true: su with its PAM stack (su-l, common-*), the
            login shell it starts (/etc/profile, ~/.profile) and true (su
            runs as a copy without its setuid bit, which valgrind refuses;
            root needs none);
  pamtester pamtester -v login USER open_session close_session through
            Debian's own login service.
valgrind runs with --trace-children=yes, one output file per process (and
one per fork: profiles are dumped before each fork, since a forked child
inherits its parent's counters), and the figure is their sum: everything
the login runs, not only the process that loads the module (pam_envd's
reader of the user's files is a program it execs, helper/reader.c).  The login runs with
LANG=C unless --lang says otherwise: su sets its locale from LANG, and
libc calls such as fnmatch(3) cost more under a multibyte locale
(--lang C.UTF-8, as on most systems).

Each measurement runs in a private mount namespace (unshare -m) where a copy
of /etc/pam.d is bind-mounted over /etc/pam.d; that copy's common-session
ends with "session optional PATH system_dirs=..." for the module measured
reader=PATH (--reader: a build tree's helper/reader, which a build
tree's module needs: the installed one is elsewhere) for the module
measured (nothing for "none"), and no other line that loads a pam_envd.so
(an installed package's).  The real /etc/pam.d is never written.  USER
(default envd-bench) is made with useradd when missing and removed at the
end unless --keep-user; its ~/.config/environment.d gets the user part of a
bench/gen_tree.py tree, and system_dirs= points pam_envd at the tree's
system part, so the module reads the whole tree.

--floor ENVD adds "floor": bench/pam_floor.c (the calls any module with
pam_envd's job cannot avoid: the user, the PAM environment, getgrouplist, a
reader exec'd as pam_envd execs its own, bench/floor_helper.c, that takes
the user's ids and answers one byte, one pam_putenv per variable) writing
the variables ENVD (a built envd, ENVD_READER=--reader) shows for the same
user and tree.

Before anything is measured, each module's login is run once without
valgrind (su -l USER -c 'env -0'): every variable that the user's own
files give (envd show USER against envd show --no-user USER) must reach
the login shell with envd's value, else the run stops: a module that
skipped the user side (no reader) would measure a cheaper login.
The login with the floor is the least a login with the user's variables
can cost: the login shell's own work on them (a locale variable makes bash
load that locale) is in it as it is in pam_envd's.  --keep-profiles DIR
copies every callgrind profile there (DIR/cg.NAME.*) for callgrind_annotate.

The runs of all modules are interleaved (run 1 of each, then run 2 of each,
...) and the median of --runs is reported: Ir per login, the difference to
the first module and that difference as a share of the first module's
login; in su mode, where the instructions go (the run nearest the
median): su up to the fork in the module's pam_sm_open_session and after
it, that function's own share, the module's reader processes and the
login shell with what it runs.  bench/run.py's login part (./dev bench
login) calls logins() here.  --wall N adds the wall time of the same
login without valgrind: N logins per module after 3 warm-up logins, the
modules taking turns login by login (the first of each round rotating),
so that the machine's drift hits them alike; per module the median and
the interquartile range, and the median of its ratio to the floor's (or
none's) login of the same round (the namespace's own cost included alike
for every module).  Needs root, valgrind, unshare and useradd.
"""

import argparse
import os
import pwd
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import benchlib  # noqa: E402

PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def die(msg):
    sys.exit("login.py: " + msg)


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--module", action="append", default=[], metavar="NAME=PATH",
                    help="a pam_envd.so to measure (repeatable)")
    ap.add_argument("--runs", type=int, default=3, help="runs per module; the median counts")
    ap.add_argument("--mode", choices=("su", "pamtester"), default="su")
    ap.add_argument("--size", choices=("small", "medium", "large"), default="medium")
    ap.add_argument("--user", default="envd-bench")
    ap.add_argument("--keep-user", action="store_true", help="do not remove a user made here")
    ap.add_argument("--wall", type=int, default=0, metavar="N",
                    help="also the wall time, N logins per module, interleaved")
    ap.add_argument("--reader", metavar="PATH",
                    help="the reader program the modules run (reader=PATH; ENVD_READER of --floor)")
    ap.add_argument("--lang", default="C", help="LANG of the login (default C)")
    ap.add_argument("--floor", metavar="ENVD",
                    help="add the floor module (bench/pam_floor.c), its variables from this envd")
    ap.add_argument("--keep-profiles", metavar="DIR", help="copy the callgrind profiles to DIR")
    a = ap.parse_args()
    mods = [("none", None)]
    for m in a.module:
        name, sep, path = m.partition("=")
        if not sep or not name or not path:
            die("--module wants NAME=PATH: " + m)
        if not os.path.isfile(path):
            die("no such module: " + path)
        mods.append((name, os.path.abspath(path)))
    if len(mods) > 1 and not a.reader:
        die("--reader PATH is needed: a build tree's module finds no reader of its own")
    if a.reader and not os.path.isfile(a.reader):
        die("no such reader: " + a.reader)
    if a.runs < 1:
        die("--runs must be at least 1")
    return a, mods


def ensure_user(name):
    """Makes the user when missing; True when it was made here."""
    try:
        pwd.getpwnam(name)
        return False
    except KeyError:
        pass
    p = subprocess.run(["useradd", "-m", "-s", "/bin/bash", "-U", name],
                       capture_output=True, text=True)
    if p.returncode:
        die("useradd %s: %s" % (name, p.stderr.strip()))
    return True


def make_tree(work, size, user):
    """The gen_tree.py tree: system part in work/root, user part in the
    user's home.  Returns the system_dirs= value."""
    pw = pwd.getpwnam(user)
    root = os.path.join(work, "root")
    subprocess.run([sys.executable, os.path.join(HERE, "gen_tree.py"), "--size", size,
                    root, pw.pw_dir], check=True, stdout=subprocess.DEVNULL)
    cfg = os.path.join(pw.pw_dir, ".config")
    for dirpath, dirnames, filenames in os.walk(cfg):
        for n in [dirpath] + [os.path.join(dirpath, f) for f in filenames]:
            os.chown(n, pw.pw_uid, pw.pw_gid)
    os.chown(cfg, pw.pw_uid, pw.pw_gid)
    return ":".join(os.path.join(root, d) for d in ("etc/environment.d", "usr/lib/environment.d"))


def pam_dir(work, name, module, system_dirs, reader=None):
    """A copy of /etc/pam.d whose common-session ends with module's line
    (module: a path, or a path and its arguments for the floor)."""
    d = os.path.join(work, "pam.d." + name)
    os.makedirs(d)
    # file by file: other tests add and remove services while this runs;
    # a pam_envd already in the system's stacks (an installed package, a
    # test) would be in "none" too: its lines go from the copy
    for f in os.listdir("/etc/pam.d"):
        src, path = os.path.join("/etc/pam.d", f), os.path.join(d, f)
        try:
            if os.path.islink(src):
                os.symlink(os.readlink(src), path)
                continue
            if not os.path.isfile(src):
                continue
            with open(src, errors="surrogateescape") as fh:
                lines = fh.readlines()
        except FileNotFoundError:
            continue
        keep = [x for x in lines if x.lstrip().startswith("#") or not re.search(r"pam_envd\.so\b", x)]
        with open(path, "w", errors="surrogateescape") as fh:
            fh.writelines(keep)
        os.chmod(path, 0o644)
    if module:
        line = module if name == "floor" else "%s system_dirs=%s" % (module, system_dirs)
        if name != "floor" and reader:
            line += " reader=" + reader
        with open(os.path.join(d, "common-session"), "a") as f:
            f.write("session optional %s\n" % line)
    return d


def login_argv(work, mode, user):
    return ([os.path.join(work, "su"), "-l", user, "-c", "true"] if mode == "su" else
            ["pamtester", "-v", "login", user, "open_session", "close_session"])


NS_SCRIPT = 'mount --make-rprivate / && mount --bind "$1" /etc/pam.d && shift && exec "$@"'


def ns_argv(work, pamd, mode, user, cmd=None):
    """The login in a private mount namespace with pamd over /etc/pam.d."""
    login = login_argv(work, mode, user)
    if cmd is not None:
        login = login[:-1] + [cmd]
    return ["unshare", "-m", "sh", "-c", NS_SCRIPT, "sh", pamd] + login


def quartiles(v):
    """The first quartile, the median and the third of v."""
    q = statistics.quantiles(v, n=4, method="inclusive")
    return q[0], q[1], q[2]


def wall(work, dirs, names, mode, user, runs, lang, base):
    """Wall time (ms) of one login per module, interleaved: 3 warm-up
    logins each, then RUNS rounds of one login per module, the first of a
    round rotating.  Returns {name: {"median", "q1", "q3", "ratio",
    "ratio_q1", "ratio_q3"}}, ratio: the median over rounds of the login's
    time over BASE's in the same round."""
    env = {"PATH": PATH, "LANG": lang}
    argv = {n: ns_argv(work, dirs[n], mode, user) for n in names}

    def once(n):
        t0 = time.perf_counter()
        p = subprocess.run(argv[n], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
        t = time.perf_counter() - t0
        if p.returncode:
            die("%s login failed (%d): %s" % (n, p.returncode, p.stderr.decode(errors="replace")[-2000:]))
        return 1000.0 * t
    for _ in range(3):
        for n in names:
            once(n)
    t = {n: [] for n in names}
    for r in range(runs):
        k = r % len(names)
        for n in names[k:] + names[:k]:
            t[n].append(once(n))
    out = {}
    for n in names:
        q1, med, q3 = quartiles(t[n])
        rs = [x / y for x, y in zip(t[n], t[base])]
        r1, rm, r3 = quartiles(rs)
        out[n] = {"median": med, "q1": q1, "q3": q3, "ratio": rm, "ratio_q1": r1, "ratio_q3": r3,
                  "times": t[n]}
    return out


def envd_show(work, envd, user, reader, extra=()):
    """envd show --format nul for user and the tree (work/root), as a
    dict; ENVD_READER=reader."""
    p = subprocess.run(["env", "-i", "PATH=" + PATH, "ENVD_READER=" + (reader or ""), envd, "show",
                        "--format", "nul", "--root", os.path.join(work, "root")] + list(extra) + [user],
                       capture_output=True)
    if p.returncode:
        die("envd show %s failed: %s" % (user, p.stderr.decode(errors="replace").strip()))
    if p.stderr.strip():
        die("envd show %s said: %s" % (user, p.stderr.decode(errors="replace").strip()[-2000:]))
    return p.stdout


def nul_dict(data):
    env = {}
    for e in data.split(b"\0"):
        name, sep, value = e.partition(b"=")
        if sep and name not in env:
            env[name] = value
    return env


def floor_module(work, envd, user, reader):
    """Build bench/pam_floor.c and bench/floor_helper.c and write what envd
    shows for user and the tree (work/root) as its vars= file.  Returns the
    module's line arguments: PATH vars=FILE helper=HELPER."""
    so = os.path.join(work, "pam_floor.so")
    helper = os.path.join(work, "floor_helper")
    for argv in (["cc", "-O2", "-fPIC", "-shared", "-o", so, os.path.join(HERE, "pam_floor.c"), "-lpam"],
                 ["cc", "-O2", "-o", helper, os.path.join(HERE, "floor_helper.c")]):
        p = subprocess.run(argv, capture_output=True, text=True)
        if p.returncode:
            die("cannot build %s: %s" % (argv[-2], p.stderr.strip()[-2000:]))
    os.chmod(helper, 0o755)
    nul = os.path.join(work, "floor.nul")
    with open(nul, "wb") as f:
        f.write(envd_show(work, envd, user, reader))
    os.chmod(nul, 0o644)
    return "%s vars=%s helper=%s" % (so, nul, helper)


# variables a login shell sets whatever PAM gave it (Debian's /etc/profile
# sets PATH)
SHELL_SET = {b"PATH", b"PWD", b"OLDPWD", b"SHLVL", b"_", b"HOME", b"USER", b"LOGNAME", b"SHELL", b"MAIL"}


def user_side(work, envd, user, reader):
    """The variables that the user's own files give, with their values:
    envd show USER against envd show --no-user USER.  Dies when there are
    none (the tree's user part sets some)."""
    whole = nul_dict(envd_show(work, envd, user, reader))
    system = nul_dict(envd_show(work, envd, user, reader, ["--no-user"]))
    mine = {k: v for k, v in whole.items() if system.get(k) != v and k not in SHELL_SET}
    if not mine:
        die("envd show %s gives nothing from the user's files: the user side was skipped "
            "(ENVD_READER=%s)" % (user, reader))
    return mine


def check_user_side(work, name, pamd, mode, user, lang, mine):
    """One login through pamd, no valgrind: dies unless every variable of
    MINE reached the login shell with its value (su), or the session
    (pamtester, which shows nothing: not checked)."""
    if mode != "su":
        return
    p = subprocess.run(ns_argv(work, pamd, mode, user, "env -0"), capture_output=True,
                       env={"PATH": PATH, "LANG": lang}, stdin=subprocess.DEVNULL)
    if p.returncode:
        die("%s login failed (%d): %s" % (name, p.returncode, p.stderr.decode(errors="replace")[-2000:]))
    got = nul_dict(p.stdout)
    # the login shell's profile may add to a list the module set
    # (Debian's flatpak.sh prepends to XDG_DATA_DIRS): the value within it
    bad = [k.decode() for k, v in mine.items() if got.get(k) != v and (not v or v not in got.get(k, b""))]
    if bad:
        die("%s: the login lacks %d of the %d variables of the user's files (%s...): the user side "
            "was skipped (no reader?)" % (name, len(bad), len(mine), ", ".join(bad[:5])))


HELPERS = ("reader", "floor_helper")  # the programs the modules exec


def program_of(files):
    """The program of one process's profile FILES (its parts): the first
    word of the "cmd" header of any that has one."""
    for f in files:
        cmd = benchlib.header(f, "cmd") if os.path.getsize(f) else None
        if cmd:
            return cmd.split()[0]
    return None


def groups_of(files, pid, so):
    """Where a login's instructions go, from its profiles FILES: su (pid
    PID, every part) up to and including the part that ends at the fork in
    the module SO's pam_sm_open_session and after it, the module's
    pam_sm_open_session in su (every part), su's children that run no other
    program, the module's helper processes (the programs it execs and
    their forks: helper/reader.c, bench/floor_helper.c) with the look-up
    in them (the reader's getpwnam_r and envd_ids_get, NSS inclusive) and
    the count of helper programs started, and the login shell with the
    commands it runs."""
    base = [f for f in files if os.path.basename(f) == "callgrind.%d" % pid]
    if not base:
        die("no profile of su (pid %d)" % pid)
    parts = benchlib.parts_of(base[0])
    cmd = program_of(parts)
    procs = {}
    for f in files:
        if f not in parts:
            procs.setdefault(os.path.basename(f).split(".")[1], []).append(f)
    kids, helper, shell, started = [], [], [], 0
    for p, fs in procs.items():
        prog = program_of(fs)
        if prog == cmd:
            kids += fs
        elif prog and os.path.basename(prog) in HELPERS:
            helper += fs
            # an exec'd helper's profile has no parent's calls: its forks'
            # parts start with the fork's return
            started += 1 if any(benchlib.entered_in([f], "main", os.path.basename(prog)) is not None
                                for f in fs) else 0
        else:
            shell += fs
    calls = benchlib.arcs(helper) if helper else []
    g = {"su": sum(benchlib.ir_of(f) for f in parts),
         "children": sum(benchlib.ir_of(f) for f in kids),
         "helper": sum(benchlib.ir_of(f) for f in helper),
         "helper_lookup": sum(benchlib.inclusive_of(calls, fn, "reader") for fn in ("user_get", "envd_ids_get")),
         "helpers_started": started,
         "shell": sum(benchlib.ir_of(f) for f in shell)}
    if so:
        k = benchlib.entered_in(parts, "pam_sm_open_session", so)
        if k is not None:
            g["su_before"] = sum(benchlib.ir_of(f) for f in parts[:k + 1])
            g["su_after"] = g["su"] - g["su_before"]
        g["open_session"] = benchlib.inclusive_of(benchlib.arcs(parts), "pam_sm_open_session", so)
    return g


def measure(work, tag, pamd, mode, user, lang, keep=None, so=None):
    """Ir of one login: the sum over every process valgrind followed; the
    number of processes (profile files) and, in su mode, groups_of()'s
    breakdown (SO: the module's file name, None for none)."""
    out = tempfile.mkdtemp(prefix="cg.%s." % tag, dir=work)
    os.chmod(out, 0o1777)  # the login shell writes its file as the user
    login = login_argv(work, mode, user)
    # profiles dumped before each fork: a forked child's counters start
    # where its parent's were, and would count the parent's work again
    # and before the floor helper's switch: the file of a program exec'd
    # as root is made at its start and cannot be written after it takes
    # the user's ids (benchlib.ir_of); pam_envd's reader switches in a
    # forked child, whose file is made at its end
    vg = ["valgrind", "--tool=callgrind", "--trace-children=yes", "--vgdb=no", "--dump-before=fork",
          "--dump-before=floor_switch", "--callgrind-out-file=" + os.path.join(out, "callgrind.%p")]
    # unshare and sh exec: the login's first process keeps this pid
    p = subprocess.Popen(["unshare", "-m", "sh", "-c", NS_SCRIPT, "sh", pamd] + vg + login,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={"PATH": PATH, "LANG": lang}, stdin=subprocess.DEVNULL)
    _, err = p.communicate()
    if p.returncode:
        die("%s login failed (%d): %s" % (tag, p.returncode, err.strip()[-2000:]))
    files = [os.path.join(out, f) for f in os.listdir(out)]
    if not files:
        die("no callgrind output for " + tag)
    total = sum(benchlib.ir_of(f) for f in files)
    groups = groups_of(files, p.pid, so) if mode == "su" else None
    if keep:
        shutil.copytree(out, os.path.join(keep, os.path.basename(out)), dirs_exist_ok=True)
    shutil.rmtree(out)
    return total, len(files), groups


def logins(mods, size="medium", lang="C", runs=3, mode="su", user="envd-bench", floor=None,
           keep=None, wall_runs=0, keep_user=False, progress=sys.stderr, reader=None):
    """Measures a login with each of MODS ([(name, path or None)], "none"
    first; each module's line gets reader=READER) and, with FLOOR (a built
    envd), the floor second.  Every module's login is checked first for
    the user's variables (check_user_side).  Returns a dict: "Ir" the
    median per name, "procs" the processes of a login, "groups"
    groups_of() of the run nearest the median per name (su mode), "wall"
    wall()'s result (WALL_RUNS > 0), "user_vars" the count checked and
    "names" in order."""
    mods = list(mods)
    made = ensure_user(user)
    work = tempfile.mkdtemp(prefix="envd-login.")
    os.chmod(work, 0o755)
    try:
        # valgrind runs no setuid program: su's copy without the bit (root
        # needs none)
        shutil.copyfile(shutil.which("su"), os.path.join(work, "su"))
        os.chmod(os.path.join(work, "su"), 0o755)
        system_dirs = make_tree(work, size, user)
        if floor:
            mods.insert(1, ("floor", floor_module(work, os.path.abspath(floor), user, reader)))
            mine = user_side(work, os.path.abspath(floor), user, reader)
        if keep:
            os.makedirs(keep, exist_ok=True)
        dirs = {name: pam_dir(work, name, path, system_dirs, reader) for name, path in mods}
        if floor:
            for name, _ in mods[1:]:
                check_user_side(work, name, dirs[name], mode, user, lang, mine)
        sos = {name: os.path.basename(path.split()[0]) if path else None for name, path in mods}
        ir = {name: [] for name, _ in mods}
        groups = {name: [] for name, _ in mods}
        procs = {}
        for r in range(runs):
            for name, _ in mods:
                n, procs[name], g = measure(work, name, dirs[name], mode, user, lang, keep, sos[name])
                ir[name].append(n)
                groups[name].append((n, g))
                if progress:
                    print("run %d %-12s %d" % (r + 1, name, n), file=progress, flush=True)
        wall_t = {}
        if wall_runs > 0:
            names = [n for n, _ in mods]
            wall_t = wall(work, dirs, names, mode, user, wall_runs, lang,
                          "floor" if "floor" in names else "none")
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if made and not keep_user:
            subprocess.call(["userdel", "-r", user], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    med = {name: int(statistics.median(v)) for name, v in ir.items()}
    brk = {name: min(v, key=lambda x: abs(x[0] - med[name]))[1] for name, v in groups.items()}
    return {"Ir": med, "procs": procs, "groups": brk, "wall": wall_t, "names": [n for n, _ in mods],
            "user_vars": len(mine) if floor else None}


def check_tools(mode):
    """Dies unless root with every command a login measurement needs."""
    if os.geteuid() != 0:
        die("needs root (useradd, unshare -m, mount)")
    for c in ("valgrind", "unshare", "mount", "useradd", "userdel") + \
            (("pamtester",) if mode == "pamtester" else ("su",)):
        if not shutil.which(c):
            die("missing: " + c)


def breakdown(res, header=True, title=None):
    """The lines of a breakdown of logins()'s result RES (su mode): where
    each login's instructions go, and what each module adds over none
    (HEADER: with the lines that explain the columns; TITLE: a line
    before the table)."""
    names, g = res["names"], res["groups"]
    if any(g[n] is None for n in names):
        return []
    fmt = "%-10s %10s %11s %10s %12s %8s %9s %9s %3s %10s"
    out = []
    if header:
        out += ["where the instructions go (the run nearest the median): su = the su process, every part;",
                "  before/after = su's parts up to the fork in the module's pam_sm_open_session and after it;",
                "  open_session = the module's pam_sm_open_session in su; children = su's children that exec",
                "  nothing; helper = the programs the module execs and their forks (pam_envd's reader, the",
                "  floor's helper), lookup = the reader's user and group look-up in them (getpwnam_r,",
                "  envd_ids_get, NSS inclusive), n = helper programs started; shell = the login shell and",
                "  what it runs"]
    if title:
        out.append(title)
    out.append(fmt % ("module", "su", "before", "after", "open_session", "children", "helper", "lookup", "n",
                      "shell"))
    for n in names:
        x = g[n]
        out.append(fmt % (n, x["su"], x.get("su_before", "-"), x.get("su_after", "-"),
                          x.get("open_session", "-"), x["children"], x["helper"], x["helper_lookup"],
                          x["helpers_started"], x["shell"]))
    for base in ("none", "floor"):
        if base not in g:
            continue
        z = g[base]
        for n in names:
            if n in ("none", base):
                continue
            x = g[n]
            su, mod = x["su"] - z["su"], x.get("open_session", 0) - z.get("open_session", 0)
            out.append("  %s over %s: su %+d (open_session %+d, the rest of su %+d: loading the module, "
                       "libpam, su's copy of the PAM environment), children %+d, helper %+d (lookup %+d), "
                       "shell %+d" % (n, base, su, mod, su - mod, x["children"] - z["children"],
                                      x["helper"] - z["helper"], x["helper_lookup"] - z["helper_lookup"],
                                      x["shell"] - z["shell"]))
    return out


def wall_lines(res):
    """The lines of wall()'s result in RES, or none."""
    w, names = res["wall"], res["names"]
    if not w:
        return []
    base = "floor" if "floor" in names else "none"
    n = len(w[names[0]]["times"])
    out = ["wall time (no valgrind): %d logins per module after 3 warm-up logins each, the modules taking" % n,
           "turns login by login; median and interquartile range (q1-q3) per module; x %s: the median" % base,
           "over rounds of the login's time over the %s login's of the same round, and its q1-q3" % base,
           "%-10s %9s %17s %9s %17s" % ("module", "ms/login", "q1-q3 ms", "x " + base, "q1-q3")]
    for name in names:
        x = w[name]
        out.append("%-10s %9.2f %8.2f-%-8.2f %8.3fx %8.3f-%-8.3f" % (name, x["median"], x["q1"], x["q3"],
                                                                   x["ratio"], x["ratio_q1"], x["ratio_q3"]))
    for name in names:
        if name not in ("none", base):
            out.append("  %s/%s: ratio of the medians %.3fx, median of the paired ratios %.3fx"
                       % (name, base, w[name]["median"] / w[base]["median"], w[name]["ratio"]))
    return out


def main():
    a, mods = parse_args()
    check_tools(a.mode)
    res = logins(mods, a.size, a.lang, a.runs, a.mode, a.user, a.floor, a.keep_profiles, a.wall,
                 a.keep_user, reader=os.path.abspath(a.reader) if a.reader else None)
    med, procs = res["Ir"], res["procs"]
    mods = [(n, None) for n in res["names"]]
    first = [m for m in mods if m[0] not in ("none", "floor")] or mods
    first = first[0][0]
    print("login: %s, tree %s, LANG %s, user %s, median of %d runs, Ir summed over %d "
          "processes" % (a.mode, a.size, a.lang, a.user, a.runs, procs[first]))
    if res["user_vars"] is not None:
        print("checked: each module's login has the %d variables of the user's files" % res["user_vars"])
    print("%-14s %14s %12s %9s %8s %12s %9s" % ("module", "Ir/login", "vs none", "%", "x none",
                                                "vs " + first, "%"))
    for name, _ in mods:
        m = med[name]
        dn = m - med["none"]
        df = m - med[first]
        print("%-14s %14d %+12d %+8.2f%% %7.3fx %+12d %+8.2f%%" %
              (name, m, dn, 100.0 * dn / m, m / med["none"], df, 100.0 * df / med[first]))
    if "floor" in med:
        for name, _ in mods:
            if name not in ("none", "floor"):
                print("%s above the floor: %+d Ir, %.4fx the login without a module" %
                      (name, med[name] - med["floor"], (med[name] - med["floor"]) / med["none"]))
    for line in breakdown(res):
        print(line)
    for line in wall_lines(res):
        print(line)


if __name__ == "__main__":
    main()
