#!/usr/bin/env bash
# run.sh - pam_envd benchmarks.
#
#   bench/run.sh BUILDDIR [envd|pam|all]        (./dev bench [envd|pam|all])
#
# Sections:
#   envd  envd against systemd's environment.d generator on generated trees:
#         output check, wall time (hyperfine, else a Python loop) and
#         instruction counts (callgrind) with their growth per size step.
#   pam   session open with pam_envd last in a login-like stack, against the
#         same stack with pam_permit and with pam_env reading the same tree
#         as ~/.pam_environment: output check, instructions (callgrind) and
#         wall time (pamtester under hyperfine; bench/pam_open.c in-process),
#         then pam_envd's growth with the tree.  Needs root (useradd,
#         /etc/pam.d); users and services are removed on exit.
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
#   PAM_ENVD      the module (default BUILDDIR/pam_envd/.libs/pam_envd.so)
#   BENCH_PAM_SESSIONS  extra sessions per process for Ir/session (default 10)
#   BENCH_PAM_ENV_SIZES sizes measured with pam_env too (default "small medium")
#   BENCH_PAM_ROUNDS    timing rounds, each timing every stack in turn (default 5)
#   BENCH_PAM_ITER      timed sessions in one process, per round (default 40)
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
#
# Real users (useradd, home in a temporary directory) and real /etc/pam.d
# services, all removed by an EXIT trap, also when the run fails or is
# interrupted.  Every service is the session part of a Debian login stack,
# the module under test last:
#   pam_permit   the baseline
#   pam_envd     system_dirs= the tree's etc/ and usr/lib/environment.d, the
#                user's own ~/.config/environment.d
#   pam_env      user_readenv=1: the same tree as ~/.pam_environment, written
#                by bench/pam_envconf.py (which also predicts the variables)
# Drivers: bench/pam_open (built here: N transactions in one process, or the
# PAM environment after open_session) and pamtester.

pam_stack=(
	"session  required  pam_env.so readenv=1"
	"session  required  pam_env.so readenv=1 envfile=/etc/default/locale"
	"session  required  pam_limits.so"
	"session  required  pam_unix.so"
	"session  optional  pam_umask.so"
)
pam_tag=envdbench$$ # prefix of the users and services made here
pam_tmp=''
pam_users=()
pam_services=()

pam_cleanup() {
	local s u
	for s in "${pam_services[@]}"; do rm -f "/etc/pam.d/$s"; done
	for u in "${pam_users[@]}"; do
		for _ in 1 2 3 4 5 6 7 8 9 10; do # another test may hold the passwd lock
			userdel "$u" >/dev/null 2>&1 && break
			getent passwd "$u" >/dev/null || break
			sleep 0.3
		done
		if getent group "$u" >/dev/null; then groupdel "$u" >/dev/null 2>&1 || true; fi
		if getent passwd "$u" >/dev/null; then echo "run.sh: could not remove user $u" >&2; fi
	done
	if [ -n "$pam_tmp" ]; then rm -rf "$pam_tmp"; fi
	pam_services=() pam_users=() pam_tmp=''
}

# pam_add_user NAME HOME: a real user with its own group; retried while
# another process holds the passwd or group lock.
pam_add_user() {
	local rc
	for _ in $(seq 30); do
		rc=0
		useradd -M -d "$2" -s /bin/sh -U -K UMASK=022 "$1" >/dev/null 2>"$pam_tmp/useradd.err" || rc=$?
		case $rc in
		0)
			pam_users+=("$1")
			return 0
			;;
		1 | 10) sleep 0.3 ;; # could not lock or update the files: retry
		*) break ;;
		esac
	done
	die "useradd $1 failed (exit $rc): $(cat "$pam_tmp/useradd.err")"
}

# pam_service NAME LINE...: /etc/pam.d/NAME, the stack with LINEs last.
pam_service() {
	local name=$1 f=/etc/pam.d/$1
	shift
	[ ! -e "$f" ] || die "$f exists already"
	pam_services+=("$name")
	{
		echo "# pam_envd benchmark (bench/run.sh, pid $$); removed when the run ends"
		echo "auth     required  pam_deny.so"
		echo "account  required  pam_deny.so"
		echo "password required  pam_deny.so"
		printf '%s\n' "${pam_stack[@]}" "$@"
	} >"$f"
	chmod 644 "$f"
}

