#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# install.sh - make install and make uninstall, from the build tree under test.
#
# 1. `make install DESTDIR=...` installs exactly the expected files, nothing
#    more: envd in bindir, pam_envd.so (no libtool archive) in the securedir
#    configure chose, the three manual pages, README.md, SECURITY.md,
#    COPYING, and every file of examples/ and LICENSES/ in docdir.  The list is computed here from the directories
#    configure set, so a missing or an unexpected file fails.  Then
#    `make uninstall DESTDIR=...` must leave no file and no directory of
#    ours behind.
# 2. As root: a real install with prefix /usr, so that the module lands where
#    libpam loads modules from.  A /etc/pam.d service naming the module by
#    its bare name (`session required pam_envd.so`) must fail before the
#    install, hand a real user's ~/.config/environment.d variables to a
#    pam_exec recorder after it, and fail again after `make uninstall`; the
#    target directories must be as they were before.  This part is skipped
#    without root, when the module is not built (--disable-module), when
#    the tree's securedir is not the directory libpam loads modules from
#    (a tree configured for another distribution's layout), and when a
#    pam_envd.so, envd or any file of ours is already installed there (it
#    never clobbers a real installation).  Runs of it are serialized with
#    flock (the plain, sanitizer and distcheck trees may run at once).
#
# Exit: 0 pass (part 2 may have been skipped, it says so), 1 fail, 77 when
# nothing could run.
set -u
export LC_ALL=C

top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}
top_builddir=$(cd "$top_builddir" && pwd)
top_srcdir=$(cd "$top_srcdir" && pwd)
# the makes below are ours, not jobs of the `make check` that runs this test
unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
MAKE_CMD=${MAKE_CMD:-make}
. "$top_srcdir/tests/lib/harness.sh"
harness_init install.sh colon
need_cmds "$MAKE_CMD"
[ -f "$top_builddir/Makefile" ] || skip_all "$top_builddir is not a configured tree"

make_tmpdir TMP pam-envd-install /tmp
SYS_INSTALLED=no # set while part 2 may have files in the system
# run at exit once part 2 has begun, before the cleanup of tests/e2e_lib.sh
# shellcheck disable=SC2317 # run by at_exit
cleanup_install() {
	if [ "$SYS_INSTALLED" = yes ]; then
		echo "cleanup: uninstalling from the system"
		"$MAKE_CMD" -s -C "$top_builddir" uninstall "${SYS_VARS[@]}" >/dev/null 2>&1 || true
		# what make could not remove: only files that part 2 checked were
		# absent before installing
		while IFS= read -r f; do
			case $f in */) ;; *) rm -f "$f" ;; esac
		done <"$TMP/sys-expected"
		sort -r "$TMP/sys-expected" | while IFS= read -r f; do
			case $f in */) rmdir "$f" 2>/dev/null || : ;; esac
		done
		SYS_INSTALLED=no
	fi
}

# dirs [VAR=VALUE...]: the installation directories of the build tree (with
# the overrides given), as NAME=VALUE lines.
dirs() {
	cat >"$TMP/dirs.mk" <<'EOF'
envd-print-dirs:
	@echo "bindir=$(bindir)"
	@echo "securedir=$(pammoduleexecdir)"
	@echo "man1dir=$(man1dir)"
	@echo "man5dir=$(man5dir)"
	@echo "man8dir=$(man8dir)"
	@echo "docdir=$(docdir)"
	@echo "profiledir=$(profiledir)"
	@echo "module=$(pammoduleexec_LTLIBRARIES)"
	@echo "readerdir=$(pkglibexecdir)"
EOF
	"$MAKE_CMD" -s --no-print-directory -C "$top_builddir" -f Makefile -f "$TMP/dirs.mk" \
		envd-print-dirs "$@"
}
dir_of() { sed -n "s|^$1=||p" "$2"; }

# expected DIRSFILE: the files an install must make, one absolute path a line
expected() {
	local d=$1 doc
	doc=$(dir_of docdir "$d")
	echo "$(dir_of bindir "$d")/envd"
	echo "$(dir_of readerdir "$d")/reader"
	if [ -n "$(dir_of module "$d")" ]; then
		echo "$(dir_of securedir "$d")/pam_envd.so"
	fi
	echo "$(dir_of profiledir "$d")/pam_envd.sh"
	echo "$(dir_of man1dir "$d")/envd.1"
	echo "$(dir_of man5dir "$d")/pam_envd-environment.d.5"
	echo "$(dir_of man8dir "$d")/pam_envd.8"
	echo "$doc/README.md"
	echo "$doc/SECURITY.md"
	echo "$doc/COPYING"
	(cd "$top_srcdir" && find examples LICENSES -type f) | sed "s|^|$doc/|"
}

