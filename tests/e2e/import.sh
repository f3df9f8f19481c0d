#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# import.sh - envd import-pam-environment.
#
# 1. Every fixture (tests/e2e/pam_environment/*.pam_environment, and a few made here with
#    printf: NUL bytes, over-long and unfinished lines) translates to its
#    tests/e2e/pam_environment/*.expected.  IMPORT_REGEN=1 rewrites those files instead.
# 2. The command's errors: missing file, directory, FIFO, too big, usage.
# 3. As root: pam_env (user_readenv=1, the distribution's pam_env.so) on each
#    fixture as ~/.pam_environment, and pam_envd.so on its translation in
#    ~/.config/environment.d, through the same pamtester stack with a
#    pam_exec helper recording the environment, under three login
#    environments, and the same for files from gen_random.py.  The two
#    environments must be equal, except for the variables of lines the
#    translation marks "inexact" or "not translated" (for the fixtures,
#    exactly the differences listed with their values in
#    differences.expected); pam_env must fail exactly where the translation
#    says it stops reading.  Without root this part is skipped (exit 77).
set -u
export LC_ALL=C # byte-wise: fixtures hold invalid UTF-8 and control bytes

dir=${top_srcdir:-$(dirname "$0")/../..}/tests/e2e/pam_environment
ENVD=${ENVD:-${top_builddir:-.}/src/envd}
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/harness.sh"
harness_init import.sh colon
make_tmpdir gen envd-import /tmp
me=$(id -un)

# gen_fixtures DIR: makes the fixtures that hold bytes a text file in git
# would not hold well, and sets fixtures to all of them
gen_fixtures() {
	local g=$1 long nnn f
	long=$(printf '%08190d' 0)
	printf 'A DEFAULT=1\nB DEFAULT=a\0b\nC DEFAULT=3\n' >"$g/gen-nul.pam_environment"
	printf 'A DEFAULT=1\nB DEFAULT=a\0b' >"$g/gen-nul-last.pam_environment"
	printf 'A DEFAULT=1\nL DEFAULT=%s\nC DEFAULT=3\n' "$long" >"$g/gen-long.pam_environment"
	printf 'A DEFAULT=%s\nB DEFAULT=2\n' "${long:0:8000}" >"$g/gen-fits.pam_environment"
	printf 'A DEFAULT=x\\\n%s\\\n%s\nB DEFAULT=2\n' "${long:0:4000}" "${long:0:4200}" \
		>"$g/gen-long-continued.pam_environment"
	printf 'A DEFAULT=1\nB DEFAULT=2\\\n\n# c\n' >"$g/gen-continued-eof.pam_environment"
	printf 'A DEFAULT=1\nB DEFAULT=2' >"$g/gen-no-eol.pam_environment"
	printf '\\\nA DEFAULT=1\n' >"$g/gen-lone-backslash.pam_environment"
	# control characters in values and comments: an escape sequence, a
	# BEL, a C1 CSI (U+009B), DEL; a tab is kept
	printf 'A DEFAULT=x\033[31mred\n# title \033]0;owned\007 and \302\233 here\nB DEFAULT="\302\233x"\nC=y\177z\nD DEFAULT="a\tb"\nE DEFAULT=plain\n' \
		>"$g/gen-controls.pam_environment"
	# a note longer than its buffer still ends its line
	nnn=${long//0/N}
	printf "%s OVERRIDE=\${X}\nB DEFAULT=2\n" "${nnn:0:700}" >"$g/gen-long-name.pam_environment"
	# the source tree's fixtures, copied 0644: a tree unpacked with umask
	# 002 (user-private groups) has them group-writable, which envd refuses
	fixtures=()
	for f in "$dir"/*.pam_environment; do
		install -m 644 "$f" "$g/"
		fixtures+=("$g/${f##*/}")
	done
	for f in "$g"/gen-*.pam_environment; do
		fixtures+=("$f")
	done
}
gen_fixtures "$gen"

# --- 1. the translations --------------------------------------------------------
translate() { # FIXTURE: the translation, made from the fixture's directory
	(cd "$(dirname "$1")" && "$ENVD" -q import-pam-environment --as="$me" "$(basename "$1")")
}

