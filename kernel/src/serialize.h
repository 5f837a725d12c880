/* Explicit little-endian serialisation: the one writer behind the state hash,
 * the per-body hash and snapshots, and the one bounds-checked reader behind
 * every restore. Never raw memory, never padding, never pointers. */
#ifndef FXS_SERIALIZE_H
#define FXS_SERIALIZE_H

#include <stddef.h>
#include <stdint.h>
#include "fixstep/types.h"

typedef struct fxs_writer {
	uint8_t *buf;   /* may be NULL: then only counts */
	size_t cap;     /* capacity of buf */
	size_t len;     /* bytes written (or that would have been) */
	bool grow;      /* buf is owned and realloc'd as needed */
	bool failed;    /* a fixed buffer overflowed or realloc failed */
} fxs_writer;

void fxs_writer_init_fixed(fxs_writer *w, void *buf, size_t cap);
void fxs_writer_init_growable(fxs_writer *w);
void fxs_writer_free(fxs_writer *w);
void fxs_write_bytes(fxs_writer *w, const void *p, size_t n);
void fxs_write_u8(fxs_writer *w, uint8_t v);
void fxs_write_u16(fxs_writer *w, uint16_t v);
void fxs_write_u32(fxs_writer *w, uint32_t v);
void fxs_write_u64(fxs_writer *w, uint64_t v);
static inline void fxs_write_i32(fxs_writer *w, int32_t v) { fxs_write_u32(w, (uint32_t)v); }
static inline void fxs_write_i64(fxs_writer *w, int64_t v) { fxs_write_u64(w, (uint64_t)v); }
void fxs_write_vec3(fxs_writer *w, fxg_vec3 v);
void fxs_write_quat(fxs_writer *w, fxg_quat q);

typedef struct fxs_reader {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	fxs_result err; /* first error; reads after an error return zeros */
} fxs_reader;

void fxs_reader_init(fxs_reader *r, const void *buf, size_t len);
bool fxs_read_bytes(fxs_reader *r, void *p, size_t n);
uint8_t fxs_read_u8(fxs_reader *r);
uint16_t fxs_read_u16(fxs_reader *r);
uint32_t fxs_read_u32(fxs_reader *r);
uint64_t fxs_read_u64(fxs_reader *r);
static inline int32_t fxs_read_i32(fxs_reader *r) { return (int32_t)fxs_read_u32(r); }
static inline int64_t fxs_read_i64(fxs_reader *r) { return (int64_t)fxs_read_u64(r); }
fxg_vec3 fxs_read_vec3(fxs_reader *r);
fxg_quat fxs_read_quat(fxs_reader *r);
/* Mark the stream corrupt (a field out of its valid range). */
void fxs_reader_fail(fxs_reader *r, fxs_result err);

#endif
