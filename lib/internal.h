/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* internal.h - shared between the engine's files; not installed. */
#ifndef ENVD_INTERNAL_H
#define ENVD_INTERNAL_H

#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#include "buf.h"
#include "child.h"
#include "envd.h"

#define ENVD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* A switch case that goes on into the next: GCC takes a comment, clang
 * only the attribute (-Wimplicit-fallthrough). */
#if defined(__has_attribute)
#if __has_attribute(fallthrough)
#define ENVD_FALLTHROUGH __attribute__((fallthrough))
#endif
#endif
#ifndef ENVD_FALLTHROUGH
#define ENVD_FALLTHROUGH                                                                           \
	do {                                                                                       \
	} while (0)
#endif

/* Directories of one load at most: the user's and the system ones
 * (ENVD_MAX_DIRS), the administrator's for the user and for its groups. */
#define ENVD_MAX_ALL_DIRS (ENVD_MAX_DIRS + 1u + ENVD_MAX_ADMIN_GROUPS)

/* The largest limits the engine takes, far above anything a machine can
 * hold, so that the arithmetic on them cannot wrap: a byte count plus one
 * or times three (the reader's memory, spawn.c), a count times sixteen (scan.c), a
 * time in ms as a 32-bit timer's. */
#define ENVD_LIMIT_BYTES (SIZE_MAX / 8)
#define ENVD_LIMIT_COUNT (SIZE_MAX / 64)
#define ENVD_LIMIT_MS    (UINT32_MAX / 2)
static inline size_t envd_at_most(size_t v, size_t max)
{
	return v > max ? max : v;
}

/* The characters of a variable name (names.c has the whole checks). */
static inline bool envd_name_start(char c) /* a letter or '_' */
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static inline bool envd_name_char(char c) /* a letter, a digit or '_' */
{
	return envd_name_start(c) || (c >= '0' && c <= '9');
}

/* A name that can be one component of a path: not empty, ".", "..", no
 * '/', no control character, at most ENVD_MAX_COMPONENT bytes (admin.c). */
bool envd_path_component(const char *s);

/* ---- the default policy (policy.c) ---- */
struct envd_policy_entry {
	const char *pattern; /* a glob ('*', '?') that starts with a literal */
	const char *reason;
	/* value rules only: true when value makes the name refused */
	bool (*refuses)(const char *value);
};
/* Three tables, each in strcmp order of pattern and terminated by a NULL
 * pattern: the names refused, the names allowed back from those (each
 * with why it is harmless), and the names refused for some values. */
extern const struct envd_policy_entry envd_default_deny[];
extern const struct envd_policy_entry envd_default_exceptions[];
extern const struct envd_policy_entry envd_value_rules[];

/* ---- parser and expansion (parse.c, expand.c) ---- */

/* The parser (envd_parse_with below) calls cb for each assignment of a
 * file's bytes (no NUL inside, systemd's env-file syntax) with the raw
 * (unexpanded) value; key and value are NUL-terminated at key_len and
 * value_len; value is NULL when the line set nothing (KEY= or KEY="").
 * cb returns 0 to go on. */
typedef int (*envd_assign_fn)(const char *key, size_t key_len, const char *value, size_t value_len,
                              bool has_value, unsigned line, void *data);

/* Expansion lookup: returns the value of name (len bytes) or NULL if unset. */
typedef const char *(*envd_lookup_fn)(const char *name, size_t len, size_t *value_len, void *data);
enum envd_ref_kind {
	ENVD_REF_PLAIN,     /* $X or ${X} */
	ENVD_REF_DEFAULT,   /* the X of ${X:-word} */
	ENVD_REF_ALTERNATE, /* the X of ${X:+word} */
};
struct envd_expand_state {
	size_t budget;  /* substituted bytes still allowed (decremented) */
	size_t max_out; /* maximum bytes of one output */
	size_t max_depth;
	envd_lookup_fn lookup;
	void *lookup_data;
	/* lint hook (may be NULL): called for each variable looked up */
	void (*on_ref)(const char *name, size_t len, enum envd_ref_kind kind, bool set,
	               size_t value_len, void *data);
	size_t depth; /* current nesting, internal */
};

