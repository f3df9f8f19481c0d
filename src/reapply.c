/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* reapply.c - envd show --reapply=NAMES, for the profile.d snippet.
 *
 * A login shell's /etc/profile may set PATH again after the PAM session
 * gave it the user's environment.d value.  The snippet runs envd in that
 * shell to compose the user's value over the one the profile set, exactly
 * as the module composed it over the login's.  It must not touch a
 * variable the profile left alone: applying `PATH=$HOME/bin:$PATH` to a
 * PATH that already went through it would double the prefix.
 *
 * The rule: the files are loaded once, with each selected name's current
 * value replaced in the expansion base by a mark that occurs nowhere in the
 * environment.  The name's result is then a template: fixed text around k
 * occurrences of the mark (k = 0 when the files set the name without
 * referring to it).  The current value is taken as already applied when
 * some value X gives it through the template (the login's value, which the
 * profile did not replace): for k = 0 when it equals the text, otherwise
 * when it is the fixed pieces with one and the same X in each place.  Only
 * a name whose current value is not of that form is printed, as the
 * template with the current value in place of the mark.  Marks of the other
 * selected names are replaced by their current values.  A name that is
 * unset or empty gets no mark (${X:+...} and ${X:-...} see it as it is):
 * its template is final and compared as is.  Expansion treats the mark as opaque text,
 * so the template with the value put in is what a load over that value
 * gives whenever the value is not empty. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "reapply.h"

/* U+E000 and U+E001 (private use: valid in values, as noncharacters are
 * not, and found in no PATH-like value) around a counter */
#define MARK_OPEN  "\xee\x80\x80"
#define MARK_CLOSE "\xee\x80\x81"

static bool in_env(char *const *env, const char *s)
{
	for (; env && *env; env++)
		if (strstr(*env, s))
			return true;
	return false;
}

static int add_names(struct reapply *ra, const char *list)
{
	const char *p = list, *end;
	size_t n = 1, i;

	for (end = list; *end; end++)
		n += *end == ',';
	ra->names = calloc(n, sizeof(*ra->names));
	if (!ra->names)
		return -ENOMEM;
	while (*p) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		/* a shell identifier is an environment.d name: the same rule */
		if (!envd_name_valid(p, (size_t)(end - p)))
			return -EINVAL;
		for (i = 0; i < ra->n; i++)
			if (ra->names[i] && strlen(ra->names[i]) == (size_t)(end - p) &&
			    memcmp(ra->names[i], p, (size_t)(end - p)) == 0)
				break;
		if (i == ra->n) {
			ra->names[ra->n] = strndup(p, (size_t)(end - p));
			if (!ra->names[ra->n])
				return -ENOMEM;
			ra->n++;
		}
		p = *end ? end + 1 : end;
	}
	return ra->n ? 0 : -EINVAL;
}

int reapply_init(struct reapply *ra, const char *list, char *const *env)
{
	size_t i, j, nenv = 0, k = 0;
	unsigned counter = 0;
	int r;

	memset(ra, 0, sizeof(*ra));
	if (*list == ',' || (*list && list[strlen(list) - 1] == ','))
		return -EINVAL;
	r = add_names(ra, list);
	if (r < 0)
		return r;
	while (env && env[nenv])
		nenv++;
	ra->current = calloc(ra->n, sizeof(*ra->current));
	ra->marks = calloc(ra->n, sizeof(*ra->marks));
	ra->owned = calloc(ra->n, sizeof(*ra->owned));
	ra->env = calloc(nenv + ra->n + 1, sizeof(*ra->env));
	if (!ra->current || !ra->marks || !ra->owned || !ra->env)
		return -ENOMEM;
	for (i = 0; i < ra->n; i++) {
		char buf[64];

		if (!ra->names[i])
			return -EINVAL;
		ra->current[i] = envd_env_get((const char *const *)env, ra->names[i]);
		if (!ra->current[i] || !*ra->current[i])
			continue;
		do
			snprintf(buf, sizeof(buf), MARK_OPEN "%u" MARK_CLOSE, counter++);
		while (in_env(env, buf));
		ra->marks[i] = strdup(buf);
		ra->owned[i] = malloc(strlen(ra->names[i]) + strlen(buf) + 2);
		if (!ra->marks[i] || !ra->owned[i])
			return -ENOMEM;
		sprintf(ra->owned[i], "%s=%s", ra->names[i], buf);
		ra->env[k++] = ra->owned[i];
	}
	/* the rest of the environment, without the marked names */
	for (j = 0; j < nenv; j++) {
		for (i = 0; i < ra->n; i++)
			if (ra->marks[i] &&
			    strncmp(env[j], ra->names[i], strlen(ra->names[i])) == 0 &&
			    env[j][strlen(ra->names[i])] == '=')
				break;
		if (i == ra->n)
			ra->env[k++] = env[j];
	}
	ra->env[k] = NULL;
	return 0;
}

