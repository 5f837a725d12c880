/* Box pairs: sphere-box, box-capsule, box-box.
 *
 * All geometry is done in the local frame of one box (relative positions), so
 * products stay within the ranges stated in collide_common.h. Separating-axis
 * choices prefer face axes by a fixed relative tolerance (FXS_NP_REL_*), so a
 * resting box keeps its reference face, its incident face and therefore its
 * feature ids from step to step.
 *
 * Feature ids (unique within a manifold, stable while the touching features
 * stay the same):
 *   sphere-box      0
 *   box-capsule     face: 0x100 | face << 1 | end (end 0 = lower capsule
 *                   parameter); edge axis: 0x200 | axis; edge/vertex region: 0x300
 *   box-box face    ref box (0 = first, 1 = second) << 12 | ref face << 9 |
 *                   incident face << 6 | the two lines meeting at the point
 *                   (incident face edges 0..3, reference side planes 4..7),
 *                   smaller << 3 | larger
 *   box-box edge    0x2000 | edge of A << 6 | edge of B (edge = axis << 2 | signs)
 * A face index is axis << 1 | (normal negative). */
#include "collide/collide_common.h"


/* ------------------------------------------------------------------ sphere-box */

void fxs_collide_sphere_box(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			    fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 dw;
	if (!np_rel(xb->p, xa->p, &dw))
		return;
	fxg_mat3 rb = fxg_m3_from_quat(xb->q, ovf);
	fxg_vec3 c = fxg_m3_tmul_v3(rb, dw, ovf); /* sphere centre in the box frame */
	fxg_vec3 h = b->half_extents;
	fxg_vec3 q = fxg_v3(fxg_clamp(c.x, -h.x, h.x), fxg_clamp(c.y, -h.y, h.y), fxg_clamp(c.z, -h.z, h.z));
	fix16_t r = a->radius;
	fxg_vec3 nl, pbox;
	fxg_vec3 nw; /* world normal, box to sphere */
	int64_t sep;
	if (fxg_v3_eq(c, q)) {
		/* centre inside: leave through the nearest face (ties: lowest axis, +) */
		int best = 0;
		int64_t best_depth = INT64_MAX;
		for (int k = 0; k < 3; ++k) {
			int64_t ck = fxg_v3_comp(c, k);
			int64_t depth = (int64_t)fxg_v3_comp(h, k) - fxg_abs64(ck);
			if (depth < best_depth) {
				best_depth = depth;
				best = k;
			}
		}
		fix16_t sg = fxg_v3_comp(c, best) >= 0 ? FXG_ONE : -FXG_ONE;
		nl = fxg_v3_zero();
		fxg_v3_set_comp(&nl, best, sg);
		pbox = c;
		fxg_v3_set_comp(&pbox, best, sg > 0 ? fxg_v3_comp(h, best) : -fxg_v3_comp(h, best));
		sep = -best_depth - r;
		nw = sg > 0 ? fxg_m3_col(&rb, best) : np_neg(fxg_m3_col(&rb, best));
	} else {
		fix16_t dist;
		nl = np_normalize(np_sub(c, q), &dist);
		pbox = q;
		sep = (int64_t)dist - r;
		nw = fxg_m3_mul_v3(rb, nl, ovf);
	}
	m->normal = np_neg(nw);
	if (sep > speculative)
		return;
	fxg_vec3 psph = np_madd(c, -r, nl);
	np_add_point(m, np_to_world(xb->p, &rb, np_mid(pbox, psph), ovf), (fix16_t)sep, 0);
}

/* ---------------------------------------------------------------- box-capsule */

/* Squared distance (Q32.32) from c + s u to the box of half extents h. */
static int64_t seg_box_d2(fxg_vec3 c, fxg_vec3 u, fix16_t s, fxg_vec3 h)
{
	fxg_vec3 x = np_madd(c, s, u);
	int64_t d2 = 0;
	for (int k = 0; k < 3; ++k) {
		int64_t xk = fxg_v3_comp(x, k), hk = fxg_v3_comp(h, k);
		int64_t e = xk > hk ? xk - hk : (xk < -hk ? xk + hk : 0);
		d2 += e * e;
	}
	return d2;
}

