/* A reliable chunked transfer of one blob (a snapshot, a per-body hash
 * table, a body's state) over an unreliable datagram channel: a sender and a
 * receiver state machine that exchange messages as payload bytes. The
 * caller moves them (the session wraps them in its authenticated frame);
 * there is no socket, no clock and no allocation but the blob's own here.
 *
 * Every message names its blob (purpose, id, total size, XXH3-64 of the whole
 * blob), so a message can never be taken for a part of another blob. The
 * sender cuts the blob into chunks of FXS_XFER_CHUNK bytes (the last one
 * shorter) and sends at most `window` unacknowledged chunks at a time; a
 * chunk not acknowledged `rto` ms (caller time) after it was sent is sent
 * again. The receiver answers with an ack: every chunk below `contiguous` is
 * held, and a bitmap says which of the next ones are (selective). When the
 * last chunk arrives, the receiver checks the XXH3-64 of the whole: a match
 * completes the blob (the ack says so, and the sender stops); a mismatch
 * throws every chunk away and says so (the sender sends everything again,
 * up to FXS_XFER_MAX_RESTARTS times).
 *
 * Resumable: a receiver that holds chunks of a blob keeps them when chunks of
 * the same (purpose, id, size, hash) come again, from a restarted sender or
 * after its own connection dropped; a restarted sender learns from the first
 * ack what is already there.
 *
 * Hostile input: every message is parsed with its length checked first, no
 * byte outside it is read; a size beyond the receiver's limit, a chunk index
 * beyond the blob, a chunk whose length is not the one its index must have, a
 * bitmap beyond the blob, or a message of the wrong length is rejected with
 * its reason and changes nothing.
 *
 * Wire format (little-endian, no padding), common head of 20 bytes:
 *   off size field
 *   0   1    kind      1 = chunk, 2 = ack
 *   1   1    purpose   the caller's (which blob this is for: 1..255)
 *   2   1    flags     ack: bit 0 done (verified), bit 1 reset (hash mismatch,
 *                      all thrown away), bit 2 refused (too big); chunk: 0
 *   3   1    epoch     ack: the receiver's resets of this blob (mod 256), so
 *                      that an ack from before a reset is told apart; chunk: 0
 *   4   4    id        the blob's id (the caller's; nonzero)
 *   8   4    size      the blob's size in bytes (1..FXS_XFER_MAX_SIZE)
 *   12  8    hash      XXH3-64 of the whole blob
 * chunk: 20 4 index, 24 2 length, 26 data (length bytes; exactly
 *        FXS_XFER_CHUNK but for the last chunk, which holds the rest)
 * ack:   20 4 contiguous (chunks 0..contiguous-1 held), 24 2 nbits
 *        (<= FXS_XFER_ACK_BITS), 26 bitmap of ceil(nbits/8) bytes: bit i of
 *        byte i/8 (LSB first) = chunk contiguous + i held; nbits does not
 *        reach beyond the blob's last chunk. */
#ifndef FXS_SESSION_XFER_H
#define FXS_SESSION_XFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FXS_XFER_CHUNK 864u                                    /* data bytes per chunk */
#define FXS_XFER_HEAD 20u                                      /* the head every message has */
#define FXS_XFER_MSG_MAX (FXS_XFER_HEAD + 6u + FXS_XFER_CHUNK) /* 890: fits a datagram with the session's frame */
#define FXS_XFER_MAX_SIZE (64u << 20)                          /* the largest blob the format allows (64 MiB) */
#define FXS_XFER_DEFAULT_LIMIT (8u << 20)                      /* a receiver's limit unless told (8 MiB) */
#define FXS_XFER_ACK_BITS 4096u                                /* chunks a bitmap covers past `contiguous` */
#define FXS_XFER_MAX_RESTARTS 4u                               /* hash mismatches before the sender gives up */
#define FXS_XFER_KIND_CHUNK 1u
#define FXS_XFER_KIND_ACK 2u
#define FXS_XFER_FLAG_DONE 1u
#define FXS_XFER_FLAG_RESET 2u
#define FXS_XFER_FLAG_REFUSED 4u

/* Why a message was rejected (or NONE). */
typedef enum fxs_xfer_err {
	FXS_XFER_OK = 0,
	FXS_XFER_SHORT,   /* shorter than its head or than its fields say */
	FXS_XFER_LONG,    /* longer than its fields say, or than FXS_XFER_MSG_MAX */
	FXS_XFER_KIND,    /* not a chunk / not an ack where one was expected */
	FXS_XFER_FIELD,   /* purpose 0, id 0, unknown flags, or a chunk's flags / epoch not 0 */
	FXS_XFER_SIZE,    /* size 0 or beyond FXS_XFER_MAX_SIZE */
	FXS_XFER_TOO_BIG, /* size beyond this receiver's limit (refused) */
	FXS_XFER_INDEX,   /* a chunk index beyond the blob's last chunk */
	FXS_XFER_LENGTH,  /* a chunk whose length is not the one its index must have */
	FXS_XFER_BITMAP,  /* an ack whose contiguous / bitmap reach beyond the blob */
	FXS_XFER_OTHER,   /* names another blob than the one in progress */
	FXS_XFER_BUSY,    /* a completed blob waits to be taken */
	FXS_XFER_NOMEM,   /* no memory for the blob */
	FXS_XFER_ERRS
} fxs_xfer_err;

const char *fxs_xfer_err_name(fxs_xfer_err e);

/* The head of a message, read without trusting it beyond its range checks. */
typedef struct fxs_xfer_head {
	uint8_t kind, purpose, flags;
	uint32_t id, size;
	uint64_t hash;
} fxs_xfer_head;

