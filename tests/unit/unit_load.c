/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_load.c - envd_load on temporary trees: the configuration, directory
 * precedence and masking, file selection and order, links, syntax and
 * expansion seen through the loader, merge flags and the policy.
 * unit_files.c has hostile files and the privilege hooks, unit_limits.c
 * the resource limits and diagnostics, unit_login.c the login helpers.
 *
 * Owner checks use the uid running the tests (cfg.system_uid/user_uid are
 * geteuid()), so everything runs as root and as a normal user; the few
 * tests that need root skip without.
 */
#include "config.h"

#include <dirent.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "testutil.h"

/* The kernel's seccomp headers (linux-libc-dev); musl-gcc's include path
 * has none: there the test of the missing openat2 skips. */
#if defined(__has_include)
#if __has_include(<linux/filter.h>) && __has_include(<linux/seccomp.h>)
#include <linux/filter.h>
#include <linux/seccomp.h>
#define HAVE_SECCOMP_HEADERS 1
#endif
#endif

/* ---- configuration ---- */

static void test_config_init(void **state)
{
	struct envd_config cfg;

	(void)state;
	memset(&cfg, 0xa5, sizeof(cfg));
	envd_config_init(&cfg);
	assert_null(cfg.user_dir);
	assert_null(cfg.system_dirs);
	assert_null(cfg.root);
	assert_null(cfg.policy);
	assert_null(cfg.diag);
	assert_null(cfg.user_ids);
	assert_null(cfg.user_name);
	assert_int_equal(cfg.flags, 0);
	assert_int_equal(cfg.diag_level, ENVD_DEBUG);
	assert_int_equal(cfg.system_uid, 0);
	assert_int_equal(cfg.user_uid, (uid_t)-1);
	assert_int_equal(cfg.limits.file_bytes, ENVD_MAX_FILE_BYTES);
	assert_int_equal(cfg.limits.input_bytes, ENVD_MAX_INPUT_BYTES);
	assert_int_equal(cfg.limits.files_per_dir, ENVD_MAX_FILES_PER_DIR);
	assert_int_equal(cfg.limits.assignments, ENVD_MAX_ASSIGNMENTS);
	assert_int_equal(cfg.limits.entry_bytes, ENVD_MAX_ENTRY_BYTES);
	assert_int_equal(cfg.limits.expansion_bytes, ENVD_MAX_EXPANSION_BYTES);
	assert_int_equal(cfg.limits.depth, ENVD_MAX_DEPTH);
	assert_int_equal(cfg.limits.result_bytes, ENVD_MAX_RESULT_BYTES);
	assert_int_equal(cfg.limits.diagnostics, ENVD_MAX_DIAGNOSTICS);
	/* the kernel's per-string limit, NUL included */
	assert_true(ENVD_MAX_ENTRY_BYTES + 1 <= 128u * 1024u);
	assert_string_equal(envd_system_dirs[0], "/etc/environment.d");
	assert_string_equal(envd_system_dirs[1], "/run/environment.d");
	assert_string_equal(envd_system_dirs[2], "/usr/local/lib/environment.d");
	assert_string_equal(envd_system_dirs[3], "/usr/lib/environment.d");
	assert_null(envd_system_dirs[4]);
}

static void test_bad_config(void **state)
{
	static const char *const relative[] = {"/etc/environment.d", "etc/environment.d", NULL};
	const char *many[17];
	struct tu_tree t;
	char paths[16][TU_PATH];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	t.cfg.user_dir = "relative/environment.d";
	assert_int_equal(tu_load(&t), -EINVAL);
	assert_null(t.res);

	t.cfg.user_dir = t.user;
	t.cfg.system_dirs = relative;
	assert_int_equal(tu_load(&t), -EINVAL);
	assert_null(t.res);

	/* sixteen system directories are too many; fifteen are loaded */
	for (i = 0; i < 16; i++) {
		char name[16];

		snprintf(paths[i], sizeof(paths[i]), "%s/d%02zu", t.root, i);
		tu_mkdir_p(paths[i], 0755);
		snprintf(name, sizeof(name), "k%02zu.conf", i);
		tu_write(paths[i], name, "K=1\n");
		many[i] = paths[i];
	}
	many[16] = NULL;
	t.cfg.root = NULL;
	t.cfg.system_dirs = many;
	assert_int_equal(tu_load(&t), -EINVAL);
	assert_null(t.res);
	many[15] = NULL;
	tu_load_ok(&t);
	assert_int_equal(envd_result_file_count(t.res), 15);
	tu_tree_free(&t);
}

static void test_explicit_system_dirs(void **state)
{
	struct tu_tree t;
	const char *dirs[3];
	char root_slash[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", "A=etc\n");
	tu_write(t.usr, "b.conf", "B=usr\n");
	tu_write(t.run, "c.conf", "C=run\n");
	/* absolute paths without root */
	dirs[0] = t.usr;
	dirs[1] = t.etc;
	dirs[2] = NULL;
	t.cfg.root = NULL;
	t.cfg.system_dirs = dirs;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "etc");
	tu_assert_var(&t, "B", "usr");
	tu_assert_unset(&t, "C");
	/* the default four below a root given with trailing slashes */
	snprintf(root_slash, sizeof(root_slash), "%s//", t.root);
	t.cfg.root = root_slash;
	t.cfg.system_dirs = NULL;
	tu_load_ok(&t);
	tu_assert_var(&t, "C", "run");
	assert_true(tu_file(&t, "/run/environment.d/c.conf") != NULL);
	tu_tree_free(&t);
}

/* ---- precedence, masking, selection, order ---- */

