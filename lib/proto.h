/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* proto.h - what the login sends the reader (helper/reader.c) and how the
 * reader says it could not start (internal).
 *
 * A request is a record stream (envd_rec_put's framing): first REQ_HEAD,
 * struct envd_req_head and the user's supplementary groups (uint32_t
 * each), then the job's own records (read.c: the user directory and one
 * path; generators.c: the generators).  Both ends are the same build:
 * integers in the machine's order, the version checked. */
#ifndef ENVD_PROTO_H
#define ENVD_PROTO_H

#include <stdint.h>

#define ENVD_REQ_VERSION 1u
#define ENVD_REQ_HEAD    'H'
/* Most groups a request carries (the kernel's NGROUPS_MAX). */
#define ENVD_REQ_GROUPS 65536u
/* A request's size at most: the generators' environment is the largest. */
#define ENVD_REQ_MAX (64u << 20)

enum envd_job {
	ENVD_JOB_USER = 'U', /* the user directory (read.c) */
	ENVD_JOB_PATH = 'P', /* one file (read.c) */
	ENVD_JOB_GENS = 'G', /* the generators (generators.c) */
};

struct envd_req_head {
	uint32_t version;
	uint32_t job;
	uint32_t switch_ids; /* 0: the reader keeps the credentials it has */
	uint32_t uid, gid;
	uint32_t budget_ms;
	uint64_t memory_bytes;
	uint8_t programs;
	/* The user's ids are looked up by the reader (spawn.c's
	 * envd_reader_lookup): the next record is REQ_LOOKUP, the reader
	 * answers REC_WHO at once and then reads the job's records, to the
	 * end of its input, and takes the ids it found. */
	uint8_t lookup, pad[6];
};

/* The look-up: struct req_lookup, then the user's name. */
#define ENVD_REQ_LOOKUP 'l'
struct envd_req_lookup {
	uint8_t group_names, pad[7]; /* the groups' names too (admin_dir) */
};

/* The answer: struct envd_rec_who, then the name, the home, the shell,
 * the groups (uint32_t each), and with group_names each group's name
 * NUL-ended (empty: none), in the groups' order. */
#define ENVD_REC_WHO 'W'
struct envd_rec_who {
	int32_t r; /* 0, -ENOENT (no such user), -ENOMEM, -E2BIG */
	uint32_t uid, gid;
	uint32_t ngroups;
	uint32_t name_len, dir_len, shell_len, names_len;
};

/* The reader's only byte when it could not take the credentials or drop
 * its privileges; its exit status when the exec failed. */
#define ENVD_READER_SETUP_FAILED 'X'
#define ENVD_READER_NO_EXEC      127

/* ---- the jobs' records ---- */

#include "envd.h" /* struct envd_limits */

/* The user side's (read.c decodes, userside.c encodes) and one path's
 * (path.c). */
/* A record: a 32-bit length (of what follows), a type byte, the fields.
 * Integers in the machine's order: both ends are the same program. */
enum rec_type {
	REC_DIR = 'D',      /* struct rec_dir */
	REC_FILE = 'F',     /* struct rec_file, the name, the contents */
	REC_NOT_CONF = 'N', /* a name (lint) */
	REC_END = 'E',      /* struct rec_end: nothing follows */
	REC_PATH = 'P',     /* envd_read_path: struct rec_path, the contents */
};

/* where_len bytes of the directory a refusal found follow (PARENT_*) */
struct rec_dir {
	int32_t r;
	uint32_t reason;
	uint32_t dropped;
	uint32_t owner;
	uint16_t where_len;
	uint8_t group, list_error, truncated, pad[3];
};

struct rec_file {
	uint32_t code;
	uint32_t reason;
	uint32_t owner;
	uint16_t name_len;
	uint8_t state, group, pad[4];
};

struct rec_end {
	uint32_t late;
	uint8_t links_cut, private_group, pad[2];
};

struct rec_path {
	int32_t r;
	uint32_t reason;
	uint32_t owner;
	uint32_t pad;
	uint64_t dev, ino;
};

/* The user directory's job, as the request carries it. */
#define REQ_USER 'u'

struct req_user {
	struct envd_limits limits;
	uint32_t user_uid, user_gid;
	uint32_t dir_len; /* the directory's bytes, then the user's name */
	uint8_t has_name, lint, pad[2];
};

/* One file's job, as the request carries it. */
#define REQ_PATH 'p'

struct req_path {
	uint64_t max;
	uint32_t owner;
	uint8_t any_owner, pad[3];
};

/* The generators' (generators.c requests and decodes, genrun.c runs). */
/* A generator's record: its index in the caller's list, what became of
 * it, then its output. */
#define REC_GEN     'G'
#define REC_GEN_END 'Z'

struct rec_gen {
	uint32_t index;
	uint32_t reason;
	uint8_t state, pad[3];
};

/* The generators' job, as the request carries it: 'g' (struct req_gens),
 * then an entry's path for each of the caller's list ('x', struct
 * req_gen), then the environment: 'b' what the generators before
 * environment.d's place get, 'r' what environment.d added, each a name
 * and a value. */
#define REQ_GENS  'g'
#define REQ_GEN   'x'
#define REQ_ENV_B 'b'
#define REQ_ENV_R 'r'

struct req_gens {
	uint32_t ms;
	uint32_t n;
	uint32_t first_after;
};

struct req_gen {
	uint8_t to_run, pad[3];
};

struct req_var {
	uint32_t name_len;
};

#endif