/* Parameter in [-hh, hh] of the point of segment c + s u closest to the box.
 * The squared distance is a convex piecewise quadratic in s whose pieces end
 * where a coordinate crosses a face plane (at most 6 breakpoints). Every
 * breakpoint, the stationary point of every piece and every piece's middle
 * is a candidate; the smallest squared distance wins (ties: lowest s). */
static fix16_t seg_box_closest(fxg_vec3 c, fxg_vec3 u, fix16_t hh, fxg_vec3 h, int64_t *d2_out)
{
	fix16_t br[8];
	int nb = 0;
	br[nb++] = -hh;
	for (int k = 0; k < 3; ++k) {
		int64_t uk = fxg_v3_comp(u, k), ck = fxg_v3_comp(c, k), hk = fxg_v3_comp(h, k);
		if (uk == 0)
			continue;
		for (int sg = -1; sg <= 1; sg += 2) {
			int64_t num = sg * hk - ck; /* s = num / uk */
			if (fxg_abs64(num) >= (int64_t)hh * fxg_abs64(uk) / 65536)
				continue; /* outside (-hh, hh) (conservative) */
			int64_t s = fxg_div_round64(num * 65536, uk);
			if (s > -hh && s < hh)
				br[nb++] = (fix16_t)s;
		}
	}
	br[nb++] = hh;
	/* insertion sort of the inner breakpoints (deterministic, <= 8 items) */
	for (int i = 2; i < nb - 1; ++i)
		for (int j = i; j > 1 && br[j - 1] > br[j]; --j) {
			fix16_t t = br[j];
			br[j] = br[j - 1];
			br[j - 1] = t;
		}
	fix16_t best_s = -hh;
	int64_t best = seg_box_d2(c, u, -hh, h);
	for (int i = 0; i < nb; ++i) {
		fix16_t cand[3];
		int nc = 0;
		cand[nc++] = br[i];
		if (i + 1 < nb) {
			fix16_t lo = br[i], hi = br[i + 1];
			fix16_t mid = (fix16_t)(((int64_t)lo + hi) >> 1);
			fxg_vec3 x = np_madd(c, mid, u);
			int64_t num = 0, den = 0;
			for (int k = 0; k < 3; ++k) {
				int64_t xk = fxg_v3_comp(x, k), hk = fxg_v3_comp(h, k), uk = fxg_v3_comp(u, k);
				int64_t o = xk > hk ? fxg_v3_comp(c, k) - hk : (xk < -hk ? fxg_v3_comp(c, k) + hk : 0);
				if (o == 0 && xk <= hk && xk >= -hk)
					continue;
				num += o * uk;
				den += uk * uk;
			}
			if (den > 0)
				cand[nc++] = (fix16_t)fxg_clamp64(fxg_div_round64(-num * 65536, den), lo, hi);
			else
				cand[nc++] = mid;
		}
		for (int j = 0; j < nc; ++j) {
			int64_t d2 = seg_box_d2(c, u, cand[j], h);
			if (d2 < best || (d2 == best && cand[j] < best_s)) {
				best = d2;
				best_s = cand[j];
			}
		}
	}
	*d2_out = best;
	return best_s;
}

/* Contacts of the segment against box face (axis k, sign sg): the segment is
 * clipped to the face's side slabs; each end of the clipped part gives a
 * point (one if the part is shorter than 1/256 m). nl is the local normal. */
