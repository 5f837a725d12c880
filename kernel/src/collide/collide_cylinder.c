/* Cylinders (radius r, half height hh, along local y) against spheres,
 * boxes, capsules, hulls and cylinders.
 *
 * Everything is done in the cylinder's frame. The other shape is a polytope
 * core grown by a radius: a sphere is one vertex (its radius), a capsule two
 * vertices and an edge (its radius), a box or a hull its vertices, faces and
 * edges (radius 0). The separation along a unit axis n (from the cylinder to
 * the other shape) is min over the core's vertices of n.v - radius - the
 * cylinder's support hh |n_y| + r sqrt(n_x^2 + n_z^2); every axis gives a
 * lower bound of the true signed distance, and the largest over the axes on
 * which the Minkowski difference has its faces is the distance itself (or
 * minus the penetration). Those axes are:
 *   - the core's face normals, and the cylinder's caps +-y (exact);
 *   - for each core vertex, the direction in which it is farthest from the
 *     cylinder (its signed distance, closed form: the side, rim or cap
 *     against the vertex), where the full separation is taken;
 *   - for each core edge, the arc of normals perpendicular to it between
 *     its two faces' (where the edge is the core's support, so the edge's
 *     own separation is exact; a capsule's: the whole circle): the side or
 *     a rim against the edge. The arc is sampled at 5 points (the circle
 *     every 22.5 degrees) and the best sample refined by 12 bisections of
 *     its bracket (normalised midpoints, no trigonometry), whose error in
 *     the separation is second order. An edge whose bound (from its faces'
 *     offsets) cannot beat what is already found is skipped.
 * Fixed iteration counts, strict comparisons, ties to the earlier candidate.
 * A core face or a cap is kept unless another axis beats it by the box-box
 * preference (collide_common.h).
 *
 * The manifold: each shape's feature along the axis (the cylinder's cap disk
 * when n is within 2.9 degrees of y, its side segment when within 2.9
 * degrees of perpendicular, else one rim point; the core's face, edge or
 * vertex alike), then the points where the two features meet seen along n:
 * a disk on a face gives its 8 rim points inside the face, the face's
 * vertices inside the disk and the face's edges crossing the rim (4 of them
 * kept by fxs_np_reduce, as box-box), a side segment on a face or a disk the
 * segment clipped to it (2 points), two parallel segments their overlap (2),
 * anything with a point one point. So a cylinder stands on its cap on 4
 * points and lies on its side on 2.
 *
 * Cylinder against cylinder: the axes are both shapes' caps, the two great
 * circles perpendicular to each axis (side against side or rim), and, when
 * the best of those beats the caps, a pattern search (4 neighbours, halving
 * steps, 16 rounds) from it for the rim against rim; the same features and
 * points. */
#include "collide/collide_common.h"
#include "geometry/hull.h"

#define FEAT_SIN ((int64_t)3277)          /* 0.05: 2.9 degrees */
#define FACE_COS ((int64_t)65536 - 82)     /* cos 2.9 degrees */
#define PARALLEL_SIN2 ((int64_t)1 << 22)   /* as two capsules (collide_round.c) */
#define REFINE_STEPS 12
#define PATTERN_STEPS 16
#define MAX_CAND (8 + 2 * FXS_HULL_MAX_VERTS + 16)

/* cos(k * 22.5 degrees), k = 0..15; sin is COS16[(k + 12) & 15] */
static const fix16_t COS16[16] = { 65536,  60547,  46341,  25080,  0,     -25080, -46341, -60547,
				   -65536, -60547, -46341, -25080, 0,     25080,  46341,  60547 };

static int64_t isqrt_w(int64_t q32) { return q32 <= 0 ? 0 : (int64_t)fxg_isqrt64_round((uint64_t)q32); }

/* a cos_k + b sin_k */
static fxg_vec3 circle_dir(fxg_vec3 a, fxg_vec3 b, int k)
{
	int64_t c = COS16[k & 15], s = COS16[(k + 12) & 15];
	return fxg_v3(np_w2f(a.x * c + b.x * s), np_w2f(a.y * c + b.y * s), np_w2f(a.z * c + b.z * s));
}

static fxg_vec3 unit(fxg_vec3 v)
{
	fix16_t len;
	return np_normalize(v, &len);
}

/* A unit vector perpendicular to unit n (from the axis least aligned with it). */
static fxg_vec3 perp_unit(fxg_vec3 n)
{
	int64_t ax = fxg_abs64(n.x), ay = fxg_abs64(n.y), az = fxg_abs64(n.z);
	fxg_vec3 e = ax <= ay && ax <= az ? fxg_v3(FXG_ONE, 0, 0) : (ay <= az ? fxg_v3(0, FXG_ONE, 0) : fxg_v3(0, 0, FXG_ONE));
	return unit(np_cross(n, e));
}

static void plane_uv(fxg_vec3 n, fxg_vec3 p, fix16_t *u, fix16_t *v)
{
	int64_t ax = fxg_abs64(n.x), ay = fxg_abs64(n.y), az = fxg_abs64(n.z);
	if (ax >= ay && ax >= az)
		*u = p.y, *v = p.z;
	else if (ay >= az)
		*u = p.z, *v = p.x;
	else
		*u = p.x, *v = p.y;
}

/* ---- the two shapes, and the separation along an axis ---- */

/* A cylinder placed in the working frame: centre c, unit axis u, in-plane
 * unit axes ax, az (its local x and z). */
