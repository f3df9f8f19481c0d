/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/*
 * unit_files.c - envd_load against hostile files (SECURITY.md): NUL bytes,
 * invalid UTF-8, sizes, FIFOs, sockets and devices, /proc, modes, owners,
 * unreadable entries; and the privilege hooks around the user directory.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <signal.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "testutil.h"

#define NOBODY 65534

static void skip_unless_root(void)
{
	if (geteuid() != 0) {
		print_message("  (needs root: skipped)\n");
		skip();
	}
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
	tu_write_padded(t.user, "a.conf", "A=1\n", ENVD_MAX_FILE_BYTES);
	tu_write_padded(t.user, "b.conf", "B=1\n", ENVD_MAX_FILE_BYTES + 1);
	tu_write_padded(t.etc, "c.conf", "C=1\n", ENVD_MAX_FILE_BYTES + 1);
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

/* The user side read by a child with nobody's credentials (root only). */
static const struct envd_ids nobody_ids = {.uid = NOBODY, .gid = NOBODY};

/* The caller's own credentials, to compare after a load. */
struct creds {
	uid_t ru, eu, su, fsu;
	gid_t rg, eg, sg, fsg;
	int ngroups;
	gid_t groups[64];
	uint32_t caps[6];
};

static void get_creds(struct creds *c)
{
	struct {
		uint32_t version;
		int pid;
	} h = {0x20080522u, 0};

	memset(c, 0, sizeof(*c));
	assert_int_equal(getresuid(&c->ru, &c->eu, &c->su), 0);
	assert_int_equal(getresgid(&c->rg, &c->eg, &c->sg), 0);
	c->fsu = (uid_t)setfsuid((uid_t)-1);
	c->fsg = (gid_t)setfsgid((gid_t)-1);
	c->ngroups = getgroups(64, c->groups);
	assert_true(c->ngroups >= 0);
	assert_int_equal(syscall(SYS_capget, &h, c->caps), 0);
}

static void assert_creds_same(const struct creds *before)
{
	struct creds now;

	get_creds(&now);
	assert_memory_equal(&now, before, sizeof(now));
}

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
		t.cfg.user_ids = &nobody_ids;
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

/* ---- a security module's refusal ---- */

/* openat and readlinkat wrapped (tests/lib/lsmwrap.c, Makefile.am): an
 * entry whose name starts with "lsm-" is refused with EACCES whatever its
 * mode, as SELinux refuses a domain without the policy's rule; in this
 * process, and in the reader program TEST_LSM_READER, built with the same
 * wrappers.  This machine's kernel has no SELinux to ask. */
#define LSM_TEXT                                                                                   \
	"permission denied by a security module (SELinux, AppArmor) or an ACL: the mode bits "     \
	"allow it"

/* The message of the file's diagnostic. */
static const char *diag_message(const struct tu_tree *t, enum envd_code code, const char *file)
{
	return tu_need(&t->diags, code, file, 0)->message;
}

/* An EACCES the mode bits do not explain names a security module, on a
 * file, on a symbolic link and on the user directory, read by the reader
 * child; one the mode bits explain stays "permission denied". */
