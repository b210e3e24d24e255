// SPDX-License-Identifier: GPL-2.0-only
/*
 * sifive-perf decode: a trace file (raw sink bytes) to perf records.
 *
 * The Nexus stream goes through the in-tree decoder (tools/sifive-trace),
 * the Data Acquisition Messages of the perf channel through the record
 * decoder (tools/libsifiveperf), and the records come out as
 *   text     one line per header, counter definition and record, in the
 *            style of the SiFive trace decoder's .perf files
 *   csv      one row per record (a heading row at each new counter set)
 *   json     Chrome trace-event format: function spans (B/E, with the
 *            counters' change over the span), samples and manual records
 *            (instant events) and counter tracks, per stream; Perfetto
 *            and chrome://tracing open it
 *   summary  calls and samples per function
 * Addresses are symbolised with --elf (the load bias of a PIE is found
 * from the trace); counter values are rebuilt from the deltas.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "events.h"
#include "sifive-perf.h"
#include "spf_decode.h"

enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON, FMT_SUMMARY };

#define MAX_TRACKS	256
#define MAX_DEPTH	4096
#define SAMPLE_ADDRS	512
#define HOLD_RECORDS	65536	/* most records held back to find the bias */
#define SYMCACHE	1024	/* symbol names cached, direct mapped */
#define TEXT_BUF	65536	/* text output buffered before fwrite() */
#define TEXT_LINE_MAX	(1024 + SPF_MAX_CNTRS * (EV_NAME_LEN + 32))

struct symcache {
	bool used;
	uint64_t addr;
	unsigned int len;
	char name[120];
};

/* A header or a record decoded before the PIE's bias was known */
struct held {
	bool is_header;
	union {
		struct spf_header *h;
		struct {
			unsigned int type, naddr, nctr, stream, key, src;
			bool ts_valid;
			uint64_t addr[2], ts, end_ts;
			size_t value;	/* its counters' values: in held_vals from here */
		} r;
	};
};

/* A stream's function stack, for the JSON spans */
struct frame {
	uint64_t fn;
	uint64_t value[SPF_MAX_CNTRS];
};

struct track {
	bool used;
	unsigned int key, stream;
	unsigned int tid;
	unsigned int depth;
	struct frame *stack;
	uint64_t last_ts;
	bool named;
	char label[64];		/* the thread's name in JSON */
};

/* Per-function totals for the summary */
struct fstat {
	uint64_t addr;
	uint64_t enters, exits, samples, manual;
};

struct ctx {
	enum fmt fmt;
	FILE *out;
	struct elfsym elf;
	bool have_elf;
	double ts_hz;
	unsigned int channel;
	bool by_src;
	char names[SPF_MAX_CNTRS][EV_NAME_LEN];	/* of the header in force */
	char text_pfx[SPF_MAX_CNTRS][EV_NAME_LEN + 4];	/* " [name=" */
	unsigned int text_pfx_len[SPF_MAX_CNTRS];
	uint32_t csv_mask;
	bool csv_heading;
	bool json_first;
	struct track tracks[MAX_TRACKS];
	unsigned int ntracks;
	uint64_t unmatched_exits;
	uint64_t no_ts;
	uint64_t by_type[SPF_NR_REC_TYPES];
	/* address collection for the PIE bias */
	uint64_t starts[SAMPLE_ADDRS], pcs[SAMPLE_ADDRS];
	size_t nstarts, npcs;
	/* until the bias is known: what was decoded, held back (see hold()) */
	bool holding;
	struct held *held;
	size_t nheld, held_cap, held_records;
	uint64_t *held_vals;	/* the held records' counter values, one after the other */
	size_t nheld_vals, held_vals_cap;
	const char *file, *elfpath;
	long long size;
	int srcbits;
	/* symbol names of recent addresses */
	struct symcache sym[SYMCACHE];
	/* summary */
	struct fstat *fstats;
	size_t nfstats, fstats_cap;
	/* text records not yet written (text_flush() before other output) */
	size_t text_len;
	char text_buf[TEXT_BUF];
};

