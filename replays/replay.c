/* The replay container: reading (untrusted), writing (crash-safe), detail
 * deltas. The layout is in docs/replay-format.md; every integer is little-endian
 * and goes through the kernel's explicit writer and bounds-checked reader. */
#define _POSIX_C_SOURCE 200809L
#include "replay.h"
#include "state/serialize.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

#define MAGIC "FXSREPLY"
#define CHUNK_MAGIC "FXSC"
#define END_MAGIC "FXSE"
#define HEADER_FIXED 48u /* through the scene name length */
#define CHUNK_HEAD 24u
#define END_SIZE 32u
#define NUMERIC (16u | (32u << 8))

const char *fxs_replay_status_string(fxs_replay_status s)
{
	switch (s) {
	case FXS_REPLAY_OK: return "ok";
	case FXS_REPLAY_TRUNCATED: return "truncated";
	case FXS_REPLAY_BAD_MAGIC: return "not a fixstep replay";
	case FXS_REPLAY_VERSION: return "unknown version";
	case FXS_REPLAY_CHECKSUM: return "bad checksum";
	case FXS_REPLAY_CORRUPT: return "corrupt";
	case FXS_REPLAY_IO: return "I/O error";
	case FXS_REPLAY_NOMEM: return "out of memory";
	}
	return "unknown error";
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32); }
static void wr32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}
static void wr64(uint8_t *p, uint64_t v)
{
	wr32(p, (uint32_t)v);
	wr32(p + 4, (uint32_t)(v >> 32));
}

static fxs_replay_status fail(fxs_replay *r, fxs_replay_status s, size_t off, const char *fmt, ...)
{
	if (r->status != FXS_REPLAY_OK)
		return r->status;
	r->status = s;
	r->error_offset = off;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->error, sizeof r->error, fmt, ap);
	va_end(ap);
	return s;
}

static size_t tick_record_size(const fxs_replay *r) { return (size_t)r->players * FXS_INPUT_SIZE + 8; }

/* ---- reading ---- */

static bool valid_scene_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		c == '.';
}

