/* The iterative contact solver on batches (contact_batch.h): packing, and
 * the portable kernels, lane by lane. The vector kernels
 * (contact_batch_vector.h, for AVX2, AVX-512, NEON and wasm SIMD128)
 * compute the same formulas; any change here is made there too
 * (contact_batch_vector.h lists which function mirrors which), and
 * tests/test_batch.c compares them.
 *
 * The formulas (Box2D v3 / Box3D soft step, solver.c's header): per point
 * the normal row with the current separation to first order, speculative
 * above zero, soft below; then the manifold's friction at the centre of its
 * points, box-bounded by mu times the normal impulses, and the twist about
 * the normal bounded by mu times their moments. Every product is exact in
 * int64 within the bounds of contact_batch.h; every narrowing to int32 is
 * saturated and counted. */
#include "solve/contact_batch.h"
#include "solve/solver_tasks.h"
#include "world/tasks.h"
#include "collide/contact.h"
#include "solve/stage.h"
#include "simd/kernels.h"

#include <stdlib.h>
#include <string.h>

/* (x f + 2^15) >> 16 for 0 <= x < 2^47 and |f| < 2^31, exact, as the sum of
 * two products below 2^62 (the split the vector kernel makes too) */
static inline int64_t mul_q16(int64_t x, int32_t f)
{
	return (x >> 16) * f + (((x & 0xFFFF) * f + 0x8000) >> 16);
}

/* (x f + 2^15) >> 16 for |x| < 2^51 and 0 <= f <= 2^16, exact, as the sum
 * of two products of int32 factors (x's top and its low 20 bits): the
 * friction's relaxation, whose impulse may be negative and reach 2^50 */
static inline int64_t mul_q16w(int64_t x, int32_t f)
{
	return (x >> 20) * f * 16 + (((x & 0xFFFFF) * f + 0x8000) >> 16);
}

/* an impulse as the int32 the products take, in [-INT32_MAX, INT32_MAX] */
static inline int32_t lane_impulse(int64_t P, uint32_t *ovf) { return impulse32(P, ovf); }

/* lane l of a per-lane vector field (a macro: C17 will not pass a
 * non-const array of arrays as const) */
#define lane_v3(v, l) fxg_v3((v)[0][l], (v)[1][l], (v)[2][l])

static inline void set_lane_v3(int32_t v[3][FXS_LANES], int l, fxg_vec3 x)
{
	v[0][l] = x.x, v[1][l] = x.y, v[2][l] = x.z;
}

/* the fields of a row that every row type has, and those a type has */
#define SET_COMMON(r, l, s)                                                         \
	do {                                                                        \
		for (int k_ = 0; k_ < 3; ++k_)                                      \
			(r)->ia[k_][l] = (s)->ia[k_], (r)->ib[k_][l] = (s)->ib[k_]; \
		(r)->mass[l] = (s)->mass;                                           \
		(r)->sa[l] = (s)->sa, (r)->sb[l] = (s)->sb, (r)->sm[l] = (s)->sm;   \
	} while (0)
#define GET_COMMON(r, l, s)                                                         \
	do {                                                                        \
		for (int k_ = 0; k_ < 3; ++k_)                                      \
			(s)->ia[k_] = (r)->ia[k_][l], (s)->ib[k_] = (r)->ib[k_][l]; \
		(s)->mass = (r)->mass[l];                                           \
		(s)->sa = (r)->sa[l], (s)->sb = (r)->sb[l], (s)->sm = (r)->sm[l];   \
	} while (0)

static void set_lane_row(lane_row *r, int l, const srow *s)
{
	set_lane_v3(r->rxa, l, s->rxa);
	set_lane_v3(r->rxb, l, s->rxb);
	SET_COMMON(r, l, s);
	r->soft_mass[l] = s->soft_mass, r->ss[l] = s->ss;
}

static void set_lane_trow(lane_trow *r, int l, const srow *s) { SET_COMMON(r, l, s); }

static inline __attribute__((always_inline)) srow get_lane_row(const lane_row *r, int l)
{
	srow s;
	s.rxa = lane_v3(r->rxa, l), s.rxb = lane_v3(r->rxb, l);
	GET_COMMON(r, l, &s);
	s.soft_mass = r->soft_mass[l], s.ss = r->ss[l];
	return s;
}

/* the twist row: its Jacobians are the normal n */
static inline __attribute__((always_inline)) srow get_lane_trow(const lane_trow *r, int l, fxg_vec3 n)
{
	srow s;
	s.rxa = s.rxb = n;
	GET_COMMON(r, l, &s);
	s.soft_mass = 0, s.ss = 62;
	return s;
}

/* ---- packing ---- */

/* a x b as fxg_v3_cross makes it (each component exact in int64, rounded
 * once, saturated), inline: the packing makes fourteen a contact */
static __attribute__((noinline)) int32_t cross_comp_slow(int32_t a, int32_t b, int32_t c, int32_t d, uint32_t *ovf)
{
	return fxg_cross_comp(a, b, c, d, ovf);
}

static inline __attribute__((always_inline)) int32_t cross_comp(int32_t a, int32_t b, int32_t c, int32_t d, uint32_t *ovf)
{
	/* |a b - c d| <= 2^62 unless an operand is INT32_MIN: the fast path
	 * needs the rounded result in int32 range, the slow one saturates */
	int64_t r = (int64_t)a * b - (int64_t)c * d;
	if (__builtin_expect(r > (int64_t)INT32_MAX * 65536 || r < (int64_t)INT32_MIN * 65536 || a == INT32_MIN ||
				     b == INT32_MIN || c == INT32_MIN || d == INT32_MIN,
			     0))
		return cross_comp_slow(a, b, c, d, ovf);
	return (int32_t)fxg_shr_round(r, 16);
}

static inline __attribute__((always_inline)) fxg_vec3 cross(fxg_vec3 a, fxg_vec3 b, uint32_t *ovf)
{
	return fxg_v3(cross_comp(a.y, b.z, a.z, b.y, ovf), cross_comp(a.z, b.x, a.x, b.z, ovf),
		      cross_comp(a.x, b.y, a.y, b.x, ovf));
}

/* x clamped to [-max, max], a clamp counted as a saturation */
static inline int64_t clamp_count(int64_t x, int64_t max, uint32_t *ovf)
{
	if (x > max || x < -max) {
		++*ovf;
		return x > 0 ? max : -max;
	}
	return x;
}