typedef struct cyl {
	fxg_vec3 c, u, ax, az;
	fix16_t r, hh;
} cyl;

/* The other shape: a polytope core (in the cylinder's frame) and a radius. */
typedef struct core {
	int nv, nf, ne;
	const fxs_hull_geom *g; /* face vertex lists (boxes, hulls) */
	fix16_t rad;
	fxg_vec3 v[FXS_HULL_MAX_VERTS];
	fxg_vec3 n[FXS_HULL_MAX_FACES];
	int64_t o[FXS_HULL_MAX_FACES];
	fxg_vec3 eu[FXS_HULL_MAX_EDGES];
	uint8_t ev[FXS_HULL_MAX_EDGES][2];
	uint8_t ef[FXS_HULL_MAX_EDGES][2]; /* the faces either side (boxes, hulls) */
} core;

/* max over the cylinder of m . x, Q32.32 (m about unit) */
static int64_t cyl_support(const cyl *C, fxg_vec3 m)
{
	int64_t mu = np_dot_w(m, C->u);
	int64_t mu16 = np_w2f(mu);
	int64_t p = isqrt_w(np_dot_w(m, m) - mu16 * mu16);
	return np_dot_w(m, C->c) + (int64_t)C->hh * fxg_abs64(mu16) + (int64_t)C->r * p;
}

typedef struct pair {
	cyl A;       /* at the origin, axes x y z */
	const core *P; /* or */
	const cyl *B;
} pair;

/* signed separation along n (A to the other), Q32.32 */
static int64_t sep_along(const pair *q, fxg_vec3 n)
{
	int64_t ha = cyl_support(&q->A, n);
	if (q->B)
		return -cyl_support(q->B, np_neg(n)) - ha;
	const core *P = q->P;
	int64_t lo = INT64_MAX;
	for (int i = 0; i < P->nv; ++i) {
		int64_t d = np_dot_w(n, P->v[i]);
		lo = d < lo ? d : lo;
	}
	return lo - (int64_t)P->rad * 65536 - ha;
}

typedef struct best_axis {
	int64_t sep; /* Q32.32 */
	fxg_vec3 n;
} best_axis;

static void offer(const pair *q, fxg_vec3 n, best_axis *b)
{
	int64_t s = sep_along(q, n);
	if (s > b->sep) {
		b->sep = s;
		b->n = n;
	}
}

/* A separation to maximise along a family of axes: the full one, or one
 * exact only on the family (an edge's, below). */
typedef int64_t (*sep_fn)(const pair *q, int idx, fxg_vec3 n);

static int64_t full_sep(const pair *q, int idx, fxg_vec3 n)
{
	(void)idx;
	return sep_along(q, n);
}

/* Refine the best of three neighbouring axes lo, mid, hi (f(mid) = fb) by
 * bisecting their bracket, and offer the result. */
static void refine(const pair *q, sep_fn f, int idx, fxg_vec3 lo, fxg_vec3 mid, fxg_vec3 hi, int64_t fb,
		   best_axis *out)
{
	for (int it = 0; it < REFINE_STEPS; ++it) {
		fxg_vec3 m1 = unit(np_add(lo, mid)), m2 = unit(np_add(mid, hi));
		int64_t f1 = f(q, idx, m1), f2 = f(q, idx, m2);
		if (f1 > fb && f1 >= f2) {
			hi = mid, mid = m1, fb = f1;
		} else if (f2 > fb) {
			lo = mid, mid = m2, fb = f2;
		} else {
			lo = m1, hi = m2;
		}
	}
	if (fb > out->sep) {
		out->sep = fb;
		out->n = mid;
	}
}

/* The best axis on the circle a cos t + b sin t for sample indices k0..k1
 * (16 per turn), refined around the best sample. */
static void search_circle(const pair *q, sep_fn f, int idx, fxg_vec3 a, fxg_vec3 b, int k0, int k1, best_axis *out)
{
	int kb = k0;
	int64_t fb = INT64_MIN;
	for (int k = k0; k <= k1; ++k) {
		int64_t v = f(q, idx, circle_dir(a, b, k));
		if (v > fb)
			fb = v, kb = k;
	}
	refine(q, f, idx, circle_dir(a, b, kb - 1), circle_dir(a, b, kb), circle_dir(a, b, kb + 1), fb, out);
}

/* The best axis on the arc from unit a0 to unit a1 (under 180 degrees):
 * 5 samples, refined around the best. */
static void search_arc(const pair *q, sep_fn f, int idx, fxg_vec3 a0, fxg_vec3 a1, best_axis *out)
{
	fxg_vec3 s[5];
	s[0] = a0, s[4] = a1;
	s[2] = unit(np_add(a0, a1));
	s[1] = unit(np_add(a0, s[2]));
	s[3] = unit(np_add(s[2], a1));
	int kb = 0;
	int64_t fb = INT64_MIN;
	for (int k = 0; k < 5; ++k) {
		int64_t v = f(q, idx, s[k]);
		if (v > fb)
			fb = v, kb = k;
	}
	refine(q, f, idx, s[kb > 0 ? kb - 1 : 0], s[kb], s[kb < 4 ? kb + 1 : 4], fb, out);
}

