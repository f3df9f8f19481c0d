/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_admin.c - admin_dir: the administrator's directories for some users
 * and groups, through envd_load on temporary trees.  Their order among the
 * user's and the system's directories, masking by basename across all of
 * them, which groups apply (the caller's list of gids, the entries' names
 * looked up in NSS), names that cannot name a directory, and the cap on
 * the entries looked up.  The groups are the base system's (daemon, bin),
 * looked up here: the test skips where they are missing.
 */
#include "config.h"

#include <grp.h>

#include "testutil.h"

struct admin {
	struct tu_tree t;
	char base[TU_PATH]; /* root/etc/environment.d: user/ and group/ below */
	char user[TU_PATH]; /* base/user/alice */
	char g1[TU_PATH];   /* base/group/bin */
	char g2[TU_PATH];   /* base/group/daemon */
	gid_t gids[2];
};

/* A tree with admin_dir=/etc/environment.d for the user "alice" in the
 * groups bin and daemon; false when the system lacks them. */
static bool admin_init(struct admin *a)
{
	const struct group *bin = getgrnam("bin"), *daemon;

	if (bin == NULL)
		return false;
	a->gids[0] = bin->gr_gid;
	daemon = getgrnam("daemon");
	if (daemon == NULL)
		return false;
	a->gids[1] = daemon->gr_gid;
	tu_tree_init(&a->t);
	memcpy(a->base, a->t.etc, sizeof(a->base));
	tu_join(a->user, a->base, "user/alice");
	tu_join(a->g1, a->base, "group/bin");
	tu_join(a->g2, a->base, "group/daemon");
	tu_mkdir_p(a->user, 0755);
	tu_mkdir_p(a->g1, 0755);
	tu_mkdir_p(a->g2, 0755);
	a->t.cfg.admin_dir = "/etc/environment.d"; /* below cfg.root */
	a->t.cfg.admin_user = "alice";
	a->t.cfg.admin_groups = a->gids;
	a->t.cfg.admin_ngroups = 2;
	return true;
}

/* Precedence, highest first: the user directory, admin user/, the groups
 * in name order, the system directories.  A basename is read from the
 * first that holds it; the files are read in strcmp order of basenames,
 * whatever directory each comes from, so a later basename's assignment
 * wins the variable. */
static void test_order_and_masking(void **state)
{
	struct admin a;

	(void)state;
	if (!admin_init(&a))
		skip();
	/* 10-x.conf everywhere: the user's own wins */
	tu_write(a.t.user, "10-x.conf", "X=user\n");
	tu_write(a.user, "10-x.conf", "X=admin-user\n");
	tu_write(a.g1, "10-x.conf", "X=bin\n");
	tu_write(a.g2, "10-x.conf", "X=daemon\n");
	tu_write(a.t.etc, "10-x.conf", "X=etc\n");
	/* 20-y.conf: the per-user one over the groups' and the system's */
	tu_write(a.user, "20-y.conf", "Y=admin-user\n");
	tu_write(a.g1, "20-y.conf", "Y=bin\n");
	tu_write(a.t.usr, "20-y.conf", "Y=usr\n");
	/* 30-z.conf: bin sorts before daemon, so it is bin's */
	tu_write(a.g2, "30-z.conf", "Z=daemon\n");
	tu_write(a.g1, "30-z.conf", "Z=bin\n");
	/* 40-w.conf: a group's over the system's */
	tu_write(a.g2, "40-w.conf", "W=daemon:$W0\n");
	tu_write(a.t.etc, "40-w.conf", "W=etc\n");
	/* basename order decides the value: the system's 50-v after the
	 * group's 05-v, which expands in the system's file */
	tu_write(a.g1, "05-v.conf", "V=bin\n");
	tu_write(a.t.etc, "50-v.conf", "V=etc-over-${V}\nW0=late\n");
	tu_load_ok(&a.t);
	tu_assert_var(&a.t, "X", "user");
	tu_assert_var(&a.t, "Y", "admin-user");
	tu_assert_var(&a.t, "Z", "bin");
	tu_assert_var(&a.t, "W", "daemon:");
	tu_assert_var(&a.t, "V", "etc-over-bin");
	assert_int_equal(tu_file(&a.t, "user/alice/10-x.conf")->state, ENVD_FILE_MASKED);
	assert_true(tu_ends_with(tu_file(&a.t, "user/alice/10-x.conf")->masked_by,
	                         ".config/environment.d/10-x.conf"));
	assert_true(tu_ends_with(tu_file(&a.t, "group/bin/10-x.conf")->masked_by,
	                         ".config/environment.d/10-x.conf"));
	assert_true(
	    tu_ends_with(tu_file(&a.t, "group/bin/20-y.conf")->masked_by, "user/alice/20-y.conf"));
	assert_true(tu_ends_with(tu_file(&a.t, "usr/lib/environment.d/20-y.conf")->masked_by,
	                         "user/alice/20-y.conf"));
	assert_true(tu_ends_with(tu_file(&a.t, "group/daemon/30-z.conf")->masked_by,
	                         "group/bin/30-z.conf"));
	assert_true(tu_ends_with(tu_file(&a.t, "etc/environment.d/40-w.conf")->masked_by,
	                         "group/daemon/40-w.conf"));
	assert_int_equal(tu_file(&a.t, "group/daemon/40-w.conf")->state, ENVD_FILE_USED);
	assert_false(tu_file(&a.t, "group/daemon/40-w.conf")->user_side);
	tu_tree_free(&a.t);
}

