/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* wrappers.h - one-shot forms of the engine's parser, expansion and store,
 * for the tests and fuzz harnesses (wrappers.c); the module and envd do
 * not link them. */
#ifndef ENVD_TESTS_WRAPPERS_H
#define ENVD_TESTS_WRAPPERS_H

#include "internal.h"

/* envd_parse_with with buffers of its own. */
int envd_parse(const char *buf, size_t len, envd_assign_fn cb, void *data);
/* envd_expand_buf into a fresh malloc'd string. */
int envd_expand(struct envd_expand_state *st, const char *in, size_t len, char **out,
                size_t *out_len);
/* envd_store_set_h with the name's hash computed, not on the user side. */
int envd_store_set(struct envd_store *s, const char *name, size_t name_len, const char *value,
                   size_t value_len, const char *file, unsigned line);

#endif