static void test_same_basename_masked(void **state)
{
	struct tu_tree t;
	const struct envd_file *f;
	const char *user_path;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "X=user\n");
	tu_write(t.etc, "a.conf", "X=etc\nY=etc\n");
	tu_write(t.run, "a.conf", "Y=run\n");
	tu_write(t.usrlocal, "a.conf", "Y=usrlocal\n");
	tu_write(t.usr, "a.conf", "Y=usr\n");
	tu_write(t.etc, "b.conf", "B=etc\n");
	tu_write(t.run, "b.conf", "B=run\n");
	tu_write(t.usr, "b.conf", "B=usr\n");
	tu_write(t.run, "c.conf", "C=run\n");
	tu_write(t.usr, "c.conf", "C=usr\n");
	tu_write(t.usrlocal, "d.conf", "D=usrlocal\n");
	tu_write(t.usr, "d.conf", "D=usr\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "X", "user");
	tu_assert_unset(&t, "Y");
	tu_assert_var(&t, "B", "etc");
	tu_assert_var(&t, "C", "run");
	tu_assert_var(&t, "D", "usrlocal");

	f = tu_file(&t, "/.config/environment.d/a.conf");
	assert_non_null(f);
	assert_int_equal(f->state, ENVD_FILE_USED);
	assert_true(f->user_side);
	assert_string_equal(f->basename, "a.conf");
	user_path = f->path;
	/* every lower a.conf names the user's file as the one masking it */
	f = tu_file(&t, "/etc/environment.d/a.conf");
	assert_int_equal(f->state, ENVD_FILE_MASKED);
	assert_false(f->user_side);
	assert_string_equal(f->masked_by, user_path);
	f = tu_file(&t, "/usr/lib/environment.d/a.conf");
	assert_int_equal(f->state, ENVD_FILE_MASKED);
	assert_string_equal(f->masked_by, user_path);
	f = tu_file(&t, "/usr/lib/environment.d/b.conf");
	assert_int_equal(f->state, ENVD_FILE_MASKED);
	assert_true(tu_ends_with(f->masked_by, "/etc/environment.d/b.conf"));
	tu_assert_diag(&t.diags, ENVD_C_FILE_MASKED, "/run/environment.d/a.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_MASKED, "/usr/lib/environment.d/d.conf", 0);
	assert_int_equal(envd_result_file_count(t.res), 12);
	tu_tree_free(&t);
}

/* One list sorted by basename with strcmp, whatever the directory; a later
 * file overrides an earlier one even from a lower-precedence directory. */
static void test_strcmp_order_across_dirs(void **state)
{
	struct tu_tree t;
	const struct envd_file *prev = NULL;
	size_t i;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "9-b.conf", "ORDER=$ORDER:9b\nX=user\n");
	tu_write(t.etc, "10-a.conf", "ORDER=$ORDER:10a\n");
	tu_write(t.run, "B.conf", "ORDER=$ORDER:B\n");
	tu_write(t.usrlocal, "_x.conf", "ORDER=$ORDER:_x\n");
	tu_write(t.usr, "a.conf", "ORDER=$ORDER:a\nX=usr\n");
	tu_write(t.usr, "a-.conf", "ORDER=$ORDER:a-\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "ORDER", ":10a:9b:B:_x:a-:a");
	tu_assert_var(&t, "X", "usr");
	/* the file that set the final value tells the side, and name_len the name */
	assert_false(envd_result_get(t.res, "X")->user_side);
	assert_false(envd_result_get(t.res, "ORDER")->user_side);
	assert_int_equal(envd_result_get(t.res, "ORDER")->name_len, 5);
	for (i = 0; i < envd_result_file_count(t.res); i++) {
		const struct envd_file *f = envd_result_file(t.res, i);

		if (prev)
			assert_true(strcmp(prev->basename, f->basename) < 0);
		prev = f;
	}
	assert_int_equal(i, 6);
	assert_null(envd_result_file(t.res, i));
	tu_write(t.user, "zz.conf", "X=user again\n");
	tu_load_ok(&t);
	assert_true(envd_result_get(t.res, "X")->user_side);
	assert_int_equal(envd_result_get(t.res, "X")->name_len, 1);
	assert_string_equal(envd_result_get(t.res, "X")->value, "user again");
	tu_tree_free(&t);
}

/* Past the in-place sort's 16 entries: many files over the directories,
 * names chosen so that byte order differs from any natural order, same
 * names masking across directories. */
static void test_strcmp_order_many_files(void **state)
{
	const char *dirs[5];
	struct tu_tree t;
	char name[32], body[64];
	size_t i, n;

	(void)state;
	tu_tree_init(&t);
	dirs[0] = t.user;
	dirs[1] = t.etc;
	dirs[2] = t.run;
	dirs[3] = t.usrlocal;
	dirs[4] = t.usr;
	for (i = 0; i < 120; i++) {
		/* 61 distinct names, each in up to two directories */
		snprintf(name, sizeof(name), "%c%zu.conf", "aB_9z-"[i * 7 % 6], (i * 37) % 61);
		snprintf(body, sizeof(body), "F%zu=%zu\n", (i * 37) % 61, i);
		tu_write(dirs[i % 5], name, body);
	}
	tu_load_ok(&t);
	n = envd_result_file_count(t.res);
	assert_true(n > 100);
	for (i = 1; i < n; i++) {
		const struct envd_file *a = envd_result_file(t.res, i - 1);
		const struct envd_file *b = envd_result_file(t.res, i);
		int c = strcmp(a->basename, b->basename);

		/* strictly ordered by name; a repeated name: the masked copy after */
		assert_true(c < 0 || (c == 0 && b->state == ENVD_FILE_MASKED));
	}
	tu_tree_free(&t);
}

/* A directory whose entries take several reads of the kernel's listing
 * (readdir's buffer holds far fewer than these), and one entry per name,
 * in strcmp order. */
static void test_many_files_in_one_dir(void **state)
{
	struct tu_tree t;
	char name[64], body[64];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "%03zu-a-rather-long-file-name.conf", (i * 7) % 500);
		snprintf(body, sizeof(body), "V%zu=%zu\n", (i * 7) % 500, i);
		tu_write(t.etc, name, body);
	}
	tu_write(t.etc, "not-conf.txt", "X=1\n");
	tu_load_ok(&t);
	assert_int_equal(envd_result_file_count(t.res), 500);
	assert_int_equal(envd_result_count(t.res), 500);
	for (i = 0; i < 500; i++) {
		snprintf(name, sizeof(name), "%03zu-a-rather-long-file-name.conf", i);
		assert_string_equal(envd_result_file(t.res, i)->basename, name);
		snprintf(name, sizeof(name), "V%zu", i);
		assert_non_null(tu_get(&t, name));
	}
	tu_tree_free(&t);
}