/* An empty file in the user directory masks the administrator's file of
 * that name as it masks a system one: the user's own files override. */
static void test_user_masks_admin(void **state)
{
	struct admin a;

	(void)state;
	if (!admin_init(&a))
		skip();
	tu_write(a.t.user, "proxy.conf", "");
	tu_write(a.user, "proxy.conf", "P=admin\n");
	tu_write(a.g1, "proxy.conf", "P=group\n");
	tu_load_ok(&a.t);
	tu_assert_unset(&a.t, "P");
	assert_int_equal(tu_file(&a.t, "user/alice/proxy.conf")->state, ENVD_FILE_MASKED);
	assert_int_equal(tu_file(&a.t, "group/bin/proxy.conf")->state, ENVD_FILE_MASKED);

	/* without the user side, the administrator's apply */
	a.t.cfg.user_dir = NULL;
	tu_load_ok(&a.t);
	tu_assert_var(&a.t, "P", "admin");
	tu_tree_free(&a.t);
}

/* Only the groups the caller lists: another group's directory and a name
 * no group has are not read; without admin_dir nothing of it is. */
static void test_which_groups(void **state)
{
	struct admin a;
	char other[TU_PATH];

	(void)state;
	if (!admin_init(&a))
		skip();
	tu_join(other, a.base, "group/no-such-group-envd");
	tu_mkdir_p(other, 0755);
	tu_write(other, "a.conf", "NOGROUP=1\n");
	tu_write(a.g1, "a.conf", "BIN=1\n");
	tu_write(a.g2, "b.conf", "DAEMON=1\n");
	a.t.cfg.admin_ngroups = 1; /* bin only */
	tu_load_ok(&a.t);
	tu_assert_var(&a.t, "BIN", "1");
	tu_assert_unset(&a.t, "DAEMON");
	tu_assert_unset(&a.t, "NOGROUP");
	assert_int_equal(envd_result_file_count(a.t.res), 1);
	tu_assert_diag(&a.t.diags, ENVD_C_DIR_MISSING, "group/no-such-group-envd", 0);

	a.t.cfg.admin_dir = NULL;
	tu_load_ok(&a.t);
	tu_assert_unset(&a.t, "BIN");
	tu_tree_free(&a.t);
}

/* A user name that is no plain path component names no directory: with
 * "..", base/user/.. would be base itself. */
static void test_unsafe_user_name(void **state)
{
	static const char *const bad[] = {"..", ".", "", "a/b", "a\nb", "a\x7f"};
	struct admin a;

	(void)state;
	if (!admin_init(&a))
		skip();
	tu_write(a.base, "user.conf", "HOSTILE=1\n");
	tu_write(a.base, "ok.conf", "OK=1\n");
	a.t.cfg.system_dirs = (const char *const[]){"/usr/lib/environment.d", NULL};
	for (size_t i = 0; i < TU_LEN(bad); i++) {
		a.t.cfg.admin_user = bad[i];
		tu_diags_clear(&a.t.diags);
		tu_load_ok(&a.t);
		tu_assert_unset(&a.t, "HOSTILE");
		tu_assert_diag(&a.t.diags, ENVD_C_DIR_UNSAFE, "/etc/environment.d", 0);
	}
	/* a plain name is no finding */
	a.t.cfg.admin_user = "alice";
	tu_diags_clear(&a.t.diags);
	tu_load_ok(&a.t);
	tu_assert_unset(&a.t, "HOSTILE");
	assert_int_equal(tu_count(&a.t.diags, ENVD_C_DIR_UNSAFE), 0);
	tu_tree_free(&a.t);
}

