/* Box-box: separating axis test over 3 + 3 face normals and 9 edge-edge
 * axes, then reference-face / incident-face clipping (Sutherland-Hodgman) or
 * one edge-edge point. After ODE's dBoxBox and Gregorius / Catto (GDC 2013,
 * 2015), written for Q16.16.
 *
 * Everything is in the frame of box A: C = RA^T RB (C[i][j] = a_i . b_j, each
 * rounded once), d = RA^T (pB - pA). Face separations are exact in Q32.32
 * given C and d; an edge axis e_i x b_j has components taken straight from C,
 * so its projections need no further rounding either (ODE's formulation).
 * Feature ids: a point is named by the pair (feature of A, feature of B),
 * each a box-local vertex, edge or face (box_feature below), whichever box
 * gave the reference face. A resting box's reference face can change from
 * step to step (two face axes within the tolerance of each other, as in a
 * pyramid where a box rests on two): the same physical point then keeps its
 * id, and so its warm-start impulse. An edge-edge point is (edge, edge), the
 * same id as that edge crossing in a face contact. */
#include "collide/collide_common.h"
#include "fixstep/fixstep.h"

#include <string.h>

/* Edge axes with |e_i x b_j| below 1/64 are skipped: nearly parallel edges
 * are ill-conditioned and the face axes then bound the separation. */
#define EDGE_MIN_LEN2 ((int64_t)1 << 20) /* Q32.32: (1/64)^2 */

/* The reference face is clipped against with its side planes pushed out by
 * this margin: an incident corner on (or a hair outside) a side plane, as in
 * every aligned stack, stays one corner point instead of turning into two
 * edge crossings from one step to the next (which would change its feature
 * id and lose its warm start). Points may lie this far outside the face. */
#define CLIP_MARGIN ((fix16_t)FXS_NP_ABS_TOL) /* 1/512 m */

#define MAX_POLY 8
#define MAX_CAND 8

/* A vertex of the clipped polygon, its components in the order (i1, i2, i)
 * of the reference face (face_contact): the side planes are on components 0
 * and 1, whatever the face, and the clipping has no component to look up. */
typedef struct {
	fix16_t p[3];
	uint8_t out_line; /* line of the edge from this vertex to the next */
} poly_vertex;

typedef np_candidate candidate;

/* Box-local features in 6 bits: 0x10 | vertex (bit k: negative on axis k),
 * 0x20 | edge (axis << 2 | the signs of the other two axes, lower axis
 * first), 0x30 | face (axis << 1 | negative). sg[k] is the side on axis k
 * (+1 / -1); the free axis of an edge is `axis`. */
static uint32_t box_vertex(const int sg[3])
{
	return 0x10u | (uint32_t)(sg[0] < 0) | (uint32_t)(sg[1] < 0) << 1 | (uint32_t)(sg[2] < 0) << 2;
}

static uint32_t box_edge(int axis, const int sg[3])
{
	uint32_t bits = 0;
	for (int k = 0, bit = 0; k < 3; ++k)
		if (k != axis)
			bits |= (uint32_t)(sg[k] < 0) << bit++;
	return 0x20u | (uint32_t)axis << 2 | bits;
}

static uint32_t box_face(int axis, int sign) { return 0x30u | (uint32_t)axis << 1 | (uint32_t)(sign < 0); }

/* Keep the part of the polygon with sg * x_k <= h (k 0 or 1, a constant
 * where it is inlined). The new edge along the plane carries `line`.
 * Returns the new vertex count (<= MAX_POLY). */
static inline __attribute__((always_inline)) int clip_polygon(const poly_vertex *in, int n, poly_vertex *out, int k,
							      int sg, fix16_t h, uint8_t line)
{
	int cnt = 0;
	for (int i = 0; i < n; ++i) {
		const poly_vertex *a = &in[i], *b = &in[i + 1 < n ? i + 1 : 0]; /* no division for the wrap */
		int64_t va = sg * (int64_t)a->p[k], vb = sg * (int64_t)b->p[k];
		bool ina = va <= h, inb = vb <= h;
		if (ina && cnt < MAX_POLY)
			out[cnt++] = *a;
		if (ina != inb && cnt < MAX_POLY) {
			/* a + (b - a) (h - va) / (vb - va): |diff| < 2^30, |h - va| < 2^30;
			 * component k is on the plane: no division for it */
			int64_t num = (int64_t)h - va, den = vb - va;
			for (int q = 0; q < 3; ++q)
				out[cnt].p[q] = q == k ? (fix16_t)(sg * (int64_t)h)
						       : a->p[q] + (fix16_t)fxg_div_round64(((int64_t)b->p[q] - a->p[q]) * num, den);
			out[cnt].out_line = ina ? line : a->out_line;
			++cnt;
		}
	}
	return cnt;
}

