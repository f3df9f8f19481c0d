/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* output.c - printing a result in the formats envd offers. */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "escape.h"
#include "output.h"

int parse_format(const char *s, enum out_format *f)
{
	static const char *const names[] = {"env", "shell", "json", "nul"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(s, names[i]) == 0) {
			*f = (enum out_format)i;
			return 0;
		}
	return -1;
}

const char *file_state_name(enum envd_file_state s)
{
	switch (s) {
	case ENVD_FILE_USED:
		return "used";
	case ENVD_FILE_MASKED:
		return "masked";
	case ENVD_FILE_MASKS:
		return "masks";
	case ENVD_FILE_SKIPPED:
		return "skipped";
	}
	return "?";
}

static const char *dir_state_name(enum envd_dir_state s)
{
	switch (s) {
	case ENVD_DIR_USED:
		return "used";
	case ENVD_DIR_MISSING:
		return "missing";
	case ENVD_DIR_SKIPPED:
		return "skipped";
	}
	return "?";
}

static int to_file(const char *s, size_t n, bool whole, void *data)
{
	fwrite(s, 1, n, data);
	return 0;
}

void print_escaped(FILE *out, const char *s, size_t n, unsigned how)
{
	envd_esc(s, n, how, to_file, out);
}

/* A value for the shell: 'single quotes' with ' written as '\'', safe to
 * eval in any POSIX shell.  A value with a control character (or a byte
 * that is not UTF-8) would put it raw on the terminal that shows the
 * output: it is made by printf(1) from a format with octal escapes
 * instead, in "$(...)" with a last "_" that keeps trailing newlines, which
 * the caller then strips (print_var).  POSIX shells, dash included, read
 * both byte for byte; $'...' would not do in dash. */
static void shell_value(FILE *out, const char *s, size_t n)
{
	size_t i;

	if (envd_esc_needed(s, n, 0)) {
		fputs("\"$(printf '", out);
		print_escaped(out, s, n, ENVD_ESC_PRINTF);
		fputs("_')\"", out);
		return;
	}
	fputc('\'', out);
	for (i = 0; i < n; i++) {
		if (s[i] == '\'')
			fputs("'\\''", out);
		else
			fputc(s[i], out);
	}
	fputc('\'', out);
}

/* A value in env format: as it is, unless it holds a control character
 * (or could be taken for the quoting below): then $'...' with C escapes,
 * as `systemctl show-environment` prints it, so that a value can neither
 * forge a line (a newline and "LD_PRELOAD=...") nor drive the reader's
 * terminal.  Every other byte is printed as it is. */
static void env_value(FILE *out, const char *s, size_t n)
{
	if (!(n >= 2 && s[0] == '$' && s[1] == '\'') && !envd_esc_needed(s, n, 0)) {
		fwrite(s, 1, n, out);
		return;
	}
	fputs("$'", out);
	print_escaped(out, s, n, ENVD_ESC_C | ENVD_ESC_BACKSLASH | ENVD_ESC_QUOTE);
	fputc('\'', out);
}

/* A file name or other text that is not ours, for a line of text: control
 * characters, backslashes and bytes that are not UTF-8 escaped, so that a
 * hostile name can neither forge lines nor drive a terminal. */
void print_text(FILE *out, const char *s)
{
	print_escaped(out, s, strlen(s), ENVD_ESC_C | ENVD_ESC_BACKSLASH);
}

/* JSON string; control characters (C1 too) as \u00HH, bytes that are not
 * UTF-8 (possible in file names, never in values) as U+FFFD, so that the
 * output always parses and never drives a terminal. */
static void json_string(FILE *out, const char *s, size_t n)
{
	fputc('"', out);
	print_escaped(out, s, n, ENVD_ESC_JSON);
	fputc('"', out);
}

static void json_cstr(FILE *out, const char *s)
{
	if (s)
		json_string(out, s, strlen(s));
	else
		fputs("null", out);
}

void print_json_text(FILE *out, const char *s)
{
	json_cstr(out, s);
}

void print_json_string(FILE *out, const char *s, size_t n)
{
	json_string(out, s, n);
}

