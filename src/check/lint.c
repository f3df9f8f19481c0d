/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* lint.c - the warnings of `envd check`: what a file probably does not
 * mean (ENVD_LINT only; a login never pays for them). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "lint.h"

struct not_conf_ctx {
	struct loader *ld;
	const char *dir;
};

static void envd_lint_not_conf_name(struct loader *ld, const char *dir, const char *name)
{
	char *p = envd_join(dir, '/', name);

	envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_FILE_NOT_CONF, p ? p : dir, 0, NULL,
	           "not read: environment.d reads only names ending in \".conf\"");
	free(p);
}

static void not_conf_cb(const char *name, void *data)
{
	struct not_conf_ctx *c = data;

	envd_lint_not_conf_name(c->ld, c->dir, name);
}

static int envd_lint_not_conf(struct loader *ld, int dirfd, const char *dir)
{
	struct not_conf_ctx c = {.ld = ld, .dir = dir};

	return envd_scan_not_conf(dirfd, envd_scan_listed(ld->cfg->limits.files_per_dir),
	                          not_conf_cb, &c);
}

/* The directories of XDG_DATA_DIRS and XDG_CONFIG_DIRS when unset (the
 * XDG Base Directory Specification's defaults), else NULL. */
static const char *xdg_defaults(const char *name, size_t len)
{
	if (len == 13 && memcmp(name, "XDG_DATA_DIRS", 13) == 0)
		return "/usr/local/share:/usr/share";
	if (len == 15 && memcmp(name, "XDG_CONFIG_DIRS", 15) == 0)
		return "/etc/xdg";
	return NULL;
}

static bool session_name(const struct envd_config *cfg, const char *n)
{
	for (const char *const *p = cfg->session_names; p && *p; p++)
		if (strcmp(*p, n) == 0)
			return true;
	return false;
}

/* ${X-d}, ${X+d}, ${X=d}, ${X?d}: the whole "X-d" is taken as a name, an
 * invalid one, and expands to nothing.  Only the name before the
 * operator is shown (what follows may be a value). */
static void unsupported_form(struct loader *ld, const char *name, size_t len)
{
	size_t k = 0;
	char op;

	while (k < len && k < 64 && envd_name_char(name[k]))
		k++;
	if (k == 0 || k == len || !envd_name_start(name[0]) || !strchr("-+=?", name[k]))
		return;
	op = name[k];
	if (op == '-' || op == '+')
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_UNSUPPORTED, ld->file, ld->line,
		           ld->cur_name,
		           "${%.*s%c...} is not a form systemd knows: it expands to nothing; write "
		           "${%.*s:%c...}",
		           (int)k, name, op, (int)k, name, op);
	else
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_UNSUPPORTED, ld->file, ld->line,
		           ld->cur_name,
		           "${%.*s%c...} is not a form systemd knows: it expands to nothing; only "
		           "${%.*s:-...} and ${%.*s:+...} are",
		           (int)k, name, op, (int)k, name, (int)k, name);
}

static void envd_lint_on_ref(const char *name, size_t len, enum envd_ref_kind kind, bool set,
                             size_t value_len, void *data)
{
	struct loader *ld = data;
	bool lint = ld->cfg->flags & ENVD_LINT;
	bool self = ld->cur_name && len == ld->cur_len && memcmp(name, ld->cur_name, len) == 0;
	char n[128];

	if (len >= sizeof(n) || !envd_name_valid(name, len)) {
		if (lint && kind == ENVD_REF_PLAIN)
			unsupported_form(ld, name, len);
		return;
	}
	memcpy(n, name, len);
	n[len] = '\0';
	if (self && set && kind != ENVD_REF_ALTERNATE)
		ld->self_ref = true; /* the value keeps what the name had */
	if (!set && session_name(ld->cfg, n)) {
		envd_diagf(&ld->sink, ENVD_NOTICE, ENVD_C_SESSION_UNKNOWN, ld->file, ld->line,
		           ld->cur_name,
		           "%s depends on $%s, which each session sets (a display manager, "
		           "pam_systemd): not known here, taken as unset",
		           ld->cur_name ? ld->cur_name : n, n);
		return;
	}
	if (!lint)
		return;
	if (self && !set && kind == ENVD_REF_PLAIN && xdg_defaults(name, len)) {
		ld->xdg_unset = true; /* said by envd_lint_value, with the fix */
		return;
	}
	if (set && !ld->user_side && !ld->user_ref[0]) {
		const struct envd_store *s = &ld->res->store;
		size_t i = envd_store_find(s, n, len);

		if (i != SIZE_MAX && s->v[i].user_side)
			memcpy(ld->user_ref, n, len + 1);
	}
	if (kind == ENVD_REF_PLAIN && !set)
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_UNSET, ld->file, ld->line, n,
		           "$%s is not set here: it expands to nothing", n);
	else if (kind == ENVD_REF_DEFAULT && set && value_len == 0)
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_EMPTY_DEFAULT, ld->file, ld->line,
		           n,
		           "%s is set but empty: ${%s:-...} gives empty, the default applies only "
		           "when it is unset",
		           n, n);
}

