#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# policy_sweep.sh - every name the sweeps found is decided: those of
# tools/sweep/names.tsv (written by tools/sweep/run.sh as root: what the
# programs a login helper runs as root look up) and of
# tools/sweep/packages.tsv (written by tools/sweep/packages.sh: what the
# programs and libraries of a named package set read, by their getenv
# call sites and their scripts' literal lookups).  Each is refused by the default policy (`envd
# policy`: a refuse entry that no allow-back entry lifts), given a value
# rule, allowed back with a reason, or kept in lib/policy_reviewed.tsv with
# the reason it may stay.  A new name found by a new sweep fails here
# until it is refused in lib/policy.c or reviewed.  The reviewed table is
# held to its form: sorted, one reason each, no glob, no name the policy
# refuses, none the sweep does not list; and to the review rule: each row
# names the root programs that read the name (READ BY), each one the sweep
# found reading it, and a name of a client family (a display, a bus, a
# mail or directory client) names the test (TESTED) that runs a root
# client with the user's value; that test must name it.  Does not sweep (that needs root
# and the programs; tools/sweep/run.sh --check compares a fresh sweep with
# the committed one).
#
# The policy's patterns use '*' and '?' only, where fnmatch and awk's
# regular expressions agree once '*' is ".*" and '?' is ".".
. "${top_srcdir:?}/tests/lib/harness.sh"
harness_init policy_sweep check
need_envd

NAMES=$top_srcdir/tools/sweep/names.tsv
PKGS=$top_srcdir/tools/sweep/packages.tsv
REVIEWED=$top_srcdir/lib/policy_reviewed.tsv
make_tmpdir T policy_sweep
"$ENVD" policy >"$T/policy" || fail "envd policy exited $?"

# the data lines of a file, comments and blank lines left out
data() { grep -v -e '^#' -e '^$' "$1"; }

