#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/selinux/policy.sh OUT - the SELinux policy module of selinux/
# built with the reference policy's development Makefile, installed
# offline (semodule -p, -n) into a copy of this machine's policy store in
# OUT (the machine's own store is never written, and no SELinux kernel is
# needed), and read back with sesearch on the linked binary policy:
# - the reader's domain pam_envd_reader_t, entered from
#   pam_envd_reader_exec_t (/usr/libexec/pam_envd/reader's file
#   context), searches the home and ~/.config and lists and reads
#   ~/.config/environment.d and /run/environment.d, takes the user's ids
#   and drops its capabilities;
# - the login domains (sshd_t, local_login_t, remote_login_t, xdm_t, the
#   su and sudo domains of user, staff and sysadm) run it by a domain
#   transition only (a type_transition, no execute_no_trans), their roles
#   may have it, they read /run/environment.d but no user's environment.d;
# - crond_t runs it only under the boolean pam_envd_cron_user_environment,
#   off by default, and reads no user's environment.d;
# - the users' domains (user_t, staff_t, guest_t, xguest_t, unconfined_t)
#   create, write, rename and remove theirs, environment.d created in
#   ~/.config gets the module's type by its name, and the module lets none
#   of them relabel to or from it (the guests none at all);
# the compiled file contexts label both directories, their files and the
# reader.  A module without the sshd_t line and the home's file context
# takes back exactly those answers (the checks prove the rules), and
# semodule -r leaves the policy and the file contexts as they were, byte
# for byte.
# Prints PASS:, FAIL: and SKIP: lines; exits 1 on any failure, 77 when
# the machine has no reference policy store.
set -u
export LC_ALL=C
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: tests/selinux/policy.sh OUT}
. "$top/tests/lib/harness.sh"
harness_init selinux pkg
need_cmds make m4 checkmodule semodule_package semodule sesearch seinfo matchpathcon sha256sum
devel=/usr/share/selinux/devel/Makefile
[ -f "$devel" ] || skip_all "no $devel (Debian: selinux-policy-dev; ./dev deps installs it)"
name=$(sed -n 's/^SELINUXTYPE=//p' /etc/selinux/config 2>/dev/null)
store=/var/lib/selinux/$name
[ -n "$name" ] && [ -r "$store/active/policy.kern" ] && [ -d "/etc/selinux/$name" ] ||
	skip_all "no readable policy store (/etc/selinux/config, /var/lib/selinux; Debian: selinux-policy-default)"

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$out/root

# the machine's own policy, checked unchanged at the end
real_sums() { sha256sum /etc/selinux/"$name"/policy/policy.* "$store"/active/policy.kern 2>/dev/null; }
real_before=$(real_sums)

# ---- build
cp -r "$top/selinux" "$out/src"
if make -C "$out/src" pam_envd.pp >"$out/build.log" 2>&1 && [ -s "$out/src/pam_envd.pp" ]; then
	pass "make -C selinux: pam_envd.pp built with $devel"
else
	fail "make -C selinux; end of $out/build.log:" "$(tail -n 20 "$out/build.log")"
	finish
fi
# the module with the sshd_t line and the home's file context taken out
cp -r "$top/selinux" "$out/mutant"
grep -v '^pam_envd_login(sshd_t)$' "$top/selinux/pam_envd.te" >"$out/mutant/pam_envd.te"
sed -i '/^HOME_DIR/d' "$out/mutant/pam_envd.fc"
if grep -q "pam_envd_login(sshd_t)" "$out/mutant/pam_envd.te" || grep -q '^HOME_DIR' "$out/mutant/pam_envd.fc"; then
	fail "the mutant module still has the sshd_t line or the home's file context"
elif make -C "$out/mutant" pam_envd.pp >"$out/mutant.log" 2>&1; then
	pass "the module without the sshd_t line and the home's file context builds"
else
	fail "the mutant module; end of $out/mutant.log:" "$(tail -n 20 "$out/mutant.log")"
