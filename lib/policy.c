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

enum { LOADER, SHELL_INIT, INTERP, IDENTITY, SERVICE, TOOL };

const char *const envd_policy_reasons[] = {
    [LOADER] = "steers the dynamic loader or libc of programs started later",
    [SHELL_INIT] = "makes shells started later run code",
    [INTERP] = "makes an interpreter started later load code",
    [IDENTITY] = "impersonates the session or its identity",
    [SERVICE] = "steers services and tools run later, possibly as root",
    [TOOL] = "makes a tool run later, possibly as root, run a command or open a path "
             "the user chose",
};

/* In strcmp order of the patterns (a unit test checks it): a check finds
 * the entries that can match a name, those that start with its first
 * character, by binary search.  The reason names the category. */
const struct envd_policy_entry envd_default_deny[] = {
    {"BASHOPTS", SHELL_INIT},
    {"BASH_ENV", SHELL_INIT},
    {"BASH_FUNC_*", SHELL_INIT},
    {"BASH_XTRACEFD", SHELL_INIT},
    {"CDPATH", SHELL_INIT},
    {"CLASSPATH", INTERP},
    {"ENV", SHELL_INIT},
    {"FPATH", SHELL_INIT},
    {"GCONV_PATH", LOADER},
    {"GETCONF_DIR", LOADER},
    {"GIT_ASKPASS", TOOL},
    {"GIT_CONFIG*", TOOL},
    {"GIT_DIR", TOOL},
    {"GIT_EXEC_PATH", TOOL},
    {"GIT_EXTERNAL_DIFF", TOOL},
    {"GIT_PROXY_COMMAND", TOOL},
    {"GIT_SSH", TOOL},
    {"GIT_SSH_COMMAND", TOOL},
    {"GIT_TEMPLATE_DIR", TOOL},
    {"GIT_WORK_TREE", TOOL},
    {"GLIBC_TUNABLES", LOADER},
    {"GLOBIGNORE", SHELL_INIT},
    {"HOME", IDENTITY},
    {"HOSTALIASES", LOADER},
    {"IFS", SHELL_INIT},
    {"INVOCATION_ID", SERVICE},
    {"JAVA_TOOL_OPTIONS", INTERP},
    {"JDK_JAVA_OPTIONS", INTERP},
    {"JOURNAL_STREAM", SERVICE},
    {"KRB5CCNAME", IDENTITY},
    {"KRB5_CONFIG", IDENTITY},
    {"KRB5_KDC_PROFILE", TOOL},
    {"KRB5_KTNAME", IDENTITY},
    {"KRB5_TRACE", TOOL},
    {"LD_*", LOADER},
    {"LISTEN_*", SERVICE},
    {"LOCALDOMAIN", LOADER},
    {"LOCPATH", LOADER},
    {"LOGNAME", IDENTITY},
    {"LUA_CPATH*", INTERP},
    {"LUA_INIT*", INTERP},
    {"LUA_PATH*", INTERP},
    {"MALLOC_*", LOADER},
    {"NIS_PATH", LOADER},
    {"NLSPATH", LOADER},
    {"NODE_OPTIONS", INTERP},
    {"NODE_PATH", INTERP},
    {"NOTIFY_SOCKET", SERVICE},
    {"NULLCMD", SHELL_INIT},
    {"OPENSSL_CONF", INTERP},
    {"OPENSSL_ENGINES", INTERP},
    {"OPENSSL_MODULES", INTERP},
    {"PAM_*", IDENTITY},
    {"PERL5DB", INTERP},
    {"PERL5LIB", INTERP},
    {"PERL5OPT", INTERP},
    {"PERLIO_DEBUG", TOOL},
    {"PERLLIB", INTERP},
    {"PHPRC", INTERP},
    {"PHP_INI_SCAN_DIR", INTERP},
    {"PS4", SHELL_INIT},
    {"PYTHONBREAKPOINT", INTERP},
    {"PYTHONEXECUTABLE", INTERP},
    {"PYTHONHOME", INTERP},
    {"PYTHONINSPECT", INTERP},
    {"PYTHONPATH", INTERP},
    {"PYTHONPLATLIBDIR", INTERP},
    {"PYTHONPYCACHEPREFIX", INTERP},
    {"PYTHONSTARTUP", INTERP},
    {"PYTHONUSERBASE", INTERP},
    {"PYTHONWARNINGS", INTERP},
    {"READNULLCMD", SHELL_INIT},
    {"RESOLV_HOST_CONF", LOADER},
    {"RES_OPTIONS", LOADER},
    {"RUBYLIB", INTERP},
    {"RUBYOPT", INTERP},
    {"SHELL", IDENTITY},
    {"SHELLOPTS", SHELL_INIT},
    {"SSH_ASKPASS", TOOL},
    {"SSH_CLIENT", IDENTITY},
    {"SSH_CONNECTION", IDENTITY},
    {"SSH_ORIGINAL_COMMAND", IDENTITY},
    {"SSH_TTY", IDENTITY},
    {"SSLKEYLOGFILE", TOOL},
    {"SUDO_*", IDENTITY},
    {"SYSTEMD_*", SERVICE},
    {"TCLLIBPATH", INTERP},
    {"TERMCAP", TOOL},
    {"TERMINFO", TOOL},
    {"TERMINFO_DIRS", TOOL},
    {"TERMPATH", TOOL},
    {"TMPDIR", LOADER},
    {"TMPPREFIX", SHELL_INIT},
    {"TZDIR", LOADER},
    {"USER", IDENTITY},
    {"XDG_RUNTIME_DIR", IDENTITY},
    {"XDG_SEAT", IDENTITY},
    {"XDG_SEAT_PATH", IDENTITY},
    {"XDG_SESSION_*", IDENTITY},
    {"XDG_VTNR", IDENTITY},
    {"ZDOTDIR", SHELL_INIT},
    {"_JAVA_OPTIONS", INTERP},
    {"", 0},
};

