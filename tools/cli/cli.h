/* The fixstep program: shared helpers and the entry points of its commands. */
#ifndef FXS_CLI_H
#define FXS_CLI_H

#include "fixstep/fixstep.h"
#include "scenes/scenes.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* What a command's parse function returns when the arguments are good and the
 * command goes on; anything else is the exit status to end with (0 after
 * --help, 2 after a bad argument's one-line error). */
#define CLI_GO (-1)

/* Print "fixstep: <message>" to stderr and return 2 (bad arguments). */
int cli_usage_error(const char *fmt, ...);
/* A word of cmd's command line that is none of its options: taken as the
 * first still-NULL one of slots[0..n) (true), or false after the one-line
 * error "CMD: unknown option" (it starts with '-') or "CMD: unexpected
 * argument" (every slot is taken). */
bool cli_positional(const char *cmd, const char *a, const char **slots, int n);
/* The scene called name, or NULL after "unknown scene 'NAME' (see fixstep scenes)". */
const fxs_scene *cli_scene(const char *name);
/* A new world of the scene, or NULL after "scene 'NAME' could not be created". */
fxs_world *cli_scene_world(const fxs_scene *sc);
/* Parse a non-negative integer argument; false on garbage or overflow. */
int cli_parse_u32(const char *s, uint32_t *out);
/* 2 n hex digits into n bytes, first digits first: false for anything else. */
bool cli_parse_hex(const char *s, uint8_t *out, size_t n);
/* A probability, 0..1 (decimal): false for anything else. */
bool cli_parse_prob(const char *s, double *out);
/* --kernels NAME (a level's fxs_kernels_name: portable, sse4, avx2, avx512,
 * simd128, neon): the level, or -1 after the one-line error naming them (s
 * NULL: the argument is missing). */
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
