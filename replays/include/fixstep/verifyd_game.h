/* A game for the verification service (fixstep-verifyd, docs/verifyd.md): a
 * shared library the worker loads with --game libmygame.so. It exports one
 * function, FXS_VERIFYD_GAME_ENTRY, which returns the game's description:
 * its name (what jobs call it), the kind of replay it makes (input size,
 * players) and its deterministic apply callback, the same one the game's
 * server passes to fxs_replay_verify. Types only: nothing here is a function
 * of libfixstep. */
#ifndef FIXSTEP_VERIFYD_GAME_H
#define FIXSTEP_VERIFYD_GAME_H

#include "fixstep/replay.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FXS_VERIFYD_GAME_ABI 1u
/* The entry point's name, as dlsym looks it up. */
#define FXS_VERIFYD_GAME_ENTRY "fxs_verifyd_game_v1"

typedef struct fxs_verifyd_game {
	uint32_t abi;        /* FXS_VERIFYD_GAME_ABI */
	const char *name;    /* [A-Za-z0-9_.-]{1,63}: the game jobs name */
	uint32_t input_size; /* bytes per player per tick (1..FXS_REPLAY_MAX_INPUT_SIZE) */
	uint32_t players;    /* the game's player count; 0: any (apply honours its players argument) */
	/* Applies one tick's inputs (players x input_size bytes, untrusted) to
	 * the world before its step, deterministically; ctx is the game's. The
	 * worker calls it from one thread at a time. */
	fxs_replay_apply_fn apply;
	void *ctx;
	/* The game's start when a job gives none (a fixed level), or NULL: a
	 * job for it must then give the start's state hash. The worker takes
	 * its state hash once. */
	fxs_world *(*create_start)(void);
} fxs_verifyd_game;

/* What the library exports: const fxs_verifyd_game *fxs_verifyd_game_v1(void); */
typedef const fxs_verifyd_game *(*fxs_verifyd_game_entry_fn)(void);

#ifdef __cplusplus
}
#endif

#endif
