/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* lint.c - the warnings of `envd check`: what a file probably does not
 * mean (ENVD_LINT only; a login never pays for them). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "loader.h"

struct not_conf_ctx {
	struct loader *ld;
	const char *dir;
};

void envd_lint_not_conf_name(struct loader *ld, const char *dir, const char *name)
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

int envd_lint_not_conf(struct loader *ld, int dirfd, const char *dir)
{
	struct not_conf_ctx c = {.ld = ld, .dir = dir};

	return envd_scan_not_conf(dirfd, envd_scan_listed(ld->cfg->limits.files_per_dir),
	                          not_conf_cb, &c);
}

void envd_lint_on_ref(const char *name, size_t len, enum envd_ref_kind kind, bool set,
                      size_t value_len, void *data)
{
	struct loader *ld = data;
	char n[128];

	if (len >= sizeof(n) || !envd_name_valid(name, len))
		return;
	memcpy(n, name, len);
	n[len] = '\0';
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

void envd_lint_raw(struct loader *ld, const char *name, const char *v, size_t n)
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

void envd_lint_value(struct loader *ld, const char *name, const char *v, size_t n, bool expanded)
{
	const char *why;

	if (path_like(name) && n > 0 && has_empty_component(v, n))
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