static void usage_decode(void)
{
	fprintf(stderr,
		"usage: sifive-perf decode FILE [--elf PROG] [--format text|csv|json|summary]\n"
		"                          [-o OUT] [-c CHANNEL] [--srcbits N] [--by-src]\n"
		"                          [--bias ADDR] [--ts-freq HZ]\n"
		"  --elf PROG      symbolise addresses with PROG's symbol table\n"
		"  --format F      text (default), csv, json (Chrome trace events), summary\n"
		"  -c CHANNEL      the ITC channel of the perf records (default 6)\n"
		"  --srcbits N     width of the SRC field (default: found from the data)\n"
		"  --by-src        several harts wrote into one sink at once: decode per SRC\n"
		"  --bias ADDR     load address of a PIE (default: found from the trace)\n"
		"  --ts-freq HZ    trace timestamp frequency for JSON times (default 1e9)\n");
}

/* "sym+0x12" or "0x..." */
static const char *symname_uncached(struct ctx *c, uint64_t addr, char *buf, size_t size)
{
	const struct elf_func *fn;
	uint64_t off;

	if (c->have_elf && (fn = elfsym_lookup(&c->elf, addr, &off))) {
		if (off)
			snprintf(buf, size, "%s+%#" PRIx64, fn->name, off);
		else
			snprintf(buf, size, "%s", fn->name);
	} else {
		snprintf(buf, size, "%#" PRIx64, addr);
	}
	return buf;
}

/* The same, from a cache of recent addresses: @len gets its length */
static const char *symname_len(struct ctx *c, uint64_t addr, unsigned int *len)
{
	struct symcache *e = &c->sym[(addr >> 1 ^ addr >> 11) % SYMCACHE];

	if (!e->used || e->addr != addr) {
		symname_uncached(c, addr, e->name, sizeof(e->name));
		e->len = strlen(e->name);
		e->addr = addr;
		e->used = e->len + 1 < sizeof(e->name);	/* a longer name is not cached */
		if (!e->used) {
			static char buf[256];

			symname_uncached(c, addr, buf, sizeof(buf));
			*len = strlen(buf);
			return buf;
		}
	}
	*len = e->len;
	return e->name;
}

/*
 * The symbol name of @addr into the text line at @p. Names from the cache
 * (all but the longest) are copied in one fixed-size piece, the line has
 * the room.
 */
static inline char *put_sym(char *p, struct ctx *c, uint64_t addr)
{
	unsigned int len;
	const char *n = symname_len(c, addr, &len);
	const struct symcache *e = &c->sym[(addr >> 1 ^ addr >> 11) % SYMCACHE];

	if (n == e->name)
		memcpy(p, e->name, sizeof(e->name));
	else
		memcpy(p, n, len);
	return p + len;
}

static const char *symname(struct ctx *c, uint64_t addr, char *buf, size_t size)
{
	unsigned int len;
	const char *n = symname_len(c, addr, &len);

	snprintf(buf, size, "%s", n);
	return buf;
}

/* ---- text lines without printf ---- */

static inline char *put_str(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

/* Two decimal digits each */
static const char dec_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

/* printf's %llu: the number of digits first, then two at a time from the last */
static inline char *put_u64(char *p, uint64_t v)
{
	static const uint64_t pow10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL, 10000000ULL,
		100000000ULL, 1000000000ULL, 10000000000ULL, 100000000000ULL,
		1000000000000ULL, 10000000000000ULL, 100000000000000ULL,
		1000000000000000ULL, 10000000000000000ULL, 100000000000000000ULL,
		1000000000000000000ULL, 10000000000000000000ULL,
	};
	/* digits: about bits * log10(2), one more if it reaches the next power */
	unsigned int n = (64 - __builtin_clzll(v | 1)) * 1233 >> 12;
	uint32_t w, r;
	char *q;

	n += n < 20 && v >= pow10[n];
	n += !n;
	q = p + n;
	/* 64-bit divisions only for the digits above the low 32 bits' */
	while (v >> 32) {
		r = (uint32_t)(v % 10000);
		v /= 10000;
		q -= 4;
		memcpy(q, dec_pairs + 2 * (r / 100), 2);
		memcpy(q + 2, dec_pairs + 2 * (r % 100), 2);
	}
	for (w = (uint32_t)v; w >= 100; w /= 100) {
		q -= 2;
		memcpy(q, dec_pairs + 2 * (w % 100), 2);
	}
	if (w >= 10)
		memcpy(q - 2, dec_pairs + 2 * w, 2);
	else
		q[-1] = (char)('0' + w);
	return p + n;
}

