/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* policy.c - which names a user's file may set.
 *
 * The variables pam_envd sets reach every later module, every module's
 * close hook, the helpers pam_exec runs as root and applications that copy
 * the PAM environment into a root process.  The rule (SECURITY.md): a name
 * is refused when a program that may run as root after the module changes
 * what code it runs, what configuration or command it takes or what files
 * it opens because of it; what only the user's own interactive session or
 * desktop reads stays allowed.  A deny list is the second lock, never the
 * first: the cleanup instance and the module last in the stack are what
 * keep a user's values from root programs.
 *
 * Three tables, each with the reason that the logs, `envd check` and
 * `envd policy` show and that pam_envd(8) repeats: the names refused, the
 * names allowed back from those (built in; the administrator's user_allow
 * is separate), and the names refused only for some values. */
#include "config.h"

#include <errno.h>
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
static const char git[] = "steers git run later, possibly as root: its repository, "
                          "configuration, commands and trace files";
static const char bus[] = "points D-Bus clients run later, possibly as root, at a bus the user "
                          "chose, or makes them run a command (unixexec:)";
static const char options[] = "adds options or file names to a tool run later, possibly as root";
static const char config[] = "makes a tool run later, possibly as root, read a configuration "
                             "file the user chose";
static const char trust[] = "makes TLS clients run later, possibly as root, trust certificates "
                            "the user chose or stop checking them";
static const char modules[] = "makes a library in programs started later load modules (code) "
                              "from where the user says";
static const char package[] = "steers the package tools run later, possibly as root: their "
                              "database, root directory, options, prompts and the configuration "
                              "they load";
static const char fs[] = "steers mount and file system tools run later, possibly as root: the "
                         "tables, caches and configuration they read or write, or their test "
                         "hooks";
static const char parsing[] = "changes how tools run later, possibly as root, parse their options "
                              "and arguments";
static const char display[] = "points X and Wayland clients run later, possibly as root, at a "
                              "display the user chose, with a cookie from a file the user names; "
                              "through the display libdbus and GLib autolaunch a session bus "
                              "whose address (unixexec: included) the X server gives";
static const char mail[] = "makes the mail system's sendmail run later, possibly as root, read "
                           "the configuration the user chose (Postfix takes MAIL_CONFIG from "
                           "root callers) and run the commands and debugger it names";
static const char directory[] = "makes LDAP and SASL clients run later, possibly as root, load "
                                "SASL plugins (code) from where the user says, or send their "
                                "bind secret to a server or TLS setting the user chose";
static const char print[] = "points CUPS clients run later, possibly as root, at a server the "
                            "user chose, or makes them read configuration, data and helpers "
                            "from where the user says";
static const char build[] = "steers builds run later, possibly as root (a module or gem built "
                            "on install, DKMS, node-gyp): the compiler, make and flags they "
                            "run, the paths they install to, the test harness they load";
static const char cgi[] = "makes a program run later, possibly as root, believe a web server "
                          "runs it: the request, the path and repository it serves, the "
                          "remote user it acts for";
static const char node[] = "steers node run later, possibly as root: the code it loads, the "
                           "certificates it trusts, the files it writes";

/* The reason names the category; the list is in strcmp order (a unit
 * test keeps it so), which the scan in envd_policy_check relies on. */
