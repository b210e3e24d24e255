// SPDX-License-Identifier: GPL-2.0-only
/*
 * elfsym - ELF function symbols; see elfsym.h.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"

#define PAGE		4096ULL
#define GUESS_FROM	8	/* trace addresses that propose a bias */

/* Fields of either class and byte order */
struct elf_file {
	const uint8_t *b;
	size_t size;
	bool is64;
	bool swap;
};

static uint16_t rd16(const struct elf_file *f, size_t off)
{
	uint16_t v;

	if (off + 2 > f->size)
		return 0;
	memcpy(&v, f->b + off, 2);
	return f->swap ? __builtin_bswap16(v) : v;
}

static uint32_t rd32(const struct elf_file *f, size_t off)
{
	uint32_t v;

	if (off + 4 > f->size)
		return 0;
	memcpy(&v, f->b + off, 4);
	return f->swap ? __builtin_bswap32(v) : v;
}

static uint64_t rd64(const struct elf_file *f, size_t off)
{
	uint64_t v;

	if (off + 8 > f->size)
		return 0;
	memcpy(&v, f->b + off, 8);
	return f->swap ? __builtin_bswap64(v) : v;
}

/* An address-sized field */
static uint64_t rdw(const struct elf_file *f, size_t off)
{
	return f->is64 ? rd64(f, off) : rd32(f, off);
}

static int cmp_func(const void *a, const void *b)
{
	const struct elf_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* a sized symbol before an unsized alias */
	return x->size > y->size ? -1 : x->size < y->size;
}

struct shdr {
	uint32_t type;
	uint64_t offset, size, entsize;
	uint32_t link;
};

static void read_shdr(const struct elf_file *f, size_t off, struct shdr *s)
{
	if (f->is64) {
		s->type = rd32(f, off + 4);
		s->offset = rd64(f, off + 24);
		s->size = rd64(f, off + 32);
		s->link = rd32(f, off + 40);
		s->entsize = rd64(f, off + 56);
	} else {
		s->type = rd32(f, off + 4);
		s->offset = rd32(f, off + 16);
		s->size = rd32(f, off + 20);
		s->link = rd32(f, off + 24);
		s->entsize = rd32(f, off + 36);
	}
}

/* Add the function symbols of one symbol table; note undefined __cyg hooks */
static int add_symtab(struct elfsym *es, const struct elf_file *f, const struct shdr *sym,
		      const struct shdr *str, size_t *cap, size_t *names_len, size_t *names_cap)
{
	size_t esz = f->is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym);
	size_t i, n;

	if (!sym->entsize || sym->offset + sym->size > f->size || str->offset + str->size > f->size)
		return 0;
	n = sym->size / esz;
	for (i = 1; i < n; i++) {
		size_t off = sym->offset + i * esz;
		uint32_t name = rd32(f, off);
		uint64_t value, size;
		uint16_t shndx;
		uint8_t info;
		const char *nm;
		size_t len;

		if (f->is64) {
			info = f->b[off + 4];
			shndx = rd16(f, off + 6);
			value = rd64(f, off + 8);
			size = rd64(f, off + 16);
		} else {
			value = rd32(f, off + 4);
			size = rd32(f, off + 8);
			info = f->b[off + 12];
			shndx = rd16(f, off + 14);
		}
		if (name >= str->size)
			continue;
		nm = (const char *)f->b + str->offset + name;
		len = strnlen(nm, str->size - name);
		if (len == str->size - name || !len)
			continue;
		if (shndx == SHN_UNDEF) {
			if (!strcmp(nm, "__cyg_profile_func_enter"))
				es->instrumented = true;
			continue;
		}
		if (ELF64_ST_TYPE(info) != STT_FUNC && ELF64_ST_TYPE(info) != STT_GNU_IFUNC)
			continue;
		if (es->nfuncs == *cap) {
			size_t c = *cap ? *cap * 2 : 1024;
			struct elf_func *p = realloc(es->funcs, c * sizeof(*p));

			if (!p)
				return -ENOMEM;
			es->funcs = p;
			*cap = c;
		}
		if (*names_len + len + 1 > *names_cap) {
			size_t c = *names_cap ? *names_cap * 2 : 16384;
			char *p;

			while (c < *names_len + len + 1)
				c *= 2;
			p = realloc(es->names, c);
			if (!p)
				return -ENOMEM;
			es->names = p;
			*names_cap = c;
		}
		memcpy(es->names + *names_len, nm, len + 1);
		/* names are fixed up to pointers once the arena stops moving */
		es->funcs[es->nfuncs].name = (const char *)(uintptr_t)*names_len;
		es->funcs[es->nfuncs].addr = value;
		es->funcs[es->nfuncs].size = size;
		es->nfuncs++;
		*names_len += len + 1;
	}
	return 0;
}