static fxs_replay_status parse_header(fxs_replay *r)
{
	const uint8_t *d = r->data;
	size_t n = r->len;
	if (n < 8) {
		if (memcmp(d, MAGIC, n) == 0)
			return fail(r, FXS_REPLAY_TRUNCATED, n, "truncated: the file ends inside the header (%zu bytes)", n);
		return fail(r, FXS_REPLAY_BAD_MAGIC, 0, "not a fixstep replay (bad magic)");
	}
	if (memcmp(d, MAGIC, 8) != 0)
		return fail(r, FXS_REPLAY_BAD_MAGIC, 0, "not a fixstep replay (bad magic)");
	if (n < 12)
		return fail(r, FXS_REPLAY_TRUNCATED, n, "truncated: the file ends inside the header (%zu bytes)", n);
	fxs_reader rd;
	fxs_reader_init(&rd, d, n);
	rd.pos = 8;
	r->format_version = fxs_read_u32(&rd);
	if (r->format_version != FXS_REPLAY_FORMAT_VERSION)
		return fail(r, FXS_REPLAY_VERSION, 8, "unknown version: format version %u (this build reads %u)",
			    r->format_version, FXS_REPLAY_FORMAT_VERSION);
	r->kernel_version = fxs_read_u32(&rd);
	r->numeric = fxs_read_u32(&rd);
	r->flags = fxs_read_u32(&rd);
	r->players = fxs_read_u32(&rd);
	r->chunk_ticks = fxs_read_u32(&rd);
	uint32_t input_size = fxs_read_u32(&rd);
	r->start_tick = fxs_read_u64(&rd);
	uint32_t name_len = fxs_read_u32(&rd);
	if (rd.err != FXS_OK)
		return fail(r, FXS_REPLAY_TRUNCATED, n, "truncated: the file ends inside the header (%zu bytes)", n);
	if (r->numeric != NUMERIC)
		return fail(r, FXS_REPLAY_VERSION, 16, "unknown version: numeric configuration 0x%x (this build is 0x%x)",
			    r->numeric, NUMERIC);
	if (name_len < 1 || name_len > FXS_REPLAY_MAX_SCENE_NAME)
		return fail(r, FXS_REPLAY_CORRUPT, 44, "corrupt header: scene name length %u", name_len);
	size_t name_off = rd.pos;
	if (!fxs_read_bytes(&rd, r->scene, name_len))
		return fail(r, FXS_REPLAY_TRUNCATED, n, "truncated: the file ends inside the header (%zu bytes)", n);
	r->scene[name_len] = 0;
	uint64_t snap_len = fxs_read_u64(&rd);
	if (rd.err != FXS_OK || snap_len > rd.len - rd.pos || rd.len - rd.pos - snap_len < 8)
		return fail(r, FXS_REPLAY_TRUNCATED, n, "truncated: the file ends inside the header (%zu bytes)", n);
	r->snapshot_off = rd.pos;
	r->snapshot_len = (size_t)snap_len;
	rd.pos += (size_t)snap_len;
	uint64_t sum = fxs_read_u64(&rd);
	r->header_size = rd.pos;
	r->header_checksum = (uint64_t)XXH3_64bits(d, r->header_size - 8);
	if (sum != r->header_checksum)
		return fail(r, FXS_REPLAY_CHECKSUM, r->header_size - 8,
			    "bad checksum: header (stored %016llx, computed %016llx)", (unsigned long long)sum,
			    (unsigned long long)r->header_checksum);
	for (uint32_t i = 0; i < name_len; ++i)
		if (!valid_scene_char((uint8_t)r->scene[i]))
			return fail(r, FXS_REPLAY_CORRUPT, name_off + i, "corrupt header: scene name has byte 0x%02x",
				    (uint8_t)r->scene[i]);
	if (r->flags & ~FXS_REPLAY_KNOWN_FLAGS)
		return fail(r, FXS_REPLAY_VERSION, 20, "unknown version: flags 0x%x", r->flags);
	if (r->players < 1 || r->players > FXS_MAX_PLAYERS)
		return fail(r, FXS_REPLAY_CORRUPT, 24, "corrupt header: %u players (1..%u)", r->players, FXS_MAX_PLAYERS);
	if (r->chunk_ticks < 1 || r->chunk_ticks > FXS_REPLAY_MAX_CHUNK_TICKS)
		return fail(r, FXS_REPLAY_CORRUPT, 28, "corrupt header: %u ticks per chunk (1..%u)", r->chunk_ticks,
			    FXS_REPLAY_MAX_CHUNK_TICKS);
	if (input_size != FXS_INPUT_SIZE)
		return fail(r, FXS_REPLAY_CORRUPT, 32, "corrupt header: input record of %u bytes (this build: %u)",
			    input_size, FXS_INPUT_SIZE);
	if (r->start_tick > UINT64_MAX / 2)
		return fail(r, FXS_REPLAY_CORRUPT, 36, "corrupt header: start tick %llu", (unsigned long long)r->start_tick);
	r->header_valid = true;
	return FXS_REPLAY_OK;
}

static bool push_tick(fxs_replay *r, size_t off)
{
	if (r->tick_count == r->tick_cap) {
		uint64_t cap = r->tick_cap ? r->tick_cap * 2 : 256;
		size_t *t = realloc(r->tick_off, (size_t)cap * sizeof *t);
		if (!t)
			return false;
		r->tick_off = t;
		r->tick_cap = cap;
	}
	r->tick_off[r->tick_count++] = off;
	return true;
}

static bool push_chunk(fxs_replay *r, const fxs_replay_chunk *c)
{
	if (r->chunk_count == r->chunk_cap) {
		uint32_t cap = r->chunk_cap ? r->chunk_cap * 2 : 16;
		fxs_replay_chunk *t = realloc(r->chunks, (size_t)cap * sizeof *t);
		if (!t)
			return false;
		r->chunks = t;
		r->chunk_cap = cap;
	}
	r->chunks[r->chunk_count++] = *c;
	return true;
}

