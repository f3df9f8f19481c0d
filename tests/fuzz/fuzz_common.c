/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fuzz_common.c - helpers shared by the harnesses (see fuzz.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

bool fuzz_utf8_valid(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t need, k;
		uint32_t cp, min;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0) {
			need = 1;
			cp = c & 0x1f;
			min = 0x80;
		} else if ((c & 0xf0) == 0xe0) {
			need = 2;
			cp = c & 0x0f;
			min = 0x800;
		} else if ((c & 0xf8) == 0xf0) {
			need = 3;
			cp = c & 0x07;
			min = 0x10000;
		} else {
			return false;
		}
		if (n - i - 1 < need)
			return false;
		for (k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000))
			return false;
		if ((cp >= 0xfdd0 && cp < 0xfdf0) || (cp & 0xffff) >= 0xfffe)
			return false;
		i += need + 1;
	}
	return true;
}

bool fuzz_rare_byte(unsigned char c)
{
	return c < 0x20 || c >= 0x7f || strchr("!&<>@[]^|", c) != NULL;
}

void fuzz_know(bool known[256], const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		known[(unsigned char)s[i]] = true;
}

void fuzz_check_text(const char *what, const char *text, size_t len, const bool known[256])
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];

		FUZZ_CHECK(!fuzz_rare_byte(c) || known[c],
		           "%s holds byte 0x%02x, which only a value of the input holds: \"%.*s\"",
		           what, c, (int)len, text);
	}
}

/* ---- byte strings ---- */

void fuzz_str_add(struct fuzz_str *s, const void *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 256;
		char *np;

		while (cap < s->len + n + 1)
			cap *= 2;
		np = realloc(s->p, cap);
		FUZZ_SETUP(np != NULL);
		s->p = np;
		s->cap = cap;
	}
	if (n)
		memcpy(s->p + s->len, p, n);
	s->len += n;
	s->p[s->len] = '\0';
}

void fuzz_str_addz(struct fuzz_str *s, const char *p)
{
	fuzz_str_add(s, p, strlen(p) + 1);
}

void fuzz_str_free(struct fuzz_str *s)
{
	free(s->p);
	s->p = NULL;
	s->len = s->cap = 0;
}

/* ---- sections ---- */

static const char dir_letters[] = "uerls";

/* Printable ASCII without '/' and the rare bytes, at most max-1 bytes. */
static void clean_name(char *out, size_t max, const uint8_t *p, size_t n)
{
	size_t i, j = 0;

	for (i = 0; i < n && j + 1 < max; i++)
		if (p[i] != '/' && !fuzz_rare_byte(p[i]))
			out[j++] = (char)p[i];
	out[j] = '\0';
}

size_t fuzz_split(const uint8_t *data, size_t size, struct fuzz_section *sec, size_t max)
{
	size_t n = 0, start = 0, end;
	bool first = true;

	while (start <= size && n < max) {
		const uint8_t *sep = memchr(data + start, 0x1e, size - start);
		struct fuzz_section *s = &sec[n];
		const uint8_t *p = data + start, *nl;
		size_t len;

		end = sep ? (size_t)(sep - data) : size;
		len = end - start;
		memset(s, 0, sizeof(*s));
		if (first && len == 0 && sep) {
			/* no default file: the input starts with a section */
		} else if (first) {
			s->kind = 'f';
			s->dir = FUZZ_USER;
			s->entry = ':';
			strcpy(s->name, "50-input.conf");
			s->data = p;
			s->len = len;
			n++;
		} else {
			nl = memchr(p, '\n', len);
			size_t hlen = nl ? (size_t)(nl - p) : len;

			s->data = nl ? nl + 1 : p + len;
			s->len = nl ? len - hlen - 1 : 0;
			if (hlen >= 1 && (p[0] == 'b' || p[0] == 'o')) {
				s->kind = (char)p[0];
				n++;
			} else if (hlen >= 2 && p[0] && strchr(dir_letters, p[0]) && p[1] &&
			           strchr(":~/>!0|", p[1])) {
				s->kind = 'f';
				s->dir = (enum fuzz_dir)(strchr(dir_letters, p[0]) - dir_letters);
				s->entry = (char)p[1];
				clean_name(s->name, 65, p + 2, hlen - 2);
				if (!s->name[0] || !strcmp(s->name, ".") || !strcmp(s->name, ".."))
					snprintf(s->name, sizeof(s->name), "%zu.conf", n);
				n++;
			}
		}
		first = false;
		if (!sep)
			break;
		start = end + 1;
	}
	return n;
}

unsigned fuzz_knob(const struct fuzz_section *sec, size_t n, size_t i)
{
	size_t k;

	for (k = 0; k < n; k++) {
		if (sec[k].kind != 'o')
			continue;
		if (i < sec[k].len)
			return sec[k].data[i];
		i -= sec[k].len;
	}
	return 0;
}

char **fuzz_base_env(const struct fuzz_section *sec, size_t n)
{
	size_t k, count = 0, cap = 8;
	char **v = calloc(cap, sizeof(*v));

	FUZZ_SETUP(v != NULL);
	for (k = 0; k < n; k++) {
		const uint8_t *p, *end;

		if (sec[k].kind != 'b')
			continue;
		p = sec[k].data;
		end = p + sec[k].len;
		while (p < end) {
			const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
			size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
			const uint8_t *nul = memchr(p, '\0', len);
			size_t use = nul ? (size_t)(nul - p) : len;

			if (use > 0) { /* even without a name or '=': the engine skips those */
				if (count + 2 > cap) {
					cap *= 2;
					v = realloc(v, cap * sizeof(*v));
					FUZZ_SETUP(v != NULL);
				}
				v[count] = strndup((const char *)p, use);
				FUZZ_SETUP(v[count] != NULL);
				v[++count] = NULL;
			}
			p += len + (nl ? 1 : 0);
		}
	}
	return v;
}

