#!/usr/bin/env bash
# run.sh - pam_envd benchmarks.
#
#   bench/run.sh BUILDDIR [envd|pam|all]        (./dev bench [envd|pam|all])
#
# Sections:
#   envd  envd against systemd's environment.d generator on generated trees:
#         output check, wall time (hyperfine, else a Python loop) and
#         instruction counts (callgrind) with their growth per size step.
#   pam   a PAM session benchmark (not yet).
#
# When envd and the generator disagree on a tree, bench/minimize.py ENVD
# _build/bench/trees/SIZE shrinks it to a small repro.
#
# Environment knobs:
#   BENCH_SIZES   sizes to run, default "small medium large"
#   BENCH_RUNS    minimum timed runs per command (default 10)
#   BENCH_WARMUP  warmup runs per command (default 3)
#   BENCH_OUT     output directory (default TOP/_build/bench)
#   ENVD          envd binary (default BUILDDIR/src/envd)
#
# The table goes to stdout and to BENCH_OUT/results.txt; raw data (trees,
# outputs, hyperfine JSON, callgrind files) stay in BENCH_OUT.  A missed
# target is reported, not fatal: the exit status is 0 unless something broke.
# shellcheck disable=SC2016,SC2059 # scripts for bash -c; printf formats held in variables
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")

usage() {
	sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" >&2
	exit 2
}

[ $# -ge 1 ] || usage
builddir=$(cd "$1" && pwd) || { echo "run.sh: no build directory $1" >&2; exit 2; }
shift
section=${1:-all}
case $section in envd | pam | all) ;; -h | --help) usage ;; *) usage ;; esac

out=${BENCH_OUT:-$top/_build/bench}
sizes=${BENCH_SIZES:-small medium large}
runs=${BENCH_RUNS:-10}
warmup=${BENCH_WARMUP:-3}
envd=${ENVD:-$builddir/src/envd}
generator=/usr/lib/systemd/user-environment-generators/30-systemd-environment-d-generator
base_path=/usr/local/bin:/usr/bin:/bin # PATH of every measured process

mkdir -p "$out"
results=$out/results.txt
: >"$results"
py=$(python3 -c 'import sys; print(sys.executable)')
lib() { "$py" "$here/benchlib.py" "$@"; }

# say LINE...: to stdout and to results.txt
say() { printf '%s\n' "$@" | tee -a "$results"; }
die() {
	say "run.sh: $*" >&2
	exit 1
}

# ---- machine ------------------------------------------------------------------

machine() {
	local cpu kernel commit sysd hf vg
	cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n1)
	[ -n "$cpu" ] || cpu=$(uname -p)
	kernel=$(uname -srm)
	commit=$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)
	sysd=$(dpkg-query -W -f='${Version}' systemd 2>/dev/null ||
		{ systemctl --version 2>/dev/null | head -n1; } || echo unknown)
	hf=$(hyperfine --version 2>/dev/null || echo "none (Python loop)")
	vg=$(valgrind --version 2>/dev/null || echo none)
	say "pam_envd benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit" \
		"machine: $(nproc) CPUs, $cpu, $kernel" \
		"tools:   $hf; $vg; systemd $sysd; running as uid $(id -u)" \
		"envd:    $envd"
}

# ---- helpers ----------------------------------------------------------------------

# shell-words quoting for hyperfine command strings
q() { printf "'%s'" "${1//\'/\'\\\'\'}"; }

# in_ns ROOT CMD...: runs CMD in a private mount namespace where ROOT's
# environment.d directories replace the system ones and the other two system
# directories (if present) are empty.
in_ns() {
	local root=$1
	shift
	unshare -m -- bash -c '
		set -e
		root=$1 empty=$2
		shift 2
		mount --bind "$root/etc/environment.d" /etc/environment.d
		mount --bind "$root/usr/lib/environment.d" /usr/lib/environment.d
		for d in /run/environment.d /usr/local/lib/environment.d; do
			if [ -d "$d" ]; then mount --bind "$empty" "$d"; fi
		done
		exec "$@"' in_ns "$root" "$out/empty" "$@"
}

