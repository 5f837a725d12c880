/* Round pairs: sphere-sphere, sphere-capsule, capsule-capsule.
 *
 * A sphere is a point core plus a radius; a capsule a segment core plus a
 * radius. Every pair reduces to the closest points of the two cores, computed
 * relative to the first body's position (world orientation), then one contact
 * midway between the two surfaces along the line joining the cores. Two
 * nearly parallel, overlapping capsules give two contacts (the ends of the
 * overlap), so a capsule lying on another does not roll about one point. */
#include "collide/collide_common.h"

/* Below this squared sine (Q32.32, 2^-10: about 1.8 degrees) two capsule axes
 * count as parallel and the overlap of their segments gives two points. */
#define CAPSULE_PARALLEL_SIN2 ((int64_t)1 << 22)
/* Overlaps shorter than this (1/256 m) give a single point. */
#define CAPSULE_MIN_OVERLAP ((fix16_t)256)

/* One contact between core points ca and cb (relative to origin), radii ra,
 * rb. `fallback` (unit) is the normal when the cores coincide. */
static void round_contact(fxg_vec3 origin, fxg_vec3 ca, fix16_t ra, fxg_vec3 cb, fix16_t rb, fxg_vec3 fallback,
			  fix16_t speculative, uint32_t id, fxs_manifold *m, uint32_t *ovf)
{
	fix16_t dist;
	fxg_vec3 n = np_normalize(np_sub(cb, ca), &dist);
	if (dist == 0)
		n = fallback;
	m->normal = n;
	int64_t sep = (int64_t)dist - ra - rb;
	if (sep > speculative)
		return;
	fxg_vec3 pa = np_madd(ca, ra, n);
	fxg_vec3 pb = np_madd(cb, -rb, n);
	np_add_point(m, fxg_v3_add(origin, np_mid(pa, pb), ovf), (fix16_t)sep, id);
}

void fxs_collide_spheres(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			 fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 d;
	if (!np_rel(xa->p, xb->p, &d))
		return;
	round_contact(xa->p, fxg_v3_zero(), a->radius, d, b->radius, fxg_v3(0, FXG_ONE, 0), speculative, 0, m, ovf);
}

void fxs_collide_sphere_capsule(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
				const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 d;
	if (!np_rel(xa->p, xb->p, &d))
		return;
	fxg_mat3 rb = fxg_m3_from_quat(xb->q, ovf);
	fxg_vec3 u = rb.cy;
	fix16_t t = fxg_clamp(-np_dot(u, d), -b->half_height, b->half_height);
	fxg_vec3 cb = np_madd(d, t, u);
	/* coincident: push the sphere out sideways, along the capsule's local -x */
	round_contact(xa->p, fxg_v3_zero(), a->radius, cb, b->radius, np_neg(rb.cx), speculative, 0, m, ovf);
}

void fxs_collide_capsules(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			  fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 d;
	if (!np_rel(xa->p, xb->p, &d))
		return;
	fxg_mat3 ra = fxg_m3_from_quat(xa->q, ovf), rb = fxg_m3_from_quat(xb->q, ovf);
	fxg_vec3 u1 = ra.cy, u2 = rb.cy;
	fix16_t h1 = a->half_height, h2 = b->half_height;
	fix16_t s, t;
	np_segments_closest(np_neg(d), u1, h1, u2, h2, &s, &t);
	fxg_vec3 ca = fxg_v3_scale(s, u1, ovf);
	fxg_vec3 cb = np_madd(d, t, u2);

	/* fallback normal for crossing cores: along u1 x u2, else A's local x */
	fix16_t clen;
	fxg_vec3 fallback = np_normalize(fxg_v3_cross(u1, u2, ovf), &clen);
	if (clen == 0)
		fallback = ra.cx;

	fix16_t b12 = np_dot(u1, u2);
	int64_t sin2 = ((int64_t)1 << 32) - (int64_t)b12 * b12;
	if (sin2 < CAPSULE_PARALLEL_SIN2 && b12 != 0) {
		/* parallel: clip B's segment to A's extent along u1 */
		fix16_t dist;
		fxg_vec3 n = np_normalize(np_sub(cb, ca), &dist);
		fix16_t c2 = np_dot(d, u1);
		fix16_t hb = np_w2f((int64_t)h2 * (b12 < 0 ? -b12 : b12));
		fix16_t lo = fxg_max(-h1, c2 - hb), hi = fxg_min(h1, c2 + hb);
		if (dist != 0 && hi - lo > CAPSULE_MIN_OVERLAP) {
			m->normal = n;
			fix16_t qs[2] = { lo, hi };
			for (int k = 0; k < 2; ++k) {
				/* the point of B's core whose projection on u1 is qs[k] */
				int64_t tk = fxg_div_round64(((int64_t)qs[k] - c2) * 65536, b12);
				tk = tk < -h2 ? -h2 : (tk > h2 ? h2 : tk);
				fxg_vec3 pa_core = fxg_v3_scale(qs[k], u1, ovf);
				fxg_vec3 pb_core = np_madd(d, (fix16_t)tk, u2);
				int64_t sep = (int64_t)np_dot(np_sub(pb_core, pa_core), n) - a->radius - b->radius;
				if (sep > speculative)
					continue;
				fxg_vec3 pa = np_madd(pa_core, a->radius, n);
				fxg_vec3 pb = np_madd(pb_core, -b->radius, n);
				np_add_point(m, fxg_v3_add(xa->p, np_mid(pa, pb), ovf), (fix16_t)sep, (uint32_t)k);
			}
			return;
		}
	}
	round_contact(xa->p, ca, a->radius, cb, b->radius, fallback, speculative, 0, m, ovf);
}