static int parse(struct elfsym *es, const struct elf_file *f)
{
	size_t shoff, phoff, i, cap = 0, names_len = 0, names_cap = 0, j;
	unsigned int shnum, shentsize, phnum, phentsize;
	struct shdr s, link;
	bool have_symtab = false;
	int pass, ret;

	es->pie = rd16(f, 16) == ET_DYN;
	phoff = rdw(f, f->is64 ? 32 : 28);
	shoff = rdw(f, f->is64 ? 40 : 32);
	phentsize = rd16(f, f->is64 ? 54 : 42);
	phnum = rd16(f, f->is64 ? 56 : 44);
	shentsize = rd16(f, f->is64 ? 58 : 46);
	shnum = rd16(f, f->is64 ? 60 : 48);
	for (i = 0; i < phnum; i++)
		if (rd32(f, phoff + i * phentsize) == PT_INTERP)
			es->dynamic = true;
	if (!shoff || !shentsize || shoff + (size_t)shnum * shentsize > f->size)
		return 0;	/* no sections: no symbols */

	/* .symtab if there is one (it has everything), else .dynsym */
	for (i = 0; i < shnum; i++) {
		read_shdr(f, shoff + i * shentsize, &s);
		if (s.type == SHT_SYMTAB)
			have_symtab = true;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < shnum; i++) {
			read_shdr(f, shoff + i * shentsize, &s);
			if (s.type != (pass ? SHT_DYNSYM : SHT_SYMTAB) || s.link >= shnum)
				continue;
			if (pass && have_symtab) {
				/* only for the undefined hooks */
				size_t keep = es->nfuncs;

				read_shdr(f, shoff + s.link * shentsize, &link);
				ret = add_symtab(es, f, &s, &link, &cap, &names_len, &names_cap);
				es->nfuncs = keep;
				if (ret)
					return ret;
				continue;
			}
			read_shdr(f, shoff + s.link * shentsize, &link);
			ret = add_symtab(es, f, &s, &link, &cap, &names_len, &names_cap);
			if (ret)
				return ret;
		}
	}
	for (i = 0; i < es->nfuncs; i++)
		es->funcs[i].name = es->names + (uintptr_t)es->funcs[i].name;
	qsort(es->funcs, es->nfuncs, sizeof(*es->funcs), cmp_func);
	/* one symbol per address */
	for (i = 0, j = 0; i < es->nfuncs; i++)
		if (!j || es->funcs[i].addr != es->funcs[j - 1].addr)
			es->funcs[j++] = es->funcs[i];
	es->nfuncs = j;
	return 0;
}

int elfsym_load(struct elfsym *es, const char *path)
{
	struct elf_file f = { 0 };
	struct stat st;
	void *map;
	int fd, ret;

	memset(es, 0, sizeof(*es));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || st.st_size < 64) {
		close(fd);
		return -ENOEXEC;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	f.b = map;
	f.size = (size_t)st.st_size;
	ret = -ENOEXEC;
	if (memcmp(f.b, ELFMAG, SELFMAG) || (f.b[EI_CLASS] != ELFCLASS32 &&
					     f.b[EI_CLASS] != ELFCLASS64) ||
	    (f.b[EI_DATA] != ELFDATA2LSB && f.b[EI_DATA] != ELFDATA2MSB))
		goto out;
	f.is64 = f.b[EI_CLASS] == ELFCLASS64;
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	f.swap = f.b[EI_DATA] == ELFDATA2MSB;
#else
	f.swap = f.b[EI_DATA] == ELFDATA2LSB;
#endif
	ret = parse(es, &f);
	if (ret)
		elfsym_free(es);
out:
	munmap(map, f.size);
	return ret;
}

void elfsym_free(struct elfsym *es)
{
	free(es->funcs);
	free(es->names);
	memset(es, 0, sizeof(*es));
}

