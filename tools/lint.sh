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
#   deps       every command the shell of tests/, tools/ and ./dev declares
#              (need_cmds, have_cmds, stage_needs, lint_needs) or probes
#              (command -v, type -P), by name or by a for loop over names,
#              is in tools/deps.list, whose lines are well formed and whose
#              packages DEVELOPING.md's Debian row names; and the check itself
#              finds what a scratch tree's list lacks
# Default: all seven.  The analyzers build in DIR/lint-fanalyzer and
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
all_checks=(format cppcheck fanalyzer scan-build hooks reuse deps)
[ ${#checks[@]} -gt 0 ] || checks=("${all_checks[@]}")
jobs=$(nproc 2>/dev/null || echo 2)
mkdir -p "$out"

# the C sources of the tree, wherever they are (new directories included)
c_sources() {
	(cd "$top" && find . \( -path ./_build -o -path ./autom4te.cache -o -path ./.git \) -prune \
		-o -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort)
}

# shellcheck source=tests/lib/harness.sh
. "$top/tests/lib/harness.sh" # deps_why: the package of a missing command

lint_needs() { # CMD...: installed; else says so, with the Debian packages
	local why
	why=$(deps_why "$@") && return 0
	echo "$why"
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
	lint_needs clang-format || return 1
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
	lint_needs cppcheck || return 1
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
	lint_needs gcc || return 1
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
	lint_needs scan-build || return 1
	# configured through scan-build, so that CC is its compiler wrapper;
	# cleaned first, since only what is compiled is analyzed
	configured lint-scan scan-build || return 1
	make -C "$out/lint-scan" -s clean || return 1
	rm -rf "$out/lint-scan/report"
	scan-build --status-bugs -o "$out/lint-scan/report" make -C "$out/lint-scan" -s -j"$jobs"
}

check_reuse() {
	lint_needs reuse || return 1
	# the files of git ls-files (reuse skips what .gitignore ignores)
	reuse --root "$top" lint
}

# ---- deps ---------------------------------------------------------------------------
# deps_declared ROOT: "FILE:LINE NAME" for each command named in a
# declaration or a probe of the shell of ROOT's tests/ and tools/ and its
# dev (tools/deps.sh left out: its probes for sudo and apt-get are the
# installer's own).  A name written out counts, and so does the variable
# of a for loop over names written out ("for c in a b; do have_cmds "$c"");
# other variables cannot be read, which is why the tests write names out.
deps_declared() {
	(
		cd "$1" || exit 1
		{ find tests tools -type f -name '*.sh' ! -path tools/deps.sh; [ ! -f dev ] || echo dev; } |
			sort | xargs -r awk '
			# the name in w, quotes removed; "" when it is not one
			function name(w) {
				gsub(/^["\047]|["\047]$/, "", w)
				return w ~ /^[A-Za-z0-9_][A-Za-z0-9_.+-]*$/ ? w : ""
			}
			# the names of the arguments in s (up to ; | & ) # }), or
			# only the first; a loop variable gives the loop words
			function args(s, first, n, a, i, v, m, b, j) {
				sub(/[;|&)#}].*/, "", s)
				n = split(s, a, /[ \t]+/)
				for (i = 1; i <= n; i++) {
					if (a[i] == "") continue
					v = a[i]
					if (v ~ /^"?\$\{?[A-Za-z_][A-Za-z0-9_]*\}?"?$/) {
						gsub(/[^A-Za-z0-9_]/, "", v)
						if (v in loop) {
							m = split(loop[v], b, " ")
							for (j = 1; j <= m; j++) print FILENAME ":" FNR " " b[j]
						}
					} else if ((v = name(v)) != "") print FILENAME ":" FNR " " v
					if (first) return
				}
			}
			FNR == 1 { split("", loop) }
			/^[ \t]*#/ { next }
			{
				line = $0
				if (match(line, /(^|[^A-Za-z0-9_])for[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]+in[ \t]/)) {
					rest = substr(line, RSTART + RLENGTH)
					v = substr(line, RSTART, RLENGTH)
					sub(/^.*for[ \t]+/, "", v); sub(/[ \t].*/, "", v)
					sub(/;.*/, "", rest)
					n = split(rest, a, /[ \t]+/); loop[v] = ""
					for (i = 1; i <= n; i++) if ((w = name(a[i])) != "") loop[v] = loop[v] " " w
				}
				if (match(line, /(^|[^A-Za-z0-9_])(need_cmds|have_cmds|stage_needs|lint_needs)[ \t]+/))
					args(substr(line, RSTART + RLENGTH), 0)
				while (match(line, /(^|[^A-Za-z0-9_])(command[ \t]+-v|type[ \t]+-P)[ \t]+/)) {
					line = substr(line, RSTART + RLENGTH)
					args(line, 1)
				}
			}'
	)
}

# deps_findings ROOT: what ROOT's tools/deps.list lacks or gets wrong,
# one line each (nothing: clean)
deps_findings() {
	local root=$1 list=$1/tools/deps.list
	[ -f "$list" ] || { echo "$list: error: missing"; return; }
	awk '!/^[ \t]*(#|$)/ {
		if (NF < 3 || NF > 4 || $1 !~ /^(cmd|pc|file)$/ || (NF == 4 && $4 !~ /^(dm|demo)$/))
			print FILENAME ":" FNR ": error: not KIND NAME PACKAGE [TAG] (KIND: cmd, pc, file; TAG: demo, dm)"
		else if (seen[$1 " " $2]++) print FILENAME ":" FNR ": error: " $1 " " $2 " listed twice"
	}' "$list"
	deps_declared "$root" | awk -v list="$list" '
		BEGIN { while ((getline l < list) > 0) { split(l, f, /[ \t]+/); if (f[1] == "cmd") have[f[2]] = 1 } }
		!($2 in have) { print $1 ": error: " $2 " is not in tools/deps.list (add: cmd " $2 " DEBIAN-PACKAGE)" }'
	[ -f "$root/DEVELOPING.md" ] || return 0
	awk '!/^[ \t]*(#|$)/ { print $3 }' "$list" | sort -u | while read -r p; do
		grep -E '^\| Debian, Ubuntu \|' "$root/DEVELOPING.md" | grep -qw -- "$p" ||
			echo "DEVELOPING.md: error: the Debian, Ubuntu row lacks $p (tools/deps.list)"
	done
}

check_deps() {
	local rc=0 t f c missed=
	f=$(deps_findings "$top")
	[ -z "$f" ] || { echo "$f"; rc=1; }
	# the check itself: a scratch tree whose list lacks pacman, with the
	# real makepkg.sh and a test that needs commands no list has, by name
	# and through a loop; each must be a finding
	t=$out/lint-deps-scratch
	rm -rf "$t"
	mkdir -p "$t/tools" "$t/tests/pkg" "$t/tests/x"
	grep -vE '^cmd[[:space:]]+pacman[[:space:]]' "$top/tools/deps.list" >"$t/tools/deps.list"
	cp "$top/tests/pkg/makepkg.sh" "$t/tests/pkg/"
	# (written with NEED, HAVE and PROBE, so that this file's scan does
	# not read them)
	printf '%s\n' '. tests/lib/harness.sh' 'NEED sh envd-lint-named' \
		'for c in bash envd-lint-looped; do' '	HAVE "$c" || exit 77' 'done' \
		'PROBE envd-lint-probed >/dev/null || exit 77' |
		sed 's/NEED/need_cmds/; s/HAVE/have_cmds/; s/PROBE/command -v/' >"$t/tests/x/run.sh"
	f=$(deps_findings "$t")
	for c in pacman envd-lint-named envd-lint-looped envd-lint-probed; do
		grep -q " $c is not in" <<<"$f" || missed="$missed $c"
	done
	if [ -n "$missed" ] || grep -qE ' (sh|bash) is not in' <<<"$f"; then
		echo "lint deps: error: on a scratch tree the check missed:${missed:- nothing}; found:"
		echo "$f"
		rc=1
	fi
	rm -rf "$t"
	return "$rc"
}

rc=0
for c in "${checks[@]}"; do
	case " ${all_checks[*]} " in
	*" $c "*) ;;
	*)
		echo "lint: unknown check $c (${all_checks[*]})" >&2
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
