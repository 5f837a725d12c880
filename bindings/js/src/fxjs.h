/* The flat API of the JavaScript package (fxjs.c says how values travel):
 * the export macro and the conversions every fxjs*.c file shares. Public
 * headers only: the package reads the world through the kernel's API. */
#ifndef FXJS_H
#define FXJS_H

#include "fixstep/fixstep.h"

#include <stdint.h>

#ifdef __EMSCRIPTEN__
#include <emscripten/emscripten.h>
#define FXJS_EXPORT EMSCRIPTEN_KEEPALIVE
#else
#define FXJS_EXPORT
/* A shape from FXJS_SHAPE_INTS (7) int32 (fxjs.c), resolved by the world. */
fxs_shape fxjs_shape(const fxs_world *w, const int32_t *p);

#endif

/* 64-bit values as two uint32 halves, low first */
static inline void fxjs_put64(int32_t *out, uint64_t v)
{
	out[0] = (int32_t)(uint32_t)v;
	out[1] = (int32_t)(uint32_t)(v >> 32);
}
static inline uint64_t fxjs_get64(const int32_t *p) { return (uint64_t)(uint32_t)p[0] | (uint64_t)(uint32_t)p[1] << 32; }

static inline fxg_vec3 fxjs_v3(const int32_t *p) { return fxg_v3(p[0], p[1], p[2]); }
static inline void fxjs_put_v3(int32_t *out, fxg_vec3 v) { out[0] = v.x, out[1] = v.y, out[2] = v.z; }
static inline fxg_quat fxjs_q4(const int32_t *p) { return (fxg_quat){ p[0], p[1], p[2], p[3] }; }
static inline void fxjs_put_q4(int32_t *out, fxg_quat q) { out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w; }

/* ids as (index1, generation) */
static inline fxs_body_id fxjs_bid(int32_t index1, int32_t generation)
{
	return (fxs_body_id){ (uint32_t)index1, (uint32_t)generation };
}
static inline void fxjs_put_id(int32_t *out, fxs_body_id id) { out[0] = (int32_t)id.index1, out[1] = (int32_t)id.generation; }

/* a filter, 5 int32: category bits lo hi, mask bits lo hi, group index */
static inline fxs_filter fxjs_filter(const int32_t *p)
{
	fxs_filter f = { fxjs_get64(p), fxjs_get64(p + 2), p[4] };
	return f;
}
static inline void fxjs_put_filter(int32_t *out, fxs_filter f)
{
	fxjs_put64(out, f.category_bits);
	fxjs_put64(out + 2, f.mask_bits);
	out[4] = f.group_index;
}

/* motion locks as bits: linear x y z (1, 2, 4), angular x y z (8, 16, 32) */
static inline fxs_motion_locks fxjs_locks(int32_t bits)
{
	fxs_motion_locks l = { (bits & 1) != 0, (bits & 2) != 0, (bits & 4) != 0, (bits & 8) != 0, (bits & 16) != 0, (bits & 32) != 0 };
	return l;
}
static inline int32_t fxjs_lock_bits(fxs_motion_locks l)
{
	return l.linear_x | l.linear_y << 1 | l.linear_z << 2 | l.angular_x << 3 | l.angular_y << 4 | l.angular_z << 5;
}

/* A shape from FXJS_SHAPE_INTS (7) int32 (fxjs.c), resolved by the world. */
fxs_shape fxjs_shape(const fxs_world *w, const int32_t *p);

#endif
