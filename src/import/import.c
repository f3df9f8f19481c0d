/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* import.c - `envd import-pam-environment`: the user file of pam_env
 * (~/.pam_environment, read with user_readenv=1) as an environment.d file.
 *
 * pamenv.c reads the file as pam_env does; this file translates each line.
 * environment.d has no way to remove a variable, to test for an empty one
 * or to read PAM items; such lines are commented out or approximated, each
 * with a "# envd:" comment that says how the result may differ. */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <search.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "envd.h"
#include "escape.h"
#include "output.h"
#include "import.h"
#include "pamenv.h"

#define MAX_CHAIN_REFS 8u /* ${A}${B}... in an OVERRIDE= with a DEFAULT= */
#define NOTE_PREFIX    "# envd: "

/* Prints the physical lines in [p, end) commented out; with all, comment
 * and blank lines too (they were not passed through yet). */
static void put_commented(FILE *out, const char *p, const char *end, bool all)
{
	const char *nl;
	size_t n;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		if (!pamenv_skipped_line(p, n)) {
			fputs("# ", out);
			pamenv_put_comment_text(out, p, n);
		} else if (all) {
			pamenv_put_comment_text(out, p, n);
		}
		p += n;
	}
}

/* The variable an item stands for in pam_envd's base: the passwd entry's
 * HOME and SHELL and the user name are what a login starts with. */
static const char *item_var(const struct pamenv_part *pt)
{
	if (pamenv_part_is(pt, "HOME"))
		return "HOME";
	if (pamenv_part_is(pt, "SHELL"))
		return "SHELL";
	if (pamenv_part_is(pt, "PAM_USER"))
		return "USER";
	return NULL;
}

