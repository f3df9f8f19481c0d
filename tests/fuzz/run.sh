#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/fuzz/run.sh [SECONDS [HARNESS...]] - ./dev fuzz: builds _build/fuzz
# with clang, libFuzzer, ASan and UBSan and runs each harness of tests/fuzz
# (or the ones named) for SECONDS (default 60), one at a time.
# Each harness grows its own corpus in _build/fuzz/corpus/<harness>, starting
# from the committed seeds and every candidate seed of tests/fuzz/seeds.py.
# Any finding (crash, broken invariant, leak, timeout, out of memory) is saved
# in _build/fuzz/findings/ and makes the command fail.
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"

fuzz_harnesses=(fuzz_parse fuzz_expand fuzz_load fuzz_records fuzz_module)
secs=${1:-60} rc=0
case $secs in '' | *[!0-9]*) echo "dev fuzz: SECONDS must be a number" >&2; exit 2 ;; esac
[ $# -le 1 ] || fuzz_harnesses=("${@:2}")
command -v clang >/dev/null 2>&1 || { echo "dev fuzz: clang is required" >&2; exit 1; }
bootstrap
build_tree fuzz CC=clang --enable-fuzzing --enable-sanitizers || exit 1
out="$top/_build/fuzz"
mkdir -p "$out/findings" "$out/logs"
rm -rf "$out/seeds"
python3 "$top/tests/fuzz/seeds.py" --all "$out/seeds" || exit 1
stamp="$out/logs/.started"
touch "$stamp"
# fork mode starts the harness again from disk for every job: run copies,
# so that a rebuild of the tree during the run cannot change the code
# under test half-way (the module too, for fuzz_module)
rm -rf "$out/run"
mkdir -p "$out/run"
for h in "${fuzz_harnesses[@]}"; do cp "$out/tests/fuzz/$h" "$out/run/$h"; done
if [ -f "$out/pam_envd/.libs/pam_envd.so" ]; then
	cp "$out/pam_envd/.libs/pam_envd.so" "$out/run/pam_envd.so"
	export ENVD_FUZZ_MODULE="$out/run/pam_envd.so"
fi
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for h in "${fuzz_harnesses[@]}"; do
	# a harness without candidate seeds (fuzz_records: the committed
	# corpus only) gets an empty directory: libFuzzer stops on a missing one
	mkdir -p "$out/corpus/$h" "$out/seeds/$h"
	log="$out/logs/$h.log"
	echo "== $h: ${secs}s" >&2
	# -fork=1: one worker (the machine is shared) that libFuzzer restarts
	# after a finding, so that one bug does not end the run
	(cd "$out/findings" && "$out/run/$h" -fork=1 -ignore_crashes=1 \
		-ignore_timeouts=1 -ignore_ooms=1 -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=16384 -dict="$top/tests/fuzz/dict" \
		-artifact_prefix="$out/findings/$h-" \
		"$out/corpus/$h" "$top/tests/fuzz/corpus/$h" "$out/seeds/$h") >"$log" 2>&1 || rc=1
	grep -E '^#[0-9]+: cov:' "$log" | tail -n 1 | sed 's/^/   /' >&2 || true
	n=$(find "$out/findings" -maxdepth 1 -type f -name "$h-*" -newer "$stamp" | wc -l)
	if [ "$n" != 0 ]; then
		rc=1
		echo "== $h: $n FINDING(S) (log: $log); by first error:" >&2
		find "$out/findings" -maxdepth 1 -type f -name "$h-*" -newer "$stamp" | head -n 50 |
			while read -r f; do
				line=$("$out/tests/fuzz/$h" -timeout=10 "$f" 2>&1 |
					grep -m1 -E 'invariant failed|ERROR: (Address|Leak)Sanitizer|runtime error|ERROR: libFuzzer: (timeout|out-of-memory)' |
					sed 's/==[0-9]*==//; s/0x[0-9a-f]*/0x/g') || true
				echo "${line:-(does not reproduce)}"
			done | sort | uniq -c | sort -rn >&2
	fi
done
if [ "$rc" != 0 ]; then
	echo "dev fuzz: findings in $out/findings (newer than $stamp); replay one with" >&2
	echo "  $out/tests/fuzz/<harness> FILE   (or <build>/tests/fuzz/replay_<what> FILE)" >&2
	echo "and keep it as a regression test: cp FILE tests/fuzz/corpus/<harness>/" >&2
	exit 1
fi
echo "dev fuzz: no findings" >&2
