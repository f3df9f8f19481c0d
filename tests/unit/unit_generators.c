/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_generators.c - envd_load with cfg.generators: systemd's order and
 * masking of the generator directories, environment.d's place among them,
 * what each generator sees and how its output is read, and the refusals
 * (owner, mode, the directories on the way, the policy, time and size).
 * Generators of the tests' own, shell scripts, in directories below a
 * scratch root owned by the caller (cfg.system_uid).
 */
#include "config.h"

#include <time.h>

#include "testutil.h"
#include "loader.h"

struct gtree {
	struct tu_tree t;
	char a[TU_PATH], b[TU_PATH], c[TU_PATH]; /* generator directories */
	const char *dirs[4];
};

static void gtree_init(struct gtree *g)
{
	tu_tree_init(&g->t);
	tu_join(g->a, g->t.root, "gen-a");
	tu_join(g->b, g->t.root, "gen-b");
	tu_join(g->c, g->t.root, "gen-c");
	tu_mkdir_p(g->a, 0755);
	tu_mkdir_p(g->b, 0755);
	tu_mkdir_p(g->c, 0755);
	g->dirs[0] = g->a;
	g->dirs[1] = g->b;
	g->dirs[2] = g->c;
	g->dirs[3] = NULL;
	g->t.cfg.generators = true;
	g->t.cfg.generator_dirs = g->dirs;
}

/* A generator: a shell script of body, mode 0755. */
static void gen(const char *dir, const char *name, const char *body)
{
	char text[TU_PATH * 2];

	snprintf(text, sizeof(text), "#!/bin/sh\n%s\n", body);
	tu_write(dir, name, text);
	tu_chmod(dir, name, 0755);
}

static enum envd_file_state state_of(const struct gtree *g, const char *suffix)
{
	return tu_file(&g->t, suffix)->state;
}

/* environment.d's place: before it, the login's environment; after it, the
 * files' result; each sees the output before it */
static void test_order_and_environment(void **state)
{
	static const char *const base[] = {"HOME=/home/u", "PATH=/usr/bin:/bin", NULL};
	struct gtree g;
	const struct envd_var *v;

	(void)state;
	gtree_init(&g);
	g.t.cfg.base_env = base;
	gen(g.a, "10-pre", "echo \"PRE_SAW=${FROM_FILE:-none}\"\necho PREVAR=pre\necho OVER=pre");
	gen(g.b, "50-post",
	    "echo \"POST_SAW=${FROM_FILE:-none}:${PREVAR:-none}\"\necho OVER2=post\n"
	    "echo 'LIT=$HOME'\necho EMPTY=");
	gen(g.a, "60-chain", "echo \"CHAIN=$POST_SAW\"\necho \"HOME_SEEN=$HOME\"");
	tu_write(g.t.etc, "10-f.conf", "FROM_FILE=file\nOVER=file\nOVER2=file\nFROM_PRE=$PREVAR\n");
	tu_write(g.t.etc, "20-m.conf", "M=etc\n");
	tu_write(g.t.usr, "20-m.conf", "M=usr\n");
	tu_load_ok(&g.t);
	/* a masked file names its holder, with generators before the files */
	assert_true(tu_ends_with(tu_file(&g.t, "/usr/lib/environment.d/20-m.conf")->masked_by,
	                         "/etc/environment.d/20-m.conf"));
	tu_assert_var(&g.t, "PRE_SAW", "none");
	tu_assert_var(&g.t, "FROM_PRE", "pre"); /* the files see what came before */
	tu_assert_var(&g.t, "OVER", "file");    /* and replace it */
	tu_assert_var(&g.t, "POST_SAW", "file:pre");
	tu_assert_var(&g.t, "OVER2", "post"); /* what comes after replaces them */
	tu_assert_var(&g.t, "CHAIN", "file:pre");
	tu_assert_var(&g.t, "HOME_SEEN", "/home/u");
	tu_assert_var(&g.t, "LIT", "$HOME"); /* no expansion */
	tu_assert_var(&g.t, "EMPTY", "");    /* KEY= sets an empty value */
	v = envd_result_get(g.t.res, "OVER2");
	assert_true(tu_ends_with(v->file, "/gen-b/50-post"));
	assert_int_equal(v->line, 2);
	assert_true(v->user_side);
	assert_int_equal(state_of(&g, "/gen-a/10-pre"), ENVD_FILE_USED);
	/* the files, in the order read: pre, files, post */
	assert_true(tu_ends_with(envd_result_file(g.t.res, 0)->path, "/gen-a/10-pre"));
	assert_true(envd_result_file(g.t.res, 0)->generator);
	tu_tree_free(&g.t);
}