/* rows that do nothing: zero Jacobians, responses and masses */
#define ZERO_COMMON(r, l)                                    \
	do {                                                 \
		for (int k_ = 0; k_ < 3; ++k_)               \
			(r)->ia[k_][l] = (r)->ib[k_][l] = 0; \
		(r)->mass[l] = 0;                            \
		(r)->sa[l] = (r)->sb[l] = (r)->sm[l] = 62;   \
	} while (0)

static void zero_row(lane_row *r, int l)
{
	for (int k = 0; k < 3; ++k)
		r->rxa[k][l] = r->rxb[k][l] = 0;
	ZERO_COMMON(r, l);
	r->soft_mass[l] = 0, r->ss[l] = 62;
}

static void zero_frow(lane_row *r, int l)
{
	for (int k = 0; k < 3; ++k)
		r->rxa[k][l] = r->rxb[k][l] = 0;
	ZERO_COMMON(r, l);
	r->soft_mass[l] = 0, r->ss[l] = 62;
}

/* an empty lane: the spare zero body on both sides, everything zero */
static void empty_lane(contact_batch *bt, int l, uint32_t spare)
{
	bt->a[l] = bt->b[l] = spare;
	bt->index[l] = FXS_LANE_EMPTY;
	bt->count[l] = 0;
	for (int k = 0; k < 3; ++k)
		for (int j = 0; j < 3; ++j)
			bt->d[k][j][l] = 0;
	bt->ima[l] = bt->imb[l] = 0;
	bt->sla[l] = bt->slb[l] = 62;
	bt->pushed[l] = 0;
	bt->friction[l] = bt->restitution[l] = bt->bias_rate[l] = bt->impulse_scale[l] = 0;
	for (int p = 0; p < 4; ++p) {
		bt->separation[p][l] = bt->lever[p][l] = bt->relative_velocity[p][l] = 0;
		bt->impulse[p][l] = 0;
		zero_row(&bt->n[p], l);
	}
	bt->ti[0][l] = bt->ti[1][l] = bt->twi[l] = 0;
	bt->slip[0][l] = bt->slip[1][l] = 0;
	zero_frow(&bt->t[0], l);
	zero_frow(&bt->t[1], l);
	ZERO_COMMON(&bt->tw, l);
}

/* The tangents of the normals met so far in a packing, direct-mapped:
 * tangents() (solver.h) depends on the normal alone, a root and two
 * divisions, and contacts share few normals (a box's face on the boxes
 * below it, the ground's): 89% of large_pyramid's contacts found theirs
 * here, nearly all of many_pyramids'. The saturations tangents() counted
 * are kept and counted again on a hit, so the count is the same too. */
#define TANGENT_MEMO_BITS 6
typedef struct tangent_memo {
	fxg_vec3 n[1 << TANGENT_MEMO_BITS], t[1 << TANGENT_MEMO_BITS][2];
	uint32_t ovf[1 << TANGENT_MEMO_BITS];
	uint8_t used[1 << TANGENT_MEMO_BITS];
} tangent_memo;

static inline void memo_tangents(tangent_memo *m, fxg_vec3 n, fxg_vec3 t[2], uint32_t *ovf)
{
	const uint32_t i = ((uint32_t)n.x * 0x9E3779B1u ^ (uint32_t)n.y * 0x85EBCA77u ^ (uint32_t)n.z * 0xC2B2AE3Du) >>
		(32 - TANGENT_MEMO_BITS);
	if (!m->used[i] || m->n[i].x != n.x || m->n[i].y != n.y || m->n[i].z != n.z) {
		uint32_t count = 0;
		tangents(n, m->t[i], &count);
		m->n[i] = n, m->ovf[i] = count, m->used[i] = 1;
	}
	t[0] = m->t[i][0], t[1] = m->t[i][1];
	*ovf += m->ovf[i];
}

/* Whether contact fc's points go to its lane's rows backwards this step:
 * a box or hull pair's (fxs_contact_recyclable) of two points or more, in
 * odd steps. The solve takes a lane's points in row order, each on the
 * velocities the points before it left, so in one order the first point
 * of a face takes a larger share of the load than the last: a twist that
 * tilted every cube of a 40-cube column alike, its top 28 mm off its axis
 * (as Box3D's). Forwards and backwards in turn, the shares even out, and
 * the column stands on its axis. Rolling shapes keep one order: turned
 * too, a cylinder rolling on its two points lost 0.04% of its speed in
 * 5 s, seven times what it loses in one order. */
static inline bool points_flipped(const solver_ctx *c, const fxs_contact *fc)
{
	return (c->w->stats.step & 1) && fc->point_count > 1 &&
	       fxs_contact_recyclable(&c->w->bodies[fc->a].shape, &c->w->bodies[fc->b].shape);
}

/* lane l of bt from the world's contact number `index`, all but the rows
 * (fxs_pack_rows_lane or the vector packing), whose lever arms go to arms */