/* One chunk at pos; *next gets the offset after it. */
static fxs_replay_status parse_chunk(fxs_replay *r, size_t pos, size_t *next, bool *short_seen)
{
	const uint8_t *d = r->data;
	size_t avail = r->len - pos;
	if (avail < CHUNK_HEAD)
		return fail(r, FXS_REPLAY_TRUNCATED, pos, "truncated: partial chunk %u at offset %zu (%zu of its head's %u bytes)",
			    r->chunk_count, pos, avail, CHUNK_HEAD);
	uint32_t index = rd32(d + pos + 4);
	uint64_t first = rd64(d + pos + 8);
	uint32_t ticks = rd32(d + pos + 16);
	uint32_t plen = rd32(d + pos + 20);
	if ((uint64_t)plen + CHUNK_HEAD + 8 > avail)
		return fail(r, FXS_REPLAY_TRUNCATED, pos,
			    "truncated: partial chunk %u at offset %zu (%zu of %llu bytes)", r->chunk_count, pos, avail,
			    (unsigned long long)plen + CHUNK_HEAD + 8);
	size_t size = CHUNK_HEAD + (size_t)plen + 8;
	uint64_t sum = rd64(d + pos + CHUNK_HEAD + plen);
	uint64_t calc = (uint64_t)XXH3_64bits_withSeed(d + pos, CHUNK_HEAD + (size_t)plen, r->header_checksum);
	if (sum != calc)
		return fail(r, FXS_REPLAY_CHECKSUM, pos, "bad checksum: chunk %u at offset %zu (stored %016llx, computed %016llx)",
			    r->chunk_count, pos, (unsigned long long)sum, (unsigned long long)calc);
	if (*short_seen)
		return fail(r, FXS_REPLAY_CORRUPT, pos, "corrupt: chunk %u follows a partial chunk", r->chunk_count);
	if (index != r->chunk_count)
		return fail(r, FXS_REPLAY_CORRUPT, pos + 4, "corrupt: chunk %u has index %u", r->chunk_count, index);
	uint64_t want_first = r->start_tick + r->tick_count + 1;
	if (first != want_first)
		return fail(r, FXS_REPLAY_CORRUPT, pos + 8, "corrupt: chunk %u starts at tick %llu, expected %llu",
			    r->chunk_count, (unsigned long long)first, (unsigned long long)want_first);
	if (ticks < 1 || ticks > r->chunk_ticks)
		return fail(r, FXS_REPLAY_CORRUPT, pos + 16, "corrupt: chunk %u has %u ticks (1..%u)", r->chunk_count, ticks,
			    r->chunk_ticks);
	size_t rec = tick_record_size(r);
	if ((uint64_t)ticks * rec > plen)
		return fail(r, FXS_REPLAY_CORRUPT, pos + 20, "corrupt: chunk %u payload of %u bytes cannot hold %u ticks",
			    r->chunk_count, plen, ticks);
	bool detail = (r->flags & FXS_REPLAY_FLAG_DETAIL) != 0;
	size_t p = pos + CHUNK_HEAD, end = pos + CHUNK_HEAD + plen;
	uint64_t ticks_before = r->tick_count;
	for (uint32_t t = 0; t < ticks; ++t) {
		if (rec > end - p)
			goto bad_payload;
		if (!push_tick(r, p)) {
			r->tick_count = ticks_before;
			return fail(r, FXS_REPLAY_NOMEM, p, "out of memory");
		}
		p += rec;
		if (detail) {
			if (end - p < 4)
				goto bad_payload;
			uint32_t dl = rd32(d + p);
			if (dl > end - p - 4)
				goto bad_payload;
			p += 4 + (size_t)dl;
		}
	}
	if (p != end)
		goto bad_payload;
	fxs_replay_chunk c = { pos, size, index, first, ticks, sum };
	if (!push_chunk(r, &c)) {
		r->tick_count = ticks_before;
		return fail(r, FXS_REPLAY_NOMEM, pos, "out of memory");
	}
	if (ticks < r->chunk_ticks)
		*short_seen = true;
	*next = pos + size;
	return FXS_REPLAY_OK;
bad_payload:
	r->tick_count = ticks_before;
	return fail(r, FXS_REPLAY_CORRUPT, p, "corrupt: chunk %u payload does not match its %u ticks", r->chunk_count, ticks);
}