struct pattern_list {
	char **v;
	size_t n, cap;
};

struct envd_policy {
	bool defaults;
	struct pattern_list allow, deny, only;
};

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

	if (p)
		p->defaults = with_defaults;
	return p;
}

/* The first default entry whose pattern starts at or after c. */
static size_t first_at_or_after(unsigned char c)
{
	size_t lo = 0, hi = ENVD_ARRAY_SIZE(envd_default_deny) - 1; /* the empty row */

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if ((unsigned char)envd_default_deny[mid].pattern[0] < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
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
	list_free(&p->only);
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

int envd_policy_only(struct envd_policy *p, const char *patterns)
{
	return add_patterns(&p->only, patterns);
}

/* TZ names a zone of the time zone database, or a rule.  One that names a
 * file elsewhere (an absolute path, or a path with a ".." component) makes
 * every program that formats a time open that file, root helpers
 * included: a FIFO there hangs them.  sudo's env_check refuses the same. */
static bool tz_names_file(const char *v)
{
	const char *c;

	if (*v == ':')
		v++;
	if (*v == '/')
		return true;
	for (c = v; (c = strstr(c, "..")) != NULL; c += 2)
		if ((c == v || c[-1] == '/') && (c[2] == '\0' || c[2] == '/'))
			return true;
	return false;
}

static bool any_match(const struct pattern_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (glob_match(l->v[i], name))
			return true;
	return false;
}

const char *envd_policy_check(const struct envd_policy *p, const char *name, const char *value)
{
	const char *reason = NULL;
	size_t i;

	if (!p)
		return NULL;
	/* the administrator's own denials and allow list always hold */
	if (any_match(&p->deny, name))
		return "denied by the administrator (user_deny)";
	if (p->only.n > 0 && !any_match(&p->only, name))
		return "not among the names the administrator lets user files set (user_only)";
	if (p->defaults) {
		/* every default pattern starts with a literal character */
		for (i = first_at_or_after((unsigned char)name[0]);
		     !reason && envd_default_deny[i].pattern[0] != '\0' &&
		     envd_default_deny[i].pattern[0] == name[0];
		     i++)
			if (glob_match(envd_default_deny[i].pattern, name))
				reason = envd_policy_reasons[envd_default_deny[i].reason];
		if (!reason && value && strcmp(name, "TZ") == 0 && tz_names_file(value))
			reason = "names a file outside the time zone database";
	}
	/* allow lifts only the defaults */
	if (reason && any_match(&p->allow, name))
		reason = NULL;
	return reason;
}
