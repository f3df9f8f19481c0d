#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tools/sweep/packages.sh [-o FILE] - the sweep as a method over a named
# package set (issue 36): every environment name that the programs and
# libraries of the set read, found in their files rather than by running
# command lines (tools/sweep/run.sh does that).  Writes
# tools/sweep/packages.tsv (or FILE): NAME, METHODS, WHERE (the files'
# names, the first six).  tests/docs/policy_sweep.sh holds each name to
# lib/policy.c or lib/policy_reviewed.tsv, as it does names.tsv's.
#
# The set: the installed packages of Priority required, important or
# standard, and those tools/sweep/packages.list names (why is said
# there); one that is not installed is listed as skipped in the header.
# The methods (tools/sweep/elfnames.py):
#   elf      a getenv, secure_getenv, g_getenv, safe_getenv (Postfix),
#            curl_getenv, _dbus_getenv, getenv_bool (systemd) or
#            k5_secure_getenv call site in an x86-64 ELF object, with the
#            literal its first argument was loaded from
#   python, perl, ruby, node  a literal lookup in a script or module
# Not seen: a name built at run time (OpenLDAP's "LDAP" + an option
# name, hence the LDAP* entry), passed in a variable or to a wrapper not
# named above, read through environ directly, or by shell scripts.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$here/packages.tsv
case ${1:-} in
-o) out=${2:?}; ;;
'') ;;
*) sed -n '4,10{s/^# \{0,1\}//p}' "$0" >&2; exit 2 ;;
esac
for c in dpkg-query objdump python3 xargs; do
	command -v "$c" >/dev/null 2>&1 || { echo "sweep: $c is not installed" >&2; exit 1; }
done

S=$(mktemp -d /tmp/envd-pkgsweep.XXXXXX)
trap 'rm -rf "$S"' EXIT

# the set
dpkg-query -W -f='${db:Status-Abbrev} ${Priority} ${Package}\n' |
	awk '$1 ~ /^ii/ && $2 ~ /^(required|important|standard)$/ { print $3 }' | sort -u >"$S/priority"
grep -v -e '^#' -e '^$' "$here/packages.list" | sort -u >"$S/named"
sort -u "$S/priority" "$S/named" >"$S/set"
: >"$S/skipped"
: >"$S/files"
while read -r p; do
	if ! dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii'; then
		echo "$p" >>"$S/skipped"
		continue
	fi
	dpkg-query -W -f='${Package} ${Version}\n' "$p" >>"$S/versions"
	dpkg -L "$p" | while read -r f; do
		if [ -f "$f" ] && [ ! -L "$f" ]; then printf '%s\t%s\n' "$p" "$f"; fi
	done >>"$S/files"
done <"$S/set"

# the names, by file
cut -f2 "$S/files" | sort -u | tr '\n' '\0' |
	xargs -0 -r -n 200 python3 "$here/elfnames.py" >"$S/found.raw"
# one order: by name, method and file
LC_ALL=C sort -t "$(printf '\t')" -k1,1 -k2,2 -k3,3 -u "$S/found.raw" >"$S/found"

# NAME, METHODS, WHERE
{
	cat <<HEAD
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tools/sweep/packages.tsv - written by tools/sweep/packages.sh, do not
# edit: the names the files of the package set read, one a line: NAME,
# METHODS (elf, python, perl, ruby, node: packages.sh says what each is),
# WHERE (the files' names, the first six).  tests/docs/policy_sweep.sh
# holds each to lib/policy.c or lib/policy_reviewed.tsv.
# Swept on $(sed -n 's/^PRETTY_NAME="\(.*\)"$/\1/p' /etc/os-release) ($(cat /etc/debian_version)), $(uname -m):
# $(wc -l <"$S/set") packages ($(wc -l <"$S/priority") of Priority required, important or
# standard; $(wc -l <"$S/named") named in packages.list), $(cut -f2 "$S/files" | sort -u | wc -l) files.
HEAD
	if [ -s "$S/skipped" ]; then
		echo "# Not installed, skipped: $(tr '\n' ' ' <"$S/skipped" | sed 's/ $//')" | fold -s -w 72 |
			sed '2,$s/^/# /'
	fi
	echo "# Packages: $(tr '\n' ',' <"$S/versions" | sed 's/,$//; s/,/, /g')" | fold -s -w 72 |
		sed '2,$s/^/# /'
	awk -F'\t' '
		{
			n = $1; m = $2; f = $3; sub(/.*\//, "", f)
			if (!((n, m) in hm)) { hm[n, m] = 1; meth[n] = meth[n] (meth[n] == "" ? "" : ",") m }
			if (!((n, f) in hw)) { hw[n, f] = 1; cnt[n]++; if (cnt[n] <= 6) where[n] = where[n] (where[n] == "" ? "" : ",") f }
		}
		END {
			for (n in meth) {
				w = where[n]; if (cnt[n] > 6) w = w ",+" (cnt[n] - 6)
				print n "\t" meth[n] "\t" w
			}
		}' "$S/found" | LC_ALL=C sort
} >"$out"
echo "sweep: $(grep -vc '^#' "$out") names in $out" >&2
