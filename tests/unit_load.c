/*
 * unit_load.c - envd_load on temporary trees: directory precedence and
 * masking, file selection and order, merge flags, the policy, hostile files
 * (SECURITY.md), every resource limit, the privilege hooks; plus the login
 * helpers envd_login_base and envd_user_dir, and envd_utf8_valid.
 *
 * Owner checks use the uid running the tests (cfg.system_uid/user_uid are
 * geteuid()), so everything runs as root and as a normal user; the few
 * tests that need root to chown or switch the file-system uid skip without.
 */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>

#include "testutil.h"

#define NOBODY 65534

static void skip_unless_root(void)
{
	if (geteuid() != 0) {
		print_message("  (needs root: skipped)\n");
		skip();
	}
}

/* Writes head, then a comment line padding the file to exactly total bytes. */
static void write_padded(const char *dir, const char *name, const char *head, size_t total)
{
	size_t hl = strlen(head);
	char *buf = malloc(total);

	assert_non_null(buf);
	assert_true(total >= hl + 2);
	memcpy(buf, head, hl);
	buf[hl] = '#';
	memset(buf + hl + 1, 'x', total - hl - 2);
	buf[total - 1] = '\n';
	tu_write_len(dir, name, buf, total);
	free(buf);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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
	assert_null(cfg.enter_user);
	assert_null(cfg.leave_user);
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

/* A directory whose entries take several getdents64 calls (a 4 KiB buffer
 * holds about 100 of these), and one entry per name, in strcmp order. */
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
	/* envd.h: an empty file "holds a name only to mask" */
	assert_int_equal(tu_file(&t, "/.config/environment.d/a.conf")->state, ENVD_FILE_MASKS);
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

/* Whether the kernel has openat2 (Linux 5.6): without it, magic links are
 * stopped by the privilege window's capabilities alone. */
static bool have_openat2(void)
{
	struct {
		uint64_t flags, mode, resolve;
	} how = {O_RDONLY | O_CLOEXEC, 0, 0};
	long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

/* /proc magic links (here /proc/self/fd/N, which this process may follow)
 * are refused as files and as the user directory itself: a root process
 * may follow them into other processes' directories and namespaces. */
static void test_magic_link_refused(void **state)
{
	struct tu_tree t;
	char target[TU_PATH], link[TU_PATH];
	const struct tu_diag *d;
	int fd, dfd;

	(void)state;
	if (!have_openat2())
		skip();
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
	d = tu_find(&t.diags, ENVD_C_FILE_ERROR, "/m.conf", UINT_MAX);
	assert_true(d != NULL && strstr(d->message, "magic link") != NULL);

	/* the user directory as a magic link to a directory */
	tu_mkdir_p(t.home, 0755);
	dfd = open(t.user, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dfd >= 0);
	snprintf(link, sizeof(link), "/proc/%ld/fd/%d", (long)getpid(), dfd);
	t.cfg.user_dir = link;
	tu_load_ok(&t);
	tu_assert_unset(&t, "M");
	d = tu_find(&t.diags, ENVD_C_DIR_ERROR, link, UINT_MAX);
	assert_true(d != NULL && strstr(d->message, "magic link") != NULL);
	close(dfd);
	close(fd);
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
	assert_non_null(tu_find(&t.diags, ENVD_C_DIR_ERROR, "/loop1", UINT_MAX));
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
	d = tu_need(&t.diags, ENVD_C_NO_VALUE, f, 5);
	assert_string_equal(d->name, "EMPTY");
	assert_int_equal(d->severity, ENVD_ERROR);
	tu_assert_diag(&t.diags, ENVD_C_SET, f, 13);
	tu_tree_free(&t);
}

/* ---- expansion through the loader ---- */

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

/* ---- hostile files ---- */

static void test_nul_byte(void **state)
{
	struct tu_tree t;
	const struct envd_file *f;

	(void)state;
	tu_tree_init(&t);
	tu_write_len(t.etc, "a.conf", "A=1\nB\0=2\nC=3\n", 13);
	tu_write_len(t.user, "u.conf", "U=1\0", 4);
	tu_write(t.etc, "b.conf", "D=4\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "A");
	tu_assert_unset(&t, "C");
	tu_assert_unset(&t, "U");
	tu_assert_var(&t, "D", "4");
	tu_assert_diag(&t.diags, ENVD_C_FILE_NUL, "/etc/environment.d/a.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_NUL, "/.config/environment.d/u.conf", 0);
	f = tu_file(&t, "/etc/environment.d/a.conf");
	assert_int_equal(f->state, ENVD_FILE_SKIPPED);
	tu_tree_free(&t);
}

static void test_invalid_utf8_skips_one_assignment(void **state)
{
	static const char *const base[] = {"BIN=\xff", NULL};
	struct tu_tree t;
	const char *f = "/etc/environment.d/a.conf";

	(void)state;
	tu_tree_init(&t);
	t.cfg.base_env = base;
	tu_write(t.etc, "a.conf",
	         "A=\xff\n"             /* 1 */
	         "B=ok\n"               /* 2 */
	         "C=\xc3\xa9\n"         /* 3 */
	         "D=\xc0\xaf\n"         /* 4: overlong */
	         "E=\xed\xa0\x80\n"     /* 5: surrogate */
	         "F=\xf4\x90\x80\x80\n" /* 6: above U+10FFFF */
	         "G=x\xe2\x82\n"        /* 7: truncated */
	         "H=\xf0\x9f\x98\x80\n" /* 8 */
	         "I=$BIN\n"             /* 9: invalid after expansion */
	         "B=\"again \xfe\"\n"   /* 10: the old value stays */
	         "J=end\n");            /* 11 */
	tu_write(t.usr, "b.conf", "K=\xff\nL=next file\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "B", "ok");
	tu_assert_var(&t, "C", "\xc3\xa9");
	tu_assert_var(&t, "H", "\xf0\x9f\x98\x80");
	tu_assert_var(&t, "J", "end");
	tu_assert_var(&t, "L", "next file");
	tu_assert_unset(&t, "A");
	tu_assert_unset(&t, "D");
	tu_assert_unset(&t, "E");
	tu_assert_unset(&t, "F");
	tu_assert_unset(&t, "G");
	tu_assert_unset(&t, "I");
	tu_assert_unset(&t, "K");
	tu_assert_diag(&t.diags, ENVD_C_BAD_UTF8, f, 1);
	tu_assert_diag(&t.diags, ENVD_C_BAD_UTF8, f, 4);
	tu_assert_diag(&t.diags, ENVD_C_BAD_UTF8, f, 5);
	tu_assert_diag(&t.diags, ENVD_C_BAD_UTF8, f, 6);
	tu_assert_diag(&t.diags, ENVD_C_BAD_UTF8, f, 7);
	tu_assert_diag(&t.diags, ENVD_C_BAD_UTF8, f, 9);
	tu_assert_diag(&t.diags, ENVD_C_BAD_UTF8, f, 10);
	tu_assert_diag(&t.diags, ENVD_C_BAD_UTF8, "/usr/lib/environment.d/b.conf", 1);
	assert_int_equal(tu_count(&t.diags, ENVD_C_BAD_UTF8), 8);
	tu_tree_free(&t);
}

struct ucase {
	const char *s;
	bool valid;
};

static void test_utf8_valid(void **state)
{
	static const struct ucase cases[] = {
	    {"", true},
	    {"plain ASCII \t\x1b", true},
	    {"\xc2\x80", true},
	    {"\xdf\xbf", true},
	    {"\xe0\xa0\x80", true},
	    {"\xef\xbf\xbd", true}, /* U+FFFD */
	    {"\xf0\x90\x80\x80", true},
	    {"\xf4\x8f\xbf\xbd", true},
	    {"\xef\xbf\xbe", false},     /* U+FFFE, a noncharacter */
	    {"\xef\xbf\xbf", false},     /* U+FFFF */
	    {"\xef\xb7\x90", false},     /* U+FDD0 */
	    {"\xf0\x9f\xbf\xbe", false}, /* U+1FFFE */
	    {"\x80", false},
	    {"\xbf", false},
	    {"\xc0\x80", false},         /* overlong NUL */
	    {"\xc1\xbf", false},         /* overlong */
	    {"\xe0\x80\x80", false},     /* overlong */
	    {"\xe0\x9f\xbf", false},     /* overlong */
	    {"\xf0\x80\x80\x80", false}, /* overlong */
	    {"\xf0\x8f\xbf\xbf", false}, /* overlong */
	    {"\xed\xa0\x80", false},     /* U+D800 */
	    {"\xed\xbf\xbf", false},     /* U+DFFF */
	    {"\xf4\x90\x80\x80", false}, /* U+110000 */
	    {"\xf5\x80\x80\x80", false},
	    {"\xff", false},
	    {"\xfe", false},
	    {"\xc3", false},         /* truncated at the end */
	    {"\xe2\x82", false},     /* truncated at the end */
	    {"\xc3x", false},        /* bad continuation */
	    {"\xe2\x28\xa1", false}, /* bad continuation */
	    {"a\xc3\xa9z\xff", false},
	};
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(cases); i++)
		if (envd_utf8_valid(cases[i].s, strlen(cases[i].s)) != cases[i].valid)
			fail_msg("case %zu: expected %s", i, cases[i].valid ? "valid" : "invalid");
	/* length bounds the check */
	assert_true(envd_utf8_valid("ab\xff", 2));
	assert_false(envd_utf8_valid("\xc3\xa9", 1));
}

static void test_file_size_cap(void **state)
{
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	write_padded(t.user, "a.conf", "A=1\n", ENVD_MAX_FILE_BYTES);
	write_padded(t.user, "b.conf", "B=1\n", ENVD_MAX_FILE_BYTES + 1);
	write_padded(t.etc, "c.conf", "C=1\n", ENVD_MAX_FILE_BYTES + 1);
	tu_write(t.etc, "d.conf", "D=1\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "1");
	tu_assert_unset(&t, "B");
	tu_assert_unset(&t, "C");
	tu_assert_var(&t, "D", "1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/.config/environment.d/b.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/c.conf", 0);
	assert_int_equal(tu_file(&t, "/etc/environment.d/c.conf")->state, ENVD_FILE_SKIPPED);

	/* a configured cap */
	t.cfg.limits.file_bytes = 8;
	tu_write(t.etc, "e.conf", "E=34567\n");  /* 8 bytes */
	tu_write(t.etc, "f.conf", "F=345678\n"); /* 9 bytes */
	tu_load_ok(&t);
	tu_assert_var(&t, "E", "34567");
	tu_assert_unset(&t, "F");
	tu_assert_var(&t, "D", "1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/f.conf", 0);
	tu_tree_free(&t);
}

static void on_alarm(int sig)
{
	(void)sig;
	/* a FIFO blocked the load: fail loudly rather than hang the suite */
	static const char msg[] = "unit_load: envd_load blocked (alarm)\n";
	ssize_t w = write(2, msg, sizeof(msg) - 1);

	(void)w;
	_exit(1);
}

static void make_socket(const char *dir, const char *name)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	char path[TU_PATH];
	int fd;

	tu_join(path, dir, name);
	assert_true(strlen(path) < sizeof(sa.sun_path));
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (const struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 1), 0);
	close(fd);
}

static void test_fifo_socket_device(void **state)
{
	struct tu_tree t;
	char path[TU_PATH];
	int wfd = -1, rfd;

	(void)state;
	tu_tree_init(&t);
	tu_join(path, t.user, "f.conf");
	assert_int_equal(mkfifo(path, 0644), 0);
	tu_join(path, t.etc, "g.conf");
	assert_int_equal(mkfifo(path, 0644), 0);
	/* a FIFO with a writer holding it open would never reach EOF */
	rfd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(rfd >= 0);
	wfd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
	assert_true(wfd >= 0);
	make_socket(t.etc, "s.conf");
	tu_symlink("/dev/zero", t.etc, "z.conf");
	tu_symlink("/dev/urandom", t.user, "r.conf");
	tu_write(t.etc, "ok.conf", "OK=1\n");

	signal(SIGALRM, on_alarm);
	alarm(30);
	tu_load_ok(&t);
	alarm(0);
	tu_assert_var(&t, "OK", "1");
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/.config/environment.d/f.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/etc/environment.d/g.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/etc/environment.d/s.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/etc/environment.d/z.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/.config/environment.d/r.conf", 0);
	assert_int_equal(tu_file(&t, "/etc/environment.d/g.conf")->state, ENVD_FILE_SKIPPED);
	close(wfd);
	close(rfd);
	tu_tree_free(&t);
}

/* The path-based look before opening is only a filter; what was opened is
 * checked on its descriptor.  This fstatat, linked into the test program
 * ahead of libc's, calls the file named lie_name a regular file, as if it
 * had been swapped for a FIFO between the look and the open: the open must
 * not block (O_NONBLOCK) and the descriptor check must refuse it. */
static const char *lie_name;
static unsigned lie_calls;

int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	static int (*real)(int, const char *, struct stat *, int);
	int r;

	if (!real) {
		*(void **)&real = dlsym(RTLD_NEXT, "fstatat");
		if (!real) {
			errno = ENOSYS;
			return -1;
		}
	}
	r = real(dirfd, path, st, flags);
	if (r == 0 && lie_name && strcmp(path, lie_name) == 0) {
		lie_calls++;
		st->st_mode = (st->st_mode & ~(mode_t)S_IFMT) | S_IFREG;
	}
	return r;
}

static void test_fifo_behind_the_filter(void **state)
{
	struct tu_tree t;
	char path[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_join(path, t.user, "f.conf");
	assert_int_equal(mkfifo(path, 0644), 0);
	tu_join(path, t.etc, "f.conf");
	assert_int_equal(mkfifo(path, 0644), 0);
	tu_write(t.etc, "ok.conf", "OK=1\n");
	lie_name = "f.conf";
	lie_calls = 0;
	signal(SIGALRM, on_alarm);
	alarm(30);
	tu_load_ok(&t);
	alarm(0);
	lie_name = NULL;
	if (lie_calls == 0) {
		print_message("  (the library does not call fstatat: skipped)\n");
		tu_tree_free(&t);
		skip();
	}
	tu_assert_var(&t, "OK", "1");
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/.config/environment.d/f.conf", 0);
	assert_int_equal(tu_file(&t, "/.config/environment.d/f.conf")->state, ENVD_FILE_SKIPPED);
	tu_tree_free(&t);
}

/* /proc files look regular (st_size 0) but are generated: refused. */
static void test_proc_file_refused(void **state)
{
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	tu_symlink("/proc/self/environ", t.user, "e.conf");
	tu_symlink("/proc/self/status", t.etc, "s.conf");
	tu_write(t.etc, "ok.conf", "OK=1\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "OK", "1");
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/.config/environment.d/e.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/etc/environment.d/s.conf", 0);
	assert_int_equal(tu_count(&t.diags, ENVD_C_FILE_NUL), 0);
	assert_int_equal(envd_result_count(t.res), 1);
	tu_tree_free(&t);
}

static void test_writable_files_refused(void **state)
{
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "g.conf", "G=1\n");
	tu_chmod(t.etc, "g.conf", 0664);
	tu_write(t.etc, "w.conf", "W=1\n");
	tu_chmod(t.etc, "w.conf", 0646);
	tu_write(t.user, "u.conf", "U=1\n");
	tu_chmod(t.user, "u.conf", 0620);
	tu_write(t.user, "v.conf", "V=1\n");
	tu_chmod(t.user, "v.conf", 0602);
	/* a refused file still masks */
	tu_write(t.usr, "u.conf", "U=usr\n");
	tu_write(t.etc, "ok.conf", "OK=1\n");
	tu_write(t.user, "ro.conf", "RO=1\n");
	tu_chmod(t.user, "ro.conf", 0400);
	tu_load_ok(&t);
	tu_assert_unset(&t, "G");
	tu_assert_unset(&t, "W");
	tu_assert_unset(&t, "U");
	tu_assert_unset(&t, "V");
	tu_assert_var(&t, "OK", "1");
	tu_assert_var(&t, "RO", "1");
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/etc/environment.d/g.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/etc/environment.d/w.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/.config/environment.d/u.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/.config/environment.d/v.conf", 0);
	tu_tree_free(&t);
}

static void test_writable_dirs_refused(void **state)
{
	struct tu_tree t;
	char config[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "u.conf", "U=1\n");
	tu_write(t.etc, "e.conf", "E=1\n");
	tu_write(t.run, "r.conf", "R=1\n");
	tu_write(t.usr, "s.conf", "S=1\n");
	tu_chmod(t.user, NULL, 0775);
	tu_chmod(t.etc, NULL, 0757);
	tu_chmod(t.run, NULL, 01777); /* sticky does not help the directory itself */
	tu_load_ok(&t);
	tu_assert_unset(&t, "U");
	tu_assert_unset(&t, "E");
	tu_assert_unset(&t, "R");
	tu_assert_var(&t, "S", "1");
	tu_assert_diag(&t.diags, ENVD_C_DIR_UNSAFE, "/.config/environment.d", 0);
	tu_assert_diag(&t.diags, ENVD_C_DIR_UNSAFE, "/etc/environment.d", 0);
	tu_assert_diag(&t.diags, ENVD_C_DIR_UNSAFE, "/run/environment.d", 0);

	/* a writable directory above the user directory */
	tu_chmod(t.user, NULL, 0755);
	tu_chmod(t.etc, NULL, 0755);
	tu_chmod(t.run, NULL, 0755);
	tu_load_ok(&t);
	tu_assert_var(&t, "U", "1");
	snprintf(config, sizeof(config), "%s/.config", t.home);
	tu_chmod(config, NULL, 0777);
	tu_load_ok(&t);
	tu_assert_unset(&t, "U");
	tu_assert_var(&t, "E", "1");
	tu_assert_diag(&t.diags, ENVD_C_DIR_UNSAFE, "/.config/environment.d", 0);
	tu_chmod(config, NULL, 0755);
	tu_chmod(t.home, NULL, 0770);
	tu_load_ok(&t);
	tu_assert_unset(&t, "U");
	tu_chmod(t.home, NULL, 0755);
	tu_tree_free(&t);
}

/* Owners: the system side wants system_uid, the user side the user or root. */
static void test_owners(void **state)
{
	struct tu_tree t;
	char path[TU_PATH];

	(void)state;
	skip_unless_root();
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", "A=1\n");
	tu_join(path, t.etc, "a.conf");
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	tu_write(t.user, "u.conf", "U=1\n");
	tu_join(path, t.user, "u.conf");
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	tu_write(t.user, "r.conf", "R=1\n"); /* owned by root */
	tu_write(t.usr, "s.conf", "S=1\n");
	assert_int_equal(chown(t.usr, NOBODY, NOBODY), 0);
	tu_load_ok(&t);
	tu_assert_unset(&t, "A");
	tu_assert_unset(&t, "U"); /* user_uid is root here */
	tu_assert_var(&t, "R", "1");
	tu_assert_unset(&t, "S");
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/etc/environment.d/a.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/.config/environment.d/u.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_DIR_UNSAFE, "/usr/lib/environment.d", 0);

	/* the user's own files, and root's, are fine on the user side */
	t.cfg.user_uid = NOBODY;
	tu_load_ok(&t);
	tu_assert_var(&t, "U", "1");
	tu_assert_var(&t, "R", "1");
	tu_assert_unset(&t, "A");

	/* a user directory or a parent owned by a third user is refused */
	assert_int_equal(chown(t.user, NOBODY - 1, NOBODY - 1), 0);
	tu_load_ok(&t);
	tu_assert_unset(&t, "U");
	tu_assert_diag(&t.diags, ENVD_C_DIR_UNSAFE, "/.config/environment.d", 0);
	assert_int_equal(chown(t.user, NOBODY, NOBODY), 0);
	assert_int_equal(chown(t.home, NOBODY - 1, NOBODY - 1), 0);
	tu_load_ok(&t);
	tu_assert_unset(&t, "U");
	assert_int_equal(chown(t.home, NOBODY, NOBODY), 0);
	tu_load_ok(&t);
	tu_assert_var(&t, "U", "1");
	tu_tree_free(&t);
}

static int enter_nobody(void *data)
{
	(void)data;
	setfsgid(NOBODY);
	setfsuid(NOBODY);
	return setfsuid((uid_t)-1) == NOBODY ? 0 : -1;
}

static int leave_nobody(void *data)
{
	(void)data;
	setfsuid(0);
	setfsgid(0);
	return setfsuid((uid_t)-1) == 0 ? 0 : -1;
}

/* A symlink to a file the reader cannot read is skipped, not followed with
 * more privileges.  As root the hooks switch the file-system uid to nobody,
 * as pam_envd does; as a normal user the file is simply mode 000. */
static void test_unreadable_symlink(void **state)
{
	struct tu_tree t;
	char secret[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_write(t.root, "secret.env", "SECRET=s3cr3t\n");
	tu_join(secret, t.root, "secret.env");
	tu_symlink(secret, t.user, "s.conf");
	tu_write(t.user, "ok.conf", "OK=1\n");
	if (geteuid() == 0) {
		tu_chmod(secret, NULL, 0600);
		t.cfg.enter_user = enter_nobody;
		t.cfg.leave_user = leave_nobody;
	} else {
		tu_chmod(secret, NULL, 0);
	}
	tu_load_ok(&t);
	assert_int_equal(setfsuid((uid_t)-1), geteuid());
	tu_assert_var(&t, "OK", "1");
	tu_assert_unset(&t, "SECRET");
	tu_assert_diag(&t.diags, ENVD_C_FILE_ERROR, "/.config/environment.d/s.conf", 0);
	assert_int_equal(tu_file(&t, "/.config/environment.d/s.conf")->state, ENVD_FILE_SKIPPED);
	/* the system side is read with the caller's own rights */
	tu_symlink(secret, t.etc, "t.conf");
	tu_load_ok(&t);
	if (geteuid() == 0)
		tu_assert_var(&t, "SECRET", "s3cr3t");
	tu_chmod(secret, NULL, 0600);
	tu_tree_free(&t);
}

static void test_unreadable_dir(void **state)
{
	struct tu_tree t;

	(void)state;
	if (geteuid() == 0) {
		print_message("  (root reads any directory: skipped)\n");
		skip();
	}
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", "A=1\n");
	tu_write(t.usr, "b.conf", "B=1\n");
	tu_chmod(t.etc, NULL, 0);
	tu_load_ok(&t);
	tu_chmod(t.etc, NULL, 0755);
	tu_assert_unset(&t, "A");
	tu_assert_var(&t, "B", "1");
	tu_assert_diag(&t.diags, ENVD_C_DIR_ERROR, "/etc/environment.d", 0);
	tu_tree_free(&t);
}

/* ---- the privilege hooks ---- */

struct hooks {
	struct tu_tree *t;
	int enter_calls, leave_calls;
	int enter_rc, leave_rc;
	bool switch_files;
};

static int hook_enter(void *data)
{
	struct hooks *h = data;
	char a[TU_PATH + 16], b[TU_PATH + 16];

	h->enter_calls++;
	assert_int_equal(h->leave_calls, h->enter_calls - 1);
	if (h->switch_files) {
		/* only reachable inside the window: the user's file appears, the
		 * system directory is away */
		tu_write(h->t->user, "50-u.conf", "INSIDE=1\n");
		snprintf(a, sizeof(a), "%s", h->t->etc);
		snprintf(b, sizeof(b), "%s.away", h->t->etc);
		assert_int_equal(rename(a, b), 0);
	}
	return h->enter_rc;
}

static int hook_leave(void *data)
{
	struct hooks *h = data;
	char a[TU_PATH + 16], b[TU_PATH + 16];

	h->leave_calls++;
	assert_int_equal(h->leave_calls, h->enter_calls);
	if (h->switch_files) {
		tu_join(a, h->t->user, "50-u.conf");
		assert_int_equal(unlink(a), 0);
		snprintf(a, sizeof(a), "%s", h->t->etc);
		snprintf(b, sizeof(b), "%s.away", h->t->etc);
		assert_int_equal(rename(b, a), 0);
	}
	return h->leave_rc;
}

static void set_hooks(struct tu_tree *t, struct hooks *h)
{
	memset(h, 0, sizeof(*h));
	h->t = t;
	t->cfg.enter_user = hook_enter;
	t->cfg.leave_user = hook_leave;
	t->cfg.priv_data = h;
}

static void test_hooks_around_user_dir(void **state)
{
	struct tu_tree t;
	struct hooks h;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "10-u.conf", "U=1\n");
	tu_write(t.etc, "60-e.conf", "OUTSIDE=1\n");
	set_hooks(&t, &h);
	h.switch_files = true;
	tu_load_ok(&t);
	assert_int_equal(h.enter_calls, 1);
	assert_int_equal(h.leave_calls, 1);
	tu_assert_var(&t, "U", "1");
	tu_assert_var(&t, "INSIDE", "1");  /* the user side was read inside */
	tu_assert_var(&t, "OUTSIDE", "1"); /* the system side outside */

	/* once each also when the user directory is missing or unsafe */
	h.switch_files = false;
	h.enter_calls = h.leave_calls = 0;
	tu_chmod(t.user, NULL, 0777);
	tu_load_ok(&t);
	assert_int_equal(h.enter_calls, 1);
	assert_int_equal(h.leave_calls, 1);
	tu_chmod(t.user, NULL, 0755);
	tu_rm_rf(t.user);
	h.enter_calls = h.leave_calls = 0;
	tu_load_ok(&t);
	assert_int_equal(h.enter_calls, 1);
	assert_int_equal(h.leave_calls, 1);

	/* never without a user directory */
	t.cfg.user_dir = NULL;
	h.enter_calls = h.leave_calls = 0;
	tu_load_ok(&t);
	assert_int_equal(h.enter_calls, 0);
	assert_int_equal(h.leave_calls, 0);
	tu_assert_var(&t, "OUTSIDE", "1");
	tu_tree_free(&t);
}

static void test_leave_user_failure(void **state)
{
	struct tu_tree t;
	struct hooks h;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "u.conf", "U=1\n");
	tu_write(t.etc, "e.conf", "E=1\n");
	set_hooks(&t, &h);
	h.leave_rc = -1;
	assert_int_equal(tu_load(&t), -EPERM);
	assert_null(t.res);
	assert_int_equal(h.enter_calls, 1);
	assert_int_equal(h.leave_calls, 1);
	/* also when the user directory could not be read */
	tu_rm_rf(t.user);
	h.enter_calls = h.leave_calls = 0;
	h.leave_rc = 1;
	assert_int_equal(tu_load(&t), -EPERM);
	assert_null(t.res);
	tu_tree_free(&t);
}

static void test_enter_user_failure(void **state)
{
	struct tu_tree t;
	struct hooks h;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "u.conf", "U=1\n");
	tu_write(t.user, "e.conf", "FROM=user\n");
	tu_write(t.etc, "e.conf", "FROM=etc\nE=1\n");
	set_hooks(&t, &h);
	h.enter_rc = -1;
	tu_load_ok(&t);
	assert_int_equal(h.enter_calls, 1);
	tu_assert_unset(&t, "U");
	tu_assert_var(&t, "E", "1");
	tu_assert_var(&t, "FROM", "etc");
	tu_assert_diag(&t.diags, ENVD_C_DIR_ERROR, "/.config/environment.d", 0);
	tu_tree_free(&t);
}