generator_usable() {
	gen_note=
	if [ "$(id -u)" != 0 ]; then
		gen_note="generator column skipped: needs root for a private mount namespace"
	elif [ ! -x "$generator" ]; then
		gen_note="generator column skipped: $generator not installed"
	elif [ ! -d /etc/environment.d ] || [ ! -d /usr/lib/environment.d ]; then
		gen_note="generator column skipped: /etc/environment.d or /usr/lib/environment.d missing (nothing to bind over)"
	elif ! unshare -m true 2>/dev/null; then
		gen_note="generator column skipped: unshare -m not permitted here"
	fi
	[ -z "$gen_note" ]
}

# time_json JSON ENV... -- CMD...: times CMD run with exactly ENV (env -i);
# writes hyperfine JSON.  Prefix with in_ns to time inside a namespace.
time_json() {
	local json=$1
	shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	if [ -n "$hyperfine" ]; then
		local cmd="" a
		for a in "$@"; do cmd+="${cmd:+ }$(q "$a")"; done
		env -i "${envs[@]}" "$hyperfine" "${hf_shell[@]}" --style basic --warmup "$warmup" \
			--min-runs "$runs" --export-json "$json" -- "$cmd" >"${json%.json}.log" 2>&1 ||
			{ cat "${json%.json}.log" >&2; return 1; }
	else
		env -i "${envs[@]}" "$py" "$here/benchlib.py" time "$json" "$runs" "$warmup" -- "$@"
	fi
}

# fmt_ms SECONDS
fmt_ms() { awk -v s="$1" 'BEGIN { printf "%.2f", s * 1000 }'; }
# ratio A B: A/B with one decimal
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f", a / b; else printf "-" }'; }
# ge A B: exit 0 when A >= B (floats)
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# ---- section: envd against the generator --------------------------------------

declare -A t_files t_assign t_bytes