static void test_off_by_default(void **state)
{
	struct gtree g;
	char marker[TU_PATH], body[TU_PATH + 64];

	(void)state;
	gtree_init(&g);
	g.t.cfg.generators = false;
	tu_join(marker, g.t.root, "ran");
	snprintf(body, sizeof(body), "touch '%s'\necho X=1", marker);
	gen(g.a, "50-x", body);
	tu_load_ok(&g.t);
	tu_assert_unset(&g.t, "X");
	assert_int_not_equal(access(marker, F_OK), 0);
	/* nor without a user directory */
	g.t.cfg.generators = true;
	g.t.cfg.user_dir = NULL;
	tu_load_ok(&g.t);
	tu_assert_unset(&g.t, "X");
	assert_int_not_equal(access(marker, F_OK), 0);
	tu_tree_free(&g.t);
}

/* systemd's conf_files_list: the first directory with an executable or a
 * mask decides; other entries hold no name */
static void test_masking(void **state)
{
	struct gtree g;
	char sub[TU_PATH];

	(void)state;
	gtree_init(&g);
	gen(g.a, "70-m", "echo M=a");
	gen(g.b, "70-m", "echo M=b");
	tu_symlink("/dev/null", g.a, "80-null");
	gen(g.b, "80-null", "echo NULLED=b");
	tu_write(g.a, "81-empty", "");
	tu_chmod(g.a, "81-empty", 0755);
	gen(g.c, "81-empty", "echo EMPTIED=c");
	tu_write(g.a, "82-noexec", "#!/bin/sh\necho NOEXEC=a\n");
	gen(g.b, "82-noexec", "echo NOEXEC=b");
	tu_join(sub, g.a, "83-dir");
	tu_mkdir_p(sub, 0755);
	gen(g.b, "83-dir", "echo DIR=b");
	tu_symlink("nowhere", g.a, "84-dangling");
	gen(g.b, "84-dangling", "echo DANGLING=b");
	gen(g.a, ".hidden", "echo HIDDEN=a");
	gen(g.a, "85-x.dpkg-old", "echo BACKUP=a");
	gen(g.a, "86-x~", "echo TILDE=a");
	gen(g.a, "30-systemd-environment-d-generator", "echo ENVD_GEN=ran");
	tu_load_ok(&g.t);
	tu_assert_var(&g.t, "M", "a");
	tu_assert_unset(&g.t, "NULLED");
	tu_assert_unset(&g.t, "EMPTIED");
	tu_assert_var(&g.t, "NOEXEC", "b");
	tu_assert_var(&g.t, "DIR", "b");
	tu_assert_var(&g.t, "DANGLING", "b");
	tu_assert_unset(&g.t, "HIDDEN");
	tu_assert_unset(&g.t, "BACKUP");
	tu_assert_unset(&g.t, "TILDE");
	tu_assert_unset(&g.t, "ENVD_GEN");
	assert_int_equal(state_of(&g, "/gen-b/70-m"), ENVD_FILE_MASKED);
	assert_true(tu_ends_with(tu_file(&g.t, "/gen-b/70-m")->masked_by, "/gen-a/70-m"));
	assert_int_equal(state_of(&g, "/gen-a/80-null"), ENVD_FILE_MASKS);
	assert_int_equal(state_of(&g, "/gen-b/80-null"), ENVD_FILE_MASKED);
	assert_int_equal(state_of(&g, "/gen-a/81-empty"), ENVD_FILE_MASKS);
	assert_int_equal(state_of(&g, "/gen-a/82-noexec"), ENVD_FILE_SKIPPED);
	assert_int_equal(state_of(&g, "/gen-a/30-systemd-environment-d-generator"),
	                 ENVD_FILE_SKIPPED);
	tu_assert_diag(&g.t.diags, ENVD_C_GEN_MASKED, "/gen-b/70-m", 0);
	tu_tree_free(&g.t);
}

