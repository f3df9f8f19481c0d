/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fuzz_load - the whole load: one input split into files across a user
 * directory and the four system directories of a temporary tree, plus a base
 * environment, through envd_load (layout of the input: fuzz.h).
 *
 * Knobs ('o' section): byte 0 bits: 0 ENVD_NO_OVERWRITE, 1 ENVD_NO_EXPAND,
 * 2 ENVD_LINT, 3 no policy, 4 no user directory, 5 user directory mode 0777
 * (unsafe), 6-7 diag_level; byte 1 picks a limits profile (0: the defaults,
 * the others small enough to hit every limit with a small input).
 *
 * Invariants: envd_load returns 0 (nothing in the files may make it fail);
 * every variable has a valid name, a value of value_len bytes without NUL
 * that is valid UTF-8 (noncharacters refused, as systemd does), fits
 * limits.entry_bytes as NAME=VALUE, comes from a file of the result that was
 * used, and, when it comes from the user directory, passes the policy; the
 * result's names are unique and envd_result_get finds each; the sum of
 * NAME=VALUE\0 fits limits.result_bytes; no more variables than
 * limits.assignments; no diagnostic shows a byte only a value holds, names a
 * variable by an invalid name, or is reported below diag_level; no more
 * diagnostics reach the callback than 2 * (limits.diagnostics + 1) (problems
 * and tracing are capped apart); and a second
 * load of the same tree gives the same variables (determinism).  Time is
 * bounded by libFuzzer's -timeout. */
#include "config.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envd.h"
#include "internal.h"
#include "fuzz.h"
#include "lint.h"
#include "side.h"

static struct fuzz_tree tree;
static struct envd_policy *policy;

struct diags {
	const bool *known;
	enum envd_severity level;
	size_t count;
};

static void on_diag(const struct envd_diag *d, void *data)
{
	struct diags *ds = data;

	ds->count++;
	FUZZ_CHECK(d->severity <= ds->level, "severity %d reported at level %d", (int)d->severity,
	           (int)ds->level);
	FUZZ_CHECK(d->message != NULL, "diagnostic without a message");
	fuzz_check_text("a diagnostic message", d->message, strlen(d->message), ds->known);
	if (d->name) {
		FUZZ_CHECK(envd_name_valid(d->name, strlen(d->name)),
		           "diagnostic names the invalid variable name \"%s\"", d->name);
		fuzz_check_text("a diagnostic's name", d->name, strlen(d->name), ds->known);
	}
	if (d->file)
		fuzz_check_text("a diagnostic's file", d->file, strlen(d->file), ds->known);
}

/* Marks the bytes of every key of the file (a valid name or not: invalid ones
 * are shown, printable, in diagnostics) as known. */
static int know_key(const char *key, size_t key_len, const char *value, size_t value_len,
                    bool has_value, unsigned line, void *data)
{
	fuzz_know(data, key, key_len);
	return 0;
}

static void set_limits(struct envd_limits *l, unsigned profile)
{
	envd_limits_default(l);
	switch (profile % 4) {
	case 0:
		break;
	case 1: /* small everything */
		l->file_bytes = 256;
		l->input_bytes = 600;
		l->files_per_dir = 3;
		l->assignments = 12;
		l->entry_bytes = 48;
		l->expansion_bytes = 200;
		l->depth = 3;
		l->result_bytes = 160;
		l->diagnostics = 5;
		break;
	case 2: /* expansion-bound */
		l->entry_bytes = 4096;
		l->expansion_bytes = 64 * 1024;
		l->depth = 8;
		l->result_bytes = 16 * 1024;
		break;
	case 3: /* tiny, down to zero */
		l->file_bytes = profile >> 2 & 63;
		l->input_bytes = profile >> 2 & 127;
		l->files_per_dir = 1;
		l->assignments = 2;
		l->entry_bytes = 3;
		l->expansion_bytes = 2;
		l->depth = 1;
		l->result_bytes = 6;
		l->diagnostics = 1;
		break;
	}
}

static bool is_result_file(const struct envd_result *res, const char *file, bool *user_side)
{
	size_t i, n = envd_result_file_count(res);

	for (i = 0; i < n; i++) {
		const struct envd_file *f = envd_result_file(res, i);

		if (f->path == file || (file && !strcmp(f->path, file))) {
			*user_side = f->user_side;
			return f->state == ENVD_FILE_USED;
		}
	}
	return false;
}

