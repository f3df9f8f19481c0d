/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* scan.c - which files of which directories are in effect.
 *
 * systemd's rules: names ending in ".conf" only, hidden names skipped; one
 * list sorted by basename with strcmp; the highest-precedence directory that
 * holds a name masks the same name everywhere below it, whatever the entry
 * is (empty file, /dev/null, directory, dangling symlink). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scan.h"

static bool has_conf_suffix(const char *name)
{
	size_t len = strlen(name);

	return len > 5 && strcmp(name + len - 5, ".conf") == 0;
}

/* Whether the entry is a directory (not followed, as d_type tells it).
 * File systems without d_type (some NFS, XFS without ftype) say
 * DT_UNKNOWN: then fstatat decides, and an entry it cannot examine counts
 * as not a directory. */
static bool is_dir(int dirfd, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* A listing of dirfd from its start, on a descriptor of its own: dirfd's
 * offset is left alone, so that a directory can be listed twice. */
static DIR *open_listing(int dirfd)
{
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	DIR *d;

	if (fd < 0)
		return NULL;
	d = fdopendir(fd);
	if (!d)
		close(fd);
	return d;
}

int envd_list_dir(int dirfd, size_t max, envd_list_fn each, void *data, bool *truncated)
{
	struct dirent *de;
	size_t seen = 0;
	DIR *d = open_listing(dirfd);
	int r = 0;

	*truncated = false;
	if (!d)
		return errno == ENOMEM ? -ENOMEM : -EIO;
	for (;;) {
		/* readdir is thread-safe on a stream of its own (readdir_r is
		 * deprecated) */
		errno = 0;
		// cppcheck-suppress readdirCalled
		de = readdir(d);
		if (de == NULL) {
			r = errno == 0 ? 0 : errno == ENOMEM ? -ENOMEM : -EIO;
			break;
		}
		if (++seen > max) {
			*truncated = true;
			break;
		}
		r = each(dirfd, de, data);
		if (r < 0)
			break;
	}
	closedir(d);
	return r;
}

int envd_scan_push(struct envd_scan *sc, const char *name, size_t len, size_t dir,
                   unsigned char type)
{
	struct envd_scan_entry *e;

	if (sc->n == sc->cap) {
		struct envd_scan_entry *nv = envd_grow(sc->v, &sc->cap, sizeof(*nv), 64);

		if (!nv)
			return -ENOMEM;
		sc->v = nv;
	}
	e = &sc->v[sc->n];
	memset(e, 0, sizeof(*e));
	e->name = envd_memdup0(name, len);
	if (!e->name)
		return -ENOMEM;
	e->dir = dir;
	e->type = type;
	e->state = ENVD_FILE_SKIPPED;
	e->reason = ENVD_R_NOT_READ;
	e->code = ENVD_C_FILE_ERROR;
	sc->n++;
	return 0;
}

/* strcmp order of the names, precedence breaking ties */
static int by_name(const void *a, const void *b)
{
	const struct envd_scan_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->dir < y->dir ? -1 : x->dir > y->dir;
}

struct scan_pass {
	struct envd_scan *sc;
	size_t dir, nconf;
	struct envd_scan_report *rep;
};

static int scan_one(int dirfd, const struct dirent *de, void *data)
{
	struct scan_pass *p = data;
	int r;

	if (de->d_name[0] == '.')
		return 0;
	if (!has_conf_suffix(de->d_name)) {
		if (!is_dir(dirfd, de))
			p->rep->not_conf++;
		return 0;
	}
	r = envd_scan_push(p->sc, de->d_name, strlen(de->d_name), p->dir, de->d_type);
	if (r == 0)
		p->nconf++;
	return r;
}

int envd_scan_dir(struct envd_scan *sc, int dirfd, size_t dir, size_t max_files,
                  struct envd_scan_report *rep)
{
	struct scan_pass p = {.sc = sc, .dir = dir, .rep = rep};
	size_t first = sc->n, nconf, i;
	int r;

	memset(rep, 0, sizeof(*rep));
	r = envd_list_dir(dirfd, envd_scan_listed(max_files), scan_one, &p, &rep->truncated);
	nconf = p.nconf;
	if (r == -ENOMEM)
		return r;

	/* Over the limit: keep the first ones in strcmp order, so which files
	 * survive does not depend on the directory's internal order. */
	if (nconf > max_files) {
		qsort(sc->v + first, nconf, sizeof(*sc->v), by_name);
		/* the rest is not read, but still holds its name: it masks */
		for (i = first + max_files; i < sc->n; i++) {
			sc->v[i].state = ENVD_FILE_SKIPPED;
			sc->v[i].code = ENVD_C_LIMIT;
			sc->v[i].reason = ENVD_R_DIR_FULL;
		}
		rep->dropped = nconf - max_files;
	}
	return r;
}

struct not_conf_pass {
	void (*cb)(const char *name, void *data);
	void *data;
};

static int not_conf_one(int dirfd, const struct dirent *de, void *data)
{
	struct not_conf_pass *p = data;

	if (de->d_name[0] != '.' && !has_conf_suffix(de->d_name) && !is_dir(dirfd, de))
		p->cb(de->d_name, p->data);
	return 0;
}

int envd_scan_not_conf(int dirfd, size_t max, void (*cb)(const char *name, void *data), void *data)
{
	struct not_conf_pass p = {.cb = cb, .data = data};
	bool truncated;
	int r = envd_list_dir(dirfd, max, not_conf_one, &p, &truncated);

	return r == -ENOMEM ? r : 0;
}

void envd_scan_sort(struct envd_scan *sc)
{
	size_t i;

	if (sc->n < 2)
		return;
	qsort(sc->v, sc->n, sizeof(*sc->v), by_name);
	for (i = 1; i < sc->n; i++)
		if (strcmp(sc->v[i].name, sc->v[i - 1].name) == 0) {
			sc->v[i].masked_by =
			    sc->v[i - 1].masked_by ? sc->v[i - 1].masked_by : &sc->v[i - 1];
			sc->v[i].state = ENVD_FILE_MASKED;
			if (sc->v[i].reason == ENVD_R_NOT_READ) /* nor will it be */
				sc->v[i].reason = ENVD_R_NONE;
		}
}

void envd_scan_free(struct envd_scan *sc)
{
	size_t i;

	for (i = 0; i < sc->n; i++) {
		free(sc->v[i].name);
		free(sc->v[i].data);
		free(sc->v[i].where);
	}
	free(sc->v);
	memset(sc, 0, sizeof(*sc));
}