static fxs_replay_status parse_end(fxs_replay *r, size_t pos)
{
	const uint8_t *d = r->data;
	size_t avail = r->len - pos;
	if (avail < END_SIZE)
		return fail(r, FXS_REPLAY_TRUNCATED, pos, "truncated: partial end record at offset %zu", pos);
	uint64_t sum = rd64(d + pos + 24);
	uint64_t calc = (uint64_t)XXH3_64bits_withSeed(d + pos, 24, r->header_checksum);
	if (sum != calc)
		return fail(r, FXS_REPLAY_CHECKSUM, pos, "bad checksum: end record at offset %zu", pos);
	uint32_t chunks = rd32(d + pos + 4);
	uint64_t ticks = rd64(d + pos + 8);
	uint64_t final = rd64(d + pos + 16);
	if (chunks != r->chunk_count || ticks != r->tick_count)
		return fail(r, FXS_REPLAY_CORRUPT, pos, "corrupt: end record says %u chunks and %llu ticks, the file has %u and %llu",
			    chunks, (unsigned long long)ticks, r->chunk_count, (unsigned long long)r->tick_count);
	uint64_t last = r->tick_count ? fxs_replay_tick_hash(r, r->tick_count - 1) : 0;
	if (r->tick_count && final != last)
		return fail(r, FXS_REPLAY_CORRUPT, pos + 16, "corrupt: end record's final hash differs from the last tick's");
	if (avail != END_SIZE)
		return fail(r, FXS_REPLAY_CORRUPT, pos + END_SIZE, "corrupt: %zu trailing bytes after the end record",
			    avail - END_SIZE);
	r->end_final_hash = final;
	r->complete = true;
	return FXS_REPLAY_OK;
}

fxs_replay_status fxs_replay_parse(fxs_replay *r, const void *buf, size_t len)
{
	memset(r, 0, sizeof *r);
	if (len > FXS_REPLAY_MAX_BYTES)
		return fail(r, FXS_REPLAY_CORRUPT, 0, "file too large (%zu bytes)", len);
	r->data = malloc(len ? len : 1);
	if (!r->data)
		return fail(r, FXS_REPLAY_NOMEM, 0, "out of memory");
	if (len)
		memcpy(r->data, buf, len);
	r->len = len;
	if (parse_header(r) != FXS_REPLAY_OK)
		return r->status;
	size_t pos = r->header_size;
	bool short_seen = false;
	for (;;) {
		if (pos == r->len)
			return fail(r, FXS_REPLAY_TRUNCATED, pos,
				    "truncated: no end record after %u complete chunks (the recording did not finish)",
				    r->chunk_count);
		if (r->len - pos < 4)
			return fail(r, FXS_REPLAY_TRUNCATED, pos, "truncated: partial chunk %u at offset %zu", r->chunk_count, pos);
		if (memcmp(r->data + pos, END_MAGIC, 4) == 0)
			return parse_end(r, pos);
		if (memcmp(r->data + pos, CHUNK_MAGIC, 4) != 0)
			return fail(r, FXS_REPLAY_CORRUPT, pos, "corrupt: no chunk at offset %zu (bad chunk magic)", pos);
		if (parse_chunk(r, pos, &pos, &short_seen) != FXS_REPLAY_OK)
			return r->status;
	}
}

fxs_replay_status fxs_replay_load(fxs_replay *r, const char *path)
{
	memset(r, 0, sizeof *r);
	FILE *f = fopen(path, "rb");
	if (!f)
		return fail(r, FXS_REPLAY_IO, 0, "cannot open %s", path);
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			if (cap >= FXS_REPLAY_MAX_BYTES) {
				free(buf);
				fclose(f);
				return fail(r, FXS_REPLAY_CORRUPT, 0, "file too large (over %zu bytes)", FXS_REPLAY_MAX_BYTES);
			}
			uint8_t *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	bool err = ferror(f) != 0;
	fclose(f);
	if (!buf)
		return fail(r, FXS_REPLAY_NOMEM, 0, "out of memory");
	if (err) {
		free(buf);
		return fail(r, FXS_REPLAY_IO, 0, "cannot read %s", path);
	}
	fxs_replay_status s = fxs_replay_parse(r, buf, n);
	free(buf);
	return s;
}

void fxs_replay_free(fxs_replay *r)
{
	free(r->data);
	free(r->chunks);
	free(r->tick_off);
	memset(r, 0, sizeof *r);
}

bool fxs_replay_header_ok(const fxs_replay *r) { return r->header_valid; }

