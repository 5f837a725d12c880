/* The replay container: reading (untrusted), writing (crash-safe), detail
 * deltas. The layout is in docs/replay-format.md; every integer is little-endian
 * and goes through the kernel's explicit writer and bounds-checked reader. */
#define _POSIX_C_SOURCE 200809L
#include "fixstep/replay.h"
#include "replay_calls.h"
#include "state/serialize.h"
#include "world/call_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#define MAGIC "FXSREPLY"
#define CHUNK_MAGIC "FXSC"
#define END_MAGIC "FXSE"
#define HEADER_FIXED_V1 48u /* through the scene name length */
#define HEADER_FIXED_V2 52u /* through the name length (the mode before it) */
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
	case FXS_REPLAY_BAD_START: return "not the expected start";
	case FXS_REPLAY_DIVERGED: return "diverged";
	case FXS_REPLAY_REFUSED: return "not accepted by the verifier";
	case FXS_REPLAY_NO_HANDLER: return "no input handler";
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

/* ---- reading, chunk by chunk ---- */

static fxs_replay_status fail(fxs_replay_reader *r, fxs_replay_status s, uint64_t off, const char *fmt, ...)
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

/* INPUTS mode: the input bytes then the hash */
static size_t tick_record_size(uint32_t players, uint32_t input_size) { return (size_t)players * input_size + 8; }

/* The size of the tick record at p (in a checked chunk) up to and with its
 * hash: INPUTS fixed, CALLS: call count, calls length, calls, hash. */
static size_t record_size(uint32_t mode, uint32_t players, uint32_t input_size, const uint8_t *p)
{
	return mode == FXS_REPLAY_MODE_CALLS ? 8 + (size_t)rd32(p + 4) + 8 : tick_record_size(players, input_size);
}

static bool valid_scene_char(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		c == '.';
}

/* Up to n bytes into buf; fewer only at the end of the input (or an I/O
 * error, which is then the reader's status). */
static size_t src_read(fxs_replay_reader *r, uint8_t *buf, size_t n)
{
	size_t got = 0;
	if (r->f) {
		while (got < n) {
			size_t k = fread(buf + got, 1, n - got, r->f);
			if (k == 0)
				break;
			got += k;
		}
		if (got < n && ferror(r->f))
			fail(r, FXS_REPLAY_IO, r->pos + got, "cannot read the file: %s", strerror(errno));
	} else {
		got = r->mem_len - r->mem_pos < n ? r->mem_len - r->mem_pos : n;
		if (got)
			memcpy(buf, r->mem + r->mem_pos, got);
		r->mem_pos += got;
	}
	r->pos += got;
	return got;
}

/* n more bytes at (*buf)[at], the buffer grown only as they arrive (a
 * length read from the file allocates nothing the file does not hold).
 * The bytes read; fewer than n at the end of the input; SIZE_MAX when out
 * of memory (the status says so). */
static size_t read_grow(fxs_replay_reader *r, uint8_t **buf, size_t *cap, size_t at, size_t n)
{
	size_t got = 0;
	while (got < n) {
		size_t piece = n - got, have = *cap > at + got ? *cap - at - got : 0;
		if (have == 0) {
			size_t want = at + got + (piece < ((size_t)1 << 16) ? piece : ((size_t)1 << 16));
			want = want > *cap * 2 ? want : (*cap * 2 < at + n ? *cap * 2 : at + n);
			if (!grow(buf, cap, want)) {
				fail(r, FXS_REPLAY_NOMEM, r->pos, "out of memory reading %zu bytes at offset %llu", n,
				     (unsigned long long)r->pos);
				return SIZE_MAX;
			}
			have = *cap - at - got;
		}
		size_t k = src_read(r, *buf + at + got, piece < have ? piece : have);
		got += k;
		if (k < (piece < have ? piece : have))
			break;
	}
	return got;
}

#define TRUNC_HEADER(r, n) fail(r, FXS_REPLAY_TRUNCATED, n, "truncated: the file ends inside the header (%llu bytes)", \
				(unsigned long long)(n))