for f in "${fixtures[@]}"; do
	name=$(basename "$f" .pam_environment)
	exp=$dir/$name.expected
	translate "$f" >"$gen/$name.conf"
	if [ "${IMPORT_REGEN:-}" = 1 ]; then
		cp "$gen/$name.conf" "$exp"
	fi
	if cmp -s "$gen/$name.conf" "$exp"; then
		pass "$name: translation as expected"
	else
		fail "$name: translation differs from $name.expected"
		diff -u "$exp" "$gen/$name.conf" | head -n 40
	fi
	# no comment line ends in a backslash: systemd before 254 (Debian
	# 12's 252) would continue it over the next line and lose that line
	if grep -n '^[[:blank:]]*[#;].*\\$' "$gen/$name.conf" >"$gen/bsl"; then
		fail "$name: a comment line ends in a backslash" "$(head -n 3 "$gen/bsl")"
	else
		pass "$name: no comment line ends in a backslash"
	fi
	# no control character reaches the terminal raw: C0 but the newline
	# and the tab, DEL, C1 (U+0080..U+009F in UTF-8)
	if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$gen/$name.conf"; then
		fail "$name: a raw control character in the translation" \
			"$(LC_ALL=C grep -naP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$gen/$name.conf" | cat -v | head -n 3)"
	else
		pass "$name: no raw control character in the translation"
	fi
done

# --- 2. the command's errors --------------------------------------------------
expect_status() { # DESC RC CMD...
	local d=$1 want=$2 rc=0
	shift 2
	"$@" >"$gen/out" 2>"$gen/err" || rc=$?
	if [ "$rc" = "$want" ]; then pass "$d (exit $rc)"; else fail "$d: exit $rc, wanted $want"; fi
}
expect_status "a missing file" 3 "$ENVD" import-pam-environment --as="$me" "$gen/none"
if [ "$(cat "$gen/err")" = "envd: $gen/none: does not exist: nothing to import" ]; then
	pass "a missing file: said so (not as a dangling link)"
else
	fail "a missing file: $(cat "$gen/err")"
fi
ln -s "$gen/none" "$gen/dangling"
expect_status "a dangling link" 3 "$ENVD" import-pam-environment --as="$me" "$gen/dangling"
if [ "$(cat "$gen/err")" = "envd: $gen/dangling: not a regular file (dangling symbolic link)" ]; then
	pass "a dangling link: said so"
else
	fail "a dangling link: $(cat "$gen/err")"
fi
expect_status "a directory" 3 "$ENVD" import-pam-environment --as="$me" "$gen"
if grep -q "not a regular file" "$gen/err"; then
	pass "a directory: said so"
else
	fail "a directory: $(cat "$gen/err")"
fi
mkfifo "$gen/fifo"
expect_status "a FIFO, without hanging" 3 timeout 10 "$ENVD" import-pam-environment --as="$me" "$gen/fifo"
head -c $((1024 * 1024 + 1)) /dev/zero | tr '\0' '#' >"$gen/big"
expect_status "a file over 1 MiB" 3 "$ENVD" import-pam-environment --as="$me" "$gen/big"
expect_status "two operands" 2 "$ENVD" import-pam-environment a b
expect_status "standard input" 0 "$ENVD" -q import-pam-environment - <"$dir/locale.pam_environment"
if diff <(tail -n +2 "$gen/out") <(tail -n +2 "$gen/locale.conf") >/dev/null; then
	pass "standard input: the same translation"
else
	fail "standard input: another translation"
fi
expect_status "a summary on stderr" 0 "$ENVD" import-pam-environment --as="$me" "$gen/quirks.pam_environment"
if grep -q 'not translated' "$gen/err"; then
	pass "the summary names the lines"
else
	fail "no summary: $(cat "$gen/err")"
fi

# --- 2b. what import writes passes envd check ----------------------------------
# A name pam_envd refuses (PYTHONPATH, TMPDIR) and an inexact line whose
# variable is not set where the file is read are written commented out,
# with why and the fix: envd check on the translation finds nothing.
mkdir -p "$gen/chk/u" "$gen/chk/r/etc/environment.d" "$gen/chk/pam"
printf '%s\n' 'session optional pam_envd.so cleanup' 'session optional pam_envd.so' \
	>"$gen/chk/pam/login"