/* ---- limits: each one gives a diagnostic and keeps earlier work ---- */

static void test_limit_input_bytes(void **state)
{
	struct tu_tree t;
	char name[32], head[32];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.input_bytes = 20;
	tu_write(t.etc, "a.conf", "A=aaaaaaaaa\n"); /* 12 */
	tu_write(t.etc, "b.conf", "B=bbbbbbbbb\n"); /* 12: over what is left */
	tu_write(t.etc, "c.conf", "C=cc\n");        /* 5 */
	tu_write(t.etc, "d.conf", "D=dd\n");        /* 5: 22 > 20 */
	tu_write(t.etc, "e.conf", "E=e");           /* 3: exactly what is left */
	tu_write(t.etc, "f.conf", "F=f\n");         /* nothing left */
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "aaaaaaaaa");
	tu_assert_unset(&t, "B");
	tu_assert_var(&t, "C", "cc");
	tu_assert_unset(&t, "D");
	tu_assert_var(&t, "E", "e");
	tu_assert_unset(&t, "F");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/b.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/d.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/f.conf", 0);
	tu_tree_free(&t);

	/* the default: sixteen files of the largest size fit, a seventeenth not */
	tu_tree_init(&t);
	for (i = 0; i <= ENVD_MAX_INPUT_BYTES / ENVD_MAX_FILE_BYTES; i++) {
		snprintf(name, sizeof(name), "f%02zu.conf", i);
		snprintf(head, sizeof(head), "F%02zu=1\n", i);
		write_padded(i < 8 ? t.user : t.etc, name, head, ENVD_MAX_FILE_BYTES);
	}
	tu_load_ok(&t);
	tu_assert_var(&t, "F00", "1");
	tu_assert_var(&t, "F15", "1");
	tu_assert_unset(&t, "F16");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/f16.conf", 0);
	tu_tree_free(&t);
}