static fxs_replay_status read_header(fxs_replay_reader *r)
{
	size_t cap = 0, n = read_grow(r, &r->header, &cap, 0, 12);
	const uint8_t *d = r->header;
	if (n == SIZE_MAX || r->status != FXS_REPLAY_OK)
		return r->status;
	if (n < 8 || memcmp(d, MAGIC, 8) != 0) {
		if (n < 8 && memcmp(d, MAGIC, n) == 0)
			return TRUNC_HEADER(r, n);
		return fail(r, FXS_REPLAY_BAD_MAGIC, 0, "not a fixstep replay (bad magic)");
	}
	if (n < 12)
		return TRUNC_HEADER(r, n);
	r->format_version = rd32(d + 8);
	if (r->format_version != 1 && r->format_version != FXS_REPLAY_FORMAT_VERSION)
		return fail(r, FXS_REPLAY_VERSION, 8, "unknown version: format version %u (this build reads 1 and %u)",
			    r->format_version, FXS_REPLAY_FORMAT_VERSION);
	bool v1 = r->format_version == 1;
	const size_t HEADER_FIXED = v1 ? HEADER_FIXED_V1 : HEADER_FIXED_V2;
	size_t k = read_grow(r, &r->header, &cap, 12, HEADER_FIXED - 12);
	if (k == SIZE_MAX)
		return r->status;
	if (k < HEADER_FIXED - 12)
		return TRUNC_HEADER(r, 12 + k);
	d = r->header;
	r->kernel_version = rd32(d + 12);
	r->numeric = rd32(d + 16);
	r->flags = rd32(d + 20);
	r->players = rd32(d + 24);
	r->chunk_ticks = rd32(d + 28);
	r->input_size = rd32(d + 32);
	r->start_tick = rd64(d + 36);
	r->mode = v1 ? FXS_REPLAY_MODE_INPUTS : rd32(d + 44);
	uint32_t name_len = rd32(d + HEADER_FIXED - 4);
	if (r->numeric != NUMERIC)
		return fail(r, FXS_REPLAY_VERSION, 16, "unknown version: numeric configuration 0x%x (this build is 0x%x)",
			    r->numeric, NUMERIC);
	if (name_len < (v1 ? 1u : 0u) || name_len > FXS_REPLAY_MAX_SCENE_NAME)
		return fail(r, FXS_REPLAY_CORRUPT, HEADER_FIXED - 4, "corrupt header: name length %u", name_len);
	k = read_grow(r, &r->header, &cap, HEADER_FIXED, name_len + 8u);
	if (k == SIZE_MAX)
		return r->status;
	if (k < name_len + 8u)
		return TRUNC_HEADER(r, HEADER_FIXED + k);
	d = r->header;
	memcpy(r->scene, d + HEADER_FIXED, name_len);
	r->scene[name_len] = 0;
	uint64_t snap_len = rd64(d + HEADER_FIXED + name_len);
	r->snapshot_off = HEADER_FIXED + name_len + 8;
	if (snap_len > FXS_REPLAY_MAX_SNAPSHOT_BYTES)
		return fail(r, FXS_REPLAY_CORRUPT, r->snapshot_off - 8,
			    "corrupt header: a start snapshot of %llu bytes (the format's limit is %zu)",
			    (unsigned long long)snap_len, FXS_REPLAY_MAX_SNAPSHOT_BYTES);
	r->snapshot_len = (size_t)snap_len;
	k = read_grow(r, &r->header, &cap, r->snapshot_off, r->snapshot_len + 8);
	if (k == SIZE_MAX)
		return r->status;
	if (k < r->snapshot_len + 8)
		return TRUNC_HEADER(r, r->snapshot_off + k);
	d = r->header;
	r->header_size = r->snapshot_off + r->snapshot_len + 8;
	uint64_t sum = rd64(d + r->header_size - 8);
	r->header_checksum = (uint64_t)XXH3_64bits(d, r->header_size - 8);
	if (sum != r->header_checksum)
		return fail(r, FXS_REPLAY_CHECKSUM, r->header_size - 8,
			    "bad checksum: header (stored %016llx, computed %016llx)", (unsigned long long)sum,
			    (unsigned long long)r->header_checksum);
	for (uint32_t i = 0; i < name_len; ++i)
		if (!valid_scene_char((uint8_t)r->scene[i]))
			return fail(r, FXS_REPLAY_CORRUPT, HEADER_FIXED + i, "corrupt header: scene name has byte 0x%02x",
				    (uint8_t)r->scene[i]);
	if (r->flags & ~FXS_REPLAY_KNOWN_FLAGS)
		return fail(r, FXS_REPLAY_VERSION, 20, "unknown version: flags 0x%x", r->flags);
	if (r->mode != FXS_REPLAY_MODE_INPUTS && r->mode != FXS_REPLAY_MODE_CALLS)
		return fail(r, FXS_REPLAY_VERSION, 44, "unknown version: mode %u", r->mode);
	uint32_t max_players = v1 ? FXS_MAX_PLAYERS : FXS_REPLAY_MAX_PLAYERS;
	if (r->mode == FXS_REPLAY_MODE_CALLS) {
		if (r->players != 0 || r->input_size != 0)
			return fail(r, FXS_REPLAY_CORRUPT, 24, "corrupt header: a calls replay with %u players of %u bytes",
				    r->players, r->input_size);
	} else if (r->players < 1 || r->players > max_players) {
		return fail(r, FXS_REPLAY_CORRUPT, 24, "corrupt header: %u players (1..%u)", r->players, max_players);
	}
	if (r->chunk_ticks < 1 || r->chunk_ticks > FXS_REPLAY_MAX_CHUNK_TICKS)
		return fail(r, FXS_REPLAY_CORRUPT, 28, "corrupt header: %u ticks per chunk (1..%u)", r->chunk_ticks,
			    FXS_REPLAY_MAX_CHUNK_TICKS);
	if (v1 && r->input_size != FXS_INPUT_SIZE)
		return fail(r, FXS_REPLAY_CORRUPT, 32, "corrupt header: input record of %u bytes (format 1: %u)",
			    r->input_size, FXS_INPUT_SIZE);
	if (r->mode == FXS_REPLAY_MODE_INPUTS && (r->input_size < 1 || r->input_size > FXS_REPLAY_MAX_INPUT_SIZE))
		return fail(r, FXS_REPLAY_CORRUPT, 32, "corrupt header: input record of %u bytes (1..%u)", r->input_size,
			    FXS_REPLAY_MAX_INPUT_SIZE);
	if (r->start_tick > UINT64_MAX / 2)
		return fail(r, FXS_REPLAY_CORRUPT, 36, "corrupt header: start tick %llu", (unsigned long long)r->start_tick);
	r->header_valid = true;
	if (r->flags & FXS_REPLAY_FLAG_DETAIL) {
		/* the recorded states start from the start snapshot */
		if (!grow(&r->state, &r->state_cap, r->snapshot_len ? r->snapshot_len : 1))
			return fail(r, FXS_REPLAY_NOMEM, r->pos, "out of memory");
		memcpy(r->state, d + r->snapshot_off, r->snapshot_len);
		r->state_len = r->snapshot_len;
	}
	return FXS_REPLAY_OK;
}

static void reader_init(fxs_replay_reader *r)
{
	memset(r, 0, sizeof *r);
}

fxs_replay_status fxs_replay_open(fxs_replay_reader *r, const char *path)
{
	if (!r)
		return FXS_REPLAY_IO;
	reader_init(r);
	if (!path)
		return fail(r, FXS_REPLAY_IO, 0, "cannot open the file: no path");
	r->f = fopen(path, "rb");
	if (!r->f)
		return fail(r, FXS_REPLAY_IO, 0, "cannot open the file: %s", strerror(errno));
	struct stat st;
	if (fstat(fileno(r->f), &st) == 0 && S_ISDIR(st.st_mode))
		return fail(r, FXS_REPLAY_IO, 0, "cannot read the file: %s", strerror(EISDIR));
	if (fstat(fileno(r->f), &st) == 0 && S_ISREG(st.st_mode))
		r->file_size = (uint64_t)st.st_size;
	return read_header(r);
}