/* only the caller's (root's) executables writable by no one else, in and
 * through directories the same: a refused one still holds its name */
static void test_refusals(void **state)
{
	struct gtree g;
	char marker[TU_PATH], body[TU_PATH + 64], wdir[TU_PATH], target[TU_PATH];
	struct envd_policy *policy;

	(void)state;
	gtree_init(&g);
	gen(g.a, "20-w", "echo W=a");
	tu_chmod(g.a, "20-w", 0757);
	gen(g.b, "20-w", "echo W=b");
	gen(g.a, "21-g", "echo G=a");
	tu_chmod(g.a, "21-g", 0775);
	/* a link through a directory others can write */
	tu_join(wdir, g.t.root, "open");
	tu_mkdir_p(wdir, 0755);
	gen(wdir, "22-real", "echo THROUGH=ran");
	assert_int_equal(chmod(wdir, 0777), 0);
	tu_join(target, wdir, "22-real");
	tu_symlink(target, g.a, "22-link");
	/* a whole directory others can write: its generator never runs */
	tu_join(marker, g.t.root, "ran");
	snprintf(body, sizeof(body), "touch '%s'\necho C=1", marker);
	gen(g.c, "50-c", body);
	assert_int_equal(chmod(g.c, 0757), 0);
	gen(g.a, "60-policy", "echo LD_PRELOAD=/tmp/x.so\necho BASH_ENV=/tmp/x\necho KEPT=1");
	g.t.cfg.policy = policy = envd_policy_new(true);
	assert_non_null(policy);
	tu_load_ok(&g.t);
	tu_assert_unset(&g.t, "W"); /* not a's, nor b's */
	tu_assert_unset(&g.t, "G");
	tu_assert_unset(&g.t, "THROUGH");
	tu_assert_unset(&g.t, "C");
	assert_int_not_equal(access(marker, F_OK), 0);
	tu_assert_unset(&g.t, "LD_PRELOAD");
	tu_assert_unset(&g.t, "BASH_ENV");
	tu_assert_var(&g.t, "KEPT", "1");
	tu_assert_diag(&g.t.diags, ENVD_C_GEN_UNSAFE, "/gen-a/20-w", 0);
	tu_assert_diag(&g.t.diags, ENVD_C_GEN_UNSAFE, "/gen-a/21-g", 0);
	tu_assert_diag(&g.t.diags, ENVD_C_GEN_UNSAFE, "/gen-a/22-link", 0);
	tu_assert_diag(&g.t.diags, ENVD_C_DIR_UNSAFE, "/gen-c", 0);
	tu_assert_diag(&g.t.diags, ENVD_C_REFUSED, "/gen-a/60-policy", 1);
	tu_assert_diag(&g.t.diags, ENVD_C_REFUSED, "/gen-a/60-policy", 2);
	assert_int_equal(state_of(&g, "/gen-b/20-w"), ENVD_FILE_MASKED);
	assert_int_equal(chmod(wdir, 0755), 0);
	envd_policy_free(policy);
	tu_tree_free(&g.t);
}

static void test_owner_refused(void **state)
{
	struct gtree g;

	(void)state;
	if (geteuid() != 0) {
		print_message("  (needs root: skipped)\n");
		skip();
	}
	gtree_init(&g);
	gen(g.a, "20-o", "echo O=a");
	gen(g.b, "20-o", "echo O=b");
	{
		char p[TU_PATH];

		tu_join(p, g.a, "20-o");
		assert_int_equal(chown(p, 65534, 65534), 0);
	}
	tu_load_ok(&g.t);
	tu_assert_unset(&g.t, "O");
	tu_assert_diag(&g.t.diags, ENVD_C_GEN_UNSAFE, "/gen-a/20-o", 0);
	tu_tree_free(&g.t);
}

/* a failure status: warned, output used (systemd); over the time or the
 * output limit: killed, output dropped, the rest not run */