const struct envd_policy_entry envd_default_deny[] = {
    {"APT_CONFIG", config},
    {"APT_EDSP_DUMP_FILENAME", package},
    {"APT_LISTCHANGES_FRONTEND", package},
    {"AR_*", build},
    {"AUDIODEV", tool},
    {"AUTH_*", identity},
    {"AWS_CA_BUNDLE", trust},
    {"BASHOPTS", shell_init},
    {"BASH_ENV", shell_init},
    {"BASH_FUNC_*", shell_init},
    {"BASH_XTRACEFD", shell_init},
    {"BC_ENV_ARGS", options},
    {"BLKID_*", fs},
    {"BROADWAY_DISPLAY", display},
    {"BUNDLER_*", interp},
    {"BUNDLE_*", interp},
    {"BZIP", options},
    {"BZIP2", options},
    {"CC", build},
    {"CC_*", build},
    {"CDPATH", shell_init},
    {"CFLAGS*", build},
    {"CHARSETALIASDIR", tool},
    {"CLASS", print},
    {"CLASSPATH", interp},
    {"COMERR_*", tool},
    {"CONFIGURE_ARGS", build},
    {"CONSOLE", tool},
    {"CONTENT_LENGTH", cgi},
    {"CONTENT_TYPE", cgi},
    {"COREPACK_*", package},
    {"CPAN_OPTS", build},
    {"CPPFLAGS*", build},
    {"CREDENTIALS_DIRECTORY", service},
    {"CTLOG_FILE", trust},
    {"CUPS_*", print},
    {"CURL_CA_BUNDLE", trust},
    {"CURL_HOME", config},
    {"CVSIGNORE", options},
    {"CVSROOT", tool},
    {"CVS_RSH", tool},
    {"CVS_SERVER", tool},
    {"CXX", build},
    {"CXXFLAGS*", build},
    {"CXX_*", build},
    {"DATEMSK", loader},
    {"DBUS_BLOCK_ON_ABORT", bus},
    {"DBUS_DEBUG_OUTPUT", bus},
    {"DBUS_FATAL_WARNINGS", bus},
    {"DBUS_STARTER_ADDRESS", bus},
    {"DBUS_STARTER_BUS_TYPE", bus},
    {"DBUS_SYSTEM_BUS_ADDRESS", bus},
    {"DEBCONF_*", package},
    {"DEBIAN_*", package},
    {"DEBUGFS_PAGER", tool},
    {"DESTDIR", build},
    {"DEVICE_URI", print},
    {"DISPLAY", display},
    {"DOMAIN", identity},
    {"DPKG_*", package},
    {"E2FSCK_*", fs},
    {"E2FSPROGS_*", fs},
    {"EGD_PATH", tool},
    {"ENCRYPTED_CREDENTIALS_DIRECTORY", service},
    {"ENV", shell_init},
    {"EU_ALWAYS_COPY", build},
    {"EU_INSTALL_*", build},
    {"EXT2FS_*", fs},
    {"FAKECHROOT*", package},
    {"FAKED_MODE", package},
    {"FPATH", shell_init},
    {"FSTAB_FILE", fs},
    {"GATEWAY_INTERFACE", cgi},
    {"GCONV_PATH", loader},
    {"GDK_PIXBUF_MODULE_FILE", modules},
    {"GEMRC", interp},
    {"GEM_*", interp},
    {"GETCONF_DIR", loader},
    {"GETOPT_COMPATIBLE", parsing},
    {"GIO_EXTRA_MODULES", modules},
    {"GIO_LAUNCH_DESKTOP", tool},
    {"GIO_MODULE_DIR", modules},
    {"GITPERLLIB", interp},
    {"GITWEB_CONFIG*", config},
    {"GIT_*", git},
    {"GI_TYPELIB_PATH", modules},
    {"GLIBC_TUNABLES", loader},
    {"GLOBIGNORE", shell_init},
    {"GNUPGHOME", config},
    {"GNUPG_BUILD_ROOT", tool},
    {"GROFF_BIN_PATH", tool},
    {"GROFF_COMMAND_PREFIX", tool},
    {"GROFF_PATH__", tool},
    {"GROFF_TMPDIR", tool},
    {"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", trust},
    {"GSETTINGS_*", config},
    {"GSS_MECH_CONFIG", modules},
    {"GST_DEBUG_FILE", tool},
    {"GST_PLUGIN_*", modules},
    {"GST_REGISTRY*", tool},
    {"GTK3_MODULES", modules},
    {"GTK_DATA_PREFIX", modules},
    {"GTK_EXE_PREFIX", modules},
    {"GTK_IM_MODULE_FILE", modules},
    {"GTK_INSPECTOR_DISPLAY", display},
    {"GTK_MODULES", modules},
    {"GTK_PATH", modules},
    {"GYP_*", build},
    {"G_DBUS_COOKIE_SHA1_KEYRING_DIR*", bus},
    {"G_DBUS_MONITOR", bus},
    {"G_RESOURCE_OVERLAYS", config},
    {"HARNESS_*", build},
    {"HGRCPATH", config},
    {"HOME", identity},
    {"HOSTALIASES", loader},
    {"HTTPLIB2_CA_CERTS", trust},
    {"HTTPS", cgi},
    {"HTTPS_CA_DIR", trust},
    {"HTTPS_CA_FILE", trust},
    {"HTTP_ACCEPT_LANGUAGE", cgi},
    {"HTTP_CONTENT_ENCODING", cgi},
    {"HTTP_GIT_PROTOCOL", cgi},
    {"HTTP_HOST", cgi},
    {"I18NPATH", tool},
    {"ICEAUTHORITY", display},
    {"ICU_*", tool},
    {"IFS", shell_init},
    {"INVOCATION_ID", service},
    {"IPP_PORT", print},
    {"IPTABLES_LIB_DIR", modules},
    {"IP_LIB_DIR", modules},
    {"JAVA_TOOL_OPTIONS", interp},
    {"JDK_JAVA_OPTIONS", interp},
    {"JOURNAL_STREAM", service},
    {"KRB5CCNAME", identity},
    {"KRB5RCACHE*", tool},
    {"KRB5_CLIENT_KTNAME", identity},
    {"KRB5_CONFIG", identity},
    {"KRB5_KDC_PROFILE", tool},
    {"KRB5_KTNAME", identity},
    {"KRB5_TRACE", tool},
    {"LD", build},
    {"LDAP*", directory},
    {"LDFLAGS*", build},
    {"LD_*", loader},
    {"LESSCLOSE", tool},
    {"LESSECHO", tool},
    {"LESSGLOBALTAGS", tool},
    {"LESSKEY*", tool},
    {"LESSOPEN", tool},
    {"LIBMOUNT_*", fs},
    {"LIBRARY_PATH", build},
    {"LIBSMB_PROG", tool},
    {"LISTEN_*", service},
    {"LOCALDOMAIN", loader},
    {"LOCALEDIR", tool},
    {"LOCPATH", loader},
    {"LOGDIR", identity},
    {"LOGNAME", identity},
    {"LOGS_DIRECTORY", service},
    {"LUA_CPATH*", interp},
    {"LUA_INIT*", interp},
    {"LUA_PATH*", interp},
    {"MAGIC", tool},
    {"MAILCAPS", config},
    {"MAILRC", config},
    {"MAIL_*", mail},
    {"MAKE", build},
    {"MAKEFLAGS", build},
    {"MALLOC_*", loader},
    {"MANAGERPID", service},
    {"MAN_DISABLE_SECCOMP", tool},
    {"MAN_TEST_*", tool},
    {"MIXERDEV", tool},
    {"MJIT_SEARCH_BUILD_DIR", interp},
    {"MKE2FS_*", fs},
    {"MOD_PERL", cgi},
    {"MUSL_LOCPATH", loader},
    {"NAILRC", config},
    {"NETRC", tool},
    {"NET_NAMING_SCHEME", service},
    {"NIS_PATH", loader},
    {"NLSPATH", loader},
    {"NODEJS_ORG_MIRROR", build},
    {"NODE_*", node},
    {"NOTIFY_SOCKET", service},
    {"NSTAT_HISTORY", tool},
    {"NULLCMD", shell_init},
    {"OPENSSL", tool},
    {"OPENSSL_*", interp},
    {"PAMC_AGENT_PATH", tool},
    {"PAM_*", identity},
    {"PASSWD", identity},
    {"PASSWD_*", tool},
    {"PATH_INFO", cgi},
    {"PATH_TRANSLATED", cgi},
    {"PEP517_BACKEND_PATH", interp},
    {"PERL", tool},
    {"PERL5DB", interp},
    {"PERL5LIB", interp},
    {"PERL5OPT", interp},
    {"PERLIO", interp},
    {"PERLIO_DEBUG", tool},
    {"PERLLIB", interp},
    {"PERL_AUTOINSTALL", build},
    {"PERL_EXTUTILS_AUTOINSTALL", build},
    {"PERL_HTTP_URI_CLASS", interp},
    {"PERL_INSTALL_ROOT", build},
    {"PERL_LWP_SSL_*", trust},
    {"PERL_MM_OPT", build},
    {"PERL_NET_HTTPS_SSL_SOCKET_CLASS", trust},
    {"PERL_USE_UNSAFE_INC", interp},
    {"PHPRC", interp},
    {"PHP_INI_SCAN_DIR", interp},
    {"PIP_*", options},
    {"PKG_CONFIG_PATH", build},
    {"POSIXLY_CORRECT", parsing},
    {"POSIX_ME_HARDER", parsing},
    {"POSTLOG_*", mail},
    {"PPD", print},
    {"PROC_NET_*", tool},
    {"PROC_ROOT", tool},
    {"PS4", shell_init},
    {"PYTHON", tool},
    {"PYTHONBREAKPOINT", interp},
    {"PYTHONDUMPREFSFILE", interp},
    {"PYTHONEXECUTABLE", interp},
    {"PYTHONHOME", interp},
    {"PYTHONINSPECT", interp},
    {"PYTHONOPTIMIZE", interp},
    {"PYTHONPATH", interp},
    {"PYTHONPLATLIBDIR", interp},
    {"PYTHONPYCACHEPREFIX", interp},
    {"PYTHONSTARTUP", interp},
    {"PYTHONTZPATH", interp},
    {"PYTHONUSERBASE", interp},
    {"PYTHONWARNINGS", interp},
    {"PYTHON_EGG_CACHE", interp},
    {"QLOGDIR", tool},
    {"QT_PLUGIN_PATH", modules},
    {"QT_QPA_PLATFORM_PLUGIN_PATH", modules},
    {"QUERY_STRING", cgi},
    {"RAKE_SYSTEM", interp},
    {"READNULLCMD", shell_init},
    {"REMOTE_*", cgi},
    {"REQUESTS_CA_BUNDLE", trust},
    {"RESIZE2FS_*", fs},
    {"RESOLV_HOST_CONF", loader},
    {"RES_OPTIONS", loader},
    {"RND_SEED", tool},
    {"RSYNC_*", tool},
    {"RUBY", tool},
    {"RUBYGEMS_GEMDEPS", interp},
    {"RUBYGEMS_HOST", package},
    {"RUBYLIB", interp},
    {"RUBYOPT", interp},
    {"RUBYPATH", interp},
    {"RUNLEVEL", service},
    {"RUNTIME_DIRECTORY", service},
    {"SASL_*", directory},
    {"SCRIPT_FILENAME", cgi},
    {"SCRIPT_NAME", cgi},
    {"SERVER_*", cgi},
    {"SESSION_MANAGER", display},
    {"SHELL", identity},
    {"SHELLOPTS", shell_init},
    {"SMB_CONF_PATH", config},
    {"SSH2_CLIENT", identity},
    {"SSH_ASKPASS", tool},
    {"SSH_ASKPASS_REQUIRE", tool},
    {"SSH_CLIENT", identity},
    {"SSH_CONNECTION", identity},
    {"SSH_ORIGINAL_COMMAND", identity},
    {"SSH_PKCS11_HELPER", tool},
    {"SSH_SK_HELPER", tool},
    {"SSH_SK_PROVIDER", modules},
    {"SSH_TTY", identity},
    {"SSH_TUNNEL", identity},
    {"SSH_USER_AUTH", identity},
    {"SSLKEYLOGFILE", tool},
    {"SSL_CERT_DIR", trust},
    {"SSL_CERT_FILE", trust},
    {"SS_READLINE_PATH", modules},
    {"SUDO_*", identity},
    {"SUSHELL", tool},
    {"SVN_SSH", tool},
    {"SYSTEMCTL_*", service},
    {"SYSTEMD_*", service},
    {"SYSTEM_WGETRC", config},
    {"T2_*", build},
    {"TAPE", tool},
    {"TAR_OPTIONS", options},
    {"TCL*_TM_PATH", interp},
    {"TCLLIBPATH", interp},
    {"TCL_LIBRARY", interp},
    {"TCPDIAG_FILE", tool},
    {"TC_BPF_*", tool},
    {"TC_LIB_DIR", modules},
    {"TEMP", tool},
    {"TERMCAP", tool},
    {"TERMINFO", tool},
    {"TERMINFO_DIRS", tool},
    {"TERMPATH", tool},
    {"TEST_IO_*", fs},
    {"TEXTDOMAINDIR", tool},
    {"TK_LIBRARY", interp},
    {"TMP", tool},
    {"TMPDIR", loader},
    {"TMPPREFIX", shell_init},
    {"TUNE2FS_*", fs},
    {"TZDIR", loader},
    {"UNIX_IO_*", fs},
    {"UNZIP", options},
    {"UNZIPOPT", options},
    {"USER", identity},
    {"V8_COMPILE_CACHE_CACHE_DIR", tool},
    {"WATCHDOG_*", service},
    {"WAYLAND_DISPLAY", display},
    {"WGETRC", config},
    {"WGET_ASKPASS", tool},
    {"XAPPLRESDIR", config},
    {"XAUTHLOCALHOSTNAME", display},
    {"XAUTHORITY", display},
    {"XCMSDB", config},
    {"XCOMPOSECACHE", tool},
    {"XCOMPOSEFILE", config},
    {"XDG_RUNTIME_DIR", identity},
    {"XDG_SEAT", identity},
    {"XDG_SEAT_PATH", identity},
    {"XDG_SESSION_*", identity},
    {"XDG_VTNR", identity},
    {"XENVIRONMENT", config},
    {"XFILESEARCHPATH", config},
    {"XKEYSYMDB", config},
    {"XLOCALEDIR", modules},
    {"XLOCALELIBDIR", modules},
    {"XPROPFORMATS", config},
    {"XTABLES_LIBDIR", modules},
    {"XUSERFILESEARCHPATH", config},
    {"XZ_DEFAULTS", options},
    {"XZ_OPT", options},
    {"ZDOTDIR", shell_init},
    {"ZIP", options},
    {"ZIPOPT", options},
    {"_DEB_SYSTEMD_HELPER_*", package},
    {"_JAVA_OPTIONS", interp},
    {"_PIP_*", options},
    {"_POSIX2_VERSION", parsing},
    {"_PYTHON_*", interp},
    {"_SKIP_SYSTEMD_NATIVE", service},
    {"container", service},
    {"git", tool},
    {"make", build},
    {"npm_config_*", package},
    {"rake", build},
    {"sushell", tool},
    {NULL, NULL},
};