cat >"$gen/chk/pam_environment" <<'PAMENV'
PATH DEFAULT=${HOME}/bin:${PATH}
PYTHONPATH DEFAULT=@{HOME}/lib/python
TMPDIR DEFAULT=/tmp/mine
EDITOR DEFAULT=vim
TERM OVERRIDE=${TERM}
PAMENV
"$ENVD" -q import-pam-environment - <"$gen/chk/pam_environment" >"$gen/chk/u/99-pam-environment.conf"
chmod 644 "$gen/chk/u/99-pam-environment.conf"
chk_rc=0
"$ENVD" --pam-dir="$gen/chk/pam" --root="$gen/chk/r" --user-dir="$gen/chk/u" check \
	>"$gen/chk/out" 2>&1 || chk_rc=$?
if [ "$chk_rc" = 0 ] && [ ! -s "$gen/chk/out" ]; then
	pass "envd check on import's output: nothing to say"
else
	fail "envd check on import's output: exit $chk_rc" "$(cat "$gen/chk/out")"
fi
# shellcheck disable=SC2016 # the lines as written, ${...} included
for want in '# PYTHONPATH=${HOME}/lib/python' '# TMPDIR=/tmp/mine' '# TERM=${TERM}' \
	'PATH=${HOME}/bin:${PATH}' 'EDITOR=vim'; do
	if grep -qxF -- "$want" "$gen/chk/u/99-pam-environment.conf"; then
		pass "import writes: $want"
	else
		fail "import does not write: $want" "$(cat "$gen/chk/u/99-pam-environment.conf")"
	fi
done
if grep -q '^# envd: not translated: pam_envd refuses PYTHONPATH in user files (.*), so the line is left out; fix: .*user_allow=PYTHONPATH' \
	"$gen/chk/u/99-pam-environment.conf"; then
	pass "a refused name: why, and the fix"
else
	fail "a refused name: no reason or fix" "$(cat "$gen/chk/u/99-pam-environment.conf")"
fi

# --- 2c. one name for the migrated file -------------------------------------------
# the name import's header gives is the one README.md and envd(1) give,
# and no other *-pam-environment.conf is named there
src=${top_srcdir:-$(dirname "$0")/../..}
name=$(sed -n 's/.* as \([0-9][0-9]*-pam-environment\.conf\):.*/\1/p' "$gen/chk/u/99-pam-environment.conf")
if [ -n "$name" ]; then
	pass "import's header names the file: $name"
else
	fail "import's header names no file" "$(head -n 5 "$gen/chk/u/99-pam-environment.conf")"
fi
for doc in README.md man/envd.1 DEVELOPING.md; do
	others=$(grep -o '[0-9A-Za-z_-]*-pam-environment\.conf' "$src/$doc" | sort -u | grep -vxF -- "$name")
	if [ -z "$others" ] && grep -qF -- "$name" "$src/$doc"; then
		pass "$doc names the migrated file as import does ($name)"
	else
		fail "$doc: another name for the migrated file" "${others:-none named}"
	fi
done

[ "$(id -u)" = 0 ] || skip_rest "comparing with pam_env needs root"
rm -rf "$gen"

# --- 3. pam_env against pam_envd --------------------------------------------
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init
mkdir -p "$E2E_TMP/gen" "$E2E_TMP/res"
chmod 755 "$E2E_TMP/gen"
gen=$E2E_TMP/gen
gen_fixtures "$gen"
# Random files too (tests/e2e/pam_environment/gen_random.py), from fixed seeds so that a
# failure can be replayed: IMPORT_RANDOM=count, IMPORT_SEED=first seed.
if have_cmds python3; then
	for ((i = ${IMPORT_SEED:-1}; i < ${IMPORT_SEED:-1} + ${IMPORT_RANDOM:-20}; i++)); do
		python3 "$dir/gen_random.py" "$i" >"$gen/random-$i.pam_environment"
		fixtures+=("$gen/random-$i.pam_environment")
	done