static inline __attribute__((always_inline)) void pack_lane(solver_ctx *c, contact_batch *bt, int l, uint32_t index,
							   lane_arms *arms, tangent_memo *memo)
{
	const fxs_world *w = c->w;
	const fxs_contact *fc = &w->contacts[index];
	uint32_t *ovf = c->ovf;
	const solver_body *A = &c->bodies[fc->a], *B = &c->bodies[fc->b];
	const fxs_body *ba = &w->bodies[fc->a], *bb = &w->bodies[fc->b];
	bt->a[l] = fc->a, bt->b[l] = fc->b;
	bt->index[l] = index;
	bt->count[l] = fc->point_count;
	bt->friction[l] = fc->friction, bt->restitution[l] = fc->restitution;
	const bool stat = ba->type == FXS_BODY_STATIC || bb->type == FXS_BODY_STATIC;
	const soft *sf = stat ? &c->static_soft : &c->contact_soft;
	bt->bias_rate[l] = sf->bias_rate, bt->impulse_scale[l] = sf->impulse_scale;
	arms->mass_scale[l] = sf->mass_scale;
	if (c->batch_alts) {
		const soft *alt = stat ? &c->static_soft_alt : &c->contact_soft_alt;
		contact_batch_alt *ba_ = &c->batch_alts[bt - c->batches];
		ba_->bias_rate[l] = alt->bias_rate, ba_->impulse_scale[l] = alt->impulse_scale;
		arms->alt_mass_scale[l] = alt->mass_scale;
	}
	fxg_vec3 d[3];
	d[0] = fc->normal;
	memo_tangents(memo, fc->normal, &d[1], ovf);
	/* linear responses m^-1 d are made where they are used (lane_linear):
	 * the body's scaled inverse mass times each component (|d_k| <= 1, so
	 * they keep its shift and fit int32) */
	bt->ima[l] = -A->im, bt->imb[l] = B->im;
	bt->sla[l] = A->sm, bt->slb[l] = B->sm;
	bt->pushed[l] = 0;
	for (int k2 = 0; k2 < 3; ++k2)
		set_lane_v3(bt->d[k2], l, d[k2]);
	/* the points' lever arms (the contact's: made with its manifold,
	 * contact.c), and the friction centre's: their mean */
	int64_t ax = 0, ay = 0, az = 0, bx = 0, by = 0, bz = 0;
	int np = fc->point_count;
	/* row p takes point first + p step */
	const bool flip = points_flipped(c, fc);
	const fxs_contact_point *first = &fc->points[flip ? np - 1 : 0];
	const int step = flip ? -1 : 1;
	const int32_t hold = fxs_contact_hold_raw(fc);
	for (int p = 0; p < 4; ++p) {
		if (p >= np) { /* a padding point: zero row, no-op */
			bt->separation[p][l] = bt->lever[p][l] = bt->relative_velocity[p][l] = 0;
			bt->impulse[p][l] = 0;
			continue;
		}
		const fxs_contact_point *cp = first + p * step;
		set_lane_v3(arms->ra[p], l, cp->anchor_a);
		set_lane_v3(arms->rb[p], l, cp->anchor_b);
		bt->separation[p][l] = fxg_sat((int64_t)cp->separation - hold, ovf);
		int64_t P = cp->normal_impulse;
		bt->impulse[p][l] = P < 0 ? 0 : clamp_count(P, FXS_NORMAL_IMPULSE_MAX, ovf);
		ax += cp->anchor_a.x, ay += cp->anchor_a.y, az += cp->anchor_a.z;
		bx += cp->anchor_b.x, by += cp->anchor_b.y, bz += cp->anchor_b.z;
	}
	/* the means; a constant divisor for the usual counts (no idiv) */
	fxg_vec3 ca, cb;
	if (np == 4) {
		ca = fxg_v3((fix16_t)fxg_div_round64(ax, 4), (fix16_t)fxg_div_round64(ay, 4), (fix16_t)fxg_div_round64(az, 4));
		cb = fxg_v3((fix16_t)fxg_div_round64(bx, 4), (fix16_t)fxg_div_round64(by, 4), (fix16_t)fxg_div_round64(bz, 4));
	} else {
		ca = fxg_v3((fix16_t)fxg_div_round64(ax, np), (fix16_t)fxg_div_round64(ay, np), (fix16_t)fxg_div_round64(az, np));
		cb = fxg_v3((fix16_t)fxg_div_round64(bx, np), (fix16_t)fxg_div_round64(by, np), (fix16_t)fxg_div_round64(bz, np));
	}
	uint64_t last_l2 = UINT64_MAX, len = 0;
	for (int p = 0; p < np; ++p) {
		/* |point - centre|, rounded, then to FXS_LEVER_MAX; the corners
		 * of a face are often all as far: one root for them */
		const uint64_t l2 = friction_lever2(fxg_v3_sub(first[p * step].anchor_a, ca, ovf));
		if (l2 != last_l2)
			len = fxg_isqrt64_round(l2), last_l2 = l2;
		bt->lever[p][l] = len > (uint64_t)FXS_LEVER_MAX ? FXS_LEVER_MAX : (int32_t)len;
	}
	set_lane_v3(arms->ca, l, ca);
	set_lane_v3(arms->cb, l, cb);
	for (int t = 0; t < 2; ++t) {
		/* last step's friction vector, projected on this step's tangents */
		bt->ti[t][l] = clamp_count(friction_along(fc->friction_impulse, d[1 + t], ovf), FXS_FRICTION_IMPULSE_MAX, ovf);
	}
	bt->twi[l] = clamp_count(fc->twist_impulse, FXS_FRICTION_IMPULSE_MAX, ovf);
	/* the friction anchor's error along the tangents (contact.c) */
	bt->slip[0][l] = fxg_v3_dot(d[1], fc->slip, ovf);
	bt->slip[1][l] = fxg_v3_dot(d[2], fc->slip, ovf);
}

void fxs_pack_rows_lane(solver_ctx *c, contact_batch *bt, int l, const lane_arms *arms)
{
	uint32_t *ovf = c->ovf;
	const solver_body *A = &c->bodies[bt->a[l]], *B = &c->bodies[bt->b[l]];
	const fxg_vec3 n = lane_v3(bt->d[0], l);
	for (int p = 0; p < 4; ++p) {
		if (p >= bt->count[l]) {
			zero_row(&bt->n[p], l);
			bt->relative_velocity[p][l] = 0;
			continue;
		}
		srow r;
		srow_prepare(A, B, cross(lane_v3(arms->ra[p], l), n, ovf), cross(lane_v3(arms->rb[p], l), n, ovf), true,
			     arms->mass_scale[l], &r, ovf);
		set_lane_row(&bt->n[p], l, &r);
		int64_t s = dot_raw(n, B->v) - dot_raw(n, A->v) + dot_raw(B->w, r.rxb) - dot_raw(A->w, r.rxa);
		bt->relative_velocity[p][l] = fxg_sat(fxg_shr_round(s, 16), ovf);
	}
	const fxg_vec3 ca = lane_v3(arms->ca, l), cb = lane_v3(arms->cb, l);
	for (int t = 0; t < 2; ++t) {
		srow r;
		const fxg_vec3 d = lane_v3(bt->d[1 + t], l);
		srow_prepare(A, B, cross(ca, d, ovf), cross(cb, d, ovf), true, arms->mass_scale[l], &r, ovf);
		set_lane_row(&bt->t[t], l, &r);
	}
	srow r;
	srow_prepare(A, B, n, n, false, FXG_ONE, &r, ovf);
	set_lane_trow(&bt->tw, l, &r);
}

/* the stage of solve-order contact k, asked for k ascending from *at = 0
 * (the stage of the last k asked): from the solver's stage ends, with no
 * read of the contact */
