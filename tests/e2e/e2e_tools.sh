#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_tools.sh - names that steer root tools (issues 16 and 24), against
# the real tools (root only).
#
# A user's environment.d files set, family by family, a variable that made
# a real tool run a command or open a path as root, next to a harmless
# variable.  The service stacks, after pam_envd, the recording helper of
# e2e_lib.sh and a root pam_exec helper that runs the tools the way a
# careless helper would.  Each family asserts that the side effect (a
# marker file in a root-only directory, a file compressed away, a
# translated message) did not happen, that the helper saw none of the
# user's values, and that the harmless variable from the same file did
# arrive, so that no family can pass because nothing was applied.  A family
# whose tool is missing still checks the variables and says what it skips.
# Nothing reaches the network: file:// URLs, and 127.0.0.1 for wget.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init

u=$(e2e_user t)
uh=$(home_of "$u")
ud=$uh/.config/environment.d
PW=$E2E_TMP/pwned # markers: root-only, so only a root process can make them
mkdir -p "$ud" "$uh/bin" "$PW"
chmod 700 "$PW"

# payload NAME: a script of the user's that leaves the marker NAME.
payload() {
	printf '#!/bin/sh\ntouch %s/%s\n' "$PW" "$1" >"$uh/bin/$1"
	chmod 755 "$uh/bin/$1"
}
# userfile NAME <<EOF: one environment.d file per family.
userfile() { cat >"$ud/$1.conf"; }

# --- what the user writes, family by family -----------------------------

# tar: TAR_OPTIONS runs a command at each checkpoint
payload tar
userfile 10-tar <<EOF
TAR_OPTIONS=--checkpoint=1 --checkpoint-action=exec=$uh/bin/tar
HARMLESS_TAR=ok-tar
EOF

# git: a trace appended to a root-only file the user names; a common
# directory whose config names the fsmonitor command; GIT_EDITOR and
# GIT_AUTHOR_NAME are allowed back and arrive
payload git_fsmonitor
mkdir -p "$uh/gitcommon"
git init -q --bare "$uh/gitcommon" 2>/dev/null || mkdir -p "$uh/gitcommon"
printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n' "$uh/bin/git_fsmonitor" \
	>"$uh/gitcommon/config"
userfile 20-git <<EOF
GIT_TRACE=$PW/git_trace
GIT_TRACE2=$PW/git_trace2
GIT_COMMON_DIR=$uh/gitcommon
GIT_EDITOR=true
GIT_AUTHOR_NAME=ok-git-author
HARMLESS_GIT=ok-git
EOF

# curl: CURL_HOME's .curlrc writes the download where the user says
mkdir -p "$uh/curl"
printf 'output = "%s/curl"\n' "$PW" >"$uh/curl/.curlrc"
userfile 30-curl <<EOF
CURL_HOME=$uh/curl
HARMLESS_CURL=ok-curl
EOF

# wget: WGETRC's logfile is opened as root where the user says
printf 'logfile = %s/wget\n' "$PW" >"$uh/wgetrc"
userfile 31-wget <<EOF
WGETRC=$uh/wgetrc
HARMLESS_WGET=ok-wget
EOF

# tclsh: TCL_LIBRARY's init.tcl runs at start
mkdir -p "$uh/tcl"
printf 'close [open %s/tcl w]\n' "$PW" >"$uh/tcl/init.tcl"
userfile 40-tcl <<EOF
TCL_LIBRARY=$uh/tcl
HARMLESS_TCL=ok-tcl
EOF

# gio: every .so in GIO_EXTRA_MODULES is loaded
GIO_SO=no
mkdir -p "$uh/gio"
if ${CC:-cc} -shared -fPIC -o "$uh/gio/libpwned.so" -x c - 2>/dev/null <<EOF; then
#include <fcntl.h>
__attribute__((constructor)) static void f(void) { creat("$PW/gio", 0600); }
EOF
	GIO_SO=yes