fxs_replay_status fxs_replay_open_memory(fxs_replay_reader *r, const void *buf, size_t len)
{
	if (!r)
		return FXS_REPLAY_IO;
	reader_init(r);
	if (!buf && len)
		return fail(r, FXS_REPLAY_IO, 0, "no buffer");
	r->mem = buf;
	r->mem_len = len;
	r->file_size = len;
	return read_header(r);
}

void fxs_replay_close(fxs_replay_reader *r)
{
	if (!r)
		return;
	if (r->f)
		fclose(r->f);
	free(r->header);
	free(r->chunk);
	free(r->state);
	free(r->state_tmp);
	memset(r, 0, sizeof *r);
}

/* The end record (its magic read, at offset pos). */
static void read_end(fxs_replay_reader *r, uint64_t pos)
{
	uint8_t e[END_SIZE];
	memcpy(e, END_MAGIC, 4);
	size_t got = src_read(r, e + 4, END_SIZE - 4);
	if (r->status != FXS_REPLAY_OK)
		return;
	if (got < END_SIZE - 4) {
		fail(r, FXS_REPLAY_TRUNCATED, pos, "truncated: partial end record at offset %llu", (unsigned long long)pos);
		return;
	}
	uint64_t sum = rd64(e + 24);
	if (sum != (uint64_t)XXH3_64bits_withSeed(e, 24, r->header_checksum)) {
		fail(r, FXS_REPLAY_CHECKSUM, pos, "bad checksum: end record at offset %llu", (unsigned long long)pos);
		return;
	}
	uint32_t chunks = rd32(e + 4);
	uint64_t ticks = rd64(e + 8), final = rd64(e + 16);
	if (chunks != r->chunk_count || ticks != r->tick_count) {
		fail(r, FXS_REPLAY_CORRUPT, pos, "corrupt: end record says %u chunks and %llu ticks, the file has %u and %llu",
		     chunks, (unsigned long long)ticks, r->chunk_count, (unsigned long long)r->tick_count);
		return;
	}
	if (r->tick_count && final != r->last_hash) {
		fail(r, FXS_REPLAY_CORRUPT, pos + 16, "corrupt: end record's final hash differs from the last tick's");
		return;
	}
	uint8_t more;
	if (src_read(r, &more, 1) != 0) {
		fail(r, FXS_REPLAY_CORRUPT, pos + END_SIZE, "corrupt: trailing bytes after the end record (offset %llu)",
		     (unsigned long long)(pos + END_SIZE));
		return;
	}
	if (r->status != FXS_REPLAY_OK)
		return;
	r->end_final_hash = final;
	r->complete = true;
}

