/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* audit.c - `envd audit [SERVICE...]`: reads the PAM configuration as
 * Linux-PAM does and reports, for every service whose session (or auth)
 * stack applies pam_envd, each module that runs a program able to see the
 * user's values (SECURITY.md, "Deployment"):
 *
 *   open:  Linux-PAM runs open_session hooks top to bottom; a program
 *          started after the applying instance gets what it set.
 *   close: close_session hooks run top to bottom too, on the same
 *          environment; everything before the cleanup instance (which
 *          takes the values back), or everything when there is none,
 *          runs while the values are still there.
 *
 * pam_envd in the auth stack applies at setcred, which applications may
 * call before open_session: then every open hook sees the values.
 *
 * Reading follows libpam's pam_handlers.c and pam_line.c: a logical line
 * is physical lines joined where one ends in a backslash (the backslash
 * becomes a blank), text from '#' on is a comment and a comment also ends
 * the logical line; a comment line or a blank line after a backslash is
 * skipped by Linux-PAM 1.5 and older, which go on joining, and ends the
 * line in 1.6 and later (pamversion.c: which one, or both readings);
 * tokens are separated by blanks, and "[...]" is one token ("\]" inside
 * is "]").  "include" and "substack" read the lines of their type from
 * another file, Debian's "@include" the lines of the type being read (all
 * at the top); a relative name is taken in the same directory, an absolute
 * one as is.
 * A leading '-' on the type only silences a missing module: the line is
 * audited like the others (the module may be installed later).
 *
 * Jumps are followed as _pam_dispatch_aux follows them, every return value
 * taken as possible: "[value=N]" skips N modules of its own level (a
 * substack and its lines count as one), "done" and "die" end the stack or
 * the substack they are in.  At close, libpam takes the path open_session
 * took (the close hooks use the return values cached at open: the chain is
 * frozen), so the cleanup instance is skipped at close only on a path that
 * skipped it at open; that matters where the path goes on to the applying
 * instance (which then applied at open), or anywhere when an applying
 * instance is in the auth stack.  A jump over the applying instance only
 * loses the user's values: not reported.
 *
 * Everything read is bounded (file size, line length, include depth,
 * files and lines per service, services); nothing recurses deeper than
 * Linux-PAM's own include limit.  Names taken from the files are printed
 * through print_text, which escapes control bytes. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "child.h"
#include "output.h"
#include "pamversion.h"

#define PAM_DIR      "/etc/pam.d"
#define DPKG_STATUS  "/var/lib/dpkg/status" /* where the installed libpam's version is */
#define MAX_DEPTH    16                     /* Linux-PAM's PAM_SUBSTACK_MAX_LEVEL */
#define MAX_LINE     8192u                  /* bytes of one logical line */
#define MAX_READS    256u                   /* files read for one service */
#define MAX_ENTRIES  1024u                  /* session lines of one service */
#define MAX_FINDINGS 256u                   /* findings of one service */
#define MAX_SERVICES 4096u                  /* files of the directory */
#define MAX_JUMP     UINT16_MAX             /* a longer jump goes past every line anyway */

/* libpam's return values, PAM_SUCCESS (0) to PAM_INCOMPLETE (31), by the
 * names "[value=action]" controls use for them (pam.conf(5)), then
 * "default". */
#define N_RETURNS          32
#define RC_SUCCESS         0
#define RC_PERM_DENIED     6 /* what a line libpam could not load returns */
#define RC_NEW_AUTHTOK_REQ 12
#define RC_IGNORE          25
/* clang-format off */
static const char *const return_names[N_RETURNS + 1] = {
    "success", "open_err", "symbol_err", "service_err", "system_err", "buf_err",
    "perm_denied", "auth_err", "cred_insufficient", "authinfo_unavail", "user_unknown",
    "maxtries", "new_authtok_reqd", "acct_expired", "session_err", "cred_unavail",
    "cred_expired", "cred_err", "no_module_data", "conv_err", "authtok_err",
    "authtok_recover_err", "authtok_lock_busy", "authtok_disable_aging", "try_again",
    "ignore", "abort", "authtok_expired", "module_unknown", "bad_item", "conv_again",
    "incomplete", "default"};
/* clang-format on */

/* The actions, as libpam numbers them: a jump is a positive number. */
enum {
	ACT_IGNORE = 0,
	ACT_OK = -1,
	ACT_DONE = -2,
	ACT_BAD = -3,
	ACT_DIE = -4,
	ACT_RESET = -5,
	ACT_UNDEF = -6
};
static const char *const action_names[] = {"ignore", "ok", "done", "bad", "die", "reset"};

/* What the control of a line lets the stack do after it, every return value
 * taken as possible. */
struct flow {
	bool next;                 /* go on with the next line (ok, ignore, bad, reset, done) */
	bool end;                  /* end the stack, or the substack of the line (done, die) */
	unsigned char n_jumps;     /* distinct jumps in jumps */
	uint16_t jumps[N_RETURNS]; /* skip that many modules of the line's level */
};

/* The stacks read: the session stack, and the auth stack for pam_envd's
 * setcred (pam_envd(8), MODULE TYPES PROVIDED); libpam's PAM_T_ANY. */
enum stack { ST_ANY, ST_AUTH, ST_SESSION };

/* When a module's programs see the user's values. */
enum {
	SEES_OPEN = 1,  /* at open_session, when after the applying instance */
	SEES_CLOSE = 2, /* at close_session, when before the cleanup instance */
};

/* The modules known to run programs, found by reading their sources
 * (Linux-PAM 1.7, Debian 12's packages).  What counts is whether a program
 * runs as root with the PAM environment, or with the application's own
 * (pam_script, pam_mount), into which util-linux login copies the PAM
 * environment after open_session, in the root process that later calls
 * close_session.  At close the cleanup instance takes the values back out
 * of both (out of the application's environment each one still as the
 * applying instance wrote it), so a module of either kind is safe below
 * it and sees them above it; at open the application's environment does
 * not have them yet.  A program run as the user, or with an empty or
 * fixed environment, is not counted: the user can run it with those values
 * anyway, or it never sees them.  man/envd.1 repeats this table; keep them
 * in step. */
static const struct module_rule {
	const char *name;
	unsigned sees;
	const char *reason;
} module_rules[] = {
    {"pam_exec.so", SEES_OPEN | SEES_CLOSE,
     "runs its command as root with the whole PAM environment"},
    {"pam_script.so", SEES_CLOSE,
     "runs its scripts as root with the application's environment, into which login(1) "
     "copies the PAM environment after open_session: the cleanup instance takes the values "
     "back out of it too, but only for the close hooks after it"},
    {"pam_mount.so", SEES_CLOSE,
     "runs mount, umount and its helpers as root with the application's environment (PATH "
     "its own), into which login(1) copies the PAM environment after open_session: the "
     "cleanup instance takes the values back out of it too, but only for the close hooks "
     "after it"},
    /* not counted: */
    {"pam_mkhomedir.so", 0, "execs mkhomedir_helper with an empty environment"},
    {"pam_motd.so", 0, "Debian's update-motd runs run-parts under env -i; upstream's runs nothing"},
    {"pam_namespace.so", 0, "runs namespace.init with an empty environment"},
    {"pam_xauth.so", 0, "runs xauth with a user's own uid, at open only"},
    {"pam_ecryptfs.so", 0, "runs mount.ecryptfs_private as the user"},
    {"pam_gnome_keyring.so", 0, "starts gnome-keyring-daemon as the user"},
    {"pam_kwallet5.so", 0, "starts kwalletd as the user"},
    {"pam_systemd.so", 0, "runs no program: it asks logind over D-Bus"},
    {"pam_umask.so", 0, "runs no program"},
    {"pam_unix.so", 0, "runs its helpers for auth, account and password only"},
    {"pam_filter.so", 0, "runs the filter with an environment of its own"},
};