/* ---- byte buffers: struct envd_buf is in buf.h ---- */
/* malloc'd "a" sep "b": a path or a NAME=VALUE string; NULL without memory. */
char *envd_join(const char *a, char sep, const char *b);
/* The array v (of elements of size bytes, *cap of them) with twice the
 * room, or first elements when it has none; *cap updated.  NULL without
 * memory (v is left as it was). */
void *envd_grow(void *v, size_t *cap, size_t size, size_t first);
/* A malloc'd, NUL-terminated copy of n bytes of s; NULL without memory. */
char *envd_memdup0(const char *s, size_t n);

/* Expands in[0..len) into b (emptied first; its cap becomes st->max_out).
 * Returns 0, -ENOMEM, or -E2BIG (output or budget exceeded), -ELOOP
 * (nesting too deep). */
int envd_expand_buf(struct envd_expand_state *st, const char *in, size_t len, struct envd_buf *b);

/* Parses buf with the caller's key and value buffers (emptied, not
 * freed), calling cb.  Returns 0, -ENOMEM, or the first non-zero value cb
 * returned. */
int envd_parse_with(const char *buf, size_t len, envd_assign_fn cb, void *data,
                    struct envd_buf *key, struct envd_buf *value);

/* What a line reads as that it does not look like (lint): the parser
 * tells note, with the line and the key so far (not NUL-terminated; for
 * NO_EQUALS the line's text, which may hold a value). */
enum envd_parse_note {
	ENVD_NOTE_NO_EQUALS,   /* text without '=': the line is dropped */
	ENVD_NOTE_OPEN_QUOTE,  /* a quote still open at the end of the input */
	ENVD_NOTE_AFTER_QUOTE, /* blanks, then text, after a closing quote */
	ENVD_NOTE_INNER_QUOTE, /* a quote character inside an unquoted run */
	/* a comment ending in a backslash before a line that is read: systemd
	 * before 254 continues the comment over that line */
	ENVD_NOTE_COMMENT_BACKSLASH,
};
typedef void (*envd_note_fn)(enum envd_parse_note note, unsigned line, const char *key,
                             size_t key_len, void *data);
/* envd_parse_with, telling note (may be NULL) as well. */
int envd_parse_noting(const char *buf, size_t len, envd_assign_fn cb, void *data,
                      struct envd_buf *key, struct envd_buf *value, envd_note_fn note);

/* ---- diagnostics ---- */
struct envd_diag_sink {
	envd_diag_fn fn;
	void *data;
	enum envd_severity level; /* least severe reported */
	size_t max;               /* reported at most, per class */
	size_t count;             /* produced */
	size_t class_count[2];    /* produced: problems (error, warning), tracing */
	bool suppressed_said[2];
};

