// SPDX-License-Identifier: GPL-2.0-only
/*
 * sifive-nexus-dump - print the Nexus messages of a SiFive trace: the raw
 * bytes of a trace sink (a .rtd file) or of a sifive_trace AUX buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nexus_decode.h"

static bool print_raw;

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: sifive-nexus-dump [-s SRCBITS] [-r] [-x] [FILE]\n"
		"Print the Nexus messages in FILE (default: standard input).\n"
		"  -s SRCBITS  width of the SRC field: 0 without a funnel (default),\n"
		"              else srcbits= of /sys/bus/event_source/devices/sifive_trace/encoders\n"
		"  -r          the trace may start inside a message (a wrapped sink)\n"
		"  -x          also print each message's bytes\n"
		"A summary goes to standard error.\n");
}

static int print_msg(const struct nexus_msg *m, void *priv)
{
	char line[512];
	unsigned int i;

	(void)priv;
	nexus_format_msg(m, line, sizeof(line));
	fputs(line, stdout);
	if (print_raw) {
		fputs("  [", stdout);
		for (i = 0; i < m->len; i++)
			printf(i ? " %02x" : "%02x", m->raw[i]);
		fputc(']', stdout);
	}
	fputc('\n', stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct nexus_config cfg = { 0 };
	const struct nexus_stats *st;
	struct nexus_decoder *d;
	unsigned char buf[65536];
	int opt, fd = 0;
	char *end;
	ssize_t n;

	while ((opt = getopt(argc, argv, "s:rxh")) != -1) {
		switch (opt) {
		case 's':
			cfg.srcbits = strtoul(optarg, &end, 0);
			if (*end || cfg.srcbits > NEXUS_MAX_SRCBITS) {
				fprintf(stderr, "sifive-nexus-dump: -s: 0..%d\n", NEXUS_MAX_SRCBITS);
				return 2;
			}
			break;
		case 'r':
			cfg.resync = true;
			break;
		case 'x':
			print_raw = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return 2;
	}
	if (optind < argc && strcmp(argv[optind], "-")) {
		fd = open(argv[optind], O_RDONLY);
		if (fd < 0) {
			fprintf(stderr, "sifive-nexus-dump: %s: %s\n", argv[optind], strerror(errno));
			return 1;
		}
	}
	d = nexus_decoder_new(&cfg, print_msg, NULL);
	if (!d) {
		fprintf(stderr, "sifive-nexus-dump: out of memory\n");
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		nexus_decode(d, buf, n);
	if (n < 0) {
		fprintf(stderr, "sifive-nexus-dump: read: %s\n", strerror(errno));
		return 1;
	}
	nexus_decode_end(d);
	st = nexus_decoder_stats(d);
	fprintf(stderr, "%llu messages (%llu invalid), %llu padding bytes, %llu bytes skipped, %llu bytes of an unfinished message\n",
		(unsigned long long)st->messages, (unsigned long long)st->invalid,
		(unsigned long long)st->padding, (unsigned long long)st->skipped,
		(unsigned long long)st->truncated);
	nexus_decoder_free(d);
	return st->invalid ? 1 : 0;
}