static bool path_like(const char *name)
{
	size_t n = strlen(name);

	if (strcmp(name, "MANPATH") == 0 || strcmp(name, "INFOPATH") == 0)
		return false; /* an empty component means "the defaults" there */
	return (n >= 4 && strcmp(name + n - 4, "PATH") == 0) ||
	       (n >= 4 && strcmp(name + n - 4, "DIRS") == 0);
}

static void envd_lint_raw(struct loader *ld, const char *name, const char *v, size_t n)
{
	size_t i;
	bool tilde = false, cmd = false, spec = false, comment = false;

	for (i = 0; i < n; i++) {
		char c = v[i];

		if (c == '~' && (i == 0 || v[i - 1] == ':' || v[i - 1] == '='))
			tilde = true;
		else if (c == '`' || (c == '$' && i + 1 < n && v[i + 1] == '('))
			cmd = true;
		else if (c == '%' && i + 1 < n && memchr("hUuTtSsCEgGHVbmMo", v[i + 1], 17))
			spec = true;
		else if (c == '#' && i > 0 && (v[i - 1] == ' ' || v[i - 1] == '\t'))
			comment = true;
	}
	if (tilde)
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_TILDE, ld->file, ld->line, name,
		           "'~' is not expanded here; write $HOME");
	if (cmd)
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_COMMAND, ld->file, ld->line, name,
		           "command substitution ($(...) or `...`) is not run here");
	if (spec)
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_SPECIFIER, ld->file, ld->line, name,
		           "'%%' specifiers such as %%h are not expanded here; write $HOME");
	if (comment)
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_TRAILING_COMMENT, ld->file,
		           ld->line, name,
		           "'#' after the value is part of it; comments must start a line");
}

/* A leading, trailing or doubled ':' (n > 0). */
static bool has_empty_component(const char *v, size_t n)
{
	size_t i;

	if (v[0] == ':' || v[n - 1] == ':')
		return true;
	for (i = 0; i + 1 < n; i++)
		if (v[i] == ':' && v[i + 1] == ':')
			return true;
	return false;
}

static void envd_lint_value(struct loader *ld, const char *name, const char *v, size_t n,
                            bool expanded)
{
	const char *why, *defaults = xdg_defaults(name, strlen(name));

	if (ld->xdg_unset && defaults)
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_XDG_DEFAULTS, ld->file, ld->line,
		           name,
		           "$%s is not set here, as at a login: the value loses the defaults %s "
		           "that programs assume when it is unset; write ${%s:-%s}",
		           name, defaults, name, defaults);
	else if (path_like(name) && n > 0 && has_empty_component(v, n))
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_EMPTY_PATH, ld->file, ld->line,
		           name,
		           "empty component in %s: the current directory is searched "
		           "(was a variable unset?)",
		           name);
	if (expanded && ld->user_ref[0] && (why = envd_policy_check(ld->cfg->policy, name, v)))
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_USER_VALUE, ld->file, ld->line,
		           name,
		           "%s takes its value from $%s, which a user file sets: the user "
		           "controls a name that user files may not set (%s)",
		           name, ld->user_ref, why);
}

/* How much of a key a note shows: an assignment's whole name when it is
 * valid; of a line without '=', which may be a pasted secret, only a
 * short leading word followed by a blank ("EDITOR vim").  0: none. */
static int shown_len(enum envd_parse_note note, const char *key, size_t len)
{
	size_t k = 0;

	if (note != ENVD_NOTE_NO_EQUALS)
		return envd_name_valid(key, len) && len < 256 ? (int)len : 0;
	while (k < len && k <= 16 && envd_name_char(key[k]))
		k++;
	return k > 0 && k <= 16 && k < len && (key[k] == ' ' || key[k] == '\t') &&
	               envd_name_start(key[0])
	           ? (int)k
	           : 0;
}

