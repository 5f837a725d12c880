/* Narrowphase internals shared by the collide_*.c files.
 *
 * Supported input range (stated once, relied on by every product below):
 *   - every shape dimension (radius, half height, half extent) <= 1000 m
 *     (FXS_SHAPE_MAX_SIZE);
 *   - each component of the relative position pB - pA <= 4096 m (2^28 raw).
 *     Pairs farther apart are reported as not touching without further work:
 *     two 1000 m boxes cannot reach across 4096 m (2 * sqrt(3) * 1000 < 4096).
 * Geometry is done relative to one body (never in absolute coordinates), so
 * that a world of +-32767 m never feeds an absolute position into a product.
 * With these bounds a Q16.16 coordinate is below 2^29 raw, a product of two
 * coordinates below 2^58 and a sum of three below 2^60: int64 sums are exact.
 * Integer only, no floating point (kernel/ compiles with -mgeneral-regs-only). */
#ifndef FXS_COLLIDE_COMMON_H
#define FXS_COLLIDE_COMMON_H

#include "collide/narrowphase.h"

#define FXS_NP_MAX_REL FXG_I(4096)

/* Face-axis preference of the separating-axis tests (Gregorius, GDC 2013):
 * an edge axis wins only if its separation beats 0.90 * best face + tol, and
 * the second shape's face beats the first's only if > 0.98 * face A + tol.
 * Separations are negative when overlapping, so 0.9 * s is shallower. */
#define FXS_NP_REL_EDGE ((int64_t)58982) /* 0.90 in Q16.16 */
#define FXS_NP_REL_FACE ((int64_t)64225) /* 0.98 in Q16.16 */
#define FXS_NP_ABS_TOL ((fix16_t)128)    /* 1/512 m ~ 2 mm */

/* Exact dot of two Q16.16 vectors as Q32.32 (inputs in the stated range). */
static inline int64_t np_dot_w(fxg_vec3 a, fxg_vec3 b)
{
	return (int64_t)a.x * b.x + (int64_t)a.y * b.y + (int64_t)a.z * b.z;
}

/* Q32.32 -> Q16.16 rounded half away from zero (value known to fit). */
static inline fix16_t np_w2f(int64_t w) { return (fix16_t)fxg_shr_round(w, 16); }

/* Dot rounded to Q16.16. */
static inline fix16_t np_dot(fxg_vec3 a, fxg_vec3 b) { return np_w2f(np_dot_w(a, b)); }

/* An exact Q32.32 vector (a cross product of two Q16.16 vectors). */
typedef struct np_wvec3 {
	int64_t x, y, z;
} np_wvec3;

/* Exact cross of two Q16.16 vectors as Q32.32 (inputs in the stated range;
 * below 2^33 for unit-range inputs). */
static inline np_wvec3 np_cross_w(fxg_vec3 a, fxg_vec3 b)
{
	np_wvec3 r = { (int64_t)a.y * b.z - (int64_t)a.z * b.y, (int64_t)a.z * b.x - (int64_t)a.x * b.z,
		       (int64_t)a.x * b.y - (int64_t)a.y * b.x };
	return r;
}

/* The same cross rounded once to Q16.16. */
static inline fxg_vec3 np_cross(fxg_vec3 a, fxg_vec3 b)
{
	np_wvec3 w = np_cross_w(a, b);
	return fxg_v3(np_w2f(w.x), np_w2f(w.y), np_w2f(w.z));
}

/* Sign of c . l, c unit Q16.16 and l from np_cross_w (|l| < 2^34: each
 * product below 2^51). */
static inline int np_sign_dot(fxg_vec3 c, np_wvec3 l)
{
	int64_t d = c.x * l.x + c.y * l.y + c.z * l.z;
	return (d > 0) - (d < 0);
}

