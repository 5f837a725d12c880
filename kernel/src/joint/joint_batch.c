/* Ball joints in batches (joint_batch.h): packing, the lever arms, and the
 * portable kernels, lane by lane. The vector kernels (joint_batch_vector.h,
 * for AVX2, AVX-512, NEON and wasm SIMD128) compute the same formulas; a change here is
 * made there too (joint_batch_vector.h lists which function mirrors which),
 * and tests/test_batch.c compares them. */
#include "joint/joint_batch.h"
#include "solve/stage.h"
#include "simd/kernels.h"

#include <stdlib.h>
#include <string.h>

#define L FXS_BALL_LANES

/* ---- the hot form of a ball joint's block ---- */

/* N = Ib^-1 [r]x as mantissas with one shift (exact int64 sums of two
 * products, then 30 significant bits), and the upper triangle of [r]x^T N
 * added into k (Q32.32: xx yy zz xy xz yz): the body's angular part of K.
 * A body that does not move gives zeros. [r]x's columns are r x e_k:
 * (0, rz, -ry), (-rz, 0, rx), (ry, -rx, 0). */
static uint8_t ball_response(const solver_body *b, fxg_vec3 r, int32_t n[9], int64_t k[6], uint32_t *ovf)
{
	if (!b->dynamic) {
		memset(n, 0, 9 * sizeof(int32_t));
		return 62;
	}
	const int64_t xx = b->ii[0], yy = b->ii[1], zz = b->ii[2], xy = b->ii[3], xz = b->ii[4], yz = b->ii[5];
	const int64_t rx = r.x, ry = r.y, rz = r.z;
	/* row j of I times each column of [r]x; without products of inertia
	 * (spheres, cubes: their world inverse inertia is diagonal) six of the
	 * eighteen products are zero, the same sums either way */
	int64_t e[9];
	if (!(xy | xz | yz)) {
		e[0] = 0, e[1] = -(xx * rz), e[2] = xx * ry;
		e[3] = yy * rz, e[4] = 0, e[5] = -(yy * rx);
		e[6] = -(zz * ry), e[7] = zz * rx, e[8] = 0;
	} else {
		e[0] = xy * rz - xz * ry, e[1] = xz * rx - xx * rz, e[2] = xx * ry - xy * rx;
		e[3] = yy * rz - yz * ry, e[4] = yz * rx - xy * rz, e[5] = xy * ry - yy * rx;
		e[6] = yz * rz - zz * ry, e[7] = zz * rx - xz * rz, e[8] = xz * ry - yz * rx;
	}
	uint64_t any = 0;
	for (int i = 0; i < 9; ++i)
		any |= fxg_uabs64(e[i]);
	/* e is in units of 2^-(si + 16) */
	int sh = bit_length(any) - FXS_SCALE_BITS;
	sh = sh < 1 ? 1 : sh; /* a shift of at least 1 (the rounding below needs one) */
	int ex = b->si + 16 - sh;
	if (ex > 62)
		sh += ex - 62, ex = 62;
	bool clamp = ex < 1; /* responses of 2^29 rad/s per N s: beyond every stated range */
	if (clamp)
		sh += 1 - ex, ex = 1;
	const int64_t half = (int64_t)1 << (sh - 1);
	for (int i = 0; i < 9; ++i) /* |e| < 2^(30 + sh): the mantissas fit 2^30 */
		n[i] = clamp ? mantissa_sat((e[i] + half) >> sh, ovf) : (int32_t)((e[i] + half) >> sh);
	/* (r x e_j) . N column c, units 2^-(16 + ex), for (j, c) in the upper triangle */
	int64_t d[6];
	d[0] = rz * n[3] - ry * n[6];
	d[1] = rx * n[7] - rz * n[1];
	d[2] = ry * n[2] - rx * n[5];
	d[3] = rz * n[4] - ry * n[7];
	d[4] = rz * n[5] - ry * n[8];
	d[5] = rx * n[8] - rz * n[2];
	for (int i = 0; i < 6; ++i) {
		int64_t q;
		if (ex >= 16) {
			q = shr_half_up(d[i], ex - 16);
		} else {
			int up = 16 - ex;
			q = d[i] > (INT64_MAX >> up) || d[i] < -(INT64_MAX >> up) ? (++*ovf, d[i] > 0 ? INT64_MAX : -INT64_MAX)
										  : d[i] * ((int64_t)1 << up);
		}
		k[i] = fxg_add64(k[i], q, ovf);
	}
	return (uint8_t)ex;
}

