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

#endif