static void test_path_component(void **state)
{
	char longest[ENVD_MAX_COMPONENT + 2];

	(void)state;
	assert_true(envd_path_component("alice"));
	assert_true(envd_path_component("domain users"));
	assert_true(envd_path_component("a..b"));
	assert_true(envd_path_component("...")); /* a name, not the parent */
	assert_false(envd_path_component(NULL));
	assert_false(envd_path_component(""));
	assert_false(envd_path_component("."));
	assert_false(envd_path_component(".."));
	assert_false(envd_path_component("../etc"));
	assert_false(envd_path_component("a/b"));
	assert_false(envd_path_component("a\tb"));
	assert_false(envd_path_component("a\x1b[31m"));
	assert_false(envd_path_component("\x7f"));
	memset(longest, 'a', sizeof(longest) - 1);
	longest[ENVD_MAX_COMPONENT] = '\0';
	assert_true(envd_path_component(longest));
	longest[ENVD_MAX_COMPONENT] = 'a';
	longest[ENVD_MAX_COMPONENT + 1] = '\0';
	assert_false(envd_path_component(longest));
}

/* At most ENVD_MAX_ADMIN_GROUPS entries of group/ are looked up, the first
 * in name order: a group of the user's past them is not read, and the cap
 * is said. */
static void test_group_cap(void **state)
{
	struct admin a;
	char dir[TU_PATH], name[64];

	(void)state;
	if (!admin_init(&a))
		skip();
	tu_write(a.g1, "a.conf", "BIN=1\n");
	tu_load_ok(&a.t);
	tu_assert_var(&a.t, "BIN", "1");
	assert_int_equal(tu_count(&a.t.diags, ENVD_C_LIMIT), 0);
	/* "bin" sorts after these */
	for (unsigned i = 0; i < ENVD_MAX_ADMIN_GROUPS; i++) {
		snprintf(name, sizeof(name), "group/a%03u-no-such-group", i);
		tu_join(dir, a.base, name);
		tu_mkdir_p(dir, 0755);
	}
	tu_diags_clear(&a.t.diags);
	tu_load_ok(&a.t);
	tu_assert_unset(&a.t, "BIN");
	tu_assert_diag(&a.t.diags, ENVD_C_LIMIT, "/etc/environment.d/group", 0);
	tu_tree_free(&a.t);
}

static int by_name(const void *a, const void *b)
{
	return strcmp((const char *)a, (const char *)b);
}

/* More group directories than ENVD_MAX_DIRS (the user's and the system
 * ones), each of a group that exists and that the user is in: each is a
 * directory of the load, with its state kept (an out-of-bounds write in
 * the login process once, with 12 groups).  The value in the last group's
 * directory, in name order, is read. */
static void test_many_groups(void **state)
{
	enum { WANT = 20 };
	char names[WANT][64], dir[TU_PATH], sub[96], last[TU_PATH];
	gid_t gids[WANT];
	struct admin a;
	const struct group *g;
	size_t n = 0, i;

	(void)state;
	if (!admin_init(&a))
		skip();
	setgrent();
	/* the base system's groups (gid below 1000): a test running beside
	 * this one adds and deletes groups of its own (groupadd).  No other
	 * lookup inside the enumeration: musl's getgrnam rewinds it */
	while (n < WANT && (g = getgrent()) != NULL)
		if (g->gr_gid < 1000 && strlen(g->gr_name) < sizeof(names[0]) &&
		    envd_path_component(g->gr_name) && g->gr_name[0] != '.')
			snprintf(names[n++], sizeof(names[0]), "%s", g->gr_name);
	endgrent();
	if (n < 13) {
		tu_tree_free(&a.t);
		skip();
	}
	qsort(names, n, sizeof(names[0]), by_name);
	for (i = 0; i < n; i++) {
		const struct group *gi = getgrnam(names[i]);

		/* each name once, each a group still */
		assert_true(i == 0 || strcmp(names[i], names[i - 1]) != 0);
		assert_non_null(gi);
		gids[i] = gi->gr_gid;
		snprintf(sub, sizeof(sub), "group/%.63s", names[i]);
		tu_join(dir, a.base, sub);
		tu_mkdir_p(dir, 0755);
		snprintf(sub, sizeof(sub), "G%zu=%.63s\n", i, names[i]);
		tu_write(dir, "g.conf", sub);
	}
	/* the last in name order: its own basename, so no other masks it */
	snprintf(sub, sizeof(sub), "group/%.63s", names[n - 1]);
	tu_join(last, a.base, sub);
	tu_write(last, "zz-last.conf", "LAST_GROUP=yes\n");
	a.t.cfg.admin_groups = gids;
	a.t.cfg.admin_ngroups = n;
	tu_load_ok(&a.t);
	tu_assert_var(&a.t, "LAST_GROUP", "yes");
	/* g.conf is the first group's: every later one's is masked by it */
	tu_assert_var(&a.t, "G0", names[0]);
	/* the user's, admin user/, n groups, the system directories */
	assert_true(envd_result_dir_count(a.t.res) >= n + 2);
	for (i = 0; i < envd_result_dir_count(a.t.res); i++)
		assert_non_null(envd_result_dir(a.t.res, i)->path);
	/* the last group's directory: searched, its two files counted */
	for (i = 0; i < envd_result_dir_count(a.t.res); i++)
		if (strcmp(envd_result_dir(a.t.res, i)->path, last) == 0)
			break;
	assert_true(i < envd_result_dir_count(a.t.res));
	assert_int_equal(envd_result_dir(a.t.res, i)->files, 2);
	assert_int_equal(tu_count(&a.t.diags, ENVD_C_LIMIT), 0);
	tu_tree_free(&a.t);
}

