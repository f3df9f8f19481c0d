/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* main.c - the envd command: show, explain and lint the environment a
 * login gets from the environment.d directories.  Loads through the same
 * envd_load() as pam_envd.so, with the same defaults. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "child.h"
#include "envd.h"
#include "options.h"
#include "check/lint.h"
#include "side.h"
#include "output.h"
#include "import/import.h"
#include "policy_cmd.h"
#include "reapply.h"
#include "audit/audit.h"
#include "exitcode.h"
#include "audit/pamversion.h"

extern char **environ;

enum command { CMD_SHOW, CMD_CHECK, CMD_FILES, CMD_IMPORT, CMD_AUDIT, CMD_POLICY };

struct opts {
	enum command cmd;
	enum out_format format;
	bool explain, inherit;
	bool shared;              /* an option of lib/options.c's table was given */
	struct envd_settings set; /* those options */
	int verbose;              /* -1 quiet, 0 default, 1 notices, 2 debug */
	const char *root, *user;
	const char *reapply;   /* show --reapply=NAMES */
	const char *as;        /* import-pam-environment --as=USER */
	const char *pam_dir;   /* audit --pam-dir=DIR */
	const char *pam_ver;   /* audit --pam-version=VERSION */
	char *const *services; /* audit's operands */
	size_t n_services;
	const char **sets; /* --set NAME=VALUE, in the order given */
	size_t n_sets;
};

struct diag_state {
	int verbose;
	bool lint;
	size_t findings;
	/* show --explain: check's warnings and notes, for the output's end
	 * (env) or its "check" array (json) */
	bool collect;
	struct kept *kept;
	size_t n_kept;
	bool kept_cut; /* out of memory: the rest went to stderr */
};

/* One thing check says: file NULL for envd's own. */
struct kept {
	char *file;
	unsigned line;
	enum envd_severity severity;
	char *message;
};

static const char usage_head[] =
    "Usage: envd [OPTION]... COMMAND [USER]\n"
    "  or:  envd [-q] import-pam-environment [--as=USER] [FILE]\n"
    "  or:  envd [--pam-dir=DIR] [--pam-version=V] [-f json] audit [SERVICE]...\n"
    "  or:  envd policy\n"
    "Show, explain and lint the environment that pam_envd gives a login of USER\n"
    "(default: the caller) from the environment.d directories.\n"
    "\n"
    "Commands:\n"
    "  show     print the variables, in order of first definition\n"
    "  check    lint the files: print file:line: findings on stdout, exit 1 if\n"
    "           any: also what systemd reads otherwise than it looks, and the\n"
    "           user's assignments that a later system file replaces\n"
    "  files    list the directories searched with their state, then the files\n"
    "           in effect, in order, and those masked or skipped\n"
    "  import-pam-environment  print FILE (default ~/.pam_environment) as an\n"
    "           environment.d file, with a comment on each line it cannot\n"
    "           translate exactly; FILE is read with the rights of --as=USER\n"
    "           (root only; as root the default is nobody's for a FILE)\n"
    "  audit    check the PAM configuration: every module that runs a program\n"
    "           able to see the user's values (after pam_envd at open, before\n"
    "           its cleanup instance at close), and a missing or misplaced\n"
    "           cleanup instance; one line per finding, SERVICE: ok for a\n"
    "           service without any, exit 1 if any\n"
    "  policy   print the default policy for user files, one line each, tab-\n"
    "           separated: refuse PATTERN REASON, allow-back PATTERN REASON\n"
    "           (built-in exceptions), value PATTERN REASON (refused values)\n"
    "\n"
    "Options:\n"
    "  -f, --format=FMT     show: env (NAME=VALUE), shell (export NAME='VALUE'),\n"
    "                       json (one object), nul (NAME=VALUE\\0); default env\n"
    "  -e, --explain        show: add the file:line that set each variable (and\n"
    "                       the user's that it replaced), what the login has\n"
    "                       before pam_envd.so, the directories and files\n"
    "                       searched with their state, and what check says\n"
    "      --root=DIR       prefix the system directories, --admin-dir and\n"
    "                       /run/systemd/system with DIR;\n"
    "                       their files must then belong to DIR's owner, not root\n"
    "      --inherit        expand against this process's environment, as\n"
    "                       systemd's generator does; the user directory follows\n"
    "                       $XDG_CONFIG_HOME or $HOME (as root: no other USER)\n"
    "      --reapply=NAMES  show: only the NAMEs (comma-separated), each composed\n"
    "                       over its value in envd's environment, and only where\n"
    "                       that value is not already the files' result over some\n"
    "                       value; implies --inherit (for login shells:\n"
    "                       eval \"$(envd -q show --reapply=PATH --format=shell)\");\n"
    "                       nothing where no service applies pam_envd.so\n"
    "      --set=NAME=VALUE show, check, files: the login has NAME=VALUE before\n"
    "                       pam_envd.so runs (repeatable; overrides the model)\n"
    "      --pam-dir=DIR    read DIR instead of /etc/pam.d (audit; and where\n"
    "                       show, check and files find pam_systemd.so)\n"
    "      --pam-version=V  audit: continue lines across comment and blank lines\n"
    "                       as Linux-PAM V does (1.5 and older join, 1.6 and later\n"
    "                       stop); default the installed libpam's, from dpkg; when\n"
    "                       that is unknown, or V is \"any\", both ways; V,econf:\n"
    "                       built with libeconf (pam_env reads environment.d)\n"
    "  -q, --quiet          no diagnostics on stderr\n"
    "  -v, --verbose        also notices (masked files); twice: tracing\n"
    "  -h, --help           this text\n"
    "  -V, --version        the version\n"
    "\n"
    "pam_envd.so's options (--user-dir is its user_dir=, --no-user its nouser):\n";