void fuzz_strv_free(char **v)
{
	char **p;

	if (!v)
		return;
	for (p = v; *p; p++)
		free(*p);
	free(v);
}

/* ---- trees ---- */

static int rm_any(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static struct fuzz_tree *to_remove;
static pid_t owner; /* replay's children leave the tree to their parent */

static void remove_top(void)
{
	if (getpid() == owner)
		(void)nftw(to_remove->top, rm_any, 16, FTW_DEPTH | FTW_PHYS);
}

/* A harness that crashed (every finding does) could not remove its tree:
 * remove the trees of this harness whose process is gone. */
static void sweep(const char *tmp, const char *prefix)
{
	char head[64], path[512];
	struct dirent *de;
	DIR *d = opendir(tmp);
	size_t hl;

	if (!d)
		return;
	hl = (size_t)snprintf(head, sizeof(head), "envd-%s.", prefix);
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, head, hl) != 0)
			continue;
		pid = strtol(de->d_name + hl, &end, 10);
		if (end == de->d_name + hl || *end != '.' || pid <= 0 || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmp, de->d_name);
		(void)nftw(path, rm_any, 16, FTW_DEPTH | FTW_PHYS);
	}
	closedir(d);
}

void fuzz_tree_init(struct fuzz_tree *t, const char *prefix)
{
	const char *tmp = getenv("TMPDIR");
	size_t d;

	umask(022);
	memset(t, 0, sizeof(*t));
	/* /dev/shm keeps the per-input file work off the disk where it can */
	if (!tmp || !*tmp)
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	sweep(tmp, prefix);
	snprintf(t->top, sizeof(t->top), "%s/envd-%s.%ld.XXXXXX", tmp, prefix, (long)getpid());
	FUZZ_SETUP(mkdtemp(t->top) != NULL);
	FUZZ_SETUP(chmod(t->top, 0755) == 0);
	for (d = 0; d < FUZZ_NDIRS; d++) {
		snprintf(t->dirs[d], sizeof(t->dirs[d]), "%s/case/%c", t->top, dir_letters[d]);
		if (d > 0)
			t->sys[d - 1] = t->dirs[d];
	}
	t->sys[FUZZ_NDIRS - 1] = NULL;
	fuzz_know(t->known, t->top, strlen(t->top));
	fuzz_know(t->known, "/case/uerls.conf0123456789-", 27);
	to_remove = t;
	owner = getpid();
	atexit(remove_top);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (flag == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	if (flag == FTW_DNR) {
		/* a directory made unreadable by the case: open it up, go again */
		chmod(path, 0755);
		return 1;
	}
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

void fuzz_tree_clear(struct fuzz_tree *t)
{
	char path[256];
	int r, tries;

	snprintf(path, sizeof(path), "%s/case", t->top);
	for (tries = 0; tries < 3; tries++) {
		r = nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
		if (r == 0 || (r < 0 && errno == ENOENT))
			return;
	}
	FUZZ_SETUP(r == 0);
}

static void write_file(const char *path, const uint8_t *data, size_t len, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	size_t off = 0;

	if (fd < 0)
		return; /* the name is taken by a directory or FIFO of this case */
	while (off < len) {
		ssize_t w = write(fd, data + off, len - off);

		FUZZ_SETUP(w > 0);
		off += (size_t)w;
	}
	FUZZ_SETUP(fchmod(fd, mode) == 0);
	close(fd);
}

static void link_target(char *out, size_t max, const uint8_t *p, size_t n)
{
	const uint8_t *nl = memchr(p, '\n', n);

	if (nl)
		n = (size_t)(nl - p);
	if (n > 5 && !memcmp(p, "../", 3) && p[3] && strchr(dir_letters, p[3]) && p[4] == '/') {
		memcpy(out, p, 5);
		clean_name(out + 5, max - 5, p + 5, n - 5);
	} else {
		clean_name(out, max, p, n);
	}
	if (!out[0] || !strcmp(out, ".") || !strcmp(out, ".."))
		snprintf(out, max, "target.conf");
}

void fuzz_tree_build(struct fuzz_tree *t, const struct fuzz_section *sec, size_t n)
{
	char path[400], target[80];
	size_t d, k;

	fuzz_tree_clear(t);
	snprintf(path, sizeof(path), "%s/case", t->top);
	FUZZ_SETUP(mkdir(path, 0755) == 0);
	for (d = 0; d < FUZZ_NDIRS; d++)
		FUZZ_SETUP(mkdir(t->dirs[d], 0755) == 0);
	for (k = 0; k < n; k++) {
		const struct fuzz_section *s = &sec[k];

		if (s->kind != 'f')
			continue;
		snprintf(path, sizeof(path), "%s/%s", t->dirs[s->dir], s->name);
		fuzz_know(t->known, s->name, strlen(s->name));
		/* a later entry of the same name replaces an earlier one */
		if (unlink(path) < 0 && errno == EISDIR)
			rmdir(path);
		switch (s->entry) {
		case ':':
			write_file(path, s->data, s->len, 0644);
			break;
		case '0':
			write_file(path, s->data, s->len, 0666);
			break;
		case '~':
			(void)symlink("/dev/null", path);
			break;
		case '!':
			(void)symlink("no-such-entry.conf", path);
			break;
		case '/':
			(void)mkdir(path, 0755);
			break;
		case '|':
			(void)mkfifo(path, 0644);
			break;
		case '>':
			link_target(target, sizeof(target), s->data, s->len);
			fuzz_know(t->known, target, strlen(target));
			(void)symlink(target, path);
			break;
		}
	}
}