/* The group directories are system directories: root-owned (here the
 * tests' owner) and writable by no one else, as the chase requires. */
static void test_group_dir_unsafe(void **state)
{
	struct admin a;
	char group[TU_PATH];

	(void)state;
	if (!admin_init(&a))
		skip();
	tu_write(a.g1, "a.conf", "BIN=1\n");
	tu_write(a.user, "u.conf", "U=1\n");
	tu_join(group, a.base, "group");
	assert_int_equal(chmod(a.g1, 0777), 0);
	assert_int_equal(chmod(a.user, 0775), 0);
	tu_load_ok(&a.t);
	tu_assert_unset(&a.t, "BIN");
	tu_assert_unset(&a.t, "U");
	tu_assert_diag(&a.t.diags, ENVD_C_DIR_UNSAFE, "group/bin", 0);
	tu_assert_diag(&a.t.diags, ENVD_C_DIR_UNSAFE, "user/alice", 0);
	assert_int_equal(chmod(a.g1, 0755), 0);
	assert_int_equal(chmod(group, 0777), 0);
	tu_diags_clear(&a.t.diags);
	tu_load_ok(&a.t);
	tu_assert_unset(&a.t, "BIN");
	tu_assert_diag(&a.t.diags, ENVD_C_DIR_UNSAFE, "/group", 0);
	assert_int_equal(chmod(group, 0755), 0);
	tu_tree_free(&a.t);
}

/* An empty group/ (or one holding no directory): nothing to look up. */
static void test_empty_group_dir(void **state)
{
	struct admin a;
	char group[TU_PATH];

	(void)state;
	if (!admin_init(&a))
		skip();
	tu_write(a.user, "u.conf", "U=1\n");
	tu_join(group, a.base, "group");
	tu_rm_rf(group);
	tu_mkdir_p(group, 0755);
	tu_load_ok(&a.t);
	tu_assert_var(&a.t, "U", "1");
	tu_write(group, "not-a-dir", "X=1\n");
	tu_load_ok(&a.t);
	tu_assert_var(&a.t, "U", "1");
	assert_int_equal(envd_result_file_count(a.t.res), 1);
	tu_tree_free(&a.t);
}

static void test_relative_admin_dir(void **state)
{
	struct admin a;

	(void)state;
	if (!admin_init(&a))
		skip();
	a.t.cfg.admin_dir = "etc/environment.d";
	assert_int_equal(tu_load(&a.t), -EINVAL);
	tu_tree_free(&a.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    tu_test(test_order_and_masking), tu_test(test_user_masks_admin),
	    tu_test(test_which_groups),      tu_test(test_unsafe_user_name),
	    tu_test(test_path_component),    tu_test(test_group_cap),
	    tu_test(test_many_groups),       tu_test(test_group_dir_unsafe),
	    tu_test(test_empty_group_dir),   tu_test(test_relative_admin_dir),
	};

	return cmocka_run_group_tests_name("unit_admin", tests, NULL, NULL);
}