void fxs_replay_tick_inputs(const fxs_replay *r, uint64_t i, fxs_input out[FXS_MAX_PLAYERS])
{
	const uint8_t *p = r->data + r->tick_off[i];
	for (uint32_t k = 0; k < FXS_MAX_PLAYERS; ++k)
		out[k] = k < r->players ? fxs_input_read(p + (size_t)k * FXS_INPUT_SIZE) : fxs_input_neutral();
}

uint64_t fxs_replay_tick_hash(const fxs_replay *r, uint64_t i)
{
	return rd64(r->data + r->tick_off[i] + (size_t)r->players * FXS_INPUT_SIZE);
}

uint64_t fxs_replay_tick_number(const fxs_replay *r, uint64_t i) { return r->start_tick + i + 1; }

/* ---- detail deltas ----
 * A delta rebuilds the new snapshot from the previous one:
 *   varint new_len, then (varint skip, varint lit, lit bytes) until new_len
 *   bytes are out: skip copies bytes from the previous snapshot at the same
 *   offset, lit takes bytes from the delta. Varints are LEB128, at most 5
 *   bytes, value < 2^32. */

static bool grow(uint8_t **buf, size_t *cap, size_t need)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 256;
	while (c < need)
		c *= 2;
	uint8_t *nb = realloc(*buf, c);
	if (!nb)
		return false;
	*buf = nb;
	*cap = c;
	return true;
}

static bool put_varint(uint8_t **out, size_t *len, size_t *cap, uint32_t v)
{
	if (!grow(out, cap, *len + 5))
		return false;
	do {
		uint8_t b = v & 0x7f;
		v >>= 7;
		(*out)[(*len)++] = (uint8_t)(b | (v ? 0x80 : 0));
	} while (v);
	return true;
}

static bool get_varint(const uint8_t *p, size_t n, size_t *pos, uint32_t *v)
{
	uint64_t x = 0;
	for (int i = 0; i < 5; ++i) {
		if (*pos >= n)
			return false;
		uint8_t b = p[(*pos)++];
		x |= (uint64_t)(b & 0x7f) << (7 * i);
		if (!(b & 0x80)) {
			if (x > UINT32_MAX)
				return false;
			*v = (uint32_t)x;
			return true;
		}
	}
	return false;
}

bool fxs_delta_encode(const uint8_t *prev, size_t prev_len, const uint8_t *cur, size_t cur_len, uint8_t **out,
		      size_t *out_len, size_t *out_cap)
{
	*out_len = 0;
	if (cur_len > UINT32_MAX || !put_varint(out, out_len, out_cap, (uint32_t)cur_len))
		return false;
	size_t i = 0;
#define SAME(k) ((k) < prev_len && cur[k] == prev[k])
	while (i < cur_len) {
		size_t s = i;
		while (i < cur_len && SAME(i))
			++i;
		size_t l = i;
		while (i < cur_len) {
			if (SAME(i)) {
				size_t j = i;
				while (j < cur_len && SAME(j))
					++j;
				if (j - i >= 8 || j == cur_len)
					break;
				i = j;
			} else {
				++i;
			}
		}
		if (!put_varint(out, out_len, out_cap, (uint32_t)(l - s)) ||
		    !put_varint(out, out_len, out_cap, (uint32_t)(i - l)) || !grow(out, out_cap, *out_len + (i - l)))
			return false;
		memcpy(*out + *out_len, cur + l, i - l);
		*out_len += i - l;
	}
#undef SAME
	return true;
}

fxs_replay_status fxs_delta_decode(const uint8_t *prev, size_t prev_len, const uint8_t *delta, size_t delta_len,
				   uint8_t **out, size_t *out_len, size_t *out_cap)
{
	size_t pos = 0;
	uint32_t n;
	/* the new snapshot can only be longer than the old one by bytes the
	 * delta carries: bound the allocation by what is there */
	if (!get_varint(delta, delta_len, &pos, &n) || n > prev_len + delta_len || n > FXS_REPLAY_MAX_BYTES)
		return FXS_REPLAY_CORRUPT;
	if (!grow(out, out_cap, n ? n : 1))
		return FXS_REPLAY_NOMEM;
	size_t o = 0;
	while (o < n) {
		uint32_t skip, lit;
		if (!get_varint(delta, delta_len, &pos, &skip) || !get_varint(delta, delta_len, &pos, &lit))
			return FXS_REPLAY_CORRUPT;
		if ((skip == 0 && lit == 0) || skip > n - o || o + skip > prev_len)
			return FXS_REPLAY_CORRUPT;
		memcpy(*out + o, prev + o, skip);
		o += skip;
		if (lit > n - o || lit > delta_len - pos)
			return FXS_REPLAY_CORRUPT;
		memcpy(*out + o, delta + pos, lit);
		o += lit;
		pos += lit;
	}
	if (pos != delta_len)
		return FXS_REPLAY_CORRUPT;
	*out_len = n;
	return FXS_REPLAY_OK;
}

