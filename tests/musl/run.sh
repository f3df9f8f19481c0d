#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/musl/run.sh - the musl stage of ./dev test: lib/ and envd built
# with musl-gcc and without the module (libpam has no musl build here),
# against the cmocka of tests/musl/cmocka.sh; make check in _build/musl
# runs the unit tests, the envd tests and the fuzz corpus replays.  Prints
# "pass fail skip"; "0 0 1" with a message when musl-gcc cannot be
# installed.
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"
bootstrap

if ! command -v musl-gcc >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends musl-tools cmake >/dev/null 2>&1 || true
fi
if ! command -v musl-gcc >/dev/null 2>&1; then
	echo "== musl: SKIP: musl-gcc is not installed and could not be (package musl-tools)" >&2
	echo "0 0 1"
	exit 0
fi
prefix=$("$top/tests/musl/cmocka.sh") || { echo "0 1 0"; exit 1; }
build_tree musl CC=musl-gcc --disable-module --enable-werror \
	CMOCKA_CFLAGS="-I$prefix/include" CMOCKA_LIBS="$prefix/lib/libcmocka-static.a" >&2 ||
	{ echo "== musl: build failed" >&2; echo "0 1 0"; exit 1; }
check_tree musl