static void capsule_face(fxg_vec3 c, fxg_vec3 u, fix16_t hh, fix16_t r, fxg_vec3 h, int k, int sg, fix16_t speculative,
			 const fxs_transform *xa, const fxg_mat3 *ra, fxs_manifold *m, uint32_t *ovf)
{
	int64_t lo = -hh, hi = hh;
	for (int j = 0; j < 3; ++j) {
		if (j == k)
			continue;
		int64_t uj = fxg_v3_comp(u, j), cj = fxg_v3_comp(c, j), hj = fxg_v3_comp(h, j);
		if (uj == 0)
			continue;
		int64_t s1 = fxg_div_round64((-hj - cj) * 65536, uj), s2 = fxg_div_round64((hj - cj) * 65536, uj);
		if (s1 > s2) {
			int64_t t = s1;
			s1 = s2;
			s2 = t;
		}
		lo = lo > s1 ? lo : s1;
		hi = hi < s2 ? hi : s2;
	}
	if (lo > hi) /* the segment misses the face prism (rounding, or a tilted deep hit) */
		lo = hi = fxg_clamp64((lo + hi) >> 1, -hh, hh);
	int n = hi - lo > 256 ? 2 : 1;
	int fidx = k * 2 + (sg < 0);
	fxg_vec3 nl = fxg_v3_zero();
	fxg_v3_set_comp(&nl, k, sg > 0 ? FXG_ONE : -FXG_ONE);
	fxg_vec3 col = fxg_m3_col(ra, k);
	m->normal = sg > 0 ? col : np_neg(col);
	for (int e = 0; e < n; ++e) {
		fix16_t s = (fix16_t)(n == 1 ? (lo + hi) >> 1 : (e == 0 ? lo : hi));
		fxg_vec3 x = np_madd(c, s, u);
		int64_t xk = fxg_v3_comp(x, k), hk = fxg_v3_comp(h, k);
		int64_t sep = (sg > 0 ? xk - hk : -xk - hk) - r;
		if (sep > speculative)
			continue;
		fxg_vec3 pbox = fxg_v3(fxg_clamp(x.x, -h.x, h.x), fxg_clamp(x.y, -h.y, h.y), fxg_clamp(x.z, -h.z, h.z));
		fxg_v3_set_comp(&pbox, k, sg > 0 ? (fix16_t)hk : (fix16_t)-hk);
		fxg_vec3 pcap = np_madd(x, -r, nl);
		np_add_point(m, np_to_world(xa->p, ra, np_mid(pbox, pcap), ovf), (fix16_t)sep,
			     0x100u | (uint32_t)fidx << 1 | (uint32_t)e);
	}
}