/* Local 2D search on the sphere of directions from b->n. */
static void pattern_search(const pair *q, best_axis *b)
{
	int64_t step = 8192; /* 1/8 */
	for (int it = 0; it < PATTERN_STEPS; ++it) {
		fxg_vec3 t1 = perp_unit(b->n), t2 = np_cross(b->n, t1);
		best_axis nb = *b;
		for (int k = 0; k < 4; ++k) {
			fxg_vec3 t = k < 2 ? t1 : t2;
			fix16_t s = (fix16_t)(k & 1 ? -step : step);
			offer(q, unit(np_madd(b->n, s, t)), &nb);
		}
		if (nb.sep > b->sep)
			*b = nb;
		else
			step /= 2;
	}
}

/* ---- features ---- */

enum { F_POINT, F_SEG, F_DISK, F_FACE };

typedef struct feat {
	int kind;
	fxg_vec3 p0, p1; /* point; segment ends; disk centre */
	fxg_vec3 m;      /* disk, face: outward unit normal, plane m . x = off */
	int64_t off;
	const cyl *C;    /* disk: its cylinder (radius, rim axes) */
	const core *P;   /* face: its polytope and face index */
	int f;
	uint32_t tag; /* 0 the cylinder A, 1 the other */
} feat;

/* The cylinder's feature along m (unit, outward). */
static feat cyl_feature(const cyl *C, fxg_vec3 m, uint32_t tag)
{
	feat F = { .kind = F_POINT, .C = C, .tag = tag };
	fix16_t mu = np_dot(m, C->u);
	fxg_vec3 perp = np_madd(m, -mu, C->u);
	fix16_t plen;
	fxg_vec3 rad = np_normalize(perp, &plen);
	fxg_vec3 cap = np_madd(C->c, mu >= 0 ? C->hh : -C->hh, C->u);
	if (plen <= FEAT_SIN) {
		F.kind = F_DISK;
		F.p0 = cap;
		F.m = mu >= 0 ? C->u : np_neg(C->u);
		F.off = np_dot_w(F.m, cap);
		return F;
	}
	fxg_vec3 side = np_madd(C->c, C->r, rad);
	if (fxg_abs64(mu) <= FEAT_SIN) {
		F.kind = F_SEG;
		F.p0 = np_madd(side, -C->hh, C->u);
		F.p1 = np_madd(side, C->hh, C->u);
		return F;
	}
	F.p0 = np_madd(cap, C->r, rad);
	return F;
}

/* The core's feature along m (unit, outward from the core). */
static feat core_feature(const core *P, fxg_vec3 m)
{
	feat F = { .kind = F_POINT, .P = P, .tag = 1 };
	int bf = -1;
	int64_t bd = FACE_COS - 1;
	for (int f = 0; f < P->nf; ++f) {
		int64_t d = np_dot(P->n[f], m);
		if (d > bd)
			bd = d, bf = f;
	}
	if (bf >= 0) {
		F.kind = F_FACE;
		F.f = bf;
		F.m = P->n[bf];
		F.off = P->o[bf];
		return F;
	}
	int iv = 0;
	int64_t hi = INT64_MIN;
	for (int i = 0; i < P->nv; ++i) {
		int64_t d = np_dot_w(m, P->v[i]);
		if (d > hi)
			hi = d, iv = i;
	}
	int be = -1;
	int64_t bu = FEAT_SIN + 1;
	for (int e = 0; e < P->ne; ++e) {
		if (P->ev[e][0] != iv && P->ev[e][1] != iv)
			continue;
		int64_t d = fxg_abs64(np_dot(P->eu[e], m));
		if (d < bu)
			bu = d, be = e;
	}
	if (be >= 0) {
		F.kind = F_SEG;
		F.f = be;
		F.p0 = P->v[P->ev[be][0]];
		F.p1 = P->v[P->ev[be][1]];
		return F;
	}
	F.f = iv;
	F.p0 = P->v[iv];
	return F;
}

/* p moved along n onto the plane of F (|F.m . n| >= 0.99 for the features
 * that use it) */
static fxg_vec3 lift(const feat *F, fxg_vec3 p, fxg_vec3 n)
{
	int64_t mn = np_dot(F->m, n);
	if (mn == 0)
		return p;
	int64_t num = F->off - np_dot_w(F->m, p); /* Q32.32 */
	int64_t t = mn > 0 ? fxg_div_round64(num, mn) : -fxg_div_round64(num, -mn);
	t = fxg_clamp64(t, -((int64_t)1 << 30), (int64_t)1 << 30);
	return np_madd(p, (fix16_t)t, n);
}

/* A point x on the plane of region F (disk or face) inside it. */
static bool inside(const feat *F, fxg_vec3 x)
{
	if (F->kind == F_DISK) {
		const int64_t far = (int64_t)1 << 29; /* beyond any radius; keeps the squares in range */
		int64_t dx = (int64_t)x.x - F->p0.x, dy = (int64_t)x.y - F->p0.y, dz = (int64_t)x.z - F->p0.z;
		if (fxg_abs64(dx) > far || fxg_abs64(dy) > far || fxg_abs64(dz) > far)
			return false;
		return dx * dx + dy * dy + dz * dz <= (int64_t)F->C->r * F->C->r;
	}
	const fxs_hull_geom *g = F->P->g;
	int s = g->face_start[F->f], e = g->face_start[F->f + 1];
	for (int k = s; k < e; ++k) {
		fxg_vec3 a = F->P->v[g->face_verts[k]], b = F->P->v[g->face_verts[k + 1 < e ? k + 1 : s]];
		fxg_vec3 w = np_cross(np_sub(b, a), F->m);
		if (np_dot_w(w, np_sub(x, a)) > 0)
			return false;
	}
	return true;
}