fi

# ---- a copy of the store, rebuilt once so that the baseline is this
# libsemanage's output; usepasswd=false: the home contexts come from the
# policy's HOME_ROOT (/home) only, not from the users other tests add
mkdir -p "$root/etc" "$root/var/lib/selinux"
cp -a "/etc/selinux" "$root/etc/"
cp -a "$store" "$root/var/lib/selinux/"
echo "usepasswd=false" >>"$root/etc/selinux/semanage.conf"
sm() { semodule -p "$root" -s "$name" -n "$@" >>"$out/semodule.log" 2>&1; }
if semodule -p "$root" -s "$name" -l 2>/dev/null | grep -qx 'pam_envd.*'; then
	sm -r pam_envd # the machine has it installed: start without it
fi
sm -B || { fail "semodule -B on the copy of the store" "$(tail -n 20 "$out/semodule.log")"; finish; }
pol=$(find "$root/etc/selinux/$name/policy" -name 'policy.[0-9]*' | sort | tail -n 1)
fcdir=$root/etc/selinux/$name/contexts/files
sums() { (cd "$root/etc/selinux/$name" && sha256sum policy/policy.* contexts/files/file_contexts \
	contexts/files/file_contexts.bin contexts/files/file_contexts.homedirs \
	contexts/files/file_contexts.homedirs.bin 2>/dev/null); }
before=$(sums)
echo "before install:"
echo "$before" | sed 's/^/    /'

if sm -i "$out/src/pam_envd.pp"; then
	pass "semodule -p COPY -n -i pam_envd.pp (no SELinux kernel, machine store untouched)"
else
	fail "semodule -i" "$(tail -n 20 "$out/semodule.log")"
	finish
fi

# ---- the accesses
mkdir -p "$out/rules"
has_type() { seinfo -t "$1" "$pol" 2>/dev/null | grep -q "^ *$1\$"; }
# sesearch is slow to load a policy: the rules of each target type and
# class are asked for once (attributes expanded, as the kernel does;
# conditional rules left out), the attributes of each domain once
rules_of() { # TGT CLASS: a file with the unconditional allow rules
	local f=$out/rules/$1.$2
	[ -f "$f" ] || sesearch -A -t "$1" -c "$2" "$pol" 2>/dev/null | grep -v ']:' >"$f"
	echo "$f"
}
names_of() { # DOMAIN: the domain and its attributes
	local f=$out/rules/$1.names
	[ -f "$f" ] || seinfo -x -t "$1" "$pol" 2>/dev/null |
		sed -n 's/^ *type \(.*\);$/\1/p' | tr -d ',' >"$f"
	cat "$f"
}
# allowed SRC TGT CLASS PERM...: every permission has a rule; prints the
# rules that grant them, or the permissions without one
allowed() {
	local s=$1 t=$2 c=$3
	shift 3
	awk -v names="$(names_of "$s")" -v need="$*" -v c="$c" '
		BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) src[a[i]] = 1 }
		$1 == "allow" && ($2 in src) {
			line = $0; sub(/^[^:]*:[^ ]* /, "", line); gsub(/[{};]/, " ", line)
			k = split(line, p, " "); used = 0
			for (i = 1; i <= k; i++) { has[p[i]] = 1; if (index(" " need " ", " " p[i] " ")) used = 1 }
			if (used) print "    " $0
		}
		END { m = split(need, q, " "); bad = 0
			for (i = 1; i <= m; i++) if (!(q[i] in has)) { print "    no rule: allow " s " " t ":" c " " q[i]; bad = 1 }
			exit bad }' s="$s" t="$t" "$(rules_of "$t" "$c")"
}
# check_allowed WHAT SRC TGT CLASS PERM...
check_allowed() {
	local what=$1 ev
	shift
	if ev=$(allowed "$@"); then
		pass "$what"
		echo "$ev"
	else
		fail "$what" "$ev"
	fi
}
if has_type xdg_config_t; then config=xdg_config_t; else config=config_home_t; fi
runtime_dir=var_run_t
# check_denied WHAT SRC TGT CLASS PERM...: no unconditional rule grants
# any of the permissions (the rules that do are printed)
check_denied() {
	local what=$1 s=$2 t=$3 c=$4 p ev=
	shift 4
	for p in "$@"; do
		if allowed "$s" "$t" "$c" "$p" >"$out/denied.ev" 2>&1; then
			ev="$ev$(cat "$out/denied.ev")"$'\n'
		fi
	done
	if [ -z "$ev" ]; then pass "$what"; else fail "$what" "$ev"; fi
}
# a domain the policy makes unconfined reads every file type anyway
unconfined() { names_of "$1" | grep -qw files_unconfined_type; }