fxs_replay_status fxs_replay_detail_init(const fxs_replay *r, fxs_replay_detail *d)
{
	memset(d, 0, sizeof *d);
	if (!(r->flags & FXS_REPLAY_FLAG_DETAIL))
		return FXS_REPLAY_CORRUPT;
	if (!grow(&d->snap, &d->cap, r->snapshot_len ? r->snapshot_len : 1))
		return FXS_REPLAY_NOMEM;
	memcpy(d->snap, r->data + r->snapshot_off, r->snapshot_len);
	d->len = r->snapshot_len;
	return FXS_REPLAY_OK;
}

fxs_replay_status fxs_replay_detail_next(const fxs_replay *r, fxs_replay_detail *d)
{
	if (d->applied >= r->tick_count)
		return FXS_REPLAY_CORRUPT;
	size_t p = r->tick_off[d->applied] + tick_record_size(r);
	uint32_t dl = rd32(r->data + p); /* checked by the parser */
	size_t tlen = 0;
	fxs_replay_status s = fxs_delta_decode(d->snap, d->len, r->data + p + 4, dl, &d->tmp, &tlen, &d->tmp_cap);
	if (s != FXS_REPLAY_OK)
		return s;
	uint8_t *t = d->snap;
	size_t c = d->cap;
	d->snap = d->tmp;
	d->cap = d->tmp_cap;
	d->len = tlen;
	d->tmp = t;
	d->tmp_cap = c;
	d->applied++;
	return FXS_REPLAY_OK;
}

void fxs_replay_detail_free(fxs_replay_detail *d)
{
	free(d->snap);
	free(d->tmp);
	memset(d, 0, sizeof *d);
}

/* ---- writing ---- */

static fxs_replay_status wfail(fxs_replay_writer *rw, fxs_replay_status s, const char *msg)
{
	if (!rw->failed)
		snprintf(rw->error, sizeof rw->error, "%s", msg);
	rw->failed = true;
	return s;
}

/* write, flush to the kernel and to the disk: after this the bytes survive
 * a kill -9 (and a power loss, as far as fsync promises) */
static bool write_durable(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n || fflush(f) != 0)
		return false;
	return fsync(fileno(f)) == 0;
}

static bool snapshot_into(const fxs_world *w, uint8_t **buf, size_t *cap, size_t *len)
{
	size_t n = fxs_world_snapshot_size(w);
	if (!grow(buf, cap, n))
		return false;
	return fxs_world_snapshot_save(w, *buf, *cap, len) == FXS_OK;
}

