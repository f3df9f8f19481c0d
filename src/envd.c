/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* envd - show, explain and lint the environment a login gets from the
 * environment.d directories.  Loads through the same envd_load() as
 * pam_envd.so, with the same defaults. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envd.h"
#include "output.h"
#include "privs.h"
#include "import.h"
#include "reapply.h"

extern char **environ;

enum { EXIT_OK = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2, EXIT_FAIL = 3 };

enum command { CMD_SHOW, CMD_CHECK, CMD_FILES, CMD_IMPORT };

struct opts {
	enum command cmd;
	enum out_format format;
	bool explain, inherit, no_user, no_overwrite, no_expand, no_policy;
	int verbose; /* -1 quiet, 0 default, 1 notices, 2 debug */
	const char *root, *user_dir, *default_path, *user;
	const char *allow, *deny, *only;
	const char *reapply; /* show --reapply=NAMES */
};

struct diag_state {
	int verbose;
	bool lint;
	size_t findings;
};

static const char usage_text[] =
    "Usage: envd [OPTION]... COMMAND [USER]\n"
    "  or:  envd [-q] import-pam-environment [FILE]\n"
    "Show, explain and lint the environment that pam_envd gives a login of USER\n"
    "(default: the caller) from the environment.d directories.\n"
    "\n"
    "Commands:\n"
    "  show     print the variables, in order of first definition\n"
    "  check    lint the files: print file:line: warnings, exit 1 if any\n"
    "  files    list the files in effect, in order, and those masked or skipped\n"
    "  import-pam-environment  print FILE (default ~/.pam_environment) as an\n"
    "           environment.d file, with a comment on each line it cannot\n"
    "           translate exactly\n"
    "\n"
    "Options:\n"
    "  -f, --format=FMT     show: env (NAME=VALUE), shell (export NAME='VALUE'),\n"
    "                       json (one object), nul (NAME=VALUE\\0); default env\n"
    "  -e, --explain        show: add the file:line that set each variable, and\n"
    "                       the files masked or skipped with the reason\n"
    "      --root=DIR       prefix the four system directories with DIR; their\n"
    "                       files must then belong to DIR's owner instead of root\n"
    "      --user-dir=DIR   read DIR instead of the user's environment.d\n"
    "      --no-user        read the system directories only\n"
    "      --inherit        expand against this process's environment, as\n"
    "                       systemd's generator does; the user directory follows\n"
    "                       $XDG_CONFIG_HOME or $HOME\n"
    "      --no-overwrite   keep variables the login already has (nooverwrite)\n"
    "      --no-expand      take values literally (noexpand)\n"
    "      --default-path=P PATH a login starts with when it has none\n"
    "                       (default " ENVD_DEFAULT_PATH ")\n"
    "      --user-allow=PAT lift default refusals for names matching PAT\n"
    "      --user-deny=PAT  refuse names matching PAT in user files too\n"
    "      --user-only=PAT  take from user files only names matching PAT\n"
    "                       (allow-list mode; the default refusals still hold)\n"
    "      --reapply=NAMES  show: only the NAMEs (comma-separated), each composed\n"
    "                       over its value in envd's environment, and only where\n"
    "                       that value is not already the files' result over some\n"
    "                       value; implies --inherit (for login shells:\n"
    "                       eval \"$(envd -q show --reapply=PATH --format=shell)\")\n"
    "  -q, --quiet          no diagnostics on stderr\n"
    "  -v, --verbose        also notices (masked files); twice: tracing\n"
    "  -h, --help           this text\n"
    "  -V, --version        the version\n"
    "\n"
    "Without --inherit the expansion base is what a login starts with: HOME,\n"
    "USER, LOGNAME and SHELL from the passwd entry and the default PATH.\n"
    "Diagnostics go to stderr; stdout holds only the requested output.\n"
    "\n"
    "Exit status: 0 success; 1 check reported something; 2 usage error;\n"
    "3 failure (unknown user, out of memory).\n";

static const char *sev_name(enum envd_severity s)
{
	switch (s) {
	case ENVD_ERROR:
		return "error";
	case ENVD_WARNING:
		return "warning";
	case ENVD_NOTICE:
		return "note";
	case ENVD_DEBUG:
		return "debug";
	}
	return "?";
}

static void on_diag(const struct envd_diag *d, void *data)
{
	struct diag_state *st = data;
	int level = d->severity <= ENVD_WARNING ? 0 : d->severity == ENVD_NOTICE ? 1 : 2;

	if (d->severity <= ENVD_WARNING && d->code != ENVD_C_DIR_MISSING)
		st->findings++;
	if (st->verbose < level)
		return;
	/* file names and the paths inside messages are not ours: escaped */
	if (d->file) {
		print_text(stderr, d->file);
		if (d->line)
			fprintf(stderr, ":%u", d->line);
		fputs(": ", stderr);
	} else
		fputs("envd: ", stderr);
	fprintf(stderr, "%s: ", sev_name(d->severity));
	print_text(stderr, d->message);
	fputc('\n', stderr);
}

