/* Shapes: validation, mass properties and world bounds. */
#ifndef FXS_SHAPE_H
#define FXS_SHAPE_H

#include "fixstep/types.h"
#include "geometry/aabb.h"

/* Supported sizes: radii, half extents and half heights in [1/1024 m, 1000 m]. */
#define FXS_SHAPE_MIN_SIZE ((fix16_t)64)
#define FXS_SHAPE_MAX_SIZE FXG_I(1000)

bool fxs_shape_is_valid(const fxs_shape *s);

/* Mass (kg) and principal moments of inertia about the centre (kg m^2) of a
 * shape of uniform density (kg/m^3), all Q32.32. Every product is formed
 * exactly in 128 bits and rounded once to Q32.32 (2^-33); a handful of such
 * roundings, scaled by the factors after them, bound the error at 2^-30
 * relative plus 2^-22 absolute for sizes up to 8 m (tests/test_shape.c). */
void fxs_shape_mass(const fxs_shape *s, fix16_t density, fxg_wide *mass, fxg_wide inertia[3], uint32_t *ovf);

/* A hull's mass and full inertia tensor about its centre of mass (xx, yy,
 * zz, xy, xz, yz, the products as tensor entries -integral(x y)); hull.h
 * states the error. fxs_shape_mass gives a hull's diagonal. */
void fxs_shape_hull_inertia(const fxs_shape *s, fix16_t density, fxg_wide *mass, fxg_wide inertia[6], uint32_t *ovf);

/* Shapes whose inertia tensor is kept full (hulls, compounds): the body
 * stores its inverse's products and the solver rotates the full tensor. */
static inline bool fxs_shape_has_full_inertia(const fxs_shape *s)
{
	return s->type == FXS_SHAPE_HULL || s->type == FXS_SHAPE_COMPOUND;
}
/* The full tensor of a hull or a compound (as fxs_shape_hull_inertia). */
void fxs_shape_full_inertia(const fxs_shape *s, fix16_t density, fxg_wide *mass, fxg_wide inertia[6], uint32_t *ovf);

/* World bounds of the shape at transform xf (exact enclosure: rounded outward). */
fxs_aabb fxs_shape_aabb(const fxs_shape *s, const fxs_transform *xf, uint32_t *ovf);

#endif