static void test_lsm_denial(void **state)
{
	struct tu_tree t;
	struct envd_ids self = {.uid = geteuid(), .gid = getegid()};
	char d[TU_PATH], to[TU_PATH];
	const char *m;

	(void)state;
	tu_tree_init(&t);
	/* written under another name: the wrapper refuses this one */
	tu_write(t.user, "x-lsm-file.conf", "LSMF=1\n");
	tu_join(d, t.user, "x-lsm-file.conf");
	tu_join(to, t.user, "lsm-file.conf");
	assert_int_equal(rename(d, to), 0);
	tu_write(t.root, "target.env", "LSML=1\n");
	tu_join(d, t.root, "target.env");
	tu_symlink(d, t.user, "lsm-link.conf");
	tu_write(t.user, "20-mode.conf", "MODE=1\n");
	tu_chmod(t.user, "20-mode.conf", 0);
	tu_write(t.user, "30-ok.conf", "OK=1\n");
	/* as root the child is nobody, and root's files are read by the
	 * others' bits: 0 for 20-mode.conf, r for lsm-file.conf */
	t.cfg.user_ids = geteuid() == 0 ? &nobody_ids : &self;
	t.cfg.reader = TEST_LSM_READER;
	tu_load_ok(&t);
	tu_assert_var(&t, "OK", "1");
	tu_assert_unset(&t, "LSMF");
	tu_assert_unset(&t, "LSML");
	tu_assert_unset(&t, "MODE");
	assert_string_equal(tu_file(&t, "/.config/environment.d/lsm-file.conf")->reason, LSM_TEXT);
	assert_string_equal(
	    diag_message(&t, ENVD_C_FILE_ERROR, "/.config/environment.d/lsm-file.conf"),
	    LSM_TEXT ", skipped");
	assert_string_equal(tu_file(&t, "/.config/environment.d/lsm-link.conf")->reason, LSM_TEXT);
	assert_string_equal(tu_file(&t, "/.config/environment.d/20-mode.conf")->reason,
	                    "permission denied");
	/* the mode bits' denial, with its fix (golden_msgs.sh has the whole
	 * text), not the security module's */
	m = diag_message(&t, ENVD_C_FILE_ERROR, "/.config/environment.d/20-mode.conf");
	assert_true(strncmp(m, "permission denied (read as ", 27) == 0);
	assert_non_null(strstr(m, "), skipped; fix: chmod u+r "));
	assert_null(strstr(m, "security module"));
	tu_tree_free(&t);
}

/* ---- the reader in a child ---- */

/* Root reads the user's side through a child that is the user: a file
 * only root can read is not read, and the caller's credentials, groups
 * and capabilities are the same afterwards. */
static void test_child_is_the_user(void **state)
{
	struct tu_tree t;
	struct creds before;

	(void)state;
	if (geteuid() != 0) {
		print_message("  (needs root: skipped)\n");
		skip();
	}
	tu_tree_init(&t);
	tu_write(t.user, "10-u.conf", "U=1\n");
	tu_write(t.user, "20-root.conf", "ROOTONLY=1\n");
	tu_chmod(t.user, "20-root.conf", 0600);
	tu_write(t.etc, "60-e.conf", "E=1\n");
	/* in the caller: root reads its own file */
	tu_load_ok(&t);
	tu_assert_var(&t, "ROOTONLY", "1");
	get_creds(&before);
	t.cfg.user_ids = &nobody_ids;
	tu_load_ok(&t);
	assert_creds_same(&before);
	tu_assert_var(&t, "U", "1");
	tu_assert_var(&t, "E", "1");
	tu_assert_unset(&t, "ROOTONLY");
	tu_assert_diag(&t.diags, ENVD_C_FILE_ERROR, "/.config/environment.d/20-root.conf", 0);
	/* the child's skip still masks the system file of the same name */
	tu_write(t.etc, "20-root.conf", "ROOTONLY=system\n");
	tu_load_ok(&t);
	tu_assert_unset(&t, "ROOTONLY");
	tu_tree_free(&t);
}

/* Any caller may read through a child (the module always does: the
 * time bound); without root nothing is switched. */
