/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_login.c - what a login starts with: envd_login_base and
 * envd_user_dir.
 */
#include "config.h"

#include "testutil.h"

/* ---- envd_env_get: the one lookup of lib/ and envd --reapply ---- */

static void test_env_get(void **state)
{
	static const char *const env[] = {"HOMEX=/x", "HOME=/h", "HOME=/second",
	                                  "E=",       "NOEQ",    NULL};

	(void)state;
	assert_string_equal(envd_env_get(env, "HOME"), "/h"); /* the first one */
	assert_string_equal(envd_env_get(env, "E"), "");
	assert_null(envd_env_get(env, "NOEQ"));
	assert_null(envd_env_get(env, "HOM"));
	assert_null(envd_env_get(env, "X"));
	assert_null(envd_env_get(NULL, "HOME"));
}

/* ---- envd_login_base ---- */

static void assert_strv(const char **got, const char *const *want)
{
	size_t i;

	assert_non_null(got);
	for (i = 0; want[i]; i++) {
		if (!got[i])
			fail_msg("missing entry %zu: %s", i, want[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(got[i]);
}

static void test_login_base(void **state)
{
	static const char *const env1[] = {"HOME=/h", "PATH=/p", "FOO=1", NULL};
	static const char *const want1[] = {"HOME=/h",   "PATH=/p",       "FOO=1", "USER=u",
	                                    "LOGNAME=u", "SHELL=/bin/sh", NULL};
	static const char *const want0[] = {"HOME=/home/u",  "USER=u",        "LOGNAME=u",
	                                    "SHELL=/bin/sh", "PATH=/usr/bin", NULL};
	static const char *const env2[] = {"HOME=", "USER", "LOGNAME=l", NULL};
	static const char *const want2[] = {"HOME=", "USER", "LOGNAME=l", "USER=u", NULL};
	static const char *const none[] = {NULL};
	static const char *const env3[] = {"HOMEX=/x", NULL};
	const char **v;

	(void)state;
	/* no environment: every fallback */
	assert_int_equal(envd_login_base(NULL, "u", "/home/u", "/bin/sh", "/usr/bin", &v), 0);
	assert_strv(v, want0);
	free(v);
	/* the environment first, then only what it lacks */
	assert_int_equal(envd_login_base(env1, "u", "/home/u", "/bin/sh", "/usr/bin", &v), 0);
	assert_strv(v, want1);
	free(v);
	/* an empty HOME counts as set; a bare USER (no '=') does not */
	assert_int_equal(envd_login_base(env2, "u", "/pw", NULL, NULL, &v), 0);
	assert_strv(v, want2);
	free(v);
	/* NULL fallbacks are left out */
	assert_int_equal(envd_login_base(none, NULL, NULL, NULL, NULL, &v), 0);
	assert_strv(v, none);
	free(v);
	assert_int_equal(envd_login_base(env3, NULL, "/h", NULL, NULL, &v), 0);
	{
		static const char *const want3[] = {"HOMEX=/x", "HOME=/h", NULL};

		assert_strv(v, want3);
	}
	/* the caller's strings, borrowed; the fallbacks in the block */
	assert_ptr_equal(v[0], env3[0]);
	assert_true(v[1] > (const char *)v && v[1] < (const char *)(v + 8) + 64);
	free(v);
}

/* The base feeds expansion: the login's own values win over fallbacks. */
static void test_login_base_in_load(void **state)
{
	static const char *const env[] = {"HOME=/pam/home", NULL};
	struct tu_tree t;
	const char **base;

	(void)state;
	assert_int_equal(envd_login_base(env, "u", "/pw/home", "/bin/sh", "/bin", &base), 0);
	tu_tree_init(&t);
	t.cfg.base_env = base;
	tu_write(t.etc, "a.conf", "A=$HOME:$USER:$PATH\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "/pam/home:u:/bin");
	tu_tree_free(&t);
	free(base);
}

/* ---- envd_user_dir ---- */

struct dcase {
	const char *tmpl;
	const char *user, *home;
	int rc;
	const char *out; /* NULL: no directory */
};

static void test_user_dir_template(void **state)
{
	static const struct dcase cases[] = {
	    {"%h/.envd", "u", "/home/u", 0, "/home/u/.envd"},
	    {"/etc/envd/%u", "u", "/home/u", 0, "/etc/envd/u"},
	    {"%h/100%%", "u", "/home/u", 0, "/home/u/100%"},
	    {"/srv/%u/%h", "bob", "/b", 0, "/srv/bob//b"},
	    {"/plain", NULL, NULL, 0, "/plain"},
	    {"%x", "u", "/home/u", -EINVAL, NULL},
	    {"/a/%x", "u", "/home/u", -EINVAL, NULL},
	    /* no usable home names no directory, as the default template */
	    {"%h/x", "u", NULL, 0, NULL},
	    {"%h/x", "u", "", 0, NULL},
	    {"%h/x", "u", "relative", 0, NULL},
	    {"/etc/envd/%h", "u", "", 0, NULL},
	    {"/x/%u", NULL, "/h", -EINVAL, NULL},
	    {"rel/%u", "u", "/home/u", -EINVAL, NULL},
	    {"%u/x", "u", "/home/u", -EINVAL, NULL},
	    {"", "u", "/home/u", -EINVAL, NULL},
	    {"/x/%", "u", "/home/u", -EINVAL, NULL},
	    {"%", "u", "/home/u", -EINVAL, NULL},
	};
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(cases); i++) {
		/* an exact-size copy: the sanitizer build sees reads past the end */
		char *tmpl = strdup(cases[i].tmpl);
		char *out = (char *)"unchanged";
		int rc;

		assert_non_null(tmpl);
		rc = envd_user_dir(tmpl, NULL, cases[i].user, cases[i].home, &out);
		if (rc != cases[i].rc)
			fail_msg("template \"%s\": rc %d, expected %d", cases[i].tmpl, rc,
			         cases[i].rc);
		if (cases[i].out)
			assert_string_equal(out, cases[i].out);
		else
			assert_null(out);
		if (rc == 0)
			free(out);
		free(tmpl);
	}
}

static void test_user_dir_template_too_long(void **state)
{
	char *home = tu_repeat("h", 5000), *out = NULL;

	(void)state;
	home[0] = '/';
	assert_int_equal(envd_user_dir("%h/x", NULL, "u", home, &out), -EINVAL);
	assert_null(out);
	free(home);
}

static void test_user_dir_default(void **state)
{
	static const char *const xdg[] = {"HOME=/hb", "XDG_CONFIG_HOME=/xdg", NULL};
	static const char *const xdg_rel[] = {"XDG_CONFIG_HOME=rel", "HOME=/hb", NULL};
	static const char *const xdg_empty[] = {"XDG_CONFIG_HOME=", NULL};
	static const char *const xdg_near[] = {"XDG_CONFIG_HOMEX=/no", "HOME=/hb", NULL};
	static const char *const home_rel[] = {"HOME=relative", NULL};
	static const char *const home_empty[] = {"HOME=", NULL};
	char *out;

	(void)state;
	assert_int_equal(envd_user_dir(NULL, xdg, "u", "/pw", &out), 0);
	assert_string_equal(out, "/xdg/environment.d");
	free(out);
	/* a relative or empty XDG_CONFIG_HOME is ignored */
	assert_int_equal(envd_user_dir(NULL, xdg_rel, "u", "/pw", &out), 0);
	assert_string_equal(out, "/hb/.config/environment.d");
	free(out);
	assert_int_equal(envd_user_dir(NULL, xdg_empty, "u", "/pw", &out), 0);
	assert_string_equal(out, "/pw/.config/environment.d");
	free(out);
	assert_int_equal(envd_user_dir(NULL, xdg_near, "u", "/pw", &out), 0);
	assert_string_equal(out, "/hb/.config/environment.d");
	free(out);
	/* HOME from the base, else the passwd home */
	assert_int_equal(envd_user_dir(NULL, home_rel, "u", "/pw", &out), 0);
	assert_string_equal(out, "/pw/.config/environment.d");
	free(out);
	assert_int_equal(envd_user_dir(NULL, home_empty, "u", "/pw", &out), 0);
	assert_string_equal(out, "/pw/.config/environment.d");
	free(out);
	assert_int_equal(envd_user_dir(NULL, NULL, "u", "/pw", &out), 0);
	assert_string_equal(out, "/pw/.config/environment.d");
	free(out);
	/* no home anywhere: no directory, not an error */
	out = (char *)"unchanged";
	assert_int_equal(envd_user_dir(NULL, NULL, "u", NULL, &out), 0);
	assert_null(out);
	out = (char *)"unchanged";
	assert_int_equal(envd_user_dir(NULL, home_rel, "u", "relative", &out), 0);
	assert_null(out);
	/* the template wins over XDG_CONFIG_HOME */
	assert_int_equal(envd_user_dir("%h/t", xdg, "u", "/pw", &out), 0);
	assert_string_equal(out, "/pw/t");
	free(out);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    tu_test(test_env_get),
	    tu_test(test_login_base),
	    tu_test(test_login_base_in_load),
	    tu_test(test_user_dir_template),
	    tu_test(test_user_dir_template_too_long),
	    tu_test(test_user_dir_default),
	};

	return cmocka_run_group_tests_name("unit_login", tests, NULL, NULL);
}