static fxg_vec3 seg_at(fxg_vec3 a, fxg_vec3 b, int64_t t)
{
	return fxg_v3(a.x + np_w2f(t * ((int64_t)b.x - a.x)), a.y + np_w2f(t * ((int64_t)b.y - a.y)),
		      a.z + np_w2f(t * ((int64_t)b.z - a.z)));
}

/* The parameter interval [t0, t1] (Q16.16 in [0, 1]) of the segment a-b
 * (on F's plane) inside region F; false when empty. */
static bool clip_region(const feat *F, fxg_vec3 a, fxg_vec3 b, int64_t *t0, int64_t *t1)
{
	*t0 = 0, *t1 = FXG_ONE;
	if (F->kind == F_DISK) {
		/* the closest point to the centre, then the rim crossings on either side by bisection */
		fxg_vec3 d = np_sub(b, a);
		int64_t dd = np_dot_w(d, d) >> 16;
		int64_t tc = dd > 0 ? fxg_div_round64(-np_dot_w(np_sub(a, F->p0), d), dd) : 0; /* Q16.16 */
		tc = fxg_clamp64(tc, 0, FXG_ONE);
		if (!inside(F, seg_at(a, b, tc)))
			return false;
		if (!inside(F, a)) {
			int64_t lo = 0, hi = tc;
			while (hi - lo > 1) {
				int64_t md = (lo + hi) / 2;
				if (inside(F, seg_at(a, b, md)))
					hi = md;
				else
					lo = md;
			}
			*t0 = hi;
		}
		if (!inside(F, b)) {
			int64_t lo = tc, hi = FXG_ONE;
			while (hi - lo > 1) {
				int64_t md = (lo + hi) / 2;
				if (inside(F, seg_at(a, b, md)))
					lo = md;
				else
					hi = md;
			}
			*t1 = lo;
		}
		return true;
	}
	const fxs_hull_geom *g = F->P->g;
	int s = g->face_start[F->f], e = g->face_start[F->f + 1];
	for (int k = s; k < e; ++k) {
		fxg_vec3 p = F->P->v[g->face_verts[k]], q = F->P->v[g->face_verts[k + 1 < e ? k + 1 : s]];
		fxg_vec3 w = np_cross(np_sub(q, p), F->m);
		int64_t f0 = np_dot_w(w, np_sub(a, p)), f1 = np_dot_w(w, np_sub(b, p));
		if (f0 > 0 && f1 > 0)
			return false;
		if ((f0 > 0) == (f1 > 0))
			continue;
		int64_t num = f0, den = f0 - f1;
		while (fxg_abs64(den) > ((int64_t)1 << 46))
			num /= 2, den /= 2;
		if (den < 0)
			num = -num, den = -den;
		int64_t t = den > 0 ? fxg_div_round64(num * 65536, den) : 0;
		if (f0 > 0)
			*t0 = t > *t0 ? t : *t0;
		else
			*t1 = t < *t1 ? t : *t1;
	}
	return *t0 <= *t1;
}

typedef struct cands {
	int n;
	np_candidate c[MAX_CAND];
} cands;

/* a candidate from pa (on A) and pb (on the other's core) */
static void add_cand(cands *cs, fxg_vec3 n, fxg_vec3 pa, fxg_vec3 pb, fix16_t rad, uint32_t id)
{
	if (cs->n >= MAX_CAND)
		return;
	fxg_vec3 sb = np_madd(pb, -rad, n);
	np_candidate *c = &cs->c[cs->n++];
	c->p = np_mid(pa, sb);
	c->sep = np_dot(n, np_sub(sb, pa));
	plane_uv(n, c->p, &c->u, &c->v);
	c->id = id;
}

/* the candidate from a point of feature X (tag 0: A, 1: the other) and its
 * lift onto region Y, when inside it */
static void add_lifted(cands *cs, const feat *X, const feat *Y, fxg_vec3 x, fxg_vec3 n, fix16_t rad, uint32_t id)
{
	/* A's points go along +n onto the other, the other's along -n onto A:
	 * lift moves along the line either way */
	fxg_vec3 y = lift(Y, x, n);
	if (!inside(Y, y))
		return;
	if (X->tag == 0)
		add_cand(cs, n, x, y, rad, id);
	else
		add_cand(cs, n, y, x, rad, id);
}

/* rim sample k of disk D */
static fxg_vec3 rim(const feat *D, int k)
{
	const cyl *C = D->C;
	return np_madd(np_madd(D->p0, np_w2f((int64_t)C->r * COS16[(2 * k) & 15]), C->ax),
		       np_w2f((int64_t)C->r * COS16[(2 * k + 12) & 15]), C->az);
}

/* Points where region X (disk or face) meets region Y (disk or face), seen
 * along n. */