static const char usage_tail[] =
    "\n"
    "Without --inherit the expansion base is what a login starts with: HOME,\n"
    "USER, LOGNAME and SHELL from the passwd entry, PATH=--default-path\n"
    "(default " ENVD_DEFAULT_PATH ")\n"
    "XDG_RUNTIME_DIR=/run/user/UID where pam_systemd.so comes before pam_envd.so\n"
    "and systemd runs ([--root]/run/systemd/system is a directory),\n"
    "and --set; variables each session sets (XDG_SESSION_TYPE, DISPLAY...) are\n"
    "unknown, and a value that uses one is noted.\n"
    "Diagnostics go to stderr; stdout holds only the requested output.\n"
    "\n"
    "Exit status: 0 success; 1 check or audit reported something; 2 usage error;\n"
    "3 failure (unknown user, out of memory).\n";

/* The help text: the shared options from the table, one line each. */
static void usage(FILE *out)
{
	char name[64];
	int col;

	fputs(usage_head, out);
	for (const struct envd_option *o = envd_options; o->name; o++) {
		col = fprintf(out, "      --%s%s%s", envd_option_cli_name(o, name, sizeof(name)),
		              o->arg ? "=" : "", o->arg ? o->arg : "");
		if (col > 22)
			fprintf(out, "\n%23s", "");
		else
			fprintf(out, "%*s", 23 - col, "");
		fprintf(out, "%s\n", o->help);
	}
	fputs(usage_tail, out);
}

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

/* Keeps d for show --explain's output, as check prints it.  Returns
 * false when it cannot. */
static bool keep_diag(struct diag_state *st, const struct envd_diag *d)
{
	struct kept *v, k = {.line = d->line, .severity = d->severity};

	if (st->kept_cut)
		return false;
	v = realloc(st->kept, (st->n_kept + 1) * sizeof(*v));
	if (v)
		st->kept = v;
	k.file = d->file ? strdup(d->file) : NULL;
	k.message = strdup(d->message);
	if (!v || !k.message || (d->file && !k.file)) {
		free(k.file);
		free(k.message);
		st->kept_cut = true;
		return false;
	}
	st->kept[st->n_kept++] = k;
	return true;
}

/* check's findings are its output, on stdout; everything else, and every
 * other command's diagnostics, go to stderr.  A value that depends on a
 * variable of the session is noted without -v. */
static void on_diag(const struct envd_diag *d, void *data)
{
	struct diag_state *st = data;
	int level = d->severity <= ENVD_WARNING || d->code == ENVD_C_SESSION_UNKNOWN ? 0
	            : d->severity == ENVD_NOTICE                                     ? 1
	                                                                             : 2;
	bool finding = d->severity <= ENVD_WARNING && d->code != ENVD_C_DIR_MISSING;
	FILE *out = st->lint && finding ? stdout : stderr;

	if (finding)
		st->findings++;
	if (st->collect && (d->severity == ENVD_WARNING || d->code == ENVD_C_SESSION_UNKNOWN) &&
	    keep_diag(st, d))
		return;
	if (st->verbose < level)
		return;
	/* file names and the paths inside messages are not ours: escaped */
	if (d->file) {
		print_text(out, d->file);
		if (d->line)
			fprintf(out, ":%u", d->line);
		fputs(": ", out);
	} else
		fputs("envd: ", out);
	fprintf(out, "%s: ", sev_name(d->severity));
	print_text(out, d->message);
	fputc('\n', out);
}

