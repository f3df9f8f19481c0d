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
#include <unistd.h>

#include "scan.h"

static bool has_conf_suffix(const char *name, size_t len)
{
	return len > 5 && memcmp(name + len - 5, ".conf", 5) == 0;
}

static int push_name(struct envd_scan *sc, const char *name, size_t len, size_t dir)
{
	struct envd_scan_entry *e;

	if (sc->n == sc->cap) {
		size_t cap = sc->cap ? sc->cap * 2 : 64;
		struct envd_scan_entry *nv = realloc(sc->v, cap * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		sc->v = nv;
		sc->cap = cap;
	}
	e = &sc->v[sc->n];
	memset(e, 0, sizeof(*e));
	e->name = envd_arena_memdup0(&sc->mem, name, len);
	if (!e->name)
		return -ENOMEM;
	e->dir = dir;
	sc->n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	const struct envd_scan_entry *x = a, *y = b;
	int c = envd_strcmp(x->name, y->name);

	if (c)
		return c;
	return x->dir < y->dir ? -1 : x->dir > y->dir;
}

static void sift_down(struct envd_scan_entry *v, size_t root, size_t n)
{
	struct envd_scan_entry t;
	size_t child;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && by_name(&v[child], &v[child + 1]) < 0)
			child++;
		if (by_name(&v[root], &v[child]) >= 0)
			return;
		t = v[root];
		v[root] = v[child];
		v[child] = t;
		root = child;
	}
}

/* Sorts n entries (no two compare equal): an insertion sort for the handful
 * of files most directories hold, a heap sort beyond, O(n log n) with no
 * memory and no libc qsort to import. */
static void sort_entries(struct envd_scan_entry *v, size_t n)
{
	struct envd_scan_entry t;
	size_t i, j;

	if (n > 16) {
		for (i = n / 2; i-- > 0;)
			sift_down(v, i, n);
		for (i = n; i-- > 1;) {
			t = v[0];
			v[0] = v[i];
			v[i] = t;
			sift_down(v, 0, i);
		}
		return;
	}
	for (i = 1; i < n; i++) {
		t = v[i];
		for (j = i; j > 0 && by_name(&v[j - 1], &t) > 0; j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

int envd_scan_dir(struct envd_scan *sc, int dirfd, size_t dir, size_t max_files,
                  struct envd_scan_report *rep)
{
	size_t first = sc->n, seen = 0, nconf = 0, i, keep;
	struct dirent *de;
	DIR *d;
	int fd, r = 0;

	memset(rep, 0, sizeof(*rep));
	fd = dup(dirfd);
	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : -EIO;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	/* cppcheck-suppress readdirCalled ; readdir_r is deprecated, this DIR is ours alone */
	while ((errno = 0, de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (++seen > max_files * 16) {
			rep->truncated = true;
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		if (!has_conf_suffix(de->d_name, len)) {
			if (de->d_type != DT_DIR)
				rep->not_conf++;
			continue;
		}
		r = push_name(sc, de->d_name, len, dir);
		if (r < 0)
			break;
		nconf++;
	}
	if (!de && errno && r == 0)
		rep->read_error = true;
	closedir(d);
	if (r < 0)
		return r;

	/* Over the limit: keep the first ones in strcmp order, so which files
	 * survive does not depend on the directory's internal order. */
	if (nconf > max_files) {
		sort_entries(sc->v + first, nconf);
		keep = first + max_files;
		/* the rest is not read, but still holds its name: it masks */
		for (i = keep; i < sc->n; i++) {
			sc->v[i].status = ENVD_SCAN_SKIPPED;
			sc->v[i].code = ENVD_C_LIMIT;
			sc->v[i].reason = "over the limit of files per directory";
		}
		rep->dropped = nconf - max_files;
	}
	return 0;
}

/* Returns the "not .conf" names of a directory one at a time through cb;
 * used by lint only. */
int envd_scan_not_conf(int dirfd, size_t max, void (*cb)(const char *name, void *data), void *data)
{
	struct dirent *de;
	size_t seen = 0;
	DIR *d;
	int fd;

	/* a descriptor of its own, from the start (a duplicate would share the
	 * offset that the first listing left at the end) */
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -EIO;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	/* cppcheck-suppress readdirCalled ; readdir_r is deprecated, this DIR is ours alone */
	while ((de = readdir(d)) && seen++ < max) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] == '.' || has_conf_suffix(de->d_name, len) ||
		    de->d_type == DT_DIR)
			continue;
		cb(de->d_name, data);
	}
	closedir(d);
	return 0;
}

void envd_scan_sort(struct envd_scan *sc)
{
	size_t i;

	if (sc->n < 2)
		return;
	sort_entries(sc->v, sc->n);
	for (i = 1; i < sc->n; i++)
		if (envd_strcmp(sc->v[i].name, sc->v[i - 1].name) == 0) {
			sc->v[i].masked_by =
			    sc->v[i - 1].masked_by ? sc->v[i - 1].masked_by : &sc->v[i - 1];
			sc->v[i].status = ENVD_SCAN_MASKED;
		}
}

void envd_scan_free(struct envd_scan *sc)
{
	free(sc->v);
	envd_arena_free(&sc->mem);
	memset(sc, 0, sizeof(*sc));
}