static void test_limit_files_per_dir(void **state)
{
	struct tu_tree t;
	char name[32], line[32];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.files_per_dir = 3;
	/* created out of order: the first ones in strcmp order are kept */
	tu_write(t.etc, "e.conf", "E=1\n");
	tu_write(t.etc, "b.conf", "B=1\n");
	tu_write(t.etc, "d.conf", "D=1\n");
	tu_write(t.etc, "a.conf", "A=1\n");
	tu_write(t.etc, "c.conf", "C=1\n");
	tu_write(t.usr, "z.conf", "Z=1\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "1");
	tu_assert_var(&t, "B", "1");
	tu_assert_var(&t, "C", "1");
	tu_assert_unset(&t, "D");
	tu_assert_unset(&t, "E");
	tu_assert_var(&t, "Z", "1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d", 0);
	tu_tree_free(&t);

	/* the default */
	tu_tree_init(&t);
	for (i = 0; i <= ENVD_MAX_FILES_PER_DIR; i++) {
		snprintf(name, sizeof(name), "%05zu.conf", i);
		snprintf(line, sizeof(line), "V%05zu=1\n", i);
		tu_write(t.user, name, line);
	}
	tu_load_ok(&t);
	assert_int_equal(envd_result_count(t.res), ENVD_MAX_FILES_PER_DIR);
	tu_assert_var(&t, "V04095", "1");
	tu_assert_unset(&t, "V04096");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/.config/environment.d", 0);
	tu_tree_free(&t);
}

/* A file dropped over the per-directory limit still holds its name, like
 * any skipped file ("anything holding the name masks"): the same basename
 * in a lower directory must not take its place. */
static void test_limit_files_per_dir_still_masks(void **state)
{
	struct tu_tree t;
	bool b_set;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.files_per_dir = 1;
	tu_write(t.etc, "a.conf", "A=etc\n");
	tu_write(t.etc, "b.conf", "B=etc\n"); /* dropped: over the limit */
	tu_write(t.usr, "b.conf", "B=usr\n"); /* masked by etc/b.conf */
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "etc");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d", 0);
	b_set = tu_get(&t, "B") != NULL;
	tu_tree_free(&t); /* before failing: no leak report on top */
	if (b_set)
		fail_msg("B came from usr/b.conf: the dropped etc/b.conf did not mask it");
}