# the reader's own domain, entered from its program only
if has_type pam_envd_reader_t && has_type pam_envd_reader_exec_t; then
	pass "the reader's domain pam_envd_reader_t and its program's type pam_envd_reader_exec_t"
else
	fail "no pam_envd_reader_t or pam_envd_reader_exec_t in the policy"
fi
check_allowed "pam_envd_reader_t is entered from pam_envd_reader_exec_t" \
	pam_envd_reader_t pam_envd_reader_exec_t file entrypoint
reader_reads() { # DOMAIN
	local d=$1
	check_allowed "$d searches the homes and ~/.config ($config)" "$d" user_home_dir_t dir search getattr &&
		check_allowed "$d: ~/.config" "$d" "$config" dir search getattr
	check_allowed "$d lists ~/.config/environment.d" "$d" pam_envd_home_t dir search getattr open read
	check_allowed "$d reads its files" "$d" pam_envd_home_t file getattr open read
	check_allowed "$d reads its symbolic links" "$d" pam_envd_home_t lnk_file getattr read
}
runtime_reads() { # DOMAIN
	local d=$1
	check_allowed "$d searches /run ($runtime_dir)" "$d" "$runtime_dir" dir search getattr
	check_allowed "$d lists /run/environment.d" "$d" pam_envd_runtime_t dir search getattr open read
	check_allowed "$d reads its files and links" "$d" pam_envd_runtime_t file getattr open read &&
		check_allowed "$d: links" "$d" pam_envd_runtime_t lnk_file getattr read
}
reader_reads pam_envd_reader_t
runtime_reads pam_envd_reader_t
check_allowed "the reader takes the user's ids" pam_envd_reader_t pam_envd_reader_t capability setuid setgid
check_allowed "the reader drops its capabilities and sets its limits" pam_envd_reader_t \
	pam_envd_reader_t process setcap setrlimit

# role ROLE: the reader's domain is among its types
role_has_reader() {
	if seinfo -x -r "$1" "$pol" 2>/dev/null | grep -qw pam_envd_reader_t; then
		pass "role $1 may have pam_envd_reader_t"
	else
		fail "role $1 lacks pam_envd_reader_t"
	fi
}
# login_runs DOMAIN ROLE: runs the reader by a domain transition only, and
# reads no user's environment.d itself
login_runs() {
	local d=$1 tt
	tt=$(sesearch -T -s "$d" -t pam_envd_reader_exec_t -c process "$pol" 2>/dev/null |
		grep -v ']:' | grep ' pam_envd_reader_t;') || true
	if [ -n "$tt" ]; then
		pass "$d: executing the reader enters pam_envd_reader_t"
		echo "    $tt"
	else
		fail "$d: no type_transition $d pam_envd_reader_exec_t:process pam_envd_reader_t"
	fi
	check_allowed "$d may transition to pam_envd_reader_t" "$d" pam_envd_reader_t process transition
	check_allowed "$d executes the reader" "$d" pam_envd_reader_exec_t file execute
	check_allowed "$d kills the reader" "$d" pam_envd_reader_t process sigkill
	if unconfined "$d"; then
		skip "$d is unconfined in this policy: it may execute and read anything"
		return
	fi
	check_denied "$d runs the reader by a transition only (no execute_no_trans)" \
		"$d" pam_envd_reader_exec_t file execute_no_trans
	check_denied "$d reads no ~/.config/environment.d (only the reader does)" \
		"$d" pam_envd_home_t file read open
	check_denied "$d lists no ~/.config/environment.d" "$d" pam_envd_home_t dir read
	runtime_reads "$d"
}
for d in sshd_t local_login_t remote_login_t xdm_t; do
	if has_type "$d"; then login_runs "$d"; else skip "$d: not in this policy"; fi