static void test_mask_empty_file(void **state)
{
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "");
	tu_write(t.etc, "a.conf", "A=etc\n");
	tu_write(t.etc, "b.conf", "");
	tu_write(t.usr, "b.conf", "B=usr\n");
	tu_write(t.etc, "c.conf", "C=etc\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "A");
	tu_assert_unset(&t, "B");
	tu_assert_var(&t, "C", "etc");
	assert_int_equal(tu_file(&t, "/etc/environment.d/a.conf")->state, ENVD_FILE_MASKED);
	assert_int_equal(tu_file(&t, "/usr/lib/environment.d/b.conf")->state, ENVD_FILE_MASKED);
	/* envd.h: an empty file "holds a name only to mask", and says so */
	assert_int_equal(tu_file(&t, "/.config/environment.d/a.conf")->state, ENVD_FILE_MASKS);
	assert_true(tu_file(&t, "/.config/environment.d/a.conf")->empty);
	assert_false(tu_file(&t, "/etc/environment.d/a.conf")->empty);
	tu_tree_free(&t);
}

static void test_mask_dev_null(void **state)
{
	struct tu_tree t;
	const struct envd_file *f;

	(void)state;
	tu_tree_init(&t);
	tu_symlink("/dev/null", t.user, "a.conf");
	tu_write(t.etc, "a.conf", "A=etc\n");
	tu_symlink("/dev/null", t.etc, "b.conf");
	tu_write(t.usr, "b.conf", "B=usr\n");
	tu_write(t.usr, "c.conf", "C=usr\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "A");
	tu_assert_unset(&t, "B");
	tu_assert_var(&t, "C", "usr");
	f = tu_file(&t, "/.config/environment.d/a.conf");
	assert_int_equal(f->state, ENVD_FILE_MASKS);
	assert_non_null(f->reason);
	assert_false(f->empty); /* masks, but not empty */
	assert_int_equal(tu_file(&t, "/etc/environment.d/b.conf")->state, ENVD_FILE_MASKS);
	assert_int_equal(tu_file(&t, "/usr/lib/environment.d/b.conf")->state, ENVD_FILE_MASKED);
	tu_assert_diag(&t.diags, ENVD_C_FILE_MASKED, "/etc/environment.d/b.conf", 0);
	assert_null(tu_find(&t.diags, ENVD_C_FILE_UNSAFE, NULL, UINT_MAX));
	tu_tree_free(&t);
}

static void test_mask_directory(void **state)
{
	struct tu_tree t;
	char d[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_join(d, t.user, "a.conf");
	tu_mkdir_p(d, 0755);
	tu_write(d, "inner.conf", "INNER=1\n");
	tu_write(t.etc, "a.conf", "A=etc\n");
	tu_join(d, t.run, "b.conf");
	tu_mkdir_p(d, 0755);
	tu_write(t.usr, "b.conf", "B=usr\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "A");
	tu_assert_unset(&t, "B");
	tu_assert_unset(&t, "INNER");
	assert_int_equal(tu_file(&t, "/.config/environment.d/a.conf")->state, ENVD_FILE_MASKS);
	assert_int_equal(tu_file(&t, "/run/environment.d/b.conf")->state, ENVD_FILE_MASKS);
	assert_int_equal(tu_file(&t, "/usr/lib/environment.d/b.conf")->state, ENVD_FILE_MASKED);
	tu_tree_free(&t);
}

static void test_mask_dangling_symlink(void **state)
{
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	tu_symlink("/nonexistent/envd-unit/target.conf", t.user, "a.conf");
	tu_write(t.etc, "a.conf", "A=etc\n");
	tu_symlink("missing.conf", t.etc, "b.conf");
	tu_write(t.usr, "b.conf", "B=usr\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "A");
	tu_assert_unset(&t, "B");
	assert_int_equal(tu_file(&t, "/.config/environment.d/a.conf")->state, ENVD_FILE_MASKS);
	assert_int_equal(tu_file(&t, "/etc/environment.d/b.conf")->state, ENVD_FILE_MASKS);
	assert_int_equal(tu_file(&t, "/etc/environment.d/a.conf")->state, ENVD_FILE_MASKED);
	tu_tree_free(&t);
}

/* A symlink to a readable file is followed, and its name is what masks. */
static void test_symlink_followed(void **state)
{
	struct tu_tree t;
	char target[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_write(t.root, "shared.env", "S=shared\n");
	tu_join(target, t.root, "shared.env");
	tu_symlink(target, t.etc, "s.conf");
	tu_write(t.usr, "s.conf", "S=usr\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "S", "shared");
	tu_tree_free(&t);
}

/* /proc magic links (here /proc/self/fd/N, which this process may follow)
 * are refused as files and as the user directory itself: a root process
 * may follow them into other processes' directories and namespaces, and
 * into its own (/proc/self/cwd) whatever its capabilities. */
static void test_magic_link_refused(void **state)
{
	struct tu_tree t;
	char target[TU_PATH], link[TU_PATH];
	const struct tu_diag *d;
	int fd, dfd;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.root, "magic.env", "M=1\n");
	tu_join(target, t.root, "magic.env");
	fd = open(target, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	snprintf(link, sizeof(link), "/proc/%ld/fd/%d", (long)getpid(), fd);
	tu_symlink(link, t.user, "m.conf");
	tu_write(t.user, "n.conf", "M=${M}2\n"); /* "12" if m.conf was read */
	tu_load_ok(&t);
	tu_assert_var(&t, "M", "2");
	assert_int_equal(tu_file(&t, "/.config/environment.d/m.conf")->state, ENVD_FILE_SKIPPED);
	d = tu_find(&t.diags, ENVD_C_FILE_UNSAFE, "/m.conf", UINT_MAX);
	assert_true(d != NULL && strstr(d->message, "magic link") != NULL);

	/* the user directory as a magic link to a directory */
	tu_mkdir_p(t.home, 0755);
	dfd = open(t.user, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	snprintf(link, sizeof(link), "/proc/%ld/fd/%d", (long)getpid(), dfd);
	t.cfg.user_dir = link;
	tu_load_ok(&t);
	tu_assert_unset(&t, "M");
	d = tu_find(&t.diags, ENVD_C_DIR_UNSAFE, link, UINT_MAX);
	assert_true(d != NULL && strstr(d->message, "magic link") != NULL);
	close(dfd);
	close(fd);
	tu_tree_free(&t);
}

#ifndef SYS_openat2
#define SYS_openat2 437 /* the same number on every architecture */
#endif

/* Makes openat2 fail with ENOSYS in this process, as on Linux before 5.6
 * or under an older container runtime's seccomp profile.  Returns 0 or -1. */
static int without_openat2(void)
{
#ifndef HAVE_SECCOMP_HEADERS
	return -1;
#else
	struct sock_filter code[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof(code) / sizeof(code[0])), code};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0)
		return -1;
	errno = 0;
	return syscall(SYS_openat2, AT_FDCWD, "/", NULL, 0) < 0 && errno == ENOSYS ? 0 : -1;
#endif
}

/* Without openat2 a .conf link into /proc/self/cwd/... is refused all the
 * same: a process may always follow its own magic links, cleared
 * capabilities or not, and a root process's cwd may lie below a directory
 * the user cannot enter.  Run in a child, whose filter dies with it. */
static void test_magic_link_without_openat2(void **state)
{
	struct tu_tree t;
	char cwd[TU_PATH];
	pid_t pid;
	int status = -1;

	(void)state;
	tu_tree_init(&t);
	tu_join(cwd, t.root, "cwd");
	tu_mkdir_p(cwd, 0755);
	tu_write(cwd, "secret.env", "M=secret\n");
	tu_symlink("/proc/self/cwd/secret.env", t.user, "m.conf");
	tu_write(t.user, "n.conf", "N=1\n");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const struct envd_file *f;

		if (without_openat2() != 0 || chdir(cwd) != 0)
			_exit(2);
		if (envd_load(&t.cfg, &t.res) != 0)
			_exit(3);
		f = tu_file(&t, "/.config/environment.d/m.conf");
		_exit(envd_result_get(t.res, "M") == NULL && envd_result_get(t.res, "N") != NULL &&
		              f != NULL && f->state == ENVD_FILE_SKIPPED
		          ? 0
		          : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 2) {
		print_message("  (no seccomp filter can be installed here, or no headers for "
		              "one: skipped)\n");
		tu_tree_free(&t);
		skip();
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	tu_tree_free(&t);
}

/* The user directory is walked one component at a time: relative and
 * absolute links, links to links, "." and ".." all resolve as the kernel's
 * own walk does, and a link loop ends with an error, not a hang. */
static void test_user_dir_through_links(void **state)
{
	struct tu_tree t;
	char real[TU_PATH], p[TU_PATH * 2];

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "A=1\n");
	tu_join(real, t.home, ".config");
	tu_symlink("environment.d", real, "rel");       /* relative */
	tu_symlink(t.user, real, "abs");                /* absolute */
	tu_symlink("rel", real, "chain");               /* a link to a link */
	tu_symlink("../.config/./chain", real, "dots"); /* through .. and . */
	tu_symlink("loop2", real, "loop1");
	tu_symlink("loop1", real, "loop2");
	for (size_t i = 0; i < 4; i++) {
		static const char *const names[] = {"rel", "abs", "chain", "dots"};

		snprintf(p, sizeof(p), "%s/%s", real, names[i]);
		t.cfg.user_dir = p;
		tu_load_ok(&t);
		tu_assert_var(&t, "A", "1");
	}
	snprintf(p, sizeof(p), "%s/./rel/../environment.d/", real);
	t.cfg.user_dir = p;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "1");
	snprintf(p, sizeof(p), "%s/loop1", real);
	t.cfg.user_dir = p;
	tu_load_ok(&t);
	tu_assert_unset(&t, "A");
	assert_non_null(tu_find(&t.diags, ENVD_C_DIR_UNSAFE, "/loop1", UINT_MAX));
	tu_tree_free(&t);
}

static void test_hidden_files(void **state)
{
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, ".a.conf", "A=user\n");
	tu_write(t.etc, ".conf", "DOT=1\n");
	tu_write(t.etc, ".b.conf", "B=etc\n");
	tu_write(t.usr, ".a.conf", "A=usr\n");
	tu_write(t.usr, "c.conf", "C=usr\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "A");
	tu_assert_unset(&t, "B");
	tu_assert_unset(&t, "DOT");
	tu_assert_var(&t, "C", "usr");
	assert_int_equal(envd_result_file_count(t.res), 1);
	tu_tree_free(&t);
}

static void test_non_conf_files(void **state)
{
	static const char *const names[] = {"a.conf~", "a.CONF", "a.conf.bak", "conf",
	                                    "a.txt",   "aconf",  "a.Conf",     "a.conf "};
	struct tu_tree t;
	char d[TU_PATH];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	for (i = 0; i < TU_LEN(names); i++) {
		tu_write(t.etc, names[i], "BAD=1\n");
		tu_write(t.user, names[i], "BAD=1\n");
	}
	tu_join(d, t.etc, "sub.d");
	tu_mkdir_p(d, 0755);
	tu_write(t.etc, "ok.conf", "OK=1\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "BAD");
	tu_assert_var(&t, "OK", "1");
	assert_int_equal(envd_result_file_count(t.res), 1);
	/* reported only when linting */
	assert_int_equal(tu_count(&t.diags, ENVD_C_FILE_NOT_CONF), 0);
	t.cfg.flags = ENVD_LINT;
	tu_load_ok(&t);
	assert_int_equal(tu_count(&t.diags, ENVD_C_FILE_NOT_CONF), 2 * TU_LEN(names));
	tu_assert_diag(&t.diags, ENVD_C_FILE_NOT_CONF, "/etc/environment.d/a.conf.bak", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_NOT_CONF, "/.config/environment.d/a.txt", 0);
	assert_null(tu_find(&t.diags, ENVD_C_FILE_NOT_CONF, "/sub.d", UINT_MAX));
	tu_tree_free(&t);
}

/* readdir as a file system without d_type answers (some NFS, XFS without
 * ftype): every entry DT_UNKNOWN.  unit_load links with --wrap=readdir. */
static bool hide_d_type;
struct dirent *__real_readdir(DIR *d);
struct dirent *__wrap_readdir(DIR *d);

struct dirent *__wrap_readdir(DIR *d)
{
	struct dirent *de = __real_readdir(d);

	if (de && hide_d_type)
		de->d_type = DT_UNKNOWN;
	return de;
}

/* Without d_type a directory is still told from a file (by fstatat): lint
 * does not call a subdirectory a file that is not read. */
static void test_non_conf_without_d_type(void **state)
{
	struct tu_tree t;
	char d[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_join(d, t.etc, "sub.d");
	tu_mkdir_p(d, 0755);
	tu_join(d, t.user, "old");
	tu_mkdir_p(d, 0755);
	tu_write(t.etc, "notes.txt", "BAD=1\n");
	tu_write(t.etc, "ok.conf", "OK=1\n");
	t.cfg.flags = ENVD_LINT;
	hide_d_type = true;
	tu_load_ok(&t);
	hide_d_type = false;
	tu_assert_var(&t, "OK", "1");
	assert_int_equal(tu_count(&t.diags, ENVD_C_FILE_NOT_CONF), 1);
	tu_assert_diag(&t.diags, ENVD_C_FILE_NOT_CONF, "/etc/environment.d/notes.txt", 0);
	assert_null(tu_find(&t.diags, ENVD_C_FILE_NOT_CONF, "/sub.d", UINT_MAX));
	assert_null(tu_find(&t.diags, ENVD_C_FILE_NOT_CONF, "/old", UINT_MAX));
	tu_tree_free(&t);
}

static void test_missing_and_odd_dirs(void **state)
{
	struct tu_tree t;
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.usr, "a.conf", "A=usr\n");
	assert_int_equal(rmdir(t.etc), 0);
	assert_int_equal(rmdir(t.user), 0);
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "usr");
	d = tu_need(&t.diags, ENVD_C_DIR_MISSING, "/etc/environment.d", 0);
	assert_int_equal(d->severity, ENVD_DEBUG);
	tu_assert_diag(&t.diags, ENVD_C_DIR_MISSING, "/.config/environment.d", 0);

	/* a user "directory" that is a file */
	tu_write(t.home, ".config/environment.d", "U=1\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "U");
	tu_assert_var(&t, "A", "usr");
	tu_assert_diag(&t.diags, ENVD_C_DIR_UNSAFE, "/.config/environment.d", 0);

	/* no user directory at all */
	t.cfg.user_dir = NULL;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "usr");
	tu_tree_free(&t);
}

/* Each directory's state in the result, in precedence order, with the
 * .conf entries listed and why one was skipped. */
static void test_dir_states(void **state)
{
	struct tu_tree t;
	const struct envd_dir *d;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "A=1\n");
	tu_write(t.user, "b.conf", "B=1\n");
	tu_write(t.etc, "c.conf", "C=1\n");
	assert_int_equal(rmdir(t.run), 0);
	assert_int_equal(chmod(t.usr, 0777), 0);
	tu_load_ok(&t);
	assert_int_equal(envd_result_dir_count(t.res), 5);
	d = envd_result_dir(t.res, 0);
	assert_string_equal(d->path, t.user);
	assert_int_equal(d->state, ENVD_DIR_USED);
	assert_true(d->user_side);
	assert_int_equal(d->files, 2);
	d = envd_result_dir(t.res, 1);
	assert_string_equal(d->path, t.etc);
	assert_int_equal(d->state, ENVD_DIR_USED);
	assert_false(d->user_side);
	assert_int_equal(d->files, 1);
	d = envd_result_dir(t.res, 2);
	assert_int_equal(d->state, ENVD_DIR_MISSING);
	assert_null(d->reason);
	d = envd_result_dir(t.res, 3);
	assert_int_equal(d->state, ENVD_DIR_USED);
	assert_int_equal(d->files, 0);
	d = envd_result_dir(t.res, 4);
	assert_string_equal(d->path, t.usr);
	assert_int_equal(d->state, ENVD_DIR_SKIPPED);
	assert_non_null(d->reason);
	assert_null(envd_result_dir(t.res, 5));
	assert_int_equal(chmod(t.usr, 0755), 0);
	/* without a user directory, the system ones only */
	t.cfg.user_dir = NULL;
	tu_load_ok(&t);
	assert_int_equal(envd_result_dir_count(t.res), 4);
	assert_false(envd_result_dir(t.res, 0)->user_side);
	tu_tree_free(&t);
}

/* A user's assignment that a later system file replaces is a lint
 * finding at the user's line, and the variable names it; one that a
 * system file keeps (${NAME}) or that comes later is not. */
static void test_lint_replaced(void **state)
{
	struct tu_tree t;
	const struct envd_var *v;
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	t.cfg.flags = ENVD_LINT;
	tu_write(t.user, "10-a.conf", "A=user\nK=user\n");
	tu_write(t.user, "30-b.conf", "B=user\n");
	tu_write(t.etc, "20-a.conf", "A=etc\nK=sys:$K\nB=etc\n");
	tu_write(t.usr, "99-a.conf", "A=usr\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "usr");
	tu_assert_var(&t, "K", "sys:user");
	tu_assert_var(&t, "B", "user");
	assert_int_equal(tu_count(&t.diags, ENVD_C_LINT_REPLACED), 1);
	d = tu_need(&t.diags, ENVD_C_LINT_REPLACED, "/10-a.conf", 1);
	assert_string_equal(d->name, "A");
	assert_int_equal(d->severity, ENVD_WARNING);
	/* the last system file is named, and a name that sorts after it */
	assert_non_null(strstr(d->message, "/usr/lib/environment.d/99-a.conf:1"));
	assert_non_null(strstr(d->message, "such as zz-10-a.conf"));
	v = envd_result_get(t.res, "A");
	assert_true(tu_ends_with(v->replaced_file, "/10-a.conf"));
	assert_int_equal(v->replaced_line, 1);
	assert_null(envd_result_get(t.res, "K")->replaced_file);
	/* without lint: neither noted nor reported */
	t.cfg.flags = 0;
	tu_load_ok(&t);
	assert_null(envd_result_get(t.res, "A")->replaced_file);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LINT_REPLACED), 0);
	tu_tree_free(&t);
}

/* A user's assignment a system file replaced stays a finding when a later
 * user file builds on the system's value ($PATH): the entry no longer
 * names it, the loss is said all the same, each of a chain. */
static void test_lint_replaced_composed(void **state)
{
	struct tu_tree t;
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	t.cfg.flags = ENVD_LINT;
	tu_write(t.user, "10-path.conf", "P=$HOME/.local/bin:$P\n");
	tu_write(t.usr, "99-environment.conf", "P=/usr/bin:/bin\n");
	tu_write(t.user, "zz-90-x.conf", "P=/h/bin:$P\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "P", "/h/bin:/usr/bin:/bin");
	assert_int_equal(tu_count(&t.diags, ENVD_C_LINT_REPLACED), 1);
	d = tu_need(&t.diags, ENVD_C_LINT_REPLACED, "/10-path.conf", 1);
	assert_string_equal(d->name, "P");
	assert_non_null(strstr(d->message, "/usr/lib/environment.d/99-environment.conf:1"));
	/* a second system file and user file: both user files lost */
	tu_write(t.usr, "zz-91-s.conf", "P=/s\n");
	tu_write(t.user, "zz-92-y.conf", "P=/y:$P\n");
	tu_load_ok(&t);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LINT_REPLACED), 2);
	tu_need(&t.diags, ENVD_C_LINT_REPLACED, "/10-path.conf", 1);
	d = tu_need(&t.diags, ENVD_C_LINT_REPLACED, "/zz-90-x.conf", 1);
	assert_non_null(strstr(d->message, "/usr/lib/environment.d/zz-91-s.conf:1"));
	/* a last user file that does not build on the value: zz-90-x.conf's
	 * loss is its own choice, not said; 10-path.conf's still is */
	tu_write(t.user, "zz-92-y.conf", "P=/y\n");
	tu_load_ok(&t);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LINT_REPLACED), 1);
	tu_need(&t.diags, ENVD_C_LINT_REPLACED, "/10-path.conf", 1);
	tu_tree_free(&t);
}

