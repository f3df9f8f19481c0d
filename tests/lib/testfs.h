/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* testfs.h - scratch trees and files for the test programs.  Functions
 * return 0 or a negative errno. */
#ifndef TESTFS_H
#define TESTFS_H

#include <stddef.h>
#include <sys/types.h>

/* A fresh directory made from tmpl (ending in XXXXXX, changed in place),
 * mode 0755. */
int tf_scratch(char *tmpl);
/* Removes the tree below and including top; unreadable directories too. */
void tf_rm_tree(const char *top);
/* mkdir -p: the missing directories of path, the last one with mode. */
int tf_mkdirs(const char *path, mode_t mode);
/* Writes len bytes to path (its directories made), with mode. */
int tf_write(const char *path, const void *data, size_t len, mode_t mode);

#endif
