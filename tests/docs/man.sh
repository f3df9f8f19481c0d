#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# The manual pages lint clean and render without warnings, and envd(1) documents every option that
# `envd --help` offers (and no other), so the two cannot drift apart.
set -u
command -v mandoc >/dev/null 2>&1 || { echo "mandoc missing: skipped"; exit 77; }
rc=0
for page in "$top_srcdir"/man/*.[0-9]; do
	# Linux-PAM's manual pages have RETURN VALUES in section 8 too
	out=$(mandoc -Tlint -W warning "$page" 2>&1 | grep -v 'unexpected section: Sh RETURN VALUES')
	if [ -n "$out" ]; then
		echo "$out"
		echo "FAIL: $page does not lint clean"
		rc=1
	fi
done
# rendered as a reader sees them: no groff warning at 80 columns (a line
# that cannot be broken, an unknown request)
if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
	for page in "$top_srcdir"/man/*.[0-9]; do
		out=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
		if [ -n "$out" ]; then
			echo "$out"
			echo "FAIL: $page renders with groff warnings at 80 columns"
			rc=1
		fi
	done
else
	echo "note: man or groff missing: rendering not checked"
fi
help_opts=$("$ENVD" --help | grep -o -- '--[a-z][a-z-]*' | sort -u)
man_opts=$(grep '^\.It Fl' "$top_srcdir/man/envd.1" | grep -o 'Fl -[a-z][a-z-]*' |
	sed 's/^Fl /-/' | sort -u)
if [ "$help_opts" != "$man_opts" ]; then
	echo "FAIL: envd --help and envd.1 document different options"
	echo "--help: $help_opts"
	echo "envd.1: $man_opts"
	rc=1
fi
for cmd in show check files policy; do
	grep -q "^\.Cm $cmd\$" "$top_srcdir/man/envd.1" || { echo "FAIL: envd.1 lacks $cmd"; rc=1; }
done
[ $rc = 0 ] && echo "man pages: ok"
exit $rc
