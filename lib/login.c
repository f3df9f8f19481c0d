/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* login.c - what a login starts with, shared by the module and envd. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *envd_env_get(const char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

int envd_login_base(const char *const *env, const char *user, const char *home, const char *shell,
                    const char *default_path, const char ***out)
{
	const char *names[] = {"HOME", "USER", "LOGNAME", "SHELL", "PATH"};
	const char *values[] = {home, user, user, shell, default_path};
	bool add[ENVD_ARRAY_SIZE(names)];
	size_t n = 0, i, k, bytes = 0, size;
	const char **v;
	char *p;

	*out = NULL;
	for (i = 0; env && env[i]; i++)
		n++;
	/* fallbacks come after, so that the login's own values are found
	 * first; only the names it lacks are added at all */
	for (i = 0; i < ENVD_ARRAY_SIZE(names); i++) {
		add[i] = values[i] && !envd_env_get(env, names[i]);
		if (add[i])
			bytes += strlen(names[i]) + 1 + strlen(values[i]) + 1;
	}
	/* one block: the pointers, then the fallback strings */
	size = (n + ENVD_ARRAY_SIZE(names) + 1) * sizeof(*v);
	if (bytes > SIZE_MAX - size)
		return -ENOMEM;
	v = malloc(size + bytes);
	if (!v)
		return -ENOMEM;
	p = (char *)v + size;
	for (k = 0; k < n; k++)
		v[k] = env[k];
	for (i = 0; i < ENVD_ARRAY_SIZE(names); i++) {
		size_t nl, vl;

		if (!add[i])
			continue;
		nl = strlen(names[i]);
		vl = strlen(values[i]);
		v[k++] = p;
		memcpy(p, names[i], nl);
		p[nl] = '=';
		memcpy(p + nl + 1, values[i], vl + 1);
		p += nl + 1 + vl + 1;
	}
	v[k] = NULL;
	*out = v;
	return 0;
}

/* A home that can name a directory: absolute (an empty or relative one
 * would make "%h/x" some other path). */
static bool usable_home(const char *h)
{
	return h && h[0] == '/';
}

static int expand_template(const char *tmpl, const char *user, const char *home, char **out)
{
	struct envd_buf b;
	const char *p;
	int r = 0;

	envd_buf_init(&b, 4096);
	for (p = tmpl; *p && r == 0; p++) {
		if (*p != '%') {
			r = envd_buf_putc(&b, *p);
			continue;
		}
		p++;
		if (*p == 'h' && usable_home(home))
			r = envd_buf_append(&b, home, strlen(home));
		else if (*p == 'h')
			r = 1; /* no home: no user directory, as without a template */
		else if (*p == 'u' && user)
			r = envd_buf_append(&b, user, strlen(user));
		else if (*p == '%')
			r = envd_buf_putc(&b, '%');
		else
			r = -EINVAL; /* unknown specifier, a lone '%' at the end, %u without a user
			              */
		if (*p == '\0')
			break;
	}
	if (r == 0 && b.len && b.data[0] == '/') {
		*out = envd_buf_steal(&b, NULL);
		r = *out ? 0 : -ENOMEM;
	} else if (r == 0 || r == -E2BIG)
		r = -EINVAL;
	else if (r == 1)
		r = 0;
	envd_buf_free(&b);
	return r;
}

int envd_user_dir(const char *tmpl, const char *const *base, const char *user, const char *home,
                  char **out)
{
	const char *xdg, *h;

	*out = NULL;
	if (tmpl)
		return expand_template(tmpl, user, home, out);
	xdg = envd_env_get(base, "XDG_CONFIG_HOME");
	if (usable_home(xdg)) {
		*out = envd_join(xdg, '/', "environment.d");
		return *out ? 0 : -ENOMEM;
	}
	h = envd_env_get(base, "HOME");
	if (!usable_home(h))
		h = home;
	if (!usable_home(h))
		return 0;
	*out = envd_join(h, '/', ".config/environment.d");
	return *out ? 0 : -ENOMEM;
}
