#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tools/sweep/run.sh [--check] [-o FILE] - which environment variables the
# programs a login helper plausibly runs as root look up: the sweep behind
# the name policy's review (issue 24).  Writes tools/sweep/names.tsv (or
# FILE); with --check, sweeps into a scratch file instead and fails when
# its names or methods differ from the committed file's (the diff is
# printed).  Root only: the programs are root's, run as root.
#
# Every line of tools/sweep/commands runs in a scratch directory, as root,
# with a scratch HOME and TMPDIR, under four recorders; a name's METHODS
# say which found it:
#   getenv   recorder.c (LD_PRELOAD): the program, or a library in it,
#            called getenv or secure_getenv with the name
#   environ  hooks/sitecustomize.py and hooks/envd_sweep.rb: Python code
#            looked it up in os.environ, Ruby code in ENV (interpreters copy
#            environ at start and look names up themselves)
#   source   a literal lookup ($ENV{X}, os.environ.get("X"), ENV["X"]) in a
#            Python, Perl or Ruby file the programs loaded (hooks/ log them)
#   strings  the interpreter's own names in its library's strings (PYTHON*,
#            PERL*, RUBY* but its constants, node's process.env.X)
#   man      a name the ENVIRONMENT section of a swept program's manual
#            page (or environ(7), openssl-env(7)) describes
# glibc's internal lookups (LD_*, TZ, LOCPATH...) bypass the recorder.
#
# tests/docs/policy_sweep.sh checks the committed names.tsv against the
# policy (lib/policy.c) and tools/sweep/reviewed.tsv in `make check`; it
# does not sweep.  After a change to commands, or on a newer system:
# run this, then review each name the test reports.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$here/names.tsv
check=no
usage() { sed -n '4,9{s/^# \{0,1\}//p}' "$0" >&2; }
while [ $# -gt 0 ]; do
	case $1 in
	--check) check=yes ;;
	-o) [ $# -ge 2 ] || { usage; exit 2; }; out=$2; shift ;;
	*) usage; exit 2 ;;
	esac
	shift
done
die() { echo "sweep: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root: the sweep runs root's tools as root"
for c in "${CC:-cc}" strings man col timeout; do
	command -v "$c" >/dev/null 2>&1 || die "$c is not installed"
done

S=$(mktemp -d /tmp/envd-sweep.XXXXXX)
trap 'rm -rf "$S"' EXIT
mkdir -p "$S/home" "$S/cwd" "$S/tmp" "$S/hooks"
"${CC:-cc}" -O2 -Wall -shared -fPIC -o "$S/recorder.so" "$here/recorder.c"
cp "$here"/hooks/* "$S/hooks/"
LOG=$S/log
: >"$LOG"

# the scratch directory the command lines work in
(
	cd "$S/cwd"
	printf 'b 1\na 2\nc 3\n' >f.txt
	mkdir -p d pkg/DEBIAN
	printf 'Package: envd-sweep\nVersion: 1\nArchitecture: all\nMaintainer: x <x@x>\nDescription: x\n' \
		>pkg/DEBIAN/control
	git init -q repo
	git -C repo -c user.name=x -c user.email=x@x commit -q --allow-empty -m x
)

# --- run the command lines under the recorders ------------------------
env_base=(PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$S/home" LANG=C.UTF-8 TERM=dumb
	TMPDIR="$S/tmp" ENVD_SWEEP_LOG="$LOG" LD_PRELOAD="$S/recorder.so"
	PYTHONPATH="$S/hooks" PERL5LIB="$S/hooks" PERL5OPT=-MEnvdSweep
	RUBYOPT="-r$S/hooks/envd_sweep.rb")
ran=0
skipped=()
words=()
while IFS= read -r line; do
	case $line in '' | '#'*) continue ;; esac
	# the command word: after any NAME=value words
	read -ra w <<<"$line"
	i=0
	while [[ ${w[i]} == [A-Za-z_]*=* ]]; do i=$((i + 1)); done
	cmd=${w[i]}
	if ! command -v "$cmd" >/dev/null 2>&1; then
		skipped+=("$cmd")
		continue
	fi
	words+=("${cmd##*/}")
	(cd "$S/cwd" && timeout -k 5 30 env -i "${env_base[@]}" bash -c "$line") \
		</dev/null >>"$S/output" 2>&1 || true
	ran=$((ran + 1))