/* printf's %#llx: "0" for 0, else "0x..." */
static inline char *put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	unsigned int n;
	char *q;

	if (!v) {
		*p++ = '0';
		return p;
	}
	*p++ = '0';
	*p++ = 'x';
	n = (64 - __builtin_clzll(v) + 3) / 4;
	for (q = p + n; q > p + 1; v >>= 8) {
		q -= 2;
		q[0] = digits[v >> 4 & 15];
		q[1] = digits[v & 15];
	}
	if (q > p)
		q[-1] = digits[v & 15];
	return p + n;
}

static void text_flush(struct ctx *c)
{
	if (c->text_len && c->out)
		fwrite(c->text_buf, 1, c->text_len, c->out);
	c->text_len = 0;
}

#define PUT_LIT(p, s)	put_str(p, s, sizeof(s) - 1)

static void text_record(struct ctx *c, const struct spf_record *r)
{
	static const char *const text_names[SPF_NR_REC_TYPES] = {
		"[Func Enter] ", "[Func Exit] ", "[Manual] ", "[ISR] ",
	};
	static const unsigned int text_names_len[SPF_NR_REC_TYPES] = { 13, 12, 9, 6 };
	unsigned int i;
	char *p;

	if (c->text_len > TEXT_BUF - TEXT_LINE_MAX)
		text_flush(c);
	p = c->text_buf + c->text_len;
	*p++ = '[';
	p = put_u64(p, r->src);
	p = PUT_LIT(p, "] ");
	p = put_u64(p, r->ts);
	*p++ = ' ';
	p = put_str(p, text_names[r->type], text_names_len[r->type]);
	p = put_str(p, r->naddr == 2 ? "fn=" : "pc=", 3);
	p = put_hex(p, r->addr[0]);
	p = PUT_LIT(p, " <");
	p = put_sym(p, c, r->addr[0]);
	*p++ = '>';
	if (r->naddr == 2) {
		p = r->type == SPF_REC_FUNC_ENTER ? PUT_LIT(p, " from=") : PUT_LIT(p, " to=");
		p = put_hex(p, r->addr[1]);
		p = PUT_LIT(p, " <");
		p = put_sym(p, c, r->addr[1]);
		*p++ = '>';
	}
	for (i = 0; i < r->nctr; i++) {
		/* the whole array: a fixed size is a few moves, the line has the room */
		memcpy(p, c->text_pfx[i], sizeof(c->text_pfx[i]));
		p += c->text_pfx_len[i];
		p = put_u64(p, r->value[i]);
		*p++ = ']';
	}
	*p++ = '\n';
	c->text_len = p - c->text_buf;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static double ts_us(struct ctx *c, uint64_t ts)
{
	return (double)ts * 1e6 / c->ts_hz;
}

static struct track *track_of(struct ctx *c, unsigned int key, unsigned int stream)
{
	unsigned int i;

	for (i = 0; i < c->ntracks; i++)
		if (c->tracks[i].key == key && c->tracks[i].stream == stream)
			return &c->tracks[i];
	if (c->ntracks == MAX_TRACKS)
		return NULL;
	c->tracks[c->ntracks] = (struct track){
		.used = true, .key = key, .stream = stream, .tid = c->ntracks + 1,
	};
	return &c->tracks[c->ntracks++];
}

static void json_event_start(struct ctx *c)
{
	fputs(c->json_first ? "\n" : ",\n", c->out);
	c->json_first = false;
}

static void json_close_span(struct ctx *c, struct track *t, uint64_t ts,
			    const uint64_t *value, unsigned int nctr)
{
	struct frame *f = &t->stack[--t->depth];
	unsigned int i;

	json_event_start(c);
	fprintf(c->out, "{\"ph\":\"E\",\"pid\":1,\"tid\":%u,\"ts\":%.3f", t->tid, ts_us(c, ts));
	if (value && nctr) {
		fputs(",\"args\":{", c->out);
		for (i = 0; i < nctr; i++) {
			fprintf(c->out, "%s", i ? "," : "");
			json_str(c->out, c->names[i]);
			fprintf(c->out, ":%" PRIu64, value[i] - f->value[i]);
		}
		fputc('}', c->out);
	}
	fputc('}', c->out);
}

/* A stream ends: close the spans still open */
static void track_end(struct ctx *c, struct track *t)
{
	while (t->depth)
		json_close_span(c, t, t->last_ts, NULL, 0);
}

static struct fstat *fstat_of(struct ctx *c, uint64_t addr)
{
	const struct elf_func *fn;
	size_t i;

	if (c->have_elf && (fn = elfsym_lookup(&c->elf, addr, NULL)))
		addr = (fn->addr & ~1ULL) + c->elf.bias;	/* per function, not per PC */
	for (i = 0; i < c->nfstats; i++)
		if (c->fstats[i].addr == addr)
			return &c->fstats[i];
	if (c->nfstats == c->fstats_cap) {
		size_t cap = c->fstats_cap ? c->fstats_cap * 2 : 256;
		struct fstat *p = realloc(c->fstats, cap * sizeof(*p));

		if (!p)
			return NULL;
		c->fstats = p;
		c->fstats_cap = cap;
	}
	memset(&c->fstats[c->nfstats], 0, sizeof(c->fstats[0]));
	c->fstats[c->nfstats].addr = addr;
	return &c->fstats[c->nfstats++];
}

static int on_header(const struct spf_header *h, void *priv)
{
	struct ctx *c = priv;
	unsigned int i;

	text_flush(c);
	for (i = 0; i < h->nctr; i++) {
		event_def_name((int)h->def[i].type, h->def[i].code, h->def[i].event_data,
			       c->names[i], sizeof(c->names[i]));
		c->text_pfx_len[i] = (unsigned int)snprintf(c->text_pfx[i], sizeof(c->text_pfx[i]),
							    " [%s=", c->names[i]);
	}
	switch (c->fmt) {
	case FMT_TEXT:
		fprintf(c->out, "[%u] %" PRIu64 " [Perf Header] [Stream=%u] [CountType=%s] "
			"[Mask=0x%08x]\n", h->src, h->ts, h->stream, spf_count_name(h->count),
			h->mask);
		for (i = 0; i < h->nctr; i++) {
			const struct spf_ctr_def *d = &h->def[i];

			fprintf(c->out, "[%u] %" PRIu64 " [Perf Cntr Def] [Counter=%u] [Type=%u] ",
				h->src, h->ts, h->idx[i], d->type);
			if (d->type == 2)
				fprintf(c->out, "[EventData=0x%" PRIx64 "] ", d->event_data);
			else
				fprintf(c->out, "[Code=%#x] ", d->code);
			fprintf(c->out, "[Name=%s] [CntrCSR=0x%03x] [CntrBits=%u]\n", c->names[i],
				SPF_INFO_CSR(d->info), SPF_INFO_WIDTH(d->info));
		}
		break;
	case FMT_CSV:
		if (!c->csv_heading || h->mask != c->csv_mask) {
			fputs("stream,src,timestamp,type,addr,symbol,addr2,symbol2", c->out);
			for (i = 0; i < h->nctr; i++) {
				fputc(',', c->out);
				csv_str(c->out, c->names[i]);
			}
			fputc('\n', c->out);
			c->csv_heading = true;
			c->csv_mask = h->mask;
		}
		break;
	case FMT_JSON: {
		struct track *t;

		/* the same key's previous stream has ended */
		for (i = 0; i < c->ntracks; i++)
			if (c->tracks[i].key == h->key && c->tracks[i].stream + 1 == h->stream)
				track_end(c, &c->tracks[i]);
		t = track_of(c, h->key, h->stream);
		if (t && !t->named) {
			if (c->by_src)
				snprintf(t->label, sizeof(t->label), "src %u stream %u", h->key,
					 h->stream);
			else
				snprintf(t->label, sizeof(t->label), "stream %u", h->stream);
			json_event_start(c);
			fprintf(c->out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":%u,"
				"\"args\":{\"name\":\"%s (%s counts, from hart %u)\"}}", t->tid,
				t->label, spf_count_name(h->count), h->src);
			t->named = true;
		}
		break;
	}
	case FMT_SUMMARY:
		break;
	}
	return 0;
}

static void json_record(struct ctx *c, const struct spf_record *r)
{
	struct track *t = track_of(c, r->key, r->stream);
	char a[256], b[256];
	unsigned int i;

	if (!t)
		return;
	if (!r->ts_valid) {
		c->no_ts++;
		return;
	}
	t->last_ts = r->end_ts;
	if (!t->stack) {
		t->stack = calloc(MAX_DEPTH, sizeof(*t->stack));
		if (!t->stack)
			return;
	}
	switch (r->type) {
	case SPF_REC_FUNC_ENTER:
		if (t->depth == MAX_DEPTH)
			break;
		t->stack[t->depth].fn = r->addr[0];
		memcpy(t->stack[t->depth].value, r->value, sizeof(r->value));
		t->depth++;
		json_event_start(c);
		fprintf(c->out, "{\"ph\":\"B\",\"cat\":\"function\",\"pid\":1,\"tid\":%u,"
			"\"ts\":%.3f,\"name\":", t->tid, ts_us(c, r->ts));
		json_str(c->out, symname(c, r->addr[0], a, sizeof(a)));
		fprintf(c->out, ",\"args\":{\"addr\":\"%#" PRIx64 "\",\"caller\":", r->addr[0]);
		json_str(c->out, symname(c, r->addr[1], b, sizeof(b)));
		fputs("}}", c->out);
		break;
	case SPF_REC_FUNC_EXIT: {
		unsigned int d = t->depth;

		while (d && t->stack[d - 1].fn != r->addr[0])
			d--;
		if (!d) {
			c->unmatched_exits++;	/* entered before the trace started */
			break;
		}
		while (t->depth > d)	/* frames a longjmp skipped */
			json_close_span(c, t, r->ts, NULL, 0);
		json_close_span(c, t, r->ts, r->value, r->nctr);
		break;
	}
	default:
		json_event_start(c);
		fprintf(c->out, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"pid\":1,\"tid\":%u,"
			"\"ts\":%.3f,\"name\":", r->type == SPF_REC_ISR ? "sample" : "manual",
			t->tid, ts_us(c, r->ts));
		json_str(c->out, symname(c, r->addr[0], a, sizeof(a)));
		fprintf(c->out, ",\"args\":{\"pc\":\"%#" PRIx64 "\"}}", r->addr[0]);
		break;
	}
	if (r->nctr) {
		json_event_start(c);
		fprintf(c->out, "{\"ph\":\"C\",\"pid\":1,\"tid\":%u,\"ts\":%.3f,"
			"\"name\":\"%s counters\",\"args\":{", t->tid, ts_us(c, r->ts),
			t->label[0] ? t->label : "stream");
		for (i = 0; i < r->nctr; i++) {
			fprintf(c->out, "%s", i ? "," : "");
			json_str(c->out, c->names[i]);
			fprintf(c->out, ":%" PRIu64, r->value[i]);
		}
		fputs("}}", c->out);
	}
}

static int on_record(const struct spf_record *r, void *priv)
{
	struct ctx *c = priv;
	char a[256], b[256];
	unsigned int i;
	bool two = r->naddr == 2;

	c->by_type[r->type]++;
	switch (c->fmt) {
	case FMT_TEXT:
		text_record(c, r);
		break;
	case FMT_CSV:
		fprintf(c->out, "%u,%u,%" PRIu64 ",%s,%#" PRIx64 ",", r->stream, r->src, r->ts,
			spf_rec_name(r->type), r->addr[0]);
		csv_str(c->out, symname(c, r->addr[0], a, sizeof(a)));
		if (two) {
			fprintf(c->out, ",%#" PRIx64 ",", r->addr[1]);
			csv_str(c->out, symname(c, r->addr[1], b, sizeof(b)));
		} else {
			fputs(",,", c->out);
		}
		for (i = 0; i < r->nctr; i++)
			fprintf(c->out, ",%" PRIu64, r->value[i]);
		fputc('\n', c->out);
		break;
	case FMT_JSON:
		json_record(c, r);
		break;
	case FMT_SUMMARY: {
		struct fstat *f = fstat_of(c, r->addr[0]);

		if (!f)
			break;
		if (r->type == SPF_REC_FUNC_ENTER)
			f->enters++;
		else if (r->type == SPF_REC_FUNC_EXIT)
			f->exits++;
		else if (r->type == SPF_REC_ISR)
			f->samples++;
		else
			f->manual++;
		break;
	}
	}
	return 0;
}

static void on_error(const char *what, uint64_t offset, void *priv)
{
	(void)priv;
	if (getenv("SIFIVE_PERF_DEBUG"))
		fprintf(stderr, "sifive-perf decode: offset %" PRIu64 ": %s\n", offset, what);
}

/* The output's first lines (the text header line has the bias) */
static void preamble(struct ctx *c)
{
	text_flush(c);
	if (c->fmt == FMT_TEXT) {
		fprintf(c->out, "# sifive-perf decode %s: %lld bytes, channel %u, srcbits %d",
			c->file, c->size, c->channel, c->srcbits);
		if (c->have_elf)
			fprintf(c->out, ", ELFPATH=%s (bias %#" PRIx64 ")", c->elfpath,
				c->elf.bias);
		fputc('\n', c->out);
	} else if (c->fmt == FMT_JSON) {
		fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"sifive-perf decode\","
		      "\"file\":", c->out);
		json_str(c->out, c->file);
		fprintf(c->out, ",\"timestamp_hz\":%.0f},\"traceEvents\":[", c->ts_hz);
	}
}