/* The inverse of a symmetric positive definite K (Q32.32, xx yy zz xy xz
 * yz) as mantissas with one shift, by the adjugate over the determinant
 * with one 64-bit division: K scaled to 30-bit mantissas k (K = k 2^a),
 * cofactors exact in int64 then rounded to 30 bits (c 2^(2a + u)), the
 * determinant exact (det 2^(3a + u)), r = 2^62 / det normalised to 31
 * bits, K^-1 = c r 2^-(62 + v + a). A K that is not positive definite gives
 * zero (no constraint). */
static uint8_t sym3_inverse_hot(const int64_t K[6], int32_t out[6], uint32_t *ovf)
{
	uint64_t any = 0;
	for (int i = 0; i < 6; ++i)
		any |= fxg_uabs64(K[i]);
	int t = bit_length(any) - FXS_SCALE_BITS; /* k = K 2^-t, a = t - 32 */
	int64_t k[6];
	for (int i = 0; i < 6; ++i)
		k[i] = t >= 0 ? shr_half_up(K[i], t) : K[i] * ((int64_t)1 << -t);
	const int64_t xx = k[0], yy = k[1], zz = k[2], xy = k[3], xz = k[4], yz = k[5];
	int64_t c[6] = { yy * zz - yz * yz, xx * zz - xz * xz, xx * yy - xy * xy,
			 xz * yz - xy * zz, xy * yz - xz * yy, xy * xz - xx * yz };
	any = 0;
	for (int i = 0; i < 6; ++i)
		any |= fxg_uabs64(c[i]);
	int u = bit_length(any) - FXS_SCALE_BITS;
	u = u < 0 ? 0 : u;
	for (int i = 0; i < 6; ++i)
		c[i] = shr_half_up(c[i], u);
	int64_t det = xx * c[0] + xy * c[3] + xz * c[4]; /* three products below 2^60 */
	if (any == 0 || det <= 0 || k[0] <= 0 || k[1] <= 0 || k[2] <= 0) {
		memset(out, 0, 6 * sizeof(int32_t));
		return 62;
	}
	/* det = d 2^v; v < 0 for a K near singular (det below 2^30), whose
	 * inverse then saturates below */
	int v = bit_length((uint64_t)det) - 31;
	uint64_t d = v >= 0 ? (uint64_t)shr_half_up(det, v) : (uint64_t)det << -v; /* in [2^30, 2^31] */
	int64_t r = (int64_t)((((uint64_t)1 << 62) + d / 2) / d);                  /* in [2^31, 2^32] */
	int64_t q[6];
	any = 0;
	for (int i = 0; i < 6; ++i) {
		q[i] = c[i] * r; /* below 2^63: |c| <= 2^30, r <= 2^32 */
		any |= fxg_uabs64(q[i]);
	}
	int w = bit_length(any) - FXS_SCALE_BITS;
	w = w < 0 ? 0 : w;
	int s = 62 + v + t - 32 - w; /* out = q 2^-w, K^-1 = out 2^-s */
	for (int i = 0; i < 6; ++i)
		out[i] = mantissa_sat(shr_half_up(q[i], w), ovf);
	if (s > 62) { /* a tiny inverse: the extra bits go */
		for (int i = 0; i < 6; ++i)
			out[i] = (int32_t)shr_half_up(out[i], s - 62 < 62 ? s - 62 : 62);
		s = 62;
	} else if (s < 1) { /* a huge one (K near 2^-32): saturated, counted */
		for (int i = 0; i < 6; ++i)
			out[i] = mantissa_sat(out[i] * ((int64_t)1 << (1 - s < 30 ? 1 - s : 30)), ovf);
		s = 1;
	}
	return (uint8_t)s;
}

#define LANE_V3(f, l) fxg_v3((f)[0][l], (f)[1][l], (f)[2][l])