static inline uint32_t stage_at(const solver_ctx *c, uint32_t k, uint32_t *at)
{
	while (k >= c->contact_stage_end[*at])
		++*at;
	return *at;
}

/* the batches the packing below will make: a new one at each stage change
 * and every FXS_LANES contacts, one per overflow-stage contact */
static uint32_t batches_needed(const solver_ctx *c)
{
	uint32_t nb = 0, stage = UINT32_MAX, at = 0;
	int lane = FXS_LANES;
	for (uint32_t k = 0; k < c->contact_count; ++k) {
		if (c->contact_direct && c->contact_direct[k])
			continue;
		const uint32_t st = stage_at(c, k, &at);
		if (lane == FXS_LANES || st != stage || st == FXS_STAGE_OVERFLOW)
			++nb, lane = 0, stage = st;
		++lane;
	}
	return nb;
}

/* a batch's rows, once its lanes are packed: by the vector kernel where
 * there is one (lanes it leaves go to the portable code), else lane by lane */
static void pack_rows(solver_ctx *c, contact_batch *bt, const lane_arms *arms)
{
	uint32_t todo = 0xFF;
	if (c->kernels)
		todo = c->kernels->pack_rows(c, bt, arms);
	for (int l = 0; todo && l < FXS_LANES; ++l)
		if ((todo >> l & 1) && bt->count[l])
			fxs_pack_rows_lane(c, bt, l, arms);
	if (!c->batch_alts)
		return;
	/* the other length's softness and soft masses, from the rows' masses
	 * (the same code whichever kernel packed them): the mantissa times the
	 * mass scale, with its shift; an empty lane's all zero */
	contact_batch_alt *alt = &c->batch_alts[bt - c->batches];
	for (int l = 0; l < FXS_LANES; ++l) {
		const bool empty = bt->index[l] == FXS_LANE_EMPTY;
		const int64_t ms = empty ? 0 : arms->alt_mass_scale[l];
		if (empty)
			alt->bias_rate[l] = alt->impulse_scale[l] = 0;
		for (int p = 0; p < 4; ++p) {
			const lane_row *r = &bt->n[p];
			alt->soft_mass[p][l] = (int32_t)(((int64_t)r->mass[l] * ms + 0x8000) >> 16);
			alt->ss[p][l] = r->sm[l];
		}
		for (int t = 0; t < 2; ++t) {
			const lane_row *r = &bt->t[t];
			alt->fsoft_mass[t][l] = (int32_t)(((int64_t)r->mass[l] * ms + 0x8000) >> 16);
			alt->fss[t][l] = r->sm[l];
		}
	}
}

/* The packing's prefetches, the same on one worker and in blocks: the
 * contact eight ahead in solve order, and the bodies of the one four ahead,
 * whose lines came in four contacts ago (solve order jumps through the
 * world's arrays; reading the bodies' slots of a contact not yet in cache
 * stalled here) */
static inline void prefetch_contacts_ahead(const solver_ctx *c, uint32_t k)
{
	if (k + 8 < c->contact_count) {
		const fxs_contact *far = &c->w->contacts[c->contact_order[k + 8]];
		for (size_t o = 0; o < sizeof *far; o += 64)
			__builtin_prefetch((const char *)far + o);
		__builtin_prefetch((const char *)far + sizeof *far - 1);
	}
	if (k + 4 < c->contact_count) {
		const fxs_contact *ahead = &c->w->contacts[c->contact_order[k + 4]];
		__builtin_prefetch(&c->w->bodies[ahead->a].xf);
		__builtin_prefetch(&c->w->bodies[ahead->b].xf);
		__builtin_prefetch(&c->bodies[ahead->a].v);
		__builtin_prefetch(&c->bodies[ahead->b].v);
		__builtin_prefetch(&c->bodies[ahead->a].ii); /* line 1: the rows' inertia */
		__builtin_prefetch(&c->bodies[ahead->b].ii);
		__builtin_prefetch(&c->w->bodies[ahead->a].type);
		__builtin_prefetch(&c->w->bodies[ahead->b].type);
	}
}

/* the next batch's lines, an eighth of them a lane: a batch (5 KB) is
 * written whole, and its lines left the cache since the last step wrote
 * them; writes to lines not there stalled the packing (with this, its share
 * of a large_pyramid step fell from 16.5% to 14% with the AVX2 kernels,
 * from 16% to 12% with AVX-512's; without it in the blocks, the packing on
 * workers took a fifth longer than on one) */
static inline void prefetch_batch_lines(const contact_batch *next, int lane)
{
	const size_t share = (sizeof *next + FXS_LANES * 64 - 1) / (FXS_LANES * 64) * 64;
	for (size_t o = (size_t)lane * share; o < (size_t)(lane + 1) * share && o < sizeof *next; o += 64)
		FXS_PREFETCH_L1((const char *)(const void *)next + o);
}

/* ---- with workers: the batches packed in blocks at once ----
 * Each batch's contacts are fixed by the solve order alone (a new batch at
 * each stage change, every FXS_LANES contacts, one per overflow-stage
 * contact: batches_needed's rule), so a first pass notes where each batch
 * starts, and blocks of batches are then packed at once, each with its own
 * packing scratch and saturation count: the same lanes, rows and counts as
 * the packing below. */
#define PACK_BLOCK 8

/* the batches [b0, b1) packed (with workers: each block its own) */
static void pack_range(solver_ctx *c, uint32_t b0, uint32_t b1)
{
	const uint32_t spare = c->body_count;
	const uint32_t *first = c->batch_first;
	lane_arms arms;
	tangent_memo memo;
	memset(memo.used, 0, sizeof memo.used);
	for (uint32_t i = b0; i < b1; ++i) {
		contact_batch *bt = &c->batches[i];
		memset(&arms, 0, sizeof arms);
		int lane = 0;
		for (uint32_t k = first[i]; k < first[i + 1]; ++k) {
			if (c->contact_direct && c->contact_direct[k])
				continue;
			prefetch_contacts_ahead(c, k);
			if (i + 1 < b1) /* (not another block's: another worker may be writing it) */
				prefetch_batch_lines(bt + 1, lane);
			pack_lane(c, bt, lane++, c->contact_order[k], &arms, &memo);
		}
		while (lane < FXS_LANES)
			empty_lane(bt, lane++, spare);
		pack_rows(c, bt, &arms);
	}
}