# pam_ir TAG SERVICE USER SESSIONS: total Ir of one driver process
pam_ir() {
	local f=$pout/callgrind.$1.n$4.out
	env -i PATH="$base_path" valgrind --tool=callgrind --callgrind-out-file="$f" \
		"$driver" -n "$4" "$2" "$3" >/dev/null 2>"${f%.out}.log" ||
		{ tail -n 20 "${f%.out}.log" >&2; die "callgrind run failed: $driver -n $4 $2 $3"; }
	lib ir "$f" || die "no instruction count in $f"
}

# cg_fn FILE REGEX: the largest inclusive Ir of the functions whose
# callgrind_annotate line matches REGEX ("-" when none does)
cg_fn() {
	callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null |
		awk -v re="$2" '$0 ~ re && $1 ~ /^[0-9,]+$/ { gsub(",", "", $1); if ($1 + 0 > m) m = $1 + 0 }
			END { if (m) printf "%.0f\n", m; else print "-" }'
}

# pam_inproc SERVICE USER ITER: median wall time of one transaction, in ns
pam_inproc() {
	local line
	line=$(env -i PATH="$base_path" "$driver" -w "$pam_warm" -n "$3" -t "$1" "$2") ||
		die "$driver -t $1 $2 failed"
	awk '{ for (i = 1; i < NF; i++) if ($i == "median_ns") print $(i + 1) }' <<<"$line"
}

# pam_check TAG SIZE ACTUAL: compares a PAM environment with the prediction
pam_check() {
	local res rc=0
	res=$("$py" "$here/pam_envconf.py" check "$pout/$2.expected.nul" "$pout/$2.base.nul" "$3" \
		--details "$pout/$1.diff.txt") || rc=$?
	chk[$1]=$res
	if [ "$rc" != 0 ]; then
		chk[$1]=DIFFERS
		pam_warns+=("WARNING: $1 ($2 tree): $res (details: $pout/$1.diff.txt)")
	fi
}