struct entry {
	const char *file; /* display name, owned by the service's names */
	unsigned line;
	char *module; /* the module's file name, without directories ("": none) */
	bool auth;    /* of the auth stack: only pam_envd's applying lines */
	bool envd, cleanup;
	bool marker;    /* a substack line: a jump counts it and its lines as one */
	unsigned level; /* how many substacks deep, libpam's stack_level */
	struct flow flow;
	unsigned sees;
	const char *reason;
};

struct finding {
	const char *file;
	unsigned line;
	char *msg;
};

struct service {
	const char *dir;  /* where relative names are read */
	bool map_etc;     /* absolute /etc/pam.d/ names are read in dir */
	const char *name; /* the service */
	char **names;     /* display names of the files read */
	size_t n_names;
	struct entry *entries;
	size_t n_entries, cap_entries;
	bool entries_dropped;
	struct finding *findings;
	size_t n_findings;
	bool findings_dropped;
	size_t reads;
	bool reads_dropped;
	dev_t dev[MAX_DEPTH + 1]; /* the files being read, for loops */
	ino_t ino[MAX_DEPTH + 1];
	unsigned level; /* substacks around the file being read */
	/* the first pam_env.so line that reads ~/.pam_environment
	 * (user_readenv=1), and the first that reads /etc/environment and
	 * its drop-ins (no envfile=, no readenv=0), in either stack */
	const char *readenv_file, *econf_file;
	unsigned readenv_line, econf_line;
	const char *econf;    /* NULL, or the Linux-PAM version whose pam_env.so
	                       * reads /etc/environment.d through libeconf */
	enum pam_lines lines; /* the reading of continued lines: JOIN or STOP */
	bool both;            /* the version is unknown: report where readings differ */
	bool crossed;         /* a continued line crossed a comment or blank line */
};

static const struct module_rule *find_rule(const char *base)
{
	size_t i;

	for (i = 0; i < sizeof(module_rules) / sizeof(module_rules[0]); i++)
		if (strcmp(module_rules[i].name, base) == 0)
			return &module_rules[i];
	return NULL;
}

static int add_finding(struct service *s, const char *file, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int add_finding(struct service *s, const char *file, unsigned line, const char *fmt, ...)
{
	struct finding *f;
	va_list ap;
	int r;

	if (s->n_findings >= MAX_FINDINGS) {
		s->findings_dropped = true;
		return 0;
	}
	if (!s->findings) {
		s->findings = calloc(MAX_FINDINGS, sizeof(*s->findings));
		if (!s->findings)
			return -ENOMEM;
	}
	f = &s->findings[s->n_findings];
	va_start(ap, fmt);
	r = vasprintf(&f->msg, fmt, ap);
	va_end(ap);
	if (r < 0) {
		f->msg = NULL;
		return -ENOMEM;
	}
	f->file = file;
	f->line = line;
	s->n_findings++;
	return 0;
}

/* Linux-PAM's tokenizer: blanks separate, "[...]" is one token with "\]"
 * standing for "]".  Terminates the token in place. */
static char *next_token(char **pos)
{
	char *p = *pos, *tok, *end, *to;

	if (!p)
		return NULL;
	p += strspn(p, " \t\n");
	if (*p == '[') {
		tok = to = end = p + 1;
		for (; *end && *end != ']'; to++, end++) {
			if (*end == '\\' && end[1] == ']')
				end++;
			*to = *end;
		}
		if (*end)
			end++;
		*to = '\0';
	} else if (*p) {
		tok = p;
		end = p + strcspn(p, " \t\n");
		if (*end)
			*end++ = '\0';
	} else {
		*pos = NULL;
		return NULL;
	}
	*pos = *end ? end : NULL;
	return tok;
}

/* pam_exec's options as it reads them: up to the first path or unknown
 * word; every "type=" must name the hook for the command to run there.
 * Without a command it runs nothing. */
static unsigned exec_sees(char *args)
{
	unsigned sees = SEES_OPEN | SEES_CLOSE;
	char *tok;

	while ((tok = next_token(&args))) {
		if (tok[0] == '/')
			return sees;
		if (strncasecmp(tok, "type=", 5) == 0) {
			if (strcmp(tok + 5, "open_session") != 0)
				sees &= ~(unsigned)SEES_OPEN;
			if (strcmp(tok + 5, "close_session") != 0)
				sees &= ~(unsigned)SEES_CLOSE;
		} else if (strncasecmp(tok, "log=", 4) != 0 && strcasecmp(tok, "debug") != 0 &&
		           strcasecmp(tok, "stdout") != 0 && strcasecmp(tok, "seteuid") != 0 &&
		           strcasecmp(tok, "quiet") != 0 && strcasecmp(tok, "quiet_log") != 0 &&
		           strcasecmp(tok, "expose_authtok") != 0)
			return sees; /* the command */
	}
	return 0;
}

static bool has_word(char *args, const char *word)
{
	char *tok;

	while ((tok = next_token(&args)))
		if (strcmp(tok, word) == 0)
			return true;
	return false;
}

static void set_default(int *act, int a)
{
	size_t i;

	for (i = 0; i < N_RETURNS; i++)
		if (act[i] == ACT_UNDEF)
			act[i] = a;
}

/* Names at t as _pam_parse_control matches them: the first entry of the
 * table that is a prefix of t; returns its index, n when none is. */
static size_t match_prefix(const char *t, const char *const *names, size_t n, size_t *len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		*len = strlen(names[i]);
		if (strncmp(names[i], t, *len) == 0)
			break;
	}
	return i;
}

/* "value=action ..." as _pam_parse_control reads it into act: a later
 * value overrides, "default" sets the values not set yet, and anything
 * malformed (a zero jump included) makes every value bad. */