/* The next chunk into r->chunk, checked (its magic read, at offset pos). */
static bool read_chunk(fxs_replay_reader *r, uint64_t pos)
{
	uint8_t *c;
	size_t got = read_grow(r, &r->chunk, &r->chunk_cap, 4, CHUNK_HEAD - 4);
	if (got == SIZE_MAX || r->status != FXS_REPLAY_OK)
		return false;
	if (got < CHUNK_HEAD - 4) {
		fail(r, FXS_REPLAY_TRUNCATED, pos, "truncated: partial chunk %u at offset %llu (%zu of its head's %u bytes)",
		     r->chunk_count, (unsigned long long)pos, got + 4, CHUNK_HEAD);
		return false;
	}
	c = r->chunk;
	memcpy(c, CHUNK_MAGIC, 4);
	uint32_t index = rd32(c + 4), ticks = rd32(c + 16), plen = rd32(c + 20);
	uint64_t first = rd64(c + 8);
	if (plen > FXS_REPLAY_MAX_CHUNK_BYTES) {
		/* past the end of the file: a chunk cut short (a killed recorder) */
		if (r->file_size && pos + CHUNK_HEAD + (uint64_t)plen + 8 > r->file_size)
			fail(r, FXS_REPLAY_TRUNCATED, pos, "truncated: partial chunk %u at offset %llu (%llu of %llu bytes)",
			     r->chunk_count, (unsigned long long)pos, (unsigned long long)(r->file_size - pos),
			     (unsigned long long)plen + CHUNK_HEAD + 8);
		else
			fail(r, FXS_REPLAY_CORRUPT, pos + 20, "corrupt: chunk %u of %u bytes (the format's limit is %zu)",
			     r->chunk_count, plen, FXS_REPLAY_MAX_CHUNK_BYTES);
		return false;
	}
	/* Where the header fixes the payload's size (inputs without per-tick
	 * states: ticks x the record), a chunk of another size is refused
	 * before its payload is read: a lying length costs nothing. */
	if (r->mode == FXS_REPLAY_MODE_INPUTS && !(r->flags & FXS_REPLAY_FLAG_DETAIL)) {
		if (ticks < 1 || ticks > r->chunk_ticks) {
			fail(r, FXS_REPLAY_CORRUPT, pos + 16, "corrupt: chunk %u has %u ticks (1..%u)", r->chunk_count, ticks,
			     r->chunk_ticks);
			return false;
		}
		uint64_t want = (uint64_t)ticks * tick_record_size(r->players, r->input_size);
		if (plen != want) {
			fail(r, FXS_REPLAY_CORRUPT, pos + 20,
			     "corrupt: chunk %u says %u payload bytes, and its %u ticks of %u players x %u bytes take %llu",
			     r->chunk_count, plen, ticks, r->players, r->input_size, (unsigned long long)want);
			return false;
		}
	}
	got = read_grow(r, &r->chunk, &r->chunk_cap, CHUNK_HEAD, (size_t)plen + 8);
	if (got == SIZE_MAX || r->status != FXS_REPLAY_OK)
		return false;
	if (got < (size_t)plen + 8) {
		fail(r, FXS_REPLAY_TRUNCATED, pos, "truncated: partial chunk %u at offset %llu (%llu of %llu bytes)",
		     r->chunk_count, (unsigned long long)pos, (unsigned long long)got + CHUNK_HEAD,
		     (unsigned long long)plen + CHUNK_HEAD + 8);
		return false;
	}
	c = r->chunk;
	size_t size = CHUNK_HEAD + (size_t)plen + 8;
	uint64_t sum = rd64(c + CHUNK_HEAD + plen);
	uint64_t calc = (uint64_t)XXH3_64bits_withSeed(c, CHUNK_HEAD + (size_t)plen, r->header_checksum);
	if (sum != calc) {
		fail(r, FXS_REPLAY_CHECKSUM, pos, "bad checksum: chunk %u at offset %llu (stored %016llx, computed %016llx)",
		     r->chunk_count, (unsigned long long)pos, (unsigned long long)sum, (unsigned long long)calc);
		return false;
	}
	if (r->short_seen) {
		fail(r, FXS_REPLAY_CORRUPT, pos, "corrupt: chunk %u follows a partial chunk", r->chunk_count);
		return false;
	}
	if (index != r->chunk_count) {
		fail(r, FXS_REPLAY_CORRUPT, pos + 4, "corrupt: chunk %u has index %u", r->chunk_count, index);
		return false;
	}
	uint64_t want_first = r->start_tick + r->tick_count + 1;
	if (first != want_first) {
		fail(r, FXS_REPLAY_CORRUPT, pos + 8, "corrupt: chunk %u starts at tick %llu, expected %llu", r->chunk_count,
		     (unsigned long long)first, (unsigned long long)want_first);
		return false;
	}
	if (ticks < 1 || ticks > r->chunk_ticks) {
		fail(r, FXS_REPLAY_CORRUPT, pos + 16, "corrupt: chunk %u has %u ticks (1..%u)", r->chunk_count, ticks,
		     r->chunk_ticks);
		return false;
	}
	bool calls = r->mode == FXS_REPLAY_MODE_CALLS;
	size_t rec = calls ? 16 : tick_record_size(r->players, r->input_size); /* CALLS: the least */
	if ((uint64_t)ticks * rec > plen) {
		fail(r, FXS_REPLAY_CORRUPT, pos + 20, "corrupt: chunk %u payload of %u bytes cannot hold %u ticks",
		     r->chunk_count, plen, ticks);
		return false;
	}
	/* the records must fill the payload exactly */
	size_t p = CHUNK_HEAD, end = CHUNK_HEAD + plen;
	bool detail = (r->flags & FXS_REPLAY_FLAG_DETAIL) != 0;
	for (uint32_t t = 0; t < ticks && p <= end; ++t) {
		if (rec > end - p) {
			p = end + 1;
			break;
		}
		if (calls) {
			uint32_t count = rd32(c + p), len = rd32(c + p + 4);
			if (len > end - p - 16) {
				p = end + 1;
				break;
			}
			size_t bad = 0;
			char why[120];
			if (!fxs_calls_check(c + p + 8, len, count, &bad, why, sizeof why)) {
				fail(r, FXS_REPLAY_CORRUPT, pos + p + 8 + bad, "corrupt: tick %llu, at offset %llu: %s",
				     (unsigned long long)(first + t), (unsigned long long)(pos + p + 8 + bad), why);
				return false;
			}
			p += 16 + (size_t)len;
		} else {
			p += rec;
		}
		if (detail) {
			if (end - p < 4 || rd32(c + p) > end - p - 4) {
				p = end + 1;
				break;
			}
			p += 4 + (size_t)rd32(c + p);
		}
	}
	if (p != end) {
		fail(r, FXS_REPLAY_CORRUPT, pos + CHUNK_HEAD, "corrupt: chunk %u payload does not match its %u ticks",
		     r->chunk_count, ticks);
		return false;
	}
	r->cur = (fxs_replay_chunk){ (size_t)pos, size, index, first, ticks, sum };
	r->cur_next = 0;
	r->cur_off = CHUNK_HEAD;
	r->chunk_count++;
	if (ticks < r->chunk_ticks)
		r->short_seen = true;
	return true;
}

/* The state hash a snapshot holds, as fxs_world_hash computes it; false
 * when it is not a snapshot or fails its own checksum. */
static bool snapshot_state_hash(const uint8_t *s, size_t len, uint64_t *hash)
{
	return fxs_snapshot_state_hash(s, len, hash) == FXS_OK;
}

/* Tick record at r->cur_off of the current chunk into *t; with DETAIL, the
 * recorded state rebuilt and checked against the tick's hash. */
static bool take_tick(fxs_replay_reader *r, fxs_replay_tick *t)
{
	const uint8_t *p = r->chunk + r->cur_off;
	memset(t, 0, sizeof *t);
	t->index = r->tick_count;
	t->number = r->start_tick + r->tick_count + 1;
	t->offset = r->cur.offset + r->cur_off;
	t->first_of_chunk = r->cur_next == 0;
	t->mode = r->mode;
	t->players = r->players;
	bool fx = r->input_size == FXS_INPUT_SIZE;
	for (uint32_t k = 0; k < FXS_MAX_PLAYERS; ++k)
		t->inputs[k] = fx && k < r->players ? fxs_input_read(p + (size_t)k * FXS_INPUT_SIZE) : fxs_input_neutral();
	size_t size = record_size(r->mode, r->players, r->input_size, p);
	if (r->mode == FXS_REPLAY_MODE_CALLS) {
		t->call_count = rd32(p);
		t->calls = p + 8;
		t->calls_len = rd32(p + 4);
	} else {
		t->input = p;
		t->input_len = (size_t)r->players * r->input_size;
	}
	t->hash = rd64(p + size - 8);
	size_t next = r->cur_off + size;
	if (r->flags & FXS_REPLAY_FLAG_DETAIL) {
		uint32_t dl = rd32(r->chunk + next); /* checked with the chunk */
		size_t len = 0;
		fxs_replay_status s = fxs_delta_decode(r->state, r->state_len, r->chunk + next + 4, dl, &r->state_tmp, &len,
						       &r->state_tmp_cap);
		uint64_t h = 0;
		if (s == FXS_REPLAY_NOMEM) {
			fail(r, s, t->offset, "out of memory decoding the recorded state of tick %llu", (unsigned long long)t->number);
			return false;
		}
		if (s != FXS_REPLAY_OK || !snapshot_state_hash(r->state_tmp, len, &h) || h != t->hash) {
			fail(r, FXS_REPLAY_CORRUPT, t->offset,
			     s != FXS_REPLAY_OK ? "corrupt: the recorded state of tick %llu does not decode"
						: "corrupt: the recorded state of tick %llu does not hash to the tick's recorded hash",
			     (unsigned long long)t->number);
			return false;
		}
		uint8_t *x = r->state;
		size_t xc = r->state_cap;
		r->state = r->state_tmp, r->state_cap = r->state_tmp_cap, r->state_len = len;
		r->state_tmp = x, r->state_tmp_cap = xc;
		t->state = r->state;
		t->state_len = r->state_len;
		next += 4 + (size_t)dl;
	}
	r->cur_off = next;
	r->cur_next++;
	r->tick_count++;
	r->last_hash = t->hash;
	return true;
}

