/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* pam_dlopen - the module exports the PAM entry points and nothing else.
 *
 * Loads pam_envd.so as libpam does (dlopen, RTLD_NOW), resolves the six
 * pam_sm_* functions, makes sure the engine and glue do not resolve, and
 * then reads the file's dynamic symbol table: every defined global symbol
 * must be a pam_sm_* function.  An exported engine symbol could be
 * interposed by, or collide with, another module in the same process.
 * Then its whole symbol table, where it has one (not stripped): no
 * envd_lint_* symbol, since envd check's warnings are envd's alone
 * (src/check/), not code the login process maps. */
#include "config.h"

#undef NDEBUG
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdbool.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PAM_ENVD_SO
#error "PAM_ENVD_SO must name the built module"
#endif

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL: " __VA_ARGS__);                                     \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

static const char *const entry_points[] = {
    "pam_sm_authenticate", "pam_sm_setcred",       "pam_sm_acct_mgmt",
    "pam_sm_open_session", "pam_sm_close_session", "pam_sm_chauthtok",
};

/* Names that exist inside the module and must stay inside. */
static const char *const hidden[] = {
    "envd_load",       "envd_config_init", "envd_policy_new",   "envd_parse",     "envd_expand",
    "envd_login_base", "envd_user_dir",    "pe_options_parse",  "envd_child_run", "envd_read_user",
    "envd_ids_get",    "pe_log_diag",      "envd_default_deny",
};

static bool is_entry_point(const char *name)
{
	for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); i++)
		if (strcmp(name, entry_points[i]) == 0)
			return true;
	return false;
}

static void check_dlopen(const char *path)
{
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	CHECK(dl != NULL, "dlopen %s: %s", path, dlerror());
	if (dl == NULL)
		return;
	for (size_t i = 0; i < sizeof(entry_points) / sizeof(entry_points[0]); i++)
		CHECK(dlsym(dl, entry_points[i]) != NULL, "%s does not resolve", entry_points[i]);
	for (size_t i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		CHECK(dlsym(dl, hidden[i]) == NULL, "%s is exported", hidden[i]);
	dlclose(dl);
}

/* Every defined, visible global or weak symbol of .dynsym is a pam_sm_*. */
static void check_dynsym(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	const unsigned char *map;
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * sh;
	size_t found = 0;

	CHECK(fd >= 0 && fstat(fd, &st) == 0, "cannot open %s", path);
	if (fd < 0)
		return;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	CHECK(map != MAP_FAILED, "cannot map %s", path);
	if (map == MAP_FAILED)
		return;
	eh = (const ElfW(Ehdr) *)map;
	CHECK(memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0, "%s is not ELF", path);
	sh = (const ElfW(Shdr) *)(map + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const ElfW(Sym) * sym;
		const char *strtab;
		size_t n;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		sym = (const ElfW(Sym) *)(map + sh[i].sh_offset);
		strtab = (const char *)(map + sh[sh[i].sh_link].sh_offset);
		n = sh[i].sh_size / sizeof(*sym);
		for (size_t k = 0; k < n; k++) {
			const char *name = strtab + sym[k].st_name;
			unsigned bind = ELF64_ST_BIND(sym[k].st_info);

			if (sym[k].st_shndx == SHN_UNDEF || name[0] == '\0')
				continue;
			if (bind != STB_GLOBAL && bind != STB_WEAK)
				continue;
			if (ELF64_ST_VISIBILITY(sym[k].st_other) != STV_DEFAULT)
				continue;
			/* version definitions show up as absolute symbols */
			if (sym[k].st_shndx == SHN_ABS && sym[k].st_value == 0)
				continue;
			CHECK(is_entry_point(name), "%s is exported", name);
			found += is_entry_point(name);
		}
	}
	CHECK(found == sizeof(entry_points) / sizeof(entry_points[0]),
	      "%zu of the entry points found in .dynsym", found);
	munmap((void *)map, (size_t)st.st_size);
}

/* No envd_lint_* symbol in the file's symbol table (SHT_SYMTAB: static
 * functions too).  A stripped file has none to read: said, not failed. */
static void check_no_lint(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	const char *map;
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * sh;
	bool symtab = false;

	if (fd < 0 || fstat(fd, &st) != 0) {
		CHECK(false, "cannot open %s", path);
		if (fd >= 0)
			close(fd);
		return;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		CHECK(false, "cannot map %s", path);
		return;
	}
	eh = (const ElfW(Ehdr) *)map;
	sh = (const ElfW(Shdr) *)(map + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const ElfW(Sym) * sym;
		const char *strtab;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		symtab = true;
		sym = (const ElfW(Sym) *)(map + sh[i].sh_offset);
		strtab = (const char *)(map + sh[sh[i].sh_link].sh_offset);
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++)
			CHECK(strncmp(strtab + sym[k].st_name, "envd_lint_", 10) != 0,
			      "%s has %s: the lint hooks are envd's", path,
			      strtab + sym[k].st_name);
	}
	if (!symtab)
		printf("note: %s is stripped: its lint symbols not checked\n", path);
	munmap((void *)map, (size_t)st.st_size);
}

int main(void)
{
	const char *path = getenv("PAM_ENVD_MODULE") ? getenv("PAM_ENVD_MODULE") : PAM_ENVD_SO;

	check_dlopen(path);
	check_dynsym(path);
	check_no_lint(path);
	if (failures == 0)
		printf("ok: %s exports only the pam_sm_* entry points\n", path);
	return failures == 0 ? 0 : 1;
}