/* What systemd reads otherwise than it looks: a code at each line under
 * lint, nothing without it, the values unchanged. */
static void test_lint_readings(void **state)
{
	struct tu_tree t;
	const char *f = "/etc/environment.d/a.conf";
	size_t i;
	static const enum envd_code codes[] = {
	    ENVD_C_LINT_NO_EQUALS,   ENVD_C_LINT_AFTER_QUOTE,  ENVD_C_LINT_UNSUPPORTED,
	    ENVD_C_LINT_INNER_QUOTE, ENVD_C_LINT_XDG_DEFAULTS, ENVD_C_LINT_OPEN_QUOTE,
	};

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf",
	         "EDITOR vim\n"                      /* 1 */
	         "G=\"hello world\"  # c\n"          /* 2 */
	         "A=${X-default}\n"                  /* 3 */
	         "C=/h/\"my dir\"\n"                 /* 4 */
	         "XDG_DATA_DIRS=/f:$XDG_DATA_DIRS\n" /* 5 */
	         "N=\"open\n"                        /* 6 */
	         "B=1\n");
	t.cfg.flags = ENVD_LINT;
	tu_load_ok(&t);
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		tu_assert_diag(&t.diags, codes[i], f, (unsigned)i + 1);
		assert_int_equal(tu_count(&t.diags, codes[i]), 1);
	}
	/* the XDG finding replaces the generic ones */
	assert_int_equal(tu_count(&t.diags, ENVD_C_LINT_UNSET), 0);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LINT_EMPTY_PATH), 0);
	tu_assert_var(&t, "G", "hello world# c");
	tu_assert_var(&t, "A", "");
	tu_assert_var(&t, "C", "/h/\"my dir\"");
	tu_assert_var(&t, "XDG_DATA_DIRS", "/f:");
	tu_assert_var(&t, "N", "open\nB=1\n");
	tu_assert_unset(&t, "EDITOR");
	t.cfg.flags = 0;
	tu_load_ok(&t);
	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
		assert_int_equal(tu_count(&t.diags, codes[i]), 0);
	tu_assert_var(&t, "G", "hello world# c");
	tu_tree_free(&t);
}