/* The head of msg: FXS_XFER_OK when it is long enough and its fields are in
 * range (size checked against FXS_XFER_MAX_SIZE only), else why not. For a
 * caller that routes messages to its senders and receivers. */
fxs_xfer_err fxs_xfer_peek(const uint8_t *msg, size_t len, fxs_xfer_head *h);

/* ---- sender ---- */

typedef enum fxs_xfer_send_state {
	FXS_XFER_SEND_IDLE = 0,
	FXS_XFER_SENDING,
	FXS_XFER_SENT,   /* the receiver verified the whole blob */
	FXS_XFER_FAILED, /* refused by the receiver, or too many hash mismatches */
} fxs_xfer_send_state;

typedef struct fxs_xfer_sender {
	fxs_xfer_send_state state;
	uint8_t purpose;
	uint32_t id, size, nchunks;
	uint64_t hash;
	uint8_t *blob;     /* a copy (owned) */
	uint8_t *acked;    /* per chunk */
	uint64_t *sent_at; /* per chunk: caller ms of its last send + 1 (0: never sent) */
	uint8_t *sends;    /* per chunk: sends so far, saturating at 255 */
	uint32_t n_acked;
	uint32_t next;     /* where the scan for the next chunk to send starts */
	uint32_t window;   /* most chunks in flight (0: 64) */
	uint32_t rto_min;  /* ms (0: 100) */
	uint64_t srtt;     /* smoothed round-trip time (ms, x8), 0: none measured */
	uint32_t restarts; /* hash mismatches the receiver reported */
	uint8_t epoch;     /* the receiver's epoch last heard */
	bool heard;        /* an ack of this blob came */
	uint64_t chunks_sent, resent, acks_taken, acks_rejected;
	fxs_xfer_err last_err;
} fxs_xfer_sender;

/* Start sending a copy of blob[0..size) (1..FXS_XFER_MAX_SIZE bytes) as
 * (purpose, id): false (nothing kept) on a bad argument or no memory. The
 * sender's earlier blob, if any, is dropped. */
bool fxs_xfer_send_start(fxs_xfer_sender *s, uint8_t purpose, uint32_t id, const void *blob, size_t size);
/* Free what the sender holds; it is idle again. */
void fxs_xfer_send_reset(fxs_xfer_sender *s);
/* The next message to send now (caller time now_ms, never decreasing) into
 * out: its length, or 0 when nothing is due (all in flight or done). Call it
 * until it returns 0 each time the caller sends. */
size_t fxs_xfer_send_poll(fxs_xfer_sender *s, uint64_t now_ms, uint8_t *out, size_t cap);
/* An ack received: FXS_XFER_OK when it is for this blob and well formed
 * (then its news is taken), else why not (nothing changes). */
fxs_xfer_err fxs_xfer_send_ack(fxs_xfer_sender *s, const uint8_t *msg, size_t len, uint64_t now_ms);
/* Retransmission timeout now (ms). */
uint64_t fxs_xfer_send_rto(const fxs_xfer_sender *s);

/* ---- receiver ---- */

typedef enum fxs_xfer_recv_state {
	FXS_XFER_RECV_IDLE = 0,
	FXS_XFER_RECEIVING,
	FXS_XFER_RECEIVED, /* verified; waiting to be taken */
} fxs_xfer_recv_state;

typedef struct fxs_xfer_receiver {
	fxs_xfer_recv_state state;
	uint32_t limit;       /* the largest blob accepted (0: FXS_XFER_DEFAULT_LIMIT) */
	uint8_t want_purpose; /* 0: any */
	uint32_t want_id;     /* 0: any */
	/* the blob in progress (or completed) */
	uint8_t purpose;
	uint32_t id, size, nchunks, contiguous, n_held;
	uint64_t hash;
	uint8_t epoch; /* resets of this blob */
	uint8_t *blob, *held;
	/* the last blob taken (acked as done when its chunks come again) */
	uint8_t done_purpose;
	uint32_t done_id, done_size;
	uint64_t done_hash;
	/* an ack is due: flags to put in it, and for which head */
	bool ack_due;
	uint8_t ack_flags;
	fxs_xfer_head ack_head;
	uint64_t chunks_taken, duplicates, rejected[FXS_XFER_ERRS], resets, replaced;
} fxs_xfer_receiver;

/* A receiver of blobs up to `limit` bytes (0: the default), of any purpose
 * and id unless want_purpose / want_id are set (0: any). */
void fxs_xfer_recv_init(fxs_xfer_receiver *r, uint32_t limit, uint8_t want_purpose, uint32_t want_id);
/* Free what the receiver holds (it forgets its progress). */
void fxs_xfer_recv_free(fxs_xfer_receiver *r);
/* A chunk received: FXS_XFER_OK when it was taken (a duplicate too), else
 * why not. A chunk of another blob than the one in progress replaces it
 * (its chunks are dropped) unless want_id pins the blob; a chunk of the same
 * (purpose, id, size, hash) continues it. */
fxs_xfer_err fxs_xfer_recv_chunk(fxs_xfer_receiver *r, const uint8_t *msg, size_t len);
/* The ack to send, when one is due (a chunk came since the last): its length,
 * or 0. */
size_t fxs_xfer_recv_poll(fxs_xfer_receiver *r, uint8_t *out, size_t cap);
/* The completed blob: ownership passes to the caller (free() it); the
 * receiver becomes idle and keeps acking that blob as done. NULL when none. */
uint8_t *fxs_xfer_recv_take(fxs_xfer_receiver *r, size_t *size, uint8_t *purpose, uint32_t *id);

#endif
