#include "state/serialize.h"

#include <stdlib.h>
#include <string.h>

void fxs_writer_init_fixed(fxs_writer *w, void *buf, size_t cap)
{
	w->buf = buf;
	w->cap = buf ? cap : 0;
	w->len = 0;
	w->grow = false;
	w->failed = false;
	w->flush = NULL;
	w->flush_ctx = NULL;
	w->record = NULL;
}

void fxs_writer_init_growable(fxs_writer *w)
{
	fxs_writer_init_fixed(w, NULL, 0);
	w->grow = true;
}

void fxs_writer_init_stream(fxs_writer *w, void *buf, size_t cap, void (*flush)(void *ctx, const void *p, size_t n),
			    void *ctx)
{
	fxs_writer_init_fixed(w, buf, cap);
	w->flush = flush;
	w->flush_ctx = ctx;
}

void fxs_writer_flush(fxs_writer *w)
{
	if (w->flush && w->len) {
		w->flush(w->flush_ctx, w->buf, w->len);
		w->len = 0;
	}
}

void fxs_writer_record(fxs_writer *w, const uint8_t *rec, size_t n)
{
	fxs_writer_flush(w); /* what came before the record goes first */
	w->record(w->flush_ctx, rec, n);
}

void fxs_writer_free(fxs_writer *w)
{
	if (w->grow)
		free(w->buf);
	w->buf = NULL;
	w->cap = w->len = 0;
}

void fxs_write_bytes_slow(fxs_writer *w, const void *p, size_t n)
{
	if (w->flush) {
		fxs_writer_flush(w);
		if (n > w->cap) { /* larger than the buffer: straight through */
			w->flush(w->flush_ctx, p, n);
			return;
		}
		memcpy(w->buf, p, n);
		w->len = n;
		return;
	}
	if (w->len + n > w->cap) {
		if (w->grow && !w->failed) {
			size_t cap = w->cap ? w->cap : 4096;
			while (cap < w->len + n)
				cap *= 2;
			uint8_t *nb = realloc(w->buf, cap);
			if (!nb) {
				w->failed = true;
			} else {
				w->buf = nb;
				w->cap = cap;
			}
		} else if (w->buf) {
			w->failed = true;
		}
	}
	if (w->buf && !w->failed)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

void fxs_write_u8(fxs_writer *w, uint8_t v)
{
	if (w->buf && !w->failed && w->cap > w->len) {
		w->buf[w->len++] = v;
		return;
	}
	fxs_write_bytes(w, &v, 1);
}

void fxs_write_u16(fxs_writer *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };
	fxs_write_bytes(w, b, 2);
}

void fxs_write_u32_slow(fxs_writer *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
	fxs_write_bytes(w, b, 4);
}

void fxs_writer_reserve(fxs_writer *w, size_t n)
{
	if (w->flush && w->cap - w->len < n) {
		fxs_writer_flush(w); /* room again, up to the buffer's size */
		return;
	}
	if (!w->grow || w->failed || w->cap - w->len >= n)
		return;
	size_t cap = w->cap ? w->cap : 4096;
	while (cap - w->len < n)
		cap *= 2;
	uint8_t *nb = realloc(w->buf, cap);
	if (!nb) {
		w->failed = true;
		return;
	}
	w->buf = nb;
	w->cap = cap;
}

void fxs_write_vec3(fxs_writer *w, fxg_vec3 v)
{
	fxs_write_i32(w, v.x);
	fxs_write_i32(w, v.y);
	fxs_write_i32(w, v.z);
}

void fxs_write_quat(fxs_writer *w, fxg_quat q)
{
	fxs_write_i32(w, q.x);
	fxs_write_i32(w, q.y);
	fxs_write_i32(w, q.z);
	fxs_write_i32(w, q.w);
}

void fxs_reader_init(fxs_reader *r, const void *buf, size_t len)
{
	r->buf = buf;
	r->len = buf ? len : 0;
	r->pos = 0;
	r->err = FXS_OK;
}

void fxs_reader_fail(fxs_reader *r, fxs_result err)
{
	if (r->err == FXS_OK)
		r->err = err;
}

bool fxs_read_bytes(fxs_reader *r, void *p, size_t n)
{
	if (r->err != FXS_OK || n > r->len - r->pos) {
		fxs_reader_fail(r, FXS_ERR_TRUNCATED);
		memset(p, 0, n);
		return false;
	}
	memcpy(p, r->buf + r->pos, n);
	r->pos += n;
	return true;
}

uint8_t fxs_read_u8(fxs_reader *r)
{
	uint8_t b = 0;
	fxs_read_bytes(r, &b, 1);
	return b;
}

uint16_t fxs_read_u16(fxs_reader *r)
{
	uint8_t b[2];
	fxs_read_bytes(r, b, 2);
	return (uint16_t)(b[0] | (b[1] << 8));
}

uint32_t fxs_read_u32(fxs_reader *r)
{
	uint8_t b[4];
	fxs_read_bytes(r, b, 4);
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) | ((uint32_t)b[3] << 24);
}

uint64_t fxs_read_u64(fxs_reader *r)
{
	uint64_t lo = fxs_read_u32(r);
	uint64_t hi = fxs_read_u32(r);
	return lo | (hi << 32);
}

fxg_vec3 fxs_read_vec3(fxs_reader *r)
{
	fxg_vec3 v;
	v.x = fxs_read_i32(r);
	v.y = fxs_read_i32(r);
	v.z = fxs_read_i32(r);
	return v;
}

fxg_quat fxs_read_quat(fxs_reader *r)
{
	fxg_quat q;
	q.x = fxs_read_i32(r);
	q.y = fxs_read_i32(r);
	q.z = fxs_read_i32(r);
	q.w = fxs_read_i32(r);
	return q;
}