/* A reference to a variable the caller names as per-session and the base
 * lacks is a notice, without lint too; set in the base, none. */
static void test_session_names(void **state)
{
	static const char *const names[] = {"XDG_SESSION_TYPE", NULL};
	static const char *const base[] = {"XDG_SESSION_TYPE=x11", NULL};
	struct tu_tree t;
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", "GDK=${XDG_SESSION_TYPE}\n");
	t.cfg.session_names = names;
	tu_load_ok(&t);
	d = tu_need(&t.diags, ENVD_C_SESSION_UNKNOWN, "/a.conf", 1);
	assert_int_equal(d->severity, ENVD_NOTICE);
	assert_string_equal(d->name, "GDK");
	t.cfg.base_env = base;
	tu_load_ok(&t);
	assert_int_equal(tu_count(&t.diags, ENVD_C_SESSION_UNKNOWN), 0);
	tu_assert_var(&t, "GDK", "x11");
	tu_tree_free(&t);
}

/* ---- syntax seen through the loader: codes at file:line ---- */

static void test_diagnostics_at_file_line(void **state)
{
	struct tu_tree t;
	const struct envd_var *v;
	const struct tu_diag *d;
	const char *f = "/etc/environment.d/a.conf";

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf",
	         "# comment\r\n"      /* 1 */
	         "GOOD=1\r\n"         /* 2 */
	         "1BAD=x\r\n"         /* 3 */
	         "export FOO=bar\r\n" /* 4 */
	         "EMPTY=\r\n"         /* 5 */
	         "Q='multi\n"         /* 6 */
	         "line'\n"            /* 7 */
	         "A-B=1\n"            /* 8 */
	         "LONG=a\\\n"         /* 9 */
	         "b\n"                /* 10 */
	         "E2=''\r"            /* 11 */
	         "E3=\"\"\n"          /* 12 */
	         "LAST=z\n");         /* 13 */
	tu_load_ok(&t);
	tu_assert_var(&t, "GOOD", "1");
	tu_assert_var(&t, "Q", "multi\nline");
	tu_assert_var(&t, "LONG", "ab");
	tu_assert_unset(&t, "FOO");
	tu_assert_unset(&t, "EMPTY");
	tu_assert_unset(&t, "E2");
	v = envd_result_get(t.res, "LONG");
	assert_int_equal(v->line, 9);
	assert_true(tu_ends_with(v->file, f));
	assert_int_equal(envd_result_get(t.res, "LAST")->line, 13);
	tu_assert_diag(&t.diags, ENVD_C_BAD_NAME, f, 3);
	tu_assert_diag(&t.diags, ENVD_C_EXPORT, f, 4);
	tu_assert_diag(&t.diags, ENVD_C_NO_VALUE, f, 5);
	tu_assert_diag(&t.diags, ENVD_C_BAD_NAME, f, 8);
	tu_assert_diag(&t.diags, ENVD_C_NO_VALUE, f, 11);
	tu_assert_diag(&t.diags, ENVD_C_NO_VALUE, f, 12);
	assert_int_equal(tu_count(&t.diags, ENVD_C_BAD_NAME), 2);
	assert_int_equal(tu_count(&t.diags, ENVD_C_NO_VALUE), 3);
	/* an invalid name that reads as one is shown, as systemd shows it */
	assert_non_null(strstr(tu_need(&t.diags, ENVD_C_BAD_NAME, f, 8)->message, "\"A-B\""));
	d = tu_need(&t.diags, ENVD_C_NO_VALUE, f, 5);
	assert_string_equal(d->name, "EMPTY");
	assert_int_equal(d->severity, ENVD_ERROR);
	tu_assert_diag(&t.diags, ENVD_C_SET, f, 13);
	tu_tree_free(&t);
}