# --- 1. DESTDIR ----------------------------------------------------------------
dest=$TMP/dest
dirs >"$TMP/dirs" 2>"$TMP/dirs.err" || {
	echo "FAIL: cannot read the installation directories:"
	cat "$TMP/dirs.err"
	exit 1
}
cat "$TMP/dirs"
for v in bindir securedir man1dir man5dir man8dir docdir; do
	case $(dir_of $v "$TMP/dirs") in
	/*) ;;
	*) fail "$v is not an absolute directory: '$(dir_of $v "$TMP/dirs")'" ;;
	esac
done
# configure printed the directory make installs the module to, expanded
# (not "${prefix}/lib/..."): its "checking where libpam loads modules
# from" (when it detected one) and its summary, both in config.log
shown=$(sed -n 's/^configure:[0-9]*: *securedir: *//p; s/^  securedir: *//p' \
	"$top_builddir/config.log" | tail -n 1)
if [ "$shown" = "$(dir_of securedir "$TMP/dirs")" ]; then
	pass "configure printed the securedir expanded: $shown"
else
	fail "configure printed the securedir '$shown', make installs to '$(dir_of securedir "$TMP/dirs")'"
fi
# shellcheck disable=SC2016 # a literal ${ in the log
if grep -q 'result: .*\${' "$top_builddir/config.log"; then
	fail "configure printed an unexpanded directory" "$(grep 'result: .*\${' "$top_builddir/config.log")"
else
	pass "configure printed no unexpanded directory"
fi
expected "$TMP/dirs" | sort >"$TMP/expected"
if [ "$(dir_of module "$TMP/dirs")" = "" ] && [ "${ENVD_MODULE:-yes}" = yes ]; then
	fail "the module is not installed although configure did not say --disable-module"
fi

if "$MAKE_CMD" -s -C "$top_builddir" install DESTDIR="$dest" >"$TMP/install.log" 2>&1; then
	pass "make install DESTDIR"
else
	fail "make install DESTDIR: $(tail -n 20 "$TMP/install.log")"
fi
(cd "$dest" 2>/dev/null && find . \( -type f -o -type l \) -print) | sed 's|^\.||' | sort \
	>"$TMP/installed"
if diff -u "$TMP/expected" "$TMP/installed" >"$TMP/diff"; then
	pass "installed exactly the $(wc -l <"$TMP/expected") expected files"
else
	fail "installed files differ from the expected list (- missing, + unexpected):"
	sed -n '3,$p' "$TMP/diff" | grep '^[-+]'
fi
if [ -n "$(dir_of module "$TMP/dirs")" ]; then
	so=$dest$(dir_of securedir "$TMP/dirs")/pam_envd.so
	if [ -f "$so" ] && cmp -s "$so" "$top_builddir/pam_envd/.libs/pam_envd.so"; then
		pass "the module installed is the one built"
	else
		fail "the installed module is not $top_builddir/pam_envd/.libs/pam_envd.so"
	fi
	if [ "$(stat -c %a "$so" 2>/dev/null)" = 755 ]; then
		pass "module mode 755"
	else
		fail "module mode $(stat -c %a "$so" 2>/dev/null), expected 755"
	fi
fi
envd=$dest$(dir_of bindir "$TMP/dirs")/envd
if [ -x "$envd" ] && "$envd" --version 2>&1 | grep -q '^envd (pam_envd) '; then
	pass "the installed envd runs"
else
	fail "the installed envd does not run: $("$envd" --version 2>&1 | head -n 3)"
fi
m=$dest$(dir_of man8dir "$TMP/dirs")/pam_envd.8
if [ "$(stat -c %a "$m" 2>/dev/null)" = 644 ]; then
	pass "manual page mode 644"
else
	fail "manual page mode $(stat -c %a "$m" 2>/dev/null), expected 644"
fi

if "$MAKE_CMD" -s -C "$top_builddir" uninstall DESTDIR="$dest" >"$TMP/uninstall.log" 2>&1; then
	pass "make uninstall DESTDIR"