static int64_t area2(const candidate *a, const candidate *b, const candidate *c)
{
	return ((int64_t)b->u - a->u) * ((int64_t)c->v - a->v) - ((int64_t)b->v - a->v) * ((int64_t)c->u - a->u);
}

/* Choose up to 4 of n candidates: the deepest, the farthest from it, the one
 * spanning the largest triangle with those two, and the one adding the most
 * area outside that triangle. Every tie goes to the smaller feature id. */
int fxs_np_reduce(const np_candidate *c, int n, int *pick)
{
	if (n <= 4) {
		for (int i = 0; i < n; ++i)
			pick[i] = i;
		return n;
	}
	int i1 = 0;
	for (int i = 1; i < n; ++i)
		if (c[i].sep < c[i1].sep || (c[i].sep == c[i1].sep && c[i].id < c[i1].id))
			i1 = i;
	int i2 = -1;
	int64_t best = -1;
	for (int i = 0; i < n; ++i) {
		if (i == i1)
			continue;
		int64_t du = (int64_t)c[i].u - c[i1].u, dv = (int64_t)c[i].v - c[i1].v;
		int64_t d2 = du * du + dv * dv;
		if (d2 > best || (d2 == best && c[i].id < c[i2].id)) {
			best = d2;
			i2 = i;
		}
	}
	int i3 = -1;
	best = -1;
	for (int i = 0; i < n; ++i) {
		if (i == i1 || i == i2)
			continue;
		int64_t a = fxg_abs64(area2(&c[i1], &c[i2], &c[i]));
		if (a > best || (a == best && c[i].id < c[i3].id)) {
			best = a;
			i3 = i;
		}
	}
	int cnt = 0;
	pick[cnt++] = i1;
	pick[cnt++] = i2;
	if (best <= 0)
		return cnt;
	pick[cnt++] = i3;
	/* orient (t0, t1, t2) counter-clockwise */
	int t0 = i1, t1 = i2, t2 = i3;
	if (area2(&c[t0], &c[t1], &c[t2]) < 0) {
		t1 = i3;
		t2 = i2;
	}
	int i4 = -1;
	best = 0;
	for (int i = 0; i < n; ++i) {
		if (i == i1 || i == i2 || i == i3)
			continue;
		int64_t e = -area2(&c[t0], &c[t1], &c[i]);
		int64_t e2 = -area2(&c[t1], &c[t2], &c[i]);
		int64_t e3 = -area2(&c[t2], &c[t0], &c[i]);
		e = e > e2 ? e : e2;
		e = e > e3 ? e : e3;
		if (e > best || (e == best && i4 >= 0 && c[i].id < c[i4].id)) {
			best = e;
			i4 = i;
		}
	}
	if (i4 >= 0)
		pick[cnt++] = i4;
	return cnt;
}

/* Face contact in the reference box's frame. The incident box has centre
 * dinc and axes inc[j] (unit columns, in the reference frame). The reference
 * face is axis i, sign s (its normal points towards the incident box). */