static void regions(cands *cs, const feat *X, const feat *Y, fxg_vec3 n, fix16_t rad)
{
	const feat *R[2] = { X, Y };
	for (int s = 0; s < 2; ++s) {
		const feat *F = R[s], *G = R[1 - s];
		uint32_t base = (uint32_t)(s + 1) << 12;
		if (F->kind == F_DISK) {
			for (int k = 0; k < 8; ++k)
				add_lifted(cs, F, G, rim(F, k), n, rad, base | 0x100 | (uint32_t)k);
			continue;
		}
		/* a face: its vertices inside the disk G, its edges crossing G's rim */
		const fxs_hull_geom *g = F->P->g;
		int st = g->face_start[F->f], e = g->face_start[F->f + 1];
		for (int k = st; k < e; ++k) {
			fxg_vec3 a = F->P->v[g->face_verts[k]], b = F->P->v[g->face_verts[k + 1 < e ? k + 1 : st]];
			uint32_t j = (uint32_t)(k - st) & 63;
			add_lifted(cs, F, G, a, n, rad, base | 0x200 | j);
			if (G->kind != F_DISK)
				continue;
			fxg_vec3 la = lift(G, a, n), lb = lift(G, b, n);
			int64_t t0, t1;
			if (!clip_region(G, la, lb, &t0, &t1))
				continue;
			if (t0 > 0)
				add_cand(cs, n, seg_at(la, lb, t0), seg_at(a, b, t0), rad, base | 0x400 | j << 1);
			if (t1 < FXG_ONE)
				add_cand(cs, n, seg_at(la, lb, t1), seg_at(a, b, t1), rad, base | 0x400 | j << 1 | 1);
		}
	}
}

/* Segment S clipped to region Y seen along n: its two ends. */
static void seg_region(cands *cs, const feat *S, const feat *Y, fxg_vec3 n, fix16_t rad)
{
	fxg_vec3 la = lift(Y, S->p0, n), lb = lift(Y, S->p1, n);
	int64_t t0, t1;
	if (!clip_region(Y, la, lb, &t0, &t1))
		return;
	for (int k = 0; k < 2; ++k) {
		int64_t t = k ? t1 : t0;
		fxg_vec3 x = seg_at(S->p0, S->p1, t), y = seg_at(la, lb, t);
		if (S->tag == 0)
			add_cand(cs, n, x, y, rad, 0x3000u | (uint32_t)k);
		else
			add_cand(cs, n, y, x, rad, 0x3000u | (uint32_t)k);
	}
}

/* Two segments: their overlap when parallel (2 points), else their closest points. */
static void seg_seg(cands *cs, const feat *X, const feat *Y, fxg_vec3 n, fix16_t rad)
{
	fix16_t lx, ly;
	fxg_vec3 ux = np_normalize(np_sub(X->p1, X->p0), &lx), uy = np_normalize(np_sub(Y->p1, Y->p0), &ly);
	fxg_vec3 cx = np_mid(X->p0, X->p1), cy = np_mid(Y->p0, Y->p1);
	fxg_vec3 cr = np_cross(ux, uy);
	int64_t s2 = np_dot_w(cr, cr);
	if (s2 < PARALLEL_SIN2 && lx > 0 && ly > 0) {
		/* Y's ends on X's line, the overlap of the two intervals */
		int64_t e0 = np_dot(ux, np_sub(Y->p0, cx)), e1 = np_dot(ux, np_sub(Y->p1, cx));
		int64_t lo = e0 < e1 ? e0 : e1, hi = e0 < e1 ? e1 : e0;
		lo = lo > -lx / 2 ? lo : -lx / 2;
		hi = hi < lx / 2 ? hi : lx / 2;
		if (lo <= hi) {
			int sgn = np_dot_w(ux, uy) >= 0 ? 1 : -1;
			for (int k = 0; k < 2; ++k) {
				int64_t s = k ? hi : lo;
				fxg_vec3 px = np_madd(cx, (fix16_t)s, ux);
				int64_t t = sgn * (s - np_dot(ux, np_sub(cy, cx)));
				t = fxg_clamp64(t, -ly / 2, ly / 2);
				fxg_vec3 py = np_madd(cy, (fix16_t)t, uy);
				if (X->tag == 0)
					add_cand(cs, n, px, py, rad, 0x4000u | (uint32_t)k);
				else
					add_cand(cs, n, py, px, rad, 0x4000u | (uint32_t)k);
			}
			return;
		}
	}
	fix16_t s, t;
	np_segments_closest(np_sub(cx, cy), ux, lx / 2, uy, ly / 2, &s, &t);
	fxg_vec3 px = np_madd(cx, s, ux), py = np_madd(cy, t, uy);
	if (X->tag == 0)
		add_cand(cs, n, px, py, rad, 0x5000u);
	else
		add_cand(cs, n, py, px, rad, 0x5000u);
}

/* The manifold from A's feature FA and the other's FB along n (A's frame),
 * separation sep (Q16.16); written in world space through A's transform. */
