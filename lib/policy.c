/* policy.c - which names a user's file may set.
 *
 * pam_envd runs before the rest of the session stack and the variables it
 * sets reach every later module; pam_exec runs its helper as root with the
 * PAM environment.  The default list therefore refuses what steers code
 * that runs later (loader, libc, shells, interpreters) or impersonates the
 * session and its identity.  Each entry carries the reason that the logs
 * and `envd check` show; pam_envd(8) repeats them. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define LOADER     "steers the dynamic loader or libc of programs started later"
#define SHELL_INIT "makes shells started later run code"
#define INTERP     "makes an interpreter started later load code"
#define IDENTITY   "impersonates the session or its identity"
#define SERVICE    "steers services and tools run later, possibly as root"

const struct envd_policy_entry envd_default_deny[] = {
    /* dynamic loader and libc */
    {"LD_*", LOADER},
    {"GCONV_PATH", LOADER},
    {"GETCONF_DIR", LOADER},
    {"GLIBC_TUNABLES", LOADER},
    {"HOSTALIASES", LOADER},
    {"LOCALDOMAIN", LOADER},
    {"LOCPATH", LOADER},
    {"MALLOC_*", LOADER},
    {"NIS_PATH", LOADER},
    {"NLSPATH", LOADER},
    {"RESOLV_HOST_CONF", LOADER},
    {"RES_OPTIONS", LOADER},
    {"TMPDIR", LOADER},
    {"TZDIR", LOADER},
    /* shell start-up */
    {"BASH_ENV", SHELL_INIT},
    {"ENV", SHELL_INIT},
    {"SHELLOPTS", SHELL_INIT},
    {"BASHOPTS", SHELL_INIT},
    {"BASH_FUNC_*", SHELL_INIT},
    {"BASH_XTRACEFD", SHELL_INIT},
    {"PS4", SHELL_INIT},
    {"IFS", SHELL_INIT},
    {"CDPATH", SHELL_INIT},
    {"GLOBIGNORE", SHELL_INIT},
    {"FPATH", SHELL_INIT},
    {"ZDOTDIR", SHELL_INIT},
    /* interpreters and runtimes */
    {"PYTHONPATH", INTERP},
    {"PYTHONHOME", INTERP},
    {"PYTHONSTARTUP", INTERP},
    {"PYTHONUSERBASE", INTERP},
    {"PYTHONINSPECT", INTERP},
    {"PYTHONWARNINGS", INTERP},
    {"PYTHONBREAKPOINT", INTERP},
    {"PYTHONPLATLIBDIR", INTERP},
    {"PYTHONEXECUTABLE", INTERP},
    {"PERL5LIB", INTERP},
    {"PERLLIB", INTERP},
    {"PERL5OPT", INTERP},
    {"PERL5DB", INTERP},
    {"RUBYOPT", INTERP},
    {"RUBYLIB", INTERP},
    {"NODE_OPTIONS", INTERP},
    {"NODE_PATH", INTERP},
    {"JAVA_TOOL_OPTIONS", INTERP},
    {"_JAVA_OPTIONS", INTERP},
    {"JDK_JAVA_OPTIONS", INTERP},
    {"CLASSPATH", INTERP},
    {"LUA_INIT*", INTERP},
    {"LUA_PATH*", INTERP},
    {"LUA_CPATH*", INTERP},
    {"TCLLIBPATH", INTERP},
    {"OPENSSL_CONF", INTERP},
    {"OPENSSL_ENGINES", INTERP},
    {"OPENSSL_MODULES", INTERP},
    {"GIT_EXEC_PATH", INTERP},
    {"GIT_SSH", INTERP},
    {"GIT_SSH_COMMAND", INTERP},
    {"GIT_CONFIG_*", INTERP},
    /* session identity */
    {"XDG_SESSION_*", IDENTITY},
    {"XDG_SEAT", IDENTITY},
    {"XDG_SEAT_PATH", IDENTITY},
    {"XDG_VTNR", IDENTITY},
    {"XDG_RUNTIME_DIR", IDENTITY},
    {"USER", IDENTITY},
    {"LOGNAME", IDENTITY},
    {"HOME", IDENTITY},
    {"SHELL", IDENTITY},
    {"SUDO_*", IDENTITY},
    {"SSH_CLIENT", IDENTITY},
    {"SSH_CONNECTION", IDENTITY},
    {"SSH_TTY", IDENTITY},
    {"SSH_ORIGINAL_COMMAND", IDENTITY},
    {"KRB5CCNAME", IDENTITY},
    {"KRB5_CONFIG", IDENTITY},
    {"KRB5_KTNAME", IDENTITY},
    /* service managers */
    {"NOTIFY_SOCKET", SERVICE},
    {"LISTEN_*", SERVICE},
    {"INVOCATION_ID", SERVICE},
    {"JOURNAL_STREAM", SERVICE},
    {"SYSTEMD_*", SERVICE},
    {NULL, NULL},
};