fi
userfile 50-gio <<EOF
GIO_EXTRA_MODULES=$uh/gio
GI_TYPELIB_PATH=$uh/gio
GST_PLUGIN_PATH=$uh/gio
GST_PLUGIN_SYSTEM_PATH=$uh/gio
HARMLESS_GIO=ok-gio
EOF

# D-Bus: unixexec: makes every client run the command; the session bus
# address is refused for that transport only
payload dbus_system
payload dbus_session
userfile 60-dbus <<EOF
DBUS_SYSTEM_BUS_ADDRESS=unixexec:path=$uh/bin/dbus_system
DBUS_SESSION_BUS_ADDRESS=unixexec:path=$uh/bin/dbus_session
HARMLESS_DBUS=ok-dbus
EOF

# ruby: RUBYOPT requires the user's file; GEM_PATH offers a json gem newer
# than the default one, which require "json" then loads
mkdir -p "$uh/ruby" "$uh/gems/specifications" "$uh/gems/gems/json-999.0/lib"
printf 'File.write("%s/ruby_opt", "")\n' "$PW" >"$uh/ruby/pwn.rb"
cat >"$uh/gems/specifications/json-999.0.gemspec" <<'EOF'
Gem::Specification.new do |s|
  s.name = "json"
  s.version = "999.0"
  s.summary = "x"
  s.authors = ["x"]
  s.files = []
  s.require_paths = ["lib"]
end
EOF
printf 'File.write("%s/ruby_gem", "")\n' "$PW" >"$uh/gems/gems/json-999.0/lib/json.rb"
userfile 70-ruby <<EOF
RUBYOPT=-r$uh/ruby/pwn.rb
GEM_PATH=$uh/gems
GEM_HOME=$uh/gems
HARMLESS_RUBY=ok-ruby
EOF

# rsync: RSYNC_RSH is the command rsync runs to reach host:path
payload rsync
userfile 71-rsync <<EOF
RSYNC_RSH=$uh/bin/rsync
HARMLESS_RSYNC=ok-rsync
EOF

# bzip2 and xz: file names the user adds are compressed, and removed, as
# root
echo victim >"$E2E_TMP/victim-bz"
echo victim >"$E2E_TMP/victim-xz"
echo log >"$E2E_TMP/rootlog-bz"
echo log >"$E2E_TMP/rootlog-xz"
chmod 600 "$E2E_TMP/victim-bz" "$E2E_TMP/victim-xz"
echo "$E2E_TMP/victim-xz" >"$uh/xzlist"
userfile 72-compress <<EOF
BZIP2=$E2E_TMP/victim-bz
XZ_OPT=--files=$uh/xzlist
HARMLESS_COMPRESS=ok-compress
EOF

# apt (issue 24): APT_CONFIG names the user's apt.conf, read by every root
# apt tool (a root `apt-get update` ran its Pre-Invoke command); a root
# `apt-config dump` shows whether it was read
payload apt
cat >"$uh/apt.conf" <<EOF
EnvdTest::Marker "pwned-apt";
APT::Update::Pre-Invoke { "$uh/bin/apt"; };
EOF
userfile 73-apt <<EOF
APT_CONFIG=$uh/apt.conf
HARMLESS_APT=ok-apt
EOF

# util-linux (issue 24): a root blkid writes its cache over (renames onto)
# the file BLKID_FILE names, here a root-only one; a root `findmnt
# --fstab` reads the fstab LIBMOUNT_FSTAB names, `fsck -A` the one
# FSTAB_FILE names (-N: it only says what it would check)
echo "root secret" >"$E2E_TMP/victim-blkid"
chmod 600 "$E2E_TMP/victim-blkid"
printf 'envd-pwned-fstab /mnt/envd-pwned ext4 defaults 0 1\n' >"$uh/fstab"
userfile 74-mount <<EOF
BLKID_FILE=$E2E_TMP/victim-blkid
LIBMOUNT_FSTAB=$uh/fstab
FSTAB_FILE=$uh/fstab
HARMLESS_MOUNT=ok-mount
EOF

