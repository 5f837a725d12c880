/* Replays: a scene's initial snapshot, every player's input per tick and the
 * state hash after every tick, in checksummed chunks (docs/replay-format.md).
 *
 * Recording is crash-safe: each chunk is written, flushed and fsync'd when it
 * completes, so a killed recorder leaves a file whose complete chunks verify.
 * Reading treats the file as untrusted: every field is bounds-checked, every
 * count is checked against the bytes that are actually there before anything
 * is allocated for it, and every problem is a status with a message. */
#ifndef FXS_REPLAY_H
#define FXS_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fixstep/fixstep.h"
#include "fixstep/input.h"

#define FXS_REPLAY_FORMAT_VERSION 1u
#define FXS_REPLAY_MAX_SCENE_NAME 63u
#define FXS_REPLAY_MAX_CHUNK_TICKS 4096u
#define FXS_REPLAY_DEFAULT_CHUNK_TICKS 64u
/* Largest file the reader loads (and largest snapshot a detail delta may build). */
#define FXS_REPLAY_MAX_BYTES ((size_t)1 << 30)

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
	FXS_REPLAY_NOMEM
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

/* A replay read into memory. Ticks are numbered as the world's step count
 * after the tick: tick i (0-based index) has number start_tick + i + 1. */
typedef struct fxs_replay {
	uint8_t *data; /* the whole file (owned) */
	size_t len;
	/* header */
	uint32_t format_version;
	uint32_t kernel_version; /* major << 16 | minor << 8 | patch of the recorder */
	uint32_t numeric;        /* fraction bits | wide fraction bits << 8 */
	uint32_t flags;
	uint32_t players;
	uint32_t chunk_ticks;
	uint64_t start_tick;
	char scene[FXS_REPLAY_MAX_SCENE_NAME + 1];
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

/* Parse a file already in memory (the replay takes a copy). The header must
 * be valid for anything to be usable: when status is TRUNCATED, CHECKSUM or
 * CORRUPT after a good header, the chunks before the bad one are still there
 * (chunk_count, tick_count) and verify. Returns r->status. */
fxs_replay_status fxs_replay_parse(fxs_replay *r, const void *buf, size_t len);
fxs_replay_status fxs_replay_load(fxs_replay *r, const char *path);
void fxs_replay_free(fxs_replay *r);
/* true when the header was read (then the ticks so far are usable) */
bool fxs_replay_header_ok(const fxs_replay *r);

/* Tick i's inputs (players records) and recorded hash. i < tick_count. */
void fxs_replay_tick_inputs(const fxs_replay *r, uint64_t i, fxs_input out[FXS_MAX_PLAYERS]);
uint64_t fxs_replay_tick_hash(const fxs_replay *r, uint64_t i);
uint64_t fxs_replay_tick_number(const fxs_replay *r, uint64_t i);

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
	uint32_t players, chunk_ticks, flags;
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

/* Create path and write the header with w's snapshot. chunk_ticks 0 means
 * the default (64). */
fxs_replay_status fxs_replay_writer_open(fxs_replay_writer *rw, const char *path, const char *scene, const fxs_world *w,
					 uint32_t players, uint32_t chunk_ticks, uint32_t flags);
/* Append one tick: the inputs applied before the step and the world after
 * it. A full chunk is written, flushed and fsync'd at once. */
fxs_replay_status fxs_replay_writer_tick(fxs_replay_writer *rw, const fxs_input *inputs, const fxs_world *w);
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

#endif