make_trees() {
	local s json
	mkdir -p "$out/empty" "$out/trees/empty/root/etc/environment.d" \
		"$out/trees/empty/root/usr/lib/environment.d" \
		"$out/trees/empty/home/.config/environment.d"
	for s in $sizes; do
		json=$("$py" "$here/gen_tree.py" --size "$s" --json \
			"$out/trees/$s/root" "$out/trees/$s/home") || die "gen_tree.py failed for $s"
		read -r "t_files[$s]" "t_assign[$s]" "t_bytes[$s]" < <("$py" -c '
import json, sys
d = json.load(sys.stdin)
print(d["files"], d["assignments"], d["bytes"])' <<<"$json")
	done
}

envd_cmd() { # envd_cmd SIZE: the measured envd command line
	printf '%s\0' "$envd" show --inherit --format env --root "$out/trees/$1/root"
}

section_envd() {
	local s root home rc gen_ok=1 cmp diffs=0 warns=()
	say "" "== envd vs systemd's environment.d generator"
	[ -x "$envd" ] || die "no envd binary at $envd (build it with ./dev build)"
	generator_usable || { gen_ok=0; warns+=("note: $gen_note"); }
	hyperfine=$(command -v hyperfine || true)
	hf_shell=()
	if [ -n "$hyperfine" ] && "$hyperfine" --help 2>/dev/null | grep -q -- '--shell'; then
		hf_shell=(--shell=none)
	fi
	[ -n "$hyperfine" ] || warns+=("note: hyperfine missing, timed with a Python loop")

	make_trees

	# 1. the same output?
	declare -A same
	local -a cmd
	for s in $sizes; do
		root=$out/trees/$s/root home=$out/trees/$s/home
		mapfile -d '' cmd < <(envd_cmd "$s")
		rc=0
		env -i HOME="$home" PATH="$base_path" "${cmd[@]}" >"$out/$s.envd.out" 2>"$out/$s.envd.err" || rc=$?
		[ "$rc" = 0 ] || {
			cat "$out/$s.envd.err" >&2
			die "envd failed on the $s tree (exit $rc): ${cmd[*]}"
		}
		if [ -s "$out/$s.envd.err" ]; then
			warns+=("warning: envd printed $(wc -l <"$out/$s.envd.err") diagnostic line(s) on the $s tree, first: $(head -n1 "$out/$s.envd.err") (see $out/$s.envd.err)")
		fi
		same[$s]=-
		if [ "$gen_ok" = 1 ]; then
			in_ns "$root" env -i HOME="$home" PATH="$base_path" "$generator" \
				>"$out/$s.generator.out" 2>"$out/$s.generator.err" ||
				die "the generator failed on the $s tree"
			if cmp=$(lib compare "$out/$s.generator.out" "$out/$s.envd.out" "$out/$s.diff.txt"); then
				same[$s]=same
			else
				same[$s]=DIFFERS
				diffs=$((diffs + 1))
				warns+=("WARNING: envd and the generator differ on the $s tree: $cmp (details: $out/$s.diff.txt; repro: bench/minimize.py $envd $out/trees/$s)")
			fi
		fi
	done

	# 2. wall time
	declare -A t_envd t_gen
	for s in $sizes; do
		root=$out/trees/$s/root home=$out/trees/$s/home
		mapfile -d '' cmd < <(envd_cmd "$s")
		time_json "$out/$s.envd.json" HOME="$home" PATH="$base_path" -- "${cmd[@]}" ||
			die "timing envd failed on the $s tree"
		t_envd[$s]=$(lib median "$out/$s.envd.json")
		t_gen[$s]=
		if [ "$gen_ok" = 1 ]; then
			# time_json is a shell function: export what it needs into the namespace
			in_ns "$root" env hyperfine="$hyperfine" hf_shell="${hf_shell[*]}" \
				runs="$runs" warmup="$warmup" py="$py" here="$here" \
				bash -c '
					set -e
					json=$1 home=$2 path=$3 gen=$4
					if [ -n "$hyperfine" ]; then
						env -i HOME="$home" PATH="$path" "$hyperfine" $hf_shell --style basic \
							--warmup "$warmup" --min-runs "$runs" --export-json "$json" \
							-- "$gen" >"${json%.json}.log" 2>&1 || { cat "${json%.json}.log" >&2; exit 1; }
					else
						env -i HOME="$home" PATH="$path" "$py" "$here/benchlib.py" \
							time "$json" "$runs" "$warmup" -- "$gen"
					fi' tg "$out/$s.generator.json" "$home" "$base_path" "$generator" ||
				die "timing the generator failed on the $s tree"
			t_gen[$s]=$(lib median "$out/$s.generator.json")
		fi
	done

	say "" "wall time, median of >= $runs runs after $warmup warmup runs (env -i HOME=... PATH=$base_path);" \
		"envd: envd show --inherit --format env --root ROOT" \
		"generator: $generator in a private mount namespace" \
		"output: 'same' = the same assignments in the same order, after undoing the generator's quoting" ""
	local fmt="%-7s %6s %7s %8s  %-7s %10s %13s %10s  %s"
	say "$(printf "$fmt" size files assign KiB output "envd ms" "generator ms" "gen/envd" target)"
	local r rx tgt ms_g kib
	for s in $sizes; do
		kib=$(awk -v b="${t_bytes[$s]}" 'BEGIN { printf "%.1f", b / 1024 }')
		ms_g=- r=- tgt=
		if [ -n "${t_gen[$s]}" ]; then
			ms_g=$(fmt_ms "${t_gen[$s]}")
			r=$(ratio "${t_gen[$s]}" "${t_envd[$s]}")
		fi
		rx=$r
		[ "$r" = - ] || rx=${r}x
		if [ "$s" = large ]; then
			if [ "$r" = - ]; then
				tgt=">= 20x (aim 50x): not measured"
			elif ge "$r" 50; then
				tgt=">= 20x PASS (aim 50x met)"
			elif ge "$r" 20; then
				tgt=">= 20x PASS (aim 50x not met)"
			else
				tgt=">= 20x MISS"
			fi
		fi
		say "$(printf "$fmt" "$s" "${t_files[$s]}" "${t_assign[$s]}" "$kib" "${same[$s]}" \
			"$(fmt_ms "${t_envd[$s]}")" "$ms_g" "$rx" "$tgt")"
	done

	# 3. instruction counts
	section_envd_ir

	if [ ${#warns[@]} -gt 0 ]; then
		say ""
		say "${warns[@]}"
	fi
}

section_envd_ir() {
	local s prev='' fmt
	declare -A ir_of
	say "" "instructions executed by envd (valgrind --tool=callgrind, total Ir; 'empty' is an empty tree)" ""
	if ! command -v valgrind >/dev/null 2>&1; then
		say "skipped: valgrind not installed"
		return 0
	fi
	local -a cmd
	for s in empty $sizes; do
		mapfile -d '' cmd < <(envd_cmd "$s")
		env -i HOME="$out/trees/$s/home" PATH="$base_path" valgrind --tool=callgrind \
			--callgrind-out-file="$out/callgrind.$s.out" "${cmd[@]}" \
			>/dev/null 2>"$out/callgrind.$s.log" ||
			{ tail -n 20 "$out/callgrind.$s.log" >&2; die "callgrind run failed on the $s tree"; }
		ir_of[$s]=$(lib ir "$out/callgrind.$s.out") || die "no instruction count in $out/callgrind.$s.out"
	done
	fmt="%-7s %6s %7s %15s %12s"
	say "$(printf "$fmt" size files assign Ir "Ir/assign")"
	say "$(printf "$fmt" empty 0 0 "${ir_of[empty]}" -)"
	for s in $sizes; do
		say "$(printf "$fmt" "$s" "${t_files[$s]}" "${t_assign[$s]}" "${ir_of[$s]}" \
			"$(awk -v i="${ir_of[$s]}" -v e="${ir_of[empty]}" -v n="${t_assign[$s]}" \
				'BEGIN { printf "%.0f", (i - e) / n }')")"
	done

	say "" "growth per step; target: instructions grow at most 1.1x as fast as the input" \
		"(10x the input => at most 11x the instructions)" ""
	fmt="%-16s %7s %8s %8s %9s %12s %9s  %s"
	say "$(printf "$fmt" step files assign bytes Ir "Ir - empty" limit status)"
	for s in $sizes; do
		if [ -n "$prev" ]; then
			local rf ra rb ri rm lim st
			rf=$(ratio "${t_files[$s]}" "${t_files[$prev]}")
			ra=$(ratio "${t_assign[$s]}" "${t_assign[$prev]}")
			rb=$(ratio "${t_bytes[$s]}" "${t_bytes[$prev]}")
			ri=$(awk -v a="${ir_of[$s]}" -v b="${ir_of[$prev]}" 'BEGIN { printf "%.2f", a / b }')
			rm=$(awk -v a="${ir_of[$s]}" -v b="${ir_of[$prev]}" -v e="${ir_of[empty]}" \
				'BEGIN { if (b > e) printf "x%.2f", (a - e) / (b - e); else printf "-" }')
			lim=$(awk -v a="${t_assign[$s]}" -v b="${t_assign[$prev]}" 'BEGIN { printf "%.2f", 1.1 * a / b }')
			if ge "$lim" "$ri"; then st=PASS; else st=MISS; fi
			say "$(printf "$fmt" "$prev -> $s" "x$rf" "x$ra" "x$rb" "x$ri" "$rm" "x$lim" "$st")"
		fi
		prev=$s
	done
}

# ---- section: PAM session ---------------------------------------------------------

section_pam() {
	say "" "== PAM session (pam_envd vs pam_permit vs pam_env)" "not yet"
}

# ---- main -------------------------------------------------------------------------------

machine
case $section in
envd) section_envd ;;
pam) section_pam ;;
all)
	section_envd
	section_pam
	;;
esac
say "" "results: $results"
