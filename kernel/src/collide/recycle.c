/* Contact recycling.
 *
 * A box or hull pair whose bodies moved little since its manifold was made
 * keeps that manifold (Box3D's contact recycling, after the persistent
 * manifolds of other engines): the points, their feature ids and lever
 * arms, and the normal, as they were made; each point's separation follows
 * the two bodies' material points at it along that normal,
 *   s = s0 + n0 . (d + Rb (a - d0) - Ra a),
 * with a the point's lever arm from a's centre and d0 b's centre less a's
 * when it was made, d now, and Ra, Rb the bodies' turns since then.
 *
 * Why: a manifold made afresh every step moves its lever arms and normal
 * with every tilt of the bodies, and in a stack resting on soft contacts
 * those tilts feed back: the weight above bears on a lever arm that grows
 * with the lean (the P-delta of a column), so that a column of more than
 * 15 unit cubes at the default 30 Hz buckles and falls. With the manifold
 * kept, the lever arms stay those of the pose it was made in while the
 * motion is small: the contacts' springs alone decide, and a column of 20
 * (or 40) stands. It also keeps feature ids (and so warm starts) through
 * the mm-sized slides and tilts at which a fresh clipping changes them, and
 * saves the clipping. A manifold is made afresh when the material points
 * at it may have moved more than RECYCLE_SLOPS linear slops relative to each
 * other (their centres' displacement plus twice each turn's |dq.xyz| times
 * its longest lever arm), when either body turned more than 10 degrees, or
 * when the surfaces slid along each other more than a linear slop since it
 * was made (they are sliding: see the friction anchor below).
 *
 * The arithmetic of the test is made eight pairs at a time by the vector
 * kernels (recycle_vector.h) in a resting stack, where nearly every pair
 * keeps its manifold and the test was a seventh of a step; fxs_recycle_lane
 * finishes it for one of them, with the same bits. */
#include "collide/recycle.h"
#include "collide/contact.h"

/* the sum g of np points' values over np (1 to 4), each divisor a constant */
static int64_t mean_round(int64_t g, int np)
{
	switch (np) {
	case 4:
		return fxg_div_round64(g, 4);
	case 3:
		return fxg_div_round64(g, 3);
	case 2:
		return fxg_div_round64(g, 2);
	default:
		return g;
	}
}

/* the turn from q0 to q (q conj(q0), w >= 0); exactly none when q is q0 */
static fxg_quat turn_since(fxg_quat q, fxg_quat q0, uint32_t *ovf)
{
	if (q.x == q0.x && q.y == q0.y && q.z == q0.z && q.w == q0.w)
		return fxg_q_identity();
	fxg_quat d = fxg_q_mul(q, fxg_q_conj(q0), ovf);
	return d.w < 0 ? fxg_q(-d.x, -d.y, -d.z, -d.w) : d;
}

/* The end of the test, for c (prev's manifold) whose points' new
 * separations are sep and whose gaps sum to g: no contact when every point
 * is beyond the speculative distance (all_beyond); else whether the
 * surfaces have not slid. The friction's anchor error (contact_batch.c) is the mean gap,
 * whose part along the tangents is how far the surfaces slid since the
 * manifold was made. Surfaces that slid more than a linear slop are
 * sliding, not resting: their manifold is made afresh where they are (and
 * with it the anchor), so that friction does not pull them back.
 * (mean_round: divisions by a variable count were a tenth of this.) It
 * reads prev, not c: c was just written by a block copy, and its fields
 * would wait for it (no store forwarding from it). */
static bool all_beyond(const fix16_t sep[4], int np, fix16_t speculative)
{
	bool near = false;
	for (int k = 0; k < np; ++k)
		near |= sep[k] <= speculative;
	return !near;
}

static bool slid_little(const fxs_contact *prev, const fix16_t sep[4], const int64_t g[3], fix16_t linear_slop,
			fix16_t speculative, fxs_contact *c, uint32_t *ovf)
{
	const int np = prev->point_count;
	if (all_beyond(sep, np, speculative)) {
		c->point_count = 0; /* no contact, as made afresh */
		return true;
	}
	const fxg_vec3 slip =
		fxg_v3((fix16_t)mean_round(g[0], np), (fix16_t)mean_round(g[1], np), (fix16_t)mean_round(g[2], np));
	c->slip = slip;
	const fxg_vec3 n = prev->normal;
	fxg_vec3 along = fxg_v3_sub(slip, fxg_v3_scale(fxg_v3_dot(n, slip, ovf), n, ovf), ovf);
	return fxs_l1(along) <= linear_slop;
}