static void test_child_masks_and_states(void **state)
{
	struct tu_tree t;
	struct envd_ids self = {.uid = geteuid(), .gid = getegid()};
	char target[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "A=1\nB=$A-2\n");
	tu_write(t.user, "empty.conf", "");
	tu_symlink("/dev/null", t.user, "null.conf");
	tu_join(target, t.root, "nowhere");
	tu_symlink(target, t.user, "dangling.conf");
	tu_write(t.user, "writable.conf", "W=1\n");
	tu_chmod(t.user, "writable.conf", 0666);
	tu_write(t.user, "notconf", "X=1\n");
	tu_write(t.etc, "empty.conf", "EMPTY=system\n");
	tu_write(t.etc, "null.conf", "NULL=system\n");
	tu_write(t.etc, "dangling.conf", "DANGLING=system\n");
	tu_write(t.etc, "writable.conf", "W=system\n");
	t.cfg.user_ids = geteuid() == 0 ? &nobody_ids : &self;
	t.cfg.flags = ENVD_LINT;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "1");
	tu_assert_var(&t, "B", "1-2");
	tu_assert_unset(&t, "EMPTY");
	tu_assert_unset(&t, "NULL");
	tu_assert_unset(&t, "DANGLING");
	tu_assert_unset(&t, "W");
	assert_int_equal(tu_file(&t, "/.config/environment.d/empty.conf")->state, ENVD_FILE_MASKS);
	assert_true(tu_file(&t, "/.config/environment.d/empty.conf")->empty);
	assert_int_equal(tu_file(&t, "/.config/environment.d/null.conf")->state, ENVD_FILE_MASKS);
	assert_string_equal(tu_file(&t, "/.config/environment.d/dangling.conf")->reason,
	                    "dangling symbolic link");
	assert_int_equal(tu_file(&t, "/.config/environment.d/writable.conf")->state,
	                 ENVD_FILE_SKIPPED);
	assert_string_equal(tu_file(&t, "/.config/environment.d/writable.conf")->reason,
	                    "writable by group or others");
	tu_assert_diag(&t.diags, ENVD_C_FILE_NOT_CONF, "/.config/environment.d/notconf", 0);
	tu_tree_free(&t);
}

/* Past the budget the user's files are not used, the system's are, and
 * the load says so once. */
static void test_child_budget(void **state)
{
	struct tu_tree t;
	struct envd_ids self = {.uid = geteuid(), .gid = getegid()};
	const struct tu_diag *d;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "A=1\n");
	tu_write(t.etc, "a.conf", "A=system\n");
	tu_write(t.etc, "s.conf", "S=1\n");
	t.cfg.user_ids = geteuid() == 0 ? &nobody_ids : &self;
	t.cfg.limits.user_ms = 0;
	tu_load_ok(&t);
	tu_assert_var(&t, "A", "system");
	tu_assert_var(&t, "S", "1");
	d = tu_find(&t.diags, ENVD_C_LIMIT, "/.config/environment.d", 0);
	assert_non_null(d);
	assert_non_null(strstr(d->message, "took longer than 0 ms: none of them is used"));
	tu_tree_free(&t);
}

/* systemd's safe chase, on the system side: a system file linked through
 * a directory someone other than root can change is refused. */
static void test_system_link_through_unsafe_dir(void **state)
{
	struct tu_tree t;
	char svc[TU_PATH], target[TU_PATH];

	(void)state;
	tu_tree_init(&t);
	tu_join(svc, t.root, "svc");
	tu_mkdir_p(svc, 0755);
	tu_write(svc, "app.conf", "APP=1\n");
	tu_join(target, svc, "app.conf");
	tu_symlink(target, t.usr, "50-app.conf");
	tu_load_ok(&t);
	tu_assert_var(&t, "APP", "1");
	/* writable by others */
	tu_chmod(svc, NULL, 0777);
	tu_load_ok(&t);
	tu_assert_unset(&t, "APP");
	tu_assert_diag(&t.diags, ENVD_C_FILE_UNSAFE, "/usr/lib/environment.d/50-app.conf", 0);
	assert_string_equal(tu_file(&t, "/usr/lib/environment.d/50-app.conf")->reason,
	                    "reached through a directory that someone other than root can change");
	/* sticky and root's (as /tmp) is no way in for others */
	if (geteuid() == 0) {
		tu_chmod(svc, NULL, 01777);
		tu_load_ok(&t);
		tu_assert_var(&t, "APP", "1");
		/* owned by another account */
		tu_chmod(svc, NULL, 0755);
		assert_int_equal(chown(svc, NOBODY, NOBODY), 0);
		tu_load_ok(&t);
		tu_assert_unset(&t, "APP");
	}
	tu_tree_free(&t);
}

/* Group write on the user side passes only for the owner's private group
 * (envd_group_private); any other group's write is refused as before. */