static const char interactive[] = "allowed back: git runs it only for a person at a terminal, as "
                                  "with EDITOR and PAGER";
static const char prompt[] = "allowed back: read only by git's prompt script in an interactive "
                             "shell, never by git";
static const char author[] = "allowed back: an identity written into commits, never a command or "
                             "a path";

/* Names allowed back from the refused ones.  Each must match an entry of
 * envd_default_deny (a unit test checks it); same order and scan. */
const struct envd_policy_entry envd_default_exceptions[] = {
    {"GIT_AUTHOR_*", author},   {"GIT_COMMITTER_*", author}, {"GIT_EDITOR", interactive},
    {"GIT_PAGER", interactive}, {"GIT_PS1_*", prompt},       {NULL, NULL},
};

/* The value rules.  Each says which values of a name it refuses. */

/* A path component "..": at the start or after a '/', ending at the end,
 * a '/' or the separator sep. */
static bool has_dotdot(const char *v, char sep)
{
	const char *c;

	for (c = v; (c = strstr(c, "..")) != NULL; c += 2)
		if ((c == v || c[-1] == '/' || c[-1] == sep) &&
		    (c[2] == '\0' || c[2] == '/' || c[2] == sep))
			return true;
	return false;
}

/* TZ names a zone of the time zone database, or a rule.  One that names a
 * file elsewhere (an absolute path, or a path with a ".." component) makes
 * every program that formats a time open that file, root helpers
 * included: a FIFO there hangs them.  sudo's env_check refuses the same. */
