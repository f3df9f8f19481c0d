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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

/* Directory entries straight from getdents64(2), read into a buffer on the
 * stack: readdir(3) would allocate a 32 KiB stream per directory, and every
 * libc function the module imports costs a symbol lookup each time libpam
 * loads it.  Through syscall(2): glibc has a getdents64 wrapper only since
 * 2.30, and musl calls it getdents. */
struct kernel_dirent {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type; /* DT_* */
	char name[];
};

struct dir_reader {
	int fd;
	size_t len, pos;
	bool error;
	_Alignas(struct kernel_dirent) char buf[4096];
};

static void reader_init(struct dir_reader *r, int fd)
{
	r->fd = fd;
	r->len = r->pos = 0;
	r->error = false;
}

/* The next entry, or NULL at the end or on an error (r->error). */
static const struct kernel_dirent *next_entry(struct dir_reader *r)
{
	const struct kernel_dirent *d;
	long n;

	if (r->pos >= r->len) {
		n = syscall(SYS_getdents64, r->fd, r->buf, sizeof(r->buf));
		if (n <= 0) {
			r->error = n < 0;
			return NULL;
		}
		r->len = (size_t)n;
		r->pos = 0;
	}
	/* buf is aligned for the record, and the kernel pads every record to
	 * a multiple of 8 bytes */
	d = (const void *)(r->buf + r->pos);
	/* the kernel's records are whole and NUL-terminated; check anyway */
	if (r->len - r->pos < offsetof(struct kernel_dirent, name) + 1 ||
	    d->reclen < offsetof(struct kernel_dirent, name) + 1 || d->reclen > r->len - r->pos ||
	    d->reclen % _Alignof(struct kernel_dirent) != 0 ||
	    !memchr(d->name, '\0', d->reclen - offsetof(struct kernel_dirent, name))) {
		r->error = true;
		return NULL;
	}
	r->pos += d->reclen;
	return d;
}

int envd_scan_dir(struct envd_scan *sc, int dirfd, size_t dir, size_t max_files,
                  struct envd_scan_report *rep)
{
	size_t first = sc->n, seen = 0, nconf = 0, i, keep;
	const struct kernel_dirent *de;
	struct dir_reader rd;
	int r = 0;

	memset(rep, 0, sizeof(*rep));
	/* dirfd's own offset: openat() of the names does not care, and lint's
	 * second listing opens the directory again */
	reader_init(&rd, dirfd);
	while ((de = next_entry(&rd))) {
		size_t len = strlen(de->name);

		if (++seen > max_files * 16) {
			rep->truncated = true;
			break;
		}
		if (de->name[0] == '.')
			continue;
		if (!has_conf_suffix(de->name, len)) {
			if (de->type != DT_DIR)
				rep->not_conf++;
			continue;
		}
		r = push_name(sc, de->name, len, dir);
		if (r < 0)
			return r;
		nconf++;
	}
	if (rd.error)
		rep->read_error = true;

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
	const struct kernel_dirent *de;
	struct dir_reader rd;
	size_t seen = 0;
	/* a descriptor of its own, from the start (the first listing left
	 * dirfd's offset at the end) */
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

	if (fd < 0)
		return errno == ENOMEM ? -ENOMEM : -EIO;
	reader_init(&rd, fd);
	while ((de = next_entry(&rd)) && seen++ < max) {
		size_t len = strlen(de->name);

		if (de->name[0] == '.' || has_conf_suffix(de->name, len) || de->type == DT_DIR)
			continue;
		cb(de->name, data);
	}
	close(fd);
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
