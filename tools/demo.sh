#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# demo.sh BUILD_DIR - the real pam_envd.so on examples/, through pamtester.
#
# As root: a temporary user gets examples/user as its home's files, the
# sample system files go to a temporary root-owned tree, a temporary
# /etc/pam.d service stacks pam_envd and a pam_exec helper that records the
# session's environment; everything is removed afterwards.  Otherwise
# pam_wrapper lets pamtester use a service file outside /etc/pam.d, for the
# caller's own account; the sample system files then cannot apply (system
# files must belong to root), so the machine's own system directories are
# used.  Either way the session's environment is printed next to
# `envd show --explain` for the same user and files.
set -euo pipefail

build=$(cd "${1:?usage: demo.sh BUILD_DIR}" && pwd)
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module=$build/pam_envd/.libs/pam_envd.so
envd=$build/src/envd
[ -f "$module" ] || { echo "demo: $module is not built" >&2; exit 1; }
[ -x "$envd" ] || { echo "demo: $envd is not built" >&2; exit 1; }
command -v pamtester >/dev/null || { echo "demo: pamtester is not installed" >&2; exit 1; }

tmp=$(mktemp -d /tmp/pam-envd-demo.XXXXXX)
chmod 755 "$tmp"
user=
service=
cleanup() {
	[ -z "$service" ] || rm -f "/etc/pam.d/$service"
	[ -z "$user" ] || userdel -f "$user" >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

mkdir -p "$tmp/out" "$tmp/bin"
cat >"$tmp/bin/record-env" <<'EOF'
#!/bin/sh
[ "$PAM_TYPE" = open_session ] && exec /usr/bin/env -0 >"$1/session.env"
exit 0
EOF
chmod 755 "$tmp/bin/record-env"

# the build tree's reader program (the installed one's place is not
# there): the module is told with reader=, envd with ENVD_READER
dirs_opt="reader=$build/helper/reader"
export ENVD_READER=$build/helper/reader
envd_args=()
if [ "$(id -u)" = 0 ]; then
	mode="as root: user, service and system files are temporary"
	user="envddemo$$"
	user=${user:0:32}
	useradd -m -d "$tmp/home" -s /bin/bash -K UMASK=022 "$user"
	cp -r "$top/examples/user/." "$tmp/home/"
	chown -R "$user:" "$tmp/home"
	mkdir -p "$tmp/root"
	cp -r "$top/examples/system/." "$tmp/root/"
	chown -R root:root "$tmp/root"
	chmod -R go-w "$tmp/root"
	r=$tmp/root
	dirs_opt="$dirs_opt system_dirs=$r/etc/environment.d:$r/run/environment.d"
	dirs_opt="$dirs_opt:$r/usr/local/lib/environment.d:$r/usr/lib/environment.d"
	envd_args=(--root "$r")
	service="pam-envd-demo-$$"
	pamd=/etc/pam.d
	runner=(pamtester)
else
	wrapper=$(ls /usr/lib/*/libpam_wrapper.so /usr/lib*/libpam_wrapper.so 2>/dev/null | head -n 1 || true)
	[ -n "$wrapper" ] || { echo "demo: not root and no libpam_wrapper.so" >&2; exit 1; }
	mode="as $(id -un) through pam_wrapper: your account, the machine's system files"
	user=
	target=$(id -un)
	mkdir -p "$tmp/home/.config"
	cp -r "$top/examples/user/.config/environment.d" "$tmp/home/.config/"
	chmod -R go-w "$tmp/home"
	dirs_opt="$dirs_opt user_dir=$tmp/home/.config/environment.d"
	envd_args=(--user-dir "$tmp/home/.config/environment.d")
	service=
	pamd=$tmp/pam.d
	mkdir -p "$pamd"
	runner=(env LD_PRELOAD="$wrapper" PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR="$pamd"
		PAM_WRAPPER_DEBUGLEVEL=0 pamtester)
fi
target=${user:-$(id -un)}
name=${service:-pam-envd-demo}
cat >"$pamd/$name" <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $module $dirs_opt
session  required pam_exec.so $tmp/bin/record-env $tmp/out
EOF
chmod 644 "$pamd/$name"

echo "== pam_envd demo ($mode)"
echo "== service $pamd/$name:"
sed 's/^/   /' "$pamd/$name"
echo
echo "== pamtester $name $target open_session"
"${runner[@]}" "$name" "$target" open_session 2>&1 | grep -v 'PWRAP_' || true
echo
echo "== the session's environment, as the pam_exec helper after pam_envd saw it"
echo "   (sorted; without the PAM_* that pam_exec adds and the PWD of the sh helper):"
tr '\0' '\n' <"$tmp/out/session.env" | grep -vE '^(PAM_[A-Z]+|PWD|SHLVL|_)=' | sort | sed 's/^/   /'
echo
echo "== envd show $target --explain ${envd_args[*]}"
"$envd" show "$target" --explain "${envd_args[@]}" 2>&1 | sed 's/^/   /'
echo
tr '\0' '\n' <"$tmp/out/session.env" | grep -vE '^(PAM_[A-Z]+|PWD|SHLVL|_)=' | sort >"$tmp/module.txt"
"$envd" show "$target" -q --format nul "${envd_args[@]}" | tr '\0' '\n' | sort >"$tmp/envd.txt"
if cmp -s "$tmp/module.txt" "$tmp/envd.txt"; then
	echo "== the module and envd agree: $(wc -l <"$tmp/envd.txt") variables"
else
	echo "== the module and envd differ:"
	diff "$tmp/envd.txt" "$tmp/module.txt" | sed 's/^/   /' || true
	exit 1
fi