bool fxs_replay_next(fxs_replay_reader *r, fxs_replay_tick *t)
{
	if (!r)
		return false;
	if (!t) {
		fail(r, FXS_REPLAY_IO, r->pos, "fxs_replay_next: no tick to fill");
		return false;
	}
	if (!r->header_valid || r->status != FXS_REPLAY_OK || r->complete)
		return false;
	while (r->cur_next == r->cur.ticks) {
		uint64_t pos = r->pos;
		uint8_t magic[4];
		size_t got = src_read(r, magic, 4);
		if (r->status != FXS_REPLAY_OK)
			return false;
		if (got == 0) {
			fail(r, FXS_REPLAY_TRUNCATED, pos,
			     "truncated: no end record after %u complete chunks (the recording did not finish)", r->chunk_count);
			return false;
		}
		if (got < 4) {
			fail(r, FXS_REPLAY_TRUNCATED, pos, "truncated: partial chunk %u at offset %llu", r->chunk_count,
			     (unsigned long long)pos);
			return false;
		}
		if (memcmp(magic, END_MAGIC, 4) == 0) {
			read_end(r, pos);
			return false;
		}
		if (memcmp(magic, CHUNK_MAGIC, 4) != 0) {
			fail(r, FXS_REPLAY_CORRUPT, pos, "corrupt: no chunk at offset %llu (bad chunk magic)", (unsigned long long)pos);
			return false;
		}
		if (!grow(&r->chunk, &r->chunk_cap, CHUNK_HEAD)) {
			fail(r, FXS_REPLAY_NOMEM, pos, "out of memory");
			return false;
		}
		if (!read_chunk(r, pos))
			return false;
	}
	return take_tick(r, t);
}

/* ---- a whole replay in memory ---- */

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

static fxs_replay_status mem_fail(fxs_replay *r, fxs_replay_status s, const char *msg)
{
	if (r->status == FXS_REPLAY_OK) {
		r->status = s;
		snprintf(r->error, sizeof r->error, "%s", msg);
	}
	return r->status;
}

fxs_replay_status fxs_replay_parse(fxs_replay *r, const void *buf, size_t len)
{
	if (!r)
		return FXS_REPLAY_IO;
	memset(r, 0, sizeof *r);
	if (!buf && len)
		return mem_fail(r, FXS_REPLAY_IO, "no buffer");
	r->data = malloc(len ? len : 1);
	if (!r->data)
		return mem_fail(r, FXS_REPLAY_NOMEM, "out of memory");
	if (len)
		memcpy(r->data, buf, len);
	r->len = len;
	fxs_replay_reader rd;
	fxs_replay_open_memory(&rd, r->data, len);
	r->format_version = rd.format_version, r->kernel_version = rd.kernel_version, r->numeric = rd.numeric;
	r->flags = rd.flags, r->players = rd.players, r->chunk_ticks = rd.chunk_ticks, r->start_tick = rd.start_tick;
	r->input_size = rd.input_size, r->mode = rd.mode;
	memcpy(r->scene, rd.scene, sizeof r->scene);
	r->header_valid = rd.header_valid;
	if (rd.header_valid) {
		r->snapshot_off = rd.snapshot_off, r->snapshot_len = rd.snapshot_len;
		r->header_size = rd.header_size, r->header_checksum = rd.header_checksum;
	}
	fxs_replay_tick t;
	/* a chunk's ticks are kept once the chunk is read and verified whole */
	while (fxs_replay_next(&rd, &t)) {
		if ((t.first_of_chunk && !push_chunk(r, &rd.cur)) || !push_tick(r, (size_t)t.offset)) {
			mem_fail(r, FXS_REPLAY_NOMEM, "out of memory");
			break;
		}
	}
	r->complete = rd.complete;
	r->end_final_hash = rd.end_final_hash;
	if (rd.status != FXS_REPLAY_OK && r->status == FXS_REPLAY_OK) {
		r->status = rd.status;
		r->error_offset = (size_t)rd.error_offset;
		memcpy(r->error, rd.error, sizeof r->error);
	}
	/* a chunk whose recorded states failed part-way: none of its ticks is
	 * kept (as for a chunk that failed its checksum) */
	if (r->status != FXS_REPLAY_OK && rd.cur_next < rd.cur.ticks && rd.cur_next > 0) {
		r->tick_count -= rd.cur_next;
		r->chunk_count--;
	}
	fxs_replay_close(&rd);
	return r->status;
}