static void parse_actions(const char *t, int *act)
{
	static const char space[] = " \t\n\v\f\r";
	size_t i, k, len;
	unsigned long n;
	int a;

	for (;;) {
		t += strspn(t, space);
		if (*t == '\0')
			return;
		i = match_prefix(t, return_names, N_RETURNS + 1, &len);
		if (i > N_RETURNS || t[len] == '\0')
			break;
		t += len;
		t += strspn(t, space);
		if (*t != '=')
			break;
		t += 1 + strspn(t + 1, space);
		if (*t == '\0')
			break;
		k = match_prefix(t, action_names, sizeof(action_names) / sizeof(action_names[0]),
		                 &len);
		if (k < sizeof(action_names) / sizeof(action_names[0])) {
			t += len;
			n = 0;
		} else {
			if (!isdigit((unsigned char)*t))
				break;
			for (n = 0; isdigit((unsigned char)*t); t++)
				n = n >= MAX_JUMP ? MAX_JUMP : n * 10 + (unsigned long)(*t - '0');
			if (n == 0)
				break;
		}
		a = n ? (int)(n > MAX_JUMP ? MAX_JUMP : n) : -(int)k;
		if (i == N_RETURNS)
			set_default(act, a);
		else
			act[i] = a;
	}
	for (i = 0; i < N_RETURNS; i++)
		act[i] = ACT_BAD;
}

/* The flow of a line with this control (NULL: none, which libpam takes
 * for a broken line); must_fail: a line libpam could not load, which
 * returns PAM_PERM_DENIED whatever happens. */
static void control_flow(const char *control, bool must_fail, struct flow *f)
{
	int act[N_RETURNS];
	size_t i, j;

	for (i = 0; i < N_RETURNS; i++)
		act[i] = ACT_UNDEF;
	if (!control) {
		set_default(act, ACT_BAD);
	} else if (strcasecmp(control, "required") == 0 || strcasecmp(control, "requisite") == 0) {
		act[RC_SUCCESS] = act[RC_NEW_AUTHTOK_REQ] = ACT_OK;
		act[RC_IGNORE] = ACT_IGNORE;
		set_default(act, strcasecmp(control, "required") == 0 ? ACT_BAD : ACT_DIE);
	} else if (strcasecmp(control, "optional") == 0) {
		act[RC_SUCCESS] = act[RC_NEW_AUTHTOK_REQ] = ACT_OK;
		set_default(act, ACT_IGNORE);
	} else if (strcasecmp(control, "sufficient") == 0) {
		act[RC_SUCCESS] = act[RC_NEW_AUTHTOK_REQ] = ACT_DONE;
		set_default(act, ACT_IGNORE);
	} else {
		parse_actions(control, act);
		set_default(act, ACT_BAD);
	}
	memset(f, 0, sizeof(*f));
	for (i = must_fail ? RC_PERM_DENIED : 0; i < (must_fail ? RC_PERM_DENIED + 1u : N_RETURNS);
	     i++) {
		if (act[i] > 0) {
			for (j = 0; j < f->n_jumps && f->jumps[j] != act[i]; j++)
				;
			if (j == f->n_jumps)
				f->jumps[f->n_jumps++] = (uint16_t)act[i];
		} else {
			f->next |= act[i] != ACT_DIE;
			f->end |= act[i] == ACT_DIE || act[i] == ACT_DONE;
		}
	}
}

/* The next entry, or NULL (*r: 0 when the cap was reached, with a finding
 * the first time, or -ENOMEM). */
static struct entry *new_entry(struct service *s, const char *file, unsigned line, int *r)
{
	struct entry *e;

	*r = 0;
	if (s->n_entries >= MAX_ENTRIES) {
		if (!s->entries_dropped) {
			s->entries_dropped = true;
			*r = add_finding(s, file, line,
			                 "more than %u session lines: the rest is not audited",
			                 MAX_ENTRIES);
		}
		return NULL;
	}
	/* grown as needed: a service has a few dozen lines, and the
	 * login-shell snippet reads every service (audit_applied) */
	if (s->n_entries == s->cap_entries) {
		size_t cap = s->cap_entries ? 2 * s->cap_entries : 32;

		e = realloc(s->entries, (cap < MAX_ENTRIES ? cap : MAX_ENTRIES) * sizeof(*e));
		if (!e) {
			*r = -ENOMEM;
			return NULL;
		}
		s->entries = e;
		s->cap_entries = cap < MAX_ENTRIES ? cap : MAX_ENTRIES;
	}
	e = &s->entries[s->n_entries];
	memset(e, 0, sizeof(*e));
	e->file = file;
	e->line = line;
	e->level = s->level;
	return e;
}

/* What a pam_env.so line reads, as its _pam_parse takes the options (a
 * later one wins): user_readenv=1 reads ~/.pam_environment as root;
 * without envfile= and readenv=0 it reads /etc/environment, and with
 * libeconf (Linux-PAM 1.5.3 and later) the drop-ins of
 * /etc/environment.d too.  Reads args destructively. */
static void pam_env_reads(struct service *s, const char *file, unsigned line, char *args)
{
	bool user = false, readenv = true, envfile = false, etc;
	char *tok;

	while ((tok = next_token(&args))) {
		if (strncmp(tok, "user_readenv=", 13) == 0)
			user = atoi(tok + 13) != 0;
		else if (strncmp(tok, "readenv=", 8) == 0)
			readenv = atoi(tok + 8) != 0;
		else if (strncmp(tok, "envfile=", 8) == 0)
			envfile = true;
	}
	etc = readenv && !envfile;
	if (user && !s->readenv_file) {
		s->readenv_file = file;
		s->readenv_line = line;
	}
	if (etc && !s->econf_file) {
		s->econf_file = file;
		s->econf_line = line;
	}
}

/* A line of the session stack, or pam_envd's of the auth stack.  module
 * NULL: a line libpam could not load, which fails whatever happens (no
 * control, no module, an unknown type); it still counts for jumps. */
static int add_entry(struct service *s, const char *file, unsigned line, const char *control,
                     const char *module, char *args, bool auth)
{
	const char *base = module ? strrchr(module, '/') : NULL;
	const struct module_rule *rule;
	struct entry *e;
	bool envd, cleanup;
	int r;

	base = base ? base + 1 : module ? module : "";
	if (strcmp(base, "pam_env.so") == 0)
		pam_env_reads(s, file, line, args);
	/* has_word and exec_sees read args destructively: one or the other */
	envd = strcmp(base, "pam_envd.so") == 0;
	cleanup = envd && has_word(args, "cleanup");
	if (auth && (!envd || cleanup))
		return 0; /* of the auth stack, only pam_envd's setcred matters */
	e = new_entry(s, file, line, &r);
	if (!e)
		return r;
	e->module = strdup(base);
	if (!e->module)
		return -ENOMEM;
	e->auth = auth;
	e->envd = envd;
	e->cleanup = cleanup;
	control_flow(control, module == NULL, &e->flow);
	rule = find_rule(base);
	if (rule && rule->sees) {
		e->reason = rule->reason;
		e->sees = strcmp(base, "pam_exec.so") == 0 ? exec_sees(args) : rule->sees;
	}
	s->n_entries++;
	return 0;
}

/* A substack line of the session stack: libpam's PAM_HT_SUBSTACK handler,
 * which runs nothing but makes a jump over it skip the substack's lines. */
static int add_marker(struct service *s, const char *file, unsigned line)
{
	struct entry *e;
	int r;

	e = new_entry(s, file, line, &r);
	if (!e)
		return r;
	e->module = strdup("");
	if (!e->module)
		return -ENOMEM;
	e->marker = true;
	e->flow.next = true;
	s->n_entries++;
	return 0;
}