/*
 * The bias of a PIE is found from the first SAMPLE_ADDRS function
 * addresses and sample PCs; until then (or until HOLD_RECORDS records,
 * or the end), headers and records are held back, then output in order:
 * one pass over the file.
 */
static int release(struct ctx *c)
{
	size_t i;
	int ret = 0;

	c->holding = false;
	elfsym_guess_bias(&c->elf, c->starts, c->nstarts, c->pcs, c->npcs);
	memset(c->sym, 0, sizeof(c->sym));
	preamble(c);
	for (i = 0; i < c->nheld; i++) {
		struct held *e = &c->held[i];

		if (e->is_header) {
			if (!ret)
				ret = on_header(e->h, c);
			free(e->h);
		} else {
			struct spf_record r = {
				.type = e->r.type, .naddr = e->r.naddr, .nctr = e->r.nctr,
				.stream = e->r.stream, .key = e->r.key, .src = e->r.src,
				.ts_valid = e->r.ts_valid, .ts = e->r.ts, .end_ts = e->r.end_ts,
				.addr = { e->r.addr[0], e->r.addr[1] },
			};

			memcpy(r.value, c->held_vals + e->r.value, e->r.nctr * sizeof(r.value[0]));
			if (!ret)
				ret = on_record(&r, c);
		}
	}
	free(c->held);
	c->held = NULL;
	c->nheld = c->held_cap = 0;
	free(c->held_vals);
	c->held_vals = NULL;
	c->nheld_vals = c->held_vals_cap = 0;
	return ret;
}

