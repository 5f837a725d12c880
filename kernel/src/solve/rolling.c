/* Rolling resistance (rolling.h; the model in docs/simulation.md).
 *
 * A ball on a floor rolls without slipping: friction does no work, and
 * nothing in a rigid contact slows it. Real balls, tyres and barrels slow
 * because their contact patch deforms; as Box2D v3 and Box3D do, that is
 * modelled as an angular impulse about the contact's tangents (the rolling
 * axes; spin about the normal is the twist friction's) that opposes the
 * bodies' relative angular velocity, bounded like a friction:
 *
 *   |P| <= c r N,  c = the larger of the bodies' coefficient times rolling
 *                  radius (sphere, capsule and cylinder: their radius; other
 *                  shapes 0), N = the manifold's normal impulse
 *
 * so a rolling body feels a constant torque c r |F_n| against its rolling
 * until it stops: a sphere then decelerates at c g / (1 + I / (m r^2)).
 *
 * It is one pass of its own, once per sub-step at its end (after the
 * relax iterations), from that sub-step's normal impulses (the soft step's
 * impulses are per sub-step: the warm start applies them again each
 * sub-step; after the biased pass alone they fell 3% short of m g h for a
 * ball at rest, and so did the deceleration); its impulse starts from zero
 * each sub-step (no warm start: no state), and the next sub-step's friction
 * re-makes the rolling contact at the slower spin. The pass runs serially, in the batches' solve order
 * (stage, then canonical contact index), after every worker is done with
 * the batches: the same bits with any kernels and any number of workers.
 * Contacts the boxed LCP solves (def.direct_contact_rows, off by default)
 * are not in the batches and get no rolling resistance.
 *
 * Numbers: the rows' responses and masses in Q32.32 as solver.h's rows,
 * the impulses int64 Q16.16 N m s; the bound c r N is at most 2^50 (the
 * friction's carry bound) and the clamp to the circle of that radius is
 * made on values shifted below 2^31, exact for the impulses of every
 * stated range. */
#include "solve/rolling.h"
#include "solve/contact_batch.h"
#include "collide/contact.h"

#include <string.h>

typedef struct rolling_item {
	uint32_t a, b;  /* solver body slots (the world contact's) */
	uint32_t batch; /* where its normal impulses are */
	uint32_t lane;
	fix16_t reach;         /* c r, m */
	fxg_vec3 t[2];         /* the contact's tangents (the batch's) */
	fxg_wide ia[2][3];     /* Ia^-1 t */
	fxg_wide ib[2][3];     /* Ib^-1 t */
	fxg_wide mass[2];      /* 1 / (t . (Ia^-1 + Ib^-1) t), Q32.32 kg m^2 */
} rolling_item;

typedef struct rolling_set {
	uint32_t count;
	rolling_item items[];
} rolling_set;

/* the radius a shape rolls on: round shapes only */
static fix16_t rolling_radius(const fxs_shape *s)
{
	switch (s->type) {
	case FXS_SHAPE_SPHERE:
	case FXS_SHAPE_CAPSULE:
	case FXS_SHAPE_CYLINDER: return s->radius;
	default: return 0;
	}
}

static fix16_t body_reach(const fxs_body *b, uint32_t *ovf)
{
	if (!b->rolling_resistance)
		return 0;
	return fxg_mul(b->rolling_resistance, rolling_radius(&b->shape), ovf);
}

