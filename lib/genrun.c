/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* genrun.c - the generators run, in the reader (helper/reader.c runs
 * envd_job_gens) with the user's credentials: each in a session of its own
 * with the environment built so far, within the budget, its output kept;
 * what they leave running is killed (the reader is a subreaper while they
 * run).  Not linked into the module: the login lists and checks the
 * generators (generators.c) and reads their records. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "proto.h"
#include "side.h"

/* The environment the next generator gets. */
struct gen_env {
	struct envd_store vars;
	struct envd_buf key, value; /* the parser's */
};

static int env_set(struct gen_env *env, const char *name, size_t nlen, const char *v, size_t vlen)
{
	return envd_store_set_h(&env->vars, name, nlen, envd_hash(name, nlen), v, vlen, NULL, 0,
	                        false);
}

/* An output's assignment, as systemd takes it: a valid name, a value that
 * is UTF-8, "KEY=" an empty value. */
static int env_assign(const char *key, size_t key_len, const char *value, size_t value_len,
                      bool has_value, unsigned line, void *data)
{
	if (!envd_name_valid(key, key_len) || (has_value && !envd_utf8_valid(value, value_len)))
		return 0;
	return env_set(data, key, key_len, has_value ? value : "", has_value ? value_len : 0);
}

static int env_add_store(struct gen_env *env, const struct envd_store *s)
{
	int r = 0;

	for (size_t i = 0; i < s->n && r == 0; i++)
		r = env_set(env, s->v[i].name, s->v[i].name_len, s->v[i].value, s->v[i].value_len);
	return r;
}

static void free_envp(char **envp)
{
	for (char **p = envp; p && *p; p++) {
		explicit_bzero(*p, strlen(*p));
		free(*p);
	}
	free(envp);
}

static char **make_envp(const struct gen_env *env)
{
	char **envp = calloc(env->vars.n + 1, sizeof(*envp));

	for (size_t i = 0; envp && i < env->vars.n; i++) {
		const struct envd_entry *e = &env->vars.v[i];

		envp[i] = malloc(e->name_len + e->value_len + 2);
		if (envp[i] == NULL) {
			free_envp(envp);
			return NULL;
		}
		memcpy(envp[i], e->name, e->name_len);
		envp[i][e->name_len] = '=';
		memcpy(envp[i] + e->name_len + 1, e->value, e->value_len);
		envp[i][e->name_len + 1 + e->value_len] = '\0';
	}
	return envp;
}

/* In the generator's process, before its program: a session of its own
 * (one process group to kill), stdin and stderr /dev/null, stdout the
 * pipe.  Every other descriptor of the child is close-on-exec.  The
 * reader closed 0, 1 and 2: the pipe and /dev/null are moved above them
 * first, so that each dup2 makes a new descriptor, one that stays open
 * across the exec. */
static void exec_gen(const char *path, int out, char **envp)
{
	char *argv[] = {(char *)path, NULL};
	int nul;

	(void)setsid();
	out = fcntl(out, F_DUPFD_CLOEXEC, 3);
	nul = open("/dev/null", O_RDWR | O_CLOEXEC | O_NOCTTY);
	if (nul >= 0)
		nul = fcntl(nul, F_DUPFD_CLOEXEC, 3);
	if (out < 0 || nul < 0 || dup2(nul, STDIN_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0 ||
	    dup2(nul, STDERR_FILENO) < 0)
		_exit(127);
	umask(022);
	execve(path, argv, envp);
	_exit(127);
}

/* Kills pid's process group (and pid, should it not have made its own
 * yet) and reaps pid. */
static void kill_gen(pid_t pid)
{
	int status;

	(void)kill(-pid, SIGKILL);
	(void)kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* Reads what fd holds into out.  1 at the end of the pipe, 0 when
 * nothing more is there now (drain) or after a read, -1 over out's cap
 * or on a read error. */
static int take(int fd, struct envd_buf *out, bool drain)
{
	char chunk[4096];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof(chunk));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -1;
		if (n == 0)
			return 1;
		if (envd_buf_append(out, chunk, (size_t)n) < 0)
			return -1;
		if (!drain)
			return 0;
	}
}

/* How often the end of a generator whose pipe stays open (a process it
 * started holds it) is looked for. */
#define EXIT_POLL_MS 10

