/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* fuzz_records - what the reader of the user's files sends back (the
 * records of lib/proto.h), as the login process takes it: untrusted input
 * in a root process.  Every record type the login decodes: the user
 * side's, the generators' and the look-up's answer.
 *
 * Input: byte 0 is the knobs (bit 0 ENVD_LINT, bit 1 small limits: 4 files
 * per directory, 64 bytes a file, 100 a load, bit 2 the stream is the
 * generators' child's, lib/generators.c, for a list of four of which the
 * third is masked; bit 3 the look-up's answer, lib/spawn.c, with the
 * groups' names when bit 0 is set), the rest is the stream.
 *
 * Invariants: envd_user_records returns 0, -EBADMSG or -ENOMEM; a rejected
 * stream leaves no entry behind; an accepted one gives entries whose names
 * a directory can hold and environment.d lists (at most 255 bytes, no '/'
 * or NUL, not hidden, ending in ".conf"), whose states are the ones a
 * reader gives (read, masks, skipped), whose contents are there exactly for
 * a read file, non-empty and within the file limit, all within the load's
 * byte limit and the listing's entry limit; and the same stream decodes the
 * same way twice (determinism).  The generators' stream: envd_gens_records
 * returns 0, -EBADMSG or -ENOMEM; a rejected stream keeps no output and
 * leaves every generator as it was; an accepted one changes only those
 * marked to run, into a state a child gives, with output only where the
 * output is used, within the output limit.  The look-up's answer:
 * envd_who_records returns 0, -ESRCH, -EBADMSG or -ENOMEM; an accepted
 * one has a name, home and shell without NUL, at most ENVD_REQ_GROUPS
 * groups, and, when asked, a name for each group. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lint.h"
#include "child.h"
#include "loader.h"
#include "proto.h"

static void setup(struct loader *ld, struct envd_config *cfg, unsigned char knobs)
{
	memset(ld, 0, sizeof(*ld));
	envd_config_init(cfg);
	cfg->user_dir = "/nonexistent/.config/environment.d";
	if (knobs & 1)
		cfg->flags = ENVD_LINT;
	cfg->lint = &envd_lint_ops;
	if (knobs & 2) {
		cfg->limits.files_per_dir = 4;
		cfg->limits.file_bytes = 64;
		cfg->limits.input_bytes = 100;
	}
	ld->cfg = cfg;
}

static bool listed_name(const char *s)
{
	size_t n = strlen(s);

	return n > 5 && n < 256 && s[0] != '.' && strcmp(s + n - 5, ".conf") == 0 &&
	       !strchr(s, '/');
}

/* The invariants of one decoded scan; returns the bytes it holds. */
static size_t check_scan(const struct loader *ld)
{
	const struct envd_limits *lim = &ld->cfg->limits;
	size_t bytes = 0;

	FUZZ_CHECK(ld->scan.n <= lim->files_per_dir * 16, "%zu entries over the listing's %zu",
	           ld->scan.n, lim->files_per_dir * 16);
	for (size_t i = 0; i < ld->scan.n; i++) {
		const struct envd_scan_entry *e = &ld->scan.v[i];

		FUZZ_CHECK(listed_name(e->name), "entry %zu: a name no listing gives", i);
		FUZZ_CHECK(e->dir == 0, "entry %zu: directory %zu, not the user's", i, e->dir);
		switch (e->state) {
		case ENVD_FILE_USED:
			FUZZ_CHECK(e->data != NULL && e->len > 0 && e->len <= lim->file_bytes,
			           "entry %zu: read with %zu bytes", i, e->len);
			bytes += e->len;
			break;
		case ENVD_FILE_MASKS:
		case ENVD_FILE_SKIPPED:
			FUZZ_CHECK(e->data == NULL && e->len == 0,
			           "entry %zu: contents without a read", i);
			break;
		default:
			FUZZ_CHECK(false, "entry %zu: state %d", i, (int)e->state);
		}
		FUZZ_CHECK((unsigned)e->reason < ENVD_R_COUNT, "entry %zu: reason %d", i,
		           (int)e->reason);
	}
	FUZZ_CHECK(bytes <= lim->input_bytes, "%zu bytes over the load's %zu", bytes,
	           lim->input_bytes);
	return bytes;
}

static void gens_case(const char *in, size_t n)
{
	static const char *const paths[] = {"/g/10-a", "/g/20-b", "/g/20-b", "/g/90-c"};
	struct envd_config cfg;
	struct loader ld;
	int r;

	setup(&ld, &cfg, 0);
	ld.gens.v = calloc(4, sizeof(*ld.gens.v));
	if (ld.gens.v == NULL)
		return;
	ld.gens.n = ld.gens.cap = 4;
	for (size_t i = 0; i < 4; i++) {
		ld.gens.v[i].path = strdup(paths[i]);
		if (ld.gens.v[i].path == NULL) {
			envd_gens_free(&ld.gens);
			return;
		}
		ld.gens.v[i].name = ld.gens.v[i].path + 3;
		/* to run, but the third */
		ld.gens.v[i].state = i == 2 ? ENVD_FILE_MASKED : ENVD_FILE_SKIPPED;
		ld.gens.v[i].reason = i == 2 ? ENVD_R_NONE : ENVD_R_GEN_NOT_RUN;
	}
	r = envd_gens_records(&ld, in, n);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM, "generators: returned %d", r);
	for (size_t i = 0; i < 4; i++) {
		const struct envd_gen *e = &ld.gens.v[i];
		bool used = e->state == ENVD_FILE_USED;

		if (i == 2)
			FUZZ_CHECK(e->state == ENVD_FILE_MASKED,
			           "generator 2: a masked one changed");
		else if (r != 0)
			FUZZ_CHECK(envd_gen_to_run(e),
			           "generator %zu: changed by a rejected stream", i);
		else
			FUZZ_CHECK(used || e->state == ENVD_FILE_SKIPPED, "generator %zu: state %d",
			           i, (int)e->state);
		FUZZ_CHECK(r == 0 || e->data == NULL, "generator %zu: output of a rejected stream",
		           i);
		FUZZ_CHECK((e->data != NULL) == (e->len > 0) && (e->data == NULL || used),
		           "generator %zu: output where none is used", i);
		FUZZ_CHECK(e->len <= ENVD_MAX_GENERATOR_BYTES, "generator %zu: %zu bytes", i,
		           e->len);
		FUZZ_CHECK((unsigned)e->reason < ENVD_R_COUNT, "generator %zu: reason %d", i,
		           (int)e->reason);
	}
	envd_gens_free(&ld.gens);
}

