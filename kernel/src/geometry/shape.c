#include "geometry/shape.h"

#include "fxg_mat3.h"
#include "geometry/compound.h"
#include "geometry/hull.h"
#include "geometry/mesh.h"

/* pi in Q32.32, rounded: 3.14159265358979... * 2^32 = 13493037704.52 */
#define FXS_PI_WIDE ((fxg_wide)13493037705LL)

bool fxs_shape_is_valid(const fxs_shape *s)
{
#define IN_RANGE(v) ((v) >= FXS_SHAPE_MIN_SIZE && (v) <= FXS_SHAPE_MAX_SIZE)
	switch (s->type) {
	case FXS_SHAPE_SPHERE:
		return IN_RANGE(s->radius);
	case FXS_SHAPE_BOX:
		return IN_RANGE(s->half_extents.x) && IN_RANGE(s->half_extents.y) && IN_RANGE(s->half_extents.z);
	case FXS_SHAPE_CAPSULE:
	case FXS_SHAPE_CYLINDER:
		return IN_RANGE(s->radius) && IN_RANGE(s->half_height);
	case FXS_SHAPE_MESH:
		/* the mesh pointer is resolved from mesh_id by fxs_mesh_shape, or
		 * by the state reader after the geometry section */
		return true;
	case FXS_SHAPE_HULL:
	case FXS_SHAPE_COMPOUND:
		/* the geometry is the world's (hull_id, compound_id); no dimension of its own */
		return s->radius == 0 && s->half_height == 0 && s->half_extents.x == 0 && s->half_extents.y == 0 &&
			s->half_extents.z == 0;
	default:
		return false;
	}
#undef IN_RANGE
}

static fxg_wide W(fix16_t a) { return fxg_wide_from_fix(a); }

/* a * b for wide values (one rounding) */
static fxg_wide M(fxg_wide a, fxg_wide b, uint32_t *ovf) { return fxg_wmul_wide(a, b, ovf); }

/* a * p / q for small integer p, q (exact up to one rounding) */
static fxg_wide R(fxg_wide a, int64_t p, int64_t q, uint32_t *ovf)
{
	return fxg_wide_div(M(a, (fxg_wide)p * FXG_WIDE_ONE, ovf), (fxg_wide)q * FXG_WIDE_ONE, ovf);
}

