#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# policy_docs.sh - the default name policy as `envd policy` prints it from
# lib/policy.c's tables, and as pam_envd(8) and SECURITY.md list it: the
# same names refused, allowed back and refused for some values, in all
# three, so that neither document can shorten, drift or name what the code
# lacks.  Also the command itself: three kinds, tab-separated, no operand.
set -u
: "${top_srcdir:?}" "${ENVD:?}"
MAN=$top_srcdir/man/pam_envd.8
SEC=$top_srcdir/SECURITY.md
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

out=$("$ENVD" policy) || fail "envd policy exited $?"
bad=$(printf '%s\n' "$out" | awk -F'\t' 'NF != 3 || $1 !~ /^(refuse|allow-back|value)$/ ||
	$2 !~ /^[A-Za-z_][A-Za-z0-9_*?]*$/ || $3 == ""')
[ -z "$bad" ] || fail "envd policy: malformed lines: $bad"
"$ENVD" policy someone >/dev/null 2>&1
[ $? = 2 ] || fail "envd policy with an operand is not a usage error"

code() { printf '%s\n' "$out" | awk -F'\t' -v k="$1" '$1 == k { print $2 }' | sort; }

# man: the .It Li entries of the list that follows the line matching $1
man_list() {
	awk -v start="$1" '
		index($0, start) { on = 1; next }
		on && /^\.El/ { exit }
		on && /^\.It Li / {
			sub(/^\.It Li /, "")
			n = split($0, a, / , /)
			for (i = 1; i <= n; i++) print a[i]
		}' "$MAN" | sort
}

# SECURITY.md: the backquoted names in column $2 of the table whose header
# line is $1
sec_table() {
	awk -F'|' -v head="$1" -v col="$2" '
		$0 == head { on = 1; next }
		on && !/^\|/ { exit }
		on && /^\| *---/ { next }
		on {
			s = $(col + 1)
			while (match(s, /`[^`]*`/)) {
				print substr(s, RSTART + 1, RLENGTH - 2)
				s = substr(s, RSTART + RLENGTH)
			}
		}' "$SEC" | sort
}

compare() { # WHAT CODE DOC DOCNAME
	local missing extra
	if [ -z "$2" ]; then
		fail "$1: the code's table is empty"
		return
	fi
	if [ -z "$3" ]; then
		fail "$1: $4 lists none (the list was not found)"
		return
	fi
	missing=$(comm -23 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tr '\n' ' ')
	extra=$(comm -13 <(printf '%s\n' "$2") <(printf '%s\n' "$3") | tr '\n' ' ')
	[ -z "$missing" ] || fail "$1: $4 lacks $missing"
	[ -z "$extra" ] || fail "$1: $4 names what the code lacks: $extra"
	[ -n "$missing$extra" ] || echo "ok: $1: $4 lists the $(printf '%s\n' "$2" | wc -l) entries"
}

refused=$(code refuse)
back=$(code allow-back)
values=$(code value)
compare refused "$refused" "$(man_list 'By default it refuses:')" pam_envd.8
compare "allowed back" "$back" "$(man_list 'Allowed back from those')" pam_envd.8
compare "value rules" "$values" "$(man_list 'Refused for some values only')" pam_envd.8
compare refused "$refused" "$(sec_table '| family | names | why refused |' 2)" SECURITY.md
compare "allowed back" "$back" "$(sec_table '| names | why allowed |' 1)" SECURITY.md
compare "value rules" "$values" "$(sec_table '| names | values refused | why |' 1)" SECURITY.md

# no shortened lists
grep -n '^\.It Li .*\.\.\.' "$MAN" && fail "pam_envd.8 shortens a list with ..."

echo "$fails failed"
[ "$fails" = 0 ]