done <"$here/commands"

# --- what each method found: lines NAME<TAB>METHOD<TAB>WHERE ----------
R=$S/records
awk -F'\t' '$1 == "getenv" || $1 == "environ" { print $2 "\t" $1 "\t" $3 }' "$LOG" >"$R"

# source: literal lookups in the files the interpreters loaded
tail_of() { awk -F/ '{ print (NF > 1 ? $(NF - 1) "/" : "") $NF }' <<<"$1"; }
awk -F'\t' '$1 == "load" { print $2 "\t" $3 }' "$LOG" | LC_ALL=C sort -u |
	while IFS=$'\t' read -r lang file; do
		case $file in /*) ;; *) continue ;; esac
		[ -f "$file" ] || continue
		case $lang in
		python3)
			grep -oE "(environb?(\.get)?[[(]|getenvb?\()[[:space:]]*b?['\"][A-Za-z_][A-Za-z0-9_]*['\"]|['\"][A-Za-z_][A-Za-z0-9_]*['\"][[:space:]]+(not[[:space:]]+)?in[[:space:]]+(os\.)?environ" \
				"$file" | grep -oE "['\"][A-Za-z_][A-Za-z0-9_]*['\"]" | tr -d "'\"" || true
			;;
		perl)
			grep -oE "\\\$ENV\{[[:space:]]*['\"]?[A-Za-z_][A-Za-z0-9_]*['\"]?[[:space:]]*\}" "$file" |
				sed -E "s/^\\\$ENV\{[[:space:]]*['\"]?//; s/['\"]?[[:space:]]*\}$//" || true
			;;
		ruby)
			grep -oE "ENV(\[|\.(fetch|key\?|has_key\?|include\?|member\?)\()[[:space:]]*['\"][A-Za-z_][A-Za-z0-9_]*['\"]" \
				"$file" | grep -oE "['\"][A-Za-z_][A-Za-z0-9_]*['\"]" | tr -d "'\"" || true
			;;
		esac | LC_ALL=C sort -u | awk -v w="$lang:$(tail_of "$file")" '{ print $0 "\tsource\t" w }'
	done >>"$R"

# strings: an interpreter's own names in its library
lib_of() { ldd "$1" 2>/dev/null | awk -v l="$2" 'index($1, l) == 1 { print $3 }'; }
strings_of() { # FILE REGEX
	[ -n "$1" ] && [ -f "$1" ] || return 0
	strings -n 5 "$1" | grep -E "$2" | LC_ALL=C sort -u |
		awk -v w="strings:${1##*/}" '{ print $0 "\tstrings\t" w }'
}
if py=$(readlink -f /usr/bin/python3 2>/dev/null) && [ -x "$py" ]; then
	strings_of "$py" '^PYTHON[A-Z0-9_]+$'
	strings_of "$(lib_of "$py" libpython)" '^PYTHON[A-Z0-9_]+$'
fi >>"$R"
if command -v perl >/dev/null; then
	strings_of "$(lib_of "$(command -v perl)" libperl)" '^PERL[A-Z0-9_]+$' >>"$R"
fi
if command -v ruby >/dev/null; then
	# its constants (RUBY_VERSION...) and TracePoint's event names are
	# strings of the library too, and no variables
	consts=$(ruby --disable-gems -e 'puts Object.constants.grep(/\ARUBY/)' 2>/dev/null || true)
	strings_of "$(lib_of "$(readlink -f "$(command -v ruby)")" libruby)" '^RUBY[A-Z0-9_]+$' |
		awk -F'\t' -v c="$consts" 'BEGIN { n = split(c, a, "\n"); for (i = 1; i <= n; i++) k[a[i]] }
			!($1 in k) && $1 !~ /^RUBY_EVENT_/' >>"$R"
fi
if command -v node >/dev/null; then
	node=$(readlink -f "$(command -v node)")
	strings -n 8 "$node" | grep -oE 'process\.env\.[A-Za-z_][A-Za-z0-9_]*' |
		sed 's/^process\.env\.//' | LC_ALL=C sort -u |
		awk -v w="strings:${node##*/}" '{ print $0 "\tstrings\t" w }' >>"$R"
fi