void fxs_shape_mass(const fxs_shape *s, fix16_t density, fxg_wide *mass, fxg_wide inertia[3], uint32_t *ovf)
{
	fxg_wide rho = W(density);
	switch (s->type) {
	case FXS_SHAPE_SPHERE: {
		fxg_wide r2 = fxg_mul_wide(s->radius, s->radius);
		/* m = 4/3 pi rho r^3, I = 2/5 m r^2; density first, so that the
		 * roundings of small intermediates are not amplified by it */
		fxg_wide m = R(M(fxg_wmul(M(rho, r2, ovf), s->radius, ovf), FXS_PI_WIDE, ovf), 4, 3, ovf);
		fxg_wide i = R(M(m, r2, ovf), 2, 5, ovf);
		*mass = m;
		inertia[0] = inertia[1] = inertia[2] = i;
		return;
	}
	case FXS_SHAPE_BOX: {
		fxg_vec3 h = s->half_extents;
		fxg_wide hx2 = fxg_mul_wide(h.x, h.x), hy2 = fxg_mul_wide(h.y, h.y), hz2 = fxg_mul_wide(h.z, h.z);
		/* m = 8 rho hx hy hz, I_x = m (hy^2 + hz^2) / 3 */
		fxg_wide m = fxg_wmul(M(rho, fxg_mul_wide(h.x, h.y), ovf), h.z, ovf);
		m = fxg_add64(fxg_add64(m, m, ovf), fxg_add64(m, m, ovf), ovf);
		m = fxg_add64(m, m, ovf);
		*mass = m;
		inertia[0] = R(M(m, hy2 + hz2, ovf), 1, 3, ovf);
		inertia[1] = R(M(m, hx2 + hz2, ovf), 1, 3, ovf);
		inertia[2] = R(M(m, hx2 + hy2, ovf), 1, 3, ovf);
		return;
	}
	case FXS_SHAPE_CAPSULE: {
		fix16_t r = s->radius, hh = s->half_height;
		fxg_wide r2 = fxg_mul_wide(r, r);
		fxg_wide hc = W(hh) * 2; /* cylinder height */
		fxg_wide hc2 = M(hc, hc, ovf);
		/* cylinder: pi rho r^2 h; the two hemispheres: 4/3 pi rho r^3 */
		fxg_wide rho_r2 = M(rho, r2, ovf);
		fxg_wide mc = M(M(rho_r2, hc, ovf), FXS_PI_WIDE, ovf);
		fxg_wide ms = R(M(fxg_wmul(rho_r2, r, ovf), FXS_PI_WIDE, ovf), 4, 3, ovf);
		*mass = fxg_add64(mc, ms, ovf);
		/* about the axis (y): mc r^2/2 + ms 2 r^2/5 */
		fxg_wide iy = fxg_add64(R(M(mc, r2, ovf), 1, 2, ovf), R(M(ms, r2, ovf), 2, 5, ovf), ovf);
		/* about x and z: mc (h^2/12 + r^2/4) + ms (2 r^2/5 + h^2/4 + 3 h r/8) */
		fxg_wide ic = M(mc, fxg_add64(R(hc2, 1, 12, ovf), R(r2, 1, 4, ovf), ovf), ovf);
		fxg_wide hr = M(hc, W(r), ovf);
		fxg_wide is = M(ms, fxg_add64(fxg_add64(R(r2, 2, 5, ovf), R(hc2, 1, 4, ovf), ovf), R(hr, 3, 8, ovf), ovf), ovf);
		fxg_wide ix = fxg_add64(ic, is, ovf);
		inertia[0] = ix;
		inertia[1] = iy;
		inertia[2] = ix;
		return;
	}
	case FXS_SHAPE_CYLINDER: {
		fxg_wide r2 = fxg_mul_wide(s->radius, s->radius);
		fxg_wide h = W(s->half_height) * 2;
		/* m = pi rho r^2 h; I_y = m r^2 / 2, I_x = I_z = m (3 r^2 + h^2) / 12 */
		fxg_wide m = M(M(M(rho, r2, ovf), h, ovf), FXS_PI_WIDE, ovf);
		*mass = m;
		inertia[1] = R(M(m, r2, ovf), 1, 2, ovf);
		inertia[0] = inertia[2] = M(m, fxg_add64(R(r2, 1, 4, ovf), R(M(h, h, ovf), 1, 12, ovf), ovf), ovf);
		return;
	}
	case FXS_SHAPE_HULL:
	case FXS_SHAPE_COMPOUND: {
		fxg_wide full[6];
		fxs_shape_full_inertia(s, density, mass, full, ovf);
		inertia[0] = full[0], inertia[1] = full[1], inertia[2] = full[2];
		return;
	}
	default:
		*mass = 0;
		inertia[0] = inertia[1] = inertia[2] = 0;
	}
}

void fxs_shape_full_inertia(const fxs_shape *s, fix16_t density, fxg_wide *mass, fxg_wide inertia[6], uint32_t *ovf)
{
	if (s->type == FXS_SHAPE_COMPOUND && s->compound) {
		fxs_compound_mass(s->compound, density, mass, inertia, ovf);
		return;
	}
	fxs_shape_hull_inertia(s, density, mass, inertia, ovf);
}

void fxs_shape_hull_inertia(const fxs_shape *s, fix16_t density, fxg_wide *mass, fxg_wide inertia[6], uint32_t *ovf)
{
	fxg_vec3 com;
	if (s->type != FXS_SHAPE_HULL || !s->hull) {
		*mass = 0;
		for (int k = 0; k < 6; ++k)
			inertia[k] = 0;
		return;
	}
	fxs_hull_mass(&s->hull->src, density, mass, &com, inertia, ovf);
}

/* |R| e: the half extent along each world axis of a box with half extents e
 * rotated by m, rounded up so that the box is enclosed. */
static int64_t iabs(fix16_t v) { return v < 0 ? -(int64_t)v : (int64_t)v; }

