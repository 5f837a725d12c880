/* Replays: a scene's initial snapshot, every player's input per tick and the
 * state hash after every tick, in checksummed chunks (docs/replay-format.md).
 *
 * Recording is crash-safe: each chunk is written, flushed and fsync'd when it
 * completes, so a killed recorder leaves a file whose complete chunks verify.
 * Reading treats the file as untrusted: every field is bounds-checked, memory
 * grows only with the bytes that are actually there, and every problem is a
 * status with a message. The reader streams (fxs_replay_reader): it holds
 * the header, one chunk and, with DETAIL, the recorded state of one tick, so
 * a replay of any length reads in bounded memory; fxs_replay_parse reads a
 * whole replay into memory on top of it (small files, tests, the fuzzer). */
#ifndef FIXSTEP_REPLAY_H
#define FIXSTEP_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fixstep/fixstep.h"
#include "fixstep/input.h"

#ifdef __cplusplus
extern "C" {
#endif
FXG_EXPORT_BEGIN

/* Version 2 (written now): any input size, up to FXS_REPLAY_MAX_PLAYERS
 * players, a mode (inputs or API calls), an optional name. Version 1 files
 * (12-byte fxs_input records, a scene name) still read and verify. */
#define FXS_REPLAY_FORMAT_VERSION 2u
#define FXS_REPLAY_MAX_SCENE_NAME 63u
/* Bytes per player per tick: 1..256. A game's input is a few buttons and
 * sticks (fxs_input is 12); 256 leaves room for a text command or a small
 * batch, and bounds a tick's record at 64 players x 256 = 16 KiB, so a chunk
 * of FXS_REPLAY_MAX_CHUNK_TICKS ticks stays far below its 1 GiB limit. */
#define FXS_REPLAY_MAX_INPUT_SIZE 256u
/* Players per tick in a version 2 file: 1..64 (version 1: 1..FXS_MAX_PLAYERS). */
#define FXS_REPLAY_MAX_PLAYERS 64u

/* What a tick records (the header's mode). */
typedef enum fxs_replay_mode {
	FXS_REPLAY_MODE_INPUTS = 0, /* every player's input bytes; the game's apply callback replays them */
	FXS_REPLAY_MODE_CALLS = 1   /* every mutating API call made since the last step (docs/replay-format.md) */
} fxs_replay_mode;
#define FXS_REPLAY_MAX_CHUNK_TICKS 4096u
#define FXS_REPLAY_DEFAULT_CHUNK_TICKS 64u
/* The one limit the writer and the reader share: a chunk (its payload) and
 * a snapshot (the start's, or a tick's recorded state) are at most 1 GiB
 * each. The file has no limit: it is read chunk by chunk. */
#define FXS_REPLAY_MAX_CHUNK_BYTES ((size_t)1 << 30)
#define FXS_REPLAY_MAX_SNAPSHOT_BYTES ((size_t)1 << 30)

/* flags */
#define FXS_REPLAY_FLAG_DETAIL 1u /* every tick also carries the state's snapshot (delta-coded) */
#define FXS_REPLAY_KNOWN_FLAGS FXS_REPLAY_FLAG_DETAIL

typedef enum fxs_replay_status {
	FXS_REPLAY_OK = 0,
	FXS_REPLAY_TRUNCATED, /* the file ends inside a chunk, or without its end record */
	FXS_REPLAY_BAD_MAGIC, /* not a fixstep replay */
	FXS_REPLAY_VERSION,   /* unknown format version or numeric configuration */
	FXS_REPLAY_CHECKSUM,  /* a header, chunk or end record fails its XXH3-64 */
	FXS_REPLAY_CORRUPT,   /* a field out of range or inconsistent */
	FXS_REPLAY_IO,        /* cannot read or write the file */
	FXS_REPLAY_NOMEM,
	FXS_REPLAY_BAD_START, /* a valid replay, but not from the start it must have (fxs_replay_expect) */
	FXS_REPLAY_DIVERGED,  /* a valid replay whose re-simulation differs from its recorded hashes */
	FXS_REPLAY_REFUSED,   /* a valid replay of a kind the verifier does not accept (fxs_replay_expect: its
				 mode, input size, player count, or a call not on the verifier's list) */
	FXS_REPLAY_NO_HANDLER /* a valid inputs replay, but the verifier has no input handler (apply callback) for it */
} fxs_replay_status;

const char *fxs_replay_status_string(fxs_replay_status s);

typedef struct fxs_replay_chunk {
	size_t offset; /* of the chunk's magic in the file */
	size_t size;   /* whole chunk, head to checksum */
	uint32_t index;
	uint64_t first_tick; /* tick number of its first tick */
	uint32_t ticks;
	uint64_t checksum;
} fxs_replay_chunk;

/* ---- reading, chunk by chunk ---- */

/* The header's fields, as the reader and a replay in memory hold them. */
#define FXS_REPLAY_HEADER_FIELDS                                                        \
	uint32_t format_version;                                                        \
	uint32_t kernel_version; /* major << 16 | minor << 8 | patch of the recorder */ \
	uint32_t numeric;        /* fraction bits | wide fraction bits << 8 */          \
	uint32_t flags;                                                                 \
	uint32_t players; /* 0 in CALLS mode */                                         \
	uint32_t chunk_ticks;                                                           \
	uint32_t input_size; /* bytes per player per tick (0 in CALLS mode) */          \
	uint32_t mode;       /* fxs_replay_mode (version 1: INPUTS) */                  \
	uint64_t start_tick;                                                            \
	char scene[FXS_REPLAY_MAX_SCENE_NAME + 1]; /* the name ("" when none) */

/* One tick as the reader returns it. */
typedef struct fxs_replay_tick {
	uint64_t index;                    /* 0-based */
	uint64_t number;                   /* the world's step count after it: start_tick + index + 1 */
	uint64_t hash;                     /* the recorded state hash after it */
	fxs_input inputs[FXS_MAX_PLAYERS]; /* when input_size is FXS_INPUT_SIZE: players of them; the rest neutral */
	const uint8_t *input;              /* INPUTS: players x input_size bytes (valid until the next call) */
	size_t input_len;
	const uint8_t *calls; /* CALLS: the tick's call records, already checked (valid until the next call) */
	size_t calls_len;
	uint32_t call_count;
	uint32_t mode;       /* the replay's (fxs_replay_mode) */
	uint32_t players;    /* the replay's (0 in CALLS mode) */
	uint64_t offset;     /* of its record in the file */
	bool first_of_chunk; /* the first tick of the reader's current chunk */
	/* DETAIL: the recorded state after the tick, a snapshot (valid until the
	 * next call), already checked to hash to `hash`; else NULL */
	const uint8_t *state;
	size_t state_len;
} fxs_replay_tick;

typedef struct fxs_replay_reader {
	/* the bytes: a file or a buffer */
	FILE *f;
	const uint8_t *mem;
	size_t mem_len, mem_pos;
	uint64_t pos;       /* bytes consumed: the offset of the next one */
	uint64_t file_size; /* a regular file's size (0: not known) */
	/* header */
	FXS_REPLAY_HEADER_FIELDS
	uint8_t *header; /* the header's bytes (the start snapshot inside) */
	size_t header_size, snapshot_off, snapshot_len;
	uint64_t header_checksum;
	bool header_valid;
	/* the current chunk (its head, payload and checksum) */
	uint8_t *chunk;
	size_t chunk_cap;
	fxs_replay_chunk cur;
	uint32_t cur_next; /* ticks of cur returned */
	size_t cur_off;    /* offset of the next tick's record in chunk */
	bool short_seen;
	uint32_t chunk_count; /* chunks read and verified */
	uint64_t tick_count;  /* ticks returned */
	uint64_t last_hash;
	/* DETAIL: the recorded state after the last tick returned */
	uint8_t *state, *state_tmp;
	size_t state_len, state_cap, state_tmp_cap;
	/* end record */
	bool complete; /* end record present and consistent, nothing after it */
	uint64_t end_final_hash;
	/* the first problem (FXS_REPLAY_OK while none) */
	fxs_replay_status status;
	uint64_t error_offset;
	char error[200];
} fxs_replay_reader;

/* Open a replay and read its header (the start snapshot included). The
 * status (also r->status): FXS_REPLAY_OK, or why not (r->error). Close it
 * either way. */
fxs_replay_status fxs_replay_open(fxs_replay_reader *r, const char *path);
/* The same from a buffer (not copied: it must outlive the reader). */
fxs_replay_status fxs_replay_open_memory(fxs_replay_reader *r, const void *buf, size_t len);
/* The next tick, read chunk by chunk: true with *t; false at the end,
 * which is a complete, valid replay when r->status is FXS_REPLAY_OK (then
 * r->complete), else the first problem (the ticks returned before it came
 * from chunks that were complete and verified). */
bool fxs_replay_next(fxs_replay_reader *r, fxs_replay_tick *t);
void fxs_replay_close(fxs_replay_reader *r);
/* The start snapshot (in the header). */
static inline const uint8_t *fxs_replay_reader_snapshot(const fxs_replay_reader *r)
{
	return r->header + r->snapshot_off;
}

/* ---- a whole replay in memory ---- */

/* A replay read into memory. Ticks are numbered as the world's step count
 * after the tick: tick i (0-based index) has number start_tick + i + 1. */
typedef struct fxs_replay {
	uint8_t *data; /* the whole file (owned) */
	size_t len;
	/* header */
	FXS_REPLAY_HEADER_FIELDS
	size_t snapshot_off, snapshot_len; /* the initial snapshot, inside data */
	size_t header_size;
	bool header_valid;
	uint64_t header_checksum;
	/* chunks that were read completely and verified */
	fxs_replay_chunk *chunks;
	uint32_t chunk_count, chunk_cap;
	/* ticks of those chunks: offset of each tick's record in data */
	size_t *tick_off;
	uint64_t tick_count, tick_cap;
	/* end record */
	bool complete; /* end record present and consistent */
	uint64_t end_final_hash;
	/* the first problem (FXS_REPLAY_OK for a complete, valid file) */
	fxs_replay_status status;
	size_t error_offset;
	char error[200];
} fxs_replay;

/* Parse a file already in memory (the replay takes a copy), with the
 * reader above. The header must be valid for anything to be usable: when
 * status is TRUNCATED, CHECKSUM or CORRUPT after a good header, the chunks
 * before the bad one are still there (chunk_count, tick_count) and verify.
 * Returns r->status. */
fxs_replay_status fxs_replay_parse(fxs_replay *r, const void *buf, size_t len);
/* Read a file into memory and parse it (for small files: the tools stream). */
fxs_replay_status fxs_replay_load(fxs_replay *r, const char *path);
void fxs_replay_free(fxs_replay *r);
/* true when the header was read (then the ticks so far are usable) */
bool fxs_replay_header_ok(const fxs_replay *r);

/* Tick i's inputs (players records) and recorded hash. i < tick_count. */
void fxs_replay_tick_inputs(const fxs_replay *r, uint64_t i, fxs_input out[FXS_MAX_PLAYERS]);
uint64_t fxs_replay_tick_hash(const fxs_replay *r, uint64_t i);
uint64_t fxs_replay_tick_number(const fxs_replay *r, uint64_t i);
/* Tick i as the reader returns it (no recorded state: use
 * fxs_replay_detail); false when i >= tick_count. */
bool fxs_replay_get_tick(const fxs_replay *r, uint64_t i, fxs_replay_tick *t);

/* Walks the recorded states of a FXS_REPLAY_FLAG_DETAIL replay: after init it
 * holds the initial snapshot (applied == 0); each next applies one tick's
 * delta (applied == i + 1 holds the snapshot after tick i). */
typedef struct fxs_replay_detail {
	uint8_t *snap, *tmp;
	size_t len, cap, tmp_cap;
	uint64_t applied;
} fxs_replay_detail;

fxs_replay_status fxs_replay_detail_init(const fxs_replay *r, fxs_replay_detail *d);
fxs_replay_status fxs_replay_detail_next(const fxs_replay *r, fxs_replay_detail *d);
void fxs_replay_detail_free(fxs_replay_detail *d);

/* ---- writing ---- */

typedef struct fxs_replay_writer {
	FILE *f;
	uint32_t players, input_size, mode, chunk_ticks, flags;
	fxs_world *calls_world; /* CALLS: the world whose call log is drained */
	uint64_t header_checksum;
	uint64_t start_tick; /* the world's step count at open */
	uint64_t next_tick;  /* number of the next tick */
	uint32_t chunk_index;
	uint32_t ticks_in_chunk;
	uint64_t chunk_first_tick;
	uint64_t last_hash;
	uint8_t *payload; /* the open chunk's ticks */
	size_t payload_len, payload_cap;
	uint8_t *prev, *cur; /* detail: last and current snapshots */
	size_t prev_len, prev_cap, cur_cap;
	bool failed;
	char error[200];
} fxs_replay_writer;

/* Create path and write the header with w's snapshot (the start). name: a
 * built-in scene's name or the game's tag, [A-Za-z0-9_.-]{0,63} (NULL or
 * "": none). players 1..FXS_REPLAY_MAX_PLAYERS, input_size
 * 1..FXS_REPLAY_MAX_INPUT_SIZE bytes per player per tick. chunk_ticks 0
 * means the default (64). Errors say why (rw->error). */
fxs_replay_status fxs_replay_writer_open(fxs_replay_writer *rw, const char *path, const char *name, const fxs_world *w,
					 uint32_t players, uint32_t input_size, uint32_t chunk_ticks, uint32_t flags);
/* Append one tick: every player's input bytes (players x input_size, as the
 * game's apply callback reads them) applied before the step, and the world
 * after it. A full chunk is written, flushed and fsync'd at once. */
fxs_replay_status fxs_replay_writer_tick(fxs_replay_writer *rw, const uint8_t *inputs, const fxs_world *w);
/* The same with fxs_input records (input_size FXS_INPUT_SIZE). */
fxs_replay_status fxs_replay_writer_tick_inputs(fxs_replay_writer *rw, const fxs_input *inputs, const fxs_world *w);

/* CALLS mode: record every mutating call of the public API made on w from
 * now on (its call log is switched on; it is no part of w's state, hash or
 * snapshot). Call fxs_replay_writer_tick(rw, NULL, w) after every
 * fxs_world_step: a tick is the calls since the last step, then the step.
 * The default trusted start of a CALLS replay is an empty world (no body,
 * mesh, hull, compound, joint or character, at step 0): a program that
 * builds its world through the API after open is verified with no other
 * knowledge. Closing (or abandoning) switches the log off: do it before
 * destroying w. */
fxs_replay_status fxs_replay_writer_open_calls(fxs_replay_writer *rw, const char *path, const char *name, fxs_world *w,
					       uint32_t chunk_ticks, uint32_t flags);
/* Write the last (partial) chunk and the end record; close the file. */
fxs_replay_status fxs_replay_writer_close(fxs_replay_writer *rw);
/* Close without an end record (as a crash would leave it). */
void fxs_replay_writer_abandon(fxs_replay_writer *rw);

/* Recompute every checksum of a replay in place, walking its structure as
 * far as its length fields allow (for tests and the fuzzer: it lets a
 * mutated field reach the range checks behind the checksums). */
void fxs_replay_fix_checksums(uint8_t *buf, size_t len);

/* ---- detail deltas (exposed for tests) ---- */

/* Encode cur against prev into out (growable); false on out of memory. */
bool fxs_delta_encode(const uint8_t *prev, size_t prev_len, const uint8_t *cur, size_t cur_len, uint8_t **out,
		      size_t *out_len, size_t *out_cap);
/* Decode; the result is bounded by prev_len + delta_len. */
fxs_replay_status fxs_delta_decode(const uint8_t *prev, size_t prev_len, const uint8_t *delta, size_t delta_len,
				   uint8_t **out, size_t *out_len, size_t *out_cap);

/* ---- re-simulation, from a start the verifier trusts ---- */

/* Which modes a verifier accepts (fxs_replay_expect.modes). */
#define FXS_REPLAY_ACCEPT_INPUTS 1u /* FXS_REPLAY_MODE_INPUTS, through the game's apply callback */
#define FXS_REPLAY_ACCEPT_CALLS 2u  /* FXS_REPLAY_MODE_CALLS, only the calls on allowed_calls */

/* What a verifier accepts (docs/replays.md, "What a verifier pins"). A
 * replay proves a run only from a start the verifier knows, through the
 * verifier's own way of applying what each tick records: the file is
 * untrusted, its header's mode, sizes and snapshot included.
 *
 * The start: snapshot: exactly this snapshot's state (a game server's
 * start); else has_hash: the start's state hash (fxs_world_hash) must be
 * `hash`; else a CALLS replay must start from an empty world
 * (fxs_replay_writer_open_calls), and any other replay is refused.
 *
 * The kind, checked from the header before anything is simulated or any
 * callback runs (FXS_REPLAY_REFUSED, naming what differs):
 *   modes       FXS_REPLAY_ACCEPT_* bits; 0 means INPUTS only. A CALLS replay
 *               re-runs recorded API calls (a snapshot restore among them can
 *               set any state), so it verifies only for a verifier that asks
 *               for it, and then only the calls it allows.
 *   input_size  the game's bytes per player per tick; 0 means FXS_INPUT_SIZE
 *               (fxs_input records). The apply callback reads exactly
 *               players x input_size bytes.
 *   players     the game's player count; 0 means any (1..FXS_REPLAY_MAX_PLAYERS:
 *               the callback must then honour its players argument).
 *   allowed_calls, allowed_call_count: CALLS: the calls allowed, by their
 *               function names (fxs_replay_call_name: "fxs_body_apply_force",
 *               ...); an entry "*" allows every call. Each tick's calls are
 *               checked before any of them is made; none listed: no call.
 * All zero (or NULL) is safe: inputs of fxs_input records only, from a
 * start that must then be given, and no CALLS replay. Initialisers of the
 * first four fields ({ snap, len, false, 0 }) keep their meaning. */
typedef struct fxs_replay_expect {
	const void *snapshot;
	size_t snapshot_len;
	bool has_hash;
	uint64_t hash;
	uint32_t modes;
	uint32_t input_size;
	uint32_t players;
	const char *const *allowed_calls;
	uint32_t allowed_call_count;
} fxs_replay_expect;

/* Whether a replay of this header (mode, input_size, players as the reader
 * has them) is of a kind expect accepts: FXS_REPLAY_OK, or
 * FXS_REPLAY_REFUSED with the reason in err (may be NULL). */
fxs_replay_status fxs_replay_accepts(uint32_t mode, uint32_t input_size, uint32_t players,
				     const fxs_replay_expect *expect, char *err, size_t errlen);
/* Whether every call of a CALLS tick is one expect allows: FXS_REPLAY_OK
 * (an INPUTS tick: always), or FXS_REPLAY_REFUSED naming the first call
 * that is not ("tick T: call K (NAME) is not allowed"); FXS_REPLAY_IO for
 * a NULL tick. */
fxs_replay_status fxs_replay_tick_allowed(const fxs_replay_tick *t, const fxs_replay_expect *expect, char *err,
					  size_t errlen);

/* The world at a replay's start (its header's snapshot and start step),
 * checked against expect (fxs_replay_reader_world: its kind too, with
 * fxs_replay_accepts): NULL with *status (may be NULL) and a message
 * otherwise: FXS_REPLAY_REFUSED for a kind expect does not accept, FXS_REPLAY_BAD_START for a start that is not the expected one
 * (naming the first body and field that differ when it can),
 * FXS_REPLAY_CORRUPT for a snapshot that does not restore, NOMEM. */
fxs_world *fxs_replay_start_checked(const uint8_t *snapshot, size_t len, uint64_t start_tick, uint32_t mode,
				    const fxs_replay_expect *expect, fxs_replay_status *status, char *err, size_t errlen);
fxs_world *fxs_replay_reader_world(const fxs_replay_reader *r, const fxs_replay_expect *expect,
				   fxs_replay_status *status, char *err, size_t errlen);

/* A game's deterministic input handler: apply the tick's inputs (players x
 * the replay's input_size bytes, untrusted: every byte pattern must be
 * handled) to w before the step. tick is the number of the step to come.
 * Return FXS_OK, or an error that stops the re-simulation. */
typedef fxs_result (*fxs_replay_apply_fn)(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players,
					  void *ctx);

/* Re-simulate one tick (read from a reader, or fxs_replay_get_tick) on w: INPUTS mode: apply(w, ...) then
 * fxs_world_step; CALLS mode: every recorded call on w, in order, then the
 * step (apply unused). fxs_world_step's result, or the callback's. The
 * caller compares fxs_world_hash(w) with t->hash. */
fxs_result fxs_replay_tick_apply(fxs_world *w, const fxs_replay_tick *t, fxs_replay_apply_fn apply, void *ctx);

/* The name of call record op (fxs_body_set_friction, ...), or NULL. */
const char *fxs_replay_call_name(uint32_t op);
/* Call k (0-based) of a tick's records: its op and its offset in the tick
 * record's calls; false when there are fewer. */
bool fxs_replay_tick_call(const fxs_replay_tick *t, uint32_t k, uint32_t *op, size_t *offset);

/* The calls of a CALLS tick that name body slot `body` (a body id among
 * their arguments), as "call K (NAME), ..." into buf: their number (0 when
 * none, or not a CALLS tick). Where a tick diverges at a body, these are
 * the calls to look at. */
uint32_t fxs_replay_tick_calls_on_body(const fxs_replay_tick *t, int64_t body, char *buf, size_t n);
/* The same for every body whose state differs between expected and got (a
 * call on one body moves the bodies it touches within the step), lowest
 * slot first: "call K (NAME) on body B, ...". */
uint32_t fxs_replay_tick_suspect_calls(const fxs_replay_tick *t, const fxs_world *expected, const fxs_world *got,
				       char *buf, size_t n);

/* The first difference between two worlds in canonical order: slot count,
 * then per slot validity, type, shape, position, rotation, velocities, then
 * the rest of the body (its hash), then the non-body state (step count,
 * contacts, broadphase). Returns d->differ. */
typedef struct fxs_state_diff {
	bool differ;
	int64_t body; /* slot, or -1 when the difference is not in a body */
	char field[48];
	char expected[64];
	char got[64];
} fxs_state_diff;

bool fxs_world_first_difference(const fxs_world *expected, const fxs_world *got, fxs_state_diff *d);
/* "body B field F (expected E, got G)" or "FIELD (expected E, got G)" */
void fxs_state_diff_format(const fxs_state_diff *d, char *buf, size_t n);
/* The same between two snapshots (e.g. two peers' states of one tick):
 * false when they do not differ or either cannot be read (d->differ then
 * false too). */
bool fxs_snapshot_first_difference(const void *expected, size_t expected_len, const void *got, size_t got_len,
				   fxs_state_diff *d);

/* The outcome of fxs_replay_verify. */
typedef struct fxs_replay_verify_result {
	fxs_replay_status status; /* OK: every tick matched and the file is complete */
	uint64_t ticks;           /* ticks re-simulated and matched */
	uint64_t tick;            /* DIVERGED: the tick number where the hash differs */
	uint64_t expected_hash, got_hash;
	uint64_t final_hash; /* the world's hash after the last matched tick */
	char message[320];   /* why, when status is not OK ("tick T: ...") */
} fxs_replay_verify_result;

/* Verify the replay at path from a start the caller trusts (expect), with
 * the game's apply callback (INPUTS mode; unused for CALLS): refuse a kind
 * expect does not accept (FXS_REPLAY_REFUSED) or an inputs replay without
 * a callback (FXS_REPLAY_NO_HANDLER) before anything runs, then check the
 * start, re-simulate every tick (a CALLS tick's calls checked against the
 * allowed ones first) and compare its hash; at a difference, name the
 * first body and field when the replay has its per-tick state (DETAIL). In
 * bounded memory (the reader streams). Returns out->status. */
fxs_replay_status fxs_replay_verify(const char *path, const fxs_replay_expect *expect, fxs_replay_apply_fn apply,
				    void *ctx, fxs_replay_verify_result *out);
/* The same from a buffer. */
fxs_replay_status fxs_replay_verify_memory(const void *buf, size_t len, const fxs_replay_expect *expect,
					   fxs_replay_apply_fn apply, void *ctx, fxs_replay_verify_result *out);

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