/* The last function starting at or before @a (link-time address) */
static const struct elf_func *find(const struct elfsym *es, uint64_t a)
{
	size_t lo = 0, hi = es->nfuncs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (es->funcs[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &es->funcs[lo - 1] : NULL;
}

static bool inside(const struct elfsym *es, const struct elf_func *fn, uint64_t a)
{
	if (fn->size)
		return a - fn->addr < fn->size;
	/* unsized: up to the next symbol */
	return fn + 1 < es->funcs + es->nfuncs ? a < fn[1].addr : a - fn->addr < 0x10000;
}

/*
 * Trace addresses have bit 0 clear (the format uses it as a flag), so an
 * address A stands for A or A + 1. Records are about function starts and
 * the call sites control returns to: a function that starts at A + 1 (x86
 * compilers do not always align functions) is the one, otherwise the
 * function containing A. perf's sifive-trace decoding (--itrace=o) resolves
 * record addresses the same way, so both name the same function.
 */
const struct elf_func *elfsym_lookup(const struct elfsym *es, uint64_t addr, uint64_t *off)
{
	uint64_t a = addr - es->bias;
	const struct elf_func *fn;

	if (!(a & 1)) {
		fn = find(es, a + 1);
		if (fn && fn->addr == a + 1) {
			if (off)
				*off = 0;
			return fn;
		}
	}
	fn = find(es, a);
	if (!fn || !inside(es, fn, a))
		return NULL;
	if (off)
		*off = a - fn->addr;
	return fn;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * How many addresses fit under @bias: starts on a function start, PCs
 * inside a function. @dist: the PCs' summed offsets into their functions,
 * to prefer the tighter of two equal fits.
 */
static size_t score(const struct elfsym *es, uint64_t bias, const uint64_t *starts,
		    size_t nstarts, const uint64_t *pcs, size_t npcs, uint64_t *dist)
{
	size_t i, n = 0;

	*dist = 0;
	for (i = 0; i < nstarts; i++) {
		const struct elf_func *fn = find(es, (starts[i] - bias) | 1);

		n += fn && (fn->addr & ~1ULL) == starts[i] - bias;
	}
	for (i = 0; i < npcs; i++) {
		uint64_t a = (pcs[i] - bias) | 1;
		const struct elf_func *fn = find(es, a);

		if (fn && inside(es, fn, a)) {
			n++;
			*dist += a - fn->addr;
		}
	}
	return n;
}

size_t elfsym_guess_bias(struct elfsym *es, const uint64_t *starts, size_t nstarts,
			 const uint64_t *pcs, size_t npcs)
{
	uint64_t *cand = NULL, a, b;
	size_t ncand = 0, cap = 0, i, k, m, best_n = 0, n;
	uint64_t best = 0, dist, best_dist;
	bool from_start = nstarts > 0;

	es->bias = 0;
	if (!es->nfuncs || (!nstarts && !npcs))
		return 0;
	best_n = score(es, 0, starts, nstarts, pcs, npcs, &best_dist);
	if (!es->pie)
		return best_n;
	/*
	 * Candidates: a few of the addresses against every function (samples
	 * may also be in shared libraries: one address is not enough), spread
	 * over all of them: the first samples of a timer-sampled program may
	 * all be in its loader and libc (seen: 85 samples, 71 in the program)
	 */
	m = from_start ? nstarts : npcs;
	if (m > GUESS_FROM)
		m = GUESS_FROM;
	for (k = 0; k < m; k++) {
		a = from_start ? starts[k * nstarts / m] : pcs[k * npcs / m];
		for (i = 0; i < es->nfuncs; i++) {
			const struct elf_func *fn = &es->funcs[i];
			uint64_t lo, hi;

			if (from_start) {
				lo = hi = a - (fn->addr & ~1ULL);
				if (lo % PAGE)
					continue;
			} else {
				if (a < fn->addr)
					continue;
				hi = (a - fn->addr) & ~(PAGE - 1);
				lo = a - fn->addr - (fn->size ? fn->size - 1 : 0);
				lo = (lo + PAGE - 1) & ~(PAGE - 1);
			}
			for (b = lo; b <= hi; b += PAGE) {
				if (ncand == cap) {
					size_t c = cap ? cap * 2 : 1024;
					uint64_t *p = realloc(cand, c * sizeof(*p));

					if (!p)
						goto out;
					cand = p;
					cap = c;
				}
				cand[ncand++] = b;
				if (b == hi)
					break;
			}
		}
	}
	qsort(cand, ncand, sizeof(*cand), cmp_u64);
	for (i = 0; i < ncand; i++) {
		if (i && cand[i] == cand[i - 1])
			continue;
		n = score(es, cand[i], starts, nstarts, pcs, npcs, &dist);
		if (n > best_n || (n == best_n && n && dist < best_dist)) {
			best_n = n;
			best_dist = dist;
			best = cand[i];
		}
	}
out:
	free(cand);
	es->bias = best;
	return best_n;
}
