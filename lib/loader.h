/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* loader.h - the state of one envd_load, shared by load.c and lint.c
 * (internal). */
#ifndef ENVD_LOADER_H
#define ENVD_LOADER_H

#include <time.h>

#include "scan.h"

struct envd_result {
	struct envd_store store;
	struct envd_var *vars;   /* malloc'd, pointing into store */
	struct envd_file *files; /* malloc'd, each path malloc'd */
	size_t nfiles;
	struct envd_dir *dirs; /* malloc'd, paths owned by dir_paths */
	char **dir_paths;      /* the loader's, handed over */
	size_t ndirs;
	size_t ndiag;
};

/* One entry of a generator directory (generators.c).  Its state is a
 * file's, as the result keeps it, with its reason:
 * - to run: SKIPPED for ENVD_R_GEN_NOT_RUN until it runs (envd_gen_to_run),
 *   and so when its turn did not come (the child failed); else
 * - USED: ran, and exited 0 (reason NONE) or not (GEN_FAILED, GEN_SIGNAL):
 *   its output is used, as by systemd;
 * - SKIPPED: killed (GEN_KILLED, GEN_TOO_BIG: output dropped), not run
 *   (GEN_LATE, DIR_FULL), refused as unsafe (code ENVD_C_GEN_UNSAFE: it
 *   holds its name, nothing later of it runs), not a regular executable
 *   file (code ENVD_C_GEN_MASKED: holds no name), or this load's own
 *   generator (GEN_ENVD);
 * - MASKED: an earlier directory holds the name;
 * - MASKS: empty, /dev/null or another device: disables the name. */
struct envd_gen {
	char *path; /* directory/name, malloc'd */
	const char *name;
	size_t dir;
	enum envd_file_state state;
	enum envd_reason reason;
	enum envd_code code; /* SKIPPED at the listing: refused or not a generator */
	const struct envd_gen *masked_by;
	char *data; /* its output, malloc'd */
	size_t len;
	size_t file_index; /* its entry in the result's files */
};

struct envd_gens {
	struct envd_gen *v;
	size_t n, cap;
	size_t first_after; /* entries from here on sort after environment.d's own */
	size_t to_run;      /* entries to run (envd_gen_to_run) */
};

static inline bool envd_gen_to_run(const struct envd_gen *e)
{
	return e->state == ENVD_FILE_SKIPPED && e->reason == ENVD_R_GEN_NOT_RUN;
}

/* lint: a user's assignment that a system file replaced, before a later
 * user file built on the system's value (the entry no longer says so) */
struct envd_loss {
	size_t entry; /* its store index */
	size_t seq;   /* the order found */
	const char *file, *by_file;
	unsigned line, by_line;
};

struct loader {
	const struct envd_config *cfg;
	struct envd_result *res;
	struct envd_diag_sink sink;
	struct envd_store base; /* a copy of base_env, first occurrences */
	size_t *base_index;     /* per base entry: its position in base_env */
	struct envd_scan scan;
	struct envd_buf xbuf;       /* expansion output, reused for every value */
	struct envd_buf kbuf, vbuf; /* the parser's, reused for every file */
	char **dir_paths;           /* per directory index, malloc'd, freed by envd_load */
	size_t ndirs;
	size_t input_bytes;
	size_t expansion_left;
	size_t assignments;
	bool assignments_full;
	size_t user_vars;     /* names the user's files added */
	size_t user_vars_cut; /* assignments over limits.user_vars */
	bool budget_said;
	/* the file being parsed */
	const char *file;
	unsigned line;
	bool user_side;
	bool bom;             /* it starts with a UTF-8 byte order mark */
	char user_ref[128];   /* lint: a variable a user file set, referenced by the value */
	const char *cur_name; /* the name being assigned */
	size_t cur_len;
	bool self_ref;            /* lint: its value referenced the name itself, set */
	bool xdg_unset;           /* lint: XDG_DATA_DIRS=...$XDG_DATA_DIRS with it unset */
	struct envd_loss *losses; /* lint, malloc'd, in the order found */
	size_t nlosses, losses_cap;
	/* per directory (an index of dir_paths, so ENVD_MAX_ALL_DIRS: the
	 * administrator's user and group directories count): how it was
	 * searched (read.c tells) */
	enum envd_dir_state dir_state[ENVD_MAX_ALL_DIRS];
	const char *dir_why[ENVD_MAX_ALL_DIRS];
	size_t dir_files[ENVD_MAX_ALL_DIRS];
	/* generators (generators.c) */
	struct envd_gens gens;
	struct timespec user_start; /* the user side's time bound starts here */
	bool raw_values;            /* a generator's output: no expansion, KEY= is empty */
	size_t file_base;           /* the result's files: where the scan's entries start */
};

/* read.c: the reading phases.  Each returns 0 or -ENOMEM; everything else
 * is reported and skipped. */

/* The user directory (ld->dir_paths[0]) into ld->scan: in this process,
 * or in the reader with cfg->user_ids (spawn.c), whose records are checked. */