fxs_replay_status fxs_replay_writer_open(fxs_replay_writer *rw, const char *path, const char *scene, const fxs_world *w,
					 uint32_t players, uint32_t chunk_ticks, uint32_t flags)
{
	memset(rw, 0, sizeof *rw);
	if (chunk_ticks == 0)
		chunk_ticks = FXS_REPLAY_DEFAULT_CHUNK_TICKS;
	size_t name_len = strlen(scene);
	if (players < 1 || players > FXS_MAX_PLAYERS || chunk_ticks > FXS_REPLAY_MAX_CHUNK_TICKS || name_len < 1 ||
	    name_len > FXS_REPLAY_MAX_SCENE_NAME || (flags & ~FXS_REPLAY_KNOWN_FLAGS))
		return wfail(rw, FXS_REPLAY_CORRUPT, "bad replay parameters");
	rw->players = players;
	rw->chunk_ticks = chunk_ticks;
	rw->flags = flags;
	rw->start_tick = fxs_world_get_step(w);
	rw->next_tick = rw->start_tick + 1;
	rw->chunk_first_tick = rw->next_tick;
	if (!snapshot_into(w, &rw->prev, &rw->prev_cap, &rw->prev_len))
		return wfail(rw, FXS_REPLAY_NOMEM, "cannot snapshot the world");
	fxs_writer h;
	fxs_writer_init_growable(&h);
	fxs_write_bytes(&h, MAGIC, 8);
	fxs_write_u32(&h, FXS_REPLAY_FORMAT_VERSION);
	fxs_write_u32(&h, FXS_VERSION);
	fxs_write_u32(&h, NUMERIC);
	fxs_write_u32(&h, flags);
	fxs_write_u32(&h, players);
	fxs_write_u32(&h, chunk_ticks);
	fxs_write_u32(&h, FXS_INPUT_SIZE);
	fxs_write_u64(&h, fxs_world_get_step(w));
	fxs_write_u32(&h, (uint32_t)name_len);
	fxs_write_bytes(&h, scene, name_len);
	fxs_write_u64(&h, rw->prev_len);
	fxs_write_bytes(&h, rw->prev, rw->prev_len);
	if (h.failed) {
		fxs_writer_free(&h);
		return wfail(rw, FXS_REPLAY_NOMEM, "out of memory");
	}
	rw->header_checksum = (uint64_t)XXH3_64bits(h.buf, h.len);
	fxs_write_u64(&h, rw->header_checksum);
	rw->f = fopen(path, "wb");
	if (!rw->f) {
		fxs_writer_free(&h);
		return wfail(rw, FXS_REPLAY_IO, "cannot create the file");
	}
	bool ok = !h.failed && write_durable(rw->f, h.buf, h.len);
	fxs_writer_free(&h);
	if (!ok)
		return wfail(rw, FXS_REPLAY_IO, "cannot write the header");
	return FXS_REPLAY_OK;
}

static fxs_replay_status flush_chunk(fxs_replay_writer *rw)
{
	if (rw->ticks_in_chunk == 0)
		return FXS_REPLAY_OK;
	if (rw->payload_len > UINT32_MAX - CHUNK_HEAD - 8)
		return wfail(rw, FXS_REPLAY_CORRUPT, "chunk too large (use fewer ticks per chunk)");
	uint8_t head[CHUNK_HEAD];
	memcpy(head, CHUNK_MAGIC, 4);
	wr32(head + 4, rw->chunk_index);
	wr64(head + 8, rw->chunk_first_tick);
	wr32(head + 16, rw->ticks_in_chunk);
	wr32(head + 20, (uint32_t)rw->payload_len);
	XXH3_state_t *st = XXH3_createState();
	if (!st)
		return wfail(rw, FXS_REPLAY_NOMEM, "out of memory");
	XXH3_64bits_reset_withSeed(st, rw->header_checksum);
	XXH3_64bits_update(st, head, CHUNK_HEAD);
	XXH3_64bits_update(st, rw->payload, rw->payload_len);
	uint8_t sum[8];
	wr64(sum, (uint64_t)XXH3_64bits_digest(st));
	XXH3_freeState(st);
	if (fwrite(head, 1, CHUNK_HEAD, rw->f) != CHUNK_HEAD ||
	    fwrite(rw->payload, 1, rw->payload_len, rw->f) != rw->payload_len || !write_durable(rw->f, sum, 8))
		return wfail(rw, FXS_REPLAY_IO, "cannot write a chunk");
	rw->chunk_index++;
	rw->chunk_first_tick += rw->ticks_in_chunk;
	rw->ticks_in_chunk = 0;
	rw->payload_len = 0;
	return FXS_REPLAY_OK;
}