static void build(const feat *FA, const feat *FB, fxg_vec3 n, int64_t sep, fix16_t rad, fix16_t speculative,
		  const fxs_transform *xa, const fxg_mat3 *ra, fxs_manifold *m, uint32_t *ovf)
{
	cands cs;
	cs.n = 0;
	bool flat_a = FA->kind >= F_DISK, flat_b = FB->kind >= F_DISK;
	if (FA->kind == F_POINT || FB->kind == F_POINT) {
		/* one point, at the separation found */
	} else if (flat_a && flat_b) {
		regions(&cs, FA, FB, n, rad);
	} else if (FA->kind == F_SEG && flat_b) {
		seg_region(&cs, FA, FB, n, rad);
	} else if (FB->kind == F_SEG && flat_a) {
		seg_region(&cs, FB, FA, n, rad);
	} else {
		seg_seg(&cs, FA, FB, n, rad);
	}
	/* drop what lies beyond the speculative distance */
	int k = 0;
	for (int i = 0; i < cs.n; ++i)
		if (cs.c[i].sep <= speculative)
			cs.c[k++] = cs.c[i];
	cs.n = k;
	if (cs.n == 0) {
		/* one point midway at the separation found: on A's support point
		 * or the other's */
		fxg_vec3 p;
		if (FA->kind == F_POINT)
			p = np_madd(FA->p0, (fix16_t)(sep / 2), n);
		else if (FB->kind == F_POINT)
			p = np_madd(FB->p0, (fix16_t) - (sep / 2 + rad), n);
		else
			p = np_madd(FB->kind == F_SEG ? np_mid(FB->p0, FB->p1) : FA->p0, (fix16_t)(sep / 2), n);
		np_candidate *c = &cs.c[cs.n++];
		c->p = p;
		c->sep = sep;
		plane_uv(n, p, &c->u, &c->v);
		c->id = 0x6000u;
	}
	int pick[4];
	int np = fxs_np_reduce(cs.c, cs.n, pick);
	m->normal = fxg_m3_mul_v3(*ra, n, ovf);
	for (int i = 0; i < np; ++i) {
		const np_candidate *c = &cs.c[pick[i]];
		uint32_t id = c->id | (FB->kind == F_FACE ? (uint32_t)FB->f << 16 : 0);
		np_add_point(m, np_to_world(xa->p, ra, c->p, ovf), (fix16_t)c->sep, id);
	}
}

/* Signed distance (Q32.32) from point v to cylinder A (at the origin),
 * and the unit direction from A towards v along which it is measured. */
static int64_t point_distance(const cyl *A, fxg_vec3 v, fxg_vec3 *n)
{
	fix16_t rho;
	fxg_vec3 rad = np_normalize(fxg_v3(v.x, 0, v.z), &rho);
	if (rho == 0)
		rad = fxg_v3(FXG_ONE, 0, 0);
	fxg_vec3 up = fxg_v3(0, v.y >= 0 ? FXG_ONE : -FXG_ONE, 0);
	int64_t dy = fxg_abs64(v.y) - A->hh, dr = (int64_t)rho - A->r; /* Q16.16 */
	if (dy > 0 && dr > 0) {
		fix16_t len;
		*n = np_normalize(fxg_v3(np_w2f(dr * rad.x), (fix16_t)(v.y >= 0 ? dy : -dy), np_w2f(dr * rad.z)), &len);
		return np_dot_w(*n, v) - cyl_support(A, *n);
	}
	*n = dy >= dr ? up : rad;
	return (dy >= dr ? dy : dr) * 65536;
}

/* The separation along n of edge e's two ends (exact where the edge is
 * the core's support: n perpendicular to it, within its faces' arc). */
static int64_t edge_sep(const pair *q, int e, fxg_vec3 n)
{
	const core *P = q->P;
	int64_t d0 = np_dot_w(n, P->v[P->ev[e][0]]), d1 = np_dot_w(n, P->v[P->ev[e][1]]);
	return (d0 < d1 ? d0 : d1) - (int64_t)P->rad * 65536 - cyl_support(&q->A, n);
}

/* A's side against a point, a line or a segment: the normal is
 * perpendicular to A's axis, and for a point or a parallel line it is the
 * radial direction to it. The searches find it to within the angle whose
 * separation change stays below a rounding; here it is made exact. `line`
 * is a point of the other's line (its own axis for a cylinder's side). */
static void snap_side(const pair *q, const feat *FA, const feat *FB, fxg_vec3 line, best_axis *use)
{
	if (FA->kind != F_SEG || FB->kind >= F_DISK)
		return;
	fxg_vec3 n = use->n, t = fxg_v3(n.x, 0, n.z);
	if (FB->kind == F_POINT) {
		t = fxg_v3(FB->p0.x, 0, FB->p0.z);
	} else {
		fxg_vec3 e = unit(np_sub(FB->p1, FB->p0));
		fxg_vec3 c = fxg_v3(e.z, 0, -e.x); /* y x e */
		t = np_dot_w(c, c) < PARALLEL_SIN2 ? fxg_v3(line.x, 0, line.z) : c;
	}
	t = unit(t);
	if (t.x == 0 && t.z == 0)
		return;
	if (np_dot_w(t, n) < 0)
		t = np_neg(t);
	use->n = t;
	use->sep = sep_along(q, t);
}

/* ---- cylinder against a core ---- */