static void test_group_write(void **state)
{
	struct tu_tree t;
	struct stat st;
	int priv;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "g.conf", "G=1\n");
	tu_chmod(t.user, "g.conf", 0664);
	assert_int_equal(stat(t.user, &st), 0);
	/* no candidate group: refused */
	tu_load_ok(&t);
	tu_assert_unset(&t, "G");
	assert_string_equal(tu_file(&t, "/.config/environment.d/g.conf")->reason,
	                    "writable by group or others");
	/* another group than the file's: refused the same way */
	t.cfg.user_name = "root";
	t.cfg.user_gid = st.st_gid + 1;
	tu_load_ok(&t);
	tu_assert_unset(&t, "G");
	assert_string_equal(tu_file(&t, "/.config/environment.d/g.conf")->reason,
	                    "writable by group or others");
	/* the file's group: as NSS says whether it is private */
	{
		struct passwd *pw = getpwuid(geteuid());

		assert_non_null(pw);
		t.cfg.user_name = pw->pw_name;
		t.cfg.user_gid = st.st_gid;
		priv = envd_group_private(pw->pw_name, geteuid(), st.st_gid);
	}
	tu_load_ok(&t);
	if (priv == 1) {
		tu_assert_var(&t, "G", "1");
	} else {
		tu_assert_unset(&t, "G");
		assert_string_equal(tu_file(&t, "/.config/environment.d/g.conf")->reason,
		                    "writable by a group that is not the owner's private group");
	}
	/* the directory itself */
	tu_chmod(t.user, "g.conf", 0644);
	tu_chmod(t.user, NULL, 0775);
	tu_load_ok(&t);
	if (priv == 1)
		tu_assert_var(&t, "G", "1");
	else
		tu_assert_diag(&t.diags, ENVD_C_DIR_UNSAFE, "/.config/environment.d", 0);
	/* others' write is never accepted */
	tu_chmod(t.user, NULL, 0757);
	tu_load_ok(&t);
	tu_assert_unset(&t, "G");
	tu_chmod(t.user, NULL, 0755);
	/* root's group is nobody's private group */
	assert_int_equal(envd_group_private("root", 0, 0), 0);
	tu_tree_free(&t);
}

/* ---- POSIX ACLs on the user side ---- */

/* setfacl ARGS on path: 0 done, -1 not possible here (no setfacl, or a
 * file system without ACLs): the caller skips. */
static int setfacl(const char *args, const char *path)
{
	char cmd[TU_PATH * 3];
	int st;

	assert_true((size_t)snprintf(cmd, sizeof(cmd), "setfacl %s '%s' 2>/dev/null", args, path) <
	            sizeof(cmd));
	st = system(cmd);
	return st == 0 ? 0 : -1;
}

/* The user side's check of a file: group write by group_ok (the file's
 * group) is accepted and noted; through an ACL it is refused. */
static enum envd_file_state acl_read(const char *dir, const char *name, bool *group_used,
                                     enum envd_reason *reason)
{
	struct envd_walk walk = {.links_left = 40};
	struct envd_check chk = {.owner_a = geteuid(), .owner_b = 0, .walk = &walk};
	struct envd_read got;
	struct stat st;
	char path[TU_PATH * 2];
	enum envd_file_state state;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(stat(path, &st), 0);
	chk.group_ok = st.st_gid;
	state = envd_read_file(AT_FDCWD, path, NULL, &chk, 4096, &got);
	free(got.data);
	*group_used = walk.group_used;
	*reason = got.reason;
	return state;
}

/* envd_open_dir on the user side (its parents walked) with group_ok the
 * group of dir (and of its parent, made the same): the descriptor or
 * the negative errno, *reason. */