fi

u=$(e2e_user imp)
h=$(home_of "$u")
sh_of=$(getent passwd "$u" | cut -d: -f7)
: >"$E2E_TMP/empty.conf"
svc_env=$(e2e_service env <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  required pam_env.so readenv=0 conffile=$E2E_TMP/empty.conf user_readenv=1
session  optional pam_exec.so $HELPER $OUT
EOF
)
svc_envd=$(e2e_service envd <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  required $MOD system_dirs=$SYSDIRS
session  optional pam_exec.so $HELPER $OUT
EOF
)

# The logins: one with what a login usually holds, one with nothing, one
# where the variables the fixtures refer to are set but empty.
# shellcheck disable=SC2034 # used through run's name reference
base_login=(-E "HOME=$h" -E "USER=$u" -E "LOGNAME=$u" -E "SHELL=$sh_of"
	-E "PATH=/usr/local/bin:/usr/bin:/bin" -E "LANG=C.UTF-8" -E "DISPLAY=:0"
	-E "TERM=xterm-256color" -E "EDITOR=nano" -E "UNCOUNTED=was" -E "SSH_ASKPASS=was"
	-I "tty=/dev/pts/3" -I "rhost=client.example.org")
# shellcheck disable=SC2034
base_bare=()
# shellcheck disable=SC2034
base_empty=(-E "DISPLAY=" -E "LANG=" -E "TERM=" -E "PAGER=" -E "PATH=" -E "BROWSER="
	-E "LC_ALL=" -E "EDITOR=" -E "COLORTERM=" -E "SELF=")

