/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* side.h - the user side's state while it is read (struct envd_side), and
 * the small sums both ends of the user side's records use: read.c, in the
 * login, decodes and checks what the reader found; userside.c, in the
 * reader (and in envd run by the user), reads and encodes it (internal). */
#ifndef ENVD_SIDE_H
#define ENVD_SIDE_H

#include "loader.h"
#include "proto.h"

static inline size_t sat_mul(size_t a, size_t b)
{
	return b != 0 && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

static inline size_t sat_add(size_t a, size_t b)
{
	return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* Directory entries listed at most (envd_scan_listed). */
static inline size_t max_listed(const struct envd_limits *lim)
{
	return envd_scan_listed(lim->files_per_dir);
}

/* What reading the user directory found besides its entries, which go to
 * ld->scan (directory 0) from index first on. */
struct envd_side {
	size_t first;
	int dir_r; /* 0: opened and listed; else the negative errno */
	enum envd_reason dir_reason;
	struct envd_detail dir_detail; /* what a refusal of the directory found */
	bool dir_group;                /* the directory or a parent relies on group write */
	bool list_error;
	bool truncated;
	size_t dropped;
	size_t late; /* files not read for the time limit */
	bool links_cut;
	struct envd_buf not_conf; /* lint: names without .conf, each NUL-ended */
	size_t n_not_conf;
	bool failed; /* the child failed: said, nothing more to say */
	/* whether the user's group is private, as the reader decided it
	 * (within the bound) where it relied on group write: 0 not asked,
	 * 1 private, 2 not (or unknown) */
	uint8_t private_group;
};

/* What a child's stream may hold at most: every byte the load may read,
 * and a record for every entry the listings may hold. */
static inline size_t stream_cap(const struct envd_limits *lim)
{
	size_t per_entry = 4 + 1 + sizeof(struct rec_file) + 256;

	return sat_add(sat_add(lim->input_bytes, sat_mul(sat_mul(max_listed(lim), 2), per_entry)),
	               4096);
}

/* The budget a child's own reading keeps to, within the caller's: what is
 * read in time counts, and the records still reach the caller. */
static inline size_t child_ms(size_t ms)
{
	return ms - ms / 4;
}

/* Group write is accepted only by the owner's private group; the reader
 * noted where it relied on it, and NSS is asked here, only then.
 * Returns 0 or -ENOMEM. */
/* The directory or a file read relied on group write. */
static inline bool relies_on_group(const struct loader *ld, const struct envd_side *s)
{
	bool any = s->dir_group;

	for (size_t i = s->first; i < ld->scan.n && !any; i++)
		any = ld->scan.v[i].group_write;
	return any;
}

/* read.c: one listed file of a directory on device dev into e.  0 or
 * -ENOMEM. */
int envd_read_one(struct loader *ld, int dirfd, dev_t dev, struct envd_scan_entry *e,
                  const struct envd_check *chk);
/* userside.c: the user directory into ld->scan and s, within ms, in the
 * process that is the user; says nothing (in the reader there is no one to
 * tell).  0 or -ENOMEM.  cfg->read_here for envd run by the user. */
int envd_side_read(struct loader *ld, struct envd_side *s, size_t ms);

#endif
