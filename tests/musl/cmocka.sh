#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/musl/cmocka.sh - cmocka for musl-gcc (glibc's libcmocka does not
# link with it), built once from Debian's source package into
# _build/musl-deps/prefix, whose path it prints.  The source comes through
# the private apt configuration of tests/lib/debsrc.sh.  Used by the musl
# stage (tests/musl/run.sh) and the musl cell of tests/compat/run.sh.
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"
# shellcheck source=tests/lib/debsrc.sh
. "$top/tests/lib/debsrc.sh"

dir="$top/_build/musl-deps"
if [ -f "$dir/prefix/lib/libcmocka-static.a" ]; then
	echo "$dir/prefix"
	exit 0
fi
echo "== musl: building cmocka with musl-gcc from Debian's source package (once)" >&2
debsrc_init || exit 1
rm -rf "$dir"
mkdir -p "$dir/src"
if ! debsrc_get cmocka "$(debsrc_versions cmocka - | head -n 1)" "$dir/src"; then
	echo "dev: cannot download cmocka's source package:" >&2
	tail -n 5 "$top/_build/debsrc/apt.log" >&2
	exit 1
fi
# apt checked the files against the signed index; the upstream tarball
# is all that is needed (no Debian patch touches the library)
src=$(find "$dir/src" -maxdepth 1 -type f -name 'cmocka_*.orig.tar.*' ! -name '*.asc' | head -n 1)
[ -n "$src" ] && tar -xf "$src" -C "$dir/src" &&
	src=$(find "$dir/src" -mindepth 1 -maxdepth 1 -type d -name 'cmocka-*' | head -n 1)
{
	[ -d "$src" ] && cmake -S "$src" -B "$dir/build" -DCMAKE_C_COMPILER=musl-gcc \
		-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$dir/prefix" \
		-DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF -DUNIT_TESTING=OFF &&
		cmake --build "$dir/build" -j "$jobs" && cmake --install "$dir/build"
} >"$dir/build.log" 2>&1 || {
	echo "dev: building cmocka with musl-gcc failed; end of $dir/build.log:" >&2
	tail -n 20 "$dir/build.log" >&2
	rm -rf "$dir/prefix"
	exit 1
}
echo "$dir/prefix"