# The variables the helper's shell and pam_exec add: not the module's doing.
norm() {
	tr '\0' '\n' <"$1" |
		grep -aEv '^(PWD|SHLVL|_|PAM_(SERVICE|TYPE|USER|TTY|RHOST|RUSER))=' | LC_ALL=C sort
}
differing() { # A B: names whose value or presence differs
	LC_ALL=C comm -3 <(norm "$1") <(norm "$2") | sed 's/^\t//; s/=.*//' | LC_ALL=C sort -u
}
# The names of the lines a translation marks inexact or not translated: the
# line after the marks, an assignment or the original commented out.
marked() {
	awk '
		/^# envd: (inexact|not translated):/ { mark = 1; next }
		/^# envd: / { next }
		mark && /^# / {
			# a name without a blank may go on over continued lines
			n = substr($0, 3)
			while (n !~ /[ \t=#]/ && n ~ /\\[ \t]*$/ && (getline nx) > 0) {
				sub(/\\[ \t]*$/, "", n)
				n = n substr(nx, 3)
			}
			sub(/[ \t=#].*/, "", n); print n; mark = 0; next
		}
		mark { n = $0; sub(/=.*/, "", n); print n; mark = 0 }
	' "$1" | LC_ALL=C sort -u
}

value_in() { # RECORD NAME: the value, or (unset)
	norm "$1" | awk -v n="$2=" 'index($0, n) == 1 { print substr($0, length(n) + 1); f = 1; exit }
		END { if (!f) print "(unset)" }'
}
# every difference with both values, the user's home and name made generic
describe() { # FIXTURE/BASE RECORD-A RECORD-B NAME...
	local where=$1 a=$2 z=$3 n line
	shift 3
	for n in "$@"; do
		line="$where $n: pam_env=$(value_in "$a" "$n") pam_envd=$(value_in "$z" "$n")"
		line=${line//"$h"/\~}
		printf '%s\n' "${line//"$u"/USER}"
	done | cat -v
}

# A name environment.d does not accept cannot always be read back from the
# commented-out line (it may run over a continued line): when the
# translation says such a line was not translated, those names are let pass.
invalid_names_aside() { # TRANSLATION < names
	if grep -q '^# envd: not translated: not a valid environment.d variable name' "$1"; then
		grep -aE '^[A-Za-z_][A-Za-z0-9_]*$' || true
	else
		cat
	fi
}

# run SERVICE BASE-NAME FIXTURE-NAME SIDE: one session; the record moves to res/
run() {
	local -n base=base_$2
	# In the sanitizer build LeakSanitizer watches the whole pamtester
	# process; leaks of Debian's pam_env are not ours to judge, and its
	# report would turn pam_env's session into a failure.
	# Under valgrind (ENVD_VALGRIND) likewise only pam_envd's sessions, and
	# of those the login environment's, one per file: memcheck is slow.
	if [ "$4" = env ]; then
		E2E_NO_VG=1 ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
			e2e_pam "${base[@]}" "$1" "$u" open_session >>"$E2E_TMP/pamtester-all.log"
	elif [ "$2" != login ]; then
		E2E_NO_VG=1 e2e_pam "${base[@]}" "$1" "$u" open_session >>"$E2E_TMP/pamtester-all.log"
	else
		e2e_pam "${base[@]}" "$1" "$u" open_session >>"$E2E_TMP/pamtester-all.log"
	fi
	RC=$E2E_RC
	if [ -f "$(record "$u")" ]; then
		mv "$(record "$u")" "$E2E_TMP/res/$3.$2.$4"
	else
		: >"$E2E_TMP/res/$3.$2.$4.missing"
	fi
}

total_diffs=0
compared=0
for f in "${fixtures[@]}"; do
	name=$(basename "$f" .pam_environment)
	tr=$E2E_TMP/gen/$name.conf
	(cd "$(dirname "$f")" && "$ENVD" -q import-pam-environment --as="$me" "$(basename "$f")") >"$tr"
	stops=no
	grep -q '^# envd: ignored by pam_env: pam_env stops at line' "$tr" && stops=yes
	for b in login bare empty; do
		rm -rf "$h/.config" "$h/.pam_environment"
		install -o "$u" -g "$(id -g "$u")" -m 644 "$f" "$h/.pam_environment"
		run "$svc_env" "$b" "$name" env
		rc_env=$RC
		rm -f "$h/.pam_environment"
		as "$u" mkdir -p "$h/.config/environment.d"
		install -o "$u" -g "$(id -g "$u")" -m 644 "$tr" \
			"$h/.config/environment.d/99-pam-environment.conf"
		run "$svc_envd" "$b" "$name" envd
		rc_envd=$RC
		a=$E2E_TMP/res/$name.$b.env
		z=$E2E_TMP/res/$name.$b.envd
		if [ ! -f "$a" ] || [ ! -f "$z" ]; then
			fail "$name/$b: no record (pam_env exit $rc_env, pam_envd exit $rc_envd)"
			continue
		fi
		[ "$rc_envd" = 0 ] || fail "$name/$b: pam_envd's session failed ($rc_envd)"
		if [ "$stops" = yes ] && [ "$rc_env" = 0 ]; then
			fail "$name/$b: the translation says pam_env stops, but its session succeeded"
		elif [ "$stops" = no ] && [ "$rc_env" != 0 ]; then
			fail "$name/$b: pam_env's session failed ($rc_env), the translation did not say so"
		fi
		mapfile -t diffs < <(differing "$a" "$z")
		mapfile -t unmarked < <(comm -23 <(printf '%s\n' "${diffs[@]}" | sed '/^$/d') \
			<(marked "$tr") | invalid_names_aside "$tr")
		case $name in
		random-*) ;; # not pinned: they change with the generator
		*) describe "$name/$b" "$a" "$z" "${diffs[@]}" >>"$E2E_TMP/differences" ;;
		esac
		n=$(norm "$a" | wc -l)
		nd=${#diffs[@]}
		compared=$((compared + n))
		total_diffs=$((total_diffs + nd))
		if [ "${#unmarked[@]}" = 0 ]; then
			pass "$name/$b: $((n - nd)) of $n variables equal${diffs[*]:+; differing, as marked: ${diffs[*]}}"
		else
			fail "$name/$b: differ without a mark: ${unmarked[*]}"
			diff <(norm "$a") <(norm "$z") | sed 's/^/    /' | cat -v | head -n 20
		fi
	done
done

# The comparison can see a difference at all (quirks.pam_environment removes
# LANG, which the login base has).
if [ "$total_diffs" -gt 0 ]; then
	pass "differences are detected ($total_diffs over $compared variables, all marked)"
else
	fail "no difference at all: is the comparison blind?"
fi

# The differences, values included, are the ones reviewed and listed in
# differences.expected (IMPORT_REGEN=1 rewrites it).
if [ "${IMPORT_REGEN:-}" = 1 ]; then
	cp "$E2E_TMP/differences" "$dir/differences.expected"
fi
if diff -u "$dir/differences.expected" "$E2E_TMP/differences"; then
	pass "every difference as listed in differences.expected"
else
	fail "differences other than those in differences.expected"
fi

# The default file: the caller's ~/.pam_environment, found through passwd.
install -o "$u" -g "$(id -g "$u")" -m 644 "$dir/xdg.pam_environment" "$h/.pam_environment"
if as "$u" "$ENVD" -q import-pam-environment >"$E2E_TMP/default.conf" 2>"$E2E_TMP/default.err"; then
	if diff <(tail -n +2 "$E2E_TMP/default.conf") <(tail -n +2 "$E2E_TMP/gen/xdg.conf") >/dev/null &&
		head -n 1 "$E2E_TMP/default.conf" | grep -qF "$h/.pam_environment"; then
		pass "without FILE: the caller's ~/.pam_environment"
	else
		fail "without FILE: another translation"
	fi
else
	fail "without FILE: $(cat "$E2E_TMP/default.err")"
fi

# --- as root: the file is read with a user's rights, never root's ---------
# A user's ~/.pam_environment linked to /etc/shadow, or to a file below a
# 0700 directory through /proc/self/cwd (a process may always follow its
# own magic links): root converting it must show none of it.
secret_dir=$E2E_TMP/root-only
mkdir -p "$secret_dir"
chmod 700 "$secret_dir"
printf 'ROOT_SECRET=r00t-only\n' >"$secret_dir/secret"
chmod 644 "$secret_dir/secret"
for target in /etc/shadow /proc/self/cwd/secret; do
	ln -sfn "$target" "$h/.pam_environment"
	chown -h "$u:" "$h/.pam_environment"
	for how in default --as="$u"; do
		args=()
		[ "$how" = default ] || args=("$how")
		rc=0
		(cd "$secret_dir" && "$ENVD" import-pam-environment "${args[@]}" "$h/.pam_environment") \
			>"$E2E_TMP/leak.out" 2>"$E2E_TMP/leak.err" || rc=$?
		if [ "$rc" = 3 ] && ! grep -qE 'root:|r00t-only' "$E2E_TMP/leak.out" "$E2E_TMP/leak.err"; then
			pass "as root ($how): a link to $target is not read ($(head -c 120 "$E2E_TMP/leak.err"))"
		else
			fail "as root ($how): a link to $target: exit $rc, output: $(head -c 200 "$E2E_TMP/leak.out")"
		fi
	done
done
# the user's own file, named or by --as alone, converts as the user
install -o "$u" -g "$(id -g "$u")" -m 644 "$dir/xdg.pam_environment" "$h/.pam_environment.real"
ln -sfn .pam_environment.real "$h/.pam_environment"
chown -h "$u:" "$h/.pam_environment"
if "$ENVD" -q import-pam-environment --as="$u" >"$E2E_TMP/as.conf" 2>"$E2E_TMP/as.err" &&
	diff <(tail -n +2 "$E2E_TMP/as.conf") <(tail -n +2 "$E2E_TMP/gen/xdg.conf") >/dev/null; then
	pass "as root, --as=USER without FILE: that user's ~/.pam_environment, read as the user"
else
	fail "as root, --as=USER: $(cat "$E2E_TMP/as.err")"
fi
rc=0
as "$u" "$ENVD" import-pam-environment --as=root "$h/.pam_environment" >/dev/null 2>"$E2E_TMP/as.err" || rc=$?
if [ "$rc" = 3 ] && grep -q "only root" "$E2E_TMP/as.err"; then
	pass "a user cannot read with another user's rights (--as=root)"
else
	fail "--as=root by a user: exit $rc: $(cat "$E2E_TMP/as.err")"
fi

e2e_finish
