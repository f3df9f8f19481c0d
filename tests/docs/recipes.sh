#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/docs/recipes.sh - every place in README.md, DEVELOPING.md,
# examples/ and packaging/ that tells how to enable (or disable) pam_envd gives the
# deployment pair, not the applying line alone: a recipe that stacks only
# "session optional pam_envd.so" leaves every close hook before it seeing
# the user's values (issue #25).
#
# What is checked, unit by unit:
# - a unit is a paragraph of a Markdown file (lines between blank lines; a
#   table row, a line starting with "|", is a unit of its own, and a list
#   item, a line starting with "-", "*" or "N.", starts one), or the
#   whole of any other file (a PAM file, a pam-auth-update profile, a
#   packaging recipe);
# - its lines are joined with single spaces, and it tells how to enable
#   the module when it holds the applying line ("session optional
#   pam_envd.so", "Session: optional pam_envd.so" as a pam-auth-update
#   profile has it, with any white space, not followed by "cleanup"), the
#   path of the applying profile ("pam-configs/pam_envd"), an enable or
#   disable of it ("--enable pam_envd", "--disable ... pam_envd") or the
#   authselect snippet of the applying line ("postlogin-envd");
# - such a unit must also give the cleanup line ("pam_envd.so cleanup"),
#   the cleanup profile ("pam_envd-cleanup") or the authselect snippet of
#   the cleanup line ("cleanup-envd").
# Each such unit is one check, named FILE:LINE of its first line.  Fewer
# such units than a file had when it was last rewritten fails too (the
# match went blind): 8 in README.md (the user's guide: one per family, the
# pair itself, turning it off), 9 in DEVELOPING.md (the details).
#
# An automake test: $top_srcdir comes from the Makefile; run by hand it
# finds it from its own location.  Exit 0 pass, 1 fail.

# The backquotes of the made-up Markdown are meant literally.
# shellcheck disable=SC2016

if [ -z "${BASH_VERSION:-}" ]; then exec bash "$0" "$@"; fi
set -u
export LC_ALL=C

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}

. "$top_srcdir/tests/lib/harness.sh"
harness_init recipes.sh check

# units FILE...: "FILE:LINE<TAB>VERDICT" for each unit that tells how to
# enable the module; VERDICT is "pair" or "alone"
units() {
	awk '
	function flush() {
		if (text != "") judge()
		text = ""
	}
	function judge(  t, applies) {
		t = text
		gsub(/[ \t]+/, " ", t)
		# the cleanup forms out first: what is left names the applying one
		a = t
		gsub(/pam_envd\.so cleanup/, "", a)
		gsub(/pam_envd-cleanup/, "", a)
		applies = a ~ /(session|Session:) optional pam_envd\.so/ ||
			a ~ /pam-configs\/pam_envd([^-._A-Za-z0-9]|$)/ ||
			a ~ /--(enable|disable)( [^ ]*)* pam_envd([^-._A-Za-z0-9]|$)/ ||
			a ~ /postlogin-envd/
		if (!applies) return
		pair = t ~ /pam_envd\.so cleanup/ || t ~ /pam_envd-cleanup/ || t ~ /cleanup-envd/
		printf "%s:%d\t%s\n", file, start, pair ? "pair" : "alone"
	}
	FNR == 1 { flush(); file = FILENAME; md = file ~ /\.md$/ }
	md && /^[ \t]*$/ { flush(); next }
	md && /^\|/ { flush(); start = FNR; text = $0; flush(); next }
	md && /^[ \t]*([-*]|[0-9]+\.) / { flush() }
	{
		if (text == "") start = FNR
		text = text " " $0
	}
	END { flush() }' "$@"
}

cd "$top_srcdir" || exit 1
mapfile -t files < <(find README.md DEVELOPING.md examples packaging -type f | sort)
found=$(units "${files[@]}")
while IFS=$'\t' read -r where verdict; do
	[ -n "$where" ] || continue
	if [ "$verdict" = pair ]; then
		pass "$where: the applying line with the cleanup line"
	else
		fail "$where: the applying line without the cleanup line" \
			"$(awk -v l="${where##*:}" 'NR >= l && NR < l + 6' "${where%:*}")"
	fi
done <<<"$found"
for want in README.md:8 DEVELOPING.md:9; do
	f=${want%:*}
	n=$(grep -c "^${f//./\\.}:" <<<"$found")
	if [ "$n" -ge "${want#*:}" ]; then
		pass "$f: $n places tell how to enable the module"
	else
		fail "$f: only $n places tell how to enable the module (${want#*:} or more expected)"
	fi
done

# the rule itself, on made-up paragraphs
make_tmpdir T envd-recipes
printf 'Enable it by appending `session optional pam_envd.so` to system-login.\n' >"$T/alone.md"
printf 'Add `session  optional\tpam_envd.so cleanup` first and\n`session optional pam_envd.so` last.\n' >"$T/pair.md"
printf -- '- first `session optional pam_envd.so cleanup`\n\n- last `session optional pam_envd.so`\n' >"$T/apart.md"
printf 'Run `pam-auth-update --enable pam_envd`.\n' >"$T/profile.md"
printf 'Run `pam-auth-update --enable pam_envd-cleanup pam_envd`.\n' >"$T/profiles.md"
printf '| Arch | `session optional pam_envd.so` |\n| Debian | `pam_envd-cleanup` |\n' >"$T/table.md"
printf -- '- Debian: `pam-auth-update --enable pam_envd-cleanup pam_envd`\n- Arch: `examples/fedora/postlogin-envd`\n' >"$T/list.md"
printf 'session optional pam_envd.so cleanup\n\nsession required pam_unix.so\n\nsession optional pam_envd.so\n' >"$T/pam-file"
expect_eq "the rule: the applying line alone" "$(units "$T/alone.md" | cut -f2)" alone
expect_eq "the rule: both lines, white space as it comes" "$(units "$T/pair.md" | cut -f2)" pair
expect_eq "the rule: the two lines in two paragraphs" "$(units "$T/apart.md" | cut -f2)" alone
expect_eq "the rule: the applying profile alone" "$(units "$T/profile.md" | cut -f2)" alone
expect_eq "the rule: both profiles" "$(units "$T/profiles.md" | cut -f2)" pair
expect_eq "the rule: a table row on its own" "$(units "$T/table.md" | cut -f2)" alone
expect_eq "the rule: list items each on their own" "$(units "$T/list.md" | cut -f2 | tr '\n' ' ')" "pair alone "
expect_eq "the rule: a PAM file as one unit" "$(units "$T/pam-file" | cut -f2)" pair

finish