/* ---- expansion through the loader ---- */

/* A byte order mark opening a file makes the first name invalid, as in
 * systemd: the diagnostic says so; the same bytes elsewhere are an invalid
 * name like any other. */
static void test_bom(void **state)
{
	struct tu_tree t;
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf",
	         "\xef\xbb\xbf"
	         "BOM=1\nAFTER=2\n");
	tu_write(t.etc, "b.conf",
	         " \xef\xbb\xbf"
	         "X=1\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "BOM");
	tu_assert_var(&t, "AFTER", "2");
	d = tu_need(&t.diags, ENVD_C_BAD_NAME, "/a.conf", 1);
	assert_string_equal(
	    d->message, "the file starts with a UTF-8 byte order mark (BOM), which systemd does "
	                "not skip either: the name \"BOM\" is invalid and ignored; fix: save "
	                "the file without a BOM");
	d = tu_need(&t.diags, ENVD_C_BAD_NAME, "/b.conf", 1);
	assert_null(strstr(d->message, "BOM"));
	tu_tree_free(&t);
}

static void test_lookup_order(void **state)
{
	static const char *const base[] = {"X=base", "BASEONLY=1", "X=second", NULL};
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	t.cfg.base_env = base;
	tu_write(t.etc, "a.conf", "Y=$X\nX=file\nZ=$X\n");
	tu_write(t.usr, "b.conf", "W=${X}\nX=again\nV=${X:-no}${BASEONLY:+yes}\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "Y", "base"); /* the first occurrence in the base wins */
	tu_assert_var(&t, "Z", "file");
	tu_assert_var(&t, "W", "file");
	tu_assert_var(&t, "X", "again");
	tu_assert_var(&t, "V", "againyes");
	/* only what the files assign is in the result */
	tu_assert_unset(&t, "BASEONLY");
	assert_int_equal(envd_result_count(t.res), 5);
	tu_tree_free(&t);
}

static void test_quoting_does_not_protect(void **state)
{
	static const char *const base[] = {"X=x", NULL};
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	t.cfg.base_env = base;
	tu_write(t.etc, "a.conf",
	         "S='$X'\n"
	         "D=\"\\$X\"\n"
	         "U=\\$X\n"
	         "L=$$X\n"
	         "R=$L\n"
	         "N=${UNSET}\n"
	         "T=~/bin\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "S", "x");
	tu_assert_var(&t, "D", "x");
	tu_assert_var(&t, "U", "x");
	tu_assert_var(&t, "L", "$X");
	tu_assert_var(&t, "R", "$X"); /* expanded once, when its line is read */
	tu_assert_var(&t, "N", "");   /* an empty value can come from expansion */
	tu_assert_var(&t, "T", "~/bin");
	tu_tree_free(&t);
}

static void test_nooverwrite(void **state)
{
	static const char *const base[] = {"FOO=base", NULL};
	struct tu_tree t;
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	t.cfg.base_env = base;
	tu_write(t.etc, "a.conf", "BAR=one\nFOO=file\nBAZ=$FOO\n");
	tu_write(t.usr, "b.conf", "BAR=two\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "FOO", "file");
	tu_assert_var(&t, "BAZ", "file");
	assert_int_equal(tu_count(&t.diags, ENVD_C_KEPT), 0);

	t.cfg.flags = ENVD_NO_OVERWRITE;
	tu_load_ok(&t);
	tu_assert_unset(&t, "FOO");
	tu_assert_var(&t, "BAZ", "base");
	tu_assert_var(&t, "BAR", "two"); /* names the base lacks still follow the files */
	d = tu_need(&t.diags, ENVD_C_KEPT, "/etc/environment.d/a.conf", 2);
	assert_string_equal(d->name, "FOO");
	tu_tree_free(&t);
}

static void test_noexpand(void **state)
{
	static const char *const base[] = {"HOME=/home/u", NULL};
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	t.cfg.base_env = base;
	tu_write(t.etc, "a.conf", "A=$HOME ${X:-d} $$ ${HOME}\n");
	t.cfg.flags = ENVD_NO_EXPAND;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "$HOME ${X:-d} $$ ${HOME}");
	t.cfg.flags = 0;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "/home/u d $ /home/u");
	tu_tree_free(&t);
}

/* ---- policy ---- */

static void test_policy_user_side_only(void **state)
{
	struct tu_tree t;
	struct envd_policy *p = envd_policy_new(true);
	const struct tu_diag *d;

	(void)state;
	assert_non_null(p);
	tu_tree_init(&t);
	tu_write(t.user, "a.conf",
	         "OK=1\nLD_PRELOAD=/tmp/evil.so\nBASH_ENV=/tmp/x\nREF=$LD_PRELOAD\n");
	tu_write(t.etc, "b.conf", "LD_LIBRARY_PATH=/opt/lib\nXDG_SEAT=seat0\n");
	t.cfg.policy = p;
	tu_load_ok(&t);
	tu_assert_var(&t, "OK", "1");
	tu_assert_unset(&t, "LD_PRELOAD");
	tu_assert_unset(&t, "BASH_ENV");
	tu_assert_var(&t, "REF", ""); /* a refused value is not there to expand */
	tu_assert_var(&t, "LD_LIBRARY_PATH", "/opt/lib");
	tu_assert_var(&t, "XDG_SEAT", "seat0");
	d = tu_need(&t.diags, ENVD_C_REFUSED, "/.config/environment.d/a.conf", 2);
	assert_string_equal(d->name, "LD_PRELOAD");
	tu_assert_diag(&t.diags, ENVD_C_REFUSED, "/.config/environment.d/a.conf", 3);
	assert_int_equal(tu_count(&t.diags, ENVD_C_REFUSED), 2);

	/* the same files without a policy */
	t.cfg.policy = NULL;
	tu_load_ok(&t);
	tu_assert_var(&t, "LD_PRELOAD", "/tmp/evil.so");
	assert_int_equal(tu_count(&t.diags, ENVD_C_REFUSED), 0);
	envd_policy_free(p);
	tu_tree_free(&t);
}

/* The value rules see the value after expansion, and only it: an
 * expansion to nothing after a longer one is the empty value, not what the
 * expansion buffer held before. */
static void test_policy_expanded_values(void **state)
{
	struct tu_tree t;
	struct envd_policy *p = envd_policy_new(true);

	(void)state;
	assert_non_null(p);
	tu_tree_init(&t);
	tu_write(t.user, "a.conf",
	         "D=../..\nLANGUAGE=$D/x\nLONG=/home/u/../../some/long/path/x\nLANG=${NOPE}\n"
	         "TZ=${NOPE}\nLC_ALL=${NOPE}\nB=Europe/Berlin\nTZ2=x\nTZ=$B\n"
	         "LC_TIME=${D}\nLANG2=de:fr\nX=/a/b/../../c/d/e\nLC_NUMERIC=${LANG2}\n");
	t.cfg.policy = p;
	tu_load_ok(&t);
	tu_assert_unset(&t, "LANGUAGE");
	tu_assert_var(&t, "LANG", "");
	tu_assert_var(&t, "TZ", "Europe/Berlin");
	tu_assert_var(&t, "LC_ALL", "");
	tu_assert_unset(&t, "LC_TIME");
	tu_assert_var(&t, "LC_NUMERIC", "de:fr");
	assert_int_equal(tu_count(&t.diags, ENVD_C_REFUSED), 2);
	envd_policy_free(p);
	tu_tree_free(&t);
}

/* One verdict per assignment: the name and the value it would get are
 * judged together, once, and a refusal is said before anything else
 * (nooverwrite's notice included) and only once. */
static void test_policy_one_verdict(void **state)
{
	static const char *const base[] = {"TZ=UTC", "LD_PRELOAD=/base.so", NULL};
	struct tu_tree t;
	struct envd_policy *p = envd_policy_new(true);
	const struct tu_diag *d;

	(void)state;
	assert_non_null(p);
	assert_int_equal(envd_policy_deny(p, "TZ"), 0);
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "D=/etc\nTZ=$D/x\nLD_PRELOAD=/x.so\nLANG=$D\nOK=1\n");
	t.cfg.policy = p;
	t.cfg.base_env = base;
	t.cfg.flags = ENVD_NO_OVERWRITE;
	tu_load_ok(&t);
	tu_assert_unset(&t, "TZ");
	tu_assert_unset(&t, "LD_PRELOAD");
	tu_assert_unset(&t, "LANG");
	tu_assert_var(&t, "OK", "1");
	d = tu_need(&t.diags, ENVD_C_REFUSED, "/.config/environment.d/a.conf", 2);
	assert_non_null(strstr(d->message, "user_deny"));
	tu_assert_diag(&t.diags, ENVD_C_REFUSED, "/.config/environment.d/a.conf", 3);
	tu_assert_diag(&t.diags, ENVD_C_REFUSED, "/.config/environment.d/a.conf", 4);
	assert_int_equal(tu_count(&t.diags, ENVD_C_REFUSED), 3);
	assert_int_equal(tu_count(&t.diags, ENVD_C_KEPT), 0);
	envd_policy_free(p);
	tu_tree_free(&t);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
	    tu_test(test_config_init),
	    tu_test(test_bad_config),
	    tu_test(test_bom),
	    tu_test(test_explicit_system_dirs),
	    tu_test(test_same_basename_masked),
	    tu_test(test_strcmp_order_across_dirs),
	    tu_test(test_strcmp_order_many_files),
	    tu_test(test_many_files_in_one_dir),
	    tu_test(test_mask_empty_file),
	    tu_test(test_mask_dev_null),
	    tu_test(test_mask_directory),
	    tu_test(test_mask_dangling_symlink),
	    tu_test(test_symlink_followed),
	    tu_test(test_magic_link_refused),
	    tu_test(test_magic_link_without_openat2),
	    tu_test(test_user_dir_through_links),
	    tu_test(test_hidden_files),
	    tu_test(test_non_conf_files),
	    tu_test(test_non_conf_without_d_type),
	    tu_test(test_missing_and_odd_dirs),
	    tu_test(test_dir_states),
	    tu_test(test_lint_replaced),
	    tu_test(test_lint_replaced_composed),
	    tu_test(test_lint_readings),
	    tu_test(test_session_names),
	    tu_test(test_diagnostics_at_file_line),
	    tu_test(test_lookup_order),
	    tu_test(test_quoting_does_not_protect),
	    tu_test(test_nooverwrite),
	    tu_test(test_noexpand),
	    tu_test(test_policy_user_side_only),
	    tu_test(test_policy_expanded_values),
	    tu_test(test_policy_one_verdict),
	};

	return cmocka_run_group_tests_name("unit_load", tests, NULL, NULL);
}