static void test_limit_directory_entries(void **state)
{
	struct tu_tree t;
	char name[32];
	size_t i;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.files_per_dir = 1;
	for (i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "junk%02zu", i);
		tu_write(t.etc, name, "");
	}
	tu_write(t.usr, "u.conf", "U=1\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "U", "1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d", 0);
	tu_tree_free(&t);
}

static void test_limit_assignments(void **state)
{
	struct tu_tree t;
	char *buf;
	size_t i, len = 0, n = ENVD_MAX_ASSIGNMENTS;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.assignments = 5;
	tu_write(t.etc, "a.conf", "A1=1\nA2=2\n1BAD=3\nA4=4\n");
	tu_write(t.etc, "b.conf", "B1=1\n\nB2=2\nB3=3\n");
	tu_write(t.etc, "c.conf", "C1=1\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A1", "1");
	tu_assert_var(&t, "A4", "4");
	tu_assert_var(&t, "B1", "1");
	tu_assert_unset(&t, "B2");
	tu_assert_unset(&t, "B3");
	tu_assert_unset(&t, "C1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/b.conf", 3);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LIMIT), 1);
	tu_tree_free(&t);

	/* the default */
	tu_tree_init(&t);
	buf = malloc(n * 16 + 32);
	assert_non_null(buf);
	for (i = 1; i <= n; i++)
		len += (size_t)sprintf(buf + len, "V=%zu\n", i);
	len += (size_t)sprintf(buf + len, "LAST=1\n");
	tu_write_len(t.etc, "a.conf", buf, len);
	free(buf);
	t.cfg.diag_level = ENVD_ERROR; /* not 65536 "set" traces */
	tu_load_ok(&t);
	tu_assert_unset(&t, "LAST");
	assert_int_equal(atoi(tu_get(&t, "V")), (int)n);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/a.conf", (unsigned)n + 1);
	tu_tree_free(&t);
}