static void envd_lint_note(enum envd_parse_note note, unsigned line, const char *key,
                           size_t key_len, void *data)
{
	struct loader *ld = data;
	int k = shown_len(note, key, key_len);
	const char *name = k ? "" : "NAME";

	switch (note) {
	case ENVD_NOTE_NO_EQUALS:
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_NO_EQUALS, ld->file, line, NULL,
		           "no '=' on this line: systemd ignores it; write %s%.*s=VALUE", name, k,
		           key);
		break;
	case ENVD_NOTE_OPEN_QUOTE:
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_OPEN_QUOTE, ld->file, line, NULL,
		           "%s%.*s: the quote opened on this line is never closed: the value takes "
		           "every line to the end of the file; close the quote",
		           name, k, key);
		break;
	case ENVD_NOTE_AFTER_QUOTE:
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_AFTER_QUOTE, ld->file, line, NULL,
		           "%s%.*s: the text after the closing quote is joined to the value, the "
		           "blanks dropped ('#' starts a comment only at the start of a line); "
		           "move it to a line of its own",
		           name, k, key);
		break;
	case ENVD_NOTE_COMMENT_BACKSLASH:
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_COMMENT_BACKSLASH, ld->file, line,
		           NULL,
		           "this comment ends in a backslash: systemd before 254 (Debian 12's 252) "
		           "continues the comment over the next line, which it then does not read; "
		           "end the comment with another character");
		break;
	case ENVD_NOTE_INNER_QUOTE:
		envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_INNER_QUOTE, ld->file, line, NULL,
		           "%s%.*s: a quote after the start of the value is kept as a character, "
		           "it quotes nothing; quote the whole value: %s%.*s=\"...\"",
		           name, k, key, name, k, key);
		break;
	}
}

/* A name for the user's file that sorts after sys_base: "zz-" and its
 * own, or else sys_base's stem and "_" and its own ('_' sorts after the
 * '.' of ".conf"). */
static void later_name(char *out, size_t size, const char *user_base, const char *sys_base)
{
	size_t stem = strlen(sys_base);

	snprintf(out, size, "zz-%s", user_base);
	if (strcmp(out, sys_base) > 0)
		return;
	if (stem > 5 && strcmp(sys_base + stem - 5, ".conf") == 0)
		stem -= 5;
	snprintf(out, size, "%.*s_%s", (int)stem, sys_base, user_base);
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static void say_replaced(struct loader *ld, const char *name, const char *file, unsigned line,
                         const char *by_file, unsigned by_line)
{
	char later[512];

	later_name(later, sizeof(later), base_of(file), base_of(by_file));
	envd_diagf(&ld->sink, ENVD_WARNING, ENVD_C_LINT_REPLACED, file, line, name,
	           "%s is replaced by %s:%u, which is read later (files are read in the order "
	           "of their names, whatever their directory): rename this file to sort after "
	           "%s, such as %s (a $%s in the value then takes the system's value)",
	           name, by_file, by_line, base_of(by_file), later, name);
}

static int by_entry(const void *a, const void *b)
{
	const struct envd_loss *x = a, *y = b;

	if (x->entry != y->entry)
		return x->entry < y->entry ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void envd_lint_replaced(struct loader *ld)
{
	const struct envd_store *s = &ld->res->store;
	size_t k = 0;

	/* by name, in the store's order, each name's in the order found */
	if (ld->nlosses > 1)
		qsort(ld->losses, ld->nlosses, sizeof(*ld->losses), by_entry);
	for (size_t i = 0; i < s->n; i++) {
		const struct envd_entry *e = &s->v[i];

		for (; k < ld->nlosses && ld->losses[k].entry == i; k++)
			say_replaced(ld, e->name, ld->losses[k].file, ld->losses[k].line,
			             ld->losses[k].by_file, ld->losses[k].by_line);
		if (e->replaced_file)
			say_replaced(ld, e->name, e->replaced_file, e->replaced_line, e->file,
			             e->line);
	}
}

const struct envd_lint_ops envd_lint_ops = {
    .not_conf = envd_lint_not_conf,
    .not_conf_name = envd_lint_not_conf_name,
    .on_ref = envd_lint_on_ref,
    .raw = envd_lint_raw,
    .value = envd_lint_value,
    .note = envd_lint_note,
    .replaced = envd_lint_replaced,
};
