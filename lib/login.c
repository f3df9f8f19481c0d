/* login.c - what a login starts with, shared by the module and envd. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void envd_strv_free(char **v)
{
	char **p;

	if (!v)
		return;
	for (p = v; *p; p++)
		free(*p);
	free(v);
}

static const char *env_get(const char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; env && *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

int envd_login_base(const char *const *env, const char *user, const char *home, const char *shell,
                    const char *default_path, char ***out)
{
	const char *names[] = {"HOME", "USER", "LOGNAME", "SHELL", "PATH"};
	const char *values[] = {home, user, user, shell, default_path};
	size_t n = 0, i, k = 0;
	char **v;

	*out = NULL;
	for (i = 0; env && env[i]; i++)
		n++;
	v = calloc(n + ENVD_ARRAY_SIZE(names) + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (!(v[k++] = strdup(env[i])))
			goto oom;
	/* fallbacks come after, so that the login's own values are found
	 * first; only the names it lacks are added at all */
	for (i = 0; i < ENVD_ARRAY_SIZE(names); i++) {
		if (!values[i] || env_get(env, names[i]))
			continue;
		if (!(v[k++] = envd_join(names[i], '=', values[i])))
			goto oom;
	}
	*out = v;
	return 0;
oom:
	envd_strv_free(v);
	return -ENOMEM;
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
		if (*p == '\0') {
			r = -EINVAL; /* a lone '%' at the end */
			break;
		}
		if (*p == 'h' && home)
			r = envd_buf_append(&b, home, strlen(home));
		else if (*p == 'u' && user)
			r = envd_buf_append(&b, user, strlen(user));
		else if (*p == '%')
			r = envd_buf_putc(&b, '%');
		else
			r = -EINVAL; /* unknown specifier, or %h without a home */
	}
	if (r == 0 && b.len && b.data[0] == '/') {
		*out = envd_buf_steal(&b, NULL);
		r = *out ? 0 : -ENOMEM;
	} else if (r == 0 || r == -E2BIG)
		r = -EINVAL;
	envd_buf_free(&b);
	return r;
}

int envd_user_dir(const char *tmpl, const char *const *base, const char *user, const char *home,
                  char **out)
{
	const char *xdg, *h;
	const char *suffix;

	*out = NULL;
	if (tmpl)
		return expand_template(tmpl, user, home, out);
	xdg = env_get(base, "XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/') {
		h = xdg;
		suffix = "/environment.d";
	} else {
		h = env_get(base, "HOME");
		if (!h || h[0] != '/')
			h = home;
		suffix = "/.config/environment.d";
	}
	if (!h || h[0] != '/')
		return 0;
	*out = malloc(strlen(h) + strlen(suffix) + 1);
	if (!*out)
		return -ENOMEM;
	strcpy(*out, h);
	strcat(*out, suffix);
	return 0;
}
