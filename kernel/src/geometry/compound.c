#include "geometry/compound.h"
#include "collide/contact.h"
#include "state/serialize.h"
#include "world/call_log.h"

#include <stdlib.h>
#include <string.h>

#include "geometry/hull.h"
#include "geometry/shape.h"
#include "world/world.h"

/* children: at most 50 m in every dimension and within 100 m of the origin,
 * so that the masses below (density 10) stay far inside Q32.32 */
#define CHILD_MAX_SIZE FXG_I(50)
#define CHILD_MAX_OFFSET FXG_I(100)

static bool child_ok(const fxs_world *w, const fxs_compound_child *c, fxs_shape *resolved)
{
	*resolved = c->shape;
	resolved->compound = NULL;
	switch (c->shape.type) {
	case FXS_SHAPE_SPHERE:
	case FXS_SHAPE_BOX:
	case FXS_SHAPE_CAPSULE:
	case FXS_SHAPE_CYLINDER:
		if (!fxs_shape_is_valid(&c->shape) || c->shape.radius > CHILD_MAX_SIZE ||
		    c->shape.half_height > CHILD_MAX_SIZE || c->shape.half_extents.x > CHILD_MAX_SIZE ||
		    c->shape.half_extents.y > CHILD_MAX_SIZE || c->shape.half_extents.z > CHILD_MAX_SIZE)
			return false;
		resolved->mesh_id = 0;
		break;
	case FXS_SHAPE_HULL:
		if (!fxs_shape_is_valid(&c->shape) || !(resolved->hull = fxs_world_get_hull(w, c->shape.hull_id)))
			return false;
		break;
	default:
		return false;
	}
	const fix16_t p[3] = { c->xf.p.x, c->xf.p.y, c->xf.p.z };
	for (int k = 0; k < 3; ++k)
		if (p[k] > CHILD_MAX_OFFSET || p[k] < -CHILD_MAX_OFFSET)
			return false;
	/* unit within 2^-10, as a snapshot's rotations */
	const fix16_t qmax = FXG_ONE + (FXG_ONE >> 8);
	const fix16_t qs[4] = { c->xf.q.x, c->xf.q.y, c->xf.q.z, c->xf.q.w };
	int64_t n2 = 0;
	for (int k = 0; k < 4; ++k) {
		if (qs[k] > qmax || qs[k] < -qmax)
			return false;
		n2 += (int64_t)qs[k] * qs[k];
	}
	const int64_t one = (int64_t)1 << 32, tol = one >> 9;
	return n2 >= one - tol && n2 <= one + tol;
}

static void child_mass(const fxs_shape *s, fix16_t density, fxg_wide *m, fxg_wide t[6], uint32_t *ovf)
{
	if (s->type == FXS_SHAPE_HULL) {
		fxs_shape_hull_inertia(s, density, m, t, ovf);
		return;
	}
	fxs_shape_mass(s, density, m, t, ovf);
	t[3] = t[4] = t[5] = 0;
}

/* NULL on bad input or no memory (*nomem says which) */
static fxs_compound *build(const fxs_world *w, const fxs_compound_child *children, uint32_t n, bool *nomem)
{
	*nomem = false;
	if (!children || n < 1 || n > FXS_COMPOUND_MAX_CHILDREN)
		return NULL;
	fxs_compound *c = calloc(1, sizeof *c);
	if (!c) {
		*nomem = true;
		return NULL;
	}
	c->n = n;
	uint32_t ovf = 0;
	fxg_wide mi[FXS_COMPOUND_MAX_CHILDREN], total = 0;
	for (uint32_t k = 0; k < n; ++k) {
		c->input[k] = children[k];
		c->input[k].shape.compound = NULL; /* pointers are never kept from the caller */
		if (!child_ok(w, &children[k], &c->child[k])) {
			free(c);
			return NULL;
		}
		c->input[k].shape.mesh_id = c->child[k].mesh_id;
		fxg_wide t[6];
		child_mass(&c->child[k], FXG_I(10), &mi[k], t, &ovf);
		total = fxg_add64(total, mi[k], &ovf);
	}
	/* centre of mass: sum (m_k / M) p_k, each weight rounded once */
	fxg_wide cx = 0, cy = 0, cz = 0;
	for (uint32_t k = 0; k < n; ++k) {
		fxg_wide wk = fxg_wide_div(mi[k], total, &ovf);
		fxg_vec3 p = children[k].xf.p;
		cx = fxg_add64(cx, fxg_wmul(wk, p.x, &ovf), &ovf);
		cy = fxg_add64(cy, fxg_wmul(wk, p.y, &ovf), &ovf);
		cz = fxg_add64(cz, fxg_wmul(wk, p.z, &ovf), &ovf);
	}
	c->com = fxg_v3(fxg_wide_to_fix(cx, &ovf), fxg_wide_to_fix(cy, &ovf), fxg_wide_to_fix(cz, &ovf));
	for (uint32_t k = 0; k < n; ++k) {
		c->xf[k].p = fxg_v3_sub(children[k].xf.p, c->com, &ovf);
		c->xf[k].q = fxg_q_normalize(children[k].xf.q, &ovf);
		fxs_aabb b = fxs_shape_aabb(&c->child[k], &c->xf[k], &ovf);
		c->lo = k == 0 ? b.lo : fxg_v3_min(c->lo, b.lo);
		c->hi = k == 0 ? b.hi : fxg_v3_max(c->hi, b.hi);
	}
	if (ovf) {
		free(c);
		return NULL;
	}
	return c;
}