static int acl_open_dir(const char *dir, bool *group_used, enum envd_reason *reason)
{
	struct envd_walk walk = {.links_left = 40};
	struct envd_check chk = {.owner_a = geteuid(), .owner_b = 0, .walk = &walk};
	struct stat st;
	dev_t dev;
	int fd;

	assert_int_equal(stat(dir, &st), 0);
	chk.group_ok = st.st_gid;
	*reason = ENVD_R_NONE;
	fd = envd_open_dir(dir, &chk, true, reason, &dev);
	if (fd >= 0)
		close(fd);
	*group_used = walk.group_used;
	return fd;
}

/* An ACL that gives another account write, or a mask with write, makes a
 * user file, directory or parent writable by others: the exception for
 * the owner's private group never applies through an ACL.  Without the
 * ACL, the same group write is accepted provisionally (and noted), as
 * before. */
static void test_acl_write(void **state)
{
	static const char *const grants[] = {"-m u:65534:rw", "-m g:65534:w", "-m m::rw"};
	struct tu_tree t;
	char parent[TU_PATH];
	enum envd_reason why;
	bool used;
	int fd;

	(void)state;
	tu_tree_init(&t);
	tu_write(t.user, "a.conf", "A=1\n");
	tu_chmod(t.user, "a.conf", 0664);
	snprintf(parent, sizeof(parent), "%s", t.user);
	*strrchr(parent, '/') = '\0';
	if (setfacl("-m u:65534:r", t.user) < 0 || setfacl("-b", t.user) < 0) {
		tu_tree_free(&t);
		print_message("  (no setfacl, or no ACLs on this file system: skipped)\n");
		skip();
	}
	/* the group write alone: accepted, noted for the private-group check */
	assert_int_equal(acl_read(t.user, "a.conf", &used, &why), ENVD_FILE_USED);
	assert_true(used);
	for (size_t i = 0; i < TU_LEN(grants); i++) {
		/* the file */
		{
			char f[TU_PATH * 2];

			snprintf(f, sizeof(f), "%s/a.conf", t.user);
			assert_int_equal(setfacl(grants[i], f), 0);
			assert_int_equal(acl_read(t.user, "a.conf", &used, &why),
			                 ENVD_FILE_SKIPPED);
			assert_int_equal(why, ENVD_R_WRITABLE);
			assert_int_equal(setfacl("-b", f), 0);
			tu_chmod(t.user, "a.conf", 0664);
		}
		/* the directory */
		tu_chmod(t.user, NULL, 0775);
		fd = acl_open_dir(t.user, &used, &why);
		assert_true(fd >= 0);
		assert_true(used);
		assert_int_equal(setfacl(grants[i], t.user), 0);
		assert_int_equal(acl_open_dir(t.user, &used, &why), -EPERM);
		assert_int_equal(why, ENVD_R_WRITABLE);
		assert_int_equal(setfacl("-b", t.user), 0);
		tu_chmod(t.user, NULL, 0755);
		/* a parent, of the same group (its group write is the
		 * candidate's too) */
		tu_chmod(parent, NULL, 0775);
		fd = acl_open_dir(t.user, &used, &why);
		assert_true(fd >= 0);
		assert_int_equal(setfacl(grants[i], parent), 0);
		assert_int_equal(acl_open_dir(t.user, &used, &why), -EPERM);
		assert_int_equal(why, ENVD_R_PARENT_WRITABLE);
		assert_int_equal(setfacl("-b", parent), 0);
		tu_chmod(parent, NULL, 0755);
	}
	/* a named entry whose write the mask takes away grants none */
	{
		char f[TU_PATH * 2];

		snprintf(f, sizeof(f), "%s/a.conf", t.user);
		assert_int_equal(setfacl("-m u:65534:rw", f), 0);
		tu_chmod(t.user, "a.conf", 0644);
		assert_int_equal(acl_read(t.user, "a.conf", &used, &why), ENVD_FILE_USED);
		assert_false(used);
		assert_int_equal(setfacl("-b", f), 0);
	}
	tu_tree_free(&t);
}

/* envd_group_private leaves the process's own enumeration of the accounts
 * alone: a caller (another module, another thread) in the middle of
 * getpwent gets its next entry after the check, not the first one again.
 * The group asked about is the second account's, for the first account:
 * a group with no members that is someone else's primary group. */