# man: the ENVIRONMENT sections of the swept programs' pages; a name is a
# tag (the first word of a line indented as a tag, "$NAME" or "NAME=..."
# alike), never a word of the prose
pages=$( {
	printf '%s\n' "${words[@]}"
	awk -F'\t' '$1 == "getenv" { print $3 }' "$LOG"
	printf '%s\n' environ openssl-env python3 perl ruby node
} | LC_ALL=C sort -u)
for p in $pages; do
	f=$(man -w "$p" 2>/dev/null | head -n 1) || continue
	[ -n "$f" ] || continue
	b=${f##*/}
	b=${b%.gz}
	MANWIDTH=250 man -P cat "$p" 2>/dev/null | col -bx |
		awk -v w="man:${b%.*}(${b##*.})" '
			/^[^ ]/ { on = ($0 ~ /^ENVIRONMENT/); next }
			on && match($0, /^ +\$?[A-Za-z_][A-Za-z0-9_]*/) {
				tok = substr($0, RSTART, RLENGTH)
				rest = substr($0, RSTART + RLENGTH)
				ind = tok
				sub(/[^ ].*/, "", ind)
				if (length(ind) < 3 || length(ind) > 8) next
				gsub(/[ $]/, "", tok)
				if (rest !~ /^($|[ =,[])/ || length(tok) < 2) next
				if (tok !~ /_/ && tok !~ /^[A-Z0-9]+$/) next
				print tok "\tman\t" w
			}'
done | LC_ALL=C sort -u >>"$R"

# --- one line per name -------------------------------------------------
versions=$(dpkg-query -W -f '${Package} ${Version}\n' apt dpkg util-linux mount coreutils systemd \
	libc6 python3.11 perl ruby3.1 nodejs curl wget git openssh-client gnupg openssl tar rsync \
	dbus-bin libglib2.0-bin e2fsprogs procps debconf 2>/dev/null | paste -sd, - | sed 's/,/, /g')
tmp=$S/names.tsv
{
	echo '# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later'
	echo '# SPDX-FileCopyrightText: 2026 The pam_envd authors'
	echo '# tools/sweep/names.tsv - written by tools/sweep/run.sh, do not edit: the'
	echo '# names the programs of tools/sweep/commands look up, one a line: NAME,'
	echo '# METHODS (getenv, environ, source, strings, man: run.sh says what each'
	echo '# is), WHERE (the programs, modules, libraries or pages, the first six).'
	echo '# tests/docs/policy_sweep.sh holds each to lib/policy.c or reviewed.tsv.'
	echo "# Swept on $(. /etc/os-release && echo "$PRETTY_NAME") ($(cat /etc/debian_version 2>/dev/null || echo '?')), $(uname -m):"
	fold -s -w 74 <<<"$ran command lines run, ${#skipped[@]} skipped${skipped[*]:+ (not installed: ${skipped[*]})}. Versions: $versions" |
		sed 's/ *$//; s/^/# /'
	grep -E $'^[A-Za-z_][A-Za-z0-9_]*\t' "$R" | grep -v $'^ENVD_SWEEP_LOG\t' |
		LC_ALL=C sort -t $'\t' -k1,1 -k2,2 -k3,3 -u |
		awk -F'\t' '
			function flush(  m, i, w) {
				if (name == "") return
				m = ""
				for (i = 1; i <= 5; i++) if ((name SUBSEP order[i]) in has) m = m (m ? "," : "") order[i]
				w = ""
				for (i = 1; i <= nw && i <= 6; i++) w = w (w ? "," : "") where[i]
				if (nw > 6) w = w ",+" (nw - 6)
				print name "\t" m "\t" w
			}
			BEGIN { split("getenv environ source strings man", order, " ") }
			$1 != name { flush(); name = $1; nw = 0; delete seen }
			{
				has[$1 SUBSEP $2] = 1
				if (!($3 in seen)) { seen[$3] = 1; where[++nw] = $3 }
			}
			END { flush() }'
} >"$tmp"

n=$(grep -vc '^#' "$tmp")
if [ "$check" = yes ]; then
	if diff -u <(grep -v '^#' "$out" | cut -f1,2) <(grep -v '^#' "$tmp" | cut -f1,2) >"$S/diff"; then
		echo "sweep: $out agrees with this system's sweep ($n names)" >&2
		exit 0
	fi
	echo "sweep: $out differs from this system's sweep ($n names; -committed +swept):" >&2
	cat "$S/diff" >&2
	exit 1
fi
cp "$tmp" "$out"
echo "sweep: $n names from $ran command lines in $out" >&2