static void collide_core(const cyl *A, const core *P, fix16_t speculative, const fxs_transform *xa,
			 const fxg_mat3 *ra, fxs_manifold *m, uint32_t *ovf)
{
	pair q = { .A = *A, .P = P, .B = NULL };
	const int64_t spec = (int64_t)speculative * 65536;
	/* the faces: the core's and the caps */
	best_axis face = { INT64_MIN, { 0, FXG_ONE, 0 } };
	for (int f = 0; f < P->nf; ++f) {
		offer(&q, np_neg(P->n[f]), &face);
		if (face.sep > spec)
			return;
	}
	best_axis cap = { INT64_MIN, { 0, FXG_ONE, 0 } };
	offer(&q, fxg_v3(0, FXG_ONE, 0), &cap);
	offer(&q, fxg_v3(0, -FXG_ONE, 0), &cap);
	if (cap.sep > spec)
		return;
	int64_t fs = np_w2f(face.sep), cs = np_w2f(cap.sep);
	if (P->nf == 0 || cs > fxg_mul_round64(FXS_NP_REL_FACE, fs) + FXS_NP_ABS_TOL)
		face = cap, fs = cs;
	/* the curved parts. Nothing from them is used unless it beats `need`
	 * (the preference for faces), so a family whose bound stays below it
	 * is skipped: the answer is the same. */
	int64_t need = ((int64_t)fxg_mul_round64(FXS_NP_REL_EDGE, fs) + FXS_NP_ABS_TOL) * 65536;
	if (P->nf == 0 && P->ne == 0)
		need = face.sep;
	best_axis gen = { INT64_MIN, { 0, FXG_ONE, 0 } };
	const int64_t hmin = ((int64_t)(A->r < A->hh ? A->r : A->hh) + P->rad) * 65536;
	/* a vertex: where its own separation n.v - h(n) is largest, which is its
	 * signed distance to the cylinder along the closest direction (closed
	 * form); the full separation there is what counts (it is the vertex's
	 * exactly when that direction is in the vertex's cone of normals, and
	 * the cone's boundary belongs to its edges) */
	for (int i = 0; i < P->nv && gen.sep <= spec; ++i) {
		fxg_vec3 n;
		int64_t sd = point_distance(A, P->v[i], &n) - (int64_t)P->rad * 65536;
		if (sd > need && sd > gen.sep)
			offer(&q, n, &gen);
	}
	/* an edge: the arc of normals perpendicular to it between its two
	 * faces' (the whole circle for a capsule's), where the edge is the
	 * core's support and its own separation is exact */
	for (int e = 0; e < P->ne && gen.sep <= spec; ++e) {
		fxg_vec3 v0 = P->v[P->ev[e][0]];
		if (P->nf > 0) {
			fxg_vec3 a0 = np_neg(P->n[P->ef[e][0]]), a1 = np_neg(P->n[P->ef[e][1]]);
			/* on the arc n = s a0 + t a1 (s, t >= 0) with s + t <= 1 / cos(half the arc):
			 * n.v0 <= max(a0.v0, a1.v0) times that when positive */
			int64_t mx = np_dot_w(a0, v0) > np_dot_w(a1, v0) ? np_dot_w(a0, v0) : np_dot_w(a1, v0);
			fxg_vec3 mid = np_add(a0, a1);
			fix16_t l2 = (fix16_t)fxg_isqrt64_round((uint64_t)np_dot_w(mid, mid)); /* 2 cos(half the arc) */
			int64_t bound = mx > 0 && l2 > 0 ? (fxg_div_round64(mx, l2) * 2 + 1) * 65536 : mx; /* Q32.32 */
			if (bound - hmin <= need || bound - hmin <= gen.sep)
				continue;
			search_arc(&q, edge_sep, e, a0, a1, &gen);
		} else {
			fix16_t t = np_dot(v0, P->eu[e]);
			fix16_t dl;
			np_normalize(np_madd(v0, -t, P->eu[e]), &dl); /* distance from the centre to the line */
			if ((int64_t)dl * 65536 - hmin <= need || (int64_t)dl * 65536 - hmin <= gen.sep)
				continue;
			fxg_vec3 a = perp_unit(P->eu[e]);
			search_circle(&q, edge_sep, e, a, np_cross(P->eu[e], a), 0, 15, &gen);
		}
	}
	if (gen.sep > spec)
		return;
	best_axis use = face;
	if (P->nf == 0 && P->ne == 0 ? gen.sep > face.sep
				     : np_w2f(gen.sep) > fxg_mul_round64(FXS_NP_REL_EDGE, fs) + FXS_NP_ABS_TOL)
		use = gen;
	int64_t sep = np_w2f(use.sep);
	if (sep > speculative)
		return;
	feat FA = cyl_feature(&q.A, use.n, 0);
	feat FB = core_feature(P, np_neg(use.n));
	if (use.sep == gen.sep && use.n.x == gen.n.x && use.n.y == gen.n.y && use.n.z == gen.n.z) {
		snap_side(&q, &FA, &FB, FB.p0, &use);
		sep = np_w2f(use.sep);
		if (sep > speculative)
			return;
	}
	build(&FA, &FB, use.n, sep, P->rad, speculative, xa, ra, m, ovf);
}

static void cyl_at_origin(const fxs_shape *s, cyl *A)
{
	A->c = fxg_v3_zero();
	A->u = fxg_v3(0, FXG_ONE, 0);
	A->ax = fxg_v3(FXG_ONE, 0, 0);
	A->az = fxg_v3(0, 0, FXG_ONE);
	A->r = s->radius;
	A->hh = s->half_height;
}

/* The other shape (o at xo) in cylinder c's frame; false when too far. */
static bool frame(const fxs_transform *xc, const fxs_transform *xo, fxg_mat3 *rc, fxg_mat3 *C, fxg_vec3 *d,
		  uint32_t *ovf)
{
	fxg_vec3 dw;
	if (!np_rel(xc->p, xo->p, &dw))
		return false;
	*rc = fxg_m3_from_quat(xc->q, ovf);
	fxg_mat3 ro = fxg_m3_from_quat(xo->q, ovf);
	*C = (fxg_mat3){ fxg_m3_tmul_v3(*rc, ro.cx, ovf), fxg_m3_tmul_v3(*rc, ro.cy, ovf),
			 fxg_m3_tmul_v3(*rc, ro.cz, ovf) };
	*d = fxg_m3_tmul_v3(*rc, dw, ovf);
	return true;
}