static int read_file(struct service *s, const char *name, unsigned depth, enum stack want,
                     const char *from, unsigned from_line);

/* One logical line of file (display name) at line, of a file read for the
 * want stack (include and substack: theirs; @include: the includer's). */
static int do_line(struct service *s, const char *file, unsigned line, char *buf, unsigned depth,
                   enum stack want)
{
	char *pos = buf, *type, *arg, *control = NULL;
	enum stack t = want;
	bool sub = false;
	int r;

	type = next_token(&pos);
	if (!type)
		return 0;
	if (strcasecmp(type, "@include") != 0) {
		if (*type == '-')
			type++;
		if (strcasecmp(type, "session") == 0)
			t = ST_SESSION;
		else if (strcasecmp(type, "auth") == 0)
			t = ST_AUTH;
		else if (want == ST_SESSION && strcasecmp(type, "account") != 0 &&
		         strcasecmp(type, "password") != 0)
			/* libpam takes an unknown type in a file read for
			 * the session stack as a broken session line */
			return add_entry(s, file, line, next_token(&pos), NULL, NULL, false);
		else
			return 0;
		if (want != ST_ANY && want != t)
			return 0;
		control = next_token(&pos);
		if (!control ||
		    (strcasecmp(control, "include") != 0 && strcasecmp(control, "substack") != 0)) {
			arg = control ? next_token(&pos) : NULL;
			return add_entry(s, file, line, control, arg, pos, t == ST_AUTH);
		}
		sub = strcasecmp(control, "substack") == 0 && t == ST_SESSION;
	}
	if (sub && (r = add_marker(s, file, line)) < 0)
		return r;
	arg = next_token(&pos);
	if (!arg) {
		r = add_finding(s, file, line,
		                "include without a file name: Linux-PAM fails the stack");
		r = r < 0 ? r : 1;
	} else {
		s->level += sub;
		r = read_file(s, arg, depth + 1, t, file, line);
		s->level -= sub;
	}
	/* a file libpam could not include is a broken line in its place */
	if (r > 0)
		r = t == ST_SESSION ? add_entry(s, file, line, NULL, NULL, NULL, false) : 0;
	return r;
}

/* Whether the physical line p (n bytes) is blank or a comment as libpam
 * sees it: nothing but blanks before the end, a NUL or a '#'. */
static bool blank_or_comment(const char *p, size_t n)
{
	size_t i = 0;

	n = strnlen(p, n);
	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i == n || p[i] == '#';
}

/* A comment or blank line inside a continued line, at line ln of file:
 * with the reading that joins across it, skipped (returns 1); with the
 * other, it ends the line (returns 0).  When the version is unknown the
 * first one of each logical line (starting at start) is a finding. */
static int crossing(struct service *s, const char *file, unsigned start, unsigned ln,
                    bool *reported)
{
	int r = 0;

	s->crossed = true;
	if (s->both && !*reported)
		r = add_finding(s, file, start,
		                "this continued line crosses a comment or blank line at line %u: "
		                "Linux-PAM 1.5 and older go on joining after it, 1.6 and later end "
		                "the line there (audited both ways; --pam-version=VERSION reads it "
		                "as that Linux-PAM does)",
		                ln);
	*reported = true;
	return r < 0 ? r : s->lines == PAM_LINES_JOIN;
}

/* Splits the file's text (NUL-terminated, n bytes) into logical lines, as
 * the Linux-PAM of s->lines does. */
static int do_text(struct service *s, const char *file, char *text, size_t n, unsigned depth,
                   enum stack want)
{
	char *p = text, *end = text + n, *logical = NULL;
	size_t len = 0;
	unsigned ln = 0, start = 0;
	bool long_line = false, pending = false, cut = false, reported = false;
	int r = 0;

	logical = malloc(MAX_LINE + 1);
	if (!logical)
		return -ENOMEM;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), *c, *hash;
		size_t plen = nl ? (size_t)(nl - p) : (size_t)(end - p), q, k;
		bool cont = false, nul_cut = false;

		ln++;
		if (!pending) {
			start = ln;
			len = 0;
			long_line = false;
			cut = false;
			reported = false;
		} else if (blank_or_comment(p, plen)) {
			r = crossing(s, file, start, ln, &reported);
			if (r < 0)
				goto out;
			if (r > 0) {
				r = 0;
				p = nl ? nl + 1 : end;
				continue;
			}
		}
		/* 1.5 reads with fgets and measures with strlen: nothing
		 * after a NUL counts, a backslash there included */
		if (s->lines == PAM_LINES_JOIN)
			plen = strnlen(p, plen);
		q = plen;
		while (q > 0 && (p[q - 1] == ' ' || p[q - 1] == '\t'))
			q--;
		if (q > 0 && p[q - 1] == '\\') {
			cont = true;
			p[q - 1] = ' ';
			plen = q;
		}
		/* 1.6's line holds the NUL: nothing after it counts, in
		 * this physical line or the ones continuing it */
		if ((k = strnlen(p, plen)) < plen) {
			plen = k;
			nul_cut = true;
		}
		hash = memchr(p, '#', plen);
		if (hash) {
			plen = (size_t)(hash - p);
			cont = false;
		}
		c = p + strspn(p, " \t");
		k = c < p + plen ? (size_t)(p + plen - c) : 0;
		if (cut)
			k = 0; /* a NUL in an earlier line of this one */
		cut = cut || nul_cut;
		if (len + k > MAX_LINE)
			long_line = true;
		else {
			memcpy(logical + len, c, k);
			len += k;
		}
		pending = cont;
		p = nl ? nl + 1 : end;
		if (pending)
			continue;
		logical[len] = '\0';
		if (long_line)
			r = add_finding(s, file, start, "line longer than %u bytes: not audited",
			                MAX_LINE);
		else
			r = do_line(s, file, start, logical, depth, want);
		if (r < 0)
			goto out;
	}
	if (pending)
		r = add_finding(s, file, start,
		                "the file ends in a continued line: Linux-PAM rejects the file");
out:
	free(logical);
	return r;
}

/* Where name is read: relative names in the directory, absolute ones as
 * they are, except /etc/pam.d/ names under --pam-dir. */
static char *resolve(const struct service *s, const char *name)
{
	char *path;

	if (name[0] == '/' && !(s->map_etc && strncmp(name, PAM_DIR "/", sizeof(PAM_DIR)) == 0))
		return strdup(name);
	if (name[0] == '/')
		name += sizeof(PAM_DIR);
	if (asprintf(&path, "%s/%s", s->dir, name) < 0)
		return NULL;
	return path;
}

/* Reads the file name at include depth depth (0: the service's own file,
 * whose absence is the caller's error: -ENOENT), included from
 * from:from_line.  Returns 0, a negative errno, or 1 for an include that
 * libpam cannot read (with a finding). */