/* Runs e with envp until the deadline; its output into e->data.  It ends
 * when it exits, as under systemd, which reads its output then: at the
 * pipe's end, or, when a process it started keeps the pipe open, at its
 * exit with what the pipe holds. */
static void run_one(struct envd_gen *e, char **envp, const struct timespec *deadline)
{
	struct envd_buf out;
	int p[2], status = 0, t = 0;
	bool ended = false;
	pid_t pid;

	envd_buf_init(&out, ENVD_MAX_GENERATOR_BYTES);
	e->state = ENVD_FILE_SKIPPED;
	e->reason = ENVD_R_GEN_NOT_RUN;
	/* the read end only: the generator's stdout blocks as usual */
	if (pipe2(p, O_CLOEXEC) != 0)
		return;
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) != 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		exec_gen(e->path, p[1], envp);
	}
	close(p[1]);
	while (t == 0) {
		struct pollfd pf = {.fd = p[0], .events = POLLIN};
		long left = envd_ms_until(deadline);
		int r;

		if (left == 0)
			break;
		r = poll(&pf, 1, (int)(left < EXIT_POLL_MS ? left : EXIT_POLL_MS));
		if (r > 0)
			t = take(p[0], &out, false);
		else if (r < 0 && errno != EINTR)
			t = -1;
		else if (waitpid(pid, &status, WNOHANG) == pid) {
			ended = true;
			t = take(p[0], &out, true) < 0 ? -1 : 1;
		}
	}
	close(p[0]);
	if (t == 1 && !ended)
		ended = envd_reap_until(pid, -1, deadline, &status);
	if (t != 1 || !ended) {
		if (!ended)
			kill_gen(pid);
		e->state = ENVD_FILE_SKIPPED;
		e->reason = t < 0 ? ENVD_R_GEN_TOO_BIG : ENVD_R_GEN_KILLED;
		if (out.data)
			explicit_bzero(out.data, out.len);
		envd_buf_free(&out);
		return;
	}
	e->state = ENVD_FILE_USED;
	e->reason = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? ENVD_R_NONE
	            : WIFEXITED(status)                           ? ENVD_R_GEN_FAILED
	                                                          : ENVD_R_GEN_SIGNAL;
	e->len = out.len;
	e->data = out.len ? envd_buf_steal(&out, NULL) : NULL;
	envd_buf_free(&out);
}

/* The processes this one is the parent of, from /proc: each pid into v
 * (at most max).  The count, or -1 when /proc cannot say. */
static int children_of_self(pid_t *v, int max)
{
	char path[64], buf[4096];
	ssize_t n;
	int fd, k = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/children", (long)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	for (char *p = buf, *end; *p != '\0' && k < max; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			v[k++] = (pid_t)pid;
	}
	return k;
}

/* The reader is a subreaper (gen_work): what a generator started and left behind, in a session of
 * its own too, is the reader's child once its parent ends, and killed
 * here; each round kills the children there are and reaps them, until
 * none is left.  Bounded: a process that keeps forking faster than it is
 * killed is left to the reader's own end. */
void envd_sweep_children(void)
{
	pid_t v[256];

	for (int round = 0; round < 64; round++) {
		int n = children_of_self(v, 256), status;

		for (int i = 0; i < n; i++) {
			(void)kill(-v[i], SIGKILL);
			(void)kill(v[i], SIGKILL);
		}
		while (waitpid(-1, &status, n > 0 ? 0 : WNOHANG) > 0)
			;
		if (n <= 0)
			return;
	}
}

/* Runs what ld->gens marks to run within ms, in the reader, and writes
 * their records to fd. */