# less: LESSOPEN is a command less runs on every file, with no terminal
# too, and a lesskey file that LESS names (--lesskey-src) sets it; LESS
# itself arrives when it names no lesskey file (second session)
payload lessopen
payload lesskey
printf '#env\nLESSOPEN=|%s %%s\n' "$uh/bin/lesskey" >"$uh/lesskey"
echo "shown" >"$E2E_TMP/lessfile"
userfile 75-less <<EOF
LESSOPEN=|$uh/bin/lessopen %s
LESS=-R --lesskey-src=$uh/lesskey
HARMLESS_LESS=ok-less
EOF

# gettext: LANGUAGE leads from /usr/share/locale to the user's catalogue,
# whose translation of mkdir's error is a format the user wrote (LANG and
# LC_* naming a path come in a second session: one locale that cannot be
# loaded makes setlocale fail whole, and gettext then ignores LANGUAGE)
GETTEXT_MO=no
mkdir -p "$uh/loc/LC_MESSAGES"
if have_cmds msgfmt && printf '%s\n' 'msgid ""' 'msgstr "Content-Type: text/plain; charset=UTF-8\n"' \
	'' 'msgid "cannot create directory %s"' 'msgstr "PWNED-MO %s"' |
	msgfmt -o "$uh/loc/LC_MESSAGES/coreutils.mo" - 2>/dev/null; then
	GETTEXT_MO=yes
fi
userfile 80-locale <<EOF
LANG=C.UTF-8
LANGUAGE=../../../..$uh/loc
HARMLESS_LOCALE=ok-locale
EOF

# mail and others without a tool run here: the variables alone
userfile 90-other <<EOF
MAILRC=$uh/mailrc
TAR_OPTIONS_NOT=ok-near-miss
HARMLESS_OTHER=ok-other
EOF

chown -R "$u:" "$uh"
chmod -R go-w "$uh"

# --- the root helper: a careless script that runs ordinary tools ---------
# the tools it runs, each when installed (./dev deps installs them all;
# under CI=true a missing one fails here, else its family below says what
# it leaves unchecked)
have_cmds tar git curl wget tclsh gio dbus-send busctl ruby rsync bzip2 xz || true

git init -q "$E2E_TMP/rootrepo"
TOOLS=$E2E_TMP/bin/run-tools
cat >"$TOOLS" <<EOF
#!/bin/bash
[ "\${PAM_TYPE:-}" = open_session ] && [ "\${RUN_ID:-0}" = 0 ] || exit 0
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
exec >>"$OUT/tools.log" 2>&1 </dev/null
cd /
run() { echo "== \$*"; timeout 20 "\$@"; echo "rc=\$?"; }
have() { command -v "\$1" >/dev/null 2>&1; }
have tar && run tar -cf /dev/null -C /etc hostname
have git && run git -C "$E2E_TMP/rootrepo" status
have curl && run curl -s file:///etc/hostname
have wget && run wget -q -t 1 -T 5 --no-proxy http://127.0.0.1:9/
have tclsh && echo exit | run tclsh
have gio && run gio info /etc >/dev/null
have dbus-send && run dbus-send --system --print-reply --reply-timeout=2000 \
	--dest=org.freedesktop.DBus / org.freedesktop.DBus.Peer.Ping
have dbus-send && run dbus-send --session --print-reply --reply-timeout=2000 \
	--dest=org.freedesktop.DBus / org.freedesktop.DBus.Peer.Ping
have busctl && run busctl --system --timeout=2 status
have ruby && run ruby -e 'require "json"'
have rsync && RSYNC_RSH=\${RSYNC_RSH:-false} run rsync localhost:/etc/hostname "$E2E_TMP/rsync.out"
have bzip2 && run bzip2 "$E2E_TMP/rootlog-bz"
have xz && run xz "$E2E_TMP/rootlog-xz"
have blkid && run blkid
# out FILE COMMAND...: COMMAND's output in FILE, for the checks to read
out() { local f=\$1; shift; echo "== \$* >\$f"; timeout 20 "\$@" >"\$f" 2>&1; echo "rc=\$?"; }
have apt-config && out "$OUT/apt.dump" apt-config dump
have findmnt && out "$OUT/findmnt.out" findmnt --fstab -n -o SOURCE
have fsck && out "$OUT/fsck.out" fsck -A -N
have less && out "$OUT/less.out" less "$E2E_TMP/lessfile"
run mkdir /nonexistent-$$/x 2>"$OUT/mkdir.err"
exit 0
EOF
chmod 755 "$TOOLS"