static void test_fail_time_size(void **state)
{
	struct gtree g;
	struct timespec t0, t1;
	long ms;

	(void)state;
	gtree_init(&g);
	gen(g.a, "40-fail", "echo F=1\nexit 3");
	gen(g.a, "41-big", "head -c 70000 /dev/zero | tr '\\0' a | sed 's/^/BIG=/'\necho SMALL=1");
	gen(g.a, "45-hang", "echo H=1\nsleep 100");
	gen(g.a, "50-after", "echo A=1");
	tu_write(g.t.etc, "10-f.conf", "FILE=1\n");
	g.t.cfg.limits.user_ms = 1500;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tu_load_ok(&g.t);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms < 2500); /* the bound, and some room for a loaded machine */
	tu_assert_var(&g.t, "F", "1");
	tu_assert_diag(&g.t.diags, ENVD_C_GEN_FAILED, "/gen-a/40-fail", 0);
	assert_int_equal(tu_need(&g.t.diags, ENVD_C_GEN_FAILED, "/gen-a/40-fail", 0)->severity,
	                 ENVD_WARNING);
	tu_assert_unset(&g.t, "BIG");
	tu_assert_unset(&g.t, "SMALL");
	tu_assert_diag(&g.t.diags, ENVD_C_GEN_KILLED, "/gen-a/41-big", 0);
	tu_assert_unset(&g.t, "H");
	tu_assert_diag(&g.t.diags, ENVD_C_GEN_KILLED, "/gen-a/45-hang", 0);
	tu_assert_unset(&g.t, "A");
	assert_int_equal(state_of(&g, "/gen-a/50-after"), ENVD_FILE_SKIPPED);
	tu_assert_var(&g.t, "FILE", "1");
	tu_tree_free(&g.t);
}

/* a generator ends at its exit, as under systemd, even when a process it
 * started keeps its output open */
static void test_exit_with_output_open(void **state)
{
	struct gtree g;
	struct timespec t0, t1;
	long ms;

	(void)state;
	gtree_init(&g);
	gen(g.a, "47-starter", "sleep 2 &\necho STARTED=1");
	gen(g.a, "48-next", "echo NEXT=1");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tu_load_ok(&g.t);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	tu_assert_var(&g.t, "STARTED", "1");
	tu_assert_var(&g.t, "NEXT", "1");
	assert_true(ms < 1500);
	tu_tree_free(&g.t);
}

/* ---- what the generators' child sends back, as the login takes it ---- */

/* lib/generators.c's record of one generator (the wire format) */
struct rec_gen {
	uint32_t index;
	uint32_t reason;
	uint8_t state, pad[3];
};

struct rec_case {
	const char *what;
	int want; /* 0 or -EBADMSG */
	/* records: index, state, reason, output (NULL: none); index -1 ends */
	struct {
		int index;
		enum envd_file_state state;
		enum envd_reason reason;
		const char *out;
	} recs[4];
	bool no_end;
	bool trailing; /* bytes after the end record */
};