static void test_limit_entry_bytes(void **state)
{
	struct tu_tree t;
	size_t max = ENVD_MAX_ENTRY_BYTES - 2; /* "A=" */
	char *fits = tu_repeat("a", max), *over = tu_repeat("b", max + 1);
	size_t fl = strlen(fits), ol = strlen(over);
	char *buf = malloc(fl + ol + 64);
	size_t len = 0;
	const char *f = "/etc/environment.d/a.conf";

	(void)state;
	assert_non_null(buf);
	len += (size_t)sprintf(buf + len, "A=%s\n", fits); /* 1 */
	len += (size_t)sprintf(buf + len, "B=%s\n", over); /* 2 */
	len += (size_t)sprintf(buf + len, "C=$A$A\n");     /* 3: by expansion */
	len += (size_t)sprintf(buf + len, "D=ok\n");       /* 4 */
	len += (size_t)sprintf(buf + len, "A=${A}x\n");    /* 5: one byte over */
	tu_tree_init(&t);
	tu_write_len(t.etc, "a.conf", buf, len);
	tu_load_ok(&t);
	assert_int_equal(strlen(tu_get(&t, "A")), max);
	tu_assert_unset(&t, "B");
	tu_assert_unset(&t, "C");
	tu_assert_var(&t, "D", "ok");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 2);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 3);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 5);

	/* without expansion the same cap holds */
	t.cfg.flags = ENVD_NO_EXPAND;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "${A}x");
	tu_assert_unset(&t, "B");
	tu_assert_var(&t, "C", "$A$A");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 2);

	/* a configured cap counts the name and the '=' */
	t.cfg.flags = 0;
	t.cfg.limits.entry_bytes = 6;
	tu_write(t.etc, "a.conf", "AB=123\nCD=1234\nEF=$AB$AB\nGH=x\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "AB", "123");
	tu_assert_unset(&t, "CD");
	tu_assert_unset(&t, "EF");
	tu_assert_var(&t, "GH", "x");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 2);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 3);
	free(buf);
	free(fits);
	free(over);
	tu_tree_free(&t);
}