static bool tz_names_file(const char *v)
{
	if (*v == ':')
		v++;
	return *v == '/' || has_dotdot(v, '/');
}

/* LANGUAGE is a ':'-separated list of locale names that gettext puts
 * between its catalogue directory and LC_MESSAGES: "../../home/u/x" makes a
 * root program load the user's .mo files, whose translations are printf
 * formats (a root mkdir died with SIGSEGV).  No locale name has a '/'. */
static bool language_names_path(const char *v)
{
	return strchr(v, '/') != NULL || has_dotdot(v, ':');
}

/* LANG and LC_*: no locale name has a '/'.  glibc before 2.20 loaded
 * locale files, which it trusts, from "../" paths (CVE-2014-0475); glibc
 * 2.36 looks a name that starts with '/' up below its own locale directory
 * and musl refuses a '/'.  Refusing it costs no user anything and does not
 * depend on the libc. */
static bool locale_names_path(const char *v)
{
	return strchr(v, '/') != NULL || has_dotdot(v, '\0');
}

/* A D-Bus address is a ';'-separated list of "transport:key=value,...".
 * unixexec: (libdbus, sd-bus) and x-machine-unixexec: (sd-bus) run a
 * command to reach the bus: only the transports that connect are taken.
 * autolaunch: is not one of them: libdbus and GLib run dbus-launch
 * --autolaunch, which takes the address from the X server of DISPLAY (a
 * root client's bus, unixexec: included, came from the user's Xvfb).
 * nonce-tcp: connects, but first opens the file its noncefile= names and
 * sends the first 16 bytes to the server: a root client sent those of a
 * 0600 root file to a port the user listened on.  So no nonce-tcp:, and
 * no address that mentions a nonce file at all, whatever its transport.
 * unix:path= stays: it is the session bus's own address; the client only
 * connects to the socket (no file is opened, a FIFO fails at once) and
 * sends a fixed authentication line. */
