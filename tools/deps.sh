#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tools/deps.sh [--demo] - installs the build and test dependencies (./dev
# deps, and before every ./dev command that builds): each line of
# tools/deps.list (but those tests/pkg/dm.sh installs itself) is probed, and
# the Debian packages of the ones that are missing are installed with
# apt-get (through sudo when not root); nothing when all are there.
# --demo: only the lines tagged demo, what ./dev demo needs (a compiler, the
# autotools, the Linux-PAM headers, pamtester).  DEVELOPING.md lists the
# Fedora, Arch and Alpine names.
set -euo pipefail

list=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/deps.list
want=all
case ${1:-} in
'') ;;
--demo) want=demo ;;
*) echo "usage: $0 [--demo]" >&2; exit 2 ;;
esac

# probe KIND NAME: the thing a line of deps.list names is there (commands
# also in the sbin directories, which a user's PATH may lack)
probe() {
	case $1 in
	cmd) PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin command -v "$2" >/dev/null 2>&1 ;;
	pc) pkg-config --exists "$2" 2>/dev/null ;;
	file) compgen -G "$2" >/dev/null ;;
	*) echo "dev: $list: unknown kind '$1'" >&2; return 1 ;;
	esac
}

# the packages of the lines whose probe fails, once each
missing=()
while read -r kind name pkg tag; do
	case $kind in '' | '#'*) continue ;; esac
	case $want/${tag:-} in
	*/dm) continue ;; # tests/pkg/dm.sh installs it
	demo/demo | all/*) ;;
	*) continue ;;
	esac
	probe "$kind" "$name" && continue
	case " ${missing[*]} " in *" $pkg "*) ;; *) missing+=("$pkg") ;; esac
done <"$list"
[ ${#missing[@]} != 0 ] || exit 0

sudo=
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then sudo=sudo; else
		echo "dev: missing build dependencies and not root; install: ${missing[*]}" >&2
		exit 1
	fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
	echo "dev: not a Debian system; install the packages listed in DEVELOPING.md" >&2
	exit 1
fi
# slapd and libnss-ldapd (tests/e2e/e2e_ldap.sh, which configures both
# itself) are installed without questions: slapd makes no database of its
# own and libnss-ldapd leaves /etc/nsswitch.conf alone; postfix
# (tests/e2e/e2e_clients.sh) gets no configuration: no main.cf, so no
# MTA runs and the machine's mail is left alone.  Another apt run
# may hold debconf's database for a while: waited for, as the dpkg lock.
preseed() {
	local _
	for _ in $(seq 1 180); do
		$sudo debconf-set-selections 2>/dev/null <<'EOF' && return 0
slapd slapd/no_configuration boolean true
libnss-ldapd libnss-ldapd/nsswitch multiselect
postfix postfix/main_mailer_type select No configuration
EOF
		sleep 5
	done
	echo "dev: debconf's database stayed locked: slapd, libnss-ldapd and postfix not preseeded" >&2
}
case " ${missing[*]} " in *" slapd "* | *" libnss-ldapd "* | *" postfix "*) preseed ;; esac
# sssd-ldap (tests/e2e/e2e_sssd.sh, which runs sssd in a mount namespace of
# its own) pulls libpam-sss, libpam-pwquality and libnss-sss, whose
# installs would add pam_sss and pam_pwquality to /etc/pam.d/common-* and
# sss to /etc/nsswitch.conf: the two PAM profiles are marked as seen
# first (pam-auth-update then leaves them disabled), and what libnss-sss
# adds to nsswitch.conf is taken out again after the install.
sss_nss=
if [[ " ${missing[*]} " == *" sssd-ldap "* ]]; then
	for p in sss pwquality; do
		grep -qx "$p" /var/lib/pam/seen 2>/dev/null || echo "$p" | $sudo tee -a /var/lib/pam/seen >/dev/null
	done
	if ! dpkg-query -W -f '${Status}' libnss-sss 2>/dev/null | grep -q '^install ok installed'; then
		sss_nss=$(grep -c '^automount:' /etc/nsswitch.conf || true)
	fi
fi
sss_nss_undo() {
	[ -n "$sss_nss" ] || return 0
	local e=(-e '/^(passwd|group|shadow|gshadow|netgroup|services|automount):/ s/[[:space:]]+sss([[:space:]]|$)/\1/')
	[ "$sss_nss" != 0 ] || e+=(-e '/^automount:[[:space:]]*$/d')
	$sudo sed -E -i "${e[@]}" /etc/nsswitch.conf
}
what="build and test"
[ "$want" = all ] || what=$want
echo "dev: installing the $what dependencies: ${missing[*]}" >&2
# another apt run (a second checkout's ./dev) holds the lock: wait for it
lock=(-o DPkg::Lock::Timeout=900)
$sudo apt-get "${lock[@]}" update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive $sudo apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
sss_nss_undo