static int read_file(struct service *s, const char *name, unsigned depth, enum stack want,
                     const char *from, unsigned from_line)
{
	/* as libpam reads it, whoever owns it; no FIFO, device or /proc file */
	struct envd_path_read rd = {.any_owner = true, .max = ENVD_MAX_FILE_BYTES};
	char *path = NULL, *display, **names;
	unsigned i;
	int r = 0;

	if (depth >= MAX_DEPTH) {
		r = add_finding(s, from, from_line,
		                "include %s: includes nested more than %u deep: Linux-PAM fails "
		                "the stack",
		                name, MAX_DEPTH);
		return r < 0 ? r : 1;
	}
	if (s->reads >= MAX_READS) {
		if (s->reads_dropped)
			return 0;
		s->reads_dropped = true;
		return add_finding(s, from, from_line,
		                   "include %s: more than %u files read: not audited", name,
		                   MAX_READS);
	}
	s->reads++;
	names = realloc(s->names, (s->n_names + 1) * sizeof(*names));
	if (!names)
		return -ENOMEM;
	s->names = names;
	display = strdup(name);
	path = resolve(s, name);
	if (!display || !path) {
		free(display);
		r = -ENOMEM;
		goto out;
	}
	s->names[s->n_names++] = display;

	r = envd_read_path(path, &rd);
	if (r == -ENOMEM || (r < 0 && r != -EFBIG && depth == 0)) {
		r = r == -EPERM ? -EINVAL : r;
		goto out;
	}
	if (r == -EFBIG) {
		if (depth)
			r = add_finding(s, from, from_line,
			                "include %s: larger than %u bytes: not audited", name,
			                ENVD_MAX_FILE_BYTES);
		else
			r = add_finding(s, display, 0, "larger than %u bytes: not audited",
			                ENVD_MAX_FILE_BYTES);
		goto out;
	}
	if (r == -EINVAL || r == -EPERM)
		r = add_finding(s, from, from_line, "include %s: %s", name,
		                r == -EINVAL ? "not a regular file" : rd.reason);
	else if (r < 0)
		r = add_finding(s, from, from_line, "include %s: %s: Linux-PAM fails the stack",
		                name, strerror(-r));
	if (r != 0) {
		r = r < 0 ? r : 1;
		goto out;
	}
	for (i = 0; i < depth; i++)
		if (s->dev[i] == rd.dev && s->ino[i] == rd.ino) {
			r = add_finding(s, from, from_line,
			                "include %s: an include loop: Linux-PAM fails the stack",
			                name);
			r = r < 0 ? r : 1;
			goto out;
		}
	s->dev[depth] = rd.dev;
	s->ino[depth] = rd.ino;
	if (rd.data == NULL) /* empty */
		rd.data = calloc(1, 1);
	r = rd.data ? do_text(s, display, rd.data, rd.len, depth, want) : -ENOMEM;
out:
	free(rd.data);
	free(path);
	return r;
}

/* What follow_jumps finds about a session line. */
enum {
	SKIPS_JUMP = 1,   /* a jump of the line can skip the cleanup instance */
	SKIPS_SUB = 2,    /* its done or die can end its substack before it */
	SKIPS_STACK = 4,  /* its done or die can end the stack before it */
	SKIPPED_SEES = 8, /* it runs programs at close where the cleanup was skipped */
};

struct move {
	size_t to;     /* the position run next (n: the end of the stack) */
	unsigned kind; /* SKIPS_* when it passes the cleanup instance */
};

/* Where the stack goes after running position p of at (n lines), as
 * _pam_dispatch_aux moves: the next line, past the rest of p's level (done,
 * die), or past k modules of p's level, each following line of a deeper
 * level (a substack) counting with the one before it.  Returns how many
 * moves it put into mv (N_RETURNS + 2 at most). */
static size_t moves(const struct entry *const *at, size_t n, size_t p, struct move *mv)
{
	const struct flow *f = &at[p]->flow;
	unsigned lv = at[p]->level;
	size_t k = 0, j, q, left;

	if (f->next)
		mv[k++] = (struct move){p + 1, 0};
	if (f->end && !at[p]->marker) {
		for (q = p; q + 1 < n && at[q + 1]->level >= lv; q++)
			;
		mv[k++] = (struct move){q + 1, lv ? SKIPS_SUB : SKIPS_STACK};
	}
	for (j = 0; j < f->n_jumps && !at[p]->marker; j++) {
		for (q = p, left = f->jumps[j]; q + 1 < n && at[q + 1]->level >= lv && left > 0;
		     left--)
			do
				q++;
			while (q + 1 < n && at[q + 1]->level > lv);
		mv[k++] = (struct move){q + 1, SKIPS_JUMP};
	}
	return k;
}

/* Marks, in mark (one per entry), the lines whose jumps or ends can skip
 * the cleanup instance (entry c) at close on a path that runs an applying
 * instance (or, with auth_applies, any path), and the modules that then run
 * programs at close before any cleanup instance.  At close libpam repeats
 * the path of open_session, so a skip counts when the path it starts runs
 * an applying instance afterwards; with an applying instance in the auth
 * stack every path counts.  Returns 0 or -ENOMEM. */
static int follow_jumps(const struct service *s, size_t c, bool auth_applies, unsigned char *mark)
{
	const struct entry **at = malloc(s->n_entries * sizeof(*at));
	size_t *idx = malloc(s->n_entries * sizeof(*idx));
	bool *reach = calloc(s->n_entries + 1, 1), *good = calloc(s->n_entries + 1, 1);
	bool *skipped = calloc(s->n_entries + 1, 1);
	struct move mv[N_RETURNS + 2];
	size_t i, n = 0, pc = 0, p, k, m;
	int r = -ENOMEM;

	if (!at || !idx || !reach || !good || !skipped)
		goto out;
	for (i = 0; i < s->n_entries; i++) {
		if (s->entries[i].auth)
			continue;
		if (i == c)
			pc = n;
		idx[n] = i;
		at[n++] = &s->entries[i];
	}
	/* good[p]: from p on, a path runs an applying instance (or ends,
	 * with auth_applies) without running a cleanup instance first */
	good[n] = auth_applies;
	for (p = n; p-- > pc + 1;) {
		if (at[p]->envd) {
			good[p] = !at[p]->cleanup;
			continue;
		}
		for (k = moves(at, n, p, mv), m = 0; m < k; m++)
			good[p] = good[p] || good[mv[m].to];
	}
	reach[0] = true;
	for (p = 0; p < pc; p++) {
		if (!reach[p])
			continue;
		for (k = moves(at, n, p, mv), m = 0; m < k; m++) {
			if (mv[m].to < pc)
				reach[mv[m].to] = true;
			else if (mv[m].to > pc && good[mv[m].to]) {
				mark[idx[p]] |= (unsigned char)mv[m].kind;
				skipped[mv[m].to] = true;
			}
		}
	}
	for (p = pc + 1; p < n; p++) {
		if (!skipped[p] || (at[p]->envd && at[p]->cleanup))
			continue;
		if (at[p]->sees & SEES_CLOSE)
			mark[idx[p]] |= SKIPPED_SEES;
		for (k = moves(at, n, p, mv), m = 0; m < k; m++)
			skipped[mv[m].to] = true;
	}
	r = 0;
out:
	free(at);
	free(idx);
	free(reach);
	free(good);
	free(skipped);
	return r;
}

