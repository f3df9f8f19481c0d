/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_options.c - lib/options.c: the one table of options for the module
 * and envd.
 */
#include "config.h"

#include <errno.h>

#include "options.h"
#include "testutil.h"

struct seen {
	int n;
	char problem[256];
	bool user_side_off;
};

static void on_report(const struct envd_option *o, const char *problem, bool user_side_off,
                      void *data)
{
	struct seen *s = data;

	s->n++;
	snprintf(s->problem, sizeof(s->problem), "%s", problem);
	s->user_side_off = user_side_off;
}

static const struct envd_option *row(const char *name)
{
	for (const struct envd_option *o = envd_options; o->name; o++)
		if (strcmp(o->name, name) == 0)
			return o;
	fail_msg("no row %s", name);
	return NULL;
}

/* every row complete; envd's names derived without '_' and distinct */
static void test_table(void **state)
{
	char a[64], b[64];

	(void)state;
	for (const struct envd_option *o = envd_options; o->name; o++) {
		assert_non_null(o->help);
		/* a flag, or a value with its setter */
		assert_true(o->flag ? o->set == NULL && o->arg == NULL : o->set && o->arg);
		assert_null(strchr(o->name, '='));
		assert_null(strchr(envd_option_cli_name(o, a, sizeof(a)), '_'));
		for (const struct envd_option *p = o + 1; p->name; p++)
			assert_string_not_equal(a, envd_option_cli_name(p, b, sizeof(b)));
	}
	assert_string_equal(envd_option_cli_name(row("user_dir"), a, sizeof(a)), "user-dir");
	assert_string_equal(envd_option_cli_name(row("system_dirs"), a, sizeof(a)), "system-dirs");
	assert_string_equal(envd_option_cli_name(row("nooverwrite"), a, sizeof(a)), "no-overwrite");
}

/* the module's spelling and envd's go through the same setter */
static void test_spellings_agree(void **state)
{
	static const struct {
		const char *name, *value;
	} cases[] = {
	    {"max_env", "lots"},    {"max_env", "0"},       {"max_env", "64M"},
	    {"max_env", " 1"},      {"user_only", ", :"},   {"user_dir", "%x"},
	    {"user_dir", "rel/%u"}, {"system_dirs", "rel"}, {"user_allow", ""},
	};
	char arg[128];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct envd_settings m, c;
		struct seen sm = {0}, sc = {0};

		assert_int_equal(envd_settings_init(&m), 0);
		assert_int_equal(envd_settings_init(&c), 0);
		snprintf(arg, sizeof(arg), "%s=%s", cases[i].name, cases[i].value);
		assert_int_equal(envd_settings_arg(&m, arg, on_report, &sm), -EINVAL);
		assert_int_equal(
		    envd_option_set(row(cases[i].name), &c, cases[i].value, on_report, &sc),
		    -EINVAL);
		assert_int_equal(sm.n, 1);
		assert_int_equal(sc.n, 1);
		assert_string_equal(sm.problem, sc.problem);
		assert_int_equal(m.user_side_off, c.user_side_off);
		assert_int_equal(sm.user_side_off, m.user_side_off);
		envd_settings_free(&m);
		envd_settings_free(&c);
	}
}