static bool bus_runs_command(const char *v)
{
	static const char *const connect[] = {"unix:", "tcp:"};
	const char *a = v;
	size_t i, n;

	for (;;) {
		while (*a == ';')
			a++;
		if (!*a)
			return false;
		n = strcspn(a, ";");
		for (i = 0; i < ENVD_ARRAY_SIZE(connect); i++)
			if (strncmp(a, connect[i], strlen(connect[i])) == 0)
				break;
		if (i == ENVD_ARRAY_SIZE(connect) || memmem(a, n, "noncefile", 9))
			return true;
		a += n;
	}
}

/* less reads the lesskey files that -k, --lesskey-file or --lesskey-src
 * (abbreviated, in any case) name in LESS, and a lesskey file's #env
 * section sets LESSOPEN: less runs that command on every file, with no
 * terminal too (a root `less FILE >OUT` did).  Refused: any lowercase 'k'
 * (a -k alone or in a cluster, the long names) and "lessk" in any case;
 * the -K that users set stays, a --no-keypad goes. */
static bool less_loads_keys(const char *v)
{
	return strchr(v, 'k') || strcasestr(v, "lessk");
}

/* GDK_BACKEND lists the GDK backends to try.  x11 and wayland reach the
 * display of DISPLAY or WAYLAND_DISPLAY, which user files may not set;
 * broadway reaches a broadwayd on the local port BROADWAY_DISPLAY (also
 * refused) names, 8080 by default, which any user can listen on: a root
 * GTK program would draw there and take that user's input.  Refused: a
 * "broadway" in any case, and "*", which tries every backend. */