void fxs_ball_setup_lane(solver_ctx *c, ball_batch *bt, int l, uint32_t *ovf)
{
	const solver_body *A = &c->bodies[bt->a[l]], *B = &c->bodies[bt->b[l]];
	/* K = (ma^-1 + mb^-1) I + [ra]x^T Ia^-1 [ra]x + [rb]x^T Ib^-1 [rb]x,
	 * symmetric: its upper triangle */
	fxg_wide m = fxg_add64(A->inv_mass, B->inv_mass, ovf);
	int64_t k[6] = { m, m, m, 0, 0, 0 };
	int32_t na[9], nb[9], kinv[6];
	bt->sna[l] = ball_response(A, LANE_V3(bt->ra, l), na, k, ovf);
	bt->snb[l] = ball_response(B, LANE_V3(bt->rb, l), nb, k, ovf);
	bt->sk[l] = sym3_inverse_hot(k, kinv, ovf);
	for (int i = 0; i < 9; ++i)
		bt->na[i / 3][i % 3][l] = na[i], bt->nb[i / 3][i % 3][l] = nb[i];
	for (int i = 0; i < 6; ++i)
		bt->kinv[i][l] = kinv[i];
}

/* the impulse vector p (per world axis) on both bodies of lane l */
static inline void ball_apply(const ball_batch *bt, int l, solver_body *A, solver_body *B, const int32_t p[3],
			      uint32_t *ovf)
{
	const int64_t ra = (int64_t)1 << (A->sm - 1), rb = (int64_t)1 << (B->sm - 1);
	/* a body that does not move has zero responses: it is not written (it
	 * may be shared with batches other workers solve at once) */
	if (A->dynamic)
		add3(&A->v, ((int64_t)-A->im * p[0] + ra) >> A->sm, ((int64_t)-A->im * p[1] + ra) >> A->sm,
		     ((int64_t)-A->im * p[2] + ra) >> A->sm, ovf);
	if (B->dynamic)
		add3(&B->v, ((int64_t)B->im * p[0] + rb) >> B->sm, ((int64_t)B->im * p[1] + rb) >> B->sm,
		     ((int64_t)B->im * p[2] + rb) >> B->sm, ovf);
	const int sna = bt->sna[l], snb = bt->snb[l];
	const int64_t qa = (int64_t)1 << (sna - 1), qb = (int64_t)1 << (snb - 1);
	int64_t wa[3], wb[3];
	for (int j = 0; j < 3; ++j) {
		/* sums of three products below 2^61 each: exact */
		wa[j] = (-((int64_t)bt->na[j][0][l] * p[0] + (int64_t)bt->na[j][1][l] * p[1] + (int64_t)bt->na[j][2][l] * p[2]) +
			 qa) >>
			sna;
		wb[j] = ((int64_t)bt->nb[j][0][l] * p[0] + (int64_t)bt->nb[j][1][l] * p[1] + (int64_t)bt->nb[j][2][l] * p[2] +
			 qb) >>
			snb;
	}
	if (A->dynamic)
		add3(&A->w, wa[0], wa[1], wa[2], ovf);
	if (B->dynamic)
		add3(&B->w, wb[0], wb[1], wb[2], ovf);
}

/* (x f + 2^15) >> 16 for |x| < 2^47, |f| < 2^31, exact (the split the
 * vector kernel makes too) */
static inline int64_t mul_q16s(int64_t x, int32_t f)
{
	return (x >> 16) * f + (((x & 0xFFFF) * f + 0x8000) >> 16);
}

/* The block: impulse = -K^-1 (Cdot + bias), saturated to int32; soft with
 * bias (mass_scale times it, minus impulse_scale times the accumulated
 * impulse), rigid without; the accumulated impulse clamped to
 * FXS_BALL_IMPULSE_MAX. */