svc=$(e2e_service tools <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS
session  required pam_exec.so $HELPER $OUT
session  optional pam_exec.so $TOOLS
EOF
)

E2E_TIME_LIMIT=$((E2E_TIME_LIMIT * 6)) # the tools start up one after the other
e2e_pam "$svc" "$u" open_session
expect_eq "the session opens" "$E2E_RC" 0
r=$(record "$u")
if [ ! -s "$r" ] || [ ! -s "$OUT/tools.log" ]; then
	fail "the helpers after the module did not run"
	e2e_finish
fi

# family DESC TOOL HARMLESS NAME... [-- WHAT MARKER...]: the harmless
# variable arrived, the named ones did not, and, when TOOL is installed,
# the tool run as root made none of the markers (WHAT: what would have
# made it); without TOOL, a note that its side effect is not checked, and
# a false return.
family() {
	local desc=$1 tool=$2 harmless=$3 want n
	shift 3
	want=${harmless#HARMLESS_}
	expect_eq "$desc: the harmless $harmless arrives" "$(getvar "$r" "$harmless")" "ok-${want,,}"
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		expect_false "$desc: $1 does not reach the root helper" hasvar "$r" "$1"
		shift
	done
	[ $# -eq 0 ] || shift
	if [ -n "$tool" ] && ! have_cmds "$tool"; then
		skip "$desc: $tool is not installed, its side effect is not checked"
		return 1
	fi
	while [ $# -ge 2 ]; do
		expect_false "$1: no $2 made as root" test -e "$PW/$2"
		shift 2
	done
	return 0
}

family tar tar HARMLESS_TAR TAR_OPTIONS -- "tar --checkpoint-action=exec" tar
family git git HARMLESS_GIT GIT_TRACE GIT_TRACE2 GIT_COMMON_DIR -- \
	"git trace into a root-only path" git_trace \
	"git trace2 into a root-only path" git_trace2 \
	"git core.fsmonitor of the user's common dir" git_fsmonitor
expect_eq "git: GIT_EDITOR is allowed back" "$(getvar "$r" GIT_EDITOR)" true
expect_eq "git: GIT_AUTHOR_NAME is allowed back" "$(getvar "$r" GIT_AUTHOR_NAME)" ok-git-author
family curl curl HARMLESS_CURL CURL_HOME -- "curl's .curlrc output" curl
family wget wget HARMLESS_WGET WGETRC -- "wget's wgetrc logfile" wget
family tcl tclsh HARMLESS_TCL TCL_LIBRARY -- "tclsh's init.tcl" tcl
gio_markers=()
[ "$GIO_SO" = no ] || gio_markers=("a GIO module of the user's" gio)
if family gio gio HARMLESS_GIO GIO_EXTRA_MODULES GI_TYPELIB_PATH GST_PLUGIN_PATH \
	GST_PLUGIN_SYSTEM_PATH -- "${gio_markers[@]}" && [ "$GIO_SO" = no ]; then
	skip "gio: no compiler for the module"
fi
family dbus dbus-send HARMLESS_DBUS DBUS_SYSTEM_BUS_ADDRESS DBUS_SESSION_BUS_ADDRESS -- \
	"the system bus's unixexec: command" dbus_system \
	"the session bus's unixexec: command" dbus_session
family ruby ruby HARMLESS_RUBY RUBYOPT GEM_PATH GEM_HOME -- \
	"RUBYOPT's -r file" ruby_opt "the json gem on GEM_PATH" ruby_gem
family rsync rsync HARMLESS_RSYNC RSYNC_RSH -- "RSYNC_RSH" rsync
if family compress bzip2 HARMLESS_COMPRESS BZIP2 XZ_OPT; then
	expect_true "bzip2: the root-owned file the user named is intact" \
		test -f "$E2E_TMP/victim-bz" -a ! -e "$E2E_TMP/victim-bz.bz2"
	if have_cmds xz; then
		expect_true "xz: the root-owned file the user listed is intact" \
			test -f "$E2E_TMP/victim-xz" -a ! -e "$E2E_TMP/victim-xz.xz"
	fi
fi
if family apt apt-config HARMLESS_APT APT_CONFIG; then
	expect_true "apt: the root apt-config dumped its configuration" test -s "$OUT/apt.dump"
	expect_false "apt: the root apt-config read none of the user's apt.conf" \
		grep -q pwned-apt "$OUT/apt.dump"
fi
if family mount findmnt HARMLESS_MOUNT BLKID_FILE LIBMOUNT_FSTAB FSTAB_FILE; then
	expect_false "findmnt: the root findmnt --fstab read none of the user's fstab" \
		grep -q envd-pwned "$OUT/findmnt.out"
	if have fsck; then
		expect_false "fsck: the root fsck -A took none of the user's fstab" \
			grep -q envd-pwned "$OUT/fsck.out"
	fi
	if have blkid; then
		expect_eq "blkid: the root-only file the user named is intact" \
			"$(cat "$E2E_TMP/victim-blkid")" "root secret"
		expect_eq "blkid: and still 0600" "$(stat -c %a "$E2E_TMP/victim-blkid")" 600
	fi
fi
if family less less HARMLESS_LESS LESSOPEN LESS -- "LESSOPEN's command" lessopen \
	"the lesskey file's LESSOPEN" lesskey; then
	expect_eq "less: the root less showed the file" "$(cat "$OUT/less.out")" shown
fi
family locale "" HARMLESS_LOCALE LANGUAGE
expect_eq "locale: LANG=C.UTF-8 arrives" "$(getvar "$r" LANG)" C.UTF-8
if [ "$GETTEXT_MO" = yes ]; then
	expect_false "gettext: mkdir's error is not the user's format" grep -q PWNED-MO "$OUT/mkdir.err"
	expect_true "gettext: mkdir reported its error" test -s "$OUT/mkdir.err"
else
	skip "locale: msgfmt is not installed, no catalogue to load"
fi
family other "" HARMLESS_OTHER MAILRC
expect_eq "a near miss of TAR_OPTIONS arrives" "$(getvar "$r" TAR_OPTIONS_NOT)" ok-near-miss

# LANG and LC_* naming a path, and a LESS without a lesskey file, in a
# second session
cat >"$ud/75-less.conf" <<EOF
LESS=-FRXK
EOF
cat >"$ud/80-locale.conf" <<EOF
LANG=$uh/loc
LC_TIME=../../../..$uh/loc
LC_MESSAGES=$uh/loc
HARMLESS_LOCALE=ok-locale2
EOF
e2e_pam -E RUN_ID=1 "$svc" "$u" open_session
expect_eq "locale: the second session opens" "$E2E_RC" 0
r1=$(record "$u" 1)
expect_eq "locale: the harmless HARMLESS_LOCALE arrives" "$(getvar "$r1" HARMLESS_LOCALE)" ok-locale2
for n in LANG LC_TIME LC_MESSAGES; do
	expect_false "locale: $n naming a path does not reach the root helper" hasvar "$r1" "$n"
done
expect_eq "less: a LESS without a lesskey file arrives" "$(getvar "$r1" LESS)" -FRXK

# None of the user's values, whatever the name: every one names the home.
expect_false "no value naming the user's home reaches the root helper" grep -qF "$uh" "$r" "$r1"
[ -z "$E2E_SHIM" ] || expect_true "refusals are logged" \
	grep -q "20-git.conf:1: GIT_TRACE" "$E2E_LOG"

if [ "$H_FAILS" != 0 ]; then
	echo "--- what the tools said"
	cat "$OUT/tools.log"
fi
e2e_finish