static struct held *hold(struct ctx *c)
{
	if (c->nheld == c->held_cap) {
		size_t cap = c->held_cap ? c->held_cap * 2 : 1024;
		struct held *p = realloc(c->held, cap * sizeof(*p));

		if (!p)
			return NULL;
		c->held = p;
		c->held_cap = cap;
	}
	return &c->held[c->nheld++];
}

static int hold_header(const struct spf_header *h, void *priv)
{
	struct ctx *c = priv;
	struct held *e;

	if (!c->holding)
		return on_header(h, priv);
	e = hold(c);
	if (!e)
		return -ENOMEM;
	e->h = malloc(sizeof(*h));
	if (!e->h) {
		c->nheld--;
		return -ENOMEM;
	}
	e->is_header = true;
	*e->h = *h;
	return 0;
}

static int hold_record(const struct spf_record *r, void *priv)
{
	struct ctx *c = priv;
	struct held *e;

	if (!c->holding)
		return on_record(r, priv);
	if (r->type <= SPF_REC_FUNC_EXIT) {
		if (c->nstarts < SAMPLE_ADDRS)
			c->starts[c->nstarts++] = r->addr[0];
	} else if (c->npcs < SAMPLE_ADDRS) {
		c->pcs[c->npcs++] = r->addr[0];
	}
	e = hold(c);
	if (!e)
		return -ENOMEM;
	e->is_header = false;
	e->r.type = r->type;
	e->r.naddr = r->naddr;
	e->r.nctr = r->nctr;
	e->r.stream = r->stream;
	e->r.key = r->key;
	e->r.src = r->src;
	e->r.ts_valid = r->ts_valid;
	e->r.ts = r->ts;
	e->r.end_ts = r->end_ts;
	e->r.addr[0] = r->addr[0];
	e->r.addr[1] = r->addr[1];
	if (c->held_vals_cap - c->nheld_vals < r->nctr) {
		size_t cap = c->held_vals_cap ? c->held_vals_cap * 2 : 8192;
		uint64_t *p = realloc(c->held_vals, cap * sizeof(*p));

		if (!p) {
			c->nheld--;
			return -ENOMEM;
		}
		c->held_vals = p;
		c->held_vals_cap = cap;
	}
	e->r.value = c->nheld_vals;
	memcpy(c->held_vals + c->nheld_vals, r->value, r->nctr * sizeof(uint64_t));
	c->nheld_vals += r->nctr;
	if ((c->nstarts == SAMPLE_ADDRS && c->npcs == SAMPLE_ADDRS) ||
	    ++c->held_records == HOLD_RECORDS)
		return release(c);
	return 0;
}