static void test_values(void **state)
{
	struct envd_settings s;
	struct envd_config cfg;
	struct seen seen = {0};

	(void)state;
	assert_int_equal(envd_settings_init(&s), 0);
	assert_string_equal(s.default_path, ENVD_DEFAULT_PATH);
	assert_null(s.system_dirs);
	assert_int_equal(envd_settings_arg(&s, "frob", on_report, &seen), -ENOENT);
	assert_int_equal(envd_settings_arg(&s, "nouser=1", on_report, &seen), -ENOENT);
	assert_int_equal(envd_settings_arg(&s, "user_dir", on_report, &seen), -ENOENT);
	assert_int_equal(seen.n, 0);
	assert_int_equal(envd_settings_arg(&s, "nouser", on_report, &seen), 0);
	assert_int_equal(envd_settings_arg(&s, "nooverwrite", on_report, &seen), 0);
	assert_int_equal(envd_settings_arg(&s, "max_env=2K", on_report, &seen), 0);
	assert_int_equal(envd_settings_arg(&s, "system_dirs=/a::/b:", on_report, &seen), 0);
	assert_int_equal(envd_settings_arg(&s, "user_dir=%h/env", on_report, &seen), 0);
	assert_int_equal(s.flags, ENVD_SET_NOUSER | ENVD_SET_NOOVERWRITE);
	assert_int_equal(s.max_env, 2048);
	assert_string_equal(s.system_dirs[0], "/a");
	assert_string_equal(s.system_dirs[1], "/b");
	assert_null(s.system_dirs[2]);
	assert_string_equal(s.user_dir, "%h/env");
	assert_false(s.user_side_off);
	/* an empty value is ignored, a malformed user-side one fails closed */
	assert_int_equal(envd_settings_arg(&s, "user_only=", on_report, &seen), -EINVAL);
	assert_false(s.user_side_off);
	assert_string_equal(seen.problem, "no value; fix: give one after '='");
	/* each malformed value says what is wrong and what to write */
	assert_int_equal(envd_settings_arg(&s, "max_env=2G", on_report, &seen), -EINVAL);
	assert_string_equal(seen.problem,
	                    "unknown suffix 'G'; fix: give bytes, or K or M (binary), at most 1M");
	assert_int_equal(envd_settings_arg(&s, "max_env=-1", on_report, &seen), -EINVAL);
	assert_string_equal(seen.problem,
	                    "not a positive size; fix: give bytes, with an optional K "
	                    "or M suffix, at most 1M");
	assert_int_equal(envd_settings_arg(&s, "max_env=2M", on_report, &seen), -EINVAL);
	assert_string_equal(seen.problem,
	                    "cannot raise the limit above 1048576 bytes; fix: give at most 1M");
	assert_int_equal(envd_settings_arg(&s, "system_dirs=/a:rel:/b", on_report, &seen), -EINVAL);
	assert_string_equal(seen.problem, "a relative directory; fix: give absolute ones");
	assert_false(s.user_side_off);
	assert_int_equal(envd_settings_arg(&s, "user_dir=cfg/environment.d", on_report, &seen),
	                 -EINVAL);
	assert_string_equal(seen.problem, "not an absolute path; fix: start it with / or with %h "
	                                  "(the home directory)");
	assert_int_equal(envd_settings_arg(&s, "user_dir=%h/%x", on_report, &seen), -EINVAL);
	assert_string_equal(seen.problem,
	                    "unknown specifier %x; fix: use %h (home), %u (user) or %% (a %)");
	assert_int_equal(envd_settings_arg(&s, "user_dir=%h/%", on_report, &seen), -EINVAL);
	assert_string_equal(seen.problem,
	                    "a '%' without %h, %u or %% after it; fix: write %% for a %");
	assert_true(s.user_side_off);
	s.user_side_off = false;
	assert_int_equal(envd_settings_arg(&s, "user_only=,", on_report, &seen), -EINVAL);
	assert_true(s.user_side_off);
	envd_config_init(&cfg);
	envd_settings_config(&s, &cfg);
	assert_int_equal(cfg.flags, ENVD_NO_OVERWRITE);
	assert_int_equal(cfg.limits.result_bytes, 2048);
	assert_ptr_equal(cfg.policy, s.policy);
	assert_string_equal(cfg.system_dirs[1], "/b");
	envd_settings_free(&s);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    tu_test(test_table),
	    tu_test(test_spellings_agree),
	    tu_test(test_values),
	};

	return cmocka_run_group_tests_name("unit_options", tests, NULL, NULL);
}