static void test_limit_expansion_budget(void **state)
{
	static const char *const base[] = {"X=12345", NULL};
	struct tu_tree t;
	const char *f = "/etc/environment.d/a.conf";

	(void)state;
	tu_tree_init(&t);
	t.cfg.base_env = base;
	t.cfg.limits.expansion_bytes = 10;
	tu_write(t.etc, "a.conf", "A=$X\nB=${X}\nC=$X\nD=literal $$\nE=${UNSET:-word}\n");
	tu_write(t.usr, "b.conf", "F=$X\nG=plain\n");
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "12345");
	tu_assert_var(&t, "B", "12345");
	tu_assert_unset(&t, "C");
	tu_assert_var(&t, "D", "literal $");
	tu_assert_var(&t, "E", "word");
	tu_assert_unset(&t, "F");
	tu_assert_var(&t, "G", "plain");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 3);
	tu_tree_free(&t);
}

/* A=$A$A$A$A 100,000 times: the budget keeps it linear and fast. */
static void test_limit_expansion_exponential(void **state)
{
	enum { LINES = 100000 };
	const char *line = "A=$A$A$A$A\n";
	struct tu_tree t;
	char *body = tu_repeat(line, LINES);
	size_t bl = strlen(body);
	char *buf = malloc(bl + 32);
	size_t len = 0;
	double t0;
	const char *a;

	(void)state;
	assert_non_null(buf);
	len += (size_t)sprintf(buf, "A=x\n");
	memcpy(buf + len, body, bl);
	len += bl;
	len += (size_t)sprintf(buf + len, "B=done\n");
	tu_tree_init(&t);
	tu_write_len(t.etc, "a.conf", buf, len);
	t.cfg.limits.file_bytes = 4u << 20;
	t.cfg.limits.assignments = 2 * LINES;
	t0 = now();
	tu_load_ok(&t);
	print_message("  %d exponential lines loaded in %.3f s\n", LINES, now() - t0);
	assert_true(now() - t0 < 20.0);
	a = tu_get(&t, "A");
	assert_non_null(a);
	/* 4^8: the last value under the entry cap */
	assert_int_equal(strlen(a), 65536);
	tu_assert_var(&t, "B", "done");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/a.conf", 10);
	free(buf);
	free(body);
	tu_tree_free(&t);
}