static void face_contact(fxg_vec3 href, fxg_vec3 hinc, fxg_vec3 dinc, const fxg_vec3 inc[3], int i, int s,
			 uint32_t ref_tag, fix16_t speculative, const fxs_transform *xref, const fxg_mat3 *rref,
			 fxs_manifold *m, uint32_t *ovf)
{
	/* incident face: the one most anti-parallel to the reference normal */
	int j = 0;
	for (int k = 1; k < 3; ++k)
		if (fxg_abs64(fxg_v3_comp(inc[k], i)) > fxg_abs64(fxg_v3_comp(inc[j], i)))
			j = k;
	int sigma = (s * (int64_t)fxg_v3_comp(inc[j], i)) > 0 ? -1 : 1;
	int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
	int64_t hj = fxg_v3_comp(hinc, j), h1 = fxg_v3_comp(hinc, j1), h2 = fxg_v3_comp(hinc, j2);
	/* corners (+,+), (-,+), (-,-), (+,-) over (j1, j2): counter-clockwise
	 * about axis j; edge e runs from corner e to corner e + 1 */
	static const int sg1[4] = { 1, -1, -1, 1 }, sg2[4] = { 1, 1, -1, -1 };
	int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
	const int perm[3] = { i1, i2, i }; /* poly_vertex's component order */
	poly_vertex buf[2][MAX_POLY];
	for (int e = 0; e < 4; ++e) {
		for (int q = 0; q < 3; ++q) {
			int k = perm[q];
			int64_t sum = sigma * hj * fxg_v3_comp(inc[j], k) + sg1[e] * h1 * fxg_v3_comp(inc[j1], k) +
				sg2[e] * h2 * fxg_v3_comp(inc[j2], k);
			buf[0][e].p[q] = fxg_v3_comp(dinc, k) + np_w2f(sum);
		}
		buf[0][e].out_line = (uint8_t)e;
	}
	/* the side planes (i1, +), (i2, +), (i1, -), (i2, -): components 0 and 1 */
	const int planes[4][2] = { { i1, 1 }, { i2, 1 }, { i1, -1 }, { i2, -1 } };
	const fix16_t side1 = fxg_v3_comp(href, i1) + CLIP_MARGIN, side2 = fxg_v3_comp(href, i2) + CLIP_MARGIN;
	int n = clip_polygon(buf[0], 4, buf[1], 0, 1, side1, 4);
	if (n > 0)
		n = clip_polygon(buf[1], n, buf[0], 1, 1, side2, 5);
	if (n > 0)
		n = clip_polygon(buf[0], n, buf[1], 0, -1, side1, 6);
	if (n > 0)
		n = clip_polygon(buf[1], n, buf[0], 1, -1, side2, 7);
	const int cur = 0; /* after four clips, or an empty polygon */
	/* the reference box's side planes: planes[p] on face (i, s) hold the
	 * reference edge along the third axis */
	int i1_ = i1, i2_ = i2;
	candidate cand[MAX_CAND];
	int nc = 0;
	int64_t hi = fxg_v3_comp(href, i);
	for (int k = 0; k < n; ++k) {
		const poly_vertex *v = &buf[cur][k];
		int64_t x = v->p[2];
		int64_t sep = s * x - hi;
		if (sep > speculative)
			continue;
		uint32_t la = buf[cur][k > 0 ? k - 1 : n - 1].out_line, lb = v->out_line;
		uint32_t lo = la < lb ? la : lb, hl = la < lb ? lb : la;
		uint32_t fref, finc;
		if (hl < 4) {
			/* an incident corner inside the reference face */
			int c = (lo == 0 && hl == 3) ? 0 : (int)hl;
			int sg[3];
			sg[j] = sigma, sg[j1] = sg1[c], sg[j2] = sg2[c];
			fref = box_face(i, s);
			finc = box_vertex(sg);
		} else if (lo < 4) {
			/* an incident edge through a reference side plane */
			int e = (int)lo, p = (int)hl - 4;
			int sg[3];
			sg[j] = sigma;
			if (e % 2 == 0)
				sg[j2] = sg2[e], sg[j1] = 0;
			else
				sg[j1] = sg1[e], sg[j2] = 0;
			finc = box_edge(e % 2 == 0 ? j1 : j2, sg);
			int rg[3];
			rg[i] = s, rg[planes[p][0]] = planes[p][1];
			int free_axis = planes[p][0] == i1_ ? i2_ : i1_;
			rg[free_axis] = 0;
			fref = box_edge(free_axis, rg);
		} else {
			/* a reference corner inside the incident face */
			int rg[3];
			rg[i] = s;
			rg[planes[lo - 4][0]] = planes[lo - 4][1];
			rg[planes[hl - 4][0]] = planes[hl - 4][1];
			fref = planes[lo - 4][0] != planes[hl - 4][0] ? box_vertex(rg) : box_face(i, s);
			finc = box_face(j, sigma);
		}
		candidate *c = &cand[nc++];
		fxg_v3_set_comp(&c->p, i1, v->p[0]);
		fxg_v3_set_comp(&c->p, i2, v->p[1]);
		fxg_v3_set_comp(&c->p, i, (fix16_t)fxg_shr_round(x + s * hi, 1));
		c->u = v->p[0];
		c->v = v->p[1];
		c->sep = sep;
		c->id = ref_tag == 0 ? (fref << 6 | finc) : (finc << 6 | fref);
	}
	int pick[4];
	int np = fxs_np_reduce(cand, nc, pick);
	for (int k = 0; k < np; ++k) {
		const candidate *c = &cand[pick[k]];
		np_add_point(m, np_to_world(xref->p, rref, c->p, ovf), (fix16_t)c->sep, c->id);
	}
}