fxs_replay_status fxs_replay_load(fxs_replay *r, const char *path)
{
	if (!r)
		return FXS_REPLAY_IO;
	memset(r, 0, sizeof *r);
	FILE *f = path ? fopen(path, "rb") : NULL;
	if (!f)
		return mem_fail(r, FXS_REPLAY_IO, "cannot open the file");
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
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
		return mem_fail(r, FXS_REPLAY_NOMEM, "out of memory");
	if (err) {
		free(buf);
		return mem_fail(r, FXS_REPLAY_IO, "cannot read the file");
	}
	fxs_replay_status s = fxs_replay_parse(r, buf, n);
	free(buf);
	return s;
}

void fxs_replay_free(fxs_replay *r)
{
	if (!r)
		return;
	free(r->data);
	free(r->chunks);
	free(r->tick_off);
	memset(r, 0, sizeof *r);
}

bool fxs_replay_header_ok(const fxs_replay *r) { return r && r->header_valid; }

void fxs_replay_tick_inputs(const fxs_replay *r, uint64_t i, fxs_input out[FXS_MAX_PLAYERS])
{
	if (!out)
		return;
	if (!r || i >= r->tick_count) { /* no such tick: neutral inputs */
		for (uint32_t k = 0; k < FXS_MAX_PLAYERS; ++k)
			out[k] = fxs_input_neutral();
		return;
	}
	const uint8_t *p = r->data + r->tick_off[i];
	bool fx = r->mode == FXS_REPLAY_MODE_INPUTS && r->input_size == FXS_INPUT_SIZE;
	for (uint32_t k = 0; k < FXS_MAX_PLAYERS; ++k)
		out[k] = fx && k < r->players ? fxs_input_read(p + (size_t)k * FXS_INPUT_SIZE) : fxs_input_neutral();
}

uint64_t fxs_replay_tick_hash(const fxs_replay *r, uint64_t i)
{
	if (!r || i >= r->tick_count)
		return 0;
	const uint8_t *p = r->data + r->tick_off[i];
	return rd64(p + record_size(r->mode, r->players, r->input_size, p) - 8);
}

uint64_t fxs_replay_tick_number(const fxs_replay *r, uint64_t i) { return r ? r->start_tick + i + 1 : 0; }

bool fxs_replay_get_tick(const fxs_replay *r, uint64_t i, fxs_replay_tick *t)
{
	if (!r || !t || i >= r->tick_count)
		return false;
	memset(t, 0, sizeof *t);
	const uint8_t *p = r->data + r->tick_off[i];
	t->index = i;
	t->number = fxs_replay_tick_number(r, i);
	t->offset = r->tick_off[i];
	t->mode = r->mode;
	t->players = r->players;
	fxs_replay_tick_inputs(r, i, t->inputs);
	if (r->mode == FXS_REPLAY_MODE_CALLS) {
		t->call_count = rd32(p);
		t->calls_len = rd32(p + 4);
		t->calls = p + 8;
	} else {
		t->input = p;
		t->input_len = (size_t)r->players * r->input_size;
	}
	t->hash = fxs_replay_tick_hash(r, i);
	return true;
}

/* ---- detail deltas ----
 * A delta rebuilds the new snapshot from the previous one:
 *   varint new_len, then (varint skip, varint lit, lit bytes) until new_len
 *   bytes are out: skip copies bytes from the previous snapshot at the same
 *   offset, lit takes bytes from the delta. Varints are LEB128, at most 5
 *   bytes, value < 2^32. */

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
	if (!out || !out_len || !out_cap || (!cur && cur_len) || (!prev && prev_len))
		return false;
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
	if (!out || !out_len || !out_cap || (!delta && delta_len) || (!prev && prev_len))
		return FXS_REPLAY_IO;
	size_t pos = 0;
	uint32_t n;
	/* the new snapshot can only be longer than the old one by bytes the
	 * delta carries: bound the allocation by what is there */
	if (!get_varint(delta, delta_len, &pos, &n) || n > prev_len + delta_len || n > FXS_REPLAY_MAX_SNAPSHOT_BYTES)
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
	if (!d)
		return FXS_REPLAY_IO;
	memset(d, 0, sizeof *d);
	if (!r || !r->header_valid)
		return FXS_REPLAY_IO;
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
	if (!r || !d || !d->snap)
		return FXS_REPLAY_IO;
	if (d->applied >= r->tick_count)
		return FXS_REPLAY_CORRUPT;
	size_t p = r->tick_off[d->applied];
	p += record_size(r->mode, r->players, r->input_size, r->data + p);
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
	if (!d)
		return;
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

/* an I/O failure, with the system's reason (errno as the failing call left it) */
static fxs_replay_status wfail_io(fxs_replay_writer *rw, const char *what)
{
	char msg[160];
	snprintf(msg, sizeof msg, "%s: %s", what, strerror(errno ? errno : EIO));
	return wfail(rw, FXS_REPLAY_IO, msg);
}

/* write, flush to the kernel and to the disk: after this the bytes survive
 * a kill -9 (and a power loss, as far as fsync promises) */
static bool write_durable(FILE *f, const void *p, size_t n)
{
	if (fwrite(p, 1, n, f) != n || fflush(f) != 0)
		return false;
	return fsync(fileno(f)) == 0;
}

/* w's snapshot into *buf: packed (the smallest), or unpacked for a DETAIL
 * replay, whose states are delta-coded at the same offsets tick to tick */
static bool snapshot_into(const fxs_world *w, uint8_t **buf, size_t *cap, size_t *len, bool unpacked)
{
	size_t n = unpacked ? fxs_world_snapshot_size_unpacked(w) : fxs_world_snapshot_size(w);
	if (!grow(buf, cap, n))
		return false;
	return (unpacked ? fxs_world_snapshot_save_unpacked(w, *buf, *cap, len) : fxs_world_snapshot_save(w, *buf, *cap, len)) ==
	       FXS_OK;
}

static bool valid_name(const char *name, size_t n)
{
	for (size_t i = 0; i < n; ++i)
		if (!valid_scene_char((uint8_t)name[i]))
			return false;
	return n <= FXS_REPLAY_MAX_SCENE_NAME;
}

