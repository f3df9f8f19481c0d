/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
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
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static const char loader[] = "steers the dynamic loader or libc of programs started later";
static const char shell_init[] = "makes shells started later run code";
static const char interp[] = "makes an interpreter started later load code";
static const char identity[] = "impersonates the session or its identity";
static const char service[] = "steers services and tools run later, possibly as root";
static const char tool[] = "makes a tool run later, possibly as root, run a command or open a "
                           "path the user chose";

/* The reason names the category; the list is in strcmp order for the
 * reader (a unit test keeps it so). */
const struct envd_policy_entry envd_default_deny[] = {
    {"BASHOPTS", shell_init},
    {"BASH_ENV", shell_init},
    {"BASH_FUNC_*", shell_init},
    {"BASH_XTRACEFD", shell_init},
    {"CDPATH", shell_init},
    {"CLASSPATH", interp},
    {"ENV", shell_init},
    {"FPATH", shell_init},
    {"GCONV_PATH", loader},
    {"GETCONF_DIR", loader},
    {"GIT_ASKPASS", tool},
    {"GIT_CONFIG*", tool},
    {"GIT_DIR", tool},
    {"GIT_EXEC_PATH", tool},
    {"GIT_EXTERNAL_DIFF", tool},
    {"GIT_PROXY_COMMAND", tool},
    {"GIT_SSH", tool},
    {"GIT_SSH_COMMAND", tool},
    {"GIT_TEMPLATE_DIR", tool},
    {"GIT_WORK_TREE", tool},
    {"GLIBC_TUNABLES", loader},
    {"GLOBIGNORE", shell_init},
    {"HOME", identity},
    {"HOSTALIASES", loader},
    {"IFS", shell_init},
    {"INVOCATION_ID", service},
    {"JAVA_TOOL_OPTIONS", interp},
    {"JDK_JAVA_OPTIONS", interp},
    {"JOURNAL_STREAM", service},
    {"KRB5CCNAME", identity},
    {"KRB5_CONFIG", identity},
    {"KRB5_KDC_PROFILE", tool},
    {"KRB5_KTNAME", identity},
    {"KRB5_TRACE", tool},
    {"LD_*", loader},
    {"LISTEN_*", service},
    {"LOCALDOMAIN", loader},
    {"LOCPATH", loader},
    {"LOGNAME", identity},
    {"LUA_CPATH*", interp},
    {"LUA_INIT*", interp},
    {"LUA_PATH*", interp},
    {"MALLOC_*", loader},
    {"NIS_PATH", loader},
    {"NLSPATH", loader},
    {"NODE_OPTIONS", interp},
    {"NODE_PATH", interp},
    {"NOTIFY_SOCKET", service},
    {"NULLCMD", shell_init},
    {"OPENSSL_CONF", interp},
    {"OPENSSL_ENGINES", interp},
    {"OPENSSL_MODULES", interp},
    {"PAM_*", identity},
    {"PERL5DB", interp},
    {"PERL5LIB", interp},
    {"PERL5OPT", interp},
    {"PERLIO_DEBUG", tool},
    {"PERLLIB", interp},
    {"PHPRC", interp},
    {"PHP_INI_SCAN_DIR", interp},
    {"PS4", shell_init},
    {"PYTHONBREAKPOINT", interp},
    {"PYTHONEXECUTABLE", interp},
    {"PYTHONHOME", interp},
    {"PYTHONINSPECT", interp},
    {"PYTHONPATH", interp},
    {"PYTHONPLATLIBDIR", interp},
    {"PYTHONPYCACHEPREFIX", interp},
    {"PYTHONSTARTUP", interp},
    {"PYTHONUSERBASE", interp},
    {"PYTHONWARNINGS", interp},
    {"READNULLCMD", shell_init},
    {"RESOLV_HOST_CONF", loader},
    {"RES_OPTIONS", loader},
    {"RUBYLIB", interp},
    {"RUBYOPT", interp},
    {"SHELL", identity},
    {"SHELLOPTS", shell_init},
    {"SSH_ASKPASS", tool},
    {"SSH_CLIENT", identity},
    {"SSH_CONNECTION", identity},
    {"SSH_ORIGINAL_COMMAND", identity},
    {"SSH_TTY", identity},
    {"SSLKEYLOGFILE", tool},
    {"SUDO_*", identity},
    {"SYSTEMD_*", service},
    {"TCLLIBPATH", interp},
    {"TERMCAP", tool},
    {"TERMINFO", tool},
    {"TERMINFO_DIRS", tool},
    {"TERMPATH", tool},
    {"TMPDIR", loader},
    {"TMPPREFIX", shell_init},
    {"TZDIR", loader},
    {"USER", identity},
    {"XDG_RUNTIME_DIR", identity},
    {"XDG_SEAT", identity},
    {"XDG_SEAT_PATH", identity},
    {"XDG_SESSION_*", identity},
    {"XDG_VTNR", identity},
    {"ZDOTDIR", shell_init},
    {"_JAVA_OPTIONS", interp},
    {NULL, NULL},
};

struct pattern_list {
	char **v;
	size_t n, cap;
};

struct envd_policy {
	bool defaults;
	struct pattern_list allow, deny, only;
};

struct envd_policy *envd_policy_new(bool with_defaults)
{
	struct envd_policy *p = calloc(1, sizeof(*p));

	if (p)
		p->defaults = with_defaults;
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
			char **nv = reallocarray(l->v, cap, sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			l->v = nv;
			l->cap = cap;
		}
		copy = strndup(start, n);
		if (!copy)
			return -ENOMEM;
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
		if (fnmatch(l->v[i], name, 0) == 0)
			return true;
	return false;
}

const char *envd_policy_check(const struct envd_policy *p, const char *name, const char *value)
{
	const struct envd_policy_entry *e;
	const char *reason = NULL;

	if (!p)
		return NULL;
	/* the administrator's own denials and allow list always hold */
	if (any_match(&p->deny, name))
		return "denied by the administrator (user_deny)";
	if (p->only.n > 0 && !any_match(&p->only, name))
		return "not among the names the administrator lets user files set (user_only)";
	if (p->defaults) {
		/* Every default pattern starts with a literal and the list is
		 * sorted: fnmatch only where the first bytes agree, and no look
		 * past them.  fnmatch on all 103 entries was 9% of a login
		 * process's instructions, the whole scan 0.9%. */
		for (e = envd_default_deny; e->pattern && !reason; e++) {
			if ((unsigned char)e->pattern[0] > (unsigned char)name[0])
				break;
			if (e->pattern[0] == name[0] && fnmatch(e->pattern, name, 0) == 0)
				reason = e->reason;
		}
		if (!reason && value && strcmp(name, "TZ") == 0 && tz_names_file(value))
			reason = "names a file outside the time zone database";
	}
	/* allow lifts only the defaults */
	if (reason && any_match(&p->allow, name))
		reason = NULL;
	return reason;
}