/* msg NULL: the message is out already */
static int usage_error(const char *msg, const char *arg)
{
	if (msg)
		fprintf(stderr, "envd: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
	fputs("Try 'envd --help'.\n", stderr);
	return EXIT_USAGE;
}

/* "envd: --max-env: not a positive size" */
static void option_report(const struct envd_option *o, const char *problem, bool user_side_off,
                          void *data)
{
	char name[64];

	fprintf(stderr, "envd: --%s: %s\n", envd_option_cli_name(o, name, sizeof(name)), problem);
}

enum {
	O_ROOT = 256,
	O_INHERIT,
	O_REAPPLY,
	O_AS,
	O_PAM_DIR,
	O_PAM_VERSION,
	O_SET,
	O_SHARED, /* + the row of envd_options */
};

#define MAX_SHARED 32 /* rows of envd_options */

/* envd's own long options, then the table's rows with their derived
 * names. */
static const struct option *long_options(void)
{
	static char names[MAX_SHARED][64];
	static const struct option own[] = {
	    {"format", required_argument, NULL, 'f'},
	    {"explain", no_argument, NULL, 'e'},
	    {"root", required_argument, NULL, O_ROOT},
	    {"inherit", no_argument, NULL, O_INHERIT},
	    {"reapply", required_argument, NULL, O_REAPPLY},
	    {"as", required_argument, NULL, O_AS},
	    {"pam-dir", required_argument, NULL, O_PAM_DIR},
	    {"pam-version", required_argument, NULL, O_PAM_VERSION},
	    {"set", required_argument, NULL, O_SET},
	    {"quiet", no_argument, NULL, 'q'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	};
	size_t n = sizeof(own) / sizeof(own[0]), k = 0;
	static struct option all[sizeof(own) / sizeof(own[0]) + MAX_SHARED + 1];

	memcpy(all, own, sizeof(own));
	for (const struct envd_option *o = envd_options; o->name && k < MAX_SHARED; o++, k++) {
		all[n++] = (struct option){
		    .name = envd_option_cli_name(o, names[k], sizeof(names[k])),
		    .has_arg = o->flag ? no_argument : required_argument,
		    .val = O_SHARED + (int)k,
		};
	}
	all[n] = (struct option){0};
	return all;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	const struct option *longopts = long_options();
	const char *cmd = NULL;
	enum pam_lines lines;
	int c, r;

	if (envd_settings_init(&o->set) < 0)
		return EXIT_FAIL;
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
		case O_INHERIT:
			o->inherit = true;
			break;
		case O_REAPPLY:
			o->reapply = optarg;
			o->inherit = true;
			break;
		case O_AS:
			o->as = optarg;
			break;
		case O_PAM_DIR:
			o->pam_dir = optarg;
			break;
		case O_PAM_VERSION:
			o->pam_ver = optarg;
			break;
		case O_SET: {
			const char *eq = strchr(optarg, '=');

			if (!eq || !envd_name_valid(optarg, (size_t)(eq - optarg)))
				return usage_error("--set needs NAME=VALUE", NULL);
			if (!o->sets)
				o->sets = calloc((size_t)argc, sizeof(*o->sets));
			if (!o->sets)
				return EXIT_FAIL;
			o->sets[o->n_sets++] = optarg;
			break;
		}
		case 'q':
			o->verbose = -1;
			break;
		case 'v':
			if (o->verbose >= 0)
				o->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(EXIT_OK);
		case 'V':
			printf("envd (pam_envd) %s\n", envd_version());
			exit(EXIT_OK);
		case ':':
			return usage_error("option needs an argument", argv[optind - 1]);
		default:
			if (c < O_SHARED)
				return usage_error("unknown option", argv[optind - 1]);
			o->shared = true;
			r = envd_option_set(&envd_options[c - O_SHARED], &o->set, optarg,
			                    option_report, NULL);
			if (r == -ENOMEM)
				return EXIT_FAIL;
			if (r < 0)
				return usage_error(NULL, NULL);
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
	else if (strcmp(cmd, "policy") == 0)
		o->cmd = CMD_POLICY;
	else if (strcmp(cmd, "audit") == 0) {
		o->cmd = CMD_AUDIT; /* any number of SERVICE operands */
		o->services = argv + optind;
		o->n_services = (size_t)(argc - optind);
		if (o->format != FORMAT_ENV && o->format != FORMAT_JSON)
			return usage_error("audit's formats are env (lines) and json", NULL);
		if (o->explain || o->reapply || o->root || o->inherit || o->shared || o->as ||
		    o->n_sets)
			return usage_error(
			    "audit takes --pam-dir, --pam-version, --format, -q and -v only", NULL);
		if (o->pam_ver && pam_lines_of(o->pam_ver, &lines) < 0)
			return usage_error(
			    "--pam-version: not a Linux-PAM version (1.5, 1.7.0, any)", o->pam_ver);
		return EXIT_OK;
	} else
		return usage_error("unknown command", cmd);
	if (o->pam_ver)
		return usage_error("--pam-version goes with audit", NULL);
	if ((o->pam_dir || o->n_sets) && (o->cmd == CMD_IMPORT || o->cmd == CMD_POLICY))
		return usage_error(o->pam_dir ? "--pam-dir goes with audit, show, check and files"
		                              : "--set goes with show, check and files",
		                   NULL);
	if (o->n_sets && o->reapply)
		return usage_error("--set goes with show, check and files, not --reapply", NULL);
	if (optind < argc)
		o->user = argv[optind++];
	if (optind < argc)
		return usage_error("too many arguments", argv[optind]);
	if (o->cmd == CMD_POLICY && o->user)
		return usage_error("policy takes no operand", o->user);
	if (o->explain && (o->format == FORMAT_SHELL || o->format == FORMAT_NUL))
		return usage_error("--explain goes with --format=env or json", NULL);
	if (o->as && o->cmd != CMD_IMPORT)
		return usage_error("--as goes with import-pam-environment", NULL);
	if (o->reapply && (o->cmd != CMD_SHOW || o->explain))
		return usage_error("--reapply goes with show, without --explain", NULL);
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

/* Variables each session sets (pam_systemd from what a display manager
 * or the service says, the display manager itself): their values are not
 * known here. */
static const char *const session_names[] = {
    "XDG_SESSION_TYPE",
    "XDG_SESSION_CLASS",
    "XDG_SESSION_DESKTOP",
    "XDG_CURRENT_DESKTOP",
    "XDG_SESSION_ID",
    "XDG_SEAT",
    "XDG_VTNR",
    "DESKTOP_SESSION",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    NULL,
};

/* What a login has before pam_envd.so runs, besides the passwd entry's. */
struct model {
	int pam_err; /* the PAM directory could not be read: its errno */
	struct pam_systemd_use use;
	bool runtime_dir; /* XDG_RUNTIME_DIR as pam_systemd sets it */
	bool systemd;     /* systemd runs: [--root]/run/systemd/system is a directory */
	bool before;      /* pam_systemd.so is where it would set XDG_RUNTIME_DIR */
	bool runtime_set; /* ... given by --set instead */
	char runtime[64]; /* "XDG_RUNTIME_DIR=/run/user/UID" */
};

struct run {
	struct envd_config cfg;
	const char **base; /* borrows env */
	const char **env;  /* --set, then environ (--inherit) or the model */
	size_t n_env;
	struct model model;
	int applied; /* a service applies pam_envd.so: 1, 0, or -errno */
	char *user_dir;
	struct envd_ids ids; /* root for another user: the child's */
	struct diag_state ds;
};

static bool set_has(const struct opts *o, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < o->n_sets; i++)
		if (strncmp(o->sets[i], name, n) == 0 && o->sets[i][n] == '=')
			return true;
	return false;
}

/* pam_systemd sets XDG_RUNTIME_DIR only where systemd runs (logind gives
 * it): sd_booted()'s test, below --root where one is given. */
static bool systemd_runs(const struct opts *o)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/run/systemd/system", o->root ? o->root : "");
	return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The login's environment before the module: --set (the last of a name
 * first: the first occurrence counts), then envd's own with --inherit,
 * else XDG_RUNTIME_DIR where pam_systemd.so sets it before pam_envd.so:
 * in a service that applies the module, or where none does, anywhere
 * (the module's place is the last session line). */
static int login_env(struct run *rn, const struct opts *o, const struct passwd *pw)
{
	struct model *m = &rn->model;
	size_t ne = 0, k = 0, i;

	while (o->inherit && environ[ne])
		ne++;
	rn->env = calloc(o->n_sets + ne + 2, sizeof(*rn->env));
	if (!rn->env)
		return -ENOMEM;
	for (i = o->n_sets; i-- > 0;)
		rn->env[k++] = o->sets[i];
	for (i = 0; i < ne; i++)
		rn->env[k++] = environ[i];
	if (!o->inherit) {
		m->runtime_set = set_has(o, "XDG_RUNTIME_DIR");
		m->pam_err = -audit_pam_systemd(o->pam_dir, &m->use);
		m->before = !m->pam_err &&
		            (m->use.applying ? m->use.after_systemd > 0 : m->use.with_systemd > 0);
		m->systemd = systemd_runs(o);
		m->runtime_dir = m->before && m->systemd;
		snprintf(m->runtime, sizeof(m->runtime), "XDG_RUNTIME_DIR=/run/user/%lu",
		         (unsigned long)pw->pw_uid);
		if (m->runtime_dir && !m->runtime_set)
			rn->env[k++] = m->runtime;
	}
	rn->n_env = k;
	return 0;
}

/* show --explain: what the login has before the module. */
static void print_model(FILE *out, const struct run *rn, const struct opts *o)
{
	const struct model *m = &rn->model;
	const char *dir = o->pam_dir ? o->pam_dir : "/etc/pam.d";

	if (o->inherit)
		fputs("# before pam_envd.so: envd's own environment (--inherit), as systemd's "
		      "generator has its manager's, and:\n",
		      out);
	else
		fputs("# before pam_envd.so the login has HOME, USER, LOGNAME and SHELL from the "
		      "passwd entry, PATH, and:\n",
		      out);
	for (size_t i = 0; i < o->n_sets; i++) {
		fputs("#   ", out);
		print_text(out, o->sets[i]);
		fputs(" (--set)\n", out);
	}
	if (o->inherit || m->runtime_set)
		;
	else if (m->pam_err) {
		fputs("#   no XDG_RUNTIME_DIR: ", out);
		print_text(out, dir);
		fprintf(out, " cannot be read (%s)\n", strerror(m->pam_err));
	} else if (m->before && !m->systemd) {
		fputs("#   no XDG_RUNTIME_DIR: pam_systemd.so is before pam_envd.so, but systemd "
		      "does not run here (no ",
		      out);
		if (o->root)
			print_text(out, o->root);
		fputs("/run/systemd/system), and pam_systemd.so sets it only where it does\n", out);
	} else if (m->runtime_dir && m->use.applying)
		fprintf(out,
		        "#   %s from pam_systemd.so, before pam_envd.so in %zu of the %zu "
		        "service%s that apply it (systemd runs here)\n",
		        m->runtime, m->use.after_systemd, m->use.applying,
		        m->use.applying == 1 ? "" : "s");
	else if (m->runtime_dir)
		fprintf(out,
		        "#   %s from pam_systemd.so (in %zu service%s; no service applies "
		        "pam_envd.so yet: taken as the last session line; systemd runs here)\n",
		        m->runtime, m->use.with_systemd, m->use.with_systemd == 1 ? "" : "s");
	else if (m->use.applying)
		fprintf(
		    out,
		    "#   no XDG_RUNTIME_DIR: pam_systemd.so is not before pam_envd.so in any of "
		    "the %zu service%s that apply it\n",
		    m->use.applying, m->use.applying == 1 ? "" : "s");
	else
		fputs("#   no XDG_RUNTIME_DIR: no service has pam_systemd.so\n", out);
	/* pam_systemd's apply_user_record_settings() puts a user record's
	 * environment only where the PAM environment has no such name yet */
	if (!o->inherit && !m->pam_err && m->use.with_systemd > 0)
		fputs("#   pam_systemd.so also sets the user record's \"environment\" (userdbctl "
		      "user USER), unexpanded, for names unset when it runs: a name both set "
		      "has pam_envd.so's value, after pam_systemd.so or before it (with "
		      "nooverwrite after it, the record's)\n",
		      out);
	if (!o->inherit)
		fputs("#   not known here, each session sets them: XDG_SESSION_TYPE, "
		      "XDG_SESSION_DESKTOP, XDG_CURRENT_DESKTOP, DISPLAY... (--set gives one)\n",
		      out);
}

/* The login does not see the caller's shell: an XDG_CONFIG_HOME there
 * that names another user directory is worth a word. */
static void note_config_home(const struct run *rn, const struct opts *o, const struct passwd *pw)
{
	const char *const *env = (const char *const *)environ;
	char *mine = NULL;

	if (o->inherit || o->set.user_dir || (o->set.flags & ENVD_SET_NOUSER) || o->verbose < 0 ||
	    set_has(o, "XDG_CONFIG_HOME") || pw->pw_uid != getuid() ||
	    !envd_env_get(env, "XDG_CONFIG_HOME"))
		return;
	if (envd_user_dir(NULL, env, pw->pw_name, pw->pw_dir, &mine) < 0 || !mine)
		return;
	if (!rn->user_dir || strcmp(mine, rn->user_dir) != 0) {
		fputs("envd: note: XDG_CONFIG_HOME is set here, but a login does not see this "
		      "shell's variables: it reads ",
		      stderr);
		print_text(stderr, rn->user_dir ? rn->user_dir : "no user directory");
		fputs(", not ", stderr);
		print_text(stderr, mine);
		fputs(" (--inherit reads that one, as systemd's generator in a manager that has "
		      "XDG_CONFIG_HOME)\n",
		      stderr);
	}
	free(mine);
}

static int setup(struct run *rn, const struct opts *o, const struct passwd *pw,
                 const struct reapply *ra)
{
	const char *const *env;
	struct stat st;
	int r;

	if (!ra->env && login_env(rn, o, pw) < 0)
		return EXIT_FAIL;
	if (ra->env)
		rn->applied = 1; /* main asked before */
	else if (!o->inherit)
		rn->applied = rn->model.pam_err ? -rn->model.pam_err : rn->model.use.applying > 0;
	else
		rn->applied = audit_applied(o->pam_dir);
	env = ra->env ? ra->env : rn->env;
	envd_config_init(&rn->cfg);
	rn->ds.verbose = o->verbose;
	rn->ds.lint = o->cmd == CMD_CHECK;
	rn->ds.collect = o->cmd == CMD_SHOW && o->explain &&
	                 (o->format == FORMAT_ENV || o->format == FORMAT_JSON);
	rn->cfg.diag = on_diag;
	rn->cfg.diag_data = &rn->ds;
	rn->cfg.diag_level = o->verbose >= 2   ? ENVD_DEBUG
	                     : o->verbose == 1 ? ENVD_NOTICE
	                                       : ENVD_WARNING;
	/* notices are formatted for the session variables' (on_diag) */
	if (rn->cfg.diag_level < ENVD_NOTICE)
		rn->cfg.diag_level = ENVD_NOTICE;
	rn->cfg.flags = o->cmd == CMD_CHECK || o->explain ? ENVD_LINT : 0;
	rn->cfg.session_names = session_names;
	envd_settings_config(&o->set, &rn->cfg);
	if (rn->cfg.reader == NULL)
		rn->cfg.reader = envd_cli_reader();
	rn->cfg.lint = &envd_lint_ops;      /* check's warnings, and the session names' notices */
	rn->cfg.read_here = envd_side_read; /* the caller's own files, read as the caller */
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
	                    o->inherit ? NULL : pw->pw_shell,
	                    o->inherit ? NULL : o->set.default_path, &rn->base);
	if (r < 0)
		return EXIT_FAIL;
	rn->cfg.base_env = rn->base;
	/* --no-overwrite keeps what the login already had: with --inherit the
	 * whole environment, otherwise nothing (the fallbacks do not count) */
	rn->cfg.base_preset = o->inherit || ra->env ? SIZE_MAX : rn->n_env;

	if (!(o->set.flags & ENVD_SET_NOUSER) && !o->set.user_side_off) {
		if (envd_user_dir(o->set.user_dir, rn->cfg.base_env, pw->pw_name, pw->pw_dir,
		                  &rn->user_dir) < 0)
			return EXIT_FAIL;
		rn->cfg.user_dir = rn->user_dir;
	}

	/* root reads another user's files as the user, in a child (the
	 * module's way); anyone else reads with their own rights */
	rn->cfg.user_name = pw->pw_name;
	rn->cfg.user_gid = pw->pw_gid;
	if ((rn->cfg.user_dir && geteuid() == 0 && pw->pw_uid != 0) || o->set.admin_dir) {
		r = envd_ids_get(pw->pw_name, pw->pw_uid, pw->pw_gid, &rn->ids);
		if (r < 0) {
			fprintf(stderr, "envd: %s: cannot look up the groups: %s\n", pw->pw_name,
			        strerror(-r));
			return EXIT_FAIL;
		}
		if (rn->cfg.user_dir && geteuid() == 0 && pw->pw_uid != 0)
			rn->cfg.user_ids = &rn->ids;
	}
	/* --admin-dir: the user's own directory there and its groups' */
	rn->cfg.admin_user = pw->pw_name;
	rn->cfg.admin_groups = rn->ids.groups;
	rn->cfg.admin_ngroups = rn->ids.ngroups;
	return EXIT_OK;
}

/* check: a ~/.pam_environment that pam_env.so still reads as root in a
 * service that applies pam_envd.so (audit's finding).  Looked at only by
 * the user: root touches nothing under another user's home. */
static void check_pam_environment(struct run *rn, const struct passwd *pw)
{
	char *path = NULL;
	struct stat st;

	if (!rn->model.use.readenv[0] || pw->pw_uid != getuid() || pw->pw_dir[0] != '/' ||
	    asprintf(&path, "%s/.pam_environment", pw->pw_dir) < 0)
		return;
	if (lstat(path, &st) == 0) {
		rn->ds.findings++;
		print_text(stdout, path);
		fputs(": warning: pam_env.so user_readenv=1 still reads this file, as root, in ",
		      stdout);
		print_text(stdout, rn->model.use.readenv);
		fputs(", a service that also applies pam_envd.so: whichever comes later wins, and "
		      "names pam_envd.so refuses come through; move it (envd "
		      "import-pam-environment), then remove it, or have an administrator drop "
		      "user_readenv=1 from that line\n",
		      stdout);
	}
	free(path);
}

/* show and check say first when no service applies the module: the
 * variables are what a login would get, and none does. */
static void print_unapplied(FILE *out, const char *prefix, const struct opts *o)
{
	fputs(prefix, out);
	fputs("no service in ", out);
	print_text(out, o->pam_dir ? o->pam_dir : "/etc/pam.d");
	fputs(" applies pam_envd.so: no login gets these variables, and the login-shell "
	      "snippet applies none (envd audit)\n",
	      out);
}

/* show --explain's end: what check finds in the files. */
static void print_kept(FILE *out, const struct diag_state *st)
{
	if (st->n_kept)
		fputs("# envd check says:\n", out);
	for (size_t i = 0; i < st->n_kept; i++) {
		const struct kept *k = &st->kept[i];

		fputs("#   ", out);
		print_text(out, k->file ? k->file : "envd");
		if (k->line)
			fprintf(out, ":%u", k->line);
		fprintf(out, ": %s: ", sev_name(k->severity));
		print_text(out, k->message);
		fputc('\n', out);
	}
}

/* show --explain --format=json: the members after "files", as the env
 * format's comment lines say them: the login before pam_envd.so, why the
 * user directory was not searched (null: it was) and what check says. */
static void print_json_login(FILE *out, const struct run *rn, const struct opts *o,
                             const char *user_off)
{
	const struct model *m = &rn->model;
	const char *from = NULL, *value;

	fprintf(out, ",\n\"login\":{\"inherit\":%s,\"set\":[", o->inherit ? "true" : "false");
	for (size_t i = 0; i < o->n_sets; i++) {
		size_t n = strcspn(o->sets[i], "="); /* parse_args saw the '=' */

		fputs(i ? ",{\"name\":" : "{\"name\":", out);
		print_json_string(out, o->sets[i], n);
		fputs(",\"value\":", out);
		print_json_text(out, o->sets[i] + n + (o->sets[i][n] == '='));
		fputc('}', out);
	}
	/* the value the load saw, and where it came from */
	value = envd_env_get(rn->env, "XDG_RUNTIME_DIR");
	if (value)
		from = set_has(o, "XDG_RUNTIME_DIR") ? "--set"
		       : o->inherit                  ? "--inherit"
		                                     : "pam_systemd.so";
	fputs("],\n\"xdg_runtime_dir\":{\"value\":", out);
	print_json_text(out, value);
	fputs(",\"from\":", out);
	print_json_text(out, from);
	/* where no service applies the module yet, its place is taken as
	 * the last session line: the services with pam_systemd.so count */
	fprintf(out,
	        ",\"systemd_running\":%s,\"services_applying\":%zu,"
	        "\"services_after_pam_systemd\":%zu,",
	        m->systemd ? "true" : "false", m->use.applying, m->use.after_systemd);
	if (m->use.applying)
		fputs("\"services_with_pam_systemd\":null,\"error\":", out);
	else
		fprintf(out, "\"services_with_pam_systemd\":%zu,\"error\":", m->use.with_systemd);
	print_json_text(out, !o->inherit && m->pam_err ? strerror(m->pam_err) : NULL);
	fputs("},\n\"per_session\":[", out);
	for (size_t i = 0; !o->inherit && session_names[i]; i++) {
		fputs(i ? "," : "", out);
		print_json_text(out, session_names[i]);
	}
	fputs("]},\n\"no_service_applies\":", out);
	fputs(rn->applied < 0 ? "null" : rn->applied ? "false" : "true", out);
	fputs(",\n\"user_directory_skipped\":", out);
	print_json_text(out, user_off);
	fputs(",\n\"check\":[", out);
	for (size_t i = 0; i < rn->ds.n_kept; i++) {
		const struct kept *k = &rn->ds.kept[i];

		fputs(i ? ",\n{\"file\":" : "\n{\"file\":", out);
		print_json_text(out, k->file);
		fprintf(out, ",\"line\":%u,\"severity\":\"%s\",\"message\":", k->line,
		        sev_name(k->severity));
		print_json_text(out, k->message);
		fputc('}', out);
	}
	fputs("]}\n", out);
}

/* Why the user directory is not searched, or NULL when it is. */
static const char *user_off(const struct opts *o, const struct run *rn)
{
	if ((o->set.flags & ENVD_SET_NOUSER))
		return "--no-user";
	if (!rn->user_dir)
		return "no absolute home";
	return NULL;
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
		goto out;
	if (o.cmd == CMD_IMPORT) {
		rc = import_pam_environment(o.user, o.as, o.verbose < 0, stdout);
		goto out;
	}
	if (o.cmd == CMD_AUDIT) {
		struct audit_opts ao = {.pam_dir = o.pam_dir,
		                        .pam_version = o.pam_ver,
		                        .verbose = o.verbose,
		                        .json = o.format == FORMAT_JSON,
		                        .services = o.services,
		                        .n_services = o.n_services};

		rc = audit_run(&ao, stdout);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "envd: write error\n");
			rc = EXIT_FAIL;
		}
		goto out;
	}
	if (o.cmd == CMD_POLICY) {
		rc = EXIT_OK;
		if (policy_print(stdout) != 0) {
			fprintf(stderr, "envd: write error\n");
			rc = EXIT_FAIL;
		}
		goto out;
	}
	pw = find_user(o.user);
	if (!pw) {
		fprintf(stderr, "envd: %s: no such user\n", o.user ? o.user : "(caller)");
		rc = EXIT_FAIL;
		goto out;
	}
	/* root's whole environment would be the base of another user's
	 * load: the reader and the generators run as that user, and a
	 * generator's environment is readable by the user (/proc/PID/environ) */
	if (o.inherit && geteuid() == 0 && pw->pw_uid != 0) {
		rc =
		    usage_error(o.reapply ? "--reapply expands against this process's environment: "
		                            "as root it takes no other user"
		                          : "--inherit expands against this process's environment: "
		                            "as root it takes no other user",
		                o.user);
		goto out;
	}
	if (o.reapply) {
		r = reapply_init(&ra, o.reapply, environ);
		if (r == -EINVAL)
			rc = usage_error("--reapply needs shell variable names separated by ','",
			                 o.reapply);
		else if (r < 0)
			rc = EXIT_FAIL;
	}
	/* the login-shell snippet: nothing where no service applies the
	 * module (off is off); where that cannot be told, as before */
	if (rc == EXIT_OK && o.reapply && audit_applied(o.pam_dir) == 0)
		goto out;
	if (rc == EXIT_OK)
		rc = setup(&rn, &o, pw, &ra);
	if (rc == EXIT_OK && rn.applied == 0 && o.verbose >= 0 &&
	    (o.cmd == CMD_CHECK || (o.cmd == CMD_SHOW && !o.explain)))
		print_unapplied(stderr, "envd: note: ", &o);
	if (rc == EXIT_OK && (o.cmd == CMD_SHOW || o.cmd == CMD_CHECK || o.cmd == CMD_FILES))
		note_config_home(&rn, &o, pw);
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
		} else if (o.cmd == CMD_SHOW && o.explain && o.format == FORMAT_ENV) {
			if (rn.applied == 0)
				print_unapplied(stdout, "# ", &o);
			print_model(stdout, &rn, &o);
			print_result(stdout, res, o.format, true);
			fputs("# directories, highest precedence first:\n", stdout);
			print_dirs(stdout, res, "#   ", user_off(&o, &rn));
			fputs("# files, in the order they are read:\n", stdout);
			print_files(stdout, res, "#   ");
			print_kept(stdout, &rn.ds);
		} else if (o.cmd == CMD_SHOW && o.explain && o.format == FORMAT_JSON) {
			print_json_explained(stdout, res);
			print_json_login(stdout, &rn, &o, user_off(&o, &rn));
		} else if (o.cmd == CMD_SHOW)
			print_result(stdout, res, o.format, o.explain);
		else if (o.cmd == CMD_FILES) {
			print_dirs(stdout, res, "", user_off(&o, &rn));
			print_files(stdout, res, "");
		} else {
			if (o.cmd == CMD_CHECK && !o.inherit)
				check_pam_environment(&rn, pw);
			if (rn.ds.findings)
				rc = EXIT_FINDINGS;
		}
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "envd: write error\n");
			rc = EXIT_FAIL;
		}
	}
out:
	envd_result_free(res);
	reapply_free(&ra);
	envd_settings_free(&o.set);
	free(rn.base);
	free(rn.env);
	for (size_t i = 0; i < rn.ds.n_kept; i++) {
		free(rn.ds.kept[i].file);
		free(rn.ds.kept[i].message);
	}
	free(rn.ds.kept);
	free(o.sets);
	free(rn.user_dir);
	envd_ids_free(&rn.ids);
	return rc;
}
