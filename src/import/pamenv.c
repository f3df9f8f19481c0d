/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pamenv.c - the user file of pam_env (~/.pam_environment, read with
 * user_readenv=1) read as pam_env reads it, for `envd import-pam-environment`
 * (import.c translates what this reads).
 *
 * The aim is an equivalent file, so the reader reproduces what Linux-PAM
 * 1.5.2's pam_env does with that file, quirks included, as established from
 * its behaviour (tests/e2e/import.sh runs both through the same PAM stack):
 *
 * - Lines are assembled in an 8 KiB buffer.  A line that starts blank or
 *   with '#' is skipped (also in the middle of a continued line); elsewhere
 *   the first '#' ends the line, even inside quotes.  A line whose last
 *   non-blank character is a backslash continues on the next one, which is
 *   appended as it stands, leading blanks included.  A line too long for
 *   what is left of the buffer, a NUL byte, or the file ending inside a
 *   continued line make pam_env stop reading and fail.
 * - A line is NAME followed by blank-separated DEFAULT=v and OVERRIDE=v; NAME
 *   runs to the first blank and is not checked.  A value is "..." (no
 *   escapes) or runs to the next blank.  Anything else after a blank,
 *   trailing blanks included, makes pam_env ignore the line.
 * - In values, \$ and \@ are literal, any other backslash is dropped, ${X}
 *   is X from the PAM environment (nothing when unset), @{HOME} and
 *   @{SHELL} come from the passwd entry, @{PAM_USER} and the other @{PAM_*}
 *   are PAM items; a $ or @ without { is literal; an unterminated ${ or @{
 *   makes pam_env stop reading and fail.  Quotes do not stop expansion.
 * - The OVERRIDE wins when it expands to something; else the DEFAULT is
 *   set, even when it expands to nothing, and even over a value the
 *   variable already has; DEFAULT="" sets an empty value; with neither,
 *   pam_env hands NAME itself to pam_putenv(), which removes the variable,
 *   or sets it when NAME holds '=' (so "FOO=bar" works, unexpanded).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "envd.h"
#include "escape.h"
#include "output.h"
#include "pamenv.h"

/* ---- reading the file ---- */

/* At most ENVD_MAX_FILE_BYTES, as any file of environment.d.  Standard
 * input is the caller's own pipe or file: read with the same cap and no
 * checks. */
int pamenv_read_file(const char *path, const struct envd_ids *as, const struct passwd *reader,
                     struct envd_buf *buf, char *reason, size_t size)
{
	struct envd_path_read rd = {.as = as,
	                            .reader = envd_cli_reader(),
	                            .owner = reader->pw_uid,
	                            .who = reader->pw_name,
	                            .max = ENVD_MAX_FILE_BYTES,
	                            .text = reason,
	                            .text_size = size};
	int r;

	if (size > 0)
		reason[0] = '\0';
	if (strcmp(path, "-") == 0)
		r = envd_read_fd(STDIN_FILENO, rd.max, 0, &rd.data, &rd.len);
	else
		r = envd_read_path(path, &rd);
	if (r == 0 && rd.data != NULL) {
		r = envd_buf_append(buf, rd.data, rd.len) < 0 ? -ENOMEM : 0;
		explicit_bzero(rd.data, rd.len);
		free(rd.data);
	}
	return r;
}

/* ---- output helpers ---- */

/* Original text in a comment: control characters and bytes that are not
 * UTF-8 escaped as everywhere in envd's output (escape.c), tabs kept, so
 * that no byte of it can end the comment early (environment.d also ends
 * lines at '\r') or reach a terminal raw. */
void pamenv_put_comment_text(FILE *out, const char *s, size_t n)
{
	if (n && s[n - 1] == '\n')
		n--;
	if (n && s[n - 1] == '\r')
		n--;
	print_escaped(out, s, n, ENVD_ESC_C | ENVD_ESC_KEEP_TAB);
	/* systemd before 254 continues a comment ending in a backslash over
	 * the next line, which it then does not read: never end one so */
	if (n && s[n - 1] == '\\')
		fputs(" (envd: this line ended in a backslash)", out);
	fputc('\n', out);
}

bool pamenv_is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* A blank or comment line as pam_env sees it (it skips both). */
bool pamenv_skipped_line(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && pamenv_is_blank(s[i]))
		i++;
	return i == n || s[i] == '#';
}

/* ---- pam_env's line assembly ---- */

/* The next physical line as fgets(buf, room) gives it to pam_env: false
 * when pam_env gives up on it. */
static bool fetch(struct pamenv_reader *r, size_t room, const char **s, size_t *n, const char **why)
{
	const char *nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	size_t len = nl ? (size_t)(nl - r->p) + 1 : (size_t)(r->end - r->p);
	const char *z;

	/* fgets stores room - 1 bytes at most; a line cut short is an error
	 * unless the read reached the end of the file */
	if (nl ? len > room - 1 : len >= room - 1) {
		*why = "a line longer than pam_env's 8 KiB line buffer";
		return false;
	}
	/* after a NUL, pam_env sees a line without its newline: an error,
	 * except on a last line without one */
	z = memchr(r->p, '\0', len);
	if (z && (z == r->p || nl)) {
		*why = "a NUL byte";
		return false;
	}
	*s = r->p;
	*n = z ? (size_t)(z - r->p) : len;
	r->p += len;
	r->lineno++;
	return true;
}

static void append(struct pamenv_logical *lg, const char *s, size_t n)
{
	/* fetch() keeps lg->len + n below the buffer size */
	memcpy(lg->text + lg->len, s, n);
	lg->len += n;
	lg->text[lg->len] = '\0';
}

/* Adds one physical line; true when the logical line is complete. */
static bool take(struct pamenv_logical *lg, const char *s, size_t n)
{
	const char *hash = memchr(s, '#', n);
	size_t e = n;

	if (hash) {
		append(lg, s, (size_t)(hash - s));
		return true;
	}
	while (e > 0 && pamenv_is_blank(s[e - 1]))
		e--;
	if (s[e - 1] == '\\') {
		append(lg, s, e - 1);
		return false;
	}
	append(lg, s, n);
	return true;
}

enum pamenv_rd pamenv_assemble(struct pamenv_reader *r, struct pamenv_logical *lg)
{
	const char *start, *s;
	unsigned lineno;
	size_t n;

	lg->len = 0;
	lg->text[0] = '\0';
	lg->first = NULL;
	for (;;) {
		start = r->p;
		lineno = r->lineno;
		if (r->p == r->end && lg->len == 0)
			return PAMENV_EOF;
		if (r->p == r->end)
			lg->stop = "the file ends inside a continued line";
		if (r->p == r->end || !fetch(r, PAMENV_LINE_BUF - lg->len, &s, &n, &lg->stop)) {
			if (!lg->first) {
				lg->first = start;
				lg->line = lineno;
			}
			return PAMENV_STOP;
		}
		if (pamenv_skipped_line(s, n)) {
			pamenv_put_comment_text(r->out, s, n);
			continue;
		}
		if (!lg->first) {
			lg->first = start;
			lg->line = lineno;
		}
		lg->last = r->p;
		if (take(lg, s, n))
			return PAMENV_LINE;
	}
}

/* ---- pam_env's line syntax ---- */

static const char *parse_value(const char **tp, struct pamenv_val *v, int *quoted)
{
	const char *t = *tp, *start, *q;
	size_t n;

	if (*t != '"') {
		start = t;
		n = strcspn(t, " \t\n");
		t += n;
	} else {
		start = t + 1;
		q = strchr(start, '"');
		if (!q)
			return "a quote is not closed";
		n = (size_t)(q - start);
		t = q + 1;
		if (*t && !pamenv_is_blank(*t))
			return "text follows the closing quote";
		++*quoted;
	}
	/* pam_env counts quotes across the line: an unquoted empty value may
	 * still count as "" (and a quoted one as nothing) */
	if (n) {
		v->kind = PAMENV_V_TEXT;
		v->p = start;
		v->n = n;
	} else if ((*quoted)-- != 0) {
		v->kind = PAMENV_V_EMPTY;
	}
	*tp = t;
	return NULL;
}

void pamenv_parse_line(const char *t, struct pamenv_pline *pl)
{
	int quoted = 0;
	struct pamenv_val *v;
	size_t n;

	memset(pl, 0, sizeof(*pl));
	pl->name = t;
	pl->name_len = strcspn(t, " \t\n");
	t += pl->name_len;
	while (!pl->bad && (n = strspn(t, " \t")) > 0) {
		t += n;
		pl->bad_at = t;
		if (strncmp(t, "DEFAULT=", 8) == 0) {
			v = &pl->dflt;
			t += 8;
		} else if (strncmp(t, "OVERRIDE=", 9) == 0) {
			v = &pl->ovr;
			t += 9;
		} else {
			pl->bad = *t == '\0' || *t == '\n'
			              ? "blanks after the value (a comment after it leaves some)"
			              : "not DEFAULT= or OVERRIDE=";
			return;
		}
		pl->bad = parse_value(&t, v, &quoted);
	}
}

/* ---- pam_env's expansion, as parts ---- */

static bool opens_ref(const char *c, const char *end)
{
	return (*c == '$' || *c == '@') && c + 1 < end && c[1] == '{';
}

enum pamenv_part_kind pamenv_next_part(const char **cur, const char *end, struct pamenv_part *pt)
{
	const char *c = *cur, *close;

	while (c < end && *c == '\\') {
		if (c + 1 < end && (c[1] == '$' || c[1] == '@')) {
			*pt = (struct pamenv_part){.kind = PAMENV_P_LIT, .p = c + 1, .n = 1};
			*cur = c + 2;
			return pt->kind;
		}
		c++; /* pam_env drops any other backslash */
	}
	if (c == end) {
		*cur = c;
		return pt->kind = PAMENV_P_END;
	}
	if (opens_ref(c, end)) {
		close = memchr(c + 2, '}', (size_t)(end - c - 2));
		if (!close)
			return pt->kind = PAMENV_P_ABORT;
		*pt = (struct pamenv_part){.kind = *c == '$' ? PAMENV_P_ENV : PAMENV_P_ITEM,
		                           .p = c + 2,
		                           .n = (size_t)(close - c - 2)};
		*cur = close + 1;
		return pt->kind;
	}
	pt->kind = PAMENV_P_LIT;
	pt->p = c;
	while (c < end && *c != '\\' && !opens_ref(c, end))
		c++;
	pt->n = (size_t)(c - pt->p);
	*cur = c;
	return PAMENV_P_LIT;
}

bool pamenv_part_is(const struct pamenv_part *pt, const char *name)
{
	return pt->n == strlen(name) && memcmp(pt->p, name, pt->n) == 0;
}
