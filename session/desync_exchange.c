/* Naming a desync across machines (desync_exchange.h). */
#include "session/desync_exchange.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fixstep/fixstep.h"

/* ---- little-endian bytes ---- */

typedef struct wbuf {
	uint8_t *p;
	size_t n, cap;
	bool bad;
} wbuf;

static void w_bytes(wbuf *b, const void *src, size_t n)
{
	if (b->bad || n > b->cap - b->n) {
		b->bad = true;
		return;
	}
	memcpy(b->p + b->n, src, n);
	b->n += n;
}
static void w_u64(wbuf *b, uint64_t v, size_t bytes)
{
	uint8_t t[8];
	for (size_t i = 0; i < bytes; ++i)
		t[i] = (uint8_t)(v >> (8 * i));
	w_bytes(b, t, bytes);
}

typedef struct rbuf {
	const uint8_t *p;
	size_t n, at;
	bool bad;
} rbuf;

static uint64_t r_u64(rbuf *b, size_t bytes)
{
	if (b->bad || bytes > b->n - b->at) {
		b->bad = true;
		return 0;
	}
	uint64_t v = 0;
	for (size_t i = 0; i < bytes; ++i)
		v |= (uint64_t)b->p[b->at + i] << (8 * i);
	b->at += bytes;
	return v;
}

/* ---- tables ---- */

#define TABLE_HEAD_WORLD (8u + 1u + 4u + 8u + 8u + 8u)
#define ROW_WORLD (1u + 4u + 8u)
#define TABLE_HEAD_OPAQUE (8u + 1u + 4u)

static uint32_t blocks_of(size_t len)
{
	return (uint32_t)((len + FXS_DX_BLOCK - 1) / FXS_DX_BLOCK);
}

/* our table of x->state: false when the state cannot be read */
static bool build_table(fxs_dx *x)
{
	wbuf b = { 0 };
	if (x->format == FXS_DX_WORLD) {
		fxs_result e;
		fxs_world *w = fxs_world_create_from_snapshot(x->state, x->state_len, &e);
		if (!w)
			return false;
		uint32_t slots = fxs_world_slot_count(w);
		b.cap = TABLE_HEAD_WORLD + (size_t)slots * ROW_WORLD;
		b.p = malloc(b.cap);
		if (b.p) {
			w_u64(&b, x->tick, 8);
			w_u64(&b, FXS_DX_WORLD, 1);
			w_u64(&b, slots, 4);
			w_u64(&b, fxs_world_get_step(w), 8);
			w_u64(&b, fxs_world_get_stats(w).overflows_total, 8);
			w_u64(&b, fxs_world_hash(w), 8);
			for (uint32_t i = 0; i < slots; ++i) {
				fxs_body_id id = fxs_world_body_at(w, i);
				bool alive = fxs_body_is_valid(w, id);
				w_u64(&b, alive, 1);
				w_u64(&b, id.generation, 4);
				w_u64(&b, alive ? fxs_body_hash(w, id) : 0, 8);
			}
		}
		fxs_world_destroy(w);
	} else {
		uint32_t n = blocks_of(x->state_len);
		b.cap = TABLE_HEAD_OPAQUE + (size_t)n * 8u;
		b.p = malloc(b.cap);
		if (b.p) {
			w_u64(&b, x->tick, 8);
			w_u64(&b, FXS_DX_OPAQUE, 1);
			w_u64(&b, x->state_len, 4);
			for (uint32_t i = 0; i < n; ++i) {
				size_t off = (size_t)i * FXS_DX_BLOCK, k = x->state_len - off;
				w_u64(&b, XXH3_64bits(x->state + off, k < FXS_DX_BLOCK ? k : FXS_DX_BLOCK), 8);
			}
		}
	}
	if (!b.p || b.bad) {
		free(b.p);
		return false;
	}
	x->our_table = b.p;
	x->our_table_len = b.n;
	return true;
}

