#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/selinux/policy.sh OUT - the SELinux policy module of selinux/
# built with the reference policy's development Makefile, installed
# offline (semodule -p, -n) into a copy of this machine's policy store in
# OUT (the machine's own store is never written, and no SELinux kernel is
# needed), and read back: sesearch on the linked binary policy shows that
# the login domains (sshd_t, local_login_t, remote_login_t, xdm_t,
# crond_t) may search the home and ~/.config, list, read and read the
# links of ~/.config/environment.d and /run/environment.d, and that the
# users' domains (user_t, staff_t, unconfined_t) may still create, write,
# rename and remove theirs, with environment.d created in ~/.config
# getting the module's type by its name; the compiled file contexts label
# both directories and their files.  A module without the sshd_t block
# and the home's file context takes back exactly those answers (the checks
# prove the rules), and semodule -r leaves the policy and the file
# contexts as they were, byte for byte.
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
# the module with the sshd_t block and the home's file context taken out
cp -r "$top/selinux" "$out/mutant"
awk '/^optional_policy\(`$/ { b = $0; inb = 1; next }
	inb { b = b "\n" $0; if ($0 == "'"')"'") { inb = 0; if (b !~ /sshd_t/) print b }; next }
	{ print }' "$top/selinux/pam_envd.te" >"$out/mutant/pam_envd.te"
sed -i '/^HOME_DIR/d' "$out/mutant/pam_envd.fc"
if grep -q "type sshd_t" "$out/mutant/pam_envd.te" || grep -q '^HOME_DIR' "$out/mutant/pam_envd.fc"; then
	fail "the mutant module still has the sshd_t block or the home's file context"
elif make -C "$out/mutant" pam_envd.pp >"$out/mutant.log" 2>&1; then
	pass "the module without the sshd_t block and the home's file context builds"
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
login_reads() { # DOMAIN
	local d=$1
	check_allowed "$d searches the homes and ~/.config ($config)" "$d" user_home_dir_t dir search getattr &&
		check_allowed "$d: ~/.config" "$d" "$config" dir search getattr
	check_allowed "$d lists ~/.config/environment.d" "$d" pam_envd_home_t dir search getattr open read
	check_allowed "$d reads its files" "$d" pam_envd_home_t file getattr open read
	check_allowed "$d reads its symbolic links" "$d" pam_envd_home_t lnk_file getattr read
	check_allowed "$d searches /run ($runtime_dir)" "$d" "$runtime_dir" dir search getattr
	check_allowed "$d lists /run/environment.d" "$d" pam_envd_runtime_t dir search getattr open read
	check_allowed "$d reads its files and links" "$d" pam_envd_runtime_t file getattr open read &&
		check_allowed "$d: links" "$d" pam_envd_runtime_t lnk_file getattr read
}
for d in sshd_t local_login_t remote_login_t xdm_t crond_t; do
	if has_type "$d"; then login_reads "$d"; else skip "$d: not in this policy"; fi
done
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
}
for d in user_t staff_t unconfined_t; do
	if has_type "$d"; then user_edits "$d"; else skip "$d: not in this policy"; fi
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

# ---- the checks prove the rules: the module without them
if [ -s "$out/mutant/pam_envd.pp" ] && sm -i "$out/mutant/pam_envd.pp"; then
	pol=$(find "$root/etc/selinux/$name/policy" -name 'policy.[0-9]*' | sort | tail -n 1)
	rm -rf "$out/rules"
	mkdir -p "$out/rules"
	if has_type sshd_t && allowed sshd_t pam_envd_home_t file read >/dev/null; then
		fail "without the sshd_t block, sshd_t still reads pam_envd_home_t files"
	else
		pass "without the sshd_t block, the check of sshd_t reading the files fails"
	fi
	if allowed local_login_t pam_envd_home_t file read >/dev/null; then
		pass "without the sshd_t block, local_login_t still reads them"
	else
		fail "the mutant module took more than the sshd_t block"
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