int envd_read_user(struct loader *ld);
/* The records a reader child sent, checked and decoded into ld->scan (the
 * user directory's entries) as envd_read_user takes them.  0; -EBADMSG
 * when the stream breaks a rule (nothing of it is kept); -ENOMEM.  For
 * the fuzz harness (tests/fuzz/fuzz_records.c). */
int envd_user_records(struct loader *ld, const char *in, size_t n);
/* The system directories from first_dir on; sorts ld->scan and reads the
 * files no earlier directory masks. */
int envd_read_system(struct loader *ld, size_t first_dir);
/* The owner k's check wanted on the user side (user) or the system side. */
void envd_skip_owner(const struct envd_config *cfg, bool user, struct envd_skip *k);

/* The reader's jobs (helper/reader.c): each decodes its records of a
 * request (in[0..n), after the head), does the work with the reader's
 * credentials and writes its answer to fd.  0, -EBADMSG, -ENOMEM, -EIO.
 * read.c: the user directory, and one path (envd_read_path); generators.c:
 * the generators. */
int envd_job_user(const char *in, size_t n, int fd);
int envd_job_path(const char *in, size_t n, int fd);
int envd_job_gens(const char *in, size_t n, int fd);
/* Kills every process below this one, until none is left (generators.c):
 * a subreaper's, after the generators ran; the reader's guard's. */
void envd_sweep_children(void);

/* admin.c: appends to ld->dir_paths the per-user directory of base
 * (admin_dir, root prefix applied) and the user's group directories, in
 * precedence order.  Returns 0 or -ENOMEM; the rest is reported. */
int envd_admin_dirs(struct loader *ld, const char *base);
/* Framing of the records a child sends (read.c): a 32-bit length, a type
 * byte, the fixed fields, then up to two byte strings. */
int envd_rec_put(struct envd_buf *b, char type, const void *fixed, size_t fn, const void *s1,
                 size_t n1, const void *s2, size_t n2);
/* One record of in[0..n) at *pos; false when the framing is broken. */
bool envd_rec_next(const char *in, size_t n, size_t *pos, char *type, const char **body,
                   size_t *len);
int envd_write_all(int fd, const char *p, size_t n);

/* generators.c */

/* Lists and checks the generator directories into ld->gens (reported).
 * 0 or -ENOMEM. */
int envd_gens_list(struct loader *ld);
/* Runs the generators marked to run in a child with the user's
 * credentials, the environment built so far (ld->base and ld->res->store)
 * as theirs, and keeps each one's output in ld->gens (checked as input).
 * 0 or -ENOMEM; everything else is reported. */
int envd_gens_run(struct loader *ld);
/* The records of a generators' child decoded into ld->gens: 0, -EBADMSG
 * (nothing of it is kept), -ENOMEM.  For the fuzz harness too. */
int envd_gens_records(struct loader *ld, const char *in, size_t n);
void envd_gens_free(struct envd_gens *g);

/* The warnings of envd check (ENVD_LINT): hooks the load calls through
 * cfg->lint, which only envd sets (src/check/lint.c, envd_lint_ops); the
 * module's image has none of them. */
struct envd_lint_ops {
	/* The names of dirfd that environment.d does not read.  Returns 0,
	 * -ENOMEM or -EIO. */
	int (*not_conf)(struct loader *ld, int dirfd, const char *dir);
	/* One such name of dir. */
	void (*not_conf_name)(struct loader *ld, const char *dir, const char *name);
	/* The expansion's on_ref hook: unset references, empty defaults, and
	 * a system file's reference to a variable a user file set. */
	void (*on_ref)(const char *name, size_t len, enum envd_ref_kind kind, bool set,
	               size_t value_len, void *data);
	/* Before expansion: '~', command substitution, specifiers, comments. */
	void (*raw)(struct loader *ld, const char *name, const char *v, size_t n);
	/* After expansion: empty PATH components, and (expanded) a refused
	 * name whose value a user file controls. */
	void (*value)(struct loader *ld, const char *name, const char *v, size_t n, bool expanded);
	/* The parser's notes (envd_parse_noting) on the file being parsed. */
	envd_note_fn note;
	/* At the end: every user assignment a later system file replaced. */
	void (*replaced)(struct loader *ld);
};

/* The lint hooks when this load lints (ENVD_LINT and cfg->lint), else
 * NULL. */
static inline const struct envd_lint_ops *envd_linting(const struct loader *ld)
{
	return (ld->cfg->flags & ENVD_LINT) ? ld->cfg->lint : NULL;
}

/* The expansion's reference hook: under lint, and for envd's notices of
 * the names each session sets (cfg->session_names) without it. */
static inline const struct envd_lint_ops *envd_ref_hooks(const struct loader *ld)
{
	return (ld->cfg->flags & ENVD_LINT) || ld->cfg->session_names ? ld->cfg->lint : NULL;
}

#endif