static bool gdk_backend_remote(const char *v)
{
	return strchr(v, '*') || strcasestr(v, "broadway");
}

const struct envd_policy_entry envd_value_rules[] = {
    {"DBUS_SESSION_BUS_ADDRESS",
     "a bus address whose transport is not unix: or tcp:, or that names a nonce file (unixexec: "
     "runs a command in every D-Bus client, autolaunch: takes the address from an X server; a "
     "noncefile= is opened and sent to the bus)",
     bus_runs_command},
    {"GDK_BACKEND",
     "broadway or '*' makes GTK programs draw on a broadway server at a local port any user can "
     "listen on, and take its input",
     gdk_backend_remote},
    {"LANG", "a locale name with a '/' or a '..' component is a path to locale files",
     locale_names_path},
    {"LANGUAGE",
     "a '/' or a '..' element makes programs load message catalogues (printf formats) from a "
     "path the user chose",
     language_names_path},
    {"LC_*", "a locale name with a '/' or a '..' component is a path to locale files",
     locale_names_path},
    {"LESS",
     "a value with a 'k' or \"lessk\" loads a lesskey file, which can set a command that every "
     "less runs (LESSOPEN), with no terminal too",
     less_loads_keys},
    {"TZ", "names a file outside the time zone database", tz_names_file},
    {NULL, NULL, NULL},
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
			char **nv = envd_grow(l->v, &l->cap, sizeof(*nv), 8);

			if (!nv)
				return -ENOMEM;
			l->v = nv;
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

/* fnmatch(pattern, name, 0) for the patterns the policy holds, the tables'
 * and add_patterns': literal bytes, '*' for any run, '?' for any one byte,
 * no brackets or backslashes.  Byte by byte, with no locale: fnmatch
 * converts both strings to wide characters first, which was most of the
 * policy's cost under a UTF-8 locale (DEVELOPING.md, "Tests and benchmarks",
 * has the figures).  The names it sees are ASCII (envd_name_valid), where a
 * byte is a character.  A mismatch after a '*' lets that '*' take one
 * more byte of the name and retries from there; an earlier '*' never
 * needs to: the later one can take whatever it would have. */
static bool glob_match(const char *pattern, const char *name)
{
	const char *after_star = NULL, *retry = NULL;

	while (*name) {
		if (*pattern == '*') {
			after_star = ++pattern;
			retry = name;
		} else if (*pattern == '?' || *pattern == *name) {
			pattern++;
			name++;
		} else if (after_star) {
			pattern = after_star;
			name = ++retry;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return *pattern == '\0';
}

static bool any_match(const struct pattern_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (glob_match(l->v[i], name))
			return true;
	return false;
}

/* The first entry of a sorted table whose pattern matches name, or NULL.
 * Every pattern starts with a literal and each table is sorted: a match
 * only where the first bytes agree, and no look past them. */
static const struct envd_policy_entry *table_find(const struct envd_policy_entry *t,
                                                  const char *name)
{
	for (; t->pattern; t++) {
		if ((unsigned char)t->pattern[0] > (unsigned char)name[0])
			break;
		if (t->pattern[0] == name[0] && glob_match(t->pattern, name))
			return t;
	}
	return NULL;
}

const char *envd_policy_verdict(const struct envd_policy *p, const char *name, const char *value,
                                enum envd_refusal *kind)
{
	const struct envd_policy_entry *e;
	const char *reason = NULL;

	*kind = ENVD_REFUSE_NONE;
	if (!p)
		return NULL;
	/* the administrator's own denials and allow list always hold */
	if (any_match(&p->deny, name)) {
		*kind = ENVD_REFUSE_DENY;
		return "denied by the administrator (user_deny)";
	}
	if (p->only.n > 0 && !any_match(&p->only, name)) {
		*kind = ENVD_REFUSE_ONLY;
		return "not among the names the administrator lets user files set (user_only)";
	}
	if (p->defaults) {
		e = table_find(envd_default_deny, name);
		if (e && !table_find(envd_default_exceptions, name)) {
			reason = e->reason;
			*kind = ENVD_REFUSE_DEFAULT;
		}
		if (!reason && value && (e = table_find(envd_value_rules, name)) &&
		    e->refuses(value)) {
			reason = e->reason;
			*kind = ENVD_REFUSE_VALUE;
		}
	}
	/* allow lifts only the defaults */
	if (reason && any_match(&p->allow, name)) {
		reason = NULL;
		*kind = ENVD_REFUSE_NONE;
	}
	return reason;
}

const char *envd_policy_check(const struct envd_policy *p, const char *name, const char *value)
{
	enum envd_refusal kind;

	return envd_policy_verdict(p, name, value, &kind);
}

const char *envd_policy_value_rule(const struct envd_policy *p, const char *name)
{
	const struct envd_policy_entry *e;

	if (!p || !p->defaults || !(e = table_find(envd_value_rules, name)))
		return NULL;
	return any_match(&p->allow, name) ? NULL : e->reason;
}

bool envd_policy_default(enum envd_policy_table table, size_t i, const char **pattern,
                         const char **reason)
{
	static const struct envd_policy_entry *const tables[] = {
	    [ENVD_POLICY_DENY] = envd_default_deny,
	    [ENVD_POLICY_EXCEPTION] = envd_default_exceptions,
	    [ENVD_POLICY_VALUE] = envd_value_rules,
	};
	const struct envd_policy_entry *t;
	size_t n;

	if ((unsigned)table >= ENVD_ARRAY_SIZE(tables))
		return false;
	t = tables[table];
	for (n = 0; n < i; n++)
		if (!t[n].pattern)
			return false;
	if (!t[i].pattern)
		return false;
	*pattern = t[i].pattern;
	*reason = t[i].reason;
	return true;
}
