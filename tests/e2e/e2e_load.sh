#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# e2e_load.sh - 200 concurrent session opens for 50 real users (root only).
#
# Every open must succeed, and every session must get its own user's
# variables and nobody else's: the privilege window is per thread of
# execution, the marker per PAM handle, and nothing may leak between them.

. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/e2e_lib.sh"
e2e_init

users=${E2E_LOAD_USERS:-50}
per_user=${E2E_LOAD_OPENS:-4}
echo "SITE=shared" >"$E2E_TMP/sys/etc/environment.d/10-site.conf"

names=()
for i in $(seq 1 "$users"); do
	u=$(e2e_user "l$i")
	h=$(home_of "$u")
	# half of them in supplementary groups, as real users are
	[ $((i % 2)) = 0 ] && usermod -a -G audio,video "$u"
	as "$u" mkdir -p "$h/.config/environment.d"
	as "$u" sh -c "cat >'$h/.config/environment.d/10-me.conf'" <<EOF
MYNAME=$u
MYNUM=$i
PATH=\$HOME/bin:\$PATH
TAG=\${MYNAME}-\${MYNUM}
EOF
	names+=("$u")
done

svc=$(e2e_service load <<EOF
auth     required pam_permit.so
account  required pam_permit.so
session  optional $MOD system_dirs=$SYSDIRS
session  required pam_exec.so $HELPER $OUT
EOF
)

# Under valgrind (ENVD_VALGRIND, tests/lib/vg_lib.sh) only every E2E_LOAD_VG_EVERY-th
# open, among the others: memcheck is slow, and that sample is enough.
vg_every=${E2E_LOAD_VG_EVERY:-25}
t0=$(date +%s%N)
pids=()
for k in $(seq 1 $((users * per_user))); do
	u=${names[$(((k - 1) % users))]}
	vg=()
	[ $(((k - 1) % vg_every)) != 0 ] || vg=("${VG[@]}")
	(
		env ${PRELOAD:+LD_PRELOAD="$PRELOAD"} ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
			timeout -k 5 120 "${vg[@]}" pamtester -E "RUN_ID=$k" "$svc" "$u" open_session \
			>"$E2E_TMP/run.$k.log" 2>&1
		echo $? >"$E2E_TMP/run.$k.rc"
	) &
	pids+=($!)
done
wait "${pids[@]}"
t1=$(date +%s%N)
echo "$((users * per_user)) concurrent opens took $(((t1 - t0) / 1000000)) ms"
[ ${#VG[@]} = 0 ] || echo "($(((users * per_user + vg_every - 1) / vg_every)) of them under valgrind)"

bad=0
for k in $(seq 1 $((users * per_user))); do
	i=$(((k - 1) % users + 1))
	u=${names[$((i - 1))]}
	h=$(home_of "$u")
	r=$(record "$u" "$k")
	rc=$(cat "$E2E_TMP/run.$k.rc" 2>/dev/null || echo missing)
	if [ "$rc" != 0 ]; then
		fail "open $k for $u: exit $rc: $(cat "$E2E_TMP/run.$k.log")"
		bad=$((bad + 1))
		continue
	fi
	got="$(getvar "$r" MYNAME) $(getvar "$r" MYNUM) $(getvar "$r" TAG) $(getvar "$r" PATH) $(getvar "$r" SITE)"
	want="$u $i $u-$i $h/bin:/usr/local/bin:/usr/bin:/bin shared"
	if [ "$got" != "$want" ]; then
		fail "open $k for $u: got '$got', expected '$want'"
		bad=$((bad + 1))
	fi
done
expect_eq "all $((users * per_user)) sessions opened with their own user's variables" "$bad" 0
expect_eq "one record per open" "$(ls "$OUT" | wc -l)" $((users * per_user))

e2e_finish