static void who_case(const char *in, size_t n, bool names)
{
	struct envd_who who;
	int r;

	memset(&who, 0, sizeof(who));
	r = envd_who_records(in, n, names, &who);
	FUZZ_CHECK(r == 0 || r == -ESRCH || r == -EBADMSG || r == -ENOMEM, "look-up: returned %d",
	           r);
	if (r == 0) {
		FUZZ_CHECK(who.name != NULL && who.name[0] != '\0' && who.dir != NULL &&
		               who.shell != NULL,
		           "look-up: an accepted answer without its strings");
		FUZZ_CHECK(who.ngroups <= ENVD_REQ_GROUPS, "look-up: %zu groups", who.ngroups);
		FUZZ_CHECK(who.ngroups == 0 || who.groups != NULL,
		           "look-up: groups without a list");
		for (size_t i = 0; names && i < who.ngroups; i++)
			FUZZ_CHECK(who.group_names != NULL && who.group_names[i] != NULL,
			           "look-up: group %zu without a name", i);
	}
	envd_who_free(&who);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct envd_config cfg, cfg2;
	struct loader ld, ld2;
	const char *in;
	size_t n, bytes;
	int r, r2;

	if (size < 1)
		return 0;
	in = (const char *)data + 1;
	n = size - 1;
	if (data[0] & 8) {
		who_case(in, n, data[0] & 1);
		return 0;
	}
	if (data[0] & 4) {
		gens_case(in, n);
		return 0;
	}
	setup(&ld, &cfg, data[0]);
	r = envd_user_records(&ld, in, n);
	FUZZ_CHECK(r == 0 || r == -EBADMSG || r == -ENOMEM, "returned %d", r);
	if (r != 0)
		FUZZ_CHECK(ld.scan.n == 0, "a rejected stream left %zu entries", ld.scan.n);
	bytes = check_scan(&ld);

	setup(&ld2, &cfg2, data[0]);
	r2 = envd_user_records(&ld2, in, n);
	FUZZ_CHECK(r2 == r || r == -ENOMEM || r2 == -ENOMEM, "decoded %d, then %d", r, r2);
	if (r == 0 && r2 == 0) {
		FUZZ_CHECK(ld2.scan.n == ld.scan.n, "%zu entries, then %zu", ld.scan.n, ld2.scan.n);
		FUZZ_CHECK(check_scan(&ld2) == bytes, "not the same bytes twice");
		for (size_t i = 0; i < ld.scan.n; i++)
			FUZZ_CHECK(strcmp(ld.scan.v[i].name, ld2.scan.v[i].name) == 0 &&
			               ld.scan.v[i].state == ld2.scan.v[i].state,
			           "entry %zu differs the second time", i);
	}
	envd_scan_free(&ld.scan);
	envd_scan_free(&ld2.scan);
	return 0;
}