/* A table's head, checked against its length: the count of rows / blocks. */
static bool table_parse(const uint8_t *t, size_t len, uint64_t *tick, uint8_t *format, uint32_t *count,
			uint64_t head[3], uint32_t *state_len)
{
	rbuf r = { t, len, 0, false };
	*tick = r_u64(&r, 8);
	*format = (uint8_t)r_u64(&r, 1);
	if (*format == FXS_DX_WORLD) {
		*count = (uint32_t)r_u64(&r, 4);
		for (int i = 0; i < 3; ++i)
			head[i] = r_u64(&r, 8);
		return !r.bad && (uint64_t)(len - TABLE_HEAD_WORLD) == (uint64_t)*count * ROW_WORLD;
	}
	if (*format != FXS_DX_OPAQUE)
		return false;
	*state_len = (uint32_t)r_u64(&r, 4);
	*count = blocks_of(*state_len);
	return !r.bad && (uint64_t)(len - TABLE_HEAD_OPAQUE) == (uint64_t)*count * 8u;
}

/* ---- naming ---- */

static void hex_text(const uint8_t *p, size_t n, char *out, size_t cap)
{
	size_t o = 0;
	out[0] = 0;
	size_t shown = n > 16 ? 16 : n;
	for (size_t i = 0; i < shown && o + 3 < cap; ++i)
		o += (size_t)snprintf(out + o, cap - o, "%02x", p[i]);
	if (n > shown && o + 4 < cap)
		snprintf(out + o, cap - o, "...");
}

/* The line, with the lower peer id's value first (the same on both machines). */
static void name(fxs_dx *x, const char *what, const char *ours, const char *theirs)
{
	bool we_first = x->local < x->peer;
	snprintf(x->line, sizeof x->line, "desync at tick %" PRIu64 ": %s (peer %u: %s, peer %u: %s)", x->tick, what,
		 we_first ? x->local : x->peer, we_first ? ours : theirs, we_first ? x->peer : x->local,
		 we_first ? theirs : ours);
	x->named = true;
}

static void name_u64(fxs_dx *x, const char *what, uint64_t ours, uint64_t theirs, bool hex)
{
	char a[32], b[32];
	snprintf(a, sizeof a, hex ? "%016" PRIx64 : "%" PRIu64, ours);
	snprintf(b, sizeof b, hex ? "%016" PRIx64 : "%" PRIu64, theirs);
	name(x, what, a, b);
}

static void problem(fxs_dx *x, const char *why)
{
	if (!x->problem[0])
		snprintf(x->problem, sizeof x->problem, "%s", why);
}

/* Both tables held: the entry that differs, or the line when the tables
 * alone name it. */
static void compare_tables(fxs_dx *x)
{
	uint64_t ttick, otick, th[3] = { 0 }, oh[3] = { 0 };
	uint8_t tf, of;
	uint32_t tn, on, tlen = 0, olen = 0;
	bool ok = table_parse(x->their_table, x->their_table_len, &ttick, &tf, &tn, th, &tlen);
	table_parse(x->our_table, x->our_table_len, &otick, &of, &on, oh, &olen);
	if (!ok || ttick != x->tick || tf != of) {
		problem(x, !ok ? "the peer's table does not parse" : ttick != x->tick ? "the peer's table is of another tick"
										      : "the peer's state is of another format");
		free(x->their_table);
		x->their_table = NULL;
		return;
	}
	const uint8_t *ot = x->our_table, *tt = x->their_table;
	if (of == FXS_DX_WORLD) {
		if (on != tn) {
			name_u64(x, "slot count", on, tn, false);
			return;
		}
		for (uint32_t i = 0; i < on; ++i) {
			size_t o = TABLE_HEAD_WORLD + (size_t)i * ROW_WORLD;
			if (memcmp(ot + o, tt + o, ROW_WORLD) != 0) {
				x->entry = i;
				return;
			}
		}
		static const char *const what[3] = { "step", "overflows_total", "contacts or broadphase (state hash)" };
		for (int k = 0; k < 3; ++k)
			if (oh[k] != th[k]) {
				name_u64(x, what[k], oh[k], th[k], k == 2);
				return;
			}
	} else {
		uint32_t n = on < tn ? on : tn;
		for (uint32_t i = 0; i < n; ++i) {
			size_t o = TABLE_HEAD_OPAQUE + (size_t)i * 8u;
			if (memcmp(ot + o, tt + o, 8) != 0) {
				x->entry = i;
				return;
			}
		}
		if (olen != tlen) {
			name_u64(x, "state length", olen, tlen, false);
			return;
		}
	}
	name(x, "no difference in the saved states (only the checksums differ)", "-", "-");
}

/* The fields of a body's record, in fxs_world_first_difference's order. */
enum { K_U,
       K_FIX,
       K_HEX };
