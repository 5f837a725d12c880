/* What the narrowphase tests share (test_narrowphase.c,
 * test_narrowphase_hull.c): conversions between Q16.16 and doubles for the
 * double-precision references, small vector helpers, random rotations, and
 * the checks every manifold of a property run gets. */
#ifndef FXS_TEST_NARROWPHASE_UTIL_H
#define FXS_TEST_NARROWPHASE_UTIL_H

#include <math.h>
#include <stdint.h>

#include "collide/narrowphase.h"
#include "test.h"

static inline fix16_t F(double x) { return (fix16_t)llround(x * 65536.0); }

static inline double D(fix16_t x) { return (double)x / 65536.0; }

static inline double urand(uint64_t *s) { return (double)(test_rng_next(s) >> 11) * (1.0 / 9007199254740992.0); }

static inline double dot3(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline void cross3(const double *a, const double *b, double *o)
{
	o[0] = a[1] * b[2] - a[2] * b[1];
	o[1] = a[2] * b[0] - a[0] * b[2];
	o[2] = a[0] * b[1] - a[1] * b[0];
}

static inline double clampd(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

static inline double min_sep(const fxs_manifold *m)
{
	double s = INFINITY;
	for (int i = 0; i < m->point_count; ++i)
		if (D(m->points[i].separation) < s)
			s = D(m->points[i].separation);
	return s;
}

static inline int mirror_ok(const fxs_manifold *m, const fxs_manifold *r)
{
	if (m->point_count != r->point_count || m->normal.x != -r->normal.x || m->normal.y != -r->normal.y ||
	    m->normal.z != -r->normal.z)
		return 0;
	for (int i = 0; i < m->point_count; ++i)
		if (!fxg_v3_eq(m->points[i].point, r->points[i].point) ||
		    m->points[i].separation != r->points[i].separation ||
		    m->points[i].feature_id != r->points[i].feature_id)
			return 0;
	return 1;
}

static inline int64_t unit_err_lsb(fxg_vec3 n)
{
	double l = sqrt(D(n.x) * D(n.x) + D(n.y) * D(n.y) + D(n.z) * D(n.z));
	return (int64_t)llround(fabs(l - 1) * 65536);
}

static inline fxg_quat rand_quat(uint64_t *s)
{
	double q[4], n;
	do {
		for (int k = 0; k < 4; ++k)
			q[k] = 2 * urand(s) - 1;
		n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
	} while (n < 0.1 || n > 1);
	uint32_t ovf = 0;
	return fxg_q_normalize(fxg_q(F(q[0] / n), F(q[1] / n), F(q[2] / n), F(q[3] / n)), &ovf);
}

#endif