static char *nested(size_t levels)
{
	size_t i, n = levels * 6 + 2;
	char *s = malloc(n), *p = s;

	assert_non_null(s);
	for (i = 0; i < levels; i++) {
		memcpy(p, "${U:-", 5);
		p += 5;
	}
	*p++ = 'x';
	for (i = 0; i < levels; i++)
		*p++ = '}';
	*p = '\0';
	return s;
}

static void test_limit_depth(void **state)
{
	struct tu_tree t;
	char *deep = nested(ENVD_MAX_DEPTH + 8), *ok = nested(8);
	char *buf = malloc(strlen(deep) + strlen(ok) + 64);

	(void)state;
	assert_non_null(buf);
	sprintf(buf, "BEFORE=1\nDEEP=%s\nOK=%s\nAFTER=1\n", deep, ok);
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", buf);
	tu_load_ok(&t);
	tu_assert_var(&t, "BEFORE", "1");
	tu_assert_unset(&t, "DEEP");
	tu_assert_var(&t, "OK", "x");
	tu_assert_var(&t, "AFTER", "1");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/a.conf", 2);

	/* a configured depth */
	t.cfg.limits.depth = 4;
	tu_load_ok(&t);
	tu_assert_unset(&t, "OK");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/a.conf", 3);
	free(buf);
	free(deep);
	free(ok);
	tu_tree_free(&t);
}

static void test_limit_result_bytes(void **state)
{
	struct tu_tree t;
	const char *f = "/etc/environment.d/a.conf";
	char name[16], *value, *buf;
	size_t i, len = 0, vlen = 120000;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.result_bytes = 30;
	tu_write(t.etc, "a.conf",
	         "A=aaaaaaaaaa\n" /* 1: 13 */
	         "B=bbbbbbbbbb\n" /* 2: 26 */
	         "C=cccccccccc\n" /* 3: 39 > 30 */
	         "D=d\n"          /* 4: 30 */
	         "A=a\n"          /* 5: 21, the old value no longer counts */
	         "C=cccccccccc\n" /* 6: 34 > 30 */
	         "C=cccccc\n");   /* 7: 30 */
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "a");
	tu_assert_var(&t, "B", "bbbbbbbbbb");
	tu_assert_var(&t, "C", "cccccc");
	tu_assert_var(&t, "D", "d");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 3);
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, f, 6);
	assert_int_equal(tu_count(&t.diags, ENVD_C_LIMIT), 2);
	tu_tree_free(&t);

	/* the default: 120,000-byte values, four per file */
	tu_tree_init(&t);
	value = tu_repeat("v", vlen);
	buf = malloc(4 * (vlen + 16));
	assert_non_null(buf);
	for (i = 0; i < 12; i++) {
		len += (size_t)sprintf(buf + len, "R%02zu=%s\n", i, value);
		if (i % 4 == 3) {
			snprintf(name, sizeof(name), "%02zu.conf", i);
			tu_write_len(t.etc, name, buf, len);
			len = 0;
		}
	}
	tu_load_ok(&t);
	/* 8 * (3 + 120000 + 2) fit in 1 MiB, a ninth does not */
	assert_int_equal(envd_result_count(t.res), ENVD_MAX_RESULT_BYTES / (3 + vlen + 2));
	assert_int_equal(envd_result_count(t.res), 8);
	assert_non_null(tu_get(&t, "R07"));
	tu_assert_unset(&t, "R08");
	tu_assert_diag(&t.diags, ENVD_C_LIMIT, "/etc/environment.d/11.conf", 1);
	free(value);
	free(buf);
	tu_tree_free(&t);
}

static void test_limit_diagnostics(void **state)
{
	struct tu_tree t;
	char *buf;
	size_t i, len = 0;
	const struct tu_diag *last;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.diagnostics = 5;
	tu_write(t.etc, "a.conf", "1A=1\n1B=1\n1C=1\n1D=1\n1E=1\n1F=1\n1G=1\n1H=1\n1I=1\n1J=1\n");
	tu_write(t.etc, "b.conf", "OK=1\n");
	t.cfg.diag_level = ENVD_ERROR;
	tu_load_ok(&t);
	tu_assert_var(&t, "OK", "1");
	assert_int_equal(tu_count(&t.diags, ENVD_C_BAD_NAME), 5);
	assert_int_equal(t.diags.n, 6);
	last = &t.diags.v[5];
	assert_int_equal(last->code, ENVD_C_LIMIT);
	assert_int_equal(envd_result_diag_count(t.res), 10);
	tu_tree_free(&t);

	/* the default */
	tu_tree_init(&t);
	buf = malloc(ENVD_MAX_DIAGNOSTICS * 16 + 16);
	assert_non_null(buf);
	for (i = 0; i <= ENVD_MAX_DIAGNOSTICS; i++)
		len += (size_t)sprintf(buf + len, "1X%zu=1\n", i);
	tu_write_len(t.etc, "a.conf", buf, len);
	free(buf);
	t.cfg.diag_level = ENVD_ERROR;
	tu_load_ok(&t);
	assert_int_equal(t.diags.n, ENVD_MAX_DIAGNOSTICS + 1);
	assert_int_equal(t.diags.v[ENVD_MAX_DIAGNOSTICS].code, ENVD_C_LIMIT);
	assert_int_equal(envd_result_diag_count(t.res), ENVD_MAX_DIAGNOSTICS + 1);
	tu_tree_free(&t);
}

/* Tracing and problems are capped apart: at debug level, the "set" lines of
 * many assignments do not push a later error out. */
static void test_limit_diagnostics_classes(void **state)
{
	struct tu_tree t;

	(void)state;
	tu_tree_init(&t);
	t.cfg.limits.diagnostics = 5;
	tu_write(t.etc, "a.conf", "A=1\nB=1\nC=1\nD=1\nE=1\nF=1\nG=1\nH=1\n1BAD=1\n");
	t.cfg.diag_level = ENVD_DEBUG;
	tu_load_ok(&t);
	tu_assert_var(&t, "H", "1");
	assert_int_equal(tu_count(&t.diags, ENVD_C_SET), 5);
	tu_assert_diag(&t.diags, ENVD_C_BAD_NAME, "/etc/environment.d/a.conf", 9);
	/* one "suppressed" line, for the tracing only */
	assert_int_equal(tu_count(&t.diags, ENVD_C_LIMIT), 1);
	assert_int_equal(envd_result_diag_count(t.res), 9);
	tu_tree_free(&t);
}