void fxs_collide_box_capsule(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			     fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 dw;
	if (!np_rel(xa->p, xb->p, &dw))
		return;
	fxg_mat3 ra = fxg_m3_from_quat(xa->q, ovf), rb = fxg_m3_from_quat(xb->q, ovf);
	fxg_vec3 c = fxg_m3_tmul_v3(ra, dw, ovf);    /* capsule centre in the box frame */
	fxg_vec3 u = fxg_m3_tmul_v3(ra, rb.cy, ovf); /* capsule axis in the box frame */
	fxg_vec3 h = a->half_extents;
	fix16_t hh = b->half_height, r = b->radius;

	int64_t d2;
	fix16_t s = seg_box_closest(c, u, hh, h, &d2);
	if (d2 > 4) {
		/* the core is outside the box: the closest points give the normal */
		fxg_vec3 x = np_madd(c, s, u);
		fxg_vec3 q = fxg_v3(fxg_clamp(x.x, -h.x, h.x), fxg_clamp(x.y, -h.y, h.y), fxg_clamp(x.z, -h.z, h.z));
		fix16_t dist;
		fxg_vec3 nl = np_normalize(np_sub(x, q), &dist);
		int outside = 0, k = 0;
		for (int j = 0; j < 3; ++j)
			if (fxg_v3_comp(x, j) != fxg_v3_comp(q, j)) {
				++outside;
				k = j;
			}
		int64_t sep = (int64_t)dist - r;
		m->normal = fxg_m3_mul_v3(ra, nl, ovf);
		if (sep > speculative)
			return;
		if (outside == 1) {
			capsule_face(c, u, hh, r, h, k, fxg_v3_comp(x, k) > 0 ? 1 : -1, speculative, xa, &ra, m, ovf);
			return;
		}
		fxg_vec3 pcap = np_madd(x, -r, nl);
		np_add_point(m, np_to_world(xa->p, &ra, np_mid(q, pcap), ovf), (fix16_t)sep, 0x300u);
		return;
	}

	/* The core touches or crosses the box: separating axes (3 faces, and the
	 * capsule axis crossed with the 3 box edge directions). Q16.16. */
	int64_t face_sep = INT64_MIN;
	int face_k = 0;
	for (int k = 0; k < 3; ++k) {
		int64_t sk = fxg_abs64(fxg_v3_comp(c, k)) - fxg_v3_comp(h, k) - fxg_mul_round64(hh, fxg_abs64(fxg_v3_comp(u, k)));
		if (sk > face_sep) {
			face_sep = sk;
			face_k = k;
		}
	}
	int64_t edge_sep = INT64_MIN;
	int edge_k = -1;
	fxg_vec3 edge_n = fxg_v3_zero();
	for (int k = 0; k < 3; ++k) {
		/* n = u x e_k */
		fxg_vec3 n = k == 0 ? fxg_v3(0, u.z, -u.y) : (k == 1 ? fxg_v3(-u.z, 0, u.x) : fxg_v3(u.y, -u.x, 0));
		int64_t len2 = np_dot_w(n, n);
		if (len2 < ((int64_t)1 << 20)) /* sin < 1/64: the face axes cover it */
			continue;
		fix16_t len = (fix16_t)fxg_isqrt64_round((uint64_t)len2);
		int64_t num = fxg_abs64(np_dot_w(c, n)) - ((int64_t)h.x * fxg_abs64(n.x) + (int64_t)h.y * fxg_abs64(n.y) + (int64_t)h.z * fxg_abs64(n.z));
		int64_t sk = fxg_div_round64(num, len);
		if (sk > edge_sep) {
			edge_sep = sk;
			edge_k = k;
			edge_n = n;
		}
	}
	if (edge_k >= 0 && edge_sep > fxg_mul_round64(FXS_NP_REL_EDGE, face_sep) + FXS_NP_ABS_TOL) {
		int64_t sep = edge_sep - r;
		fix16_t len;
		fxg_vec3 nl = np_normalize(edge_n, &len);
		if (np_dot_w(c, nl) < 0)
			nl = np_neg(nl);
		m->normal = fxg_m3_mul_v3(ra, nl, ovf);
		if (sep > speculative)
			return;
		/* the box edge along e_k on the side of nl */
		fxg_vec3 pe = fxg_v3(nl.x >= 0 ? h.x : -h.x, nl.y >= 0 ? h.y : -h.y, nl.z >= 0 ? h.z : -h.z);
		fxg_v3_set_comp(&pe, edge_k, 0);
		fxg_vec3 ek = fxg_v3_zero();
		fxg_v3_set_comp(&ek, edge_k, FXG_ONE);
		fix16_t se, sc;
		np_segments_closest(np_sub(pe, c), ek, fxg_v3_comp(h, edge_k), u, hh, &se, &sc);
		fxg_vec3 xe = np_madd(pe, se, ek);
		fxg_vec3 xc = np_madd(np_madd(c, sc, u), -r, nl);
		np_add_point(m, np_to_world(xa->p, &ra, np_mid(xe, xc), ovf), (fix16_t)sep, 0x200u | (uint32_t)edge_k);
		return;
	}
	if (face_sep - r > speculative) {
		m->normal = fxg_v3_comp(c, face_k) >= 0 ? fxg_m3_col(&ra, face_k) : np_neg(fxg_m3_col(&ra, face_k));
		return;
	}
	capsule_face(c, u, hh, r, h, face_k, fxg_v3_comp(c, face_k) >= 0 ? 1 : -1, speculative, xa, &ra, m, ovf);
}