void fxs_collide_boxes(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
		       fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	fxs_collide_boxes_sat(a, xa, NULL, b, xb, NULL, NULL, speculative, m, ovf);
}

/* a given rotation, or xf's made here; its saturations counted either way */
static fxg_mat3 rotation(const fxs_rotation *given, const fxs_transform *xf, uint32_t *ovf)
{
	if (!given)
		return fxg_m3_from_quat(xf->q, ovf);
	*ovf += given->ovf;
	return given->m;
}

/* The separating-axis part: C, d, d in B's frame, and the best face of A, of
 * B and edge pair, in the frame of A (fxs_box_sat in collide_common.h). */
void fxs_box_sat(const fxs_shape *a, const fxs_shape *b, fxg_vec3 dw, const fxg_mat3 *ra_, const fxg_mat3 *rb_,
		 fxs_box_sat_result *r, uint32_t *ovf)
{
	const fxg_mat3 ra = *ra_, rb = *rb_;
	fxg_vec3 d = fxg_m3_tmul_v3(ra, dw, ovf);
	fix16_t C[3][3], Q[3][3]; /* C[i][j] = a_i . b_j, Q = |C| */
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j) {
			C[i][j] = np_dot(fxg_m3_col(&ra, i), fxg_m3_col(&rb, j));
			Q[i][j] = C[i][j] < 0 ? -C[i][j] : C[i][j];
		}
	int64_t ha[3] = { a->half_extents.x, a->half_extents.y, a->half_extents.z };
	int64_t hb[3] = { b->half_extents.x, b->half_extents.y, b->half_extents.z };
	int64_t dd[3] = { d.x, d.y, d.z };

	/* face axes of A and of B, Q32.32 then rounded once */
	int64_t sep_a = INT64_MIN, sep_b = INT64_MIN, sep_e = INT64_MIN;
	int ia = 0, jb = 0, ei = -1, ej = -1;
	int64_t db[3]; /* d in B's frame, Q32.32 */
	for (int i = 0; i < 3; ++i) {
		int64_t s = fxg_abs64(dd[i]) * 65536 - ha[i] * 65536 - (hb[0] * Q[i][0] + hb[1] * Q[i][1] + hb[2] * Q[i][2]);
		s = np_w2f(s);
		if (s > sep_a) {
			sep_a = s;
			ia = i;
		}
	}
	for (int j = 0; j < 3; ++j) {
		db[j] = dd[0] * C[0][j] + dd[1] * C[1][j] + dd[2] * C[2][j];
		int64_t s = fxg_abs64(db[j]) - hb[j] * 65536 - (ha[0] * Q[0][j] + ha[1] * Q[1][j] + ha[2] * Q[2][j]);
		s = np_w2f(s);
		if (s > sep_b) {
			sep_b = s;
			jb = j;
		}
	}
	/* edge axes e_i x b_j = (0, -C[i2][j], C[i1][j]) rotated to put i first.
	 * An edge axis can only matter if its separation exceeds the best edge
	 * so far, or both the best face separation and the edge-preference
	 * threshold below (otherwise neither `best` nor the edge branch sees
	 * it). Its separation is num / len with len < 2 (rotation columns are
	 * unit within rounding: len2 < 2^33.01), so for num <= 0 it is at most
	 * num / 2 (in raw units num / 2^17; rounding is monotonic): such an axis
	 * is skipped without its square root and division. Results unchanged. */
	const int64_t face_first = sep_a > sep_b ? sep_a : sep_b;
	const int64_t edge_thresh = fxg_mul_round64(FXS_NP_REL_EDGE, face_first) + FXS_NP_ABS_TOL;
	const int64_t matters = face_first < edge_thresh ? face_first : edge_thresh;
	for (int i = 0; i < 3; ++i) {
		int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
		for (int j = 0; j < 3; ++j) {
			int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
			int64_t len2 = (int64_t)C[i1][j] * C[i1][j] + (int64_t)C[i2][j] * C[i2][j];
			if (len2 < EDGE_MIN_LEN2)
				continue;
			int64_t proj = dd[i2] * C[i1][j] - dd[i1] * C[i2][j];
			int64_t rA = ha[i1] * Q[i2][j] + ha[i2] * Q[i1][j];
			int64_t rB = hb[j1] * Q[i][j2] + hb[j2] * Q[i][j1];
			int64_t num = fxg_abs64(proj) - rA - rB;
			if (num <= 0) {
				int64_t bound = fxg_div_round64(num, (int64_t)1 << 17);
				if (bound <= sep_e || bound <= matters)
					continue;
			}
			int64_t len = (int64_t)fxg_isqrt64_round((uint64_t)len2);
			int64_t s = fxg_div_round64(num, len);
			if (s > sep_e) {
				sep_e = s;
				ei = i;
				ej = j;
			}
		}
	}
	r->d = d;
	memcpy(r->C, C, sizeof C);
	memcpy(r->db, db, sizeof db);
	r->sep_a = sep_a, r->sep_b = sep_b, r->sep_e = sep_e;
	r->ia = (int8_t)ia, r->jb = (int8_t)jb, r->ei = (int8_t)ei, r->ej = (int8_t)ej;
}

