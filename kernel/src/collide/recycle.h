/* Contact recycling (recycle.c): a pair whose bodies moved little since
 * its manifold was made keeps that manifold. The scalar test, and the
 * vector kernels that make its arithmetic for eight pairs at once
 * (recycle_vector.h, the same bits). */
#ifndef FXS_RECYCLE_H
#define FXS_RECYCLE_H

#include "collide/contact.h"

/* |x| and |v|_1, for the test's bounds */
static inline int64_t fxs_l1(fxg_vec3 v) { return fxg_abs64(v.x) + fxg_abs64(v.y) + fxg_abs64(v.z); }

/* A manifold is made afresh when the material points at it may have moved
 * more than RECYCLE_SLOPS linear slops, or when a body turned more than 10
 * degrees (recycle.c) */
#define RECYCLE_SLOPS 10
#define RECYCLE_MAX_TURN 5712 /* the sine of 5 degrees, 0.08716, in Q16.16: |dq.xyz| of a turn of 10 degrees */

/* prev's manifold moved to the bodies' poses xa, xb into c, when they moved
 * little enough (recycle.c says when); false to make it afresh. Saturations
 * are counted in *ovf. */
bool fxs_recycle(const fxs_contact *prev, const fxs_transform *xa, const fxs_transform *xb, fix16_t linear_slop,
		 fix16_t speculative, fxs_contact *c, uint32_t *ovf);

/* What the vector kernels make for up to eight pairs, lane k the pair k:
 * bit k of `done` when they made it (its values were in the range where
 * nothing saturates, so fxs_recycle would count nothing), and then bit k
 * of `keep` when the bodies moved little enough to keep the manifold. For a
 * kept lane: each point's lever arm from b's centre and separation, the
 * slip, and bit k of `still` when the surfaces slid less than a slop. */
typedef struct fxs_recycle_lanes {
	_Alignas(64) int32_t sep[4][8];
	int32_t ab[4][3][8];
	int32_t slip[3][8];
	uint32_t done, keep, still;
} fxs_recycle_lanes;

/* The pairs: prev[k]'s manifold (1 to 4 points) between bodies a[k] and
 * b[k] (their xf), k < n. */
#define FXS_RECYCLE_ARGS                                                                                 \
	int n, const fxs_contact *const prev[8], const fxs_body *const a[8], const fxs_body *const b[8], \
		fix16_t linear_slop, fxs_recycle_lanes *out
/* (done by the vector kernels: the table's recycle_x8, simd/kernels.h) */

/* fxs_recycle for lane k of `in`, done by the kernels: the same c and the
 * same answer (and nothing to count) */
bool fxs_recycle_lane(const fxs_recycle_lanes *in, int k, const fxs_contact *prev, fix16_t speculative,
		      fxs_contact *c);

#endif