static void solve_lane(solver_ctx *c, ball_batch *bt, int l, bool use_bias, uint32_t *ovf)
{
	solver_body *A = &c->bodies[bt->a[l]], *B = &c->bodies[bt->b[l]];
	/* Cdot = vb + wb x rb - va - wa x ra, each component exact (Q32.32) */
	const fxg_vec3 ra = LANE_V3(bt->ra, l), rb = LANE_V3(bt->rb, l), va = A->v, wa = A->w, vb = B->v, wb = B->w;
	int64_t cd[3] = {
		((int64_t)vb.x - va.x) * 65536 + ((int64_t)wb.y * rb.z - (int64_t)wb.z * rb.y) - ((int64_t)wa.y * ra.z - (int64_t)wa.z * ra.y),
		((int64_t)vb.y - va.y) * 65536 + ((int64_t)wb.z * rb.x - (int64_t)wb.x * rb.z) - ((int64_t)wa.z * ra.x - (int64_t)wa.x * ra.z),
		((int64_t)vb.z - va.z) * 65536 + ((int64_t)wb.x * rb.y - (int64_t)wb.y * rb.x) - ((int64_t)wa.x * ra.y - (int64_t)wa.y * ra.x)
	};
	int32_t v[3];
	for (int k = 0; k < 3; ++k) {
		int64_t x = fxg_shr_round(cd[k], 16);
		if (use_bias)
			x += fxg_mul(bt->bias_rate[l], bt->c0[k][l], ovf);
		v[k] = fxg_sat(x, ovf);
	}
	const int sk = bt->sk[l];
	const int64_t r = (int64_t)1 << (sk - 1);
	const int64_t m0 = bt->kinv[0][l], m1 = bt->kinv[1][l], m2 = bt->kinv[2][l], m3 = bt->kinv[3][l],
		      m4 = bt->kinv[4][l], m5 = bt->kinv[5][l];
	const int64_t x[3] = { (m0 * v[0] + m3 * v[1] + m4 * v[2] + r) >> sk, (m3 * v[0] + m1 * v[1] + m5 * v[2] + r) >> sk,
			       (m4 * v[0] + m5 * v[1] + m2 * v[2] + r) >> sk };
	int32_t p[3];
	for (int k = 0; k < 3; ++k) {
		int64_t imp = fxg_sat(-x[k], ovf);
		if (use_bias)
			imp = (((int64_t)imp * bt->mass_scale[l] + 0x8000) >> 16) - mul_q16s(bt->P[k][l], bt->impulse_scale[l]);
		int64_t P = bt->P[k][l] + imp;
		if (P > FXS_BALL_IMPULSE_MAX || P < -FXS_BALL_IMPULSE_MAX)
			P = P > 0 ? FXS_BALL_IMPULSE_MAX : -FXS_BALL_IMPULSE_MAX, ++*ovf;
		bt->P[k][l] = P;
		p[k] = impulse32(imp, ovf);
	}
	ball_apply(bt, l, A, B, p, ovf);
}

/* ---- packing ---- */

/* batches [first, end) from their joints: each batch's first joint was
 * put in its lane 0 (fxs_ball_batches_build); the lanes take the hot
 * joints from there on, of the same stage, up to eight */
static uint32_t pack_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	const fxs_world *w = c->w;
	const uint32_t spare = c->body_count;
	uint32_t count = 0;
	for (uint32_t b = first; b < end; ++b) {
		ball_batch *bt = &c->ball_batches[b];
		uint32_t i = bt->joint[0];
		const uint32_t stage = c->joints[i].stage;
		memset(bt, 0, sizeof *bt);
		for (int l = 0; l < L; ++l) {
			bt->a[l] = bt->b[l] = spare;
			bt->joint[l] = FXS_BALL_EMPTY;
			bt->sna[l] = bt->snb[l] = bt->sk[l] = 62;
			bt->sma[l] = bt->smb[l] = 62; /* the spare body's */
		}
		for (int lane = 0; lane < L && i < c->joint_count; ++i) {
			const solver_joint_head *sj = &c->joints[i];
			if (!sj->hot)
				continue;
			if (sj->stage != stage)
				break;
			const fxs_joint *j = &w->joints[sj->index];
			bt->a[lane] = sj->a, bt->b[lane] = sj->b, bt->joint[lane] = i;
			bt->bias_rate[lane] = sj->s.bias_rate, bt->mass_scale[lane] = sj->s.mass_scale;
			bt->impulse_scale[lane] = sj->s.impulse_scale;
			bt->ima[lane] = c->bodies[sj->a].im, bt->imb[lane] = c->bodies[sj->b].im;
			bt->sma[lane] = c->bodies[sj->a].sm, bt->smb[lane] = c->bodies[sj->b].sm;
			for (int k = 0; k < 3; ++k) {
				int64_t P = j->impulse[k];
				if (P > FXS_BALL_IMPULSE_MAX || P < -FXS_BALL_IMPULSE_MAX) /* from a snapshot: clamped, counted */
					P = P > 0 ? FXS_BALL_IMPULSE_MAX : -FXS_BALL_IMPULSE_MAX, ++count;
				bt->P[k][lane] = P;
			}
			const fxg_vec3 la = j->local_anchor_a, lb = j->local_anchor_b;
			bt->local_a[0][lane] = la.x, bt->local_a[1][lane] = la.y, bt->local_a[2][lane] = la.z;
			bt->local_b[0][lane] = lb.x, bt->local_b[1][lane] = lb.y, bt->local_b[2][lane] = lb.z;
			lane++;
		}
	}
	return count;
}