/* shape o (sphere, box, capsule, hull) against cylinder c; normal from o to c */
static void other_cylinder(const fxs_shape *o, const fxs_transform *xo, const fxs_shape *c, const fxs_transform *xc,
			   fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_mat3 rc, C;
	fxg_vec3 d;
	if (!frame(xc, xo, &rc, &C, &d, ovf))
		return;
	core P;
	P.nv = P.nf = P.ne = 0;
	P.g = NULL;
	P.rad = 0;
	fxs_hull_geom box;
	const fxs_hull_geom *g = NULL;
	switch (o->type) {
	case FXS_SHAPE_SPHERE:
		P.nv = 1, P.v[0] = d, P.rad = o->radius;
		break;
	case FXS_SHAPE_CAPSULE:
		P.nv = 2, P.ne = 1, P.rad = o->radius;
		P.v[0] = np_madd(d, -o->half_height, C.cy);
		P.v[1] = np_madd(d, o->half_height, C.cy);
		P.eu[0] = C.cy;
		P.ev[0][0] = 0, P.ev[0][1] = 1;
		break;
	case FXS_SHAPE_BOX:
		fxs_hull_geom_box(o->half_extents, &box);
		g = &box;
		break;
	case FXS_SHAPE_HULL:
		if (!o->hull)
			return;
		g = &o->hull->g;
		break;
	default:
		return;
	}
	if (g) {
		P.g = g;
		P.nv = g->n_verts, P.nf = g->n_faces, P.ne = g->n_edges;
		for (int i = 0; i < g->n_verts; ++i)
			P.v[i] = np_add(fxg_m3_mul_v3(C, g->v[i], ovf), d);
		for (int f = 0; f < g->n_faces; ++f) {
			P.n[f] = fxg_m3_mul_v3(C, g->n[f], ovf);
			P.o[f] = np_dot_w(P.n[f], P.v[g->face_verts[g->face_start[f]]]);
		}
		for (int e = 0; e < g->n_edges; ++e) {
			P.eu[e] = fxg_m3_mul_v3(C, g->edge_u[e], ovf);
			P.ev[e][0] = g->edge_v[e][0], P.ev[e][1] = g->edge_v[e][1];
			P.ef[e][0] = g->edge_f[e][0], P.ef[e][1] = g->edge_f[e][1];
		}
	}
	cyl A;
	cyl_at_origin(c, &A);
	collide_core(&A, &P, speculative, xc, &rc, m, ovf);
	m->normal = np_neg(m->normal);
}

void fxs_collide_sphere_cylinder(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
				 const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	other_cylinder(a, xa, b, xb, speculative, m, ovf);
}

void fxs_collide_box_cylinder(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
			      const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	other_cylinder(a, xa, b, xb, speculative, m, ovf);
}

void fxs_collide_capsule_cylinder(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
				  const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	other_cylinder(a, xa, b, xb, speculative, m, ovf);
}

void fxs_collide_hull_cylinder(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
			       const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	other_cylinder(a, xa, b, xb, speculative, m, ovf);
}

/* ---- cylinder against cylinder ---- */

void fxs_collide_cylinders(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			   fix16_t speculative, fxs_manifold *m, uint32_t *ovf)
{
	m->point_count = 0;
	m->normal = fxg_v3(0, FXG_ONE, 0);
	fxg_mat3 ra, C;
	fxg_vec3 d;
	if (!frame(xa, xb, &ra, &C, &d, ovf))
		return;
	cyl B = { d, C.cy, C.cx, C.cz, b->radius, b->half_height };
	pair q = { .P = NULL, .B = &B };
	cyl_at_origin(a, &q.A);
	const int64_t spec = (int64_t)speculative * 65536;
	best_axis face = { INT64_MIN, { 0, FXG_ONE, 0 } };
	offer(&q, fxg_v3(0, FXG_ONE, 0), &face);
	offer(&q, fxg_v3(0, -FXG_ONE, 0), &face);
	offer(&q, B.u, &face);
	offer(&q, np_neg(B.u), &face);
	if (face.sep > spec)
		return;
	best_axis gen = { INT64_MIN, { 0, FXG_ONE, 0 } };
	search_circle(&q, full_sep, 0, fxg_v3(FXG_ONE, 0, 0), fxg_v3(0, 0, FXG_ONE), 0, 15, &gen);
	if (gen.sep > spec)
		return;
	search_circle(&q, full_sep, 0, B.ax, B.az, 0, 15, &gen);
	if (gen.sep > spec)
		return;
	/* a rim against a rim: searched around the best side axis, when one
	 * beats the caps (cylinders standing on each other skip it) */
	best_axis rr = gen;
	if (gen.sep > face.sep) {
		pattern_search(&q, &rr);
		if (rr.sep > spec)
			return;
		if (rr.sep > gen.sep)
			gen = rr;
	}
	best_axis use = face;
	if (np_w2f(gen.sep) > fxg_mul_round64(FXS_NP_REL_EDGE, np_w2f(face.sep)) + FXS_NP_ABS_TOL)
		use = gen;
	int64_t sep = np_w2f(use.sep);
	if (sep > speculative)
		return;
	feat FA = cyl_feature(&q.A, use.n, 0);
	feat FB = cyl_feature(&B, np_neg(use.n), 1);
	if (use.sep == gen.sep) {
		snap_side(&q, &FA, &FB, B.c, &use);
		sep = np_w2f(use.sep);
		if (sep > speculative)
			return;
	}
	build(&FA, &FB, use.n, sep, 0, speculative, xa, &ra, m, ovf);
}