static const struct {
	const char *name;
	uint8_t kind;
} body_fields[] = {
	{ "alive", K_U },
	{ "generation", K_U },
	{ "type", K_U },
	{ "shape.type", K_U },
	{ "shape.radius", K_FIX },
	{ "shape.half_height", K_FIX },
	{ "shape.half_extents.x", K_FIX },
	{ "shape.half_extents.y", K_FIX },
	{ "shape.half_extents.z", K_FIX },
	{ "p.x", K_FIX },
	{ "p.y", K_FIX },
	{ "p.z", K_FIX },
	{ "q.x", K_FIX },
	{ "q.y", K_FIX },
	{ "q.z", K_FIX },
	{ "q.w", K_FIX },
	{ "v.x", K_FIX },
	{ "v.y", K_FIX },
	{ "v.z", K_FIX },
	{ "w.x", K_FIX },
	{ "w.y", K_FIX },
	{ "w.z", K_FIX },
	{ "user_data", K_U },
	{ "other (body hash)", K_HEX },
};
#define BODY_FIELDS (sizeof body_fields / sizeof body_fields[0])
#define DETAIL_HEAD (8u + 4u)

static uint64_t fixv(fix16_t v)
{
	return (uint64_t)(uint32_t)v;
}

/* our detail of the entry: a body's record, or a block's bytes */
static bool build_detail(const fxs_dx *x, uint8_t **out, size_t *len)
{
	wbuf b = { 0 };
	if (x->format == FXS_DX_WORLD) {
		fxs_result e;
		fxs_world *w = fxs_world_create_from_snapshot(x->state, x->state_len, &e);
		if (!w)
			return false;
		b.cap = DETAIL_HEAD + BODY_FIELDS * 8u;
		b.p = malloc(b.cap);
		if (b.p) {
			w_u64(&b, x->tick, 8);
			w_u64(&b, x->entry, 4);
			fxs_body_id id = fxs_world_body_at(w, x->entry);
			bool alive = fxs_body_is_valid(w, id);
			uint64_t v[BODY_FIELDS] = { alive, id.generation };
			if (alive) {
				fxs_shape sh = fxs_body_get_shape(w, id);
				fxg_vec3 p = fxs_body_get_position(w, id), lv = fxs_body_get_linear_velocity(w, id);
				fxg_vec3 av = fxs_body_get_angular_velocity(w, id);
				fxg_quat q = fxs_body_get_rotation(w, id);
				uint64_t rest[] = { (uint64_t)fxs_body_get_type(w, id),
						    (uint64_t)(uint32_t)sh.type,
						    fixv(sh.radius),
						    fixv(sh.half_height),
						    fixv(sh.half_extents.x),
						    fixv(sh.half_extents.y),
						    fixv(sh.half_extents.z),
						    fixv(p.x),
						    fixv(p.y),
						    fixv(p.z),
						    fixv(q.x),
						    fixv(q.y),
						    fixv(q.z),
						    fixv(q.w),
						    fixv(lv.x),
						    fixv(lv.y),
						    fixv(lv.z),
						    fixv(av.x),
						    fixv(av.y),
						    fixv(av.z),
						    fxs_body_get_user_data(w, id),
						    fxs_body_hash(w, id) };
				_Static_assert(sizeof rest / sizeof rest[0] == BODY_FIELDS - 2, "a value per field");
				memcpy(v + 2, rest, sizeof rest);
			}
			for (size_t i = 0; i < BODY_FIELDS; ++i)
				w_u64(&b, v[i], 8);
		}
		fxs_world_destroy(w);
	} else {
		size_t off = (size_t)x->entry * FXS_DX_BLOCK;
		size_t k = off < x->state_len ? x->state_len - off : 0;
		if (k > FXS_DX_BLOCK)
			k = FXS_DX_BLOCK;
		b.cap = DETAIL_HEAD + k;
		b.p = malloc(b.cap);
		if (b.p) {
			w_u64(&b, x->tick, 8);
			w_u64(&b, x->entry, 4);
			w_bytes(&b, x->state + off, k);
		}
	}
	if (!b.p || b.bad) {
		free(b.p);
		return false;
	}
	*out = b.p;
	*len = b.n;
	return true;
}

