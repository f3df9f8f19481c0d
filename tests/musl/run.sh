#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later
# SPDX-FileCopyrightText: 2026 The pam_envd authors
# tests/musl/run.sh - the musl stage of ./dev test: lib/ and envd built
# with musl-gcc and without the module (libpam has no musl build here),
# against the cmocka of tests/musl/cmocka.sh; make check in _build/musl
# runs the unit tests, the envd tests and the fuzz corpus replays.  Prints
# "pass fail skip"; "0 0 1" with the reason when musl-gcc or cmake is not
# installed (./dev deps installs them; under CI=true "0 1 0").
set -uo pipefail
# shellcheck source=tools/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/common.sh"
bootstrap

stage_needs musl-gcc cmake apt-get
prefix=$("$top/tests/musl/cmocka.sh") || { echo "0 1 0"; exit 1; }
build_tree musl CC=musl-gcc --disable-module --enable-werror \
	CMOCKA_CFLAGS="-I$prefix/include" CMOCKA_LIBS="$prefix/lib/libcmocka-static.a" >&2 ||
	{ echo "== musl: build failed" >&2; echo "0 1 0"; exit 1; }
check_tree musl