else
	fail "make uninstall DESTDIR: $(tail -n 20 "$TMP/uninstall.log")"
fi
left=$(cd "$dest" 2>/dev/null && find . \( -type f -o -type l \) -print | sed 's|^\.||')
if [ -z "$left" ]; then
	pass "make uninstall left no file"
else
	fail "make uninstall left: $left"
fi
if [ ! -e "$dest$(dir_of docdir "$TMP/dirs")" ]; then
	pass "make uninstall removed the documentation directory"
else
	fail "make uninstall left $(cd "$dest" && find ".$(dir_of docdir "$TMP/dirs")" | head)"
fi

# --- 2. a real install, loaded by libpam -------------------------------------
part2_skip() {
	echo "SKIP (part 2, a real install): $*"
	finish
}
[ "$(id -u)" = 0 ] || part2_skip "needs root"
[ -n "$(dir_of module "$TMP/dirs")" ] || part2_skip "the module is not built (--disable-module)"
have_cmds flock pamtester useradd || part2_skip "$H_WHY"

# one at a time on this machine: the trees share the system directories
lockdir=/run/lock
[ -d "$lockdir" ] || lockdir=/tmp
exec 9>"$lockdir/pam_envd-install-test.lock"
flock -w 300 9 || part2_skip "another run held the install lock for 300s"

SYS_VARS=(prefix=/usr exec_prefix=/usr sysconfdir=/etc localstatedir=/var)
dirs "${SYS_VARS[@]}" >"$TMP/sys-dirs" || { fail "installation directories for prefix /usr"; exit 1; }
expected "$TMP/sys-dirs" | sort >"$TMP/sys-files"
sys_doc=$(dir_of docdir "$TMP/sys-dirs")
sys_so=$(dir_of securedir "$TMP/sys-dirs")/pam_envd.so

# Part 2 needs libpam to find the installed module by its bare name, that
# is in libpam's own module directory.  Linux-PAM compiles that directory
# in (--enable-securedir, by default LIBDIR/security of libpam's own build),
# and every distribution installs its modules, pam_permit.so among them,
# there: so it is the directory security/ next to the libpam that pamtester
# loads, checked to hold pam_permit.so (a stack of part 2 names that bare
# name too).  Compared after resolving symbolic links (/lib is /usr/lib
# with a merged /usr).  A tree configured for another system's directory
# (an RPM build's --with-securedir=/usr/lib64/security on Debian) cannot be
# tested by a real install here.
pam_lib=$(ldd "$(command -v pamtester)" 2>/dev/null | awk '$1 ~ /^libpam\.so/ { print $3; exit }')
[ -n "$pam_lib" ] || part2_skip "ldd does not show the libpam of pamtester"
pam_dir=$(dirname "$pam_lib")/security
[ -f "$pam_dir/pam_permit.so" ] ||
	part2_skip "libpam's module directory not found: no $pam_dir/pam_permit.so"
sys_secure=$(dir_of securedir "$TMP/sys-dirs")
if [ "$(readlink -f "$sys_secure")" != "$(readlink -f "$pam_dir")" ]; then
	part2_skip "the module would go to $sys_secure, libpam loads modules from $pam_dir"
