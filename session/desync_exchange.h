/* Naming a desync across machines, over the session's own packets: two peers
 * whose confirmed checksums of tick T differ each hold their saved state of
 * T. Each sends the other a table of it (over the reliable transfer,
 * session/xfer.h), both find the first entry that differs, each sends the
 * other that entry in full, and both name the first field that differs, in
 * the same words on both machines:
 *   desync at tick T: body B field F (peer P: X, peer Q: Y)
 * with P < Q. No file is read or written.
 *
 * The state's format says what a table is:
 *  - an fxs_world snapshot: per body slot its alive flag, generation and
 *    body hash, and the world's slot count, step, overflow count and hash.
 *    The entry is the first body whose row differs; its detail is the
 *    body's record (the fields fxs_world_first_difference compares, in the
 *    same order: type, shape, position, rotation, velocities, user data,
 *    then the rest of the body through its hash). A difference outside the
 *    bodies is named from the tables ("step", "slot count", "contacts or
 *    broadphase (state hash)").
 *  - opaque bytes (a game's own save()): the XXH3-64 of every block of
 *    FXS_DX_BLOCK bytes and the length; the entry is the first block that
 *    differs; its detail is the block's bytes, and the line names the first
 *    differing byte range in it: "state bytes A..B (peer P: hex, peer Q: hex)".
 *
 * Everything from the other peer is checked: a table or a detail that does
 * not parse, names another tick, or does not fit the state is dropped with
 * a reason (fxs_dx.problem) and names nothing. */
#ifndef FXS_SESSION_DESYNC_EXCHANGE_H
#define FXS_SESSION_DESYNC_EXCHANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/xfer.h"

#define FXS_DX_BLOCK 256u       /* opaque states: bytes per hashed block */
#define FXS_DX_PURPOSE_TABLE 1u /* transfer purposes (xfer.h) */
#define FXS_DX_PURPOSE_DETAIL 2u
#define FXS_DX_LIMIT (4u << 20) /* the largest table or detail accepted */
#define FXS_DX_LINE 320u

typedef enum fxs_dx_format { FXS_DX_OPAQUE = 0,
			     FXS_DX_WORLD = 1 } fxs_dx_format;

typedef struct fxs_dx {
	uint32_t local, peer; /* peer ids */
	uint64_t tick;        /* 0: not started (our side) */
	fxs_dx_format format;
	uint8_t *state; /* our state of tick (a copy) */
	size_t state_len;
	uint8_t *our_table, *their_table;
	size_t our_table_len, their_table_len;
	/* the entry that differs: a body slot or a block; UINT32_MAX: none yet */
	uint32_t entry;
	uint8_t *our_detail, *their_detail;
	size_t our_detail_len, their_detail_len;
	fxs_xfer_sender tx_table, tx_detail;
	fxs_xfer_receiver rx_table, rx_detail;
	bool named;
	char line[FXS_DX_LINE]; /* "desync at tick T: ..." once named */
	char problem[160];      /* why the other peer's data was dropped ("" none) */
} fxs_dx;

/* An exchange with `peer` (nothing started). */
void fxs_dx_init(fxs_dx *x, uint32_t local, uint32_t peer);
void fxs_dx_free(fxs_dx *x);
/* Our side: our saved state of the desync tick (copied). false on bad
 * arguments or no memory. */
bool fxs_dx_start(fxs_dx *x, uint64_t tick, const uint8_t *state, size_t len, fxs_dx_format format);
/* A transfer message from the peer (the body of one of its packets):
 * FXS_XFER_OK or why it was dropped. */
fxs_xfer_err fxs_dx_receive(fxs_dx *x, const uint8_t *msg, size_t len, uint64_t now_ms);
/* The next message for the peer now: its length, or 0. */
size_t fxs_dx_poll(fxs_dx *x, uint64_t now_ms, uint8_t *out, size_t cap);
/* Both sides' transfers done (or nothing left to send): the exchange can go. */
bool fxs_dx_finished(const fxs_dx *x);

#endif
