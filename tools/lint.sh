#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tools/lint.sh [-o DIR] [CHECK...] - the static checks, each of which must
# be clean:
#   format     clang-format --dry-run -Werror over every C source of the tree
#   cppcheck   cppcheck (warning, portability, performance) on lib/, src/,
#              pam_envd/, with the include paths and defines of config.h
#   fanalyzer  gcc -fanalyzer -Werror over the whole build (lib/, src/, pam_envd/)
#   scan-build clang's static analyzer over the whole build, --status-bugs
#   hooks      .githooks/commit-msg refuses a subject over 72 characters and
#              one glued to its body, and takes a good message
#   reuse      reuse lint: every file has its SPDX license and copyright
#              (header, or .reuse/dep5), LICENSES/ has the texts used
# Default: all six.  The analyzers build in DIR/lint-fanalyzer and
# DIR/lint-scan (DIR: _build of the source tree), each check's output goes
# to DIR/lint-CHECK.log, and a failing check prints its findings.  A check
# whose tool is not installed fails (./dev deps installs them).
# Findings are fixed in the code; a false positive gets the narrowest
# suppression the tool has (cppcheck: an inline "cppcheck-suppress ID"
# comment), with a comment saying why it is one.
# Exit: 0 all clean, 1 something failed, 2 usage.

# the check_* functions are called by name
# shellcheck disable=SC2317
set -uo pipefail

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$top/_build
if [ "${1:-}" = -o ]; then
	[ $# -ge 2 ] || { echo "usage: $0 [-o DIR] [CHECK...]" >&2; exit 2; }
	out=$(mkdir -p "$2" && cd "$2" && pwd)
	shift 2
fi
checks=("$@")
[ ${#checks[@]} -gt 0 ] || checks=(format cppcheck fanalyzer scan-build hooks reuse)
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$out"

# the C sources of the tree, wherever they are (new directories included)
c_sources() {
	(cd "$top" && find . \( -path ./_build -o -path ./autom4te.cache -o -path ./.git \) -prune \
		-o -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort)
}

need() { # TOOL DEBIAN-PACKAGE
	command -v "$1" >/dev/null 2>&1 && return 0
	echo "$1 is not installed (Debian package: $2; ./dev deps installs it)"
	return 1
}

# configured NAME [CONFIGURE-PREFIX...]: a build tree DIR/NAME, configured
# once (again when configure changes)
configured() {
	local dir=$out/$1
	shift
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ "$top/configure" -nt "$dir/Makefile" ]; then
		[ -x "$top/configure" ] || { echo "no $top/configure: run autoreconf -fi"; return 1; }
		(cd "$dir" && "$@" "$top/configure" -q --enable-werror) || return 1
	fi
}

check_format() {
	need clang-format clang-format || return 1
	# shellcheck disable=SC2046 # file names without blanks
	(cd "$top" && clang-format --dry-run -Werror $(c_sources))
}

check_hooks() {
	local hook=$top/.githooks/commit-msg msg=$out/lint-hooks.msg rc=0
	[ -x "$hook" ] || { echo "$hook is missing or not executable"; return 1; }
	printf 'lint: a subject of the right length\n\nA body.\n' >"$msg"
	"$hook" "$msg" || { echo "a good message refused"; rc=1; }
	printf '%073d\n' 0 >"$msg"
	if "$hook" "$msg" 2>/dev/null; then echo "a 73-character subject taken"; rc=1; fi
	printf 'subject\nbody glued to it\n' >"$msg"
	if "$hook" "$msg" 2>/dev/null; then echo "a subject glued to its body taken"; rc=1; fi
	return "$rc"
}

check_cppcheck() {
	need cppcheck cppcheck || return 1
	# config.h (in the build tree) gives the defines; __GNUC__ and __linux__
	# pick the one configuration that is built here, instead of every
	# combination of the #ifs of the system headers
	configured lint-fanalyzer || return 1
	(cd "$top" && cppcheck -q -j"$jobs" --std=c11 --platform=unix64 --library=posix \
		--enable=warning,portability,performance --error-exitcode=1 --inline-suppr \
		-I "$out/lint-fanalyzer" -I lib -I src -I pam_envd -D__GNUC__ -D__linux__ \
		--template='{file}:{line}:{column}: {severity}: {message} [{id}]' \
		lib src pam_envd)
}

check_fanalyzer() {
	need gcc gcc || return 1
	configured lint-fanalyzer || return 1
	local flags='-g -O2 -fanalyzer'
	# gcc 12's analyzer loses a pointer stored at a variable index of a heap
	# array: for the textbook "v = calloc(n, ...); v[i] = strdup(...);
	# return v;" it reports the strdup leaked.  It said so of every such
	# array here (lib/{scan,login,load,policy,store}.c, pam_envd/options.c),
	# and only of those, so its one leak warning is off with gcc 12 and
	# before.  Leaks stay checked by valgrind (tests/lib/vg_lib.sh), by
	# LeakSanitizer in the sanitizer build, and by scan-build's unix.Malloc.
	if [ "$(gcc -dumpversion | cut -d. -f1)" -le 12 ]; then
		flags="$flags -Wno-analyzer-malloc-leak"
	fi
	# configured with -Werror: a finding fails the compile and leaves no
	# object, so a rerun analyzes that file again (all of them when the
	# flags change); -k: every file's findings
	if [ "$(cat "$out/lint-fanalyzer/.lint-flags" 2>/dev/null)" != "$flags" ]; then
		make -C "$out/lint-fanalyzer" -s clean >/dev/null || return 1
		echo "$flags" >"$out/lint-fanalyzer/.lint-flags"
	fi
	make -C "$out/lint-fanalyzer" -s -k -j"$jobs" CC=gcc CFLAGS="$flags"
}

check_scan_build() {
	need scan-build clang-tools || return 1
	# configured through scan-build, so that CC is its compiler wrapper;
	# cleaned first, since only what is compiled is analyzed
	configured lint-scan scan-build || return 1
	make -C "$out/lint-scan" -s clean || return 1
	rm -rf "$out/lint-scan/report"
	scan-build --status-bugs -o "$out/lint-scan/report" make -C "$out/lint-scan" -s -j"$jobs"
}

check_reuse() {
	need reuse reuse || return 1
	# the files of git ls-files (reuse skips what .gitignore ignores)
	reuse --root "$top" lint
}

rc=0
for c in "${checks[@]}"; do
	case $c in
	format | cppcheck | fanalyzer | scan-build | hooks | reuse) ;;
	*)
		echo "lint: unknown check $c (format, cppcheck, fanalyzer, scan-build, hooks, reuse)" >&2
		exit 2
		;;
	esac
	log=$out/lint-$c.log
	t0=$(date +%s)
	if "check_${c//-/_}" >"$log" 2>&1; then
		echo "lint: $c: ok ($(($(date +%s) - t0))s)" >&2
	else
		rc=1
		echo "lint: $c: FAILED ($(($(date +%s) - t0))s; log: $log):" >&2
		# the findings, without the build's chatter
		grep -E -A4 'error|warning|not installed|bugs? found|scan-view|^# (MISSING|BAD|UNUSED)' "$log" | head -n 150 >&2 ||
			tail -n 60 "$log" >&2
	fi
done
exit "$rc"