fi
sys_reader=$(dir_of readerdir "$TMP/sys-dirs")
# every directory below docdir that the install makes, the reader's own,
# then the files
{
	echo "$sys_doc/"
	echo "$sys_reader/"
	sed -n "s|^$sys_doc/\(.*\)/[^/]*$|\1|p" "$TMP/sys-files" | while IFS= read -r d; do
		while [ -n "$d" ] && [ "$d" != . ]; do
			echo "$sys_doc/$d/"
			case $d in */*) d=${d%/*} ;; *) d= ;; esac
		done
	done
	cat "$TMP/sys-files"
} | sort -u >"$TMP/sys-expected"
while IFS= read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then
		part2_skip "$f exists: pam_envd is installed on this system; not touching it"
	fi
done <"$TMP/sys-expected"
[ -e /usr/bin/envd ] && part2_skip "/usr/bin/envd exists; not touching it"

# snapshot DIR...: the entries directly in each directory, and the whole
# documentation directory (directories end in /)
snapshot() {
	local d
	for d in "$(dir_of bindir "$TMP/sys-dirs")" "$(dir_of securedir "$TMP/sys-dirs")" \
		"$(dir_of man1dir "$TMP/sys-dirs")" "$(dir_of man5dir "$TMP/sys-dirs")" \
		"$(dir_of man8dir "$TMP/sys-dirs")" "$(dir_of profiledir "$TMP/sys-dirs")" \
		"${sys_doc%/*}"; do
		[ -d "$d" ] && find "$d" -mindepth 1 -maxdepth 1 \( -type d -printf '%p/\n' -o -print \)
	done
	[ -d "$sys_doc" ] && find "$sys_doc" \( -type d -printf '%p/\n' -o -print \)
	[ -d "$sys_reader" ] && find "$sys_reader" \( -type d -printf '%p/\n' -o -print \)
	return 0
}

# the user, the service and the recorder of tests/lib/e2e_lib.sh, whose cleanup
# runs after ours
. "$top_srcdir/tests/lib/e2e_lib.sh"
e2e_init
at_exit cleanup_install

u=$(e2e_user i)
h=$(home_of "$u")
as "$u" mkdir -p "$h/.config/environment.d"
as "$u" sh -c "cat >'$h/.config/environment.d/50-install.conf'" <<'EOF'
INSTALL_TEST=from-the-installed-module
INSTALL_HOME=$HOME/x
EOF
svc=$(e2e_service install <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  required pam_envd.so reader=$(dir_of readerdir "$TMP/sys-dirs")/reader
session  required pam_exec.so $HELPER $OUT
EOF
)

# a required module that is missing fails the stack, whose other modules
# still run: the recorder too
e2e_pam "$svc" "$u" open_session >/dev/null
expect_false "before the install, the bare name pam_envd.so does not load" test "$E2E_RC" = 0
expect_true "the recorder ran all the same" test -s "$(record "$u")"
expect_false "and the user's variable does not arrive" hasvar "$(record "$u")" INSTALL_TEST

snapshot | sort -u >"$TMP/before"
SYS_INSTALLED=yes
if "$MAKE_CMD" -s -C "$top_builddir" install "${SYS_VARS[@]}" >"$TMP/sys-install.log" 2>&1; then
	pass "make install prefix=/usr"
else
	fail "make install prefix=/usr: $(tail -n 20 "$TMP/sys-install.log")"
fi
snapshot | sort -u >"$TMP/after"
comm -13 "$TMP/before" "$TMP/after" >"$TMP/added"
comm -23 "$TMP/before" "$TMP/after" >"$TMP/removed"
if diff -u "$TMP/sys-expected" "$TMP/added" >"$TMP/diff"; then
	pass "installed exactly the $(wc -l <"$TMP/sys-files") expected files into the system"
else
	fail "the install into the system differs (- missing, + unexpected):"
	sed -n '3,$p' "$TMP/diff" | grep '^[-+]'
fi
expect_eq "the install removed nothing" "$(cat "$TMP/removed")" ""
expect_true "the module is in $(dirname "$sys_so")" test -f "$sys_so"

rm -f "$(record "$u")"
e2e_pam "$svc" "$u" open_session
r=$(record "$u")
expect_eq "open_session with the installed module" "$E2E_RC" 0
expect_true "the recorder after the module ran" test -s "$r"
expect_eq "the user's variable arrives" "$(getvar "$r" INSTALL_TEST)" from-the-installed-module
expect_eq "expanded against the login" "$(getvar "$r" INSTALL_HOME)" "$h/x"

if "$MAKE_CMD" -s -C "$top_builddir" uninstall "${SYS_VARS[@]}" >"$TMP/sys-uninstall.log" 2>&1; then
	pass "make uninstall prefix=/usr"
else
	fail "make uninstall prefix=/usr: $(tail -n 20 "$TMP/sys-uninstall.log")"
fi
snapshot | sort -u >"$TMP/final"
if diff -u "$TMP/before" "$TMP/final" >"$TMP/diff"; then
	SYS_INSTALLED=no
	pass "make uninstall left the system directories as they were"
else
	fail "after make uninstall (- gone, + left behind):"
	sed -n '3,$p' "$TMP/diff" | grep '^[-+]'
fi

rm -f "$(record "$u")"
e2e_pam "$svc" "$u" open_session >/dev/null
expect_false "after the uninstall, pam_envd.so does not load" test "$E2E_RC" = 0
expect_true "the recorder ran all the same" test -s "$(record "$u")"
expect_false "and the user's variable does not arrive" hasvar "$(record "$u")" INSTALL_TEST

e2e_finish