static void value_text(uint8_t kind, uint64_t v, char *out, size_t cap)
{
	if (kind == K_FIX) { /* to 5 decimals, rounded as fix16_to_str, in integers (make nofloat) */
		uint32_t w = (uint32_t)v, u = w >> 31 ? 0u - w : w;
		uint32_t ip = u >> 16, fp = (uint32_t)(((uint64_t)(u & 0xffff) * 100000u + 32768u) >> 16);
		if (fp >= 100000u)
			ip++, fp -= 100000u;
		snprintf(out, cap, "%s%" PRIu32 ".%05" PRIu32 " [0x%08" PRIx32 "]", w >> 31 ? "-" : "", ip, fp, w);
	} else {
		snprintf(out, cap, kind == K_HEX ? "%016" PRIx64 : "%" PRIu64, v);
	}
}

/* Both details held: the line. */
static void compare_details(fxs_dx *x, const uint8_t *ours, size_t olen)
{
	rbuf r = { x->their_detail, x->their_detail_len, 0, false };
	uint64_t tick = r_u64(&r, 8);
	uint32_t entry = (uint32_t)r_u64(&r, 4);
	if (r.bad || tick != x->tick || entry != x->entry) {
		problem(x, "the peer's detail names another tick or entry");
		return;
	}
	const uint8_t *theirs = x->their_detail + DETAIL_HEAD, *mine = ours + DETAIL_HEAD;
	size_t tlen = x->their_detail_len - DETAIL_HEAD, mlen = olen - DETAIL_HEAD;
	char what[96], a[80], b[80];
	if (x->format == FXS_DX_WORLD) {
		if (tlen != BODY_FIELDS * 8u) {
			problem(x, "the peer's body record has the wrong length");
			return;
		}
		for (size_t i = 0; i < BODY_FIELDS; ++i) {
			rbuf ra = { mine, mlen, i * 8u, false }, rb = { theirs, tlen, i * 8u, false };
			uint64_t va = r_u64(&ra, 8), vb = r_u64(&rb, 8);
			if (va != vb) {
				snprintf(what, sizeof what, "body %u field %s", x->entry, body_fields[i].name);
				value_text(body_fields[i].kind, va, a, sizeof a);
				value_text(body_fields[i].kind, vb, b, sizeof b);
				name(x, what, a, b);
				return;
			}
		}
		snprintf(what, sizeof what, "body %u (its row differs, its record does not)", x->entry);
		name(x, what, "-", "-");
		return;
	}
	/* opaque: the first to the last differing byte of the block */
	size_t n = mlen < tlen ? mlen : tlen, first = SIZE_MAX, last = 0;
	for (size_t i = 0; i < n; ++i)
		if (mine[i] != theirs[i]) {
			if (first == SIZE_MAX)
				first = i;
			last = i;
		}
	if (mlen != tlen) {
		if (first == SIZE_MAX)
			first = n;
		last = (mlen > tlen ? mlen : tlen) - 1;
	}
	if (first == SIZE_MAX) {
		problem(x, "the peer's block does not differ from ours");
		return;
	}
	size_t base = (size_t)x->entry * FXS_DX_BLOCK;
	snprintf(what, sizeof what, "state bytes %zu..%zu", base + first, base + last);
	hex_text(first < mlen ? mine + first : mine, first < mlen ? last + 1 - first : 0, a, sizeof a);
	hex_text(first < tlen ? theirs + first : theirs, first < tlen ? last + 1 - first : 0, b, sizeof b);
	name(x, what, a[0] ? a : "(none)", b[0] ? b : "(none)");
}

/* ---- the exchange ---- */

void fxs_dx_init(fxs_dx *x, uint32_t local, uint32_t peer)
{
	memset(x, 0, sizeof *x);
	x->local = local;
	x->peer = peer;
	x->entry = UINT32_MAX;
	fxs_xfer_recv_init(&x->rx_table, FXS_DX_LIMIT, FXS_DX_PURPOSE_TABLE, 0);
	fxs_xfer_recv_init(&x->rx_detail, FXS_DX_LIMIT, FXS_DX_PURPOSE_DETAIL, 0);
}

void fxs_dx_free(fxs_dx *x)
{
	if (!x)
		return;
	free(x->state);
	free(x->our_table);
	free(x->their_table);
	free(x->our_detail);
	free(x->their_detail);
	fxs_xfer_send_reset(&x->tx_table);
	fxs_xfer_send_reset(&x->tx_detail);
	fxs_xfer_recv_free(&x->rx_table);
	fxs_xfer_recv_free(&x->rx_detail);
	fxs_dx_init(x, x->local, x->peer);
}