static void test_group_private_no_cursor(void **state)
{
	struct passwd *pw;
	struct group *gr;
	char *first, *second;
	uid_t first_uid;
	gid_t gid;

	(void)state;
	setpwent();
	pw = getpwent();
	assert_non_null(pw);
	first = strdup(pw->pw_name);
	first_uid = pw->pw_uid;
	pw = getpwent();
	assert_non_null(pw);
	second = strdup(pw->pw_name);
	gid = pw->pw_gid;
	endpwent();
	assert_non_null(first);
	assert_non_null(second);
	gr = getgrgid(gid);
	if (gid == 0 || pw == NULL || gr == NULL || (gr->gr_mem != NULL && gr->gr_mem[0] != NULL)) {
		print_message("  (the second account's group has members: skipped)\n");
		free(first);
		free(second);
		skip();
	}
	setpwent();
	pw = getpwent();
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, first);
	assert_int_equal(envd_group_private(first, first_uid, gid), 0);
	pw = getpwent();
	assert_non_null(pw);
	assert_string_equal(pw->pw_name, second);
	endpwent();
	free(first);
	free(second);
}

/* envd_group_private from several threads at once.  The group is the
 * primary group of the last account in passwd that has one of its own
 * with no members; asked for another user (root), it is nobody's private
 * group.  An answer made by walking the accounts with setpwent/getpwent_r
 * shares one cursor with the other threads, sees only the entries they
 * leave it, and misses that account now and then (21 of 20,000 checks with
 * three threads): the answer must be 0 every time. */
#define PRIVATE_THREADS 3
#define PRIVATE_CHECKS  2000

struct private_job {
	gid_t gid;
	int wrong;
};

static void *private_checks(void *data)
{
	struct private_job *job = data;

	for (int i = 0; i < PRIVATE_CHECKS; i++)
		if (envd_group_private("root", 0, job->gid) != 0)
			job->wrong++;
	return NULL;
}

static void test_group_private_threads(void **state)
{
	struct private_job jobs[PRIVATE_THREADS];
	pthread_t tid[PRIVATE_THREADS];
	struct passwd *pw;
	struct group *gr;
	gid_t gid = 0;
	int wrong = 0;

	(void)state;
	setpwent();
	while ((pw = getpwent()) != NULL) {
		gr = pw->pw_gid != 0 && pw->pw_uid != 0 ? getgrgid(pw->pw_gid) : NULL;
		if (gr != NULL && (gr->gr_mem == NULL || gr->gr_mem[0] == NULL))
			gid = pw->pw_gid;
	}
	endpwent();
	if (gid == 0) {
		print_message("  (no account with a group of no members: skipped)\n");
		skip();
	}
	assert_int_equal(envd_group_private("root", 0, gid), 0);
	for (int i = 0; i < PRIVATE_THREADS; i++) {
		jobs[i] = (struct private_job){.gid = gid};
		assert_int_equal(pthread_create(&tid[i], NULL, private_checks, &jobs[i]), 0);
	}
	for (int i = 0; i < PRIVATE_THREADS; i++) {
		assert_int_equal(pthread_join(tid[i], NULL), 0);
		wrong += jobs[i].wrong;
	}
	if (wrong != 0)
		fail_msg("%d of %d checks from %d threads took gid %lu for root's private group",
		         wrong, PRIVATE_THREADS * PRIVATE_CHECKS, PRIVATE_THREADS,
		         (unsigned long)gid);
}

int main(void)
{
	static const struct CMUnitTest tests[] = {
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
	    tu_test(test_lsm_denial),
	    tu_test(test_child_is_the_user),
	    tu_test(test_child_masks_and_states),
	    tu_test(test_child_budget),
	    tu_test(test_system_link_through_unsafe_dir),
	    tu_test(test_group_write),
	    tu_test(test_acl_write),
	    tu_test(test_group_private_no_cursor),
	    tu_test(test_group_private_threads),
	};

	return cmocka_run_group_tests_name("unit_files", tests, NULL, NULL);
}