# --- the files' form ----------------------------------------------------
bad=$(data "$NAMES" | awk -F'\t' 'NF != 3 || $1 !~ /^[A-Za-z_][A-Za-z0-9_]*$/ ||
	$2 !~ /^(getenv|environ|source|strings|man)(,(getenv|environ|source|strings|man))*$/')
if [ -z "$bad" ]; then pass "names.tsv: NAME, METHODS, WHERE on each line"; else
	fail "names.tsv: malformed lines" "$bad"
fi
if data "$NAMES" | cut -f1 | LC_ALL=C sort -c -u 2>/dev/null; then
	pass "names.tsv: sorted, each name once"
else
	fail "names.tsv: not sorted or a name twice (run tools/sweep/run.sh)"
fi
n_names=$(data "$NAMES" | wc -l)
if [ "$n_names" -ge 100 ]; then pass "names.tsv: $n_names names"; else
	fail "names.tsv: only $n_names names"
fi
bad=$(data "$PKGS" | awk -F'\t' 'NF != 3 || $1 !~ /^[A-Za-z_][A-Za-z0-9_]*$/ ||
	$2 !~ /^(elf|python|perl|ruby|node)(,(elf|python|perl|ruby|node))*$/')
if [ -z "$bad" ]; then pass "packages.tsv: NAME, METHODS, WHERE on each line"; else
	fail "packages.tsv: malformed lines" "$bad"
fi
if data "$PKGS" | cut -f1 | LC_ALL=C sort -c -u 2>/dev/null; then
	pass "packages.tsv: sorted, each name once"
else
	fail "packages.tsv: not sorted or a name twice (run tools/sweep/packages.sh)"
fi
n_pkgs=$(data "$PKGS" | wc -l)
if [ "$n_pkgs" -ge 500 ]; then pass "packages.tsv: $n_pkgs names"; else
	fail "packages.tsv: only $n_pkgs names"
fi

bad=$(data "$REVIEWED" | awk -F'\t' '(NF != 3 && NF != 4) || $1 !~ /^[A-Za-z_][A-Za-z0-9_]*$/ ||
	$2 !~ /^(interactive|desktop|everyday|proxy|output|debug|tuning|mode|identity|shell|platform|build): ./ ||
	$3 !~ /^[^ ,]+(,[^ ,]+)*$/ || (NF == 4 && $4 !~ /^tests\/e2e\/[a-z0-9_]+\.sh$/)')
if [ -z "$bad" ]; then
	pass "policy_reviewed.tsv: NAME, KIND: REASON, READ BY[, TESTED] on each line"
else
	fail "policy_reviewed.tsv: malformed lines (a glob, no reason, an unknown kind, no reader named)" "$bad"
fi

# the review rule: the readers named are ones the sweep found
bad=$(data "$REVIEWED" | awk -F'\t' -v names="$NAMES" -v pkgs="$PKGS" '
	function reader(t) {
		if (t ~ /^man:.*\(.*\)$/) { sub(/^man:/, "", t); sub(/\(.*$/, "", t) }
		sub(/^strings:/, "", t)
		return t
	}
	function load(file, l, f, n, i, w) {
		while ((getline l < file) > 0) {
			if (l ~ /^#/ || l == "") continue
			split(l, f, "\t")
			n = split(f[3], w, ",")
			for (i = 1; i <= n; i++) found[f[1] SUBSEP reader(w[i])] = 1
		}
	}
	BEGIN { load(names); load(pkgs) }
	{
		n = split($3, r, ",")
		for (i = 1; i <= n; i++)
			if (!((($1) SUBSEP r[i]) in found)) print $1 ": " r[i] " is not among the readers the sweep found"
	}')
if [ -z "$bad" ]; then pass "policy_reviewed.tsv: every reader named is one the sweep found"; else
	fail "policy_reviewed.tsv: readers the sweep did not find (tools/sweep/names.tsv's WHERE)" "$bad"
fi

# a client family's name: a root client run with the user's value, in the
# test TESTED names, which names it
family='^(DISPLAY|WAYLAND_DISPLAY|XAUTHORITY|ICEAUTHORITY|SESSION_MANAGER|DBUS_.*|.*_BUS_ADDRESS|MAIL.*|SENDMAIL.*|POSTFIX.*|POSTLOG.*|LDAP.*|SASL.*|KRB5.*|SMB.*|CUPS.*)$'
bad=$(data "$REVIEWED" | awk -F'\t' -v re="$family" '$1 ~ re && NF < 4 { print $1 ": no TESTED" }')
while IFS=$'\t' read -r n _ _ t; do
	[ -n "$t" ] || continue
	[ -f "$top_srcdir/$t" ] || { bad="$bad${bad:+$'\n'}$n: $t does not exist"; continue; }
	grep -qw -- "$n" "$top_srcdir/$t" || bad="$bad${bad:+$'\n'}$n: $t does not name it"
done < <(data "$REVIEWED")
if [ -z "$bad" ]; then
	pass "policy_reviewed.tsv: each client family's name has a test of a root client that names it"
else
	fail "policy_reviewed.tsv: client family names without a test of a root client" "$bad"
fi
if data "$REVIEWED" | cut -f1 | LC_ALL=C sort -c -u 2>/dev/null; then
	pass "policy_reviewed.tsv: in strcmp order, each name once"
else
	fail "policy_reviewed.tsv: out of order or a name twice" \
		"$(data "$REVIEWED" | cut -f1 | LC_ALL=C sort -c -u 2>&1)"
fi

# --- each name decided ----------------------------------------------------
# classify FILE: "NAME<TAB>refused|value|allowed-back|allowed" for the
# first column of FILE's data lines, by the policy's patterns
classify() {
	data "$1" | awk -F'\t' -v pol="$T/policy" '
		function re(p) { gsub(/\*/, ".*", p); gsub(/\?/, ".", p); return "^" p "$" }
		BEGIN {
			while ((getline l < pol) > 0) {
				split(l, f, "\t")
				if (f[1] == "refuse") deny[re(f[2])]
				else if (f[1] == "allow-back") back[re(f[2])]
				else if (f[1] == "value") val[re(f[2])]
			}
		}
		{
			d = b = v = 0
			for (r in deny) if ($1 ~ r) d = 1
			for (r in back) if ($1 ~ r) b = 1
			for (r in val) if ($1 ~ r) v = 1
			print $1 "\t" (d && !b ? "refused" : d ? "allowed-back" : v ? "value" : "allowed")
		}'
}
classify "$NAMES" >"$T/names.class"
classify "$PKGS" >>"$T/names.class"
classify "$REVIEWED" >"$T/reviewed.class"
data "$REVIEWED" | cut -f1 | LC_ALL=C sort >"$T/reviewed"
{ data "$NAMES"; data "$PKGS"; } | cut -f1 | LC_ALL=C sort -u >"$T/names"

# allowed by the policy and not reviewed: the decision this test exists for
awk -F'\t' '$2 == "allowed" { print $1 }' "$T/names.class" | LC_ALL=C sort -u >"$T/allowed"
open=$(LC_ALL=C comm -23 "$T/allowed" "$T/reviewed")
if [ -z "$open" ]; then
	pass "each of the $(wc -l <"$T/allowed") names the policy lets through is reviewed"
else
	fail "names the sweep found that the policy allows and policy_reviewed.tsv lacks: refuse each in lib/policy.c, or review it" \
		"$(for n in $open; do grep -h -m1 "^$n"$'\t' "$NAMES" "$PKGS"; done)"
fi
for k in refused value allowed-back; do
	echo "$k: $(awk -F'\t' -v k="$k" '$2 == k { print $1 }' "$T/names.class" | sort -u | wc -l)"
done

# the reviewed table holds no decision the policy has taken otherwise
taken=$(awk -F'\t' '$2 != "allowed" { print $1 " (" $2 ")" }' "$T/reviewed.class")
if [ -z "$taken" ]; then pass "policy_reviewed.tsv names nothing the policy refuses or rules on"; else
	fail "policy_reviewed.tsv names what lib/policy.c decides: remove them" "$taken"
fi
stale=$(LC_ALL=C comm -23 "$T/reviewed" "$T/names")
if [ -z "$stale" ]; then pass "policy_reviewed.tsv names only what the sweep found"; else
	fail "policy_reviewed.tsv names what names.tsv and packages.tsv lack: remove them" "$stale"
fi

# the names of issue 24 were in the sweep's list (the methods work)
for n in APT_CONFIG BLKID_FILE LIBMOUNT_FSTAB LIBMOUNT_UTAB TEMP TMP RUBYGEMS_GEMDEPS \
	PERL_LWP_SSL_CA_FILE HTTPS_CA_FILE HTTPLIB2_CA_CERTS NODE_TLS_REJECT_UNAUTHORIZED; do
	if grep -q "^$n"$'\t' "$NAMES"; then pass "the sweep found $n"; else fail "the sweep lost $n"; fi
done

# the package sweep finds, by its methods alone, the families of issue 36
# that the command sweep had missed
for n in DISPLAY XAUTHORITY ICEAUTHORITY SESSION_MANAGER MAIL_CONFIG MAIL_DEBUG SASL_PATH \
	SSH_SK_HELPER SSH_PKCS11_HELPER GTK_MODULES CUPS_SERVER GSS_MECH_CONFIG; do
	if grep -q "^$n"$'\t' "$PKGS"; then pass "the package sweep found $n"; else
		fail "the package sweep lost $n"
	fi
done

finish
