/* Explicit little-endian serialisation: the one writer behind the state hash,
 * the per-body hash and snapshots, and the one bounds-checked reader behind
 * every restore. Never raw memory, never padding, never pointers. */
#ifndef FXS_SERIALIZE_H
#define FXS_SERIALIZE_H

#include <stddef.h>
#include <stdint.h>
#include "fixstep/types.h"

typedef struct fxs_writer {
	uint8_t *buf; /* may be NULL: then only counts */
	size_t cap;   /* capacity of buf */
	size_t len;   /* bytes written (or that would have been); for a
			 * streaming writer, bytes not yet passed to flush */
	bool grow;    /* buf is owned and realloc'd as needed */
	bool failed;  /* a fixed buffer overflowed or realloc failed */
	/* streaming (fxs_writer_init_stream): a full buffer is passed to
	 * flush and reused, so the output never sits whole in memory */
	void (*flush)(void *ctx, const void *p, size_t n);
	void *flush_ctx;
	/* a streaming writer may also take each record (span) whole, after
	 * flushing what came before it: the snapshot packer (pack.h) */
	void (*record)(void *ctx, const uint8_t *rec, size_t n);
} fxs_writer;

void fxs_writer_init_fixed(fxs_writer *w, void *buf, size_t cap);
void fxs_writer_init_growable(fxs_writer *w);
/* A writer into buf (cap > 0 bytes) that hands every full buffer, and at
 * the end (fxs_writer_flush) the rest, to flush(ctx, bytes, n), in order:
 * the concatenation of the flushed bytes is what a growable writer holds. */
void fxs_writer_init_stream(fxs_writer *w, void *buf, size_t cap, void (*flush)(void *ctx, const void *p, size_t n),
			    void *ctx);
void fxs_writer_flush(fxs_writer *w);
void fxs_writer_free(fxs_writer *w);
void fxs_write_bytes_slow(fxs_writer *w, const void *p, size_t n);

static inline void fxs_write_bytes(fxs_writer *w, const void *p, size_t n)
{
	if (w->buf && !w->failed && w->cap - w->len >= n) {
		__builtin_memcpy(w->buf + w->len, p, n);
		w->len += n;
		return;
	}
	fxs_write_bytes_slow(w, p, n);
}

/* Record builders: store little-endian at d and return the next position.
 * A record is built in a local array and written with one fxs_write_bytes. */
static inline uint8_t *fxs_put_u8(uint8_t *d, uint8_t v)
{
	d[0] = v;
	return d + 1;
}
static inline uint8_t *fxs_put_u32(uint8_t *d, uint32_t v)
{
	d[0] = (uint8_t)v;
	d[1] = (uint8_t)(v >> 8);
	d[2] = (uint8_t)(v >> 16);
	d[3] = (uint8_t)(v >> 24);
	return d + 4;
}
static inline uint8_t *fxs_put_i32(uint8_t *d, int32_t v) { return fxs_put_u32(d, (uint32_t)v); }
static inline uint8_t *fxs_put_u64(uint8_t *d, uint64_t v) { return fxs_put_u32(fxs_put_u32(d, (uint32_t)v), (uint32_t)(v >> 32)); }
static inline uint8_t *fxs_put_i64(uint8_t *d, int64_t v) { return fxs_put_u64(d, (uint64_t)v); }
static inline uint8_t *fxs_put_vec3(uint8_t *d, fxg_vec3 v) { return fxs_put_i32(fxs_put_i32(fxs_put_i32(d, v.x), v.y), v.z); }
static inline uint8_t *fxs_put_quat(uint8_t *d, fxg_quat q)
{
	return fxs_put_i32(fxs_put_i32(fxs_put_i32(fxs_put_i32(d, q.x), q.y), q.z), q.w);
}
void fxs_write_u8(fxs_writer *w, uint8_t v);
void fxs_write_u16(fxs_writer *w, uint16_t v);
void fxs_write_u32_slow(fxs_writer *w, uint32_t v);

/* Hot: the state hash writes millions of fields per second. The common case
 * (room in the buffer) is inline byte stores, little-endian by construction. */
static inline void fxs_write_u32(fxs_writer *w, uint32_t v)
{
	if (w->buf && !w->failed && w->cap - w->len >= 4) {
		uint8_t *d = w->buf + w->len;
		d[0] = (uint8_t)v;
		d[1] = (uint8_t)(v >> 8);
		d[2] = (uint8_t)(v >> 16);
		d[3] = (uint8_t)(v >> 24);
		w->len += 4;
		return;
	}
	fxs_write_u32_slow(w, v);
}

static inline void fxs_write_u64(fxs_writer *w, uint64_t v)
{
	fxs_write_u32(w, (uint32_t)v);
	fxs_write_u32(w, (uint32_t)(v >> 32));
}

/* Make room for n more bytes in a growable writer (one realloc instead of many). */
void fxs_writer_reserve(fxs_writer *w, size_t n);

/* Where to build a record of at most n bytes: straight in the output buffer
 * when it has room (no second copy), else in the caller's scratch. Finish
 * with fxs_write_span_end. */
static inline uint8_t *fxs_write_span(fxs_writer *w, size_t n, uint8_t *scratch)
{
	if (__builtin_expect(w->record != NULL, 0))
		return scratch;
	if ((w->grow || w->flush) && w->cap - w->len < n)
		fxs_writer_reserve(w, n);
	return (w->buf && !w->failed && w->cap - w->len >= n) ? w->buf + w->len : scratch;
}

void fxs_writer_record(fxs_writer *w, const uint8_t *rec, size_t n);

static inline void fxs_write_span_end(fxs_writer *w, uint8_t *start, uint8_t *end, uint8_t *scratch)
{
	if (__builtin_expect(w->record != NULL, 0))
		fxs_writer_record(w, start, (size_t)(end - start));
	else if (start == scratch)
		fxs_write_bytes(w, scratch, (size_t)(end - start));
	else
		w->len += (size_t)(end - start);
}
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
