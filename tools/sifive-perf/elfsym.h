/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * elfsym - the function symbols of an ELF file (32 or 64 bits, either
 * byte order), for symbolising trace addresses, and a few facts about the
 * file that sifive-perf record wants (dynamic or static, built with
 * -finstrument-functions).
 */
#ifndef ELFSYM_H
#define ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_func {
	uint64_t addr;
	uint64_t size;
	const char *name;
};

struct elfsym {
	struct elf_func *funcs;		/* sorted by address */
	size_t nfuncs;
	char *names;			/* their names */
	bool pie;			/* ET_DYN: loaded at a bias */
	bool dynamic;			/* has a PT_INTERP: LD_PRELOAD works */
	bool instrumented;		/* calls __cyg_profile_func_enter */
	uint64_t bias;			/* added to symbol addresses */
};

/* 0, or -errno (-ENOEXEC: not an ELF file we can read) */
int elfsym_load(struct elfsym *es, const char *path);
void elfsym_free(struct elfsym *es);

/* The function containing @addr (runtime address), and the offset in it; NULL if none */
const struct elf_func *elfsym_lookup(const struct elfsym *es, uint64_t addr, uint64_t *off);

/*
 * The load bias of a position-independent executable, found from trace
 * addresses: @starts are function start addresses (function entry/exit
 * records), @pcs addresses anywhere in functions (samples). The page-
 * aligned bias under which the most addresses land on a function start
 * (or inside a function) wins. Sets es->bias; returns how many addresses
 * matched.
 */
size_t elfsym_guess_bias(struct elfsym *es, const uint64_t *starts, size_t nstarts,
			 const uint64_t *pcs, size_t npcs);

#endif /* ELFSYM_H */