/* batches a block of the packing fills */
#define FXS_BALL_PACK_BLOCK 16

bool fxs_ball_batches_build(solver_ctx *c, uint32_t hot)
{
	const uint32_t n = hot;
	uint32_t nb = 0;
	c->ball_batch_count = 0;
	for (uint32_t s = 0; s <= FXS_STAGE_OVERFLOW; ++s)
		c->ball_stage_end[s] = 0;
	if (n == 0)
		return true;
	/* at most one partial batch per stage besides the full ones */
	size_t need = ((size_t)n / L + FXS_STAGE_OVERFLOW + 1) * sizeof(ball_batch);
	fxs_world *w = c->w;
	uint8_t *base = fxs_scratch_aligned(&w->ball_scratch, &w->ball_scratch_size, need);
	if (!base)
		return false;
	c->ball_batches = (ball_batch *)(void *)base;
	/* where each batch starts (its first joint, in its lane 0 until it is
	 * packed) and each stage ends; the bodies the batches take */
	int lane = L;
	uint32_t stage = UINT32_MAX;
	for (uint32_t i = 0; i < c->joint_count; ++i) {
		const solver_joint_head *sj = &c->joints[i];
		if (!sj->hot)
			continue;
		c->bodies[sj->a].ball = c->bodies[sj->b].ball = 1;
		if (lane == L || sj->stage != stage) {
			for (uint32_t s = stage == UINT32_MAX ? 0 : stage; s < sj->stage; ++s)
				c->ball_stage_end[s] = nb;
			c->ball_batches[nb++].joint[0] = i;
			lane = 0;
			stage = sj->stage;
		}
		lane++;
	}
	for (uint32_t s = stage; s <= FXS_STAGE_OVERFLOW; ++s)
		c->ball_stage_end[s] = nb;
	c->ball_batch_count = nb;
	/* the batches, in blocks with workers */
	*c->ovf += fxs_solver_run(c, pack_range, 0, nb, FXS_BALL_PACK_BLOCK, 0);
	return true;
}

static uint32_t softness_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	(void)unused;
	for (uint32_t i = first; i < end; ++i) {
		ball_batch *bt = &c->ball_batches[i];
		for (int l = 0; l < L; ++l) {
			if (bt->joint[l] == FXS_BALL_EMPTY)
				continue;
			const soft *s = &c->joints[bt->joint[l]].s;
			bt->bias_rate[l] = s->bias_rate, bt->mass_scale[l] = s->mass_scale, bt->impulse_scale[l] = s->impulse_scale;
		}
	}
	return 0;
}

/* in blocks of 64 batches with workers (each batch its own) */
void fxs_ball_batches_softness(solver_ctx *c) { fxs_solver_run(c, softness_range, 0, c->ball_batch_count, 64, 0); }

/* batches [first, end)'s impulses to their joints (each joint in one batch) */
static uint32_t store_range(solver_ctx *c, uint32_t first, uint32_t end, int unused)
{
	(void)unused;
	for (uint32_t i = first; i < end; ++i) {
		const ball_batch *bt = &c->ball_batches[i];
		for (int l = 0; l < L; ++l) {
			if (bt->joint[l] == FXS_BALL_EMPTY)
				continue;
			int64_t *P = c->w->joints[c->joints[bt->joint[l]].index].impulse;
			P[0] = bt->P[0][l], P[1] = bt->P[1][l], P[2] = bt->P[2][l];
		}
	}
	return 0;
}

/* in blocks of 64 batches with workers (each joint in one batch) */
void fxs_ball_store(solver_ctx *c) { fxs_solver_run(c, store_range, 0, c->ball_batch_count, 64, 0); }

/* ---- the kernels ---- */