void envd_diag_emit(struct envd_diag_sink *s, enum envd_severity sev, enum envd_code code,
                    const char *file, unsigned line, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
/* Reports one diagnostic, when the sink wants its severity: the test is
 * inline, so tracing that nobody asked for costs no call. */
#define envd_diagf(s, sev, ...)                                                                    \
	do {                                                                                       \
		if ((s)->fn && (sev) <= (s)->level)                                                \
			envd_diag_emit((s), (sev), __VA_ARGS__);                                   \
	} while (0)

/* ---- ordered, hash-indexed variable store ---- */
struct envd_entry {
	char *name; /* NUL-terminated; one malloc'd block with the value */
	char *value;
	size_t name_len;
	size_t value_len;
	uint64_t hash;
	const char *file; /* not owned */
	unsigned line;
	bool user_side; /* set from the user directory */
	/* lint: the user's assignment a later system file replaced */
	const char *replaced_file;
	unsigned replaced_line;
};

struct envd_store {
	struct envd_entry *v; /* order of first definition */
	size_t n, cap;
	uint32_t *slots; /* index+1 into v, 0 = empty; open addressing */
	size_t nslots;
	size_t bytes; /* sum of name_len + value_len + 2 */
};

void envd_store_init(struct envd_store *s);
void envd_store_free(struct envd_store *s);
/* Index of name, or SIZE_MAX. */
size_t envd_store_find(const struct envd_store *s, const char *name, size_t len);
/* SipHash-1-3 of s with key: envd_hash with the process's random key. */
uint64_t envd_siphash13(const uint64_t key[2], const char *s, size_t n);
/* The keyed hash of a name, with the process's key (made once, thread-safe). */
uint64_t envd_hash(const char *s, size_t n);
/* envd_store_find with the hash of name computed once by the caller. */
size_t envd_store_find_h(const struct envd_store *s, const char *name, size_t len, uint64_t h);
/* Sets name (hash h) to value (both copied).  Returns 0 or -ENOMEM. */
int envd_store_set_h(struct envd_store *s, const char *name, size_t name_len, uint64_t h,
                     const char *value, size_t value_len, const char *file, unsigned line,
                     bool user_side);

/* ---- safe file access (fileio.c) ---- */

/* Why a directory or file was skipped or only masks: one list, so that
 * the reader in a child process can say it with a number (read.c) and the
 * text stays the parent's own. */
enum envd_reason {
	ENVD_R_NONE,
	ENVD_R_OOM,
	ENVD_R_EXAMINE,
	ENVD_R_PARENT_EXAMINE,
	ENVD_R_READ_ERROR,
	ENVD_R_PSEUDO_FS,
	ENVD_R_NOT_DIR,
	ENVD_R_OWNER,
	ENVD_R_WRITABLE,
	ENVD_R_GROUP_SHARED,
	ENVD_R_PARENT_OWNER,
	ENVD_R_PARENT_WRITABLE,
	ENVD_R_PARENTS_DEEP,
	ENVD_R_UNSAFE_PATH,
	ENVD_R_MISSING,
	ENVD_R_DENIED,
	ENVD_R_LOOP,
	ENVD_R_LINK_BUDGET,
	ENVD_R_STICKY_LINK,
	ENVD_R_NAME_LONG,
	ENVD_R_OPEN,
	ENVD_R_TOO_BIG,
	ENVD_R_DANGLING,
	ENVD_R_IS_DIR,
	ENVD_R_DEV_NULL,
	ENVD_R_NOT_REGULAR,
	ENVD_R_EMPTY,
	ENVD_R_DIR_FULL,
	ENVD_R_INPUT_FULL,
	ENVD_R_LATE,
	ENVD_R_NOT_READ,
	ENVD_R_LSM_DENIED,
	/* user environment generators */
	ENVD_R_NOT_EXEC,
	ENVD_R_GEN_ENVD,
	ENVD_R_GEN_FAILED,
	ENVD_R_GEN_SIGNAL,
	ENVD_R_GEN_KILLED,
	ENVD_R_GEN_TOO_BIG,
	ENVD_R_GEN_LATE,
	ENVD_R_GEN_NOT_RUN,
	ENVD_R_COUNT
};
/* The text of a reason; an unknown number reads as "cannot be read". */
const char *envd_reason_text(enum envd_reason r);

/* What a refusal found, for the fix a message names: filled by the checks
 * when envd_check.detail points here. */
#define ENVD_WHERE_MAX 4096
struct envd_detail {
	uid_t owner;       /* OWNER, PARENT_OWNER, UNSAFE_PATH: the owner found */
	bool others_write; /* UNSAFE_PATH: the directory is writable by others */
	/* PARENT_OWNER, PARENT_WRITABLE, UNSAFE_PATH: that directory's path
	 * as the kernel names it, or "" when it cannot be had */
	char where[ENVD_WHERE_MAX];
};
/* A skip, for its message. */
struct envd_skip {
	enum envd_reason reason;
	const char *path;
	bool dir;  /* path is a directory */
	bool user; /* on the user side */
	/* what the check found (struct envd_detail) */
	uid_t owner;
	bool others_write;
	const char *where; /* or NULL */
	const char *who;   /* the owner the check wanted, by name; NULL: want */
	const char *done;  /* what became of it; NULL: "skipped" */
	uid_t want;
};
/* The whole text of a skip, for a diagnostic: the reason's text, what the
 * check found, "skipped", and the command that fixes it (one line).  Into
 * buf (size bytes, always NUL-terminated); returns buf. */
const char *envd_skip_text(char *buf, size_t size, const struct envd_skip *k);

/* What one side of a load may still spend on following symbolic links,
 * and what the last check relied on. */
struct envd_walk {
	size_t links_left;
	bool links_cut;  /* the budget ran out: something was not opened */
	bool group_used; /* the last check accepted group write by group_ok */
};

struct envd_check {
	uid_t owner_a; /* allowed owners; owner_a also owns links in sticky dirs */
	uid_t owner_b;
	/* The user side: write by this group (the owner's primary group) is
	 * accepted provisionally and noted in walk->group_used; the caller
	 * accepts it only when the group is the owner's private group.
	 * (gid_t)-1: no group write is accepted. */
	gid_t group_ok;
	/* The system side: every directory a path passes through, links
	 * followed, is owned by an allowed owner (or root) and writable by no
	 * one else, unless root's and sticky. */
	bool safe_dirs;
	/* No owner and no write rule: a file root reads as configuration it
	 * already trusts, as the program that reads it would (envd audit's
	 * PAM files).  The walk's rules, the type, the file system and the
	 * cap still hold. */
	bool any_owner;
	struct envd_walk *walk;     /* the side's link budget, or NULL: no budget */
	struct envd_detail *detail; /* what a refusal found, or NULL */
};

/* Opens a directory, walked one component at a time, and checks it on the
 * descriptor; for the user side (user_side) every directory above it is
 * checked too.  Returns the descriptor, or a negative errno with
 * *reason: -ENOENT (missing), -EPERM (refused by a check: owner, mode,
 * type, file system, how it was reached), -EMLINK (chk's link budget ran
 * out), -ENOMEM, another errno (cannot be opened or examined).  *dev is the
 * directory's device. */
int envd_open_dir(const char *path, const struct envd_check *chk, bool user_side,
                  enum envd_reason *reason, dev_t *dev);
/* What envd_read_file found: the file's state (the one enum a file has
 * from the reader through the scan to the result): USED with its contents
 * (malloc'd, NUL-terminated), MASKS when it is no file to read and only
 * masks its name (empty, /dev/null, a directory, a dangling link: reason
 * says which), SKIPPED with the reason, the diagnostic's code and the
 * errno (-EPERM refused by a check, -EFBIG over the cap, -EMLINK the link
 * budget ran out, -ENOMEM, another errno: cannot be opened, examined or
 * read); and which file it was (its device and inode, for a caller that
 * follows includes). */
struct envd_read {
	enum envd_file_state state;
	char *data;
	size_t len;
	enum envd_reason reason;
	enum envd_code code;
	int err;
	dev_t dev;
	ino_t ino;
};
/* What the listing knew of an entry: its d_type (DT_REG opens it at once,
 * without the walk) and its directory's device (a file on the same one
 * needs no fstatfs of its own). */
struct envd_entry_hint {
	unsigned char type;
	bool dev_known;
	dev_t dir_dev;
};
/* Opens name in dirfd (or a path: AT_FDCWD), checks the descriptor and
 * reads at most max bytes: the one reader of every file the tree reads.
 * Returns out->state. */
enum envd_file_state envd_read_file(int dirfd, const char *name, const struct envd_entry_hint *hint,
                                    const struct envd_check *chk, size_t max,
                                    struct envd_read *out);
/* Looks at name in dirfd through the walk (its links followed by their
 * text, every directory on the way checked as chk says) without opening
 * what it names for reading: *st is what the last component is (not a
 * link).  Returns 0, -ENOENT (missing or a dangling link), or a negative
 * errno with *reason: -EPERM (refused by the walk: how it is reached),
 * -ENOMEM, another errno.  The caller checks *st. */
int envd_stat_entry(int dirfd, const char *name, const struct envd_check *chk, struct stat *st,
                    enum envd_reason *reason);
/* Whether st, open as fd (-1: not open), is writable by someone other
 * than its owner (group write by chk->group_ok excepted and noted, as for
 * files, unless an ACL lets a named user or group, or its mask, write). */
bool envd_others_write(const struct envd_check *chk, int fd, const struct stat *st);

/* clock.c: CLOCK_MONOTONIC, the one place the engine reads the time. */
struct timespec;
/* *until = now + ms; false without a clock (the bound is then spent). */
bool envd_deadline(size_t ms, struct timespec *until);
/* Milliseconds since *start; SIZE_MAX without a clock. */
size_t envd_ms_since(const struct timespec *start);
/* Milliseconds left until *until, 0 when past or without a clock, at most
 * INT_MAX (a poll's timeout). */
long envd_ms_until(const struct timespec *until);

#endif