static int usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "envd: %s%s%s\nTry 'envd --help'.\n", msg, arg ? ": " : "", arg ? arg : "");
	return EXIT_USAGE;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum {
		O_ROOT = 256,
		O_USER_DIR,
		O_NO_USER,
		O_INHERIT,
		O_NO_OVERWRITE,
		O_NO_EXPAND,
		O_DEFAULT_PATH,
		O_ALLOW,
		O_DENY,
		O_ONLY,
		O_REAPPLY
	};
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"explain", no_argument, NULL, 'e'},
	    {"root", required_argument, NULL, O_ROOT},
	    {"user-dir", required_argument, NULL, O_USER_DIR},
	    {"no-user", no_argument, NULL, O_NO_USER},
	    {"inherit", no_argument, NULL, O_INHERIT},
	    {"no-overwrite", no_argument, NULL, O_NO_OVERWRITE},
	    {"no-expand", no_argument, NULL, O_NO_EXPAND},
	    {"default-path", required_argument, NULL, O_DEFAULT_PATH},
	    {"user-allow", required_argument, NULL, O_ALLOW},
	    {"user-deny", required_argument, NULL, O_DENY},
	    {"user-only", required_argument, NULL, O_ONLY},
	    {"reapply", required_argument, NULL, O_REAPPLY},
	    {"quiet", no_argument, NULL, 'q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *cmd = NULL;
	int c;

	o->default_path = ENVD_DEFAULT_PATH;
	opterr = 0; /* our own messages, without the full argv[0] */
	while ((c = getopt_long(argc, argv, ":f:eqvhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (parse_format(optarg, &o->format) < 0)
				return usage_error("unknown format", optarg);
			break;
		case 'e':
			o->explain = true;
			break;
		case O_ROOT:
			o->root = optarg;
			break;
		case O_USER_DIR:
			o->user_dir = optarg;
			break;
		case O_NO_USER:
			o->no_user = true;
			break;
		case O_INHERIT:
			o->inherit = true;
			break;
		case O_NO_OVERWRITE:
			o->no_overwrite = true;
			break;
		case O_NO_EXPAND:
			o->no_expand = true;
			break;
		case O_DEFAULT_PATH:
			o->default_path = optarg;
			break;
		case O_ALLOW:
			o->allow = optarg;
			break;
		case O_DENY:
			o->deny = optarg;
			break;
		case O_ONLY:
			o->only = optarg;
			break;
		case O_REAPPLY:
			o->reapply = optarg;
			o->inherit = true;
			break;
		case 'q':
			o->verbose = -1;
			break;
		case 'v':
			if (o->verbose >= 0)
				o->verbose++;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(EXIT_OK);
		case 'V':
			printf("envd (pam_envd) %s\n", envd_version());
			exit(EXIT_OK);
		case ':':
			return usage_error("option needs an argument", argv[optind - 1]);
		default:
			return usage_error("unknown option", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("missing command", NULL);
	cmd = argv[optind++];
	if (strcmp(cmd, "show") == 0)
		o->cmd = CMD_SHOW;
	else if (strcmp(cmd, "check") == 0)
		o->cmd = CMD_CHECK;
	else if (strcmp(cmd, "files") == 0)
		o->cmd = CMD_FILES;
	else if (strcmp(cmd, "import-pam-environment") == 0)
		o->cmd = CMD_IMPORT; /* its operand is a FILE, kept in o->user */
	else
		return usage_error("unknown command", cmd);
	if (optind < argc)
		o->user = argv[optind++];
	if (optind < argc)
		return usage_error("too many arguments", argv[optind]);
	if (o->explain && (o->format == FORMAT_SHELL || o->format == FORMAT_NUL))
		return usage_error("--explain goes with --format=env or json", NULL);
	if (o->reapply && (o->cmd != CMD_SHOW || o->explain))
		return usage_error("--reapply goes with show, without --explain", NULL);
	if (o->user_dir && o->user_dir[0] != '/')
		return usage_error("--user-dir needs an absolute path", o->user_dir);
	if (o->root && o->root[0] != '/')
		return usage_error("--root needs an absolute path", o->root);
	return EXIT_OK;
}

static struct passwd *find_user(const char *user)
{
	struct passwd *pw;
	char *end;
	unsigned long uid;

	if (!user)
		/* cppcheck-suppress getpwuidCalled ; envd has one thread */
		return getpwuid(getuid());
	/* cppcheck-suppress getpwnamCalled ; envd has one thread */
	pw = getpwnam(user);
	if (pw || !*user)
		return pw;
	if (*user < '0' || *user > '9')
		return NULL; /* digits only: no sign, no blanks */
	errno = 0;
	uid = strtoul(user, &end, 10);
	if (*end || errno || uid > (uid_t)-2)
		return NULL;
	/* cppcheck-suppress getpwuidCalled ; envd has one thread */
	return getpwuid((uid_t)uid);
}

struct run {
	struct envd_config cfg;
	struct envd_policy *policy;
	const char **base; /* borrows environ */
	char *user_dir;
	struct privs privs;
	struct diag_state ds;
};

static int setup(struct run *rn, const struct opts *o, const struct passwd *pw,
                 const struct reapply *ra)
{
	const char *const *env = ra->env      ? ra->env
	                         : o->inherit ? (const char *const *)environ
	                                      : NULL;
	struct stat st;
	int r;

	envd_config_init(&rn->cfg);
	rn->ds.verbose = o->verbose;
	rn->ds.lint = o->cmd == CMD_CHECK;
	rn->cfg.diag = on_diag;
	rn->cfg.diag_data = &rn->ds;
	rn->cfg.diag_level = o->verbose >= 2   ? ENVD_DEBUG
	                     : o->verbose == 1 ? ENVD_NOTICE
	                                       : ENVD_WARNING;
	rn->cfg.flags = (o->no_overwrite ? ENVD_NO_OVERWRITE : 0) |
	                (o->no_expand ? ENVD_NO_EXPAND : 0) | (o->cmd == CMD_CHECK ? ENVD_LINT : 0);
	rn->cfg.root = o->root;
	rn->cfg.user_uid = pw->pw_uid;
	if (o->root) {
		if (stat(o->root, &st) < 0) {
			fprintf(stderr, "envd: %s: %s\n", o->root, strerror(errno));
			return EXIT_FAIL;
		}
		rn->cfg.system_uid = st.st_uid;
	}

	/* with --inherit, the process environment is the whole base, as for
	 * systemd's generator; otherwise what a login starts with */
	r = envd_login_base(env, o->inherit ? NULL : pw->pw_name, o->inherit ? NULL : pw->pw_dir,
	                    o->inherit ? NULL : pw->pw_shell, o->inherit ? NULL : o->default_path,
	                    &rn->base);
	if (r < 0)
		return EXIT_FAIL;
	rn->cfg.base_env = rn->base;
	/* --no-overwrite keeps what the login already had: with --inherit the
	 * whole environment, otherwise nothing (the fallbacks do not count) */
	rn->cfg.base_preset = o->inherit ? SIZE_MAX : 0;

	if (!o->no_user) {
		if (o->user_dir)
			rn->user_dir = strdup(o->user_dir);
		else if (envd_user_dir(NULL, rn->cfg.base_env, pw->pw_name, pw->pw_dir,
		                       &rn->user_dir) < 0)
			return EXIT_FAIL;
		if (o->user_dir && !rn->user_dir)
			return EXIT_FAIL;
		rn->cfg.user_dir = rn->user_dir;
	}

	rn->policy = envd_policy_new(true);
	if (!rn->policy)
		return EXIT_FAIL;
	if ((o->allow && envd_policy_allow(rn->policy, o->allow) < 0) ||
	    (o->deny && envd_policy_deny(rn->policy, o->deny) < 0) ||
	    (o->only && (strspn(o->only, ",: \t\n") == strlen(o->only) ||
	                 envd_policy_only(rn->policy, o->only) < 0))) {
		fprintf(stderr, "envd: invalid name pattern\n");
		return EXIT_USAGE;
	}
	rn->cfg.policy = rn->policy;

	rn->privs.uid = pw->pw_uid;
	rn->privs.gid = pw->pw_gid;
	rn->privs.user = pw->pw_name;
	rn->cfg.enter_user = privs_enter;
	rn->cfg.leave_user = privs_leave;
	rn->cfg.priv_data = &rn->privs;
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct opts o = {0};
	struct run rn = {0};
	struct reapply ra = {0};
	struct envd_result *res = NULL;
	struct passwd *pw;
	int rc, r;

	rc = parse_args(argc, argv, &o);
	if (rc != EXIT_OK)
		return rc;
	if (o.cmd == CMD_IMPORT)
		return import_pam_environment(o.user, o.verbose < 0, stdout);
	pw = find_user(o.user);
	if (!pw) {
		fprintf(stderr, "envd: %s: no such user\n", o.user ? o.user : "(caller)");
		return EXIT_FAIL;
	}
	if (o.reapply) {
		r = reapply_init(&ra, o.reapply, environ);
		if (r == -EINVAL)
			rc = usage_error("--reapply needs shell variable names separated by ','",
			                 o.reapply);
		else if (r < 0)
			rc = EXIT_FAIL;
	}
	if (rc == EXIT_OK)
		rc = setup(&rn, &o, pw, &ra);
	if (rc == EXIT_OK) {
		r = envd_load(&rn.cfg, &res);
		if (r < 0) {
			fprintf(stderr, "envd: loading failed: %s\n", strerror(-r));
			rc = EXIT_FAIL;
		}
	}
	if (rc == EXIT_OK) {
		if (o.cmd == CMD_SHOW && o.reapply) {
			if (reapply_print(stdout, &ra, res, o.format) < 0)
				rc = EXIT_FAIL;
		} else if (o.cmd == CMD_SHOW)
			print_result(stdout, res, o.format, o.explain);
		else if (o.cmd == CMD_FILES)
			print_files(stdout, res, "");
		else if (rn.ds.findings)
			rc = EXIT_FINDINGS;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "envd: write error\n");
			rc = EXIT_FAIL;
		}
	}
	envd_result_free(res);
	reapply_free(&ra);
	envd_policy_free(rn.policy);
	free(rn.base);
	free(rn.user_dir);
	return rc;
}