static fxg_vec3 rotated_extent(const fxg_mat3 *m, fxg_vec3 e, uint32_t *ovf)
{
	/* entries are unit-range for a unit rotation; int64 keeps any input defined */
	int64_t ax = iabs(m->cx.x) * e.x + iabs(m->cy.x) * e.y + iabs(m->cz.x) * e.z;
	int64_t ay = iabs(m->cx.y) * e.x + iabs(m->cy.y) * e.y + iabs(m->cz.y) * e.z;
	int64_t az = iabs(m->cx.z) * e.x + iabs(m->cy.z) * e.y + iabs(m->cz.z) * e.z;
	/* ceil(a / 2^16) + 1 LSB for the rounding of the matrix entries */
	return fxg_v3(fxg_sat(((ax + 0xFFFF) >> 16) + 1, ovf), fxg_sat(((ay + 0xFFFF) >> 16) + 1, ovf),
		      fxg_sat(((az + 0xFFFF) >> 16) + 1, ovf));
}

/* World bounds of local bounds [lo, hi] (a mesh's regions, a hull's
 * vertices): centre + |R| half extent. */
static fxs_aabb local_box_aabb(fxg_vec3 lo, fxg_vec3 hi, const fxs_transform *xf, uint32_t *ovf)
{
	/* / 2 truncates (no shift of a negative value); hi - c + 1 still
	 * reaches both ends */
	fxg_vec3 c = fxg_v3((fix16_t)(((int64_t)lo.x + hi.x) / 2), (fix16_t)(((int64_t)lo.y + hi.y) / 2),
			    (fix16_t)(((int64_t)lo.z + hi.z) / 2));
	fxg_vec3 h = fxg_v3(hi.x - c.x + 1, hi.y - c.y + 1, hi.z - c.z + 1);
	fxg_mat3 m = fxg_m3_from_quat(xf->q, ovf);
	fxg_vec3 e = rotated_extent(&m, h, ovf);
	fxg_vec3 pc = fxg_v3_add(xf->p, fxg_m3_mul_v3(m, c, ovf), ovf);
	fxs_aabb mb = { fxg_v3_sub(pc, e, ovf), fxg_v3_add(pc, e, ovf) };
	return mb;
}

fxs_aabb fxs_shape_aabb(const fxs_shape *s, const fxs_transform *xf, uint32_t *ovf)
{
	fxg_vec3 e = fxg_v3_zero();
	switch (s->type) {
	case FXS_SHAPE_SPHERE:
		e = fxg_v3(s->radius, s->radius, s->radius);
		break;
	case FXS_SHAPE_BOX: {
		fxg_mat3 m = fxg_m3_from_quat(xf->q, ovf);
		e = rotated_extent(&m, s->half_extents, ovf);
		break;
	}
	case FXS_SHAPE_CAPSULE: {
		fxg_mat3 m = fxg_m3_from_quat(xf->q, ovf);
		e = rotated_extent(&m, fxg_v3(0, s->half_height, 0), ovf);
		e = fxg_v3_add(e, fxg_v3(s->radius, s->radius, s->radius), ovf);
		break;
	}
	case FXS_SHAPE_CYLINDER: {
		/* along world axis i: hh |u_i| + r sqrt(1 - u_i^2), u the axis */
		fxg_mat3 m = fxg_m3_from_quat(xf->q, ovf);
		int64_t u[3] = { m.cy.x, m.cy.y, m.cy.z }, ex[3];
		for (int i = 0; i < 3; ++i) {
			int64_t a = iabs((fix16_t)u[i]);
			int64_t c2 = ((int64_t)1 << 32) - a * a;
			int64_t sn = (c2 > 0 ? (int64_t)fxg_isqrt64_round((uint64_t)c2) : 0) + 1;
			int64_t v = a * s->half_height + sn * s->radius;
			ex[i] = fxg_sat(((v + 0xFFFF) >> 16) + 1, ovf);
		}
		e = fxg_v3((fix16_t)ex[0], (fix16_t)ex[1], (fix16_t)ex[2]);
		break;
	}
	case FXS_SHAPE_MESH:
		if (!s->mesh)
			break;
		return local_box_aabb(s->mesh->bounds.lo, s->mesh->bounds.hi, xf, ovf);
	case FXS_SHAPE_HULL:
		if (!s->hull)
			break;
		return local_box_aabb(s->hull->g.lo, s->hull->g.hi, xf, ovf);
	case FXS_SHAPE_COMPOUND:
		if (!s->compound)
			break;
		return local_box_aabb(s->compound->lo, s->compound->hi, xf, ovf);
	default:
		e = fxg_v3_zero();
	}
	fxs_aabb box = { fxg_v3_sub(xf->p, e, ovf), fxg_v3_add(xf->p, e, ovf) };
	return box;
}