static fxs_replay_status writer_open(fxs_replay_writer *rw, const char *path, const char *name, const fxs_world *w,
				     uint32_t mode, uint32_t players, uint32_t input_size, uint32_t chunk_ticks,
				     uint32_t flags)
{
	if (!rw)
		return FXS_REPLAY_IO;
	memset(rw, 0, sizeof *rw);
	if (chunk_ticks == 0)
		chunk_ticks = FXS_REPLAY_DEFAULT_CHUNK_TICKS;
	if (!name)
		name = "";
	size_t name_len = strlen(name);
	if (!path || !w)
		return wfail(rw, FXS_REPLAY_CORRUPT, "bad replay parameters: no path or no world");
	if (mode == FXS_REPLAY_MODE_INPUTS &&
	    (players < 1 || players > FXS_REPLAY_MAX_PLAYERS || input_size < 1 || input_size > FXS_REPLAY_MAX_INPUT_SIZE))
		return wfail(rw, FXS_REPLAY_CORRUPT,
			     "bad replay parameters: players 1..64 of 1..256 input bytes each (docs/replay-format.md)");
	if (chunk_ticks > FXS_REPLAY_MAX_CHUNK_TICKS || !valid_name(name, name_len) || (flags & ~FXS_REPLAY_KNOWN_FLAGS))
		return wfail(rw, FXS_REPLAY_CORRUPT,
			     "bad replay parameters: chunk ticks 0..4096, a name of [A-Za-z0-9_.-]{0,63}, known flags");
	rw->players = players;
	rw->input_size = input_size;
	rw->mode = mode;
	rw->chunk_ticks = chunk_ticks;
	rw->flags = flags;
	rw->start_tick = fxs_world_get_step(w);
	rw->next_tick = rw->start_tick + 1;
	rw->chunk_first_tick = rw->next_tick;
	if (!snapshot_into(w, &rw->prev, &rw->prev_cap, &rw->prev_len, (rw->flags & FXS_REPLAY_FLAG_DETAIL) != 0))
		return wfail(rw, FXS_REPLAY_NOMEM, "cannot snapshot the world");
	if (rw->prev_len > FXS_REPLAY_MAX_SNAPSHOT_BYTES)
		return wfail(rw, FXS_REPLAY_CORRUPT, "the world's snapshot is over the replay format's 1 GiB");
	fxs_writer h;
	fxs_writer_init_growable(&h);
	fxs_write_bytes(&h, MAGIC, 8);
	fxs_write_u32(&h, FXS_REPLAY_FORMAT_VERSION);
	fxs_write_u32(&h, FXS_VERSION);
	fxs_write_u32(&h, NUMERIC);
	fxs_write_u32(&h, flags);
	fxs_write_u32(&h, players);
	fxs_write_u32(&h, chunk_ticks);
	fxs_write_u32(&h, input_size);
	fxs_write_u64(&h, fxs_world_get_step(w));
	fxs_write_u32(&h, mode);
	fxs_write_u32(&h, (uint32_t)name_len);
	fxs_write_bytes(&h, name, name_len);
	fxs_write_u64(&h, rw->prev_len);
	fxs_write_bytes(&h, rw->prev, rw->prev_len);
	if (h.failed) {
		fxs_writer_free(&h);
		return wfail(rw, FXS_REPLAY_NOMEM, "out of memory");
	}
	rw->header_checksum = (uint64_t)XXH3_64bits(h.buf, h.len);
	fxs_write_u64(&h, rw->header_checksum);
	errno = 0;
	rw->f = fopen(path, "wb");
	if (!rw->f) {
		fxs_writer_free(&h);
		return wfail_io(rw, "cannot create the file");
	}
	errno = 0;
	bool ok = !h.failed && write_durable(rw->f, h.buf, h.len);
	fxs_writer_free(&h);
	if (!ok)
		return wfail_io(rw, "cannot write the header");
	return FXS_REPLAY_OK;
}

fxs_replay_status fxs_replay_writer_open(fxs_replay_writer *rw, const char *path, const char *name, const fxs_world *w,
					 uint32_t players, uint32_t input_size, uint32_t chunk_ticks, uint32_t flags)
{
	return writer_open(rw, path, name, w, FXS_REPLAY_MODE_INPUTS, players, input_size, chunk_ticks, flags);
}

fxs_replay_status fxs_replay_writer_open_calls(fxs_replay_writer *rw, const char *path, const char *name, fxs_world *w,
					       uint32_t chunk_ticks, uint32_t flags)
{
	if (!rw)
		return FXS_REPLAY_IO;
	fxs_replay_status s = writer_open(rw, path, name, w, FXS_REPLAY_MODE_CALLS, 0, 0, chunk_ticks, flags);
	if (s != FXS_REPLAY_OK)
		return s;
	if (!fxs_call_log_start(w))
		return wfail(rw, FXS_REPLAY_NOMEM, "out of memory starting the call log");
	rw->calls_world = w;
	return FXS_REPLAY_OK;
}

static fxs_replay_status flush_chunk(fxs_replay_writer *rw)
{
	if (rw->ticks_in_chunk == 0)
		return FXS_REPLAY_OK;
	if (rw->payload_len > FXS_REPLAY_MAX_CHUNK_BYTES)
		return wfail(rw, FXS_REPLAY_CORRUPT, "a chunk over the replay format's 1 GiB (use fewer ticks per chunk)");
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
	errno = 0;
	if (fwrite(head, 1, CHUNK_HEAD, rw->f) != CHUNK_HEAD ||
	    fwrite(rw->payload, 1, rw->payload_len, rw->f) != rw->payload_len || !write_durable(rw->f, sum, 8))
		return wfail_io(rw, "cannot write a chunk");
	rw->chunk_index++;
	rw->chunk_first_tick += rw->ticks_in_chunk;
	rw->ticks_in_chunk = 0;
	rw->payload_len = 0;
	return FXS_REPLAY_OK;
}