static bool item_unseen(const struct pamenv_part *pt)
{
	static const char *const items[] = {"PAM_TTY", "PAM_RHOST", "PAM_RUSER", "PAM_USER_PROMPT"};
	size_t i;

	for (i = 0; i < sizeof(items) / sizeof(items[0]); i++)
		if (pamenv_part_is(pt, items[i]))
			return true;
	return false;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

static bool set_has(void *const *set, const char *name, size_t n)
{
	char key[PAMENV_LINE_BUF];

	memcpy(key, name, n);
	key[n] = '\0';
	return tfind(key, set, cmp_names) != NULL;
}

/* What a DEFAULT= or OVERRIDE= value holds. */
struct vscan {
	bool abort;                /* an unterminated ${ or @{ */
	bool literal;              /* it never expands to nothing */
	size_t refs;               /* ${NAME} with a valid name */
	struct pamenv_part unseen; /* a PAM item environment.d cannot see */
	bool bad_utf8, unbalanced;
};

static void scan_lit(const struct pamenv_part *pt, struct vscan *vs, long *depth)
{
	size_t i;

	if (!envd_utf8_valid(pt->p, pt->n))
		vs->bad_utf8 = true;
	for (i = 0; i < pt->n; i++) {
		*depth += pt->p[i] == '{' ? 1 : pt->p[i] == '}' ? -1 : 0;
		if (*depth < 0)
			vs->unbalanced = true;
	}
}

/* known: names set above to a value that never expands to nothing */
static void scan_value(const struct pamenv_val *v, struct vscan *vs, void *const *known)
{
	const char *cur = v->p, *end = v->p + v->n;
	struct pamenv_part pt;
	long depth = 0;

	memset(vs, 0, sizeof(*vs));
	if (v->kind != PAMENV_V_TEXT)
		return;
	while (pamenv_next_part(&cur, end, &pt) != PAMENV_P_END) {
		if (pt.kind == PAMENV_P_ABORT) {
			vs->abort = true;
			return;
		}
		if (pt.kind == PAMENV_P_LIT) {
			vs->literal |= pt.n > 0;
			scan_lit(&pt, vs, &depth);
		} else if (pt.kind == PAMENV_P_ENV && envd_name_valid(pt.p, pt.n)) {
			if (set_has(known, pt.p, pt.n))
				vs->literal = true;
			else
				vs->refs++;
		} else if (pt.kind == PAMENV_P_ITEM && item_var(&pt)) {
			vs->literal = true;
		} else if (pt.kind == PAMENV_P_ITEM && item_unseen(&pt) &&
		           vs->unseen.kind == PAMENV_P_END) {
			vs->unseen = pt;
		}
	}
	vs->unbalanced |= depth != 0;
}

/* ---- the translation ---- */

struct ctx {
	FILE *out;
	struct envd_policy *policy;
	void *tainted;  /* names whose value may differ from pam_env's */
	void *assigned; /* names set by an earlier translated line */
	void *nonempty; /* names set exactly, to a value that is never empty */
	struct envd_buf notes, val;
	bool inexact, untranslated; /* of the current line */
	size_t n_inexact, n_untranslated;
};

/* Returns 0 or -ENOMEM. */
static int set_put(void **set, const char *name, size_t n, bool on)
{
	char key[PAMENV_LINE_BUF], *dup, **node;

	memcpy(key, name, n);
	key[n] = '\0';
	node = tfind(key, set, cmp_names);
	if (!on && node) {
		dup = *node;
		tdelete(key, set, cmp_names);
		free(dup);
	} else if (on && !node) {
		dup = strdup(key);
		if (!dup || !tsearch(dup, set, cmp_names)) {
			free(dup);
			return -ENOMEM;
		}
	}
	return 0;
}

/* What a note says of its line, and the word it starts with. */
enum note_kind { N_NOTE, N_INEXACT, N_UNTRANSLATED, N_IGNORED };
static const char *const note_words[] = {
    [N_NOTE] = "note",
    [N_INEXACT] = "inexact",
    [N_UNTRANSLATED] = "not translated",
    [N_IGNORED] = "ignored by pam_env",
};

/* Returns 0 or -ENOMEM. */
__attribute__((format(printf, 3, 4))) static int note(struct ctx *c, enum note_kind kind,
                                                      const char *fmt, ...)
{
	char tmp[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (kind == N_INEXACT)
		c->inexact = true;
	if (kind == N_UNTRANSLATED)
		c->untranslated = true;
	/* names and text from the file: nothing may end the comment early */
	if (envd_buf_puts(&c->notes, NOTE_PREFIX) < 0 ||
	    envd_buf_puts(&c->notes, note_words[kind]) < 0 || envd_buf_puts(&c->notes, ": ") < 0 ||
	    envd_esc_append(&c->notes, tmp, strlen(tmp), ENVD_ESC_C | ENVD_ESC_KEEP_TAB) < 0 ||
	    envd_buf_puts(&c->notes, "\n") < 0)
		return -ENOMEM;
	return 0;
}

/* Literal text in an environment.d value: only '$' means something after
 * unquoting.  These return 0 or a negative errno. */
static int add_literal(struct envd_buf *s, const char *p, size_t n)
{
	const char *d;
	int r;

	while (n && (d = memchr(p, '$', n))) {
		r = envd_buf_append(s, p, (size_t)(d - p) + 1);
		if (r == 0)
			r = envd_buf_append(s, "$", 1);
		if (r < 0)
			return r;
		n -= (size_t)(d - p) + 1;
		p = d + 1;
	}
	return envd_buf_append(s, p, n);
}

static int add_ref(struct envd_buf *s, const char *name, size_t n)
{
	int r = envd_buf_puts(s, "${");

	if (r == 0)
		r = envd_buf_append(s, name, n);
	return r < 0 ? r : envd_buf_puts(s, "}");
}

/* Whether NAME is set when the translation is read, as envd check sees
 * it: the login's own variables, or a name an earlier line sets. */
static bool live(void *const *assigned, const char *name, size_t n)
{
	static const char *const base[] = {"HOME", "USER", "LOGNAME", "SHELL", "PATH"};
	size_t i;

	for (i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if (strlen(base[i]) == n && memcmp(base[i], name, n) == 0)
			return true;
	return set_has(assigned, name, n);
}

/* The first ${NAME} of v, from its from-th one on, that is not live; its
 * part in *pt.  False when there is none. */
static bool unset_in(void *const *assigned, const struct pamenv_val *v, size_t from,
                     struct pamenv_part *pt)
{
	const char *cur = v->p, *end = v->p + v->n;
	size_t k = 0;

	if (v->kind != PAMENV_V_TEXT)
		return false;
	while (pamenv_next_part(&cur, end, pt) != PAMENV_P_END)
		if (pt->kind == PAMENV_P_ENV && envd_name_valid(pt->p, pt->n) && k++ >= from &&
		    !live(assigned, pt->p, pt->n))
			return true;
	return false;
}

/* The environment.d form of a DEFAULT= or OVERRIDE= value. */
static int render(struct envd_buf *s, const struct pamenv_val *v)
{
	const char *cur = v->p, *end = v->p + v->n, *var;
	struct pamenv_part pt;
	int r = 0;

	if (v->kind != PAMENV_V_TEXT)
		return 0;
	while (r == 0 && pamenv_next_part(&cur, end, &pt) != PAMENV_P_END) {
		if (pt.kind == PAMENV_P_LIT)
			r = add_literal(s, pt.p, pt.n);
		else if (pt.kind == PAMENV_P_ENV && envd_name_valid(pt.p, pt.n))
			r = add_ref(s, pt.p, pt.n);
		else if (pt.kind == PAMENV_P_ITEM && (var = item_var(&pt)))
			r = add_ref(s, var, strlen(var));
	}
	return r;
}

/* Where the login lacks NAME, pam_env expanded ${NAME} to nothing; pam_envd
 * has a fallback for these.  The note_* functions return 0 or -ENOMEM. */
static int note_fallback(struct ctx *c, const struct pamenv_part *pt)
{
	static const char *const names[] = {"HOME", "USER", "LOGNAME", "SHELL"};
	size_t i;

	if (pamenv_part_is(pt, "PATH"))
		return note(c, N_INEXACT,
		            "where the login has no PATH, pam_env expanded ${PATH} to nothing; "
		            "pam_envd uses the default PATH");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (pamenv_part_is(pt, names[i]))
			return note(c, N_INEXACT,
			            "where the login has no %s, pam_env expanded ${%s} to nothing; "
			            "pam_envd uses the passwd entry's",
			            names[i], names[i]);
	return 0;
}

/* Notes on what a used value refers to. */
static int note_refs(struct ctx *c, const struct pamenv_val *v)
{
	const char *cur = v->p, *end = v->p + v->n;
	struct pamenv_part pt;
	const char *var;
	int r = 0;

	if (v->kind != PAMENV_V_TEXT)
		return 0;
	while (r == 0 && pamenv_next_part(&cur, end, &pt) != PAMENV_P_END) {
		if (pt.kind == PAMENV_P_ENV && !envd_name_valid(pt.p, pt.n))
			r = note(c, N_NOTE, "${%.*s} is not a variable name: it expands to nothing",
			         (int)(pt.n > 60 ? 60 : pt.n), pt.p);
		else if (pt.kind == PAMENV_P_ENV && set_has(&c->tainted, pt.p, pt.n))
			r = note(c, N_INEXACT, "uses %.*s, whose value may differ (see above)",
			         (int)pt.n, pt.p);
		else if (pt.kind == PAMENV_P_ENV && !set_has(&c->assigned, pt.p, pt.n))
			r = note_fallback(c, &pt);
		else if (pt.kind == PAMENV_P_ITEM && (var = item_var(&pt)) &&
		         set_has(&c->assigned, var, strlen(var)))
			r = note(c, N_INEXACT,
			         "@{%.*s} is the passwd entry's, ${%s} the value set above",
			         (int)pt.n, pt.p, var);
		else if (pt.kind == PAMENV_P_ITEM && !var && !item_unseen(&pt))
			r = note(c, N_NOTE,
			         "@{%.*s} is not a PAM item pam_env knows: it expands to nothing",
			         (int)(pt.n > 60 ? 60 : pt.n), pt.p);
	}
	return r;
}

/* ---- one line ---- */

/* How pam_env decides, in the cases environment.d can tell apart. */
enum how {
	H_OVERRIDE,   /* the OVERRIDE never expands to nothing */
	H_CHAIN,      /* ${A}${B}... falling back to the DEFAULT */
	H_REFS,       /* ${A}${B}... falling back to an empty value */
	H_REFS_UNSET, /* ${A}${B}... falling back to removal */
	H_DEFAULT,    /* no OVERRIDE to speak of */
	H_EMPTY,      /* DEFAULT="" */
	H_UNSET,      /* neither: pam_putenv(NAME) */
};

struct line {
	struct pamenv_pline pl;
	struct vscan d, o;
	enum how how;
	const char *var, *rest; /* NAME split at its first '=' */
	size_t var_len, rest_len;
	bool has_eq;
};

static enum how decide(const struct line *ln)
{
	const struct pamenv_pline *pl = &ln->pl;

	if (ln->o.literal || ln->o.unseen.n)
		return H_OVERRIDE; /* an item environment.d cannot see: not translated */
	if (ln->o.refs && pl->dflt.kind == PAMENV_V_TEXT &&
	    (ln->d.literal || ln->d.refs || ln->d.unseen.n))
		return H_CHAIN;
	if (ln->o.refs)
		return pl->dflt.kind == PAMENV_V_NONE ? H_REFS_UNSET : H_REFS;
	if (pl->dflt.kind == PAMENV_V_TEXT)
		return H_DEFAULT;
	return pl->dflt.kind == PAMENV_V_EMPTY ? H_EMPTY : H_UNSET;
}

/* Why the line cannot be written in environment.d at all, or NULL. */
static const char *untranslatable(const struct line *ln, char *why, size_t sz)
{
	bool use_o = ln->how != H_DEFAULT && ln->how != H_EMPTY && ln->how != H_UNSET;
	bool use_d = ln->how == H_CHAIN || ln->how == H_DEFAULT;
	const struct pamenv_part *u = use_o && ln->o.unseen.n   ? &ln->o.unseen
	                              : use_d && ln->d.unseen.n ? &ln->d.unseen
	                                                        : NULL;

	if (u) {
		snprintf(why, sz, "environment.d cannot see the PAM item @{%.*s}", (int)u->n, u->p);
		return why;
	}
	if (ln->how == H_UNSET && !ln->has_eq)
		return "environment.d cannot remove a variable, as pam_env does here";
	if (ln->how == H_REFS_UNSET && ln->has_eq)
		return "the name holds '=' and the OVERRIDE may expand to nothing";
	if (!envd_name_valid(ln->var, ln->var_len))
		return "not a valid environment.d variable name";
	if ((use_o && ln->o.bad_utf8) || (use_d && ln->d.bad_utf8) ||
	    !envd_utf8_valid(ln->rest, ln->rest_len))
		return "not valid UTF-8, which environment.d refuses";
	if (ln->how == H_CHAIN && ln->d.unbalanced)
		return "a { or } in the DEFAULT would end the ${...:-DEFAULT} early";
	if (ln->how == H_CHAIN && ln->o.refs > MAX_CHAIN_REFS)
		return "too many ${...} in the OVERRIDE";
	return NULL;
}

/* The ${NAME} of an OVERRIDE made only of them (invalid names dropped). */
static size_t override_refs(const struct pamenv_val *v, struct pamenv_part *refs, size_t max)
{
	const char *cur = v->p, *end = v->p + v->n;
	struct pamenv_part pt;
	size_t k = 0;

	while (pamenv_next_part(&cur, end, &pt) != PAMENV_P_END)
		if (pt.kind == PAMENV_P_ENV && envd_name_valid(pt.p, pt.n) && k < max)
			refs[k++] = pt;
	return k;
}

/* pam_env takes an OVERRIDE of references when it expands to something;
 * ${A:-...} tests for an unset A instead: A if set, else the next one,
 * then the DEFAULT, followed by the rest when A was set. */
static int render_chain(struct envd_buf *s, const struct line *ln)
{
	struct pamenv_part r[MAX_CHAIN_REFS];
	size_t k = override_refs(&ln->pl.ovr, r, MAX_CHAIN_REFS), i, j;
	int e = 0;

	for (i = 0; i < k && e == 0; i++)
		if ((e = envd_buf_puts(s, "${")) == 0 &&
		    (e = envd_buf_append(s, r[i].p, r[i].n)) == 0)
			e = envd_buf_puts(s, ":-");
	if (e == 0)
		e = render(s, &ln->pl.dflt);
	if (e == 0)
		e = envd_buf_puts(s, "}");
	for (i = k ? k - 1 : 0; e == 0 && i-- > 0;) { /* no wrap when k is 0 */
		if ((e = envd_buf_puts(s, "}${")) == 0 &&
		    (e = envd_buf_append(s, r[i].p, r[i].n)) == 0)
			e = envd_buf_puts(s, ":+");
		for (j = i + 1; j < k && e == 0; j++)
			e = add_ref(s, r[j].p, r[j].n);
		if (e == 0)
			e = envd_buf_puts(s, "}");
	}
	return e;
}

/* c->val: the line's NAME=VALUE.  Returns 0 or a negative errno. */
static int render_line(struct ctx *c, const struct line *ln)
{
	struct envd_buf *s = &c->val;
	int r;

	s->len = 0;
	r = add_literal(s, ln->rest, ln->rest_len);
	if (r == 0 && ln->has_eq && ln->how != H_UNSET)
		r = envd_buf_puts(s, "=");
	if (r < 0)
		return r;
	if (ln->how == H_OVERRIDE || ln->how == H_REFS || ln->how == H_REFS_UNSET)
		return render(s, &ln->pl.ovr);
	if (ln->how == H_CHAIN)
		return render_chain(s, ln);
	if (ln->how == H_DEFAULT)
		return render(s, &ln->pl.dflt);
	return 0;
}

/* A ${NAME} the translation expands without a default whose NAME is not
 * set when the file is read (envd check warns of each): in *pt.  Of
 * ${A:-${B:-DEFAULT}}${A:+${B}}, the DEFAULT's when neither is set,
 * else the references after the first that is. */
static bool unset_ref(const struct ctx *c, const struct line *ln, struct pamenv_part *pt)
{
	struct pamenv_part r[MAX_CHAIN_REFS];
	size_t k, i;

	switch (ln->how) {
	case H_OVERRIDE:
	case H_REFS:
	case H_REFS_UNSET:
		return unset_in(&c->assigned, &ln->pl.ovr, 0, pt);
	case H_DEFAULT:
		return unset_in(&c->assigned, &ln->pl.dflt, 0, pt);
	case H_CHAIN:
		k = override_refs(&ln->pl.ovr, r, MAX_CHAIN_REFS);
		for (i = 0; i < k; i++)
			if (live(&c->assigned, r[i].p, r[i].n))
				break;
		if (i == k)
			return unset_in(&c->assigned, &ln->pl.dflt, 0, pt);
		for (i++; i < k; i++)
			if (!live(&c->assigned, r[i].p, r[i].n)) {
				*pt = r[i];
				return true;
			}
		return false;
	default:
		return false;
	}
}

/* Returns 0, 1 when pam_envd refuses the line (said), or -ENOMEM. */
static int note_line(struct ctx *c, const struct line *ln)
{
	char name[PAMENV_LINE_BUF];
	const char *why, *rule;
	int r = 0;

	if (ln->how == H_CHAIN)
		r = note(
		    c, N_INEXACT,
		    "pam_env took the DEFAULT when the OVERRIDE expanded to nothing; here only "
		    "when "
		    "its variables are unset, not when they are empty");
	if (r == 0 && ln->how == H_REFS_UNSET)
		r = note(
		    c, N_INEXACT,
		    "pam_env removed %.*s when the OVERRIDE expanded to nothing; here it is set "
		    "empty",
		    (int)ln->var_len, ln->var);
	if (r == 0 && ln->how == H_UNSET && memchr(ln->rest, '$', ln->rest_len))
		r = note(c, N_NOTE, "pam_env does not expand a NAME=VALUE line: $$ is a literal $");
	if (r == 0 && (ln->how == H_OVERRIDE || ln->how == H_CHAIN || ln->how == H_REFS ||
	               ln->how == H_REFS_UNSET))
		r = note_refs(c, &ln->pl.ovr);
	if (r == 0 && (ln->how == H_CHAIN || ln->how == H_DEFAULT))
		r = note_refs(c, &ln->pl.dflt);
	if (r == 0 && c->val.len == 0)
		r = note(c, N_NOTE,
		         "environment.d has no empty literal: ${%.*s:+} expands to nothing",
		         (int)ln->var_len, ln->var);
	if (r < 0)
		return r;
	memcpy(name, ln->var, ln->var_len);
	name[ln->var_len] = '\0';
	why = envd_policy_check(c->policy, name, NULL);
	/* a value without references is the value pam_envd checks too */
	if (!why && c->val.len && !memchr(c->val.data, '$', c->val.len) &&
	    !memchr(c->val.data, '\0', c->val.len)) {
		char *lit = strndup(c->val.data, c->val.len);

		if (!lit)
			return -ENOMEM;
		why = envd_policy_check(c->policy, name, lit);
		free(lit);
	} else if (!why && c->val.len && memchr(c->val.data, '$', c->val.len) &&
	           (rule = envd_policy_value_rule(c->policy, name)) != NULL) {
		r = note(c, N_INEXACT,
		         "pam_envd refuses some values of %.*s in user files and checks this one "
		         "after expansion (%s)",
		         (int)ln->var_len, ln->var, rule);
		if (r < 0)
			return r;
	}
	if (why)
		r = note(c, N_UNTRANSLATED,
		         "pam_envd refuses %.*s in user files (%s), so the line is left out; fix: "
		         "set it in your shell's startup file (~/.profile) instead, or an "
		         "administrator adds user_allow=%.*s to the pam_envd line and you remove "
		         "the \"# \" below",
		         (int)ln->var_len, ln->var, why, (int)ln->var_len, ln->var);
	return r < 0 ? r : why != NULL;
}

static bool plain_value(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return false;
	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		if (b <= ' ' || b == 0x7f || strchr("\\\"'`", b))
			return false;
	}
	return true;
}

static void put_assignment(struct ctx *c, const struct line *ln)
{
	const struct envd_buf *v = &c->val;
	size_t i;

	fwrite(ln->var, 1, ln->var_len, c->out);
	fputc('=', c->out);
	if (v->len == 0) {
		fprintf(c->out, "${%.*s:+}\n", (int)ln->var_len, ln->var);
		return;
	}
	if (plain_value(v->data, v->len)) {
		fwrite(v->data, 1, v->len, c->out);
		fputc('\n', c->out);
		return;
	}
	fputc('"', c->out);
	for (i = 0; i < v->len; i++) {
		if (strchr("\\\"`", v->data[i]))
			fputc('\\', c->out);
		fputc(v->data[i], c->out);
	}
	fputs("\"\n", c->out);
}

static void flush_notes(struct ctx *c)
{
	if (c->notes.len)
		fwrite(c->notes.data, 1, c->notes.len, c->out);
	c->notes.len = 0;
	c->n_inexact += c->inexact && !c->untranslated;
	c->n_untranslated += c->untranslated;
	c->inexact = c->untranslated = false;
}

/* Whether the value set is never empty, whatever the environment. */
static bool never_empty(const struct line *ln)
{
	if (ln->has_eq)
		return ln->how != H_UNSET || ln->rest_len > 0;
	return ln->how == H_OVERRIDE || (ln->how == H_DEFAULT && ln->d.literal);
}

/* The line commented out, with why.  Returns 0 or -ENOMEM. */
static int not_translated(struct ctx *c, const struct pamenv_logical *lg, const struct line *ln,
                          const char *why)
{
	int r = note(c, N_UNTRANSLATED, "%s", why);

	flush_notes(c);
	put_commented(c->out, lg->first, lg->last, false);
	if (r == 0)
		r = set_put(&c->tainted, ln->var, ln->var_len, true);
	if (r == 0)
		r = set_put(&c->assigned, ln->var, ln->var_len, false);
	return r < 0 ? r : set_put(&c->nonempty, ln->var, ln->var_len, false);
}

/* The translation commented out, after its notes: what the login does
 * not get.  Returns 0 or -ENOMEM. */
static int left_out(struct ctx *c, const struct line *ln)
{
	int r;

	c->inexact = false; /* counted as not translated */
	flush_notes(c);
	fputs("# ", c->out);
	put_assignment(c, ln);
	r = set_put(&c->tainted, ln->var, ln->var_len, true);
	if (r == 0)
		r = set_put(&c->assigned, ln->var, ln->var_len, false);
	return r < 0 ? r : set_put(&c->nonempty, ln->var, ln->var_len, false);
}

/* Returns 0 or a negative errno. */
static int translate(struct ctx *c, const struct pamenv_logical *lg, struct line *ln)
{
	struct pamenv_part unset;
	char buf[200];
	const char *why;
	bool exact;
	int r;

	ln->how = decide(ln);
	why = untranslatable(ln, buf, sizeof(buf));
	if (why)
		return not_translated(c, lg, ln, why);
	r = render_line(c, ln);
	if (r < 0)
		return r;
	/* environment.d has no escape for a control character, and envd
	 * writes none raw (escape.c); a tab drives no terminal */
	if (envd_esc_needed(c->val.data, c->val.len, ENVD_ESC_KEEP_TAB)) {
		return not_translated(
		    c, lg, ln,
		    memchr(c->val.data, '\r', c->val.len)
		        ? "the value holds a carriage return (a CRLF line end? convert the file "
		          "first), which envd does not write raw"
		        : "the value holds a control character, which envd does not write raw and "
		          "environment.d has no escape for");
	}
	r = note_line(c, ln);
	if (r < 0)
		return r;
	if (r == 0 && c->inexact && unset_ref(c, ln, &unset)) {
		r = note(c, N_UNTRANSLATED,
		         "%.*s is not set when this file is read, so the line is left out (envd "
		         "check would warn); fix: set %.*s in an earlier line or file, or write "
		         "${%.*s:-VALUE} with a default, and remove the \"# \" below",
		         (int)unset.n, unset.p, (int)unset.n, unset.p, (int)unset.n, unset.p);
		r = r < 0 ? r : 1;
	}
	if (r != 0)
		return r < 0 ? r : left_out(c, ln);
	exact = !c->inexact;
	flush_notes(c);
	put_assignment(c, ln);
	r = set_put(&c->tainted, ln->var, ln->var_len, !exact);
	if (r == 0)
		r = set_put(&c->assigned, ln->var, ln->var_len, true);
	return r < 0 ? r : set_put(&c->nonempty, ln->var, ln->var_len, exact && never_empty(ln));
}

/* The comment lines before pos went through already.  Returns 0 or
 * -ENOMEM. */
static int stop(struct ctx *c, const struct pamenv_logical *lg, const struct pamenv_reader *r,
                const char *why)
{
	int e = note(c, N_IGNORED,
	             "pam_env stops at line %u (%s), returns PAM_ABORT and ignores the rest of the "
	             "file",
	             lg->line, why);

	flush_notes(c);
	put_commented(c->out, lg->first, r->p, false);
	put_commented(c->out, r->p, r->end, true);
	return e;
}

static int ignored(struct ctx *c, const struct pamenv_logical *lg, const char *why)
{
	int r = note(c, N_IGNORED, "%s", why);

	flush_notes(c);
	put_commented(c->out, lg->first, lg->last, false);
	return r;
}

static void split_name(struct line *ln)
{
	const char *eq = memchr(ln->pl.name, '=', ln->pl.name_len);

	ln->has_eq = eq != NULL;
	ln->var = ln->pl.name;
	ln->var_len = eq ? (size_t)(eq - ln->pl.name) : ln->pl.name_len;
	ln->rest = eq ? eq + 1 : ln->pl.name + ln->pl.name_len;
	ln->rest_len = eq ? ln->pl.name_len - ln->var_len - 1 : 0;
}

/* A line holding a carriage return only: pam_env removes a variable named
 * "\r", which cannot exist. */
static bool cr_only(const struct pamenv_pline *pl)
{
	return pl->name_len && strspn(pl->name, "\r") == pl->name_len &&
	       pl->dflt.kind == PAMENV_V_NONE && pl->ovr.kind == PAMENV_V_NONE;
}

/* Returns 0, 1 when pam_env stops reading at this line, or a negative
 * errno. */
static int do_line(struct ctx *c, const struct pamenv_logical *lg, const struct pamenv_reader *r)
{
	struct line ln;
	char buf[200];
	size_t n;
	int e;

	pamenv_parse_line(lg->text, &ln.pl);
	if (ln.pl.bad && ln.pl.name_len == 0)
		return ignored(c, lg, "the line starts with a blank, which makes the name empty");
	if (ln.pl.bad) {
		n = strcspn(ln.pl.bad_at, "\n");
		snprintf(buf, sizeof(buf), "%s at \"%.*s\"", ln.pl.bad, (int)(n > 30 ? 30 : n),
		         ln.pl.bad_at);
		return ignored(c, lg, n ? buf : ln.pl.bad);
	}
	/* pam_env expands the DEFAULT, then the OVERRIDE, before anything else */
	scan_value(&ln.pl.dflt, &ln.d, &c->nonempty);
	scan_value(&ln.pl.ovr, &ln.o, &c->nonempty);
	if (ln.d.abort || ln.o.abort) {
		e = stop(c, lg, r, "a ${ or @{ without its }");
		return e < 0 ? e : 1;
	}
	split_name(&ln);
	if (cr_only(&ln.pl)) {
		fputc('\n', c->out); /* a blank line with a CRLF end: nothing to remove */
		return 0;
	}
	if (ln.pl.name_len == 0)
		return ignored(c, lg, "the line starts with a blank, which makes the name empty");
	if (ln.var_len == 0)
		return ignored(c, lg, "the name is empty");
	return translate(c, lg, &ln);
}

/* Returns 0 or a negative errno. */
static int translate_all(struct ctx *c, const char *data, size_t len)
{
	struct pamenv_reader r = {.p = data, .end = data + len, .lineno = 1, .out = c->out};
	struct pamenv_logical *lg = malloc(sizeof(*lg));
	enum pamenv_rd k;
	int e = 0;

	if (!lg)
		return -ENOMEM;
	while ((k = pamenv_assemble(&r, lg)) == PAMENV_LINE && (e = do_line(c, lg, &r)) == 0)
		;
	if (e == 0 && k == PAMENV_STOP)
		e = stop(c, lg, &r, lg->stop);
	free(lg);
	return e < 0 ? e : 0;
}

/* ---- the command ---- */

static void put_header(FILE *out, const char *file)
{
	fputs("# ", out);
	pamenv_put_comment_text(out, file, strlen(file));
	fputs("# as an environment.d file, by envd import-pam-environment.  Save it in\n"
	      "# ~/.config/environment.d/ as 99-pam-environment.conf: that name sorts after\n"
	      "# 99-environment.conf (/etc/environment), which pam_env read first.\n"
	      "# Lines marked \"envd: inexact\" or \"envd: not translated\" may give another\n"
	      "# value than pam_env did.\n\n",
	      out);
}

/* ~/.pam_environment of pw, malloc'd.  Returns 0, -ENOENT (said) or
 * -ENOMEM. */
static int default_file(const struct passwd *pw, char **path)
{
	if (!pw->pw_dir || pw->pw_dir[0] != '/') {
		fprintf(stderr, "envd: %s has no home directory\n", pw->pw_name);
		return -ENOENT;
	}
	return asprintf(path, "%s/.pam_environment", pw->pw_dir) < 0 ? -ENOMEM : 0;
}

static void say_read_error(const char *file, int r, const char *reason)
{
	fputs("envd: ", stderr);
	print_escaped(stderr, file, strlen(file), ENVD_ESC_C | ENVD_ESC_BACKSLASH);
	fputs(": ", stderr);
	if (r == -EFBIG)
		fputs("larger than 1 MiB", stderr);
	else if (r == -ENOENT)
		fputs("does not exist: nothing to import", stderr);
	else if (r == -EINVAL)
		fprintf(stderr, "not a regular file (%s)", reason[0] ? reason : "?");
	else
		print_escaped(stderr, reason[0] ? reason : strerror(-r),
		              strlen(reason[0] ? reason : strerror(-r)),
		              ENVD_ESC_C | ENVD_ESC_BACKSLASH);
}

/* Whose rights read the file: --as=USER; without it the caller's, and as
 * root, root's own ~/.pam_environment or, for a FILE, nobody's: root never
 * reads a file someone else can point anywhere with root's rights (a
 * ~/.pam_environment linked to /etc/shadow).  NULL, with a message, when
 * that user cannot be had. */
static struct passwd *reader_of(const char *file, const char *as)
{
	struct passwd *pw;
	uid_t me = getuid();

	if (as == NULL)
		as = geteuid() != 0 || file == NULL || strcmp(file, "-") == 0 ? NULL : "nobody";
	/* cppcheck-suppress [getpwnamCalled,getpwuidCalled] ; envd has one thread */
	pw = as ? getpwnam(as) : getpwuid(me);
	if (!pw) {
		fprintf(stderr, "envd: %s: no such user\n", as ? as : "(caller)");
		return NULL;
	}
	if (geteuid() != 0 && pw->pw_uid != me) {
		fprintf(stderr, "envd: --as=%s: only root reads with another user's rights\n", as);
		return NULL;
	}
	return pw;
}

/* The file into buf, read as pw's user: by a child process with the
 * user's credentials when root reads for another user (lib/child.c), else
 * here.  Returns 0, or -EIO when it cannot be read (said). */
static int read_as(const char *file, const struct passwd *pw, const char *as, struct envd_buf *buf)
{
	struct envd_ids ids;
	bool child = geteuid() == 0 && pw->pw_uid != 0;
	char reason[1024];
	int r;

	if (child) {
		r = envd_ids_get(pw->pw_name, pw->pw_uid, pw->pw_gid, &ids);
		if (r < 0) {
			fprintf(stderr, "envd: %s: cannot look up the groups: %s\n", pw->pw_name,
			        strerror(-r));
			return -EIO;
		}
	}
	r = pamenv_read_file(file, child ? &ids : NULL, pw, buf, reason, sizeof(reason));
	if (child)
		envd_ids_free(&ids);
	if (r < 0) {
		say_read_error(file, r, reason);
		if (geteuid() == 0 && as == NULL && (r == -EACCES || r == -EPERM))
			fprintf(stderr, " (read as %s; name the file's owner with --as=USER)",
			        pw->pw_name);
		fputc('\n', stderr);
		return -EIO;
	}
	return 0;
}

static void summary(const struct ctx *c, bool quiet)
{
	if (quiet || (c->n_inexact == 0 && c->n_untranslated == 0))
		return;
	fprintf(stderr,
	        "envd: %zu line(s) not translated, %zu translated inexactly: see the \"# envd:\" "
	        "comments\n",
	        c->n_untranslated, c->n_inexact);
}

int import_pam_environment(const char *file, const char *as, bool quiet, FILE *out)
{
	struct envd_buf buf;
	struct ctx c = {.out = out};
	struct passwd *pw = reader_of(file, as);
	char *path = NULL;
	int rc = EXIT_FAIL, r;

	envd_buf_init(&buf, 0);
	envd_buf_init(&c.notes, 0);
	envd_buf_init(&c.val, 0);
	if (!pw)
		goto out;
	if (!file && default_file(pw, &path) < 0)
		goto out;
	if (!file)
		file = path;
	r = read_as(file, pw, as, &buf);
	if (r != 0)
		goto out;
	c.policy = envd_policy_new(true);
	if (!c.policy)
		goto oom;
	put_header(out, file);
	if (buf.len && translate_all(&c, buf.data, buf.len) < 0)
		goto oom;
	summary(&c, quiet);
	rc = EXIT_OK;
	goto out;
oom:
	fprintf(stderr, "envd: out of memory\n");
out:
	tdestroy(c.tainted, free);
	tdestroy(c.assigned, free);
	tdestroy(c.nonempty, free);
	envd_policy_free(c.policy);
	envd_buf_free(&c.notes);
	envd_buf_free(&c.val);
	envd_buf_free(&buf);
	free(path);
	return rc;
}
