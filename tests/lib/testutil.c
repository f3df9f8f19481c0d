/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* testutil.c - the helpers of testutil.h. */
#include "config.h"

#include "testutil.h"
#include "lint.h"
#include "side.h"

/* Roots of trees not freed yet: a failing test jumps out of its body, and
 * the teardown tu_cleanup then removes the directories it left behind. */
static char *tu_live[8];

char *tu_exact(const char *s, size_t len)
{
	char *p = malloc(len ? len : 1);

	assert_non_null(p);
	if (len)
		memcpy(p, s, len);
	return p;
}

char *tu_repeat(const char *unit, size_t times)
{
	size_t n = strlen(unit), i;
	char *p = malloc(n * times + 1);

	assert_non_null(p);
	for (i = 0; i < times; i++)
		memcpy(p + i * n, unit, n);
	p[n * times] = '\0';
	return p;
}

char *tu_strdup_or_null(const char *s)
{
	char *p;

	if (!s)
		return NULL;
	p = strdup(s);
	assert_non_null(p);
	return p;
}

void tu_diag_cb(const struct envd_diag *d, void *data)
{
	struct tu_diags *ds = data;
	struct tu_diag *e;

	assert_non_null(d->message);
	if (ds->n == ds->cap) {
		size_t cap = ds->cap ? ds->cap * 2 : 16;
		struct tu_diag *nv = realloc(ds->v, cap * sizeof(*nv));

		assert_non_null(nv);
		ds->v = nv;
		ds->cap = cap;
	}
	e = &ds->v[ds->n++];
	e->severity = d->severity;
	e->code = d->code;
	e->file = tu_strdup_or_null(d->file);
	e->line = d->line;
	e->name = tu_strdup_or_null(d->name);
	e->message = tu_strdup_or_null(d->message);
}

void tu_diags_clear(struct tu_diags *ds)
{
	size_t i;

	for (i = 0; i < ds->n; i++) {
		free(ds->v[i].file);
		free(ds->v[i].name);
		free(ds->v[i].message);
	}
	free(ds->v);
	memset(ds, 0, sizeof(*ds));
}

size_t tu_count(const struct tu_diags *ds, enum envd_code code)
{
	size_t i, n = 0;

	for (i = 0; i < ds->n; i++)
		n += ds->v[i].code == code;
	return n;
}