static void check_result(const struct envd_config *cfg, const struct envd_result *res)
{
	const struct envd_limits *l = &cfg->limits;
	size_t i, j, n = envd_result_count(res), total = 0;

	FUZZ_CHECK(n <= l->assignments, "%zu variables, limit %zu assignments", n, l->assignments);
	FUZZ_CHECK(envd_result_var(res, n) == NULL, "a variable past the count");
	for (i = 0; i < n; i++) {
		const struct envd_var *v = envd_result_var(res, i);
		size_t nl;
		bool user_side = false;

		FUZZ_CHECK(v && v->name && v->value, "variable %zu incomplete", i);
		nl = strlen(v->name);
		FUZZ_CHECK(envd_name_valid(v->name, nl), "invalid name \"%s\" in the result",
		           v->name);
		FUZZ_CHECK(v->value[v->value_len] == '\0' && strlen(v->value) == v->value_len,
		           "%s: value_len %zu, strlen %zu", v->name, v->value_len,
		           strlen(v->value));
		FUZZ_CHECK(fuzz_utf8_valid((const unsigned char *)v->value, v->value_len),
		           "%s: value is not valid UTF-8", v->name);
		FUZZ_CHECK(nl + 1 + v->value_len <= l->entry_bytes,
		           "%s: %zu bytes as NAME=VALUE, limit %zu", v->name, nl + 1 + v->value_len,
		           l->entry_bytes);
		FUZZ_CHECK(is_result_file(res, v->file, &user_side),
		           "%s: set from \"%s\", which is not a used file of the result", v->name,
		           v->file ? v->file : "(null)");
		FUZZ_CHECK(v->line >= 1, "%s: line %u", v->name, v->line);
		if (user_side && cfg->policy)
			FUZZ_CHECK(envd_policy_check(cfg->policy, v->name, v->value) == NULL,
			           "%s from the user directory passed a policy that refuses it",
			           v->name);
		FUZZ_CHECK(envd_result_get(res, v->name) == v, "%s: envd_result_get finds another",
		           v->name);
		for (j = 0; j < i; j++)
			FUZZ_CHECK(strcmp(envd_result_var(res, j)->name, v->name) != 0,
			           "%s twice in the result", v->name);
		total += nl + 1 + v->value_len + 1;
	}
	FUZZ_CHECK(total <= l->result_bytes, "result %zu bytes, limit %zu", total, l->result_bytes);
}

static void same_result(const struct envd_result *a, const struct envd_result *b)
{
	size_t i, n = envd_result_count(a);

	FUZZ_CHECK(n == envd_result_count(b), "%zu variables, then %zu from the same tree", n,
	           envd_result_count(b));
	for (i = 0; i < n; i++) {
		const struct envd_var *x = envd_result_var(a, i), *y = envd_result_var(b, i);

		FUZZ_CHECK(!strcmp(x->name, y->name) && x->value_len == y->value_len &&
		               !memcmp(x->value, y->value, x->value_len),
		           "variable %zu differs between two loads of the same tree", i);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_tree_init(&tree, "fuzz_load");
	policy = envd_policy_new(true);
	FUZZ_SETUP(policy != NULL);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_section sec[FUZZ_MAX_SECTIONS];
	size_t n = fuzz_split(data, size, sec, FUZZ_MAX_SECTIONS), k;
	unsigned k0 = fuzz_knob(sec, n, 0), k1 = fuzz_knob(sec, n, 1);
	struct envd_result *res = NULL, *again = NULL;
	struct envd_config cfg;
	struct diags ds;
	bool known[256];
	char **base;
	int r;

	fuzz_tree_build(&tree, sec, n);
	base = fuzz_base_env(sec, n);
	memcpy(known, tree.known, sizeof(known));
	for (k = 0; base[k]; k++) /* names of the base: shown in lint messages */
		fuzz_know(known, base[k], strcspn(base[k], "="));
	for (k = 0; k < n; k++)
		if (sec[k].kind == 'f' && (sec[k].entry == ':' || sec[k].entry == '0'))
			(void)envd_parse((const char *)sec[k].data, sec[k].len, know_key, known);
	if (k0 & 32)
		FUZZ_SETUP(chmod(tree.dirs[FUZZ_USER], 0777) == 0);

	envd_config_init(&cfg);
	cfg.user_dir = (k0 & 16) ? NULL : tree.dirs[FUZZ_USER];
	cfg.system_dirs = tree.sys;
	cfg.user_uid = geteuid();
	cfg.system_uid = geteuid();
	cfg.base_env = (const char *const *)base;
	cfg.flags = k0 & 7;
	cfg.lint = &envd_lint_ops; /* envd's: on with ENVD_LINT */
	cfg.read_here = envd_side_read;
	cfg.policy = (k0 & 8) ? NULL : policy;
	set_limits(&cfg.limits, k1);
	cfg.diag_level = (enum envd_severity)(k0 >> 6);
	ds = (struct diags){known, cfg.diag_level, 0};
	cfg.diag = on_diag;
	cfg.diag_data = &ds;

	r = envd_load(&cfg, &res);
	FUZZ_CHECK(r == 0 && res != NULL, "envd_load returned %d", r);
	check_result(&cfg, res);
	FUZZ_CHECK(ds.count <= 2 * (cfg.limits.diagnostics + 1),
	           "%zu diagnostics reached the callback, limit %zu", ds.count,
	           cfg.limits.diagnostics);
	FUZZ_CHECK(envd_result_diag_count(res) >= ds.count, "diag count %zu, %zu reported",
	           envd_result_diag_count(res), ds.count);

	cfg.diag = NULL;
	r = envd_load(&cfg, &again);
	FUZZ_CHECK(r == 0 && again != NULL, "second envd_load returned %d", r);
	same_result(res, again);

	envd_result_free(again);
	envd_result_free(res);
	fuzz_strv_free(base);
	return 0;
}