fxs_replay_status fxs_replay_writer_tick(fxs_replay_writer *rw, const fxs_input *inputs, const fxs_world *w)
{
	if (rw->failed)
		return FXS_REPLAY_IO;
	size_t rec = (size_t)rw->players * FXS_INPUT_SIZE + 8;
	if (!grow(&rw->payload, &rw->payload_cap, rw->payload_len + rec + 4))
		return wfail(rw, FXS_REPLAY_NOMEM, "out of memory");
	for (uint32_t p = 0; p < rw->players; ++p)
		fxs_input_write(&inputs[p], rw->payload + rw->payload_len + (size_t)p * FXS_INPUT_SIZE);
	rw->last_hash = fxs_world_hash(w);
	wr64(rw->payload + rw->payload_len + rec - 8, rw->last_hash);
	rw->payload_len += rec;
	if (rw->flags & FXS_REPLAY_FLAG_DETAIL) {
		size_t cur_len = 0, dlen = 0, dcap = 0;
		uint8_t *delta = NULL;
		if (!snapshot_into(w, &rw->cur, &rw->cur_cap, &cur_len) ||
		    !fxs_delta_encode(rw->prev, rw->prev_len, rw->cur, cur_len, &delta, &dlen, &dcap) ||
		    !grow(&rw->payload, &rw->payload_cap, rw->payload_len + 4 + dlen)) {
			free(delta);
			return wfail(rw, FXS_REPLAY_NOMEM, "out of memory");
		}
		wr32(rw->payload + rw->payload_len, (uint32_t)dlen);
		memcpy(rw->payload + rw->payload_len + 4, delta, dlen);
		rw->payload_len += 4 + dlen;
		free(delta);
		uint8_t *t = rw->prev;
		size_t tc = rw->prev_cap;
		rw->prev = rw->cur;
		rw->prev_cap = rw->cur_cap;
		rw->prev_len = cur_len;
		rw->cur = t;
		rw->cur_cap = tc;
	}
	rw->next_tick++;
	if (++rw->ticks_in_chunk == rw->chunk_ticks)
		return flush_chunk(rw);
	return FXS_REPLAY_OK;
}

static void writer_release(fxs_replay_writer *rw)
{
	free(rw->payload);
	free(rw->prev);
	free(rw->cur);
	rw->payload = rw->prev = rw->cur = NULL;
}

fxs_replay_status fxs_replay_writer_close(fxs_replay_writer *rw)
{
	fxs_replay_status s = rw->failed ? FXS_REPLAY_IO : flush_chunk(rw);
	if (s == FXS_REPLAY_OK) {
		uint8_t end[END_SIZE];
		memcpy(end, END_MAGIC, 4);
		wr32(end + 4, rw->chunk_index);
		wr64(end + 8, rw->next_tick - 1 - rw->start_tick);
		wr64(end + 16, rw->last_hash);
		wr64(end + 24, (uint64_t)XXH3_64bits_withSeed(end, 24, rw->header_checksum));
		if (!write_durable(rw->f, end, END_SIZE))
			s = wfail(rw, FXS_REPLAY_IO, "cannot write the end record");
	}
	if (rw->f && fclose(rw->f) != 0 && s == FXS_REPLAY_OK)
		s = wfail(rw, FXS_REPLAY_IO, "cannot close the file");
	rw->f = NULL;
	writer_release(rw);
	return s;
}

void fxs_replay_writer_abandon(fxs_replay_writer *rw)
{
	if (rw->f)
		fclose(rw->f);
	rw->f = NULL;
	writer_release(rw);
}

/* ---- checksum repair (tests, fuzzer) ---- */

void fxs_replay_fix_checksums(uint8_t *buf, size_t len)
{
	if (len < HEADER_FIXED || memcmp(buf, MAGIC, 8) != 0)
		return;
	uint32_t name_len = rd32(buf + 44);
	if (name_len > len - HEADER_FIXED || len - HEADER_FIXED - name_len < 8)
		return;
	size_t pos = HEADER_FIXED + name_len;
	uint64_t snap = rd64(buf + pos);
	pos += 8;
	if (snap > len - pos || len - pos - snap < 8)
		return;
	pos += (size_t)snap;
	uint64_t hs = (uint64_t)XXH3_64bits(buf, pos);
	wr64(buf + pos, hs);
	pos += 8;
	while (len - pos >= 4) {
		if (memcmp(buf + pos, END_MAGIC, 4) == 0) {
			if (len - pos >= END_SIZE)
				wr64(buf + pos + 24, (uint64_t)XXH3_64bits_withSeed(buf + pos, 24, hs));
			return;
		}
		if (len - pos < CHUNK_HEAD)
			return;
		uint32_t plen = rd32(buf + pos + 20);
		if ((uint64_t)plen + CHUNK_HEAD + 8 > len - pos)
			return;
		wr64(buf + pos + CHUNK_HEAD + plen, (uint64_t)XXH3_64bits_withSeed(buf + pos, CHUNK_HEAD + (size_t)plen, hs));
		pos += CHUNK_HEAD + (size_t)plen + 8;
	}
}
