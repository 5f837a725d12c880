/* Compound shapes: several convex children (sphere, box, capsule, hull) on
 * one body. Owned by the world like hulls and meshes (FXS_SHAPE_COMPOUND
 * bodies refer to them by id) and part of its state (fxs_compounds_write /
 * fxs_compounds_read).
 *
 * The children are kept relative to the compound's centre of mass (the body
 * origin). Each child collides on its own: the world keeps one contact per
 * pair of children (contact.c, the child indices in fxs_contact's sub_a and
 * sub_b). fxs_collide against a compound (queries) returns the deepest of
 * the children's manifolds. */
#ifndef FXS_COMPOUND_H
#define FXS_COMPOUND_H

#include "fixstep/fixstep.h"
#include "geometry/aabb.h"

#define FXS_MAX_COMPOUNDS (1u << 16)

typedef struct fxs_compound {
	uint32_t n;
	fxs_compound_child input[FXS_COMPOUND_MAX_CHILDREN]; /* as given (serialised) */
	fxs_shape child[FXS_COMPOUND_MAX_CHILDREN];          /* hull pointers resolved */
	fxs_transform xf[FXS_COMPOUND_MAX_CHILDREN];         /* about the centre of mass */
	fxg_vec3 com;                                        /* the centre of mass in the children's frame */
	fxg_vec3 lo, hi;                                     /* local bounds of every child */
} fxs_compound;

struct fxs_world;
struct fxs_writer;
struct fxs_reader;

const fxs_compound *fxs_world_get_compound(const struct fxs_world *w, uint32_t id);
void fxs_compounds_free(struct fxs_world *w);

/* Mass and full inertia tensor about the centre of mass (xx yy zz xy xz yz,
 * Q32.32) at a uniform density: each child's own (rotated to the compound's
 * frame) plus m d^2 terms (parallel axes). Error: the children's own bounds
 * (shape.h, hull.h), plus per child the rotation of its tensor by Q16.16
 * matrix entries (each within 2^-17: about 2^-15 of its largest moment),
 * one rounding per parallel-axis product (2^-32 kg m^2) and the centre of
 * mass's rounding to Q16.16 (2^-17 m, a second-order m d^2 change);
 * tests/test_compound.c checks 1e-6 relative for a compound of unrotated
 * cubes and 1e-5 for a dumbbell with a rotated rod. */
void fxs_compound_mass(const fxs_compound *c, fix16_t density, fxg_wide *mass, fxg_wide inertia[6], uint32_t *ovf);

/* Child k's world transform for a body at xf. */
fxs_transform fxs_compound_child_xf(const fxs_compound *c, uint32_t k, const fxs_transform *xf, uint32_t *ovf);

/* The section of the state, written only when the world has compounds:
 * "CMPD", count, per compound its children as given (type, sizes, hull id,
 * transform), then the compound id of every compound body in slot order.
 * The reader rebuilds each compound through the same validation. */
void fxs_compounds_write(const struct fxs_world *w, struct fxs_writer *wr);
bool fxs_compounds_read(struct fxs_world *w, struct fxs_reader *r);

#endif