done
role_has_reader system_r
for r in user staff sysadm; do
	for k in su sudo; do
		if has_type "${r}_${k}_t"; then login_runs "${r}_${k}_t"; else skip "${r}_${k}_t: not in this policy"; fi
	done
	role_has_reader "${r}_r"
done

# cron: the reader only with the boolean, off by default
if has_type crond_t; then
	b=$(seinfo -x -b pam_envd_cron_user_environment "$pol" 2>/dev/null | grep -w pam_envd_cron_user_environment)
	case $b in
	*false*) pass "the boolean pam_envd_cron_user_environment, off by default"; echo "    $b" ;;
	*) fail "no boolean pam_envd_cron_user_environment off by default" "$b" ;;
	esac
	check_denied "crond_t may not run the reader without the boolean" \
		crond_t pam_envd_reader_t process transition
	check_denied "crond_t reads no ~/.config/environment.d" crond_t pam_envd_home_t file read open
	tt=$(sesearch -A -s crond_t -t pam_envd_reader_t -c process -p transition "$pol" 2>/dev/null |
		grep '\[ pam_envd_cron_user_environment \]:True') || true
	if [ -n "$tt" ]; then
		pass "with the boolean on, crond_t may run the reader"
		echo "    $tt"
	else
		fail "no rule under pam_envd_cron_user_environment lets crond_t run the reader"
	fi
	runtime_reads crond_t
else
	skip "crond_t: not in this policy"
fi
user_edits() { # DOMAIN
	local d=$1 tt
	check_allowed "$d creates, writes, renames and removes environment.d" "$d" pam_envd_home_t dir \
		create write add_name remove_name rename rmdir search read setattr
	check_allowed "$d creates, writes, renames and removes its files" "$d" pam_envd_home_t file \
		create write read open rename unlink setattr
	check_allowed "$d creates, renames and removes its links" "$d" pam_envd_home_t lnk_file \
		create read rename unlink
	tt=$(sesearch -T -s "$d" -t "$config" -c dir "$pol" 2>/dev/null | grep ' pam_envd_home_t "\{0,1\}environment\.d"\{0,1\};') || true
	if [ -n "$tt" ]; then
		pass "$d: environment.d made in ~/.config gets pam_envd_home_t"
		echo "    $tt"
	else
		fail "$d: no type_transition $d $config:dir pam_envd_home_t \"environment.d\""
	fi
	# the type transition is enough: the module lets no user domain
	# relabel into or out of the type (restorecon as root, setfiles_t,
	# does).  The reference policy's xdg module lets user_t and staff_t
	# relabel among all their configuration types (xdg_config_type, which
	# pam_envd_home_t is): that is the base policy's, checked apart
	for c in dir file lnk_file; do
		if own_grant "$d" pam_envd_home_t "$c" relabelfrom relabelto; then
			fail "$d may relabel to or from pam_envd_home_t ($c) by the module's own rules" \
				"$(cat "$out/own.ev")"
		else
			pass "the module lets $d relabel nothing to or from pam_envd_home_t ($c)"
		fi
	done
}
# own_grant SRC TGT CLASS PERM...: a rule written for TGT itself (not an
# attribute of it) grants SRC, or an attribute of SRC, one of PERMs
own_grant() {
	local s=$1 t=$2 c=$3
	shift 3
	awk -v names="$(names_of "$s")" -v need=" $* " -v t="$t:$c" '
		BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) src[a[i]] = 1 }
		$1 == "allow" && ($2 in src) && $3 == t {
			line = $0; gsub(/[{};]/, " ", line); k = split(line, p, " ")
			for (i = 4; i <= k; i++) if (index(need, " " p[i] " ")) { print "    " $0; found = 1; break }
		}
		END { exit !found }' "$(rules_of "$t" "$c")" >"$out/own.ev"
}
for d in user_t staff_t guest_t xguest_t unconfined_t; do
	if has_type "$d"; then user_edits "$d"; else skip "$d: not in this policy"; fi