/* the batches, and their other softness when the sub-steps are of two lengths */
static size_t batch_bytes(const solver_ctx *c, uint32_t total)
{
	return (size_t)total * (sizeof(contact_batch) + (c->long_substeps ? sizeof(contact_batch_alt) : 0));
}

static void place_batches(solver_ctx *c, uint8_t *base, uint32_t total)
{
	c->batches = (contact_batch *)(void *)base;
	c->batch_alts = c->long_substeps ? (contact_batch_alt *)(void *)(base + (size_t)total * sizeof(contact_batch)) : NULL;
}

static bool batches_prepare_tasks(solver_ctx *c, uint32_t total)
{
	fxs_world *w = c->w;
	const size_t bytes = batch_bytes(c, total);
	uint8_t *base = fxs_contacts_scratch(w, bytes + ((size_t)total + 1) * sizeof(uint32_t));
	if (!base)
		return false;
	place_batches(c, base, total);
	uint32_t *first = (uint32_t *)(void *)(base + bytes);
	/* where each batch starts (batches_needed's walk), and where each
	 * stage's batches end (fxs_batches_run_stages; the overflow stage's
	 * batches come last, apart) */
	uint32_t nb = 0, stage = UINT32_MAX, at = 0, ns = 0;
	int lane = FXS_LANES;
	c->parallel_batch_count = UINT32_MAX;
	for (uint32_t k = 0; k < c->contact_count; ++k) {
		if (c->contact_direct && c->contact_direct[k])
			continue;
		const uint32_t st = stage_at(c, k, &at);
		if (lane == FXS_LANES || st != stage || st == FXS_STAGE_OVERFLOW) {
			if (st == FXS_STAGE_OVERFLOW && stage != FXS_STAGE_OVERFLOW)
				c->parallel_batch_count = nb;
			if (st != stage && st != FXS_STAGE_OVERFLOW) {
				if (ns > 0)
					c->batch_stage_end[ns - 1] = nb;
				++ns;
			}
			first[nb++] = k, lane = 0, stage = st;
		}
		++lane;
	}
	first[nb] = c->contact_count;
	c->batch_count = nb;
	if (c->parallel_batch_count == UINT32_MAX)
		c->parallel_batch_count = nb;
	if (ns > 0)
		c->batch_stage_end[ns - 1] = c->parallel_batch_count;
	c->batch_stage_count = ns;
	/* each worker the batches it then solves, stage by stage (the
	 * overflow stage's last) */
	uint32_t seg[FXS_STAGE_OVERFLOW + 1];
	memcpy(seg, c->batch_stage_end, ns * sizeof *seg);
	seg[ns] = nb;
	c->batch_first = first;
	*c->ovf += fxs_solver_run_segments(c, NULL, pack_range, seg, ns + 1, PACK_BLOCK, 0, fxs_batch_key);
	c->batch_first = NULL;
	return true;
}

bool fxs_batches_prepare(solver_ctx *c)
{
	fxs_world *w = c->w;
	const uint32_t total = batches_needed(c);
	if (fxs_tasks_parallel(w))
		return batches_prepare_tasks(c, total);
	uint8_t *base = fxs_contacts_scratch(w, batch_bytes(c, total));
	if (!base)
		return false;
	place_batches(c, base, total);
	uint32_t nb = 0, spare = c->body_count; /* the spare zero body after the last slot */
	lane_arms arms;
	tangent_memo memo;
	memset(memo.used, 0, sizeof memo.used);
	c->parallel_batch_count = UINT32_MAX;
	int lane = FXS_LANES;
	uint32_t stage = UINT32_MAX, at = 0;
	contact_batch *bt = NULL;
	for (uint32_t k = 0; k < c->contact_count; ++k) {
		if (c->contact_direct && c->contact_direct[k])
			continue; /* solved by the boxed LCP */
		uint32_t index = c->contact_order[k];
		prefetch_contacts_ahead(c, k);
		const uint32_t st = stage_at(c, k, &at);
		/* a new batch when this one is full, the stage changes, or in the
		 * overflow stage (whose contacts may share bodies) */
		if (lane == FXS_LANES || st != stage || st == FXS_STAGE_OVERFLOW) {
			if (bt) {
				while (lane < FXS_LANES)
					empty_lane(bt, lane++, spare);
				pack_rows(c, bt, &arms);
			}
			memset(&arms, 0, sizeof arms);
			if (st == FXS_STAGE_OVERFLOW && stage != FXS_STAGE_OVERFLOW)
				c->parallel_batch_count = nb;
			bt = &c->batches[nb++];
			lane = 0;
			stage = st;
		}
		if (nb < total)
			prefetch_batch_lines(&c->batches[nb], lane);
		pack_lane(c, bt, lane++, index, &arms, &memo);
	}
	if (bt) {
		while (lane < FXS_LANES)
			empty_lane(bt, lane++, spare);
		pack_rows(c, bt, &arms);
	}
	c->batch_count = nb;
	if (c->parallel_batch_count == UINT32_MAX)
		c->parallel_batch_count = nb;
	return true;
}

/* ---- the portable kernels ---- */

/* d . (vb - va) + wb . rxb - wa . rxa, Q16.16 */
static inline fix16_t speed_of(fxg_vec3 d, fxg_vec3 va, fxg_vec3 wa, fxg_vec3 vb, fxg_vec3 wb, const srow *r,
			       uint32_t *ovf)
{
	int64_t s = (int64_t)d.x * ((int64_t)vb.x - va.x) + (int64_t)d.y * ((int64_t)vb.y - va.y) +
		(int64_t)d.z * ((int64_t)vb.z - va.z) + dot_raw(wb, r->rxb) - dot_raw(wa, r->rxa);
	return fxg_sat(fxg_shr_round(s, 16), ovf);
}

/* a lane's linear responses along direction dir (lane_linear): the same
 * for every point of the manifold and every pass, so made once a lane and
 * a direction, not once an impulse (the stores of a pass may alias the
 * batch's int32 fields, so the compiler could not hoist them itself) */
typedef struct lane_lin {
	int32_t a[3], b[3];
	uint8_t sa, sb;
} lane_lin;