void print_json_explained(FILE *out, const struct envd_result *res)
{
	size_t i, n = envd_result_count(res);

	fputs("{\"variables\":[", out);
	for (i = 0; i < n; i++) {
		const struct envd_var *v = envd_result_var(res, i);

		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		json_cstr(out, v->name);
		fputs(",\"value\":", out);
		json_string(out, v->value, v->value_len);
		fputs(",\"file\":", out);
		json_cstr(out, v->file);
		fprintf(out, ",\"line\":%u", v->line);
		if (v->replaced_file) {
			fputs(",\"replaces\":", out);
			json_cstr(out, v->replaced_file);
			fprintf(out, ",\"replaces_line\":%u", v->replaced_line);
		}
		fputc('}', out);
	}
	fputs("],\n\"directories\":[", out);
	n = envd_result_dir_count(res);
	for (i = 0; i < n; i++) {
		const struct envd_dir *d = envd_result_dir(res, i);

		fputs(i ? ",\n{\"path\":" : "\n{\"path\":", out);
		json_cstr(out, d->path);
		fprintf(out, ",\"state\":\"%s\",\"user\":%s,\"files\":%zu,\"reason\":",
		        dir_state_name(d->state), d->user_side ? "true" : "false", d->files);
		json_cstr(out, d->reason);
		fputc('}', out);
	}
	fputs("],\n\"files\":[", out);
	n = envd_result_file_count(res);
	for (i = 0; i < n; i++) {
		const struct envd_file *f = envd_result_file(res, i);

		fputs(i ? ",\n{\"path\":" : "\n{\"path\":", out);
		json_cstr(out, f->path);
		fprintf(out,
		        ",\"state\":\"%s\",\"user\":%s,\"masked_by\":", file_state_name(f->state),
		        f->user_side ? "true" : "false");
		json_cstr(out, f->masked_by);
		fputs(",\"reason\":", out);
		json_cstr(out, f->state == ENVD_FILE_USED ? NULL : f->reason);
		fputc('}', out);
	}
	fputc(']', out);
}

void print_dirs(FILE *out, const struct envd_result *res, const char *prefix, const char *user_off)
{
	size_t i, n = envd_result_dir_count(res);

	if (user_off)
		fprintf(out, "%sskipped user directory (%s)\n", prefix, user_off);
	for (i = 0; i < n; i++) {
		const struct envd_dir *d = envd_result_dir(res, i);

		fprintf(out, "%s%-7s ", prefix, dir_state_name(d->state));
		print_text(out, d->path);
		fprintf(out, "/ (%s directory", d->user_side ? "user" : "system");
		if (d->state == ENVD_DIR_USED)
			fprintf(out, ", %zu .conf file%s", d->files, d->files == 1 ? "" : "s");
		else if (d->reason)
			fprintf(out, ": %s", d->reason);
		fputs(")\n", out);
	}
}

void print_files(FILE *out, const struct envd_result *res, const char *prefix)
{
	size_t i, n = envd_result_file_count(res);

	for (i = 0; i < n; i++) {
		const struct envd_file *f = envd_result_file(res, i);
		const struct envd_file *next = i + 1 < n ? envd_result_file(res, i + 1) : NULL;
		const char *state = file_state_name(f->state);

		/* the files a file masks follow it: an empty file with none
		 * below it masks nothing, it is only empty */
		if (f->state == ENVD_FILE_MASKS && f->empty &&
		    !(next && next->state == ENVD_FILE_MASKED &&
		      strcmp(next->masked_by, f->path) == 0))
			state = "empty";
		fprintf(out, "%s%-7s ", prefix, state);
		print_text(out, f->path);
		if (f->state == ENVD_FILE_MASKED) {
			fputs(" (by ", out);
			print_text(out, f->masked_by);
			fputc(')', out);
		} else if (f->state != ENVD_FILE_USED && f->reason)
			fprintf(out, " (%s)", f->reason);
		fputc('\n', out);
	}
}

void print_var(FILE *out, enum out_format f, bool first, const char *name, const char *value,
               size_t len)
{
	switch (f) {
	case FORMAT_ENV:
		fprintf(out, "%s=", name);
		env_value(out, value, len);
		fputc('\n', out);
		break;
	case FORMAT_NUL:
		/* for programs, byte for byte; escaped as env when a
		 * terminal shows it */
		fprintf(out, "%s=", name);
		if (isatty(fileno(out)))
			env_value(out, value, len);
		else
			fwrite(value, 1, len, out);
		fputc('\0', out);
		break;
	case FORMAT_SHELL:
		fprintf(out, "export %s=", name);
		shell_value(out, value, len);
		if (envd_esc_needed(value, len, 0))
			fprintf(out, "; %s=\"${%s%%_}\"", name, name);
		fputc('\n', out);
		break;
	case FORMAT_JSON:
		fputs(first ? "\n" : ",\n", out);
		json_cstr(out, name);
		fputc(':', out);
		json_string(out, value, len);
		break;
	}
}

void print_begin(FILE *out, enum out_format f)
{
	if (f == FORMAT_JSON)
		fputc('{', out);
}

void print_end(FILE *out, enum out_format f, size_t n)
{
	if (f == FORMAT_JSON)
		fputs(n ? "\n}\n" : "}\n", out);
}

void print_result(FILE *out, const struct envd_result *res, enum out_format f, bool explain)
{
	size_t i, n = envd_result_count(res);

	if (f == FORMAT_JSON && explain) {
		print_json_explained(out, res);
		fputs("}\n", out);
		return;
	}
	print_begin(out, f);
	for (i = 0; i < n; i++) {
		const struct envd_var *v = envd_result_var(res, i);

		if (explain) {
			fputs("# ", out);
			print_text(out, v->file);
			fprintf(out, ":%u", v->line);
			if (v->replaced_file) {
				fputs(" (replaces ", out);
				print_text(out, v->replaced_file);
				fprintf(out, ":%u)", v->replaced_line);
			}
			fputc('\n', out);
		}
		print_var(out, f, i == 0, v->name, v->value, v->value_len);
	}
	print_end(out, f, n);
}