void fxs_compound_mass(const fxs_compound *c, fix16_t density, fxg_wide *mass, fxg_wide inertia[6], uint32_t *ovf)
{
	fxg_wide m = 0, I[6] = { 0 };
	for (uint32_t k = 0; k < c->n; ++k) {
		fxg_wide mk, t[6];
		child_mass(&c->child[k], density, &mk, t, ovf);
		m = fxg_add64(m, mk, ovf);
		fxg_mat3 r = fxg_m3_from_quat(c->xf[k].q, ovf);
		fxg_sym3w own = { t[0], t[1], t[2], t[3], t[4], t[5] };
		fxg_sym3w rot = fxg_s3w_rotate(r, &own, ovf);
		/* parallel axes: m (|d|^2 E - d d^T), the products exact */
		fxg_vec3 d = c->xf[k].p;
		fxg_wide xx = fxg_mul_wide(d.x, d.x), yy = fxg_mul_wide(d.y, d.y), zz = fxg_mul_wide(d.z, d.z);
		fxg_wide pa[6] = { fxg_wmul_wide(mk, yy + zz, ovf), fxg_wmul_wide(mk, xx + zz, ovf),
				   fxg_wmul_wide(mk, xx + yy, ovf), fxg_neg64(fxg_wmul_wide(mk, fxg_mul_wide(d.x, d.y), ovf), ovf),
				   fxg_neg64(fxg_wmul_wide(mk, fxg_mul_wide(d.x, d.z), ovf), ovf),
				   fxg_neg64(fxg_wmul_wide(mk, fxg_mul_wide(d.y, d.z), ovf), ovf) };
		const fxg_wide own6[6] = { rot.xx, rot.yy, rot.zz, rot.xy, rot.xz, rot.yz };
		for (int e = 0; e < 6; ++e)
			I[e] = fxg_add64(I[e], fxg_add64(own6[e], pa[e], ovf), ovf);
	}
	*mass = m;
	for (int e = 0; e < 6; ++e)
		inertia[e] = I[e];
}

fxs_transform fxs_compound_child_xf(const fxs_compound *c, uint32_t k, const fxs_transform *xf, uint32_t *ovf)
{
	fxs_transform t;
	t.p = fxg_v3_add(xf->p, fxg_q_rotate(xf->q, c->xf[k].p, ovf), ovf);
	t.q = fxg_q_normalize(fxg_q_mul(xf->q, c->xf[k].q, ovf), ovf);
	return t;
}

/* ---- the world's compounds ---- */

const fxs_compound *fxs_world_get_compound(const fxs_world *w, uint32_t id)
{
	return w && id >= 1 && id <= w->compound_count ? w->compounds[id - 1] : NULL;
}

void fxs_compounds_free(fxs_world *w)
{
	for (uint32_t i = 0; i < w->compound_count; ++i)
		free(w->compounds[i]);
	free(w->compounds);
	w->compounds = NULL;
	w->compound_count = w->compound_cap = 0;
}

static bool add_compound(fxs_world *w, fxs_compound *c)
{
	if (w->compound_count == w->compound_cap) {
		uint32_t cap = w->compound_cap ? w->compound_cap * 2 : 4;
		fxs_compound **nc = realloc(w->compounds, (size_t)cap * sizeof *nc);
		if (!nc)
			return false;
		w->compounds = nc;
		w->compound_cap = cap;
	}
	w->compounds[w->compound_count++] = c;
	return true;
}

fxs_compound_id fxs_world_create_compound(fxs_world *w, const fxs_compound_child *children, uint32_t n, fxg_vec3 *com)
{
	FXS_CALL_LOG(w, FXS_OP_WORLD_CREATE_COMPOUND, children, n);
	if (!w)
		return 0;
	if (w->compound_count >= FXS_MAX_COMPOUNDS)
		return fxs_world_fail(w, FXS_ERR_LIMIT, "the world has 65536 compounds"), 0;
	bool nomem;
	fxs_compound *c = build(w, children, n, &nomem);
	if (!c)
		return fxs_world_fail(w, nomem ? FXS_ERR_NOMEM : FXS_ERR_INVALID_ARGUMENT, "%s",
				      nomem ? "out of memory"
					    : "compound: 1 to 16 children, each a valid sphere, box, capsule or hull of "
					      "this world with a unit rotation, within 100 m"),
		       0;
	if (!add_compound(w, c)) {
		free(c);
		return fxs_world_fail(w, FXS_ERR_NOMEM, "out of memory"), 0;
	}
	if (com)
		*com = c->com;
	fxs_world_touch(w);
	fxs_world_ok(w);
	return w->compound_count;
}