static inline lane_lin lane_linears(const contact_batch *bt, int l, int dir)
{
	const int32_t ima = bt->ima[l], imb = bt->imb[l];
	const int32_t dx = bt->d[dir][0][l], dy = bt->d[dir][1][l], dz = bt->d[dir][2][l];
	lane_lin m = { { lane_linear(ima, dx), lane_linear(ima, dy), lane_linear(ima, dz) },
		       { lane_linear(imb, dx), lane_linear(imb, dy), lane_linear(imb, dz) },
		       bt->sla[l],
		       bt->slb[l] };
	return m;
}

static inline void lane_apply(fxg_vec3 *va, fxg_vec3 *wa, fxg_vec3 *vb, fxg_vec3 *wb, const lane_lin *m, const srow *r,
			      int32_t p, uint32_t *ovf)
{
	scaled_add3(va, m->a, m->sa, p, ovf);
	scaled_add3(wa, r->ia, r->sa, p, ovf);
	scaled_add3(vb, m->b, m->sb, p, ovf);
	scaled_add3(wb, r->ib, r->sb, p, ovf);
}

/* A lane's velocities back into its bodies: the dynamic ones only. The
 * others (static, kinematic, asleep, the spare zero body) have zero
 * responses and keep their velocities; lanes of several batches may share
 * them, and batches of a stage are solved at once on several threads
 * (solver_tasks.c), which then write disjoint bodies only. */
static inline void store_lane_bodies(solver_body *A, solver_body *B, fxg_vec3 va, fxg_vec3 wa, fxg_vec3 vb, fxg_vec3 wb)
{
	if (A->dynamic)
		A->v = va, A->w = wa;
	if (B->dynamic)
		B->v = vb, B->w = wb;
}

static void warm_start_lane(solver_ctx *c, const contact_batch *bt, int l, uint32_t *ovf)
{
	solver_body *A = &c->bodies[bt->a[l]], *B = &c->bodies[bt->b[l]];
	fxg_vec3 va = A->v, wa = A->w, vb = B->v, wb = B->w;
	const lane_lin mn = lane_linears(bt, l, 0);
	for (int k = 0; k < bt->count[l]; ++k) {
		if (!bt->impulse[k][l])
			continue;
		srow r = get_lane_row(&bt->n[k], l);
		lane_apply(&va, &wa, &vb, &wb, &mn, &r, lane_impulse(bt->impulse[k][l], ovf), ovf);
	}
	for (int t = 0; t < 2; ++t) {
		if (!bt->ti[t][l])
			continue;
		srow r = get_lane_row(&bt->t[t], l);
		const lane_lin mt = lane_linears(bt, l, 1 + t);
		lane_apply(&va, &wa, &vb, &wb, &mt, &r, lane_impulse(bt->ti[t][l], ovf), ovf);
	}
	if (bt->twi[l]) {
		srow r = get_lane_trow(&bt->tw, l, lane_v3(bt->d[0], l));
		int32_t p = lane_impulse(bt->twi[l], ovf);
		scaled_add3(&wa, r.ia, r.sa, p, ovf);
		scaled_add3(&wb, r.ib, r.sb, p, ovf);
	}
	store_lane_bodies(A, B, va, wa, vb, wb);
}

static void solve_lane(solver_ctx *c, contact_batch *bt, int l, bool use_bias, uint32_t *ovf)
{
	solver_body *A = &c->bodies[bt->a[l]], *B = &c->bodies[bt->b[l]];
	/* the two bodies' velocities in locals for the whole manifold (a
	 * contact joins two different bodies; one that does not move has zero
	 * responses, so writing its velocities back changes nothing) */
	fxg_vec3 va = A->v, wa = A->w, vb = B->v, wb = B->w;
	const fxg_vec3 n = lane_v3(bt->d[0], l);
	const fix16_t inv_h = c->inv_h, push_max = c->push_max;
	const fix16_t bias_rate = bt->bias_rate[l], impulse_scale = bt->impulse_scale[l];
	/* the displacements' part of the separation is the same for every
	 * point: n . (dpB - dpA); the rotations' part is per point */
	const int64_t ndp = (int64_t)n.x * ((int64_t)B->dp.x - A->dp.x) + (int64_t)n.y * ((int64_t)B->dp.y - A->dp.y) +
		(int64_t)n.z * ((int64_t)B->dp.z - A->dp.z);
	const fxg_vec3 ta = A->dtheta, tb = B->dtheta;
	const lane_lin mn = lane_linears(bt, l, 0);
	int64_t total = 0, moment = 0;
	for (int k = 0; k < bt->count[l]; ++k) {
		const srow r = get_lane_row(&bt->n[k], l);
		int64_t ds = ndp + dot_raw(tb, r.rxb) - dot_raw(ta, r.rxa);
		fix16_t s = fxg_sat((int64_t)bt->separation[k][l] + fxg_shr_round(ds, 16), ovf);
		int64_t bias = 0;
		int32_t mass = r.mass;
		int sm = r.sm;
		fix16_t scale = 0;
		if (s > 0) {
			bias = (int64_t)s * inv_h >> 16; /* speculative: close the gap this sub-step */
		} else if (use_bias) {
			bias = fxg_max(fxg_mul(bias_rate, s, ovf), -push_max);
			mass = r.soft_mass, sm = r.ss;
			scale = impulse_scale;
		}
		fix16_t vn = speed_of(n, va, wa, vb, wb, &r, ovf);
		int64_t old = bt->impulse[k][l];
		int64_t nw = old - scaled_mul(mass, fxg_sat(vn + bias, ovf), sm) - mul_q16(old, scale);
		if (nw > FXS_NORMAL_IMPULSE_MAX)
			nw = FXS_NORMAL_IMPULSE_MAX, ++*ovf;
		nw = nw < 0 ? 0 : nw;
		int64_t delta = nw - old;
		bt->impulse[k][l] = nw;
		if (delta > 0) /* it pushed this step (restitution, hit events) */
			bt->pushed[l] |= 1 << k;
		if (delta)
			lane_apply(&va, &wa, &vb, &wb, &mn, &r, lane_impulse(delta, ovf), ovf);
		total += nw;
		moment += mul_q16(nw, bt->lever[k][l]);
	}
	/* friction at the centre: box-bounded by mu times the manifold's
	 * normal impulse; twist by mu times the normal impulses' moments. In
	 * the biased pass the friction is soft, with the contact's softness,
	 * and pulls the surfaces back by their slide since the manifold was
	 * made (the anchor's error, contact.c): static friction that holds
	 * where it was, not only what it is (a velocity alone lets each
	 * transient slide stay) */
	const fix16_t mu = bt->friction[l];
	int64_t lim = mul_q16(total, mu);
	for (int t = 0; t < 2; ++t) {
		const srow r = get_lane_row(&bt->t[t], l);
		fix16_t vt = speed_of(lane_v3(bt->d[1 + t], l), va, wa, vb, wb, &r, ovf);
		int64_t old = bt->ti[t][l];
		int64_t nw;
		if (use_bias) {
			fix16_t y = fxg_sat((int64_t)vt + fxg_mul(bias_rate, bt->slip[t][l], ovf), ovf);
			nw = old - scaled_mul(r.soft_mass, y, r.ss) - mul_q16w(old, impulse_scale);
		} else {
			nw = old - scaled_mul(r.mass, vt, r.sm);
		}
		nw = nw < -lim ? -lim : (nw > lim ? lim : nw);
		bt->ti[t][l] = nw;
		if (nw != old) {
			const lane_lin mt = lane_linears(bt, l, 1 + t);
			lane_apply(&va, &wa, &vb, &wb, &mt, &r, lane_impulse(nw - old, ovf), ovf);
		}
	}
	int64_t tlim = mul_q16(moment, mu);
	if (tlim != 0 || bt->twi[l] != 0) { /* else one point (or all at the centre): no twist friction */
		const srow r = get_lane_trow(&bt->tw, l, n);
		fix16_t wn = fxg_sat(fxg_shr_round(dot_raw(wb, r.rxb) - dot_raw(wa, r.rxa), 16), ovf);
		int64_t old = bt->twi[l];
		int64_t nw = old - scaled_mul(r.mass, wn, r.sm);
		nw = nw < -tlim ? -tlim : (nw > tlim ? tlim : nw);
		bt->twi[l] = nw;
		if (nw != old) {
			int32_t p = lane_impulse(nw - old, ovf);
			scaled_add3(&wa, r.ia, r.sa, p, ovf);
			scaled_add3(&wb, r.ib, r.sb, p, ovf);
		}
	}
	store_lane_bodies(A, B, va, wa, vb, wb);
}