static void progress(fxs_dx *x)
{
	if (!x->their_table && x->rx_table.state == FXS_XFER_RECEIVED)
		x->their_table = fxs_xfer_recv_take(&x->rx_table, &x->their_table_len, NULL, NULL);
	if (!x->their_detail && x->rx_detail.state == FXS_XFER_RECEIVED)
		x->their_detail = fxs_xfer_recv_take(&x->rx_detail, &x->their_detail_len, NULL, NULL);
	if (!x->tick || x->named)
		return;
	if (x->their_table && x->entry == UINT32_MAX)
		compare_tables(x);
	if (x->entry == UINT32_MAX || x->named)
		return;
	if (!x->our_detail) {
		if (!build_detail(x, &x->our_detail, &x->our_detail_len)) {
			problem(x, "out of memory (our detail)");
			return;
		}
		if (!fxs_xfer_send_start(&x->tx_detail, FXS_DX_PURPOSE_DETAIL, (uint32_t)x->tick, x->our_detail,
					 x->our_detail_len))
			problem(x, "out of memory (sending our detail)");
	}
	if (x->their_detail) {
		if (x->their_detail_len < DETAIL_HEAD)
			problem(x, "the peer's detail is too short");
		else
			compare_details(x, x->our_detail, x->our_detail_len);
		if (!x->named) {
			free(x->their_detail);
			x->their_detail = NULL;
		}
	}
}

bool fxs_dx_start(fxs_dx *x, uint64_t tick, const uint8_t *state, size_t len, fxs_dx_format format)
{
	if (!x || x->tick || tick == 0 || tick > UINT32_MAX || !state || len == 0 || len > UINT32_MAX)
		return false;
	x->state = malloc(len);
	if (!x->state)
		return false;
	memcpy(x->state, state, len);
	x->state_len = len;
	x->tick = tick;
	x->format = format;
	if (!build_table(x)) {
		problem(x, format == FXS_DX_WORLD ? "our state is not a world snapshot" : "out of memory (our table)");
		free(x->state);
		x->state = NULL;
		x->tick = 0;
		return false;
	}
	if (!fxs_xfer_send_start(&x->tx_table, FXS_DX_PURPOSE_TABLE, (uint32_t)tick, x->our_table, x->our_table_len))
		return false;
	progress(x);
	return true;
}

fxs_xfer_err fxs_dx_receive(fxs_dx *x, const uint8_t *msg, size_t len, uint64_t now_ms)
{
	fxs_xfer_head h;
	fxs_xfer_err e = fxs_xfer_peek(msg, len, &h);
	if (e != FXS_XFER_OK)
		return e;
	if (h.purpose != FXS_DX_PURPOSE_TABLE && h.purpose != FXS_DX_PURPOSE_DETAIL)
		return FXS_XFER_OTHER;
	bool table = h.purpose == FXS_DX_PURPOSE_TABLE;
	if (h.kind == FXS_XFER_KIND_CHUNK) {
		/* one desync per peer: chunks of another tick than ours are not taken */
		if (x->tick && h.id != x->tick)
			return FXS_XFER_OTHER;
		e = fxs_xfer_recv_chunk(table ? &x->rx_table : &x->rx_detail, msg, len);
	} else {
		e = fxs_xfer_send_ack(table ? &x->tx_table : &x->tx_detail, msg, len, now_ms);
	}
	progress(x);
	return e;
}

size_t fxs_dx_poll(fxs_dx *x, uint64_t now_ms, uint8_t *out, size_t cap)
{
	size_t n;
	progress(x);
	if ((n = fxs_xfer_recv_poll(&x->rx_table, out, cap)) || (n = fxs_xfer_recv_poll(&x->rx_detail, out, cap)) ||
	    (n = fxs_xfer_send_poll(&x->tx_table, now_ms, out, cap)) ||
	    (n = fxs_xfer_send_poll(&x->tx_detail, now_ms, out, cap)))
		return n;
	return 0;
}

bool fxs_dx_finished(const fxs_dx *x)
{
	return x->named && x->tx_table.state != FXS_XFER_SENDING && x->tx_detail.state != FXS_XFER_SENDING;
}
