# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# shellcheck shell=bash
# tools/common.sh - the shell that ./dev and every stage script share
# (sourced, never run): the source tree, the build trees in _build/, and
# the results of a stage.  A stage script (tests/*/run.sh) prints its
# messages on stderr and one line "pass fail skip" on stdout, and exits
# non-zero when something failed; ./dev test adds the lines up.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
jobs=$(nproc 2>/dev/null || echo 2)
# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh" # deps_why, for stage_needs

# stage_needs CMD...: the commands a stage script runs are installed; else
# the stage ends with the reason (their Debian packages, tools/deps.list):
# skipped ("0 0 1"), or under CI=true, where ./dev deps has installed
# everything, failed ("0 1 0", exit 1).
stage_needs() {
	local why stage
	why=$(deps_why "$@") && return 0
	stage=$(basename "$(dirname "$0")")
	if [ "${CI:-}" = true ]; then
		echo "== $stage: FAIL: $why (CI=true: every dependency must be installed)" >&2
		echo "0 1 0"
		exit 1
	fi
	echo "== $stage: SKIP: $why" >&2
	echo "0 0 1"
	exit 0
}

# The project's git hooks (.githooks: commit-msg holds subjects to 72
# characters), in a git checkout whose hooks path is not set otherwise.
hooks() {
	git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || return 0
	[ -n "$(git -C "$top" config core.hooksPath 2>/dev/null)" ] ||
		git -C "$top" config core.hooksPath .githooks 2>/dev/null || true
}

bootstrap() {
	hooks
	if [ ! -x "$top/configure" ] || [ "$top/configure.ac" -nt "$top/configure" ] ||
		[ "$top/Makefile.am" -nt "$top/Makefile.in" ]; then
		(cd "$top" && { autoreconf -fi >/dev/null 2>&1 || autoreconf -fi; })
	fi
}

# build_tree NAME [configure args...]: an out-of-tree build in _build/NAME
build_tree() {
	local name=$1; shift
	local dir="$top/_build/$name"
	mkdir -p "$dir"
	local args="$*"
	if [ ! -f "$dir/Makefile" ] || [ "$(cat "$dir/.args" 2>/dev/null)" != "$args" ] ||
		[ "$top/configure" -nt "$dir/Makefile" ]; then
		(cd "$dir" && "$top/configure" -q "$@" && echo "$args" >.args)
	fi
	make -s -C "$dir" -j"$jobs" >/dev/null
}

# count_results DIR: adds up automake's .trs results of one build tree:
# prints "pass fail skip".
count_results() {
	local dir=$1 p=0 f=0 s=0 r
	while IFS= read -r r; do
		case $r in
		PASS | XFAIL) p=$((p + 1)) ;;
		SKIP) s=$((s + 1)) ;;
		*) f=$((f + 1)) ;;
		esac
	done < <(find "$dir" -name '*.trs' -exec sed -n 's/^:test-result: //p' {} + 2>/dev/null)
	echo "$p $f $s"
}

# count_log LOG: adds up the PASS:/FAIL:... lines of a make check log (for
# trees that are gone when it ends, as distcheck's): prints "pass fail skip".
count_log() {
	local p f s
	p=$(grep -cE '^(PASS|XFAIL): ' "$1" 2>/dev/null) || true
	f=$(grep -cE '^(FAIL|ERROR|XPASS): ' "$1" 2>/dev/null) || true
	s=$(grep -cE '^SKIP: ' "$1" 2>/dev/null) || true
	echo "${p:-0} ${f:-0} ${s:-0}"
}

# failed_logs DIR: on stderr, the log of each test of the build tree DIR
# whose result is FAIL or ERROR: whole when short, else the checks it says
# failed, each with the lines printed below it (the harness's detail, a
# tool's own output), and its end.
failed_logs() {
	local t l
	find "$1" -name '*.trs' -exec grep -lE '^:test-result: (FAIL|ERROR)' {} + 2>/dev/null |
		while read -r t; do
			l=${t%.trs}.log
			if [ "$(wc -l <"$l")" -le 60 ]; then
				echo "---- $l:" >&2
				cat "$l" >&2
				continue
			fi
			echo "---- $l: failed checks:" >&2
			grep -E -A8 '^(FAIL|not ok)([ :-]|$)|\[ +(FAILED|ERROR) +\]' "$l" | head -n 80 >&2
			echo "---- end of $l:" >&2
			tail -n 30 "$l" >&2
		done
}

# run_suite NAME: make check in _build/NAME; the results on stderr, and the
# logs of the failed tests.
run_suite() {
	local name=$1 rc=0
	echo "== $name build: make check" >&2
	find "$top/_build/$name" -name '*.trs' -delete 2>/dev/null || true
	make -s -C "$top/_build/$name" -j"$jobs" check >"$top/_build/$name.check.log" 2>&1 || rc=$?
	grep -E '^(PASS|FAIL|SKIP|ERROR|XFAIL|XPASS):' "$top/_build/$name.check.log" >&2 || true
	if [ "$rc" != 0 ]; then
		echo "== $name: failures; logs:" >&2
		failed_logs "$top/_build/$name"
		grep -E 'error|Error' "$top/_build/$name.check.log" | head -20 >&2 || true
	fi
	return "$rc"
}

# check_tree NAME: run_suite as a stage: prints "pass fail skip".
check_tree() {
	local rc=0
	run_suite "$1" || rc=1
	count_results "$top/_build/$1"
	return "$rc"
}

# release_tarball LOG: the release tarball distcheck made, else one made
# from the plain tree (its output in LOG); prints its path, or nothing.
release_tarball() {
	local t
	t=$(find "$top/_build/distcheck" -maxdepth 1 -name 'pam_envd-*.tar.gz' 2>/dev/null | head -n 1) || true
	if [ -z "$t" ]; then
		make -s -C "$top/_build/plain" dist >"$1" 2>&1 || true
		t=$(find "$top/_build/plain" -maxdepth 1 -name 'pam_envd-*.tar.gz' 2>/dev/null | head -n 1) || true
	fi
	echo "$t"
}