bool tu_ends_with(const char *s, const char *suffix)
{
	size_t a, b;

	if (!s || !suffix)
		return s == suffix;
	a = strlen(s);
	b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

const struct tu_diag *tu_find(const struct tu_diags *ds, enum envd_code code,
                              const char *file_suffix, unsigned line)
{
	size_t i;

	for (i = 0; i < ds->n; i++) {
		const struct tu_diag *d = &ds->v[i];

		if (d->code != code)
			continue;
		if (file_suffix && !tu_ends_with(d->file, file_suffix))
			continue;
		if (line != UINT_MAX && d->line != line)
			continue;
		return d;
	}
	return NULL;
}

void tu_print_diags(const struct tu_diags *ds)
{
	size_t i;

	for (i = 0; i < ds->n; i++)
		print_message("  diag code=%d sev=%d %s:%u name=%s: %s\n", (int)ds->v[i].code,
		              (int)ds->v[i].severity, ds->v[i].file ? ds->v[i].file : "-",
		              ds->v[i].line, ds->v[i].name ? ds->v[i].name : "-", ds->v[i].message);
}

__attribute__((returns_nonnull)) const struct tu_diag *
tu_need(const struct tu_diags *ds, enum envd_code code, const char *file_suffix, unsigned line)
{
	static const struct tu_diag none = {.message = (char *)""};
	const struct tu_diag *d = tu_find(ds, code, file_suffix, line);

	if (d)
		return d;
	tu_print_diags(ds);
	fail_msg("no diagnostic code %d at %s:%u", (int)code, file_suffix ? file_suffix : "*",
	         line);
	return &none;
}

void tu_join(char *out, const char *a, const char *b)
{
	int n = snprintf(out, TU_PATH, "%s/%s", a, b);

	assert_true(n > 0 && n < TU_PATH);
}

void tu_mkdir_p(const char *path, mode_t mode)
{
	assert_int_equal(tf_mkdirs(path, mode), 0);
}

void tu_write_len(const char *dir, const char *name, const void *data, size_t len)
{
	char path[TU_PATH];
	const char *p = data;
	ssize_t w;
	int fd;

	tu_join(path, dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	while (len) {
		w = write(fd, p, len);
		assert_true(w > 0);
		p += w;
		len -= (size_t)w;
	}
	assert_int_equal(fchmod(fd, 0644), 0);
	assert_int_equal(close(fd), 0);
}

void tu_write(const char *dir, const char *name, const char *content)
{
	tu_write_len(dir, name, content, strlen(content));
}

void tu_symlink(const char *target, const char *dir, const char *name)
{
	char path[TU_PATH];

	tu_join(path, dir, name);
	assert_int_equal(symlink(target, path), 0);
}

void tu_chmod(const char *dir, const char *name, mode_t mode)
{
	char path[TU_PATH];

	if (name)
		tu_join(path, dir, name);
	else
		snprintf(path, sizeof(path), "%s", dir);
	assert_int_equal(chmod(path, mode), 0);
}

void tu_rm_rf(const char *path)
{
	tf_rm_tree(path);
}

void tu_tree_init(struct tu_tree *t)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	memset(t, 0, sizeof(*t));
	umask(022);
	if (!tmp || tmp[0] != '/')
		tmp = "/tmp";
	n = snprintf(t->root, sizeof(t->root), "%s/envd-unit-XXXXXX", tmp);
	assert_true(n > 0 && (size_t)n < sizeof(t->root));
	assert_non_null(mkdtemp(t->root));
	assert_int_equal(chmod(t->root, 0755), 0);
	snprintf(t->home, sizeof(t->home), "%s/home/u", t->root);
	snprintf(t->user, sizeof(t->user), "%s/.config/environment.d", t->home);
	snprintf(t->etc, sizeof(t->etc), "%s/etc/environment.d", t->root);
	snprintf(t->run, sizeof(t->run), "%s/run/environment.d", t->root);
	snprintf(t->usrlocal, sizeof(t->usrlocal), "%s/usr/local/lib/environment.d", t->root);
	snprintf(t->usr, sizeof(t->usr), "%s/usr/lib/environment.d", t->root);
	tu_mkdir_p(t->user, 0755);
	tu_mkdir_p(t->etc, 0755);
	tu_mkdir_p(t->run, 0755);
	tu_mkdir_p(t->usrlocal, 0755);
	tu_mkdir_p(t->usr, 0755);

	for (n = 0; n < (int)TU_LEN(tu_live); n++)
		if (!tu_live[n]) {
			tu_live[n] = strdup(t->root);
			break;
		}

	envd_config_init(&t->cfg);
	t->cfg.user_dir = t->user;
	t->cfg.root = t->root; /* the default four system directories, below root */
	t->cfg.system_dirs = NULL;
	t->cfg.user_uid = geteuid();
	t->cfg.system_uid = geteuid();
	t->cfg.diag = tu_diag_cb;
	t->cfg.diag_data = &t->diags;
	t->cfg.reader = TEST_READER;       /* the build tree's, not the installed one */
	t->cfg.lint = &envd_lint_ops;      /* what envd check links; ENVD_LINT turns it on */
	t->cfg.read_here = envd_side_read; /* envd's: without user_ids, read here */
}

int tu_load(struct tu_tree *t)
{
	envd_result_free(t->res);
	t->res = NULL;
	tu_diags_clear(&t->diags);
	return envd_load(&t->cfg, &t->res);
}

void tu_load_ok(struct tu_tree *t)
{
	int r = tu_load(t);

	if (r != 0)
		tu_print_diags(&t->diags);
	assert_int_equal(r, 0);
	assert_non_null(t->res);
}

const char *tu_get(const struct tu_tree *t, const char *name)
{
	const struct envd_var *v;

	assert_non_null(t->res);
	v = envd_result_get(t->res, name);
	if (!v)
		return NULL;
	assert_int_equal(strlen(v->value), v->value_len);
	return v->value;
}

__attribute__((returns_nonnull)) const struct envd_file *tu_file(const struct tu_tree *t,
                                                                 const char *suffix)
{
	static const struct envd_file none;
	size_t i;

	for (i = 0; i < envd_result_file_count(t->res); i++) {
		const struct envd_file *f = envd_result_file(t->res, i);

		if (tu_ends_with(f->path, suffix))
			return f;
	}
	fail_msg("no file %s in the result", suffix);
	return &none;
}

void tu_tree_free(struct tu_tree *t)
{
	size_t i;

	for (i = 0; i < TU_LEN(tu_live); i++)
		if (tu_live[i] && strcmp(tu_live[i], t->root) == 0) {
			free(tu_live[i]);
			tu_live[i] = NULL;
		}
	envd_result_free(t->res);
	t->res = NULL;
	tu_diags_clear(&t->diags);
	if (t->root[0])
		tu_rm_rf(t->root);
	t->root[0] = '\0';
}

int tu_cleanup(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < TU_LEN(tu_live); i++)
		if (tu_live[i]) {
			tu_rm_rf(tu_live[i]);
			free(tu_live[i]);
			tu_live[i] = NULL;
		}
	return 0;
}

void tu_write_padded(const char *dir, const char *name, const char *head, size_t total)
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

int tu_run(const char *group, const struct CMUnitTest *fixed, size_t nfixed,
           void (*row_fn)(void **state), const void *rows, size_t row_size, size_t nrows,
           const char *(*row_name)(const void *row))
{
	struct CMUnitTest *t = calloc(nfixed + nrows + 1, sizeof(*t));
	size_t i;
	int r;

	if (!t)
		return 1;
	for (i = 0; i < nfixed; i++)
		t[i] = fixed[i];
	for (i = 0; i < nrows; i++) {
		const void *row = (const char *)rows + i * row_size;

		t[nfixed + i].name = row_name(row);
		t[nfixed + i].test_func = row_fn;
		t[nfixed + i].initial_state = (void *)(uintptr_t)row;
	}
	r = _cmocka_run_group_tests(group, t, nfixed + nrows, NULL, NULL);
	free(t);
	return r;
}

char *tu_nested(size_t levels)
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