/* Below diag_level nothing is reported or counted; no callback is fine. */
static void test_diag_level(void **state)
{
	struct tu_tree t;
	size_t i, all;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.etc, "a.conf", "A=1\n1BAD=2\nT=~/x\n");
	tu_write(t.usr, "a.conf", "M=1\n");
	t.cfg.flags = ENVD_LINT;
	tu_load_ok(&t);
	all = envd_result_diag_count(t.res);
	assert_int_equal(all, t.diags.n);
	tu_assert_diag(&t.diags, ENVD_C_SET, "/etc/environment.d/a.conf", 1);
	tu_assert_diag(&t.diags, ENVD_C_FILE_MASKED, "/usr/lib/environment.d/a.conf", 0);
	tu_assert_diag(&t.diags, ENVD_C_LINT_TILDE, "/etc/environment.d/a.conf", 3);

	t.cfg.diag_level = ENVD_WARNING;
	tu_load_ok(&t);
	for (i = 0; i < t.diags.n; i++)
		assert_true(t.diags.v[i].severity <= ENVD_WARNING);
	tu_assert_diag(&t.diags, ENVD_C_BAD_NAME, "/etc/environment.d/a.conf", 2);
	tu_assert_diag(&t.diags, ENVD_C_LINT_TILDE, "/etc/environment.d/a.conf", 3);
	assert_int_equal(envd_result_diag_count(t.res), t.diags.n);
	assert_true(t.diags.n < all);

	t.cfg.diag_level = ENVD_ERROR;
	tu_load_ok(&t);
	assert_int_equal(t.diags.n, 1);
	assert_int_equal(t.diags.v[0].code, ENVD_C_BAD_NAME);

	t.cfg.diag = NULL;
	t.cfg.diag_level = ENVD_DEBUG;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "1");
	tu_assert_var(&t, "T", "~/x");
	tu_tree_free(&t);
}

/* Diagnostics name files, lines and variables, never values. */
static void test_no_value_in_diagnostics(void **state)
{
	static const char *const base[] = {"KEEP=1", "BIN=s3cr3t\xff", NULL};
	struct tu_tree t;
	struct envd_policy *p = envd_policy_new(true);
	char *deep = nested(64), *buf = malloc(strlen(deep) + 1024);
	size_t i;

	(void)state;
	assert_non_null(p);
	assert_non_null(buf);
	sprintf(buf,
	        "LD_PRELOAD=s3cr3t\n"
	        "U=s3cr3t\xff\n"
	        "V=$BIN\n"
	        "KEEP=s3cr3t\n"
	        "export E=s3cr3t\n"
	        "1X=s3cr3t\n"
	        "T=~/s3cr3t\n"
	        "C=$(s3cr3t) `s3cr3t`\n"
	        "H=%%h/s3cr3t\n"
	        "MYPATH=s3cr3t::x\n"
	        "W=s3cr3t # comment\n"
	        "D=s3cr3t%s\n"
	        "L=s3cr3ts3cr3ts3cr3t\n"
	        "TOKEN s3cr3t=x\n"
	        "TOKEN\ts3cr3t=x\n"
	        "export TOKEN s3cr3t=x\n"
	        "TOKEN-s3cr3t=x\n",
	        deep);
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", buf);
	t.cfg.base_env = base;
	t.cfg.policy = p;
	t.cfg.flags = ENVD_LINT | ENVD_NO_OVERWRITE;
	t.cfg.limits.entry_bytes = 12;
	tu_load_ok(&t);
	assert_true(t.diags.n > 10);
	for (i = 0; i < t.diags.n; i++) {
		const struct tu_diag *d = &t.diags.v[i];

		if (strstr(d->message, "s3cr3t") || (d->name && strstr(d->name, "s3cr3t")) ||
		    (d->file && strstr(d->file, "s3cr3t"))) {
			tu_print_diags(&t.diags);
			fail_msg("diagnostic %zu shows a value", i);
		}
	}
	envd_policy_free(p);
	free(deep);
	free(buf);
	tu_tree_free(&t);
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
	    tu_test(test_config_init),
	    tu_test(test_bad_config),
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
	    tu_test(test_user_dir_through_links),
	    tu_test(test_hidden_files),
	    tu_test(test_non_conf_files),
	    tu_test(test_non_conf_without_d_type),
	    tu_test(test_missing_and_odd_dirs),
	    tu_test(test_diagnostics_at_file_line),
	    tu_test(test_lookup_order),
	    tu_test(test_quoting_does_not_protect),
	    tu_test(test_nooverwrite),
	    tu_test(test_noexpand),
	    tu_test(test_policy_user_side_only),
	    tu_test(test_nul_byte),
	    tu_test(test_invalid_utf8_skips_one_assignment),
	    tu_test(test_utf8_valid),
	    tu_test(test_file_size_cap),
	    tu_test(test_fifo_socket_device),
	    tu_test(test_fifo_behind_the_filter),
	    tu_test(test_proc_file_refused),
	    tu_test(test_writable_files_refused),
	    tu_test(test_writable_dirs_refused),
	    tu_test(test_owners),
	    tu_test(test_unreadable_symlink),
	    tu_test(test_unreadable_dir),
	    tu_test(test_hooks_around_user_dir),
	    tu_test(test_leave_user_failure),
	    tu_test(test_enter_user_failure),
	    tu_test(test_limit_input_bytes),
	    tu_test(test_limit_files_per_dir),
	    tu_test(test_limit_files_per_dir_still_masks),
	    tu_test(test_limit_directory_entries),
	    tu_test(test_limit_assignments),
	    tu_test(test_limit_entry_bytes),
	    tu_test(test_limit_expansion_budget),
	    tu_test(test_limit_expansion_exponential),
	    tu_test(test_limit_depth),
	    tu_test(test_limit_result_bytes),
	    tu_test(test_limit_diagnostics),
	    tu_test(test_limit_diagnostics_classes),
	    tu_test(test_diag_level),
	    tu_test(test_no_value_in_diagnostics),
	    tu_test(test_login_base),
	    tu_test(test_login_base_in_load),
	    tu_test(test_user_dir_template),
	    tu_test(test_user_dir_template_too_long),
	    tu_test(test_user_dir_default),
	};

	return cmocka_run_group_tests_name("unit_load", tests, NULL, NULL);
}
