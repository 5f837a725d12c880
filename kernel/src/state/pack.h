/* Snapshot packing: the canonical state (state.c) made small for keeping and
 * sending, losslessly; the hash is still made of the canonical bytes.
 *
 * The state is mostly records of one shape after another (a body, a contact
 * with its kept manifold) that share most of their bytes with the record
 * before, and integers whose high bytes are all 0x00 or all 0xFF. So a record
 * is XORed with the latest earlier record of its length, and the bytes are
 * then written as tokens:
 *
 *   0x00-0x7F  c + 1 literal bytes follow
 *   0x80-0xBE  c - 0x7F zero bytes (1..63)
 *   0xBF       a record: u16 length L (1..FXS_PACK_RECORD_MAX), then tokens
 *              that give exactly L bytes: the record XOR the latest earlier
 *              record of length L (none: the record itself). The latest
 *              records of FXS_PACK_RECENT lengths are remembered; a length
 *              not among them takes the place of the oldest one taken.
 *   0xC0-0xFF  c - 0xBF bytes 0xFF (1..64)
 *
 * The packed form depends on nothing but the canonical bytes and where their
 * records are (the writer's spans), so every machine packs a state alike. */
#ifndef FXS_PACK_H
#define FXS_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { FXS_PACK_RECORD_MAX = 400, FXS_PACK_RECENT = 4, FXS_PACK_LITERAL_MAX = 128 };

typedef struct fxs_packer {
	uint8_t *out; /* NULL: only counts */
	size_t cap;
	size_t len;  /* bytes packed (or that would have been) */
	bool failed; /* out was too small */
	uint32_t recent_len[FXS_PACK_RECENT];
	uint32_t recent_next;
	uint8_t recent[FXS_PACK_RECENT][FXS_PACK_RECORD_MAX];
} fxs_packer;

void fxs_packer_init(fxs_packer *p, void *out, size_t cap);
/* Bytes outside any record (a flush callback for a streaming writer). */
void fxs_pack_bytes(void *packer, const void *bytes, size_t n);
/* One record (the writer's span). */
void fxs_pack_record(void *packer, const uint8_t *rec, size_t n);

/* Unpack in[0..n) into exactly m bytes at out; false when the input is not
 * a packing of m bytes (any malformed token, record or length). */
bool fxs_unpack(const uint8_t *in, size_t n, uint8_t *out, size_t m);

#endif
