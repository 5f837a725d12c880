/* Running replays: input sources (scripts, seeded random), recording a scene,
 * re-simulating a replay tick by tick, and naming the first body and field
 * where two states part. Tools and tests share these. */
#ifndef FXS_REPLAY_RUN_H
#define FXS_REPLAY_RUN_H

#include "replay.h"
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

/* ---- re-simulation, from a known start ---- */

/* What a replay's start must be. A replay proves a run only from a start
 * the verifier knows: the file's own snapshot is untrusted like the rest.
 * All zero (or NULL): the start of the built-in scene the header names,
 * whose state hash is compiled into the program (fxs_scene_start_hash) and
 * whose state is compared byte for byte with the scene's own. */
typedef struct fxs_replay_expect {
	const void *snapshot; /* non-NULL: exactly this snapshot's state (a game server's start) */
	size_t snapshot_len;
	bool has_hash; /* else: the start's state hash (fxs_world_hash) must be `hash` */
	uint64_t hash;
} fxs_replay_expect;

/* The world at a replay's start, from its snapshot (scene, snapshot and
 * start step from its header), checked against expect, and the scene whose
 * input handler it uses. NULL with *status and a message (err) otherwise:
 * FXS_REPLAY_BAD_START for a start that is not the expected one (naming the
 * first body and field that differ when it can), FXS_REPLAY_CORRUPT for an
 * unknown scene or a snapshot that does not restore, FXS_REPLAY_NOMEM. */
fxs_world *fxs_replay_start_world(const char *scene, const uint8_t *snapshot, size_t len, uint64_t start_tick,
				  const fxs_replay_expect *expect, const fxs_scene **sc, fxs_replay_status *status,
				  char *err, size_t errlen);
/* The same for a replay in memory or a reader (status may be NULL). */
fxs_world *fxs_replay_start(const fxs_replay *r, const fxs_replay_expect *expect, const fxs_scene **scene, char *err,
			    size_t errlen);
fxs_world *fxs_replay_reader_start(const fxs_replay_reader *r, const fxs_replay_expect *expect, const fxs_scene **sc,
				   fxs_replay_status *status, char *err, size_t errlen);
/* Apply tick i's inputs and step: fxs_world_step's result (FXS_ERR_NOMEM:
 * the machine ran out of memory, so nothing can be said about the replay). */
fxs_result fxs_replay_step(const fxs_replay *r, const fxs_scene *scene, fxs_world *w, uint64_t i);
/* The same for a tick from a reader. */
fxs_result fxs_replay_step_tick(const fxs_scene *scene, fxs_world *w, const fxs_replay_tick *t, uint32_t players);

/* ---- comparing states ---- */

typedef struct fxs_state_diff {
	bool differ;
	int64_t body; /* slot, or -1 when the difference is not in a body */
	char field[48];
	char expected[64];
	char got[64];
} fxs_state_diff;

/* The first difference between two worlds in canonical order: slot count,
 * then per slot validity, type, shape, position, rotation, velocities, then
 * the rest of the body (its hash), then the non-body state (step count,
 * contacts, broadphase). Returns d->differ. */
bool fxs_world_first_difference(const fxs_world *expected, const fxs_world *got, fxs_state_diff *d);
/* "body B field F (expected E, got G)" or "FIELD (expected E, got G)" */
void fxs_state_diff_format(const fxs_state_diff *d, char *buf, size_t n);

/* Prints every body's state bits (hex) after a step, one line per body, then
 * the state hash: the determinism log, made to be diffed line by line. */
void fxs_world_log_bits(FILE *f, const fxs_world *w, uint64_t step);

#endif
