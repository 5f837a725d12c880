/* The fixstep program's own side of replays (the library's is
 * fixstep/replay.h): input sources (scripts, seeded random), recording a
 * built-in scene, and re-simulating a replay of a scene (its input handler
 * as the apply callback, its golden start as the trusted start). Tools and
 * tests share these. */
#ifndef FXS_REPLAY_RUN_H
#define FXS_REPLAY_RUN_H

#include "fixstep/replay.h"
#include "scenes/scenes.h"

/* ---- input sources ---- */

/* Seeded random inputs: a pure function of (seed, tick, player), so any tick
 * can be regenerated alone. Sticks hold a value for 32-tick stretches, the
 * look turns slowly, JUMP is pressed now and then. */
void fxs_inputs_random(uint64_t seed, uint64_t tick, uint32_t players, fxs_input out[FXS_MAX_PLAYERS]);

/* The change --perturb-input / --tamper-input make to one input: the stick's
 * x moves by half its range (always a different value). */
void fxs_input_perturb(fxs_input *in);

/* An input script (docs/replay-format.md, "Input scripts"): lines
 * "TICK PLAYER MOVE_X MOVE_Z YAW PITCH BUTTONS" set a player's input from
 * that tick on (held until the next line for the player). */
typedef struct fxs_input_script_entry {
	uint64_t tick;
	uint32_t player;
	fxs_input input;
} fxs_input_script_entry;

typedef struct fxs_input_script {
	uint32_t players; /* from the "players N" line; 0 = not given */
	fxs_input_script_entry *entries;
	size_t count, cap;
} fxs_input_script;

/* false with a one-line message ("line L: ...") in err */
bool fxs_input_script_parse(fxs_input_script *s, const char *text, size_t len, char *err, size_t errlen);
bool fxs_input_script_load(fxs_input_script *s, const char *path, char *err, size_t errlen);
void fxs_input_script_free(fxs_input_script *s);
/* Advance cur[] (held inputs, start neutral; *cursor starts at 0) to tick. */
void fxs_input_script_at(const fxs_input_script *s, size_t *cursor, uint64_t tick, fxs_input cur[FXS_MAX_PLAYERS]);

/* ---- recording ---- */

typedef struct fxs_record_options {
	const fxs_scene *scene;
	uint32_t steps;
	uint32_t players;               /* 0: the scene's */
	uint32_t chunk_ticks;           /* 0: default */
	uint32_t flags;                 /* FXS_REPLAY_FLAG_* */
	const fxs_input_script *script; /* NULL: random inputs from seed (or the scene's players) */
	bool scripted;                  /* the scene's scripted players (fxs_scene.script) */
	uint64_t seed;
	uint64_t perturb_tick; /* 0: none; else change player perturb_player's input at that tick */
	uint32_t perturb_player;
	bool tamper;                               /* the change is written but not simulated (a replay that must fail verify) */
	void (*on_tick)(uint64_t tick, void *ctx); /* progress, may be NULL */
	void *ctx;
} fxs_record_options;

/* Record a replay to path. final_hash may be NULL. */
fxs_replay_status fxs_replay_record(const char *path, const fxs_record_options *o, uint64_t *final_hash, char *err,
				    size_t errlen);

/* ---- the API-call demo: a program with no input layer ---- */

/* A world built and changed through the public API alone: a ground, boxes,
 * spheres and a hull; every tick some calls (impulses, forces, setters,
 * creates, destroys, a ball joint, a character, a gravity change), a pure
 * function of the tick. What `fixstep record --calls` records and the
 * tests drive. */
#define FXS_CALLS_DEMO_BODIES 24
typedef struct fxs_calls_demo {
	fxs_body_id bodies[FXS_CALLS_DEMO_BODIES];
	uint32_t count;
	uint32_t character;
	uint8_t *saved; /* the snapshot of tick 60, restored at tick 61 (a rollback) */
	size_t saved_len;
} fxs_calls_demo;

/* The calls made before the demo's tick `tick` (1-based) on w; d starts
 * all zero. */
void fxs_calls_demo_tick(fxs_world *w, fxs_calls_demo *d, uint64_t tick);
void fxs_calls_demo_free(fxs_calls_demo *d);
/* Record steps ticks of the demo as a CALLS replay (name "calls_demo"). */
fxs_replay_status fxs_calls_demo_record(const char *path, uint32_t steps, uint32_t chunk_ticks, uint32_t flags,
					uint64_t *final_hash, char *err, size_t errlen);

/* ---- re-simulation, from a known start ---- */

/* The world at a replay's start, from its snapshot (scene, snapshot and
 * start step from its header), checked against expect (fxs_replay_expect;
 * all zero: the built-in scene's golden start for an inputs replay, an
 * empty world for a calls replay), and the scene whose input handler it
 * uses (NULL for a calls replay). NULL with *status and a message (err)
 * otherwise: FXS_REPLAY_BAD_START for a start that is not the expected one
 * (naming the first body and field that differ when it can),
 * FXS_REPLAY_CORRUPT for an unknown scene or a snapshot that does not
 * restore, FXS_REPLAY_NOMEM (the reader's: FXS_REPLAY_NO_HANDLER for a
 * game's inputs, which no scene handles). The kind of replay is the
 * caller's to check (fxs_replay_accepts). */
fxs_world *fxs_replay_start_world(const char *scene, const uint8_t *snapshot, size_t len, uint64_t start_tick,
				  uint32_t mode, const fxs_replay_expect *expect, const fxs_scene **sc,
				  fxs_replay_status *status, char *err, size_t errlen);
/* The same for a replay in memory or a reader (status may be NULL). */
fxs_world *fxs_replay_start(const fxs_replay *r, const fxs_replay_expect *expect, const fxs_scene **scene, char *err,
			    size_t errlen);
fxs_world *fxs_replay_reader_start(const fxs_replay_reader *r, const fxs_replay_expect *expect, const fxs_scene **sc,
				   fxs_replay_status *status, char *err, size_t errlen);
/* Apply tick i's inputs (through the scene's handler) or its recorded
 * calls (scene NULL) and step: fxs_world_step's result (FXS_ERR_NOMEM: the
 * machine ran out of memory, so nothing can be said about the replay). */
fxs_result fxs_replay_step(const fxs_replay *r, const fxs_scene *scene, fxs_world *w, uint64_t i);
/* The same for a tick from a reader. */
fxs_result fxs_replay_step_tick(const fxs_scene *scene, fxs_world *w, const fxs_replay_tick *t, uint32_t players);
/* A built-in scene's input handler as a replay apply callback (ctx: the
 * fxs_scene; inputs: fxs_input records). */
fxs_result fxs_scene_apply_replay_inputs(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players,
					 void *ctx);

/* Prints every body's state bits (hex) after a step, one line per body, then
 * the state hash: the determinism log, made to be diffed line by line. */
void fxs_world_log_bits(FILE *f, const fxs_world *w, uint64_t step);

#endif
