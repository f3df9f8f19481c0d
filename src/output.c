/* output.c - printing a result in the formats envd offers. */
#include "config.h"

#include <string.h>

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

/* 'single quotes' with ' written as '\'': safe to eval in any POSIX shell */
static void shell_quote(FILE *out, const char *s, size_t n)
{
	size_t i;

	fputc('\'', out);
	for (i = 0; i < n; i++) {
		if (s[i] == '\'')
			fputs("'\\''", out);
		else
			fputc(s[i], out);
	}
	fputc('\'', out);
}

static void json_string(FILE *out, const char *s, size_t n)
{
	size_t i;

	fputc('"', out);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (c < 0x20 || c == 0x7f)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out); /* values are valid UTF-8 */
		}
	}
	fputc('"', out);
}

static void json_cstr(FILE *out, const char *s)
{
	if (s)
		json_string(out, s, strlen(s));
	else
		fputs("null", out);
}

static void print_json_explained(FILE *out, const struct envd_result *res)
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
		fprintf(out, ",\"line\":%u}", v->line);
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
	fputs("]}\n", out);
}

void print_files(FILE *out, const struct envd_result *res, const char *prefix)
{
	size_t i, n = envd_result_file_count(res);

	for (i = 0; i < n; i++) {
		const struct envd_file *f = envd_result_file(res, i);

		fprintf(out, "%s%-7s %s", prefix, file_state_name(f->state), f->path);
		if (f->state == ENVD_FILE_MASKED)
			fprintf(out, " (by %s)", f->masked_by);
		else if (f->state != ENVD_FILE_USED && f->reason)
			fprintf(out, " (%s)", f->reason);
		fputc('\n', out);
	}
}

void print_result(FILE *out, const struct envd_result *res, enum out_format f, bool explain)
{
	size_t i, n = envd_result_count(res);

	if (f == FORMAT_JSON && explain) {
		print_json_explained(out, res);
		return;
	}
	if (f == FORMAT_JSON)
		fputc('{', out);
	for (i = 0; i < n; i++) {
		const struct envd_var *v = envd_result_var(res, i);

		if (explain)
			fprintf(out, "# %s:%u\n", v->file, v->line);
		switch (f) {
		case FORMAT_ENV:
			fprintf(out, "%s=", v->name);
			fwrite(v->value, 1, v->value_len, out);
			fputc('\n', out);
			break;
		case FORMAT_NUL:
			fprintf(out, "%s=", v->name);
			fwrite(v->value, 1, v->value_len, out);
			fputc('\0', out);
			break;
		case FORMAT_SHELL:
			fprintf(out, "export %s=", v->name);
			shell_quote(out, v->value, v->value_len);
			fputc('\n', out);
			break;
		case FORMAT_JSON:
			fputs(i ? ",\n" : "\n", out);
			json_cstr(out, v->name);
			fputc(':', out);
			json_string(out, v->value, v->value_len);
			break;
		}
	}
	if (f == FORMAT_JSON)
		fputs(n ? "\n}\n" : "}\n", out);
	if (explain) {
		fputs("# files, in the order they are read:\n", out);
		print_files(out, res, "#   ");
	}
}