struct pattern_list {
	char **v;
	size_t n, cap;
};

/* The default list by first character (every default pattern starts with a
 * literal): a check looks only at the entries that can match. */
#define DEFAULTS_MAX 255

struct envd_policy {
	bool defaults;
	struct pattern_list allow, deny;
	unsigned char by_first[DEFAULTS_MAX]; /* indices into envd_default_deny */
	unsigned char first_begin[128], first_end[128];
};
_Static_assert(ENVD_ARRAY_SIZE(envd_default_deny) <= DEFAULTS_MAX,
               "by_first indexes the default list with unsigned char");

/* Glob match with '*' and '?'.  The classic single-backtrack algorithm:
 * O(len(pattern) * len(name)) at worst, and both are short. */
static bool glob_match(const char *pat, const char *s)
{
	const char *star = NULL, *resume = NULL;

	while (*s) {
		if (*pat == '*') {
			star = pat++;
			resume = s;
		} else if (*pat == '?' || *pat == *s) {
			pat++;
			s++;
		} else if (star) {
			pat = star + 1;
			s = ++resume;
		} else
			return false;
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

struct envd_policy *envd_policy_new(bool with_defaults)
{
	struct envd_policy *p = calloc(1, sizeof(*p));
	size_t i, n = 0;
	unsigned c;

	if (!p)
		return NULL;
	p->defaults = with_defaults;
	/* a counting sort by first character that keeps the list's order */
	for (i = 0; i < ENVD_ARRAY_SIZE(envd_default_deny) && envd_default_deny[i].pattern; i++)
		p->first_end[(unsigned char)envd_default_deny[i].pattern[0] & 127]++;
	for (c = 0; c < 128; c++) {
		p->first_begin[c] = (unsigned char)n;
		n += p->first_end[c];
		p->first_end[c] = p->first_begin[c];
	}
	for (i = 0; i < ENVD_ARRAY_SIZE(envd_default_deny) && envd_default_deny[i].pattern; i++)
		p->by_first[p->first_end[(unsigned char)envd_default_deny[i].pattern[0] & 127]++] =
		    (unsigned char)i;
	return p;
}

static void list_free(struct pattern_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

void envd_policy_free(struct envd_policy *p)
{
	if (!p)
		return;
	list_free(&p->allow);
	list_free(&p->deny);
	free(p);
}

static bool pattern_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '*' || c == '?';
}

static bool separator(char c)
{
	return c == ',' || c == ':' || c == ' ' || c == '\t' || c == '\n';
}

static int add_patterns(struct pattern_list *l, const char *patterns)
{
	const char *p = patterns, *start;
	size_t n, i;
	char *copy;

	for (;;) {
		while (*p && separator(*p))
			p++;
		if (!*p)
			return 0;
		start = p;
		while (*p && !separator(*p))
			p++;
		n = (size_t)(p - start);
		for (i = 0; i < n; i++)
			if (!pattern_char(start[i]))
				return -EINVAL;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 8;
			char **nv = realloc(l->v, cap * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			l->v = nv;
			l->cap = cap;
		}
		copy = malloc(n + 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, start, n);
		copy[n] = '\0';
		l->v[l->n++] = copy;
	}
}

int envd_policy_allow(struct envd_policy *p, const char *patterns)
{
	return add_patterns(&p->allow, patterns);
}

int envd_policy_deny(struct envd_policy *p, const char *patterns)
{
	return add_patterns(&p->deny, patterns);
}

const char *envd_policy_check(const struct envd_policy *p, const char *name)
{
	const char *reason = NULL;
	size_t i;

	if (!p)
		return NULL;
	/* the administrator's own denials always hold */
	for (i = 0; i < p->deny.n; i++)
		if (glob_match(p->deny.v[i], name))
			return "denied by the administrator (user_deny)";
	if (p->defaults && (unsigned char)name[0] < 128) {
		unsigned char c = (unsigned char)name[0];

		for (i = p->first_begin[c]; !reason && i < p->first_end[c]; i++)
			if (glob_match(envd_default_deny[p->by_first[i]].pattern, name))
				reason = envd_default_deny[p->by_first[i]].reason;
	}
	/* allow lifts only entries of the default list */
	for (i = 0; reason && i < p->allow.n; i++)
		if (glob_match(p->allow.v[i], name))
			reason = NULL;
	return reason;
}