section_pam() {
	local module=${PAM_ENVD:-$builddir/pam_envd/.libs/pam_envd.so} module_src
	local pout=$out/pam driver pamtester c s u v home root json shell svc
	local pam_sessions=${BENCH_PAM_SESSIONS:-10} pam_iter=${BENCH_PAM_ITER:-40} pam_warm=3
	local pam_rounds=${BENCH_PAM_ROUNDS:-5}
	local pam_sizes=small missing=()
	local -a pam_warns=()
	local -A chk files assign ir1 irn sess nsess hf inproc nvars nsys own
	local k
	for s in $sizes; do [ "$s" = small ] || pam_sizes+=" $s"; done
	# pam_env is quadratic or worse in the lines of ~/.pam_environment: on the
	# large tree one session costs billions of instructions (hours under
	# callgrind), so it is left out there unless asked for
	local env_sizes=${BENCH_PAM_ENV_SIZES:-small medium}
	has_env() { case " $env_sizes " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }

	say "" "== PAM session open: pam_envd vs pam_permit vs pam_env"
	if [ "$(id -u)" != 0 ]; then
		say "skipped: needs root (real users with useradd, services in /etc/pam.d)"
		return 0
	fi
	for c in cc useradd userdel groupdel getent; do
		command -v "$c" >/dev/null 2>&1 || missing+=("$c")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		say "skipped: missing ${missing[*]}"
		return 0
	fi
	[ -f "$module" ] || die "no module at $module (build it with ./dev build)"
	module_src=$module
	pamtester=$(command -v pamtester || true)
	hyperfine=$(command -v hyperfine || true)
	hf_shell=()
	if [ -n "$hyperfine" ] && "$hyperfine" --help 2>/dev/null | grep -q -- '--shell'; then
		hf_shell=(--shell=none)
	fi
	[ -n "$pamtester" ] || pam_warns+=("note: pamtester missing: no pamtester times, no pamtester check")
	[ -n "$hyperfine" ] || pam_warns+=("note: hyperfine missing, pamtester timed with a Python loop")
	command -v valgrind >/dev/null 2>&1 || pam_warns+=("note: valgrind missing: no instruction counts")

	rm -rf "$pout"
	mkdir -p "$pout"
	trap pam_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	pam_tmp=$(mktemp -d /tmp/pam_envd-bench.XXXXXX)
	chmod 755 "$pam_tmp"
	# a copy: a rebuild of the tree during the run must not change the module
	# between two sessions (callgrind aborts on code that changes under it)
	cp "$module" "$pout/pam_envd.so"
	module=$pout/pam_envd.so
	driver=$pout/pam_open
	cc -O2 -Wall -o "$driver" "$here/pam_open.c" -lpam || die "cannot build $driver (libpam0g-dev?)"
	cc -O2 -Wall -fPIC -shared -o "$pout/pam_floor.so" "$here/pam_floor.c" -lpam ||
		die "cannot build the floor module bench/pam_floor.c"
	printf '#!/bin/sh\nexec env -0 >"$1"\n' >"$pam_tmp/record"
	chmod 755 "$pam_tmp/record"

	# 1. users, trees, services; what each stack leaves in the PAM environment
	pam_service "$pam_tag-permit" "session  required  pam_permit.so"
	pam_service "$pam_tag-env" "session  required  pam_env.so readenv=0 user_readenv=1"
	for s in $pam_sizes; do
		u=$pam_tag${s:0:1}
		home=$pam_tmp/home/$u
		root=$pout/trees/$s/root
		mkdir -p "$home"
		json=$("$py" "$here/gen_tree.py" --size "$s" --json "$root" "$home") ||
			die "gen_tree.py failed for $s"
		read -r "files[$s]" "assign[$s]" < <("$py" -c '
import json, sys
d = json.load(sys.stdin)
print(d["files"], d["assignments"])' <<<"$json")
		pam_add_user "$u" "$home"
		chown -R "$u:$u" "$home"
		chmod 755 "$home"
		shell=$(getent passwd "$u" | cut -d: -f7)
		pam_service "$pam_tag-envd-$s" "session  required  $module system_dirs=$root/etc/environment.d:$root/usr/lib/environment.d"

		env -i PATH="$base_path" "$driver" -p "$pam_tag-permit" "$u" >"$pout/$s.base.nul" ||
			die "the pam_permit stack fails for $u"
		"$py" "$here/pam_envconf.py" translate --dir "$home/.config/environment.d" \
			--dir "$root/etc/environment.d" --dir "$root/usr/lib/environment.d" \
			--base "$pout/$s.base.nul" --home "$home" --shell "$shell" --user "$u" \
			--default-path "$base_path" --conf "$pout/$s.pam_environment" \
			--expected "$pout/$s.expected.nul" >"$pout/$s.translate.txt" ||
			die "cannot translate the $s tree for pam_env"
		install -o "$u" -g "$u" -m 644 "$pout/$s.pam_environment" "$home/.pam_environment"
		nvars[$s]=$(tr -cd '\0' <"$pout/$s.expected.nul" | wc -c)

		# 2. the outputs: both modules give the predicted variables
		env -i PATH="$base_path" "$driver" -p "$pam_tag-envd-$s" "$u" >"$pout/$s.envd.nul" ||
			die "the pam_envd stack fails for $u ($s tree)"
		pam_check "envd.$s" "$s" "$pout/$s.envd.nul"
		if has_env "$s"; then
			env -i PATH="$base_path" "$driver" -p "$pam_tag-env" "$u" >"$pout/$s.env.nul" ||
				die "the pam_env stack fails for $u ($s tree)"
			pam_check "env.$s" "$s" "$pout/$s.env.nul"
		fi
		if [ -x "$envd" ]; then
			env -i PATH="$base_path" "$envd" show --format nul --root "$root" "$u" \
				>"$pout/$s.show.nul" 2>"$pout/$s.show.err" || die "envd show $u failed"
			pam_check "show.$s" "$s" "$pout/$s.show.nul"
		fi
		if [ "$s" = small ]; then
			# the floor writes what pam_envd writes: the variables of the result
			env -i PATH="$base_path" "$envd" show --format nul --root "$root" "$u" \
				>"$pout/$s.vars.nul" 2>/dev/null || die "envd show $u failed"
			pam_service "$pam_tag-floor" "session  required  $pout/pam_floor.so vars=$pout/$s.vars.nul"
			env -i PATH="$base_path" "$driver" -p "$pam_tag-floor" "$u" >"$pout/$s.floor.nul" ||
				die "the floor stack fails for $u"
			pam_check "floor.$s" "$s" "$pout/$s.floor.nul"
		fi
	done
	u=${pam_tag}s
	if [ -n "$pamtester" ]; then
		# the pamtester path, seen by a pam_exec recorder stacked after the module
		for v in envd env; do
			svc=$pam_tag-rec-$v
			if [ "$v" = envd ]; then
				pam_service "$svc" "session  required  $module system_dirs=$pout/trees/small/root/etc/environment.d:$pout/trees/small/root/usr/lib/environment.d" \
					"session  required  pam_exec.so $pam_tmp/record $pam_tmp/$v.rec"
			else
				pam_service "$svc" "session  required  pam_env.so readenv=0 user_readenv=1" \
					"session  required  pam_exec.so $pam_tmp/record $pam_tmp/$v.rec"
			fi
			env -i PATH="$base_path" "$pamtester" "$svc" "$u" open_session close_session \
				>"$pout/pamtester.$v.log" 2>&1 || die "pamtester $svc $u failed: $(cat "$pout/pamtester.$v.log")"
			cp "$pam_tmp/$v.rec" "$pout/small.pamtester-$v.nul"
			pam_check "pamtester-$v.small" small "$pout/small.pamtester-$v.nul"
		done
	fi

	# 3. instructions: one session per process, and per extra session in a process
	if command -v valgrind >/dev/null 2>&1; then
		for v in permit floor envd env; do
			for s in $pam_sizes; do
				[ "$v" != permit ] || [ "$s" = small ] || continue
				[ "$v" != floor ] || [ "$s" = small ] || continue
				[ "$v" != env ] || has_env "$s" || continue
				svc=$pam_tag-$v
				[ "$v" != envd ] || svc=$pam_tag-envd-$s
				u=$pam_tag${s:0:1}
				ir1[$v.$s]=$(pam_ir "$v.$s" "$svc" "$u" 1)
				# extra sessions: at most pam_sessions, about 3e9 Ir in all
				k=$((3000000000 / ir1[$v.$s]))
				[ "$k" -le "$pam_sessions" ] || k=$pam_sessions
				[ "$k" -ge 1 ] || k=1
				nsess[$v.$s]=$k
				irn[$v.$s]=$(pam_ir "$v.$s" "$svc" "$u" "$((k + 1))")
				sess[$v.$s]=$(((irn[$v.$s] - ir1[$v.$s]) / k))
			done
		done
	fi

	# system calls of one process
	if command -v strace >/dev/null 2>&1; then
		for v in permit envd env; do
			svc=$pam_tag-$v
			[ "$v" != envd ] || svc=$pam_tag-envd-small
			env -i PATH="$base_path" strace -f -c -o "$pout/strace.$v.small.txt" \
				"$driver" -n 1 "$svc" "${pam_tag}s" >/dev/null 2>&1 || die "strace $driver failed"
			nsys[$v]=$(awk '$NF == "total" { print $4 }' "$pout/strace.$v.small.txt")
		done
	fi

	# 4. wall time, in rounds that take turns between the stacks, so that a
	# load that comes and goes (a shared machine) hits them all alike:
	# pamtester processes (hyperfine) and transactions in one process.
	local round key pieces
	local -a combos=(permit.small floor.small)
	local -A hf_parts inproc_parts hf_runs hf_warm iters
	for s in $pam_sizes; do
		combos+=("envd.$s")
		if has_env "$s"; then combos+=("env.$s"); fi
		case $s in # fewer runs where one session costs a second or more
		large) hf_runs[$s]=3 hf_warm[$s]=1 iters[$s]=2 ;;
		medium) hf_runs[$s]=$runs hf_warm[$s]=$warmup iters[$s]=$(((pam_iter + 3) / 4)) ;;
		*) hf_runs[$s]=$runs hf_warm[$s]=$warmup iters[$s]=$pam_iter ;;
		esac
	done
	for round in $(seq "$pam_rounds"); do
		for key in "${combos[@]}"; do
			v=${key%%.*} s=${key#*.}
			svc=$pam_tag-$v
			[ "$v" != envd ] || svc=$pam_tag-envd-$s
			u=$pam_tag${s:0:1}
			if [ -n "$pamtester" ]; then
				runs=${hf_runs[$s]} warmup=${hf_warm[$s]} \
					time_json "$pout/$key.pamtester.$round.json" PATH="$base_path" -- \
					"$pamtester" "$svc" "$u" open_session close_session ||
					die "timing pamtester $svc failed"
				hf_parts[$key]+=" $pout/$key.pamtester.$round.json"
			fi
			inproc_parts[$key]+=" $(pam_inproc "$svc" "$u" "${iters[$s]}")"
		done
	done
	for key in "${combos[@]}"; do
		if [ -n "${hf_parts[$key]:-}" ]; then
			# shellcheck disable=SC2086 # a list of file names
			hf[$key]=$("$py" -c '
import json, statistics, sys
t = [x for f in sys.argv[1:] for x in json.load(open(f))["results"][0]["times"]]
print("%.9f" % statistics.median(t))' ${hf_parts[$key]})
		fi
		pieces=${inproc_parts[$key]}
		inproc[$key]=$(tr ' ' '\n' <<<"$pieces" | sed '/^$/d' | sort -n |
			awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
	done

	pam_report
	if [ ${#pam_warns[@]} -gt 0 ]; then
		say ""
		say "${pam_warns[@]}"
	fi
	pam_cleanup
	trap - EXIT INT TERM
}

# r2 A B: A/B with two decimals; verdict R: the target of the pam_envd ratio
r2() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.2f", a / b; else printf "-" }'; }
# the same with three decimals: verdicts are taken on these, so that 1.154
# does not pass as "1.15"
r3() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.3f", a / b; else printf "-" }'; }
verdict() {
	if [ "$1" = - ]; then
		echo "not measured"
	elif ge 1.05 "$1"; then
		echo "PASS (aim 1.05x met)"
	elif ge 1.15 "$1"; then
		echo "PASS (aim 1.05x not met)"
	else
		echo "MISS"
	fi
}
# over A F P: (A - F) / P with two decimals
over() { awk -v a="$1" -v f="$2" -v p="$3" 'BEGIN { if (a != "" && f != "" && p > 0) printf "%.3f", (a - f) / p; else printf "-" }'; }
# per_assign IR IR0 N: (IR - IR0) / N
per_assign() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { if (a != "" && b != "") printf "%.0f", (a - b) / n; else printf "-" }'; }
ms() { if [ -n "$1" ]; then fmt_ms "$1"; else printf -- -; fi; }
us() { if [ -n "$1" ]; then awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; else printf -- -; fi; }

pam_report() {
	local fmt s v name r_ip r_is r_hf r_in prev
	say "" "stack: /etc/pam.d/SERVICE made for the run (the session part of Debian's login), then the module under test:"
	say "$(printf '  %s\n' "${pam_stack[@]}")"
	say "  pam_permit: session required pam_permit.so" \
		"  pam_floor:  session required pam_floor.so vars=FILE (bench/pam_floor.c; FILE: envd show's result)" \
		"  pam_envd:   session required $module system_dirs=TREE/etc/environment.d:TREE/usr/lib/environment.d" \
		"              (a copy of $module_src)" \
		"              (and the user's ~/.config/environment.d, the default)" \
		"  pam_env:    session required pam_env.so readenv=0 user_readenv=1 (the tree as ~/.pam_environment," \
		"              one 'NAME DEFAULT=value' line per assignment, by bench/pam_envconf.py)" \
		"users: real, made with useradd for the run, home with the tree's user part; trees by gen_tree.py"
	say "" "output check: the PAM environment after open_session against bench/pam_envconf.py's own reading of the tree"
	for name in "${!chk[@]}"; do printf '%s\n' "$name"; done | sort -t. -k2,2 -k1,1 | while read -r name; do
		say "$(printf '  %-22s %-7s %s' "${name%.*}" "${name##*.}" "${chk[$name]}")"
	done
	say "  (envd = pam_envd stack, env = pam_env stack, through bench/pam_open; pamtester-* = pamtester with" \
		"   a pam_exec recorder stacked after the module; show = envd show --root TREE USER)"

	s=small
	say "" "typical config: the small tree, ${files[$s]} files, ${assign[$s]} assignments (${nvars[$s]} variables)" \
		"  Ir/process  valgrind --tool=callgrind, total Ir of one bench/pam_open process: pam_start," \
		"              pam_open_session, pam_close_session, pam_end (process start-up included)" \
		"  Ir/session  Ir added by each further transaction in the same process: (Ir(n=K+1) - Ir(n=1)) / K," \
		"              K = ${nsess[permit.small]:-$pam_sessions} (fewer on big trees, where one session costs more: see K below)" \
		"              (libpam loading the stack's modules, and their work)" \
		"  pamtester   median wall time of 'pamtester SERVICE USER open_session close_session' (hyperfine," \
		"              $pam_rounds rounds of >= $runs runs after $warmup warmup runs, the stacks taking turns)" \
		"  in-process  median wall time of one transaction in bench/pam_open -n $pam_iter (after $pam_warm" \
		"              untimed; fewer on big trees), the median of $pam_rounds rounds" \
		"  syscalls    system calls made by one bench/pam_open process (strace -f -c), which is where" \
		"              most of the wall time of a session goes on this machine" ""
	fmt="%-11s %11s %6s %11s %6s %13s %6s %14s %6s %9s"
	say "$(printf "$fmt" module Ir/process ratio Ir/session ratio "pamtester ms" ratio "in-process us" ratio syscalls)"
	for v in permit floor envd env; do
		say "$(printf "$fmt" "pam_$v" "${ir1[$v.$s]:--}" "$(r2 "${ir1[$v.$s]:-}" "${ir1[permit.$s]:-}")" \
			"${sess[$v.$s]:--}" "$(r2 "${sess[$v.$s]:-}" "${sess[permit.$s]:-}")" \
			"$(ms "${hf[$v.$s]:-}")" "$(r2 "${hf[$v.$s]:-}" "${hf[permit.$s]:-}")" \
			"$(us "${inproc[$v.$s]:-}")" "$(r2 "${inproc[$v.$s]:-}" "${inproc[permit.$s]:-}")" \
			"${nsys[$v]:--}")"
	done
	r_ip=$(r3 "${ir1[envd.$s]:-}" "${ir1[permit.$s]:-}")
	r_is=$(r3 "${sess[envd.$s]:-}" "${sess[permit.$s]:-}")
	r_hf=$(r3 "${hf[envd.$s]:-}" "${hf[permit.$s]:-}")
	r_in=$(r3 "${inproc[envd.$s]:-}" "${inproc[permit.$s]:-}")
	say "" "target: pam_envd stack / pam_permit stack <= 1.15x (aim 1.05x)" \
		"  instructions, one session per process:  ${r_ip}x  $(verdict "$r_ip")" \
		"  instructions, per session in a process: ${r_is}x  $(verdict "$r_is")" \
		"  wall time, pamtester:                   ${r_hf}x  $(verdict "$r_hf")" \
		"  wall time, per session in a process:    ${r_in}x  $(verdict "$r_in")" \
		"floor: bench/pam_floor.c in pam_envd's place, doing only what pam_envd cannot do without" \
		"  (pam_modutil_getpwnam, pam_getenvlist, pam_modutil_drop_priv/regain_priv, one pam_putenv" \
		"  per variable of the same result), against the pam_permit stack:" \
		"  instructions $(r2 "${ir1[floor.$s]:-}" "${ir1[permit.$s]:-}")x per process, $(r2 "${sess[floor.$s]:-}" "${sess[permit.$s]:-}")x per session;" \
		"  wall time $(r2 "${hf[floor.$s]:-}" "${hf[permit.$s]:-}")x pamtester, $(r2 "${inproc[floor.$s]:-}" "${inproc[permit.$s]:-}")x per session in a process" \
		"  pam_envd's own work (pam_envd stack - floor stack) / pam_permit stack: instructions" \
		"  $(over "${ir1[envd.$s]:-}" "${ir1[floor.$s]:-}" "${ir1[permit.$s]:-}")x per process, $(over "${sess[envd.$s]:-}" "${sess[floor.$s]:-}" "${sess[permit.$s]:-}")x per session" \
		"pam_env stack / pam_permit stack (about 1.7x expected):" \
		"  instructions $(r2 "${ir1[env.$s]:-}" "${ir1[permit.$s]:-}")x per process, $(r2 "${sess[env.$s]:-}" "${sess[permit.$s]:-}")x per session;" \
		"  wall time $(r2 "${hf[env.$s]:-}" "${hf[permit.$s]:-}")x pamtester, $(r2 "${inproc[env.$s]:-}" "${inproc[permit.$s]:-}")x per session in a process" \
		"pam_envd / pam_env: instructions $(r2 "${ir1[envd.$s]:-}" "${ir1[env.$s]:-}")x per process, $(r2 "${sess[envd.$s]:-}" "${sess[env.$s]:-}")x per session"

	say "" "growth with the tree: module Ir = Ir/session of the stack - Ir/session of the pam_permit stack" ""
	fmt="%-7s %6s %7s %6s %-7s %3s %12s %12s %9s %13s %12s %9s"
	say "$(printf "$fmt" size files assign vars output K "envd Ir/sess" "module Ir" Ir/assign "pam_env Ir/s" "module Ir" Ir/assign)"
	for s in $pam_sizes; do
		say "$(printf "$fmt" "$s" "${files[$s]}" "${assign[$s]}" "${nvars[$s]}" "${chk[envd.$s]%% *}" \
			"${nsess[envd.$s]:--}" "${sess[envd.$s]:--}" "$(per_assign "${sess[envd.$s]:-}" "${sess[permit.small]:-}" 1)" \
			"$(per_assign "${sess[envd.$s]:-}" "${sess[permit.small]:-}" "${assign[$s]}")" \
			"${sess[env.$s]:--}" "$(per_assign "${sess[env.$s]:-}" "${sess[permit.small]:-}" 1)" \
			"$(per_assign "${sess[env.$s]:-}" "${sess[permit.small]:-}" "${assign[$s]}")")"
	done
	for s in $pam_sizes; do
		has_env "$s" || say "(pam_env not run on the $s tree: BENCH_PAM_ENV_SIZES=\"$env_sizes\")"
	done
	say "" "wall time by size (ms; pamtester median, and one transaction in a process)" ""
	fmt="%-7s %7s %14s %14s %14s %14s"
	say "$(printf "$fmt" size assign "envd pamtester" "envd in-proc" "env pamtester" "env in-proc")"
	say "$(printf "$fmt" "(permit" - "$(ms "${hf[permit.small]:-}")" \
		"$(awk -v n="${inproc[permit.small]:-}" 'BEGIN { if (n != "") printf "%.3f", n / 1e6; else printf "-" }'))" - -)"
	for s in $pam_sizes; do
		say "$(printf "$fmt" "$s" "${assign[$s]}" "$(ms "${hf[envd.$s]:-}")" \
			"$(awk -v n="${inproc[envd.$s]:-}" 'BEGIN { if (n != "") printf "%.3f", n / 1e6; else printf "-" }')" \
			"$(ms "${hf[env.$s]:-}")" \
			"$(awk -v n="${inproc[env.$s]:-}" 'BEGIN { if (n != "") printf "%.3f", n / 1e6; else printf "-" }')")"
	done

	say "" "growth per step of pam_envd's module Ir; target: linear (at most 1.1x as fast as the assignments)" ""
	fmt="%-16s %8s %12s %9s  %s"
	say "$(printf "$fmt" step assign "module Ir" limit status)"
	prev=
	for s in $pam_sizes; do
		if [ -n "$prev" ] && [ -n "${sess[envd.$s]:-}" ]; then
			local ra rm lim st
			ra=$(ratio "${assign[$s]}" "${assign[$prev]}")
			rm=$(awk -v a="${sess[envd.$s]}" -v b="${sess[envd.$prev]}" -v e="${sess[permit.small]}" \
				'BEGIN { printf "%.2f", (a - e) / (b - e) }')
			lim=$(awk -v a="${assign[$s]}" -v b="${assign[$prev]}" 'BEGIN { printf "%.2f", 1.1 * a / b }')
			if ge "$lim" "$rm"; then st=PASS; else st=MISS; fi
			say "$(printf "$fmt" "$prev -> $s" "x$ra" "x$rm" "x$lim" "$st")"
		fi
		prev=$s
	done
	say "" "where pam_envd's instructions go: callgrind_annotate --inclusive=yes on the one-session processes" \
		"(callgrind.envd.SIZE.n1.out): module = pam_envd's pam_sm_open_session; engine = envd_load (the" \
		"privilege drop included); initgroups (libc, from pam_modutil_drop_priv) and pam_putenv (libpam):" \
		"all calls in the process, which in these stacks come from pam_envd alone" ""
	fmt="%-7s %7s %13s %13s %11s %13s %8s"
	say "$(printf "$fmt" size assign module engine initgroups pam_putenv putenv%)"
	for s in $pam_sizes; do
		local f=$pout/callgrind.envd.$s.n1.out tot eng ig pe
		[ -s "$f" ] || continue
		tot=$(cg_fn "$f" 'pam_envd[.]c:pam_sm_open_session( |$)')
		eng=$(cg_fn "$f" ':envd_load( |$)')
		ig=$(cg_fn "$f" ':initgroups( |$)')
		pe=$(cg_fn "$f" ':pam_putenv( |$)')
		say "$(printf "$fmt" "$s" "${assign[$s]}" "$tot" "$eng" "$ig" "$pe" \
			"$(awk -v a="$pe" -v b="$tot" 'BEGIN { if (b > 0 && a != "-") printf "%.1f%%", 100 * a / b; else printf "-" }')")"
		own[$s]=$(awk -v t="$tot" -v p="$pe" 'BEGIN { if (t != "-" && p != "-") printf "%.0f", t - p; else print "" }')
	done
	say "" "growth of pam_envd's own work: module - pam_putenv (libpam's pam_putenv searches the whole" \
		"PAM environment on every call, so n variables cost n^2/2 comparisons there; Linux-PAM has no" \
		"call that sets many at once); target: linear (at most 1.1x as fast as the assignments)" ""
	fmt="%-16s %8s %14s %9s  %s"
	say "$(printf "$fmt" step assign "module-putenv" limit status)"
	prev=
	for s in $pam_sizes; do
		if [ -n "$prev" ] && [ -n "${own[$s]:-}" ] && [ -n "${own[$prev]:-}" ]; then
			local ra ro lim st
			ra=$(ratio "${assign[$s]}" "${assign[$prev]}")
			ro=$(awk -v a="${own[$s]}" -v b="${own[$prev]}" 'BEGIN { printf "%.2f", a / b }')
			lim=$(awk -v a="${assign[$s]}" -v b="${assign[$prev]}" 'BEGIN { printf "%.2f", 1.1 * a / b }')
			if ge "$lim" "$ro"; then st=PASS; else st=MISS; fi
			say "$(printf "$fmt" "$prev -> $s" "x$ra" "x$ro" "x$lim" "$st")"
		fi
		prev=$s
	done

	say "" "raw data: $pout (PAM environments *.nul, callgrind.*.out, pamtester JSON, the translated .pam_environment)"
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