/* The finding of a line that can skip the cleanup instance at c. */
static int skip_finding(struct service *s, const struct entry *e, unsigned kind,
                        const struct entry *c)
{
	const char *who = *e->module ? e->module : "this line";

	if (kind & SKIPS_JUMP)
		return add_finding(
		    s, e->file, e->line,
		    "%s may jump over the cleanup instance at %s:%u, and close_session "
		    "takes the jumps open_session took: the close hooks after the "
		    "jump see the user's values",
		    who, c->file, c->line);
	if (kind & SKIPS_SUB)
		return add_finding(s, e->file, e->line,
		                   "%s may end its substack before the cleanup instance at %s:%u "
		                   "(done, die), and close_session ends it there too: the close "
		                   "hooks after the substack see the user's values",
		                   who, c->file, c->line);
	return add_finding(s, e->file, e->line,
	                   "%s may end the stack before the cleanup instance at %s:%u (done, "
	                   "die), and close_session ends it there too: the user's values are "
	                   "never taken back",
	                   who, c->file, c->line);
}

/* Whether s applies pam_envd.so: an applying line in the session stack,
 * or any pam_envd.so line of the auth stack (add_entry keeps only those).
 * The one test of "applies" for audit's summary, show, check and the
 * login-shell snippet. */
static bool service_applies(const struct service *s)
{
	for (size_t i = 0; i < s->n_entries; i++)
		if (s->entries[i].envd && (s->entries[i].auth || !s->entries[i].cleanup))
			return true;
	return false;
}

/* The findings about the pair and the modules around it.  An applying
 * line in the auth stack applies at pam_setcred, which applications may
 * call before pam_open_session: then every open hook comes after it. */
static int analyse(struct service *s, bool *applies)
{
	size_t i, a = SIZE_MAX, c = SIZE_MAX, au = SIZE_MAX, at_open = 0, first;
	unsigned char *mark = NULL;
	int r = 0;

	for (i = 0; i < s->n_entries; i++) {
		const struct entry *e = &s->entries[i];

		if (e->auth && au == SIZE_MAX)
			au = i;
		else if (!e->auth && e->envd && e->cleanup && c == SIZE_MAX)
			c = i;
		else if (!e->auth && e->envd && !e->cleanup && a == SIZE_MAX)
			a = i;
	}
	*applies = service_applies(s);
	if (!*applies)
		return 0;
	/* with the cleanup instance before the applying one: can a path skip it? */
	if (c != SIZE_MAX && (a == SIZE_MAX || c < a)) {
		mark = calloc(s->n_entries, 1);
		r = mark ? follow_jumps(s, c, au != SIZE_MAX, mark) : -ENOMEM;
	}
	for (i = 0; i < s->n_entries && r == 0; i++) {
		const struct entry *e = &s->entries[i];
		bool after = a != SIZE_MAX && i > a;
		unsigned m = mark ? mark[i] : 0;

		if (e->auth)
			continue;
		if ((e->sees & SEES_OPEN) && (after || au != SIZE_MAX)) {
			at_open += after;
			r = add_finding(s, e->file, e->line,
			                "%s at open sees the user's values: %s", e->module,
			                e->reason);
		}
		if (r == 0 && (e->sees & SEES_CLOSE) && (c == SIZE_MAX || i < c))
			r = add_finding(s, e->file, e->line,
			                "%s at close sees the user's values: %s", e->module,
			                e->reason);
		if (r == 0 && (m & (SKIPS_JUMP | SKIPS_SUB | SKIPS_STACK)))
			r = skip_finding(s, e, m, &s->entries[c]);
		if (r == 0 && (m & SKIPPED_SEES))
			r = add_finding(s, e->file, e->line,
			                "%s at close sees the user's values where the cleanup "
			                "instance is skipped: %s",
			                e->module, e->reason);
	}
	free(mark);
	if (r == 0 && au != SIZE_MAX)
		r = add_finding(s, s->entries[au].file, s->entries[au].line,
		                "pam_envd.so in the auth stack applies at setcred, which "
		                "applications may call before open_session: every session "
		                "module that runs programs sees the user's values");
	first = a != SIZE_MAX ? a : au;
	if (r == 0 && c == SIZE_MAX)
		r = add_finding(
		    s, s->entries[first].file, s->entries[first].line,
		    "pam_envd.so has no cleanup instance: every close hook sees the "
		    "user's values (add \"session optional pam_envd.so cleanup\" as the "
		    "first session line)");
	else if (r == 0 && a != SIZE_MAX && c > a)
		r = add_finding(s, s->entries[c].file, s->entries[c].line,
		                "pam_envd.so cleanup comes after the applying instance at %s:%u: "
		                "make it the first session line",
		                s->entries[a].file, s->entries[a].line);
	if (r == 0 && s->readenv_file)
		r = add_finding(
		    s, s->readenv_file, s->readenv_line,
		    "pam_env.so user_readenv=1 reads ~/.pam_environment as root in the sessions "
		    "pam_envd.so applies to: whichever of the two comes later wins, and names "
		    "pam_envd.so refuses (PYTHONPATH, LD_*, ...) come through; fix: remove "
		    "user_readenv=1 from this line (keep its other options) once the users' "
		    "files are in environment.d (envd import-pam-environment)");
	if (r == 0 && s->econf_file && s->econf)
		r = add_finding(
		    s, s->econf_file, s->econf_line,
		    "pam_env.so of Linux-PAM %s (built with libeconf) reads /etc/environment and "
		    "every /etc/environment.d/*.conf itself, each line literally: a $NAME there is "
		    "not expanded, so PATH=...:$PATH gives these sessions a literal \"$PATH\"; "
		    "fix: keep lines that expand in /usr/local/lib/environment.d/ (pam_envd.so "
		    "reads it, pam_env.so does not), or give this line envfile=/etc/environment",
		    s->econf);
	if (r == 0 && at_open)
		r = add_finding(s, s->entries[a].file, s->entries[a].line,
		                "pam_envd.so is not the last session line: %zu later %s programs "
		                "at open",
		                at_open, at_open == 1 ? "module runs" : "modules run");
	return r;
}

static void service_free(struct service *s)
{
	size_t i;

	for (i = 0; i < s->n_entries; i++)
		free(s->entries[i].module);
	for (i = 0; i < s->n_findings; i++)
		free(s->findings[i].msg);
	for (i = 0; i < s->n_names; i++)
		free(s->names[i]);
	free(s->entries);
	free(s->findings);
	free(s->names);
}

struct printer {
	FILE *out;
	bool json;
	size_t printed;  /* services in the json output */
	size_t checked;  /* services read to the end */
	size_t applying; /* of these, with an applying instance */
	size_t findings;
};