static bool quat_eq(fxg_quat a, fxg_quat b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

void fxs_ball_rotations(solver_ctx *c, uint32_t first, uint32_t end)
{
	for (uint32_t i = first; i < end; ++i) {
		solver_body *b = &c->bodies[i];
		if (!b->ball)
			continue;
		const fxg_quat q = c->w->bodies[i].xf.q;
		if (c->kernels && fxg_abs64(q.x) <= FXS_BALL_QUAT_MAX && fxg_abs64(q.y) <= FXS_BALL_QUAT_MAX &&
		    fxg_abs64(q.z) <= FXS_BALL_QUAT_MAX && fxg_abs64(q.w) <= FXS_BALL_QUAT_MAX)
			continue; /* the kernels make it (joint_batch_vector.h) */
		if (quat_eq(q, b->rot_q))
			continue; /* made from this orientation already */
		b->rot = fxg_m3_from_quat(q, c->ovf);
		b->rot_q = q;
	}
}

/* the lever arms and the separation of lane l from the bodies' current
 * poses; whether an arm changed */
static bool lever_arms(solver_ctx *c, ball_batch *bt, int l, uint32_t *ovf)
{
	const fxs_body *ba = &c->w->bodies[bt->a[l]], *bb = &c->w->bodies[bt->b[l]];
	fxg_vec3 ra = fxg_m3_mul_v3(*fxs_ball_body_rotation(c, bt->a[l]), LANE_V3(bt->local_a, l), ovf);
	fxg_vec3 rb = fxg_m3_mul_v3(*fxs_ball_body_rotation(c, bt->b[l]), LANE_V3(bt->local_b, l), ovf);
	fxg_vec3 c0 = fxg_v3_sub(fxg_v3_add(bb->xf.p, rb, ovf), fxg_v3_add(ba->xf.p, ra, ovf), ovf);
	const bool turned = !fxg_v3_eq(ra, LANE_V3(bt->ra, l)) || !fxg_v3_eq(rb, LANE_V3(bt->rb, l));
	bt->ra[0][l] = ra.x, bt->ra[1][l] = ra.y, bt->ra[2][l] = ra.z;
	bt->rb[0][l] = rb.x, bt->rb[1][l] = rb.y, bt->rb[2][l] = rb.z;
	bt->c0[0][l] = c0.x, bt->c0[1][l] = c0.y, bt->c0[2][l] = c0.z;
	return turned;
}

uint32_t fxs_ball_setup(solver_ctx *c, uint32_t first, uint32_t end, bool all)
{
	if (c->kernels) /* they make the rotations too */
		return c->kernels->ball_setup(c, first, end, all);
	uint32_t local = 0;
	for (uint32_t i = first; i < end; ++i) {
		ball_batch *bt = &c->ball_batches[i];
		bool turned = false;
		for (int l = 0; l < L; ++l)
			if (bt->joint[l] != FXS_BALL_EMPTY)
				turned |= lever_arms(c, bt, l, &local);
		/* a batch whose arms all stayed keeps its responses and inverses
		 * (and the saturations their rare lanes counted are not counted
		 * again): batch by batch, as the vector kernels decide */
		if (!turned && !all)
			continue;
		for (int l = 0; l < L; ++l)
			if (bt->joint[l] != FXS_BALL_EMPTY)
				fxs_ball_setup_lane(c, bt, l, &local);
	}
	return local;
}

uint32_t fxs_ball_warm_start(solver_ctx *c, uint32_t first, uint32_t end)
{
	if (c->kernels)
		return c->kernels->ball_warm_start(c, first, end);
	uint32_t local = 0;
	for (uint32_t i = first; i < end; ++i) {
		ball_batch *bt = &c->ball_batches[i];
		for (int l = 0; l < L; ++l) {
			if (bt->joint[l] == FXS_BALL_EMPTY)
				continue;
			const int32_t p[3] = { impulse32(bt->P[0][l], &local), impulse32(bt->P[1][l], &local),
					       impulse32(bt->P[2][l], &local) };
			ball_apply(bt, l, &c->bodies[bt->a[l]], &c->bodies[bt->b[l]], p, &local);
		}
	}
	return local;
}

uint32_t fxs_ball_solve(solver_ctx *c, uint32_t first, uint32_t end, bool use_bias)
{
	if (c->kernels)
		return c->kernels->ball_solve(c, first, end, use_bias);
	uint32_t local = 0;
	for (uint32_t i = first; i < end; ++i) {
		ball_batch *bt = &c->ball_batches[i];
		for (int l = 0; l < L; ++l)
			if (bt->joint[l] != FXS_BALL_EMPTY)
				solve_lane(c, bt, l, use_bias, &local);
	}
	return local;
}