static int gen_work(int fd, struct loader *ld, unsigned ms)
{
	struct envd_gens *g = &ld->gens;
	struct gen_env env;
	struct envd_buf out;
	struct timespec deadline;
	bool after = false;
	int r;

	/* what a generator leaves running becomes the reader's, and ends
	 * with it (envd_sweep_children) */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	/* an eighth of the budget is left for the records */
	if (!envd_deadline(ms - ms / 8, &deadline))
		return -EIO;
	envd_store_init(&env.vars);
	envd_buf_init(&env.key, 0);
	envd_buf_init(&env.value, 0);
	envd_buf_init(&out, 0);
	r = env_add_store(&env, &ld->base);
	for (size_t i = 0; i < g->n && r == 0; i++) {
		struct envd_gen *e = &g->v[i];
		struct rec_gen rec;
		char **envp;

		/* environment.d's place: its result joins the environment */
		if (!after && i >= g->first_after) {
			after = true;
			r = env_add_store(&env, &ld->res->store);
		}
		if (r < 0 || !envd_gen_to_run(e))
			continue;
		if (envd_ms_until(&deadline) == 0) {
			e->reason = ENVD_R_GEN_LATE;
		} else if ((envp = make_envp(&env)) == NULL) {
			r = -ENOMEM;
			break;
		} else {
			run_one(e, envp, &deadline);
			free_envp(envp);
		}
		if (e->state == ENVD_FILE_USED && e->len && !memchr(e->data, '\0', e->len))
			r = envd_parse_with(e->data, e->len, env_assign, &env, &env.key,
			                    &env.value);
		memset(&rec, 0, sizeof(rec));
		rec.index = (uint32_t)i;
		rec.reason = e->reason;
		rec.state = (uint8_t)e->state;
		if (r == 0)
			r = envd_rec_put(&out, REC_GEN, &rec, sizeof(rec), e->data, e->len, NULL,
			                 0);
	}
	envd_sweep_children();
	if (r == 0)
		r = envd_rec_put(&out, REC_GEN_END, NULL, 0, NULL, 0, NULL, 0);
	if (r == 0)
		r = envd_write_all(fd, out.data, out.len);
	envd_store_free(&env.vars);
	envd_buf_free(&env.key);
	envd_buf_free(&env.value);
	envd_buf_free(&out);
	return r;
}

int envd_job_gens(const char *in, size_t n, int fd)
{
	struct envd_config cfg = {.user_name = NULL};
	struct envd_result res;
	struct loader ld = {.cfg = &cfg, .res = &res};
	struct envd_gens *g = &ld.gens;
	struct req_gens h;
	size_t pos = 0, len;
	const char *body;
	char type;
	int r = -EBADMSG;

	memset(&res, 0, sizeof(res));
	envd_store_init(&res.store);
	envd_store_init(&ld.base);
	if (!envd_rec_next(in, n, &pos, &type, &body, &len) || type != REQ_GENS || len != sizeof(h))
		goto out;
	memcpy(&h, body, sizeof(h));
	if (h.n > ENVD_MAX_GENERATORS * ENVD_MAX_DIRS || h.first_after > h.n)
		goto out;
	g->v = calloc(h.n + 1, sizeof(*g->v));
	if (g->v == NULL) {
		r = -ENOMEM;
		goto out;
	}
	g->first_after = h.first_after;
	while (envd_rec_next(in, n, &pos, &type, &body, &len)) {
		struct envd_store *st = type == REQ_ENV_B ? &ld.base : &res.store;
		struct req_gen e;
		struct req_var v;
		struct envd_gen *x;
		const char *slash;

		if (type == REQ_GEN) {
			if (g->n >= h.n || len <= sizeof(e) ||
			    memchr(body + sizeof(e), '\0', len - sizeof(e)))
				goto out;
			memcpy(&e, body, sizeof(e));
			x = &g->v[g->n];
			x->path = envd_memdup0(body + sizeof(e), len - sizeof(e));
			if (x->path == NULL) {
				r = -ENOMEM;
				goto out;
			}
			g->n++;
			slash = strrchr(x->path, '/');
			x->name = slash ? slash + 1 : x->path;
			x->state = e.to_run ? ENVD_FILE_SKIPPED : ENVD_FILE_MASKED;
			x->reason = e.to_run ? ENVD_R_GEN_NOT_RUN : ENVD_R_NONE;
			continue;
		}
		if ((type != REQ_ENV_B && type != REQ_ENV_R) || len < sizeof(v))
			goto out;
		memcpy(&v, body, sizeof(v));
		if (v.name_len > len - sizeof(v))
			goto out;
		r = envd_store_set_h(
		    st, body + sizeof(v), v.name_len, envd_hash(body + sizeof(v), v.name_len),
		    body + sizeof(v) + v.name_len, len - sizeof(v) - v.name_len, NULL, 0, false);
		if (r < 0)
			goto out;
		r = -EBADMSG;
	}
	if (pos != n || g->n != h.n)
		goto out;
	r = gen_work(fd, &ld, h.ms);
out:
	envd_gens_free(g);
	envd_store_free(&ld.base);
	envd_store_free(&res.store);
	return r;
}
