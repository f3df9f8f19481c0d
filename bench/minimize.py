#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
"""minimize.py - shrink a tree on which envd and the generator disagree.

    minimize.py ENVD TREE [WORKDIR]

TREE holds root/ and home/ as written by gen_tree.py (for instance
_build/bench/trees/medium).  The tree is copied to WORKDIR (default: a new
temporary directory), then files and then lines are removed for as long as
envd's output still differs from the generator's.  Prints the remaining files
and both outputs.  Needs root (the generator runs in a private mount
namespace, as in run.py).
"""

import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

GENERATOR = "/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator"
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
NS_SCRIPT = r'''
set -e
root=$1 empty=$2; shift 2
mount --bind "$root/etc/environment.d" /etc/environment.d
mount --bind "$root/usr/lib/environment.d" /usr/lib/environment.d
for d in /run/environment.d /usr/local/lib/environment.d; do
	if [ -d "$d" ]; then mount --bind "$empty" "$d"; fi
done
exec "$@"
'''


class Case:
    def __init__(self, envd, work):
        self.envd = envd
        self.work = work
        self.root = os.path.join(work, "root")
        self.home = os.path.join(work, "home")
        self.empty = os.path.join(work, "empty")
        os.makedirs(self.empty, exist_ok=True)
        self.dirs = [os.path.join(self.root, "etc/environment.d"),
                     os.path.join(self.root, "usr/lib/environment.d"),
                     os.path.join(self.home, ".config/environment.d")]
        self.tests = 0

    def outputs(self):
        env = {"HOME": self.home, "PATH": BASE_PATH}
        e = subprocess.run([self.envd, "show", "--inherit", "--format", "env",
                            "--root", self.root], env=env, capture_output=True)
        g = subprocess.run(["unshare", "-m", "--", "bash", "-c", NS_SCRIPT, "ns", self.root,
                            self.empty, "env", "-i", "HOME=" + self.home, "PATH=" + BASE_PATH,
                            GENERATOR], capture_output=True)
        return e, g

    def differs(self):
        self.tests += 1
        e, g = self.outputs()
        gp = os.path.join(self.work, "gen.out")
        ep = os.path.join(self.work, "envd.out")
        with open(gp, "wb") as f:
            f.write(g.stdout)
        with open(ep, "wb") as f:
            f.write(e.stdout)
        if e.returncode != 0:
            return True
        with open(os.devnull, "w") as null:
            saved, sys.stdout = sys.stdout, null
            try:
                return benchlib.cmd_compare(gp, ep) != 0
            finally:
                sys.stdout = saved

    def files(self):
        return sorted(os.path.join(d, f) for d in self.dirs for f in os.listdir(d))


def ddmin(items, still_bad, remove, restore):
    """Removes chunks of items while still_bad() holds; returns what is left."""
    items = list(items)
    n = 2
    while len(items) >= 1:
        chunk = max(1, len(items) // n)
        progress = False
        i = 0
        while i < len(items):
            part = items[i:i + chunk]
            saved = remove(part)
            if still_bad():
                items = items[:i] + items[i + chunk:]
                progress = True
            else:
                restore(saved)
                i += chunk
        if chunk == 1 and not progress:
            break
        if not progress:
            n = min(len(items), n * 2)
    return items


def main(argv):
    if len(argv) not in (2, 3):
        sys.exit(__doc__)
    envd, tree = os.path.abspath(argv[0]), argv[1]
    work = argv[2] if len(argv) == 3 else tempfile.mkdtemp(prefix="envd-min.")
    for part in ("root", "home"):
        dst = os.path.join(work, part)
        if os.path.exists(dst):
            shutil.rmtree(dst)
        shutil.copytree(os.path.join(tree, part), dst, symlinks=True)
    c = Case(envd, work)
    if not c.differs():
        print("envd and the generator agree on this tree")
        return 0

    # 1. whole files
    def rm_files(part):
        saved = []
        for p in part:
            with open(p, "rb") as f:
                saved.append((p, f.read()))
            os.unlink(p)
        return saved

    def put_files(saved):
        for p, data in saved:
            with open(p, "wb") as f:
                f.write(data)

    ddmin(c.files(), c.differs, rm_files, put_files)

    # 2. lines of each remaining file
    for p in c.files():
        with open(p, "rb") as f:
            lines = f.read().split(b"\n")
        state = {"lines": list(range(len(lines)))}

        def write(keep):
            with open(p, "wb") as f:
                f.write(b"\n".join(lines[k] for k in keep))

        def rm_lines(part, state=state):
            old = state["lines"]
            state["lines"] = [k for k in old if k not in part]
            write(state["lines"])
            return old

        def put_lines(old, state=state):
            state["lines"] = old
            write(old)

        ddmin(list(state["lines"]), c.differs, rm_lines, put_lines)
        write(state["lines"])

    c.differs()  # refresh the outputs
    print("minimal case after %d runs, in %s:" % (c.tests, work))
    for p in c.files():
        print("--- %s" % os.path.relpath(p, work))
        with open(p, "rb") as f:
            sys.stdout.write(f.read().decode("utf-8", "replace"))
            sys.stdout.write("\n")
    for name in ("gen.out", "envd.out"):
        print("--- %s" % name)
        with open(os.path.join(work, name), "rb") as f:
            sys.stdout.write(f.read().decode("utf-8", "replace"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