bool fxs_recycle(const fxs_contact *prev, const fxs_transform *xa, const fxs_transform *xb, fix16_t linear_slop,
		 fix16_t speculative, fxs_contact *c, uint32_t *ovf)
{
	fxg_quat dqa = turn_since(xa->q, prev->qa0, ovf), dqb = turn_since(xb->q, prev->qb0, ovf);
	int64_t ta = fxs_l1(fxg_v3(dqa.x, dqa.y, dqa.z)), tb = fxs_l1(fxg_v3(dqb.x, dqb.y, dqb.z));
	if (ta > 3 * RECYCLE_MAX_TURN || tb > 3 * RECYCLE_MAX_TURN) /* |v| <= |v|_1 <= 3 |v|_max */
		return false;
	fxg_vec3 d = fxg_v3_sub(xb->p, xa->p, ovf);
	int64_t reach_a = 0, reach_b = 0;
	for (int k = 0; k < prev->point_count; ++k) {
		const fxs_contact_point *p = &prev->points[k];
		fxg_vec3 ab = fxg_v3_sub(p->anchor_a, prev->d0, ovf);
		int64_t ra = fxs_l1(p->anchor_a), rb = fxs_l1(ab);
		reach_a = ra > reach_a ? ra : reach_a;
		reach_b = rb > reach_b ? rb : reach_b;
	}
	/* |components| below 2^31: the products below 2^64 are kept below 2^62 by the turn test */
	int64_t moved = fxs_l1(fxg_v3_sub(d, prev->d0, ovf)) + ((2 * (ta * reach_a + tb * reach_b)) >> 16);
	if (moved >= (int64_t)RECYCLE_SLOPS * linear_slop)
		return false;
	/* c's fields are read from prev: just written by a block copy, they
	 * would wait for it (no store forwarding from it) */
	*c = *prev;
	fix16_t sep[4];
	const bool turned_a = dqa.x | dqa.y | dqa.z, turned_b = dqb.x | dqb.y | dqb.z;
	fxg_mat3 ra, rb;
	if (turned_a)
		ra = fxg_m3_from_quat(dqa, ovf);
	if (turned_b)
		rb = fxg_m3_from_quat(dqb, ovf);
	int64_t g[3] = { 0, 0, 0 };
	for (int k = 0; k < prev->point_count; ++k) {
		fxs_contact_point *p = &c->points[k];
		const fxs_contact_point *q = &prev->points[k];
		const fxg_vec3 ab = fxg_v3_sub(q->anchor_a, prev->d0, ovf);
		p->anchor_b = ab;
		fxg_vec3 ma = turned_a ? fxg_m3_mul_v3(ra, q->anchor_a, ovf) : q->anchor_a;
		fxg_vec3 mb = turned_b ? fxg_m3_mul_v3(rb, ab, ovf) : ab;
		/* b's material point less a's (zero when the manifold was made) */
		fxg_vec3 gap = fxg_v3_add(d, fxg_v3_sub(mb, ma, ovf), ovf);
		p->separation = sep[k] = fxg_add(q->base_separation, fxg_v3_dot(prev->normal, gap, ovf), ovf);
		g[0] += gap.x, g[1] += gap.y, g[2] += gap.z;
	}
	return slid_little(prev, sep, g, linear_slop, speculative, c, ovf);
}

bool fxs_recycle_lane(const fxs_recycle_lanes *in, int k, const fxs_contact *prev, fix16_t speculative,
		      fxs_contact *c)
{
	if (!(in->keep >> k & 1))
		return false;
	*c = *prev;
	fix16_t sep[4];
	for (int i = 0; i < prev->point_count; ++i) {
		fxs_contact_point *p = &c->points[i];
		p->anchor_b = fxg_v3(in->ab[i][0][k], in->ab[i][1][k], in->ab[i][2][k]);
		p->separation = sep[i] = in->sep[i][k];
	}
	if (all_beyond(sep, prev->point_count, speculative)) {
		c->point_count = 0;
		return true;
	}
	/* slid_little's slip and slide test, made by the kernels */
	c->slip = fxg_v3(in->slip[0][k], in->slip[1][k], in->slip[2][k]);
	return in->still >> k & 1;
}