static void print_service(struct printer *pr, const struct service *s, bool applies, bool named)
{
	FILE *out = pr->out;
	size_t i;

	if (pr->json) {
		if (!applies && !named && s->n_findings == 0)
			return;
		fputs(pr->printed++ ? ",\n{\"service\":" : "\n{\"service\":", out);
		print_json_text(out, s->name);
		fprintf(out, ",\"applies\":%s,\"ok\":%s,\"findings\":[", applies ? "true" : "false",
		        applies && s->n_findings == 0 ? "true" : "false");
		for (i = 0; i < s->n_findings; i++) {
			fputs(i ? ",{\"file\":" : "{\"file\":", out);
			print_json_text(out, s->findings[i].file);
			fprintf(out, ",\"line\":%u,\"message\":", s->findings[i].line);
			print_json_text(out, s->findings[i].msg);
			fputc('}', out);
		}
		fputs("]}", out);
		return;
	}
	for (i = 0; i < s->n_findings; i++) {
		print_text(out, s->name);
		fputs(": ", out);
		print_text(out, s->findings[i].file);
		fprintf(out, ":%u: ", s->findings[i].line);
		print_text(out, s->findings[i].msg);
		fputc('\n', out);
	}
	if (s->findings_dropped) {
		print_text(out, s->name);
		fprintf(out, ": more than %u findings: the rest is not shown\n", MAX_FINDINGS);
	}
	if (applies && s->n_findings == 0) {
		print_text(out, s->name);
		fputs(": ok\n", out);
	} else if (!applies && named && s->n_findings == 0) {
		print_text(out, s->name);
		fputs(": pam_envd.so does not apply in the session stack\n", out);
	}
}

/* Adds to s the findings of t, the same service read the other way, that s
 * does not have.  Returns 0 or -ENOMEM. */
static int merge(struct service *s, const struct service *t)
{
	size_t i, j;
	int r = 0;

	s->findings_dropped = s->findings_dropped || t->findings_dropped;
	for (i = 0; i < t->n_findings && r == 0; i++) {
		const struct finding *f = &t->findings[i];
		const char *file = NULL;
		char **names;

		for (j = 0; j < s->n_findings; j++)
			if (s->findings[j].line == f->line &&
			    strcmp(s->findings[j].msg, f->msg) == 0 &&
			    strcmp(s->findings[j].file, f->file) == 0)
				break;
		if (j < s->n_findings)
			continue;
		for (j = 0; j < s->n_names && !file; j++)
			if (strcmp(s->names[j], f->file) == 0)
				file = s->names[j];
		if (!file) {
			names = realloc(s->names, (s->n_names + 1) * sizeof(*names));
			if (!names)
				return -ENOMEM;
			s->names = names;
			file = s->names[s->n_names] = strdup(f->file);
			if (!file)
				return -ENOMEM;
			s->n_names++;
		}
		r = add_finding(s, file, f->line, "%s", f->msg);
	}
	return r;
}

static int read_service(struct service *s, bool *applies)
{
	int r = read_file(s, s->name, 0, ST_ANY, NULL, 0);

	return r == 0 ? analyse(s, applies) : r;
}

/* Audits one service, its continued lines read as lines says (unknown:
 * both ways, where that makes a difference); returns EXIT_OK,
 * EXIT_FINDINGS or EXIT_FAIL. */
static int audit_service(struct printer *pr, const char *dir, bool map_etc, const char *name,
                         bool named, enum pam_lines lines, const char *econf)
{
	struct service s = {.dir = dir,
	                    .map_etc = map_etc,
	                    .name = name,
	                    .econf = econf,
	                    .lines = lines == PAM_LINES_STOP ? PAM_LINES_STOP : PAM_LINES_JOIN,
	                    .both = lines == PAM_LINES_UNKNOWN};
	bool applies = false;
	int r;

	if (!*name || strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
		fputs("envd: ", stderr);
		print_text(stderr, name);
		fputs(": not a service name\n", stderr);
		return EXIT_FAIL;
	}
	r = read_service(&s, &applies);
	if (r == 0 && s.both && s.crossed) {
		struct service t = {.dir = dir,
		                    .map_etc = map_etc,
		                    .name = name,
		                    .econf = econf,
		                    .lines = PAM_LINES_STOP,
		                    .both = true};
		bool also = false;

		r = read_service(&t, &also);
		if (r == 0)
			r = merge(&s, &t);
		applies = applies || also;
		service_free(&t);
	}
	if (r < 0) {
		fputs("envd: ", stderr);
		print_text(stderr, dir);
		fputc('/', stderr);
		print_text(stderr, name);
		fprintf(stderr, ": %s\n", r == -EINVAL ? "not a regular file" : strerror(-r));
		service_free(&s);
		return EXIT_FAIL;
	}
	print_service(pr, &s, applies, named);
	pr->checked++;
	pr->applying += applies;
	pr->findings += s.n_findings;
	r = s.n_findings ? EXIT_FINDINGS : EXIT_OK;
	service_free(&s);
	return r;
}

/* The counts of the run, and the line that a failed enable would
 * otherwise hide behind an empty output. */
