/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* scan.h - directory listing and masking (internal). */
#ifndef ENVD_SCAN_H
#define ENVD_SCAN_H

#include "internal.h"

struct envd_scan_entry {
	char *name;                        /* basename */
	size_t dir;                        /* index of the directory, 0 = highest precedence */
	struct envd_scan_entry *masked_by; /* set by envd_scan_sort */
	/* The file's state as the result keeps it (envd_read_file's): a
	 * listed entry is SKIPPED for ENVD_R_NOT_READ until it is read
	 * (envd_scan_unread), MASKED when envd_scan_sort finds it masked. */
	enum envd_file_state state;
	enum envd_reason reason;
	enum envd_code code; /* diagnostic code when SKIPPED */
	bool group_write;    /* USED: relies on write by the owner's primary group */
	uid_t owner;         /* SKIPPED for ENVD_R_OWNER, ENVD_R_UNSAFE_PATH: the owner found */
	bool others_write;   /* SKIPPED for ENVD_R_UNSAFE_PATH (struct envd_detail) */
	char *where;         /* SKIPPED for ENVD_R_UNSAFE_PATH: that directory, malloc'd, or NULL */
	unsigned char type;  /* d_type from the listing (DT_UNKNOWN: none) */
	char *data;          /* contents, when USED (malloc'd) */
	size_t len;
};

struct envd_scan {
	struct envd_scan_entry *v; /* each entry owns its name and data */
	size_t n, cap;
};

struct envd_scan_report {
	size_t not_conf; /* entries without the .conf suffix */
	size_t dropped;  /* .conf files over the per-directory limit */
	bool truncated;  /* stopped listing: far too many entries */
};

/* Directory entries listed at most for max_files .conf names: sixteen
 * times as many, then the listing stops. */
static inline size_t envd_scan_listed(size_t max_files)
{
	return max_files > SIZE_MAX / 16 ? SIZE_MAX : max_files * 16;
}

/* Listed and not read (yet). */
static inline bool envd_scan_unread(const struct envd_scan_entry *e)
{
	return e->state == ENVD_FILE_SKIPPED && e->reason == ENVD_R_NOT_READ;
}

/* The one directory lister: dirfd's entries, from its start, on a
 * descriptor of its own, at most max of them (*truncated when there were
 * more), each through each until it returns a negative errno.  Returns
 * 0, that errno, -ENOMEM, or -EIO when the listing failed part way. */
struct dirent;
typedef int (*envd_list_fn)(int dirfd, const struct dirent *de, void *data);
int envd_list_dir(int dirfd, size_t max, envd_list_fn each, void *data, bool *truncated);
/* Appends name (len bytes, copied) of directory dir, unread.  Returns 0
 * or -ENOMEM. */
int envd_scan_push(struct envd_scan *sc, const char *name, size_t len, size_t dir,
                   unsigned char type);
/* Lists dirfd's .conf names as directory number dir.  Returns 0, -ENOMEM,
 * or -EIO when the listing failed part way (the names read so far are
 * kept). */
int envd_scan_dir(struct envd_scan *sc, int dirfd, size_t dir, size_t max_files,
                  struct envd_scan_report *rep);
/* The names without .conf that are not directories, one at a time through
 * cb (lint).  Returns 0, -ENOMEM or -EIO. */
int envd_scan_not_conf(int dirfd, size_t max, void (*cb)(const char *name, void *data), void *data);
/* Sorts by basename (strcmp), precedence breaking ties, and marks masked. */
void envd_scan_sort(struct envd_scan *sc);
void envd_scan_free(struct envd_scan *sc);

#endif
