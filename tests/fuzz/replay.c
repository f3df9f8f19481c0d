/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* replay - runs a fuzz harness over files, without libFuzzer.
 *
 *   replay_<harness> [FILE|DIR]...
 *
 * Linked with one harness, this is a plain program (gcc or clang, with or
 * without sanitizers) that feeds it each FILE, and each regular file of each
 * DIR, once.  Without arguments it replays the harness's seed corpus
 * (FUZZ_CORPUS, set by the Makefile), which is how `make check` turns every
 * file of tests/fuzz/corpus/<harness>/ into a regression test.  A broken
 * invariant aborts, which fails the test; the file being replayed is named
 * first on stderr.  Each input runs in a child process, so that every failing
 * file is listed ("replay: FAIL"); one that runs longer than 60 seconds
 * (FUZZ_REPLAY_TIMEOUT) is killed by SIGALRM; FUZZ_REPLAY_NOFORK runs them
 * all in this process instead.  Exit status: 0, 1 when an input failed or a
 * file cannot be read, 77 when the harness cannot run here (e.g. the module
 * is not built). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz.h"

#ifndef FUZZ_CORPUS
#define FUZZ_CORPUS "."
#endif

/* per input; FUZZ_REPLAY_TIMEOUT overrides (valgrind needs more) */
static unsigned timeout_seconds = 60;
/* FUZZ_REPLAY_NOFORK: every input in this process (for a debugger) */
static bool no_fork;

static int replay_file(const char *path, size_t *count, size_t *failed)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;
	int status;
	pid_t pid;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	do {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? cap * 2 : 4096;
			nb = realloc(buf, cap);
			FUZZ_SETUP(nb != NULL);
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		fclose(f);
		free(buf);
		return 1;
	}
	fclose(f);
	/* named before running, so that a crash report says which input */
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
	/* an exact-size copy: the harness's reads past the end are caught */
	if (len < cap) {
		uint8_t *exact = malloc(len ? len : 1);

		FUZZ_SETUP(exact != NULL);
		memcpy(exact, buf, len);
		free(buf);
		buf = exact;
	}
	(*count)++;
	if (no_fork) {
		alarm(timeout_seconds);
		LLVMFuzzerTestOneInput(buf, len);
		alarm(0);
		free(buf);
		return 0;
	}
	/* each input in a child, so that one finding does not hide the next */
	fflush(NULL);
	pid = fork();
	FUZZ_SETUP(pid >= 0);
	if (pid == 0) {
		/* bounded time is one of the invariants: SIGALRM ends a slow input */
		alarm(timeout_seconds);
		LLVMFuzzerTestOneInput(buf, len);
		free(buf);
		exit(0); /* not _exit: LeakSanitizer checks at exit */
	}
	free(buf);
	while (waitpid(pid, &status, 0) < 0)
		FUZZ_SETUP(errno == EINTR);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFSIGNALED(status))
		fprintf(stderr, "replay: FAIL %s: %s%s\n", path, strsignal(WTERMSIG(status)),
		        WTERMSIG(status) == SIGALRM ? " (took too long)" : "");
	else
		fprintf(stderr, "replay: FAIL %s: exit status %d\n", path, WEXITSTATUS(status));
	(*failed)++;
	return 1;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path, size_t *count, size_t *failed)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rc = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path, count, failed);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			FUZZ_SETUP(names != NULL);
		}
		names[n] = malloc(strlen(path) + strlen(de->d_name) + 2);
		FUZZ_SETUP(names[n] != NULL);
		sprintf(names[n], "%s/%s", path, de->d_name);
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name); /* the same order everywhere */
	for (i = 0; i < n; i++) {
		if (stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			rc |= replay_file(names[i], count, failed);
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	const char *fallback[] = {FUZZ_CORPUS};
	const char *const *paths = (const char *const *)argv + 1;
	size_t npaths = (size_t)argc - 1, count = 0, failed = 0, i;
	int rc = 0;

	no_fork = getenv("FUZZ_REPLAY_NOFORK") != NULL;
	if (getenv("FUZZ_REPLAY_TIMEOUT"))
		timeout_seconds = (unsigned)strtoul(getenv("FUZZ_REPLAY_TIMEOUT"), NULL, 10);
	if (npaths == 0) {
		paths = fallback;
		npaths = 1;
	}
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	if (fuzz_skip_reason && fuzz_skip_reason()) {
		printf("SKIP: %s\n", fuzz_skip_reason());
		return 77;
	}
	for (i = 0; i < npaths; i++)
		rc |= replay_path(paths[i], &count, &failed);
	printf("replayed %zu inputs, %zu failed\n", count, failed);
	if (count == 0) {
		fprintf(stderr, "replay: no inputs\n");
		rc = 1;
	}
	return rc;
}