static void test_records(void **state)
{
	static const struct rec_case cases[] = {
	    {"two generators",
	     0,
	     {{0, ENVD_FILE_USED, ENVD_R_NONE, "A=1\n"},
	      {1, ENVD_FILE_USED, ENVD_R_GEN_FAILED, "B=2\n"},
	      {-1, 0, 0, NULL}}},
	    {"killed, not run",
	     0,
	     {{0, ENVD_FILE_SKIPPED, ENVD_R_GEN_KILLED, NULL},
	      {1, ENVD_FILE_SKIPPED, ENVD_R_GEN_LATE, NULL},
	      {-1, 0, 0, NULL}}},
	    {"no end record",
	     -EBADMSG,
	     {{0, ENVD_FILE_USED, ENVD_R_NONE, "A=1\n"}, {-1, 0, 0, NULL}},
	     true},
	    {"bytes after the end", -EBADMSG, {{-1, 0, 0, NULL}}, false, true},
	    {"out of order",
	     -EBADMSG,
	     {{1, ENVD_FILE_USED, ENVD_R_NONE, "B=2\n"},
	      {0, ENVD_FILE_USED, ENVD_R_NONE, "A=1\n"},
	      {-1, 0, 0, NULL}}},
	    {"twice",
	     -EBADMSG,
	     {{0, ENVD_FILE_USED, ENVD_R_NONE, NULL},
	      {0, ENVD_FILE_USED, ENVD_R_NONE, NULL},
	      {-1, 0, 0, NULL}}},
	    {"an index past the list",
	     -EBADMSG,
	     {{2, ENVD_FILE_USED, ENVD_R_NONE, NULL}, {-1, 0, 0, NULL}}},
	    {"one not to run (masked)",
	     -EBADMSG,
	     {{0, ENVD_FILE_USED, ENVD_R_NONE, NULL},
	      {1, ENVD_FILE_USED, ENVD_R_NONE, NULL},
	      {-1, 0, 0, NULL}}},
	    {"output of a killed one",
	     -EBADMSG,
	     {{0, ENVD_FILE_SKIPPED, ENVD_R_GEN_KILLED, "A=1\n"}, {-1, 0, 0, NULL}}},
	    {"a state no child gives",
	     -EBADMSG,
	     {{0, ENVD_FILE_MASKS, ENVD_R_DEV_NULL, NULL}, {-1, 0, 0, NULL}}},
	    {"a reason that does not go with the state",
	     -EBADMSG,
	     {{0, ENVD_FILE_USED, ENVD_R_GEN_KILLED, NULL}, {-1, 0, 0, NULL}}},
	};
	struct envd_config cfg;
	struct loader ld;

	(void)state;
	envd_config_init(&cfg);
	for (size_t c = 0; c < TU_LEN(cases); c++) {
		const struct rec_case *rc = &cases[c];
		struct envd_buf b;
		int r;

		memset(&ld, 0, sizeof(ld));
		ld.cfg = &cfg;
		ld.gens.v = calloc(2, sizeof(*ld.gens.v));
		assert_non_null(ld.gens.v);
		ld.gens.n = ld.gens.cap = 2;
		for (size_t i = 0; i < 2; i++) {
			ld.gens.v[i].path = strdup(i ? "/g/20-b" : "/g/10-a");
			assert_non_null(ld.gens.v[i].path);
			ld.gens.v[i].name = ld.gens.v[i].path + 3;
			ld.gens.v[i].state = ENVD_FILE_SKIPPED; /* to run */
			ld.gens.v[i].reason = ENVD_R_GEN_NOT_RUN;
		}
		if (strstr(rc->what, "masked"))
			ld.gens.v[1].state = ENVD_FILE_MASKED;
		envd_buf_init(&b, 0);
		for (size_t i = 0; i < TU_LEN(rc->recs) && rc->recs[i].index >= 0; i++) {
			struct rec_gen g = {.index = (uint32_t)rc->recs[i].index,
			                    .reason = rc->recs[i].reason,
			                    .state = (uint8_t)rc->recs[i].state};
			const char *o = rc->recs[i].out;

			assert_int_equal(
			    envd_rec_put(&b, 'G', &g, sizeof(g), o, o ? strlen(o) : 0, NULL, 0), 0);
		}
		if (!rc->no_end)
			assert_int_equal(envd_rec_put(&b, 'Z', NULL, 0, NULL, 0, NULL, 0), 0);
		if (rc->trailing)
			assert_int_equal(envd_buf_append(&b, "x", 1), 0);
		r = envd_gens_records(&ld, b.data, b.len);
		if (r != rc->want)
			fail_msg("%s: %d, want %d", rc->what, r, rc->want);
		if (r < 0) /* nothing of a broken stream is kept */
			for (size_t i = 0; i < 2; i++)
				assert_null(ld.gens.v[i].data);
		if (c == 0) {
			assert_int_equal(ld.gens.v[1].state, ENVD_FILE_USED);
			assert_int_equal(ld.gens.v[1].reason, ENVD_R_GEN_FAILED);
			assert_int_equal(ld.gens.v[1].len, 4);
			assert_memory_equal(ld.gens.v[1].data, "B=2\n", 4);
		}
		envd_buf_free(&b);
		envd_gens_free(&ld.gens);
	}
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    tu_test(test_order_and_environment),
	    tu_test(test_off_by_default),
	    tu_test(test_masking),
	    tu_test(test_refusals),
	    tu_test(test_owner_refused),
	    tu_test(test_fail_time_size),
	    tu_test(test_exit_with_output_open),
	    tu_test(test_records),
	};

	return cmocka_run_group_tests_name("generators", tests, NULL, NULL);
}
