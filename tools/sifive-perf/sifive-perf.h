/* SPDX-License-Identifier: GPL-2.0-only */
/* sifive-perf: the subcommands */
#ifndef SIFIVE_PERF_H
#define SIFIVE_PERF_H

int cmd_record(int argc, char **argv);
int cmd_decode(int argc, char **argv);
int cmd_list(int argc, char **argv);

#endif /* SIFIVE_PERF_H */