done
# the guests have no relabelling of it at all, whoever grants it
for d in guest_t xguest_t; do
	has_type "$d" || continue
	for c in dir file lnk_file; do
		check_denied "$d may not relabel to or from pam_envd_home_t ($c)" "$d" pam_envd_home_t "$c" \
			relabelfrom relabelto
	done
done

# ---- the file contexts (file_contexts with its homedirs)
label() { matchpathcon -n -f "$fcdir/file_contexts" "$1" 2>/dev/null | awk -F: '{ print $3 }'; }
check_label() { # PATH TYPE
	local got
	got=$(label "$1")
	if [ "$got" = "$2" ]; then pass "file context: $1 is $2"; else fail "file context: $1 is '$got', not $2"; fi
}
check_label /home/u/.config/environment.d pam_envd_home_t
check_label /home/u/.config/environment.d/10-path.conf pam_envd_home_t
check_label /home/u/.config "$config"
check_label /run/environment.d pam_envd_runtime_t
check_label /run/environment.d/50-site.conf pam_envd_runtime_t
check_label /etc/environment.d/50-site.conf etc_t
check_label /usr/libexec/pam_envd/reader pam_envd_reader_exec_t
# Debian's multiarch place (libpam-envd is Multi-Arch: same)
check_label /usr/lib/x86_64-linux-gnu/pam_envd/reader pam_envd_reader_exec_t

# ---- the checks prove the rules: the module without them
if [ -s "$out/mutant/pam_envd.pp" ] && sm -i "$out/mutant/pam_envd.pp"; then
	pol=$(find "$root/etc/selinux/$name/policy" -name 'policy.[0-9]*' | sort | tail -n 1)
	rm -rf "$out/rules"
	mkdir -p "$out/rules"
	if has_type sshd_t && allowed sshd_t pam_envd_reader_t process transition >/dev/null; then
		fail "without the sshd_t line, sshd_t still may run the reader"
	else
		pass "without the sshd_t line, the check of sshd_t running the reader fails"
	fi
	if allowed local_login_t pam_envd_reader_t process transition >/dev/null; then
		pass "without the sshd_t line, local_login_t still runs it"
	else
		fail "the mutant module took more than the sshd_t line"
	fi
	if [ "$(label /home/u/.config/environment.d)" != pam_envd_home_t ]; then
		pass "without the home's file context, ~/.config/environment.d is $(label /home/u/.config/environment.d)"
	else
		fail "without the home's file context, ~/.config/environment.d still is pam_envd_home_t"
	fi
else
	fail "semodule -i of the mutant module" "$(tail -n 20 "$out/semodule.log")"
fi

# ---- removal restores the policy byte for byte
if sm -r pam_envd; then
	pass "semodule -p COPY -n -r pam_envd"
else
	fail "semodule -r" "$(tail -n 20 "$out/semodule.log")"
fi
after=$(sums)
echo "after removal:"
echo "$after" | sed 's/^/    /'
if [ "$before" = "$after" ] && [ -n "$before" ]; then
	pass "the policy and the file contexts after removal are the ones before, byte for byte"
else
	fail "the policy or the file contexts differ after removal" "$(diff <(echo "$before") <(echo "$after"))"
fi
if [ "$(real_sums)" = "$real_before" ]; then
	pass "the machine's own policy store is unchanged"
else
	fail "the machine's own policy store changed"
fi
finish
