/* Snapshot packing (pack.h). */
#include "state/pack.h"

#include <string.h>

void fxs_packer_init(fxs_packer *p, void *out, size_t cap)
{
	p->out = out;
	p->cap = out ? cap : 0;
	p->len = 0;
	p->failed = false;
	memset(p->recent_len, 0, sizeof p->recent_len);
	p->recent_next = 0;
}

static void put(fxs_packer *p, const void *s, size_t n)
{
	if (p->out) {
		if (p->cap - p->len >= n && !p->failed)
			memcpy(p->out + p->len, s, n);
		else
			p->failed = true;
	}
	p->len += n; /* counted on: the size a large enough buffer needs */
}

static inline uint64_t load64(const uint8_t *s)
{
	uint64_t v;
	memcpy(&v, s, 8);
	return v;
}

/* The 8 bytes at s as a little-endian number: byte k of s is bits 8k..8k+7
 * on every machine. */
static inline uint64_t load_le64(const uint8_t *s)
{
	uint64_t v = load64(s);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* Bit 8k+7 set where byte k of v is 0x00 or 0xFF, exactly (no carries
 * between bytes). */
static inline uint64_t special_bytes(uint64_t v)
{
	const uint64_t low7 = 0x7F7F7F7F7F7F7F7Fu, highs = 0x8080808080808080u;
	uint64_t nonzero = ((v & low7) + low7) | v, nv = ~v, nonff = ((nv & low7) + low7) | nv;
	return ~(nonzero & nonff) & highs;
}

/* The first byte of s[i..n) that is 0x00 or 0xFF (n when none). */
static inline size_t next_special(const uint8_t *s, size_t i, size_t n)
{
	for (; n - i >= 8; i += 8) {
		uint64_t m = special_bytes(load_le64(s + i));
		if (m)
			return i + (size_t)__builtin_ctzll(m) / 8;
	}
	while (i < n && s[i] != 0x00 && s[i] != 0xFF)
		++i;
	return i;
}

/* The literal s[0..n) (n >= 1) as a token at o; the next position. */
static inline uint8_t *emit_literal(uint8_t *o, const uint8_t *s, size_t n, const uint8_t *end)
{
	*o++ = (uint8_t)(n - 1);
	if (n <= 8 && end - s >= 8)
		memcpy(o, s, 8); /* o has the room (SLICE_OUT); n of them count */
	else
		memcpy(o, s, n);
	return o + n;
}

/* Encoded in slices: each slice's tokens are made in a local buffer with
 * room for the most a slice can take (a literal token a 128 bytes, and 8
 * bytes of slack), then passed on whole. */
enum { SLICE = 4096, SLICE_OUT = SLICE + SLICE / FXS_PACK_LITERAL_MAX + 16 };

/* Runs of two or more 0x00 or 0xFF bytes as one token each; everything else
 * in literals of up to FXS_PACK_LITERAL_MAX bytes. */
static uint8_t *encode_slice(uint8_t *o, const uint8_t *s, size_t n)
{
	const uint8_t *end = s + n;
	size_t start = 0, i = 0; /* the pending literal is s[start .. i) */
	while (i < n) {
		i = next_special(s, i, n);
		while (i - start >= FXS_PACK_LITERAL_MAX) {
			o = emit_literal(o, s + start, FXS_PACK_LITERAL_MAX, end);
			start += FXS_PACK_LITERAL_MAX;
		}
		if (i == n)
			break;
		uint8_t b = s[i];
		size_t j = i + 1, lim = b ? 64 : 63;
		const uint64_t rep = b ? ~(uint64_t)0 : 0;
		for (;;) { /* the run's end, 8 bytes at a time */
			if (n - j < 8) {
				while (j < n && s[j] == b)
					++j;
				break;
			}
			uint64_t d = load_le64(s + j) ^ rep;
			if (d) {
				j += (size_t)__builtin_ctzll(d) / 8;
				break;
			}
			j += 8;
			if (j - i >= lim)
				break;
		}
		if (j - i > lim)
			j = i + lim; /* the rest of it is the next run */
		if (j - i >= 2) {
			if (i > start)
				o = emit_literal(o, s + start, i - start, end);
			*o++ = (uint8_t)(b ? 0xBF + (j - i) : 0x7F + (j - i));
			start = i = j;
		} else {
			++i; /* a lone one goes with the literal */
		}
	}
	while (i > start) {
		size_t k = i - start < FXS_PACK_LITERAL_MAX ? i - start : FXS_PACK_LITERAL_MAX;
		o = emit_literal(o, s + start, k, end);
		start += k;
	}
	return o;
}

static void encode(fxs_packer *p, const uint8_t *s, size_t n)
{
	uint8_t tmp[SLICE_OUT];
	while (n) {
		size_t k = n < SLICE ? n : SLICE;
		put(p, tmp, (size_t)(encode_slice(tmp, s, k) - tmp));
		s += k;
		n -= k;
	}
}

void fxs_pack_bytes(void *packer, const void *bytes, size_t n) { encode(packer, bytes, n); }

void fxs_pack_record(void *packer, const uint8_t *rec, size_t n)
{
	fxs_packer *p = packer;
	if (n == 0 || n > FXS_PACK_RECORD_MAX) {
		encode(p, rec, n);
		return;
	}
	uint8_t x[FXS_PACK_RECORD_MAX];
	uint32_t k = 0;
	while (k < FXS_PACK_RECENT && p->recent_len[k] != n)
		++k;
	if (k < FXS_PACK_RECENT) {
		size_t i = 0;
		for (; i + 8 <= n; i += 8) {
			uint64_t v = load64(rec + i) ^ load64(p->recent[k] + i);
			memcpy(x + i, &v, 8);
		}
		for (; i < n; ++i)
			x[i] = rec[i] ^ p->recent[k][i];
	} else {
		k = p->recent_next;
		p->recent_next = (k + 1) % FXS_PACK_RECENT;
		memcpy(x, rec, n);
	}
	memcpy(p->recent[k], rec, n);
	p->recent_len[k] = (uint32_t)n;
	uint8_t tmp[3 + FXS_PACK_RECORD_MAX + FXS_PACK_RECORD_MAX / FXS_PACK_LITERAL_MAX + 16];
	tmp[0] = 0xBF, tmp[1] = (uint8_t)n, tmp[2] = (uint8_t)(n >> 8);
	put(p, tmp, (size_t)(encode_slice(tmp + 3, x, n) - tmp));
}

bool fxs_unpack(const uint8_t *in, size_t n, uint8_t *out, size_t m)
{
	size_t i = 0, o = 0, rec_start = 0, rec_end = 0;
	bool in_rec = false;
	uint32_t recent_len[FXS_PACK_RECENT] = { 0 }, next = 0;
	size_t recent_at[FXS_PACK_RECENT] = { 0 };
	while (i < n) {
		uint8_t c = in[i++];
		size_t limit = in_rec ? rec_end : m, k;
		if (c == 0xBF) {
			if (in_rec || n - i < 2)
				return false;
			size_t len = (size_t)in[i] | (size_t)in[i + 1] << 8;
			i += 2;
			if (len == 0 || len > FXS_PACK_RECORD_MAX || len > m - o)
				return false;
			in_rec = true;
			rec_start = o;
			rec_end = o + len;
			continue;
		}
		if (c < 0x80) {
			k = (size_t)c + 1;
			if (k > n - i || k > limit - o)
				return false;
			memcpy(out + o, in + i, k);
			i += k;
		} else {
			k = c < 0xBF ? (size_t)c - 0x7F : (size_t)c - 0xBF;
			if (k > limit - o)
				return false;
			memset(out + o, c < 0xBF ? 0x00 : 0xFF, k);
		}
		o += k;
		if (in_rec && o == rec_end) {
			uint32_t len = (uint32_t)(rec_end - rec_start), s = 0;
			while (s < FXS_PACK_RECENT && recent_len[s] != len)
				++s;
			if (s < FXS_PACK_RECENT) {
				uint8_t *d = out + rec_start;
				const uint8_t *e = out + recent_at[s];
				size_t b = 0;
				for (; b + 8 <= len; b += 8) {
					uint64_t x = load64(d + b) ^ load64(e + b);
					memcpy(d + b, &x, 8);
				}
				for (; b < len; ++b)
					d[b] ^= e[b];
			} else {
				s = next;
				next = (s + 1) % FXS_PACK_RECENT;
			}
			recent_len[s] = len;
			recent_at[s] = rec_start;
			in_rec = false;
		}
	}
	return !in_rec && o == m;
}