static int cmp_fstat(const void *a, const void *b)
{
	const struct fstat *x = a, *y = b;
	uint64_t nx = x->enters + x->samples + x->manual, ny = y->enters + y->samples + y->manual;

	return nx > ny ? -1 : nx < ny;
}

int cmd_decode(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "elf", required_argument, NULL, 'e' },
		{ "format", required_argument, NULL, 'f' },
		{ "output", required_argument, NULL, 'o' },
		{ "channel", required_argument, NULL, 'c' },
		{ "srcbits", required_argument, NULL, 's' },
		{ "by-src", no_argument, NULL, 'S' },
		{ "bias", required_argument, NULL, 'b' },
		{ "ts-freq", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *file, *elf = NULL, *outpath = NULL;
	struct spf_dec_ops ops = { .header = on_header, .record = on_record, .error = on_error };
	struct spf_decode_result res;
	struct ctx *c;
	int opt, srcbits = -1, fd, ret = 1;
	bool by_src = false, bias_set = false, where_set = false;
	uint64_t bias = 0;
	struct stat st;
	void *map;
	size_t i;

	c = calloc(1, sizeof(*c));
	if (!c)
		return 1;
	c->fmt = FMT_TEXT;
	c->ts_hz = 1e9;
	c->channel = 6;
	c->json_first = true;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "e:f:o:c:h", opts, NULL)) != -1) {
		switch (opt) {
		case 'e':
			elf = optarg;
			break;
		case 'f':
			if (!strcmp(optarg, "text"))
				c->fmt = FMT_TEXT;
			else if (!strcmp(optarg, "csv"))
				c->fmt = FMT_CSV;
			else if (!strcmp(optarg, "json"))
				c->fmt = FMT_JSON;
			else if (!strcmp(optarg, "summary"))
				c->fmt = FMT_SUMMARY;
			else
				goto bad;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'c':
			c->channel = (unsigned int)strtoul(optarg, NULL, 0);
			if (c->channel >= SPF_NR_CHANNELS)
				goto bad;
			where_set = true;
			break;
		case 's':
			srcbits = atoi(optarg);
			if (srcbits < 0 || srcbits > NEXUS_MAX_SRCBITS)
				goto bad;
			where_set = true;
			break;
		case 'S':
			by_src = true;
			break;
		case 'b':
			bias = strtoull(optarg, NULL, 0);
			bias_set = true;
			break;
		case 't':
			c->ts_hz = strtod(optarg, NULL);
			if (c->ts_hz <= 0)
				goto bad;
			break;
		case 'h':
			usage_decode();
			free(c);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind + 1 != argc)
		goto bad;
	file = argv[optind];

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "sifive-perf decode: %s: %s\n", file, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(c);
		return 1;
	}
	map = st.st_size ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
	close(fd);
	if (map == MAP_FAILED) {
		fprintf(stderr, "sifive-perf decode: %s: %s\n", file, strerror(errno));
		free(c);
		return 1;
	}
	c->by_src = by_src;
	if (srcbits < 0)
		srcbits = (int)spf_guess_srcbits(map, (size_t)st.st_size, c->channel);

	if (elf) {
		int r = elfsym_load(&c->elf, elf);

		if (r) {
			fprintf(stderr, "sifive-perf decode: %s: %s\n", elf,
				r == -ENOEXEC ? "not an ELF file" : strerror(-r));
			goto out;
		}
		c->have_elf = true;
		if (bias_set) {
			c->elf.bias = bias;
		} else if (c->elf.pie) {
			c->holding = true;
			ops.header = hold_header;
			ops.record = hold_record;
		}
	}

	c->out = stdout;
	if (outpath) {
		c->out = fopen(outpath, "we");
		if (!c->out) {
			fprintf(stderr, "sifive-perf decode: %s: %s\n", outpath, strerror(errno));
			goto out;
		}
	}
	c->file = file;
	c->elfpath = elf;
	c->size = (long long)st.st_size;
	c->srcbits = srcbits;
	if (!c->holding)
		preamble(c);
	if (spf_decode_buffer(map, (size_t)st.st_size, (unsigned int)srcbits, c->channel, by_src,
			      &ops, c, &res) || res.stopped == -ENOMEM ||
	    (c->holding && release(c))) {
		fprintf(stderr, "sifive-perf decode: out of memory\n");
		goto out;
	}
	text_flush(c);
	if (c->fmt == FMT_JSON) {
		for (i = 0; i < c->ntracks; i++)
			track_end(c, &c->tracks[i]);
		fputs("\n]}\n", c->out);
	} else if (c->fmt == FMT_SUMMARY) {
		char a[256];

		qsort(c->fstats, c->nfstats, sizeof(*c->fstats), cmp_fstat);
		fprintf(c->out, "%10s %10s %10s %10s  %s\n", "enters", "exits", "samples", "manual",
			"function");
		for (i = 0; i < c->nfstats; i++)
			fprintf(c->out, "%10" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "  %s\n",
				c->fstats[i].enters, c->fstats[i].exits, c->fstats[i].samples,
				c->fstats[i].manual, symname(c, c->fstats[i].addr, a, sizeof(a)));
	}
	fprintf(stderr, "sifive-perf decode: %s: %" PRIu64 " header(s), %" PRIu64 " record(s) "
		"(%" PRIu64 " enter, %" PRIu64 " exit, %" PRIu64 " manual, %" PRIu64 " isr), "
		"%" PRIu64 " cut short, %" PRIu64 " error(s); %" PRIu64 " Nexus messages "
		"(%" PRIu64 " invalid), srcbits %d\n", file, res.perf.headers, res.perf.records,
		c->by_type[0], c->by_type[1], c->by_type[2], c->by_type[3], res.perf.truncated,
		res.perf.errors, res.nexus.messages, res.nexus.invalid, srcbits);
	if (c->unmatched_exits || c->no_ts)
		fprintf(stderr, "sifive-perf decode: %" PRIu64 " exit(s) of functions entered "
			"before the trace, %" PRIu64 " record(s) without a timestamp\n",
			c->unmatched_exits, c->no_ts);
	ret = 0;
	/* Random bytes make Nexus messages too: what makes a trace is perf data */
	if (!res.perf.headers && !res.perf.records) {
		if (!st.st_size)
			fprintf(stderr, "sifive-perf decode: %s: empty file, not a trace\n", file);
		else
			fprintf(stderr, "sifive-perf decode: %s: not a SiFive perf trace: no perf "
				"header or record on ITC channel %u with srcbits %d%s\n", file,
				c->channel, srcbits, where_set ?
				" (are --channel and --srcbits right?)" : "");
		ret = 1;
	}
	if (c->out != stdout && fclose(c->out)) {
		fprintf(stderr, "sifive-perf decode: %s: %s\n", outpath, strerror(errno));
		ret = 1;
	}
	c->out = NULL;
out:
	text_flush(c);
	for (i = 0; i < c->nheld; i++)
		if (c->held[i].is_header)
			free(c->held[i].h);
	free(c->held);
	free(c->held_vals);
	if (c->out && c->out != stdout)
		fclose(c->out);
	if (map)
		munmap(map, (size_t)st.st_size);
	for (i = 0; i < c->ntracks; i++)
		free(c->tracks[i].stack);
	free(c->fstats);
	if (c->have_elf)
		elfsym_free(&c->elf);
	free(c);
	return ret;

bad:
	usage_decode();
	free(c);
	return 2;
}