static void print_summary(const struct printer *pr)
{
	static const char none[] = "no service applies pam_envd.so";
	FILE *out = pr->out;

	if (pr->json) {
		fprintf(out, ",\"summary\":{\"checked\":%zu,\"applying\":%zu,\"findings\":%zu",
		        pr->checked, pr->applying, pr->findings);
		if (pr->applying == 0)
			fprintf(out, ",\"error\":\"%s\"", none);
		fputs("}}\n", out);
		return;
	}
	if (pr->applying == 0)
		fprintf(out, "%s\n", none);
	fprintf(out, "%zu service%s checked, %zu appl%s pam_envd.so, %zu finding%s\n", pr->checked,
	        pr->checked == 1 ? "" : "s", pr->applying, pr->applying == 1 ? "ies" : "y",
	        pr->findings, pr->findings == 1 ? "" : "s");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names that package managers and editors leave next to a configuration
 * file: no program opens a PAM service by such a name. */
static bool leftover(const char *name)
{
	static const char *const marks[] = {".dpkg-",  ".ucf-",    ".rpmnew", ".rpmsave",
	                                    ".pacnew", ".pacsave", ".apk-new"};
	size_t i, n = strlen(name);

	if (name[0] == '.' || (n && name[n - 1] == '~'))
		return true;
	for (i = 0; i < sizeof(marks) / sizeof(marks[0]); i++)
		if (strstr(name, marks[i]))
			return true;
	return false;
}

/* The regular files of dir, sorted; NULL with errno set on failure. */
static char **list_services(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	int err = 0;

	*count = 0;
	if (!d)
		return NULL;
	names = calloc(MAX_SERVICES, sizeof(*names));
	if (!names) {
		err = ENOMEM;
		goto out;
	}
	for (;;) {
		struct stat st;
		char *name;

		errno = 0;
		/* readdir is thread-safe on a stream of its own (readdir_r is deprecated) */
		// cppcheck-suppress readdirCalled
		de = readdir(d);
		if (!de) {
			err = errno;
			break;
		}
		if (leftover(de->d_name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (n >= MAX_SERVICES) {
			fprintf(stderr, "envd: %s: more than %u files: the rest is not audited\n",
			        dir, MAX_SERVICES);
			break;
		}
		name = strdup(de->d_name);
		if (!name) {
			err = ENOMEM;
			break;
		}
		names[n++] = name;
	}
	if (!err)
		qsort(names, n, sizeof(*names), cmp_str);
out:
	closedir(d);
	if (err) {
		while (n)
			free(names[--n]);
		free(names);
		errno = err;
		return NULL;
	}
	*count = n;
	return names;
}

/* How continued lines are read: as --pam-version says, else as the
 * installed Linux-PAM does, else both ways; and whether pam_env.so reads
 * /etc/environment.d (econf: that version, else empty).  -1 on a bad
 * --pam-version. */
static int lines_of(const struct audit_opts *o, enum pam_lines *lines, char *version, size_t size)
{
	version[0] = '\0';
	if (o->pam_version) {
		if (pam_lines_of(o->pam_version, lines) == 0) {
			if (pam_econf_of(o->pam_version))
				snprintf(version, size, "%.*s",
				         (int)(strlen(o->pam_version) - strlen(",econf")),
				         o->pam_version);
			return 0;
		}
		fputs("envd: --pam-version: not a Linux-PAM version: ", stderr);
		print_text(stderr, o->pam_version);
		fputc('\n', stderr);
		return -1;
	}
	*lines = PAM_LINES_UNKNOWN;
	if (pam_installed_version(DPKG_STATUS, version, size) == 0 &&
	    pam_lines_of(version, lines) == 0) {
		if (o->verbose > 0) {
			fputs("envd: audit: Linux-PAM ", stderr);
			print_text(stderr, version);
			fputs(" (libpam0g in " DPKG_STATUS ")\n", stderr);
		}
		if (!pam_econf_of(version))
			version[0] = '\0';
		else /* shown as the version alone */
			version[strlen(version) - strlen(",econf")] = '\0';
		return 0;
	}
	*lines = PAM_LINES_UNKNOWN;
	version[0] = '\0';
	if (o->verbose > 0)
		fputs("envd: audit: the Linux-PAM version is not known (no libpam0g in " DPKG_STATUS
		      "): lines continued across a comment or blank line are read both ways\n",
		      stderr);
	return 0;
}

int audit_run(const struct audit_opts *o, FILE *out)
{
	const char *dir = o->pam_dir ? o->pam_dir : PAM_DIR;
	struct printer pr = {.out = out, .json = o->json};
	enum pam_lines lines;
	char econf[128];
	char **all = NULL;
	size_t i, n = 0;
	int rc = EXIT_OK;

	if (lines_of(o, &lines, econf, sizeof(econf)) < 0)
		return EXIT_USAGE;

	if (o->n_services == 0) {
		all = list_services(dir, &n);
		if (!all) {
			fputs("envd: ", stderr);
			print_text(stderr, dir);
			fprintf(stderr, ": %s\n", strerror(errno));
			return EXIT_FAIL;
		}
	}
	if (pr.json)
		fputs("{\"services\":[", out);
	for (i = 0; i < (all ? n : o->n_services); i++) {
		int r = audit_service(&pr, dir, o->pam_dir != NULL, all ? all[i] : o->services[i],
		                      !all, lines, econf[0] ? econf : NULL);

		if (r > rc)
			rc = r;
	}
	if (pr.json)
		fputs(pr.printed ? "\n]" : "]", out);
	print_summary(&pr);
	/* an empty audit must not look like a clean one */
	if (pr.applying == 0 && rc < EXIT_FINDINGS)
		rc = EXIT_FINDINGS;
	for (i = 0; i < n; i++)
		free(all[i]);
	free(all);
	return rc;
}

/* pam_systemd.so's session line (the first) and pam_envd.so's applying
 * one in s: 0 without, 1 with pam_systemd.so, 2 with it before. */
static int systemd_before(const struct service *s, bool *applies)
{
	size_t i, sd = SIZE_MAX;

	*applies = false;
	for (i = 0; i < s->n_entries; i++) {
		const struct entry *e = &s->entries[i];

		if (e->auth || e->marker)
			continue;
		if (sd == SIZE_MAX && strcmp(e->module, "pam_systemd.so") == 0)
			sd = i;
		if (e->envd && !e->cleanup) {
			*applies = true;
			return sd == SIZE_MAX ? 0 : 2;
		}
	}
	return sd == SIZE_MAX ? 0 : 1;
}

/* Reads the services of pam_dir silently, each as lines says, into u;
 * with first, only until a service applies pam_envd.so.  Returns 0 or
 * -errno when the directory cannot be listed. */
static int scan_services(const char *pam_dir, enum pam_lines lines, bool first,
                         struct pam_systemd_use *u)
{
	const char *dir = pam_dir ? pam_dir : PAM_DIR;
	char **all;
	size_t i, n = 0;

	memset(u, 0, sizeof(*u));
	all = list_services(dir, &n);
	if (!all)
		return -errno;
	for (i = 0; i < n; i++) {
		struct service s = {.dir = dir,
		                    .map_etc = pam_dir != NULL,
		                    .name = all[i],
		                    .lines =
		                        lines == PAM_LINES_STOP ? PAM_LINES_STOP : PAM_LINES_JOIN};
		bool applies = false;
		int k = 0;

		if (read_file(&s, s.name, 0, ST_ANY, NULL, 0) == 0) {
			k = systemd_before(&s, &applies);
			/* pam_envd.so in the auth stack applies too (analyse) */
			applies = applies || service_applies(&s);
			u->applying += applies;
			if (applies && s.readenv_file && !u->readenv[0])
				snprintf(u->readenv, sizeof(u->readenv), "%s (%s:%u)", s.name,
				         s.readenv_file, s.readenv_line);
			u->after_systemd += applies && k == 2;
			u->with_systemd += k > 0;
		}
		/* the version unknown: a service applies if either reading
		 * has it do so */
		if (!applies && lines == PAM_LINES_UNKNOWN && s.crossed) {
			struct service t = {.dir = dir,
			                    .map_etc = pam_dir != NULL,
			                    .name = all[i],
			                    .lines = PAM_LINES_STOP};

			if (read_file(&t, t.name, 0, ST_ANY, NULL, 0) == 0 && service_applies(&t))
				u->applying++;
			service_free(&t);
		}
		service_free(&s);
		if (first && u->applying)
			break;
	}
	for (i = 0; i < n; i++)
		free(all[i]);
	free(all);
	return 0;
}

int audit_pam_systemd(const char *pam_dir, struct pam_systemd_use *u)
{
	enum pam_lines lines = PAM_LINES_UNKNOWN;
	char version[128];

	if (pam_installed_version(DPKG_STATUS, version, sizeof(version)) != 0 ||
	    pam_lines_of(version, &lines) != 0)
		lines = PAM_LINES_JOIN;
	return scan_services(pam_dir, lines, false, u);
}

int audit_applied(const char *pam_dir)
{
	struct pam_systemd_use u;
	int r;

	/* both readings of continued lines, rather than the package
	 * database's few MiB read at every login shell */
	r = scan_services(pam_dir, PAM_LINES_UNKNOWN, true, &u);
	return r < 0 ? r : u.applying > 0;
}