/* The batches of the stages 0..63 go to the vector kernel when there is
 * one; the overflow stage's (one contact each, bodies possibly shared with
 * the next; rare), which come last, always run on the portable kernel. */
uint32_t fxs_batches_warm_start_range(solver_ctx *c, uint32_t first, uint32_t end)
{
	/* a local counter: a uint32_t * may alias the int32 velocities, which
	 * would force a reload after every saturation check */
	uint32_t local = 0;
	const uint32_t np = c->parallel_batch_count < end ? c->parallel_batch_count : end;
	const fxs_kernel_table *k = c->kernels;
	uint32_t i = first;
	if (k && i < np) {
		local += k->batches_warm_start(c, i, np);
		i = np;
	}
	for (; i < end; ++i) {
		const contact_batch *bt = &c->batches[i];
		for (int l = 0; l < FXS_LANES; ++l)
			if (bt->count[l])
				warm_start_lane(c, bt, l, &local);
	}
	return local;
}

void fxs_batches_warm_start(solver_ctx *c)
{
	if (fxs_tasks_parallel(c->w)) {
		fxs_batches_run_stages(c, true, false);
		return;
	}
	*c->ovf += fxs_batches_warm_start_range(c, 0, c->batch_count);
}

uint32_t fxs_batches_solve_range(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	uint32_t local = 0;
	const uint32_t np = c->parallel_batch_count < end ? c->parallel_batch_count : end;
	const fxs_kernel_table *k = c->kernels;
	uint32_t i = first;
	if (k && i < np) {
		local += k->batches_solve(c, i, np, use_bias);
		i = np;
	}
	for (; i < end; ++i) {
		contact_batch *bt = &c->batches[i];
		for (int l = 0; l < FXS_LANES; ++l)
			if (bt->count[l])
				solve_lane(c, bt, l, use_bias, &local);
	}
	return local;
}

void fxs_batches_solve(solver_ctx *c, bool use_bias)
{
	if (fxs_tasks_parallel(c->w)) {
		fxs_batches_run_stages(c, false, use_bias);
		return;
	}
	*c->ovf += fxs_batches_solve_range(c, 0, c->batch_count, use_bias);
}

void fxs_batches_swap_softness(solver_ctx *c)
{
	for (uint32_t i = 0; c->batch_alts && i < c->batch_count; ++i) {
		contact_batch *bt = &c->batches[i];
		contact_batch_alt *alt = &c->batch_alts[i];
		for (int l = 0; l < FXS_LANES; ++l) {
			int32_t t = bt->bias_rate[l];
			bt->bias_rate[l] = alt->bias_rate[l], alt->bias_rate[l] = t;
			t = bt->impulse_scale[l];
			bt->impulse_scale[l] = alt->impulse_scale[l], alt->impulse_scale[l] = t;
			for (int p = 0; p < 4; ++p) {
				t = bt->n[p].soft_mass[l];
				bt->n[p].soft_mass[l] = alt->soft_mass[p][l], alt->soft_mass[p][l] = t;
				uint8_t u = bt->n[p].ss[l];
				bt->n[p].ss[l] = alt->ss[p][l], alt->ss[p][l] = u;
			}
			for (int f = 0; f < 2; ++f) {
				t = bt->t[f].soft_mass[l];
				bt->t[f].soft_mass[l] = alt->fsoft_mass[f][l], alt->fsoft_mass[f][l] = t;
				uint8_t u = bt->t[f].ss[l];
				bt->t[f].ss[l] = alt->fss[f][l], alt->fss[f][l] = u;
			}
		}
	}
}

/* the most passes restitution makes over a manifold's points */
#define FXS_RESTITUTION_PASSES 8

/* Restitution, once after the sub-steps, where a point pushed this step
 * and its normal speed when the step began (with the separation then: a
 * drift velocity and the pose it led to, the pair restitution_speed in
 * solver.h takes) was an approach faster than the threshold: contact by
 * contact (it is rare). Not the speed a
 * point met when it first pushed: in a row of touching bodies, the
 * solve's pushes reach each contact down the row before it pushes, and
 * the speed it then meets is the push passed along, not an approach; a
 * bounce from it gave that energy a second time (a cradle of five
 * spheres hit at 3 m/s ended with 168% of its energy). */