fxs_shape fxs_compound_shape(const fxs_world *w, fxs_compound_id id)
{
	fxs_shape s;
	memset(&s, 0, sizeof s);
	s.type = FXS_SHAPE_COMPOUND;
	s.compound = fxs_world_get_compound(w, id);
	s.compound_id = s.compound ? id : 0;
	return s;
}

uint32_t fxs_world_compound_count(const fxs_world *w) { return w ? w->compound_count : 0; }

#define CMPD_MAGIC 0x44504D43u /* "CMPD" little-endian */
#define CHILD_BYTES (4 + 4 + 4 + 12 + 4 + 12 + 16)

void fxs_compounds_write(const fxs_world *w, fxs_writer *wr)
{
	if (w->compound_count == 0)
		return;
	fxs_write_u32(wr, CMPD_MAGIC);
	fxs_write_u32(wr, w->compound_count);
	for (uint32_t i = 0; i < w->compound_count; ++i) {
		const fxs_compound *c = w->compounds[i];
		fxs_write_u32(wr, c->n);
		for (uint32_t k = 0; k < c->n; ++k) {
			const fxs_compound_child *ch = &c->input[k];
			fxs_write_i32(wr, ch->shape.type);
			fxs_write_i32(wr, ch->shape.radius);
			fxs_write_i32(wr, ch->shape.half_height);
			fxs_write_vec3(wr, ch->shape.half_extents);
			fxs_write_u32(wr, ch->shape.mesh_id);
			fxs_write_vec3(wr, ch->xf.p);
			fxs_write_quat(wr, ch->xf.q);
		}
	}
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		const fxs_body *b = &w->bodies[s];
		if (b->alive && b->shape.type == FXS_SHAPE_COMPOUND)
			fxs_write_u32(wr, b->shape.compound_id);
	}
}

bool fxs_compounds_read(fxs_world *w, fxs_reader *r)
{
	bool any = false;
	for (uint32_t s = 0; s < w->slot_count; ++s)
		any |= w->bodies[s].alive && w->bodies[s].shape.type == FXS_SHAPE_COMPOUND;
	bool present = false;
	if (r->len - r->pos >= 4) {
		const uint8_t *q = r->buf + r->pos;
		present = ((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24) == CMPD_MAGIC;
	}
	if (!present && any)
		return false;
	if (present) {
		fxs_read_u32(r);
		uint32_t count = fxs_read_u32(r);
		if (r->err != FXS_OK || count == 0 || count > FXS_MAX_COMPOUNDS || count > (r->len - r->pos) / (4 + CHILD_BYTES))
			return false;
		for (uint32_t i = 0; i < count; ++i) {
			uint32_t n = fxs_read_u32(r);
			if (r->err != FXS_OK || n < 1 || n > FXS_COMPOUND_MAX_CHILDREN)
				return false;
			fxs_compound_child ch[FXS_COMPOUND_MAX_CHILDREN];
			memset(ch, 0, sizeof ch);
			for (uint32_t k = 0; k < n; ++k) {
				ch[k].shape.type = fxs_read_i32(r);
				ch[k].shape.radius = fxs_read_i32(r);
				ch[k].shape.half_height = fxs_read_i32(r);
				ch[k].shape.half_extents = fxs_read_vec3(r);
				ch[k].shape.mesh_id = fxs_read_u32(r);
				ch[k].xf.p = fxs_read_vec3(r);
				ch[k].xf.q = fxs_read_quat(r);
			}
			if (r->err != FXS_OK)
				return false;
			bool nomem;
			fxs_compound *c = build(w, ch, n, &nomem); /* validates every field */
			if (c && !add_compound(w, c))
				nomem = true;
			if (nomem) /* not the input's fault: say so */
				fxs_reader_fail(r, FXS_ERR_NOMEM);
			if (!c || nomem) {
				free(c);
				return false;
			}
		}
	}
	for (uint32_t s = 0; s < w->slot_count; ++s) {
		fxs_body *b = &w->bodies[s];
		if (!b->alive || b->shape.type != FXS_SHAPE_COMPOUND)
			continue;
		uint32_t id = fxs_read_u32(r);
		if (r->err != FXS_OK || id < 1 || id > w->compound_count)
			return false;
		b->shape.compound_id = id;
		b->shape.compound = w->compounds[id - 1];
		fxs_body_update_mass(b);
		uint32_t ovf = 0;
		b->aabb = fxs_body_compute_aabb(b, &ovf);
	}
	/* contacts name children: in range for compounds, 0 for the rest */
	for (uint32_t i = 0; i < w->contact_count; ++i) {
		const fxs_contact *ct = &w->contacts[i];
		const fxs_shape *sa = &w->bodies[ct->a].shape, *sb = &w->bodies[ct->b].shape;
		uint32_t na = sa->type == FXS_SHAPE_COMPOUND ? sa->compound->n : 1;
		uint32_t nb = sb->type == FXS_SHAPE_COMPOUND ? sb->compound->n : 1;
		if (ct->sub_a >= na || ct->sub_b >= nb)
			return false;
	}
	return r->err == FXS_OK;
}