static inline fxg_vec3 np_add(fxg_vec3 a, fxg_vec3 b) { return fxg_v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static inline fxg_vec3 np_sub(fxg_vec3 a, fxg_vec3 b) { return fxg_v3(a.x - b.x, a.y - b.y, a.z - b.z); }
static inline fxg_vec3 np_neg(fxg_vec3 a) { return fxg_v3(-a.x, -a.y, -a.z); }

/* a + s * b, each component rounded once (s, b in range: no saturation). */
static inline fxg_vec3 np_madd(fxg_vec3 a, fix16_t s, fxg_vec3 b)
{
	return fxg_v3(a.x + np_w2f((int64_t)s * b.x), a.y + np_w2f((int64_t)s * b.y), a.z + np_w2f((int64_t)s * b.z));
}

/* (a + b) / 2 per component, rounded half away from zero (symmetric in a, b). */
static inline fxg_vec3 np_mid(fxg_vec3 a, fxg_vec3 b)
{
	return fxg_v3((fix16_t)fxg_shr_round((int64_t)a.x + b.x, 1), (fix16_t)fxg_shr_round((int64_t)a.y + b.y, 1),
		      (fix16_t)fxg_shr_round((int64_t)a.z + b.z, 1));
}

/* Unit vector along v (components below 2^30 raw) and its length (rounded).
 * The zero vector gives length 0 and a zero vector. The squared length is
 * scaled by 4^k (as far as it stays below 2^62) before the square root, so a
 * short v still gets a unit vector to within about 1 LSB per component. */
static inline fxg_vec3 np_normalize(fxg_vec3 v, fix16_t *len_out)
{
	uint64_t l2 = (uint64_t)np_dot_w(v, v);
	*len_out = (fix16_t)fxg_isqrt64_round(l2);
	if (l2 == 0)
		return fxg_v3_zero();
	int k = 0;
	while (k < 15 && (l2 << (2 * k + 2)) < ((uint64_t)1 << 62) && (l2 << (2 * k + 2)) >> (2 * k + 2) == l2)
		++k;
	int64_t len = (int64_t)fxg_isqrt64_round(l2 << (2 * k)); /* |v| * 2^k, raw */
	return fxg_v3((fix16_t)fxg_div_round64((int64_t)v.x * ((int64_t)1 << (16 + k)), len),
		      (fix16_t)fxg_div_round64((int64_t)v.y * ((int64_t)1 << (16 + k)), len),
		      (fix16_t)fxg_div_round64((int64_t)v.z * ((int64_t)1 << (16 + k)), len));
}

/* Relative position b - a, false when a component exceeds FXS_NP_MAX_REL. */
static inline bool np_rel(fxg_vec3 a, fxg_vec3 b, fxg_vec3 *out)
{
	int64_t x = (int64_t)b.x - a.x, y = (int64_t)b.y - a.y, z = (int64_t)b.z - a.z;
	if (fxg_abs64(x) > FXS_NP_MAX_REL || fxg_abs64(y) > FXS_NP_MAX_REL || fxg_abs64(z) > FXS_NP_MAX_REL)
		return false;
	*out = fxg_v3((fix16_t)x, (fix16_t)y, (fix16_t)z);
	return true;
}

/* World point p + R v (rounded once per component, saturating if absurd). */
static inline fxg_vec3 np_to_world(fxg_vec3 p, const fxg_mat3 *r, fxg_vec3 v, uint32_t *ovf)
{
	return fxg_v3_add(p, fxg_m3_mul_v3(*r, v, ovf), ovf);
}

static inline void np_add_point(fxs_manifold *m, fxg_vec3 point, fix16_t sep, uint32_t id)
{
	if (m->point_count >= FXS_MAX_MANIFOLD_POINTS)
		return;
	fxs_manifold_point *mp = &m->points[m->point_count++];
	mp->point = point;
	mp->separation = sep;
	mp->feature_id = id;
}

/* Closest points of segments c1 + s u1 (|s| <= h1) and c2 + t u2 (|t| <= h2),
 * u1, u2 unit; Ericson's clamping order. `r` is c1 - c2. Parallel segments
 * (1 - (u1.u2)^2 below 2^-20) take s = 0 before clamping. */
static inline void np_segments_closest(fxg_vec3 r, fxg_vec3 u1, fix16_t h1, fxg_vec3 u2, fix16_t h2, fix16_t *s_out,
				       fix16_t *t_out)
{
	fix16_t b = np_dot(u1, u2);
	fix16_t c = np_dot(u1, r);
	fix16_t f = np_dot(u2, r);
	int64_t denom = ((int64_t)1 << 32) - (int64_t)b * b; /* Q32.32, sin^2 */
	int64_t s = 0;
	if (denom > ((int64_t)1 << 12)) {
		int64_t num = (int64_t)b * f - (int64_t)c * 65536; /* Q32.32, |num| < 2^46 */
		s = fxg_div_round64(num * 65536, denom);
		s = s < -h1 ? -h1 : (s > h1 ? h1 : s);
	}
	int64_t t = f + np_w2f((int64_t)b * s);
	if (t < -h2 || t > h2) {
		t = t < -h2 ? -h2 : h2;
		s = np_w2f((int64_t)b * t) - (int64_t)c;
		s = s < -h1 ? -h1 : (s > h1 ? h1 : s);
	}
	*s_out = (fix16_t)s;
	*t_out = (fix16_t)t;
}

/* A candidate contact point of a face contact, before the reduction. */
typedef struct np_candidate {
	fxg_vec3 p;   /* local point midway between the surfaces */
	fix16_t u, v; /* coordinates in the reference face plane */
	int64_t sep;
	uint32_t id;
} np_candidate;

/* Choose up to 4 of n candidates (collide_box_box.c): the deepest, the
 * farthest from it, the largest triangle, the most area outside it; ties to
 * the smaller feature id. Writes their indices to pick, returns the count. */
int fxs_np_reduce(const np_candidate *c, int n, int *pick);

/* Pair functions: normal from the first shape to the second. m is cleared. */
void fxs_collide_spheres(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			 fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_sphere_capsule(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
				const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_capsules(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			  fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_sphere_box(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			    fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_box_capsule(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			     fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_boxes(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
		       fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
/* Box-box in two parts: the separating-axis tests, in A's frame (C[i][j] =
 * a_i . b_j, d = RA^T (pB - pA), db = d in B's frame in Q32.32, the best
 * face separation of A (axis ia), of B (jb), and of an edge pair (ei, ej;
 * -1 and INT64_MIN when no edge axis counted)), then the manifold from them.
 * The world runs the first part several pairs at a time where it can
 * (collide_box_box_vector.h: the same bits) and the second pair by pair. */
struct fxs_box_sat_result {
	fix16_t C[3][3];
	fxg_vec3 d;
	int64_t db[3];
	int64_t sep_a, sep_b, sep_e;
	int8_t ia, jb, ei, ej;
};
typedef struct fxs_box_sat_result fxs_box_sat_result;

/* dw = pB - pA (np_rel), ra and rb the boxes' rotations */
void fxs_box_sat(const fxs_shape *a, const fxs_shape *b, fxg_vec3 dw, const fxg_mat3 *ra, const fxg_mat3 *rb,
		 fxs_box_sat_result *r, uint32_t *ovf);

/* fxs_collide_boxes with the boxes' rotations given (narrowphase.h) or NULL,
 * and the separating axes already found (sat, made from these boxes and
 * transforms) or NULL to find them here */
void fxs_collide_boxes_sat(const fxs_shape *a, const fxs_transform *xa, const fxs_rotation *rot_a, const fxs_shape *b,
			   const fxs_transform *xb, const fxs_rotation *rot_b, const fxs_box_sat_result *sat,
			   fix16_t speculative, fxs_manifold *m, uint32_t *ovf);

/* fxs_box_sat for n <= 8 pairs at once with the vector kernels (the
 * table's box_sat_x8, simd/kernels.h; collide_box_box_vector.h, the same
 * bits): pair k is
 * boxes a[k], b[k] with dw[k] = pB - pA inside np_rel's range and rotations
 * ra[k], rb[k]. Returns the mask of the pairs it did (bit k: out[k]
 * written), those whose values are in the range where nothing can saturate
 * (so it counts nothing, as fxs_box_sat would not). The caller runs
 * fxs_box_sat for the others. */
#define FXS_BOX_SAT_ARGS                                                                                                    \
	int n, const fxs_shape *const a[8], const fxs_shape *const b[8], const fxg_vec3 dw[8], const fxg_mat3 *const ra[8], \
		const fxg_mat3 *const rb[8], fxs_box_sat_result out[8]
/* collide_hull.c: convex hulls against spheres, boxes, capsules and hulls */
void fxs_collide_sphere_hull(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			     fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_box_hull(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			  fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_capsule_hull(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
			      const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_hulls(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
		       fix16_t speculative, fxs_manifold *m, uint32_t *ovf);

/* collide_cylinder.c: cylinders against spheres, boxes, capsules, hulls and cylinders */
void fxs_collide_sphere_cylinder(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
				 const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_box_cylinder(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
			      const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_capsule_cylinder(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
				  const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_hull_cylinder(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b,
			       const fxs_transform *xb, fix16_t speculative, fxs_manifold *m, uint32_t *ovf);
void fxs_collide_cylinders(const fxs_shape *a, const fxs_transform *xa, const fxs_shape *b, const fxs_transform *xb,
			   fix16_t speculative, fxs_manifold *m, uint32_t *ovf);

#endif