fxs_replay_status fxs_replay_writer_tick(fxs_replay_writer *rw, const uint8_t *inputs, const fxs_world *w)
{
	if (!rw || !rw->f)
		return FXS_REPLAY_IO;
	if (rw->failed)
		return FXS_REPLAY_IO;
	if (!w || (rw->mode == FXS_REPLAY_MODE_INPUTS && !inputs) ||
	    (rw->mode == FXS_REPLAY_MODE_CALLS && w != rw->calls_world))
		return wfail(rw, FXS_REPLAY_CORRUPT, "writer_tick: no inputs, or not the world the writer records");
	/* (CALLS: a recorded snapshot restore may have moved the step count) */
	if (rw->mode == FXS_REPLAY_MODE_INPUTS && fxs_world_get_step(w) != rw->next_tick)
		return wfail(rw, FXS_REPLAY_CORRUPT,
			     "writer_tick: the world did not take exactly one step since the last tick (call it after every step)");
	size_t rec;
	if (rw->mode == FXS_REPLAY_MODE_CALLS) {
		const fxs_call_log *log = fxs_call_log_of(rw->calls_world);
		if (!log || log->failed)
			return wfail(rw, FXS_REPLAY_NOMEM, "out of memory in the call log");
		if (log->len > FXS_REPLAY_MAX_CHUNK_BYTES)
			return wfail(rw, FXS_REPLAY_CORRUPT, "the calls of one tick are over the format's 1 GiB");
		rec = 8 + log->len + 8;
		if (!grow(&rw->payload, &rw->payload_cap, rw->payload_len + rec + 4))
			return wfail(rw, FXS_REPLAY_NOMEM, "out of memory");
		wr32(rw->payload + rw->payload_len, log->count);
		wr32(rw->payload + rw->payload_len + 4, (uint32_t)log->len);
		if (log->len)
			memcpy(rw->payload + rw->payload_len + 8, log->buf, log->len);
		fxs_call_log_clear(rw->calls_world);
	} else {
		rec = tick_record_size(rw->players, rw->input_size);
		if (!grow(&rw->payload, &rw->payload_cap, rw->payload_len + rec + 4))
			return wfail(rw, FXS_REPLAY_NOMEM, "out of memory");
		memcpy(rw->payload + rw->payload_len, inputs, rec - 8);
	}
	rw->last_hash = fxs_world_hash(w);
	wr64(rw->payload + rw->payload_len + rec - 8, rw->last_hash);
	rw->payload_len += rec;
	if (rw->flags & FXS_REPLAY_FLAG_DETAIL) {
		size_t cur_len = 0, dlen = 0, dcap = 0;
		uint8_t *delta = NULL;
		if (!snapshot_into(w, &rw->cur, &rw->cur_cap, &cur_len, true))
			return wfail(rw, FXS_REPLAY_NOMEM, "out of memory");
		if (cur_len > FXS_REPLAY_MAX_SNAPSHOT_BYTES)
			return wfail(rw, FXS_REPLAY_CORRUPT, "the world's snapshot is over the replay format's 1 GiB");
		if (!fxs_delta_encode(rw->prev, rw->prev_len, rw->cur, cur_len, &delta, &dlen, &dcap) ||
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
	if (rw->calls_world)
		fxs_call_log_stop(rw->calls_world);
	rw->calls_world = NULL;
	free(rw->payload);
	free(rw->prev);
	free(rw->cur);
	rw->payload = rw->prev = rw->cur = NULL;
}

fxs_replay_status fxs_replay_writer_tick_inputs(fxs_replay_writer *rw, const fxs_input *inputs, const fxs_world *w)
{
	uint8_t b[FXS_MAX_PLAYERS * FXS_INPUT_SIZE];
	if (!rw || !rw->f)
		return FXS_REPLAY_IO;
	if (rw->failed)
		return FXS_REPLAY_IO;
	if (!inputs || rw->input_size != FXS_INPUT_SIZE || rw->players > FXS_MAX_PLAYERS)
		return wfail(rw, FXS_REPLAY_CORRUPT, "writer_tick_inputs: the replay's inputs are not fxs_input records");
	for (uint32_t p = 0; p < rw->players; ++p)
		fxs_input_write(&inputs[p], b + (size_t)p * FXS_INPUT_SIZE);
	return fxs_replay_writer_tick(rw, b, w);
}

fxs_replay_status fxs_replay_writer_close(fxs_replay_writer *rw)
{
	if (!rw)
		return FXS_REPLAY_IO;
	if (!rw->f && !rw->failed) /* never opened, or closed already */
		return FXS_REPLAY_IO;
	fxs_replay_status s = rw->failed ? FXS_REPLAY_IO : flush_chunk(rw);
	if (s == FXS_REPLAY_OK) {
		uint8_t end[END_SIZE];
		memcpy(end, END_MAGIC, 4);
		wr32(end + 4, rw->chunk_index);
		wr64(end + 8, rw->next_tick - 1 - rw->start_tick);
		wr64(end + 16, rw->last_hash);
		wr64(end + 24, (uint64_t)XXH3_64bits_withSeed(end, 24, rw->header_checksum));
		errno = 0;
		if (!write_durable(rw->f, end, END_SIZE))
			s = wfail_io(rw, "cannot write the end record");
	}
	errno = 0;
	if (rw->f && fclose(rw->f) != 0 && s == FXS_REPLAY_OK)
		s = wfail_io(rw, "cannot close the file");
	rw->f = NULL;
	writer_release(rw);
	return s;
}

void fxs_replay_writer_abandon(fxs_replay_writer *rw)
{
	if (!rw)
		return;
	if (rw->f)
		fclose(rw->f);
	rw->f = NULL;
	writer_release(rw);
}

/* ---- checksum repair (tests, fuzzer) ---- */

void fxs_replay_fix_checksums(uint8_t *buf, size_t len)
{
	if (!buf || len < HEADER_FIXED_V2 || memcmp(buf, MAGIC, 8) != 0)
		return;
	const size_t HEADER_FIXED = rd32(buf + 8) == 1 ? HEADER_FIXED_V1 : HEADER_FIXED_V2;
	uint32_t name_len = rd32(buf + HEADER_FIXED - 4);
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
