/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* expand.c - systemd's variable expansion for environment.d values.
 *
 * The state machine reproduces systemd's replace_env with braceless and
 * extended forms enabled, including its quirks: an unsupported ${X:...}
 * form stays literal and leaves the brace counter raised, so that a later
 * :- or :+ in the same value stays literal too.  Three things bound the
 * work a hostile value can cause: the output of one value (max_out), the
 * bytes substituted over a whole load (budget), and the nesting of
 * ${X:-...} (max_depth; also the recursion depth). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "internal.h"

enum xstate { WORD, CURLY, VARIABLE, VARIABLE_RAW, TEST, DEFAULT_VALUE, ALTERNATE_VALUE };

/* raw: the name was read by VARIABLE_RAW, so only its first byte can make
 * it invalid (a digit). */
static const char *lookup(struct envd_expand_state *st, const char *name, size_t len,
                          enum envd_ref_kind kind, bool raw, size_t *vlen)
{
	const char *v = NULL;

	*vlen = 0;
	if (raw ? envd_name_start(name[0]) : envd_name_valid(name, len))
		v = st->lookup(name, len, vlen, st->lookup_data);
	if (st->on_ref)
		st->on_ref(name, len, kind, v != NULL, *vlen, st->lookup_data);
	return v;
}

static int substitute(struct envd_expand_state *st, struct envd_buf *out, const char *v,
                      size_t vlen)
{
	if (vlen > st->budget) {
		st->budget = 0; /* tells the caller which limit it was */
		return -E2BIG;
	}
	st->budget -= vlen;
	return envd_buf_append(out, v, vlen);
}

/* The expansion's one loop (over 80 lines): $NAME, ${NAME}, ${NAME:-x}
 * and ${NAME:+x}, with the nesting, the depth and the budget it shares
 * with its recursive calls, as systemd's replace_env_full. */
static int expand_into(struct envd_expand_state *st, const char *in, size_t n, struct envd_buf *out)
{
	enum xstate state = WORD;
	size_t i, word = 0, test = 0, name_len = 0, vlen;
	const char *v;
	int nest = 0, r = 0;

	if (st->depth > st->max_depth) /* the top level is not a nesting */
		return -ELOOP;
	st->depth++;

	for (i = 0; i < n && in[i] && r == 0; i++) {
		char c = in[i];

		switch (state) {
		case WORD:
			if (c == '$')
				state = CURLY;
			else { /* plain text: on to the next '$' (no NUL: see envd_expand_buf) */
				const char *d = memchr(in + i + 1, '$', n - i - 1);

				i = d ? (size_t)(d - in) - 1 : n - 1;
			}
			break;
		case CURLY:
			if (c == '{') {
				r = envd_buf_append(out, in + word, i - 1 - word);
				word = i - 1;
				state = VARIABLE;
				nest++;
			} else if (c == '$') {
				/* "$$": keep one '$' */
				r = envd_buf_append(out, in + word, i - word);
				word = i + 1;
				state = WORD;
			} else if (envd_name_char(c)) {
				r = envd_buf_append(out, in + word, i - 1 - word);
				word = i - 1;
				state = VARIABLE_RAW;
			} else
				state = WORD;
			break;
		case VARIABLE:
			if (c == '}') {
				v = lookup(st, in + word + 2, i - word - 2, ENVD_REF_PLAIN, false,
				           &vlen);
				if (v)
					r = substitute(st, out, v, vlen);
				word = i + 1;
				state = WORD;
				nest--;
			} else if (c == ':') {
				name_len = i - word - 2;
				state = TEST;
			}
			break;
		case TEST:
			if (c == '-')
				state = DEFAULT_VALUE;
			else if (c == '+')
				state = ALTERNATE_VALUE;
			else {
				state = WORD; /* unsupported form: stays literal */
				break;
			}
			test = i + 1;
			break;
		case DEFAULT_VALUE:
		case ALTERNATE_VALUE:
			if (c == '{') {
				nest++;
				break;
			}
			if (c != '}' || --nest != 0)
				break;
			v = lookup(st, in + word + 2, name_len,
			           state == DEFAULT_VALUE ? ENVD_REF_DEFAULT : ENVD_REF_ALTERNATE,
			           false, &vlen);
			if ((v && state == ALTERNATE_VALUE) || (!v && state == DEFAULT_VALUE))
				r = expand_into(st, in + test, i - test, out);
			else if (v)
				r = substitute(st, out, v, vlen);
			word = i + 1;
			state = WORD;
			break;
		case VARIABLE_RAW:
			if (!envd_name_char(c)) {
				v = lookup(st, in + word + 1, i - word - 1, ENVD_REF_PLAIN, true,
				           &vlen);
				if (v)
					r = substitute(st, out, v, vlen);
				word = i;
				i--; /* look at this character again as text */
				state = WORD;
			}
			break;
		}
	}

	if (r == 0) {
		if (state == VARIABLE_RAW) {
			v = lookup(st, in + word + 1, i - word - 1, ENVD_REF_PLAIN, true, &vlen);
			if (v)
				r = substitute(st, out, v, vlen);
		} else
			r = envd_buf_append(out, in + word, i - word);
	}
	st->depth--;
	return r;
}

int envd_expand_buf(struct envd_expand_state *st, const char *in, size_t len, struct envd_buf *b)
{
	const char *nul = memchr(in, '\0', len);

	/* the input ends at a NUL, as in systemd: cut it there once, so that
	 * no scan below has to look for one */
	if (nul)
		len = (size_t)(nul - in);
	b->len = 0;
	b->max = st->max_out ? st->max_out : SIZE_MAX - 1;
	st->depth = 0;
	return expand_into(st, in, len, b);
}