void fxs_batches_restitution(solver_ctx *c)
{
	uint32_t *ovf = c->ovf;
	fix16_t threshold = c->w->def.restitution_threshold;
	for (uint32_t i = 0; i < c->batch_count; ++i) {
		contact_batch *bt = &c->batches[i];
		for (int l = 0; l < FXS_LANES; ++l) {
			if (!bt->count[l] || bt->restitution[l] == 0)
				continue;
			solver_body *A = &c->bodies[bt->a[l]], *B = &c->bodies[bt->b[l]];
			const fxg_vec3 n = lane_v3(bt->d[0], l);
			fix16_t an = 0, target[4];
			bool have_an = false;
			int bounce = 0; /* the points that bounce, as bits */
			for (int k = 0; k < bt->count[l]; ++k) {
				fix16_t rv = bt->relative_velocity[k][l];
				if (rv > -threshold || !(bt->pushed[l] >> k & 1))
					continue;
				if (!have_an)
					an = normal_acceleration(c->w, bt->a[l], bt->b[l], n, ovf), have_an = true;
				target[k] = restitution_speed(bt->restitution[l], rv, bt->separation[k][l], an, c->h, ovf);
				bounce |= 1 << k;
			}
			/* the manifold's points together: one pass sets each point's
			 * speed in turn, and a point's push moves the others' (a box
			 * landing flat on its four corners); the first ones it
			 * overshot kept their excess (a box bouncing off another with
			 * e = 1 gained 1.4%). Passes until nothing changes, at most
			 * FXS_RESTITUTION_PASSES. */
			for (int pass = 0; bounce && pass < FXS_RESTITUTION_PASSES; ++pass) {
				bool changed = false;
				for (int k = 0; k < bt->count[l]; ++k) {
					if (!(bounce >> k & 1))
						continue;
					const srow r = get_lane_row(&bt->n[k], l);
					fix16_t vn = speed_of(n, A->v, A->w, B->v, B->w, &r, ovf);
					int64_t old = bt->impulse[k][l];
					int64_t nw = old - scaled_mul(r.mass, fxg_sat((int64_t)vn - target[k], ovf), r.sm);
					if (nw > FXS_NORMAL_IMPULSE_MAX)
						nw = FXS_NORMAL_IMPULSE_MAX, ++*ovf;
					nw = nw < 0 ? 0 : nw;
					if (nw != old) {
						const lane_lin m = lane_linears(bt, l, 0);
						lane_apply(&A->v, &A->w, &B->v, &B->w, &m, &r, lane_impulse(nw - old, ovf), ovf);
						changed = true;
					}
					bt->impulse[k][l] = nw;
				}
				if (!changed || !(bounce & (bounce - 1)))
					break; /* converged, or one point: one pass is exact */
			}
		}
	}
}

/* The impulses back into the world's contacts: normal impulses, the
 * friction as a world vector (so that it carries over when the tangent
 * basis turns), the twist; with `approach` (hit events), each point's
 * approach speed (minus the speed at the touch where it pushed) and
 * whether it pushed. And each batch's pressing lanes (c->batch_pressed). */
static void store_range(solver_ctx *c, uint32_t first, uint32_t end, bool approach)
{
	uint32_t *ovf = c->ovf;
	for (uint32_t i = first; i < end; ++i) {
		const contact_batch *bt = &c->batches[i];
		uint32_t pressed = 0;
		for (int l = 0; l < FXS_LANES; ++l) {
			if (!bt->count[l])
				continue;
			fxs_contact *wc = &c->w->contacts[bt->index[l]];
			/* row k back to point p0 + k step, as pack_lane took it */
			const bool flip = points_flipped(c, wc);
			fxs_contact_point *p0 = &wc->points[flip ? wc->point_count - 1 : 0];
			const int step = flip ? -1 : 1;
			for (int k = 0; k < bt->count[l]; ++k) {
				p0[k * step].normal_impulse = bt->impulse[k][l];
				pressed |= (uint32_t)(bt->impulse[k][l] > 0) << l;
			}
			bool have_an = false;
			fix16_t an = 0;
			for (int k = 0; approach && k < bt->count[l]; ++k) {
				/* a point that pushed: minus its speed at the touch (the
				 * restitution's, solver.h), else the step's start */
				fix16_t rv = bt->relative_velocity[k][l];
				const bool pushed = (bt->pushed[l] >> k) & 1;
				if (pushed && rv < 0) {
					if (!have_an)
						an = normal_acceleration(c->w, bt->a[l], bt->b[l], lane_v3(bt->d[0], l), ovf), have_an = true;
					rv = -impact_speed(rv, bt->separation[k][l], an, c->h, ovf);
				}
				p0[k * step].relative_velocity = rv;
				p0[k * step].max_normal_impulse = pushed;
			}
			const fxg_vec3 t0 = lane_v3(bt->d[1], l), t1 = lane_v3(bt->d[2], l);
			const int64_t a = bt->ti[0][l], b = bt->ti[1][l];
			friction_from_tangents(wc->friction_impulse, a, t0, b, t1, ovf);
			wc->twist_impulse = bt->twi[l];
		}
		c->batch_pressed[i] = (uint8_t)pressed;
	}
}

static void store_plain(solver_ctx *c, uint32_t first, uint32_t end) { store_range(c, first, end, false); }
static void store_approach(solver_ctx *c, uint32_t first, uint32_t end) { store_range(c, first, end, true); }

/* in blocks of batches with workers: each batch writes its own contacts */
void fxs_batches_store(solver_ctx *c, bool approach)
{
	fxs_solver_range_fn *store = approach ? store_approach : store_plain;
	if (!c->tasks) {
		store(c, 0, c->batch_count);
		return;
	}
	/* each worker the batches it solved, stage by stage (the stages'
	 * ends are fxs_batches_prepare's with workers) */
	uint32_t seg[FXS_STAGE_OVERFLOW + 1];
	memcpy(seg, c->batch_stage_end, c->batch_stage_count * sizeof *seg);
	seg[c->batch_stage_count] = c->batch_count;
	*c->ovf += fxs_solver_run_segments(c, NULL, store, seg, c->batch_stage_count + 1, FXS_BATCH_BLOCK, 0, fxs_batch_key);
}
