/* The fixstep program: shared helpers and the entry points of its commands. */
#ifndef FXS_CLI_H
#define FXS_CLI_H

#include "fixstep/fixstep.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Print "fixstep: <message>" to stderr and return 2 (bad arguments). */
int cli_usage_error(const char *fmt, ...);
/* Parse a non-negative integer argument; false on garbage or overflow. */
int cli_parse_u32(const char *s, uint32_t *out);
/* --kernels NAME (portable, avx2, avx512): the level, or -1 for anything else. */
int cli_parse_kernels(const char *s);
/* Use the --kernels choice (requested >= 0) in w; a note on stderr when this
 * machine runs narrower ones. The bits do not depend on it. */
void cli_use_kernels(fxs_world *w, int requested);
/* fxs_world_step; false, with "fixstep: out of memory at step S" on stderr,
 * when it fails (the run must stop: see fxs_world_step). */
bool cli_step(fxs_world *w);
/* Monotonic wall clock in nanoseconds (tools only). */
uint64_t cli_now_ns(void);

/* `fixstep bench broadphase`: seed 000 tree vs brute force / Bullet (issue 3). */
int cli_bench_broadphase(int argc, char **argv);
/* `fixstep bench narrowphase`: ns per collide call for each shape pair (issue 4). */
int cli_bench_narrowphase(int argc, char **argv);
/* `fixstep bench rollback`: snapshot save/restore and 8-tick rollback cost (issue 6). */
int cli_bench_rollback(int argc, char **argv);

#endif