void reapply_free(struct reapply *ra)
{
	size_t i;

	for (i = 0; i < ra->n; i++) {
		if (ra->names)
			free(ra->names[i]);
		if (ra->marks)
			free(ra->marks[i]);
		if (ra->owned)
			free(ra->owned[i]);
	}
	free(ra->names);
	free(ra->current);
	free(ra->marks);
	free(ra->owned);
	free(ra->env);
	memset(ra, 0, sizeof(*ra));
}

/* The template of name self: value with the other names' marks replaced
 * by their current values, as fixed text and the offsets in it where the
 * own mark stood (at most ENVD_MAX_ENTRY_BYTES of them). */
struct tmpl {
	struct envd_buf fixed;
	size_t *at;
	size_t k;
};

static int make_template(const struct reapply *ra, size_t self, const char *v, size_t len,
                         struct tmpl *t)
{
	size_t i, pos = 0, start = 0;
	int r;

	t->at = calloc(len / (sizeof(MARK_OPEN MARK_CLOSE) - 1) + 1, sizeof(*t->at));
	if (!t->at || envd_buf_append(&t->fixed, "", 0) < 0)
		return -ENOMEM;
	while (pos < len) {
		const char *m = memmem(v + pos, len - pos, MARK_OPEN, sizeof(MARK_OPEN) - 1);

		if (!m)
			break;
		pos = (size_t)(m - v);
		for (i = 0; i < ra->n; i++) {
			size_t ml = ra->marks[i] ? strlen(ra->marks[i]) : 0;

			if (ml && ml <= len - pos && memcmp(v + pos, ra->marks[i], ml) == 0)
				break;
		}
		if (i == ra->n) {
			pos += sizeof(MARK_OPEN) - 1;
			continue;
		}
		r = envd_buf_append(&t->fixed, v + start, pos - start);
		if (r == 0 && i != self) {
			/* a marked name always has a current value */
			const char *cur = ra->current[i] ? ra->current[i] : "";

			r = envd_buf_append(&t->fixed, cur, strlen(cur));
		}
		if (r < 0)
			return r;
		if (i == self)
			t->at[t->k++] = t->fixed.len;
		pos += strlen(ra->marks[i]);
		start = pos;
	}
	return envd_buf_append(&t->fixed, v + start, len - start);
}

/* The template with x in the place of each mark. */
static int fill(const struct tmpl *t, const char *x, size_t xlen, struct envd_buf *out)
{
	size_t i, from = 0;

	if (envd_buf_append(out, "", 0) < 0)
		return -ENOMEM;
	for (i = 0; i < t->k; i++) {
		if (envd_buf_append(out, t->fixed.data + from, t->at[i] - from) < 0 ||
		    envd_buf_append(out, x, xlen) < 0)
			return -ENOMEM;
		from = t->at[i];
	}
	return envd_buf_append(out, t->fixed.data + from, t->fixed.len - from);
}

/* Whether cur is what the template makes of some value: one X in each
 * place of the mark.  Sets *applied; returns 0 or -ENOMEM. */
static int already_applied(const struct tmpl *t, const char *cur, bool *applied)
{
	size_t clen = strlen(cur), xlen;
	struct envd_buf again;
	int r;

	*applied = false;
	envd_buf_init(&again, 0);
	if (t->k == 0) {
		*applied = clen == t->fixed.len && memcmp(cur, t->fixed.data, clen) == 0;
		return 0;
	}
	if (clen < t->fixed.len || (clen - t->fixed.len) % t->k)
		return 0;
	xlen = (clen - t->fixed.len) / t->k;
	r = fill(t, cur + t->at[0], xlen, &again);
	if (r == 0)
		*applied = again.len == clen && memcmp(again.data, cur, clen) == 0;
	envd_buf_free(&again);
	return r;
}

int reapply_print(FILE *out, const struct reapply *ra, const struct envd_result *res,
                  enum out_format f)
{
	size_t i, n = envd_result_count(res), printed = 0, self;
	int r = 0;

	print_begin(out, f);
	for (i = 0; i < n && r == 0; i++) {
		const struct envd_var *v = envd_result_var(res, i);
		struct tmpl t = {0};
		struct envd_buf val;
		bool applied = false;

		envd_buf_init(&t.fixed, 0);
		envd_buf_init(&val, 0);
		for (self = 0; self < ra->n; self++)
			if (strcmp(ra->names[self], v->name) == 0)
				break;
		if (self == ra->n)
			continue;
		r = make_template(ra, self, v->value, v->value_len, &t);
		if (r == 0 && ra->current[self])
			r = already_applied(&t, ra->current[self], &applied);
		if (r == 0 && !applied) {
			const char *cur = ra->current[self] ? ra->current[self] : "";

			r = fill(&t, cur, strlen(cur), &val);
			if (r == 0)
				print_var(out, f, printed++ == 0, v->name, val.data, val.len);
		}
		envd_buf_free(&val);
		envd_buf_free(&t.fixed);
		free(t.at);
	}
	print_end(out, f, printed);
	return r;
}