bool fxs_rolling_prepare(solver_ctx *c)
{
	fxs_world *w = c->w;
	if (!w->rolling_seen)
		return true;
	uint32_t n = 0;
	for (uint32_t i = 0; i < c->batch_count; ++i)
		for (int l = 0; l < FXS_LANES; ++l) {
			uint32_t idx = c->batches[i].index[l];
			if (idx == FXS_LANE_EMPTY)
				continue;
			const fxs_contact *fc = &w->contacts[idx];
			n += (w->bodies[fc->a].rolling_resistance | w->bodies[fc->b].rolling_resistance) != 0;
		}
	size_t need = sizeof(rolling_set) + (size_t)n * sizeof(rolling_item);
	rolling_set *set = (rolling_set *)fxs_scratch_aligned(&w->rolling_scratch, &w->rolling_scratch_size, need);
	if (!set)
		return false;
	set->count = 0;
	uint32_t *ovf = c->ovf;
	for (uint32_t i = 0; i < c->batch_count; ++i) {
		const contact_batch *bt = &c->batches[i];
		for (int l = 0; l < FXS_LANES; ++l) {
			uint32_t idx = bt->index[l];
			if (idx == FXS_LANE_EMPTY)
				continue;
			const fxs_contact *fc = &w->contacts[idx];
			const fxs_body *ba = &w->bodies[fc->a], *bb = &w->bodies[fc->b];
			if (!(ba->rolling_resistance | bb->rolling_resistance))
				continue;
			/* a compound's children are not round as a whole */
			fix16_t ra = fc->sub_a || ba->shape.type == FXS_SHAPE_COMPOUND ? 0 : body_reach(ba, ovf);
			fix16_t rb = fc->sub_b || bb->shape.type == FXS_SHAPE_COMPOUND ? 0 : body_reach(bb, ovf);
			fix16_t reach = fxg_max(ra, rb);
			if (reach <= 0)
				continue;
			rolling_item *it = &set->items[set->count];
			const solver_body *A = &c->bodies[fc->a], *B = &c->bodies[fc->b];
			it->a = fc->a, it->b = fc->b;
			it->batch = i, it->lane = (uint32_t)l;
			it->reach = reach;
			bool usable = false;
			for (int k = 0; k < 2; ++k) {
				fxg_vec3 t = fxg_v3(bt->d[1 + k][0][l], bt->d[1 + k][1][l], bt->d[1 + k][2][l]);
				it->t[k] = t;
				wvec3 ia = sym_mul(&A->inv_i, t, ovf), ib = sym_mul(&B->inv_i, t, ovf);
				it->ia[k][0] = ia.x, it->ia[k][1] = ia.y, it->ia[k][2] = ia.z;
				it->ib[k][0] = ib.x, it->ib[k][1] = ib.y, it->ib[k][2] = ib.z;
				fxg_wide kk = fxg_add64(wdot(ia, t, ovf), wdot(ib, t, ovf), ovf);
				it->mass[k] = kk > 0 ? fxg_wide_recip(kk, ovf) : 0;
				usable |= it->mass[k] != 0;
			}
			set->count += usable; /* nothing here can turn: nothing to resist */
		}
	}
	return true;
}

/* |x| < 2^63 */
static int64_t abs64(int64_t x) { return x < 0 ? -x : x; }

/* (p0, p1) shortened to length m when longer (0 <= m <= 2^50): the
 * lengths compared on the values shifted below 2^31, whose squares add up
 * inside uint64 */
static void clamp_circle(int64_t p[2], int64_t m)
{
	int64_t big = abs64(p[0]) | abs64(p[1]) | m;
	int s = 0;
	while ((big >> s) >= ((int64_t)1 << 31))
		++s;
	int64_t x = p[0] >> s, y = p[1] >> s, ms = m >> s;
	uint64_t len2 = (uint64_t)(x * x) + (uint64_t)(y * y);
	if (len2 <= (uint64_t)(ms * ms))
		return;
	int64_t len = (int64_t)fxg_isqrt64_round(len2); /* > ms >= 0 */
	/* x ms / len: |x ms| < 2^62 */
	p[0] = fxg_div_round64(x * ms, len) * ((int64_t)1 << s);
	p[1] = fxg_div_round64(y * ms, len) * ((int64_t)1 << s);
}

void fxs_rolling_solve(solver_ctx *c)
{
	fxs_world *w = c->w;
	if (!w->rolling_seen)
		return;
	const rolling_set *set = (const rolling_set *)fxs_scratch_aligned(&w->rolling_scratch, &w->rolling_scratch_size, 0);
	uint32_t *ovf = c->ovf;
	for (uint32_t i = 0; i < set->count; ++i) {
		const rolling_item *it = &set->items[i];
		const contact_batch *bt = &c->batches[it->batch];
		const uint32_t l = it->lane;
		int64_t n = 0; /* the manifold's normal impulse this sub-step, each point's <= 2^40 */
		for (int k = 0; k < bt->count[l]; ++k)
			n += bt->impulse[k][l];
		if (n <= 0)
			continue;
		int64_t m = fxg_wmul(n, it->reach, ovf); /* c r N, Q16.16 N m s */
		m = m > FXS_FRICTION_IMPULSE_MAX ? FXS_FRICTION_IMPULSE_MAX : m;
		solver_body *A = &c->bodies[it->a], *B = &c->bodies[it->b];
		int64_t p[2];
		for (int k = 0; k < 2; ++k) {
			/* the relative spin about tangent k, rad/s */
			fix16_t s = fxg_sat(fxg_shr_round(dot_raw(B->w, it->t[k]) - dot_raw(A->w, it->t[k]), 16), ovf);
			p[k] = -fxg_wmul_fix64(it->mass[k], s);
		}
		clamp_circle(p, m);
		for (int k = 0; k < 2; ++k) {
			fix16_t pk = fxg_sat(p[k], ovf);
			if (pk == 0)
				continue;
			add_response(&A->w, it->ia[k], pk == INT32_MIN ? INT32_MAX : -pk, ovf);
			add_response(&B->w, it->ib[k], pk, ovf);
		}
	}
}