/* The rest, from the separating axes to the manifold. */
static void box_finish(const fxs_shape *a, const fxs_transform *xa, const fxg_mat3 *ra_, const fxs_shape *b,
		       const fxs_transform *xb, const fxg_mat3 *rb_, const fxs_box_sat_result *r, fix16_t speculative,
		       fxs_manifold *m, uint32_t *ovf)
{
	const fxg_mat3 ra = *ra_, rb = *rb_;
	const fxg_vec3 d = r->d;
	const int64_t sep_a = r->sep_a, sep_b = r->sep_b, sep_e = r->sep_e;
	const int ia = r->ia, jb = r->jb, ei = r->ei, ej = r->ej;
	const int64_t dd[3] = { d.x, d.y, d.z };
	const int64_t ha[3] = { a->half_extents.x, a->half_extents.y, a->half_extents.z };
	const int64_t hb[3] = { b->half_extents.x, b->half_extents.y, b->half_extents.z };
	const int64_t *db = r->db;
	fix16_t C[3][3];
	memcpy(C, r->C, sizeof C);
	int64_t best = sep_a > sep_b ? sep_a : sep_b;
	if (sep_e > best)
		best = sep_e;
	m->normal = dd[ia] >= 0 ? fxg_m3_col(&ra, ia) : np_neg(fxg_m3_col(&ra, ia));
	if (best > speculative)
		return;

	int64_t face_best = sep_a > sep_b ? sep_a : sep_b;
	if (ei >= 0 && sep_e > fxg_mul_round64(FXS_NP_REL_EDGE, face_best) + FXS_NP_ABS_TOL) {
		/* edge-edge: one point between the two closest edges */
		int i = ei, j = ej, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
		fxg_vec3 bj = fxg_v3(C[0][j], C[1][j], C[2][j]);
		fxg_vec3 n = fxg_v3_zero();
		fxg_v3_set_comp(&n, i1, -C[i2][j]);
		fxg_v3_set_comp(&n, i2, C[i1][j]);
		fix16_t nlen;
		fxg_vec3 nl = np_normalize(n, &nlen);
		if (np_dot_w(d, n) < 0)
			nl = np_neg(nl);
		m->normal = fxg_m3_mul_v3(ra, nl, ovf);
		/* A's edge along e_i on the side of nl; B's along b_j on the side of -nl */
		fxg_vec3 pa = fxg_v3(nl.x >= 0 ? (fix16_t)ha[0] : (fix16_t)-ha[0], nl.y >= 0 ? (fix16_t)ha[1] : (fix16_t)-ha[1],
				     nl.z >= 0 ? (fix16_t)ha[2] : (fix16_t)-ha[2]);
		fxg_v3_set_comp(&pa, i, 0);
		int sga[3], sgb[3];
		sga[i] = 0, sga[i1] = fxg_v3_comp(nl, i1) < 0 ? -1 : 1, sga[i2] = fxg_v3_comp(nl, i2) < 0 ? -1 : 1;
		uint32_t edge_a = box_edge(i, sga);
		int64_t off[3] = { 0, 0, 0 };
		sgb[j] = 0;
		for (int l = 0; l < 3; ++l) {
			if (l == j)
				continue;
			fxg_vec3 bl = fxg_v3(C[0][l], C[1][l], C[2][l]);
			int sg = np_dot_w(nl, bl) > 0 ? -1 : 1;
			sgb[l] = sg;
			off[0] += sg * hb[l] * bl.x;
			off[1] += sg * hb[l] * bl.y;
			off[2] += sg * hb[l] * bl.z;
		}
		fxg_vec3 pb = fxg_v3(d.x + np_w2f(off[0]), d.y + np_w2f(off[1]), d.z + np_w2f(off[2]));
		fxg_vec3 ui = fxg_v3_zero();
		fxg_v3_set_comp(&ui, i, FXG_ONE);
		fix16_t s, t;
		np_segments_closest(np_sub(pa, pb), ui, (fix16_t)ha[i], bj, (fix16_t)hb[j], &s, &t);
		fxg_vec3 xa_ = np_madd(pa, s, ui), xb_ = np_madd(pb, t, bj);
		np_add_point(m, np_to_world(xa->p, &ra, np_mid(xa_, xb_), ovf), (fix16_t)sep_e, edge_a << 6 | box_edge(j, sgb));
		return;
	}

	if (sep_b > fxg_mul_round64(FXS_NP_REL_FACE, sep_a) + FXS_NP_ABS_TOL) {
		/* reference face on B: A seen from B's frame */
		fxg_vec3 inc[3];
		for (int i = 0; i < 3; ++i)
			inc[i] = fxg_v3(C[i][0], C[i][1], C[i][2]);
		fxg_vec3 dinc = fxg_v3(-np_w2f(db[0]), -np_w2f(db[1]), -np_w2f(db[2]));
		int s = fxg_v3_comp(dinc, jb) >= 0 ? 1 : -1;
		fxg_vec3 col = fxg_m3_col(&rb, jb);
		m->normal = s > 0 ? np_neg(col) : col;
		face_contact(b->half_extents, a->half_extents, dinc, inc, jb, s, 1, speculative, xb, &rb, m, ovf);
		return;
	}
	int s = dd[ia] >= 0 ? 1 : -1;
	fxg_vec3 inc[3];
	for (int j = 0; j < 3; ++j)
		inc[j] = fxg_v3(C[0][j], C[1][j], C[2][j]);
	fxg_vec3 col = fxg_m3_col(&ra, ia);
	m->normal = s > 0 ? col : np_neg(col);
	face_contact(a->half_extents, b->half_extents, d, inc, ia, s, 0, speculative, xa, &ra, m, ovf);
}

void fxs_collide_boxes_sat(const fxs_shape *a, const fxs_transform *xa, const fxs_rotation *rot_a, const fxs_shape *b,
			   const fxs_transform *xb, const fxs_rotation *rot_b, const fxs_box_sat_result *sat,
			   fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_vec3 dw;
	if (!np_rel(xa->p, xb->p, &dw))
		return;
	fxg_mat3 ra = rotation(rot_a, xa, ovf), rb = rotation(rot_b, xb, ovf);
	fxs_box_sat_result r;
	if (!sat) {
		fxs_box_sat(a, b, dw, &ra, &rb, &r, ovf);
		sat = &r;
	}
	box_finish(a, xa, &ra, b, xb, &rb, sat, speculative, m, ovf);
}
