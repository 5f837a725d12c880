#include "state/state.h"
#include "collide/contact.h"
#include "broadphase/broadphase.h"
#include "solve/stage.h"
#include "geometry/shape.h"
#include "joint/joint.h"
#include "geometry/compound.h"
#include "geometry/hull.h"
#include "geometry/mesh.h"
#include "character/character.h"
#include "state/game_state.h"
#include "world/tasks.h"

#include <stdlib.h>
#include <string.h>

static void write_def(const fxs_world_def *d, fxs_writer *wr)
{
	fxs_write_vec3(wr, d->gravity);
	fxs_write_i32(wr, d->dt);
	fxs_write_i32(wr, d->substeps);
	fxs_write_i32(wr, d->relax_iterations);
	fxs_write_i32(wr, d->contact_hertz);
	fxs_write_i32(wr, d->contact_damping);
	fxs_write_i32(wr, d->contact_push_max);
	fxs_write_i32(wr, d->linear_slop);
	fxs_write_i32(wr, d->speculative_distance);
	fxs_write_i32(wr, d->restitution_threshold);
	fxs_write_u8(wr, d->enable_sleep ? 1 : 0);
	fxs_write_i32(wr, d->linear_sleep_tolerance);
	fxs_write_i32(wr, d->angular_sleep_tolerance);
	fxs_write_i32(wr, d->time_to_sleep);
	fxs_write_u32(wr, d->max_bodies);
	/* both limits are at most 1024 (fxs_world_def_validate): one word,
	 * joints in the low half, contacts in the high half. A world without
	 * the contact path (the default) writes the same bytes, and hashes the
	 * same, as before the contact path existed. */
	fxs_write_u32(wr, (d->direct_joint_rows & 0xFFFFu) | (d->direct_contact_rows << 16));
}

static void read_def(fxs_reader *r, fxs_world_def *d)
{
	memset(d, 0, sizeof *d);
	d->worker_count = 1; /* not state: the serial step until told otherwise */
	d->gravity = fxs_read_vec3(r);
	d->dt = fxs_read_i32(r);
	d->substeps = fxs_read_i32(r);
	d->relax_iterations = fxs_read_i32(r);
	d->contact_hertz = fxs_read_i32(r);
	d->contact_damping = fxs_read_i32(r);
	d->contact_push_max = fxs_read_i32(r);
	d->linear_slop = fxs_read_i32(r);
	d->speculative_distance = fxs_read_i32(r);
	d->restitution_threshold = fxs_read_i32(r);
	uint8_t sleep = fxs_read_u8(r);
	if (sleep > 1)
		fxs_reader_fail(r, FXS_ERR_CORRUPT);
	d->enable_sleep = sleep == 1;
	d->linear_sleep_tolerance = fxs_read_i32(r);
	d->angular_sleep_tolerance = fxs_read_i32(r);
	d->time_to_sleep = fxs_read_i32(r);
	d->max_bodies = fxs_read_u32(r);
	uint32_t direct = fxs_read_u32(r);
	d->direct_joint_rows = direct & 0xFFFFu;
	d->direct_contact_rows = direct >> 16; /* validated by the caller */
}

void fxs_serialize_body(const fxs_body *b, fxs_writer *wr)
{
	uint8_t rec[FXS_STATE_BODY_RECORD_MAX];
	uint8_t *start = fxs_write_span(wr, sizeof rec, rec), *d = start;
	d = fxs_put_u32(d, b->generation);
	d = fxs_put_u8(d, b->alive);
	if (b->alive) {
		d = fxs_put_u8(d, b->type);
		d = fxs_put_i32(d, b->shape.type);
		d = fxs_put_i32(d, b->shape.radius);
		d = fxs_put_i32(d, b->shape.half_height);
		d = fxs_put_vec3(d, b->shape.half_extents);
		d = fxs_put_vec3(d, b->xf.p);
		d = fxs_put_i32(d, b->q30.x); /* the orientation in Q1.30 (xf.q is it rounded) */
		d = fxs_put_i32(d, b->q30.y);
		d = fxs_put_i32(d, b->q30.z);
		d = fxs_put_i32(d, b->q30.w);
		d = fxs_put_vec3(d, b->v);
		d = fxs_put_vec3(d, b->w);
		d = fxs_put_vec3(d, b->force);
		d = fxs_put_vec3(d, b->torque);
		d = fxs_put_i32(d, b->density);
		d = fxs_put_i32(d, b->friction);
		d = fxs_put_i32(d, b->restitution);
		d = fxs_put_i32(d, b->linear_damping);
		d = fxs_put_i32(d, b->angular_damping);
		d = fxs_put_i32(d, b->gravity_scale);
		d = fxs_put_u32(d, b->user_data);
		d = fxs_put_u8(d, b->awake);
		d = fxs_put_i32(d, b->sleep_time);
	}
	fxs_write_span_end(wr, start, d, rec);
}

static bool read_body(fxs_reader *r, fxs_body *b)
{
	memset(b, 0, sizeof *b);
	b->filter = fxs_default_filter(); /* the GAME section says when it is not */
	b->generation = fxs_read_u32(r);
	b->alive = fxs_read_u8(r);
	if (b->alive > 1)
		return false;
	if (!b->alive)
		return true;
	b->type = fxs_read_u8(r);
	b->shape.type = (fxs_shape_type)(uint32_t)fxs_read_i32(r); /* checked below (fxs_shape_is_valid) */
	b->shape.radius = fxs_read_i32(r);
	b->shape.half_height = fxs_read_i32(r);
	b->shape.half_extents = fxs_read_vec3(r);
	b->xf.p = fxs_read_vec3(r);
	b->q30.x = fxs_read_i32(r);
	b->q30.y = fxs_read_i32(r);
	b->q30.z = fxs_read_i32(r);
	b->q30.w = fxs_read_i32(r);
	b->v = fxs_read_vec3(r);
	b->w = fxs_read_vec3(r);
	b->force = fxs_read_vec3(r);
	b->torque = fxs_read_vec3(r);
	b->density = fxs_read_i32(r);
	b->friction = fxs_read_i32(r);
	b->restitution = fxs_read_i32(r);
	b->linear_damping = fxs_read_i32(r);
	b->angular_damping = fxs_read_i32(r);
	b->gravity_scale = fxs_read_i32(r);
	b->user_data = fxs_read_u32(r);
	b->awake = fxs_read_u8(r);
	b->sleep_time = fxs_read_i32(r);
	if (r->err != FXS_OK || b->awake > 1 || b->sleep_time < 0)
		return false;
	/* the same limits as fxs_body_create */
	if (b->type > FXS_BODY_DYNAMIC || !fxs_shape_is_valid(&b->shape))
		return false;
	if (b->shape.type == FXS_SHAPE_MESH && b->type != FXS_BODY_STATIC)
		return false; /* as fxs_body_create: meshes are static geometry */
	if (b->type == FXS_BODY_DYNAMIC && (b->density <= 0 || b->density > FXG_I(30000)))
		return false;
	if (b->friction < 0 || b->friction > FXG_I(100) || b->restitution < 0 || b->restitution > FXG_ONE)
		return false;
	if (b->linear_damping < 0 || b->angular_damping < 0 || b->linear_damping > FXG_I(1000) ||
	    b->angular_damping > FXG_I(1000) || b->gravity_scale < FXG_I(-100) || b->gravity_scale > FXG_I(100))
		return false;
	/* the world keeps every rotation normalised (creation, set_transform and
	 * integration renormalise); a snapshot's must be unit within 2^-10, or
	 * matrices built from it leave the range every product is sized for */
	const int32_t qmax = FXG_Q30_ONE + (FXG_Q30_ONE >> 8);
	const int32_t qs[4] = { b->q30.x, b->q30.y, b->q30.z, b->q30.w };
	for (int k = 0; k < 4; ++k)
		if (qs[k] > qmax || qs[k] < -qmax)
			return false;
	/* components now below 2^31: the squares sum inside uint64 */
	uint64_t n2 = 0;
	for (int k = 0; k < 4; ++k)
		n2 += (uint64_t)((int64_t)qs[k] * qs[k]);
	if (n2 < ((uint64_t)1 << 60) - ((uint64_t)1 << 50) || n2 > ((uint64_t)1 << 60) + ((uint64_t)1 << 50))
		return false;
	b->xf.q = fxg_q30_to_q(b->q30);
	uint32_t ovf = 0;
	fxs_body_update_mass(b);
	b->aabb = fxs_body_compute_aabb(b, &ovf);
	return true;
}

#define IMPULSE_LIMIT FXS_STATE_IMPULSE_MAX

static int64_t bound(int64_t v, int64_t lo, uint32_t *ovf)
{
	if (v < lo || v > IMPULSE_LIMIT) {
		++*ovf;
		return v < lo ? lo : IMPULSE_LIMIT;
	}
	return v;
}

static uint32_t bound_contacts(fxs_world *w, uint32_t first, uint32_t end)
{
	uint32_t ovf = 0;
	for (uint32_t i = first; i < end; ++i) {
		fxs_contact *c = &w->contacts[i];
		for (int k = 0; k < c->point_count; ++k)
			c->points[k].normal_impulse = bound(c->points[k].normal_impulse, 0, &ovf);
		for (int k = 0; k < 3; ++k)
			c->friction_impulse[k] = bound(c->friction_impulse[k], -IMPULSE_LIMIT, &ovf);
		c->twist_impulse = bound(c->twist_impulse, -IMPULSE_LIMIT, &ovf);
	}
	return ovf;
}

static uint32_t bound_joints(fxs_world *w, uint32_t first, uint32_t end)
{
	uint32_t ovf = 0;
	for (uint32_t i = first; i < end; ++i)
		if (w->joints[i].alive)
			for (int k = 0; k < FXS_JOINT_MAX_ROWS; ++k)
				w->joints[i].impulse[k] = bound(w->joints[i].impulse[k], -IMPULSE_LIMIT, &ovf);
	return ovf;
}

/* with workers: blocks of contacts, then of joint slots, each its own
 * items and its own count (tasks.h) */
#define BOUND_BLOCK 512

typedef struct bound_job {
	fxs_world *w;
	uint32_t (*fn)(fxs_world *w, uint32_t first, uint32_t end);
	uint32_t n, block;
	uint32_t count[FXS_TASK_BLOCKS_MAX];
} bound_job;

static void bound_block(void *ctx, uint32_t k)
{
	bound_job *j = ctx;
	const uint32_t a = k * j->block, b = j->n - a < j->block ? j->n : a + j->block;
	j->count[k] = j->fn(j->w, a, b);
}

static uint32_t bound_run(fxs_world *w, uint32_t (*fn)(fxs_world *, uint32_t, uint32_t), uint32_t n)
{
	if (!fxs_tasks_parallel(w))
		return fn(w, 0, n);
	bound_job j;
	j.w = w, j.fn = fn, j.n = n;
	const uint32_t blocks = fxs_task_blocks(n, w->task_fine ? 1 : BOUND_BLOCK, &j.block);
	fxs_tasks_run(w, bound_block, &j, blocks);
	uint32_t total = 0;
	for (uint32_t k = 0; k < blocks; ++k)
		total += j.count[k];
	return total;
}

void fxs_state_bound_impulses(fxs_world *w)
{
	w->ovf += bound_run(w, bound_contacts, w->contact_count);
	w->ovf += bound_run(w, bound_joints, w->joint_slot_count);
}

/* unit within 2^-10, as the bodies' rotations */
static bool unit_quat(fxg_quat q)
{
	const fix16_t qmax = FXG_ONE + (FXG_ONE >> 8);
	const fix16_t qs[4] = { q.x, q.y, q.z, q.w };
	int64_t n2 = 0;
	for (int k = 0; k < 4; ++k) {
		if (qs[k] > qmax || qs[k] < -qmax)
			return false;
		n2 += (int64_t)qs[k] * qs[k];
	}
	return n2 >= ((int64_t)1 << 32) - ((int64_t)1 << 22) && n2 <= ((int64_t)1 << 32) + ((int64_t)1 << 22);
}

/* A recycled contact's manifold (contact.c). Its normal unit within 2^-10,
 * its rotations unit, its lever arms and centres' offset within 2^14 m per
 * component (every product the narrowphase and the solver make of them is
 * then sized for), its separations any, its hold from 0 to FXS_HOLD_MAX.
 * The lever arms from b follow. */
static bool read_manifold(fxs_reader *r, fxs_contact *c)
{
	c->normal = fxs_read_vec3(r);
	c->qa0 = fxs_read_quat(r);
	c->qb0 = fxs_read_quat(r);
	c->d0 = fxs_read_vec3(r);
	const int64_t far = (int64_t)1 << 30;
	const fxg_vec3 n = c->normal;
	int64_t n2 = (int64_t)n.x * n.x + (int64_t)n.y * n.y + (int64_t)n.z * n.z; /* read as int32: below 2^64 */
	if (r->err != FXS_OK || !unit_quat(c->qa0) || !unit_quat(c->qb0) || n2 < ((int64_t)1 << 32) - ((int64_t)1 << 22) ||
	    n2 > ((int64_t)1 << 32) + ((int64_t)1 << 22))
		return false;
	for (int k = 0; k < c->point_count; ++k) {
		fxs_contact_point *p = &c->points[k];
		p->anchor_a = fxs_read_vec3(r);
		p->base_separation = fxs_read_i32(r);
		fxg_vec3 a = p->anchor_a, d = c->d0;
		if (a.x < -far || a.x > far || a.y < -far || a.y > far || a.z < -far || a.z > far || d.x < -far ||
		    d.x > far || d.y < -far || d.y > far || d.z < -far || d.z > far)
			return false;
		p->anchor_b = fxg_v3(a.x - d.x, a.y - d.y, a.z - d.z); /* below 2^31: no overflow */
	}
	c->hold = fxs_read_i32(r);
	return r->err == FXS_OK && c->hold >= 0 && c->hold <= FXS_HOLD_MAX;
}

void fxs_state_write_head(const fxs_world *w, fxs_writer *wr)
{
	write_def(&w->def, wr);
	fxs_write_u64(wr, w->stats.step);
	fxs_write_u64(wr, w->stats.overflows_total);
	fxs_write_u32(wr, w->slot_count);
}

void fxs_state_write_bodies(const fxs_world *w, fxs_writer *wr, uint32_t first, uint32_t end)
{
	for (uint32_t i = first; i < end; ++i)
		fxs_serialize_body(&w->bodies[i], wr);
}

void fxs_state_write_contacts(const fxs_world *w, fxs_writer *wr, uint32_t first, uint32_t end)
{
	for (uint32_t i = first; i < end; ++i) {
		const fxs_contact *c = &w->contacts[i];
		uint8_t rec[FXS_STATE_CONTACT_RECORD_MAX];
		uint8_t *start = fxs_write_span(wr, sizeof rec, rec), *d = start;
		/* slots are below 2^24 (max_bodies): a compound child's index
		 * rides in the top byte (0 for every other shape) */
		d = fxs_put_u32(d, c->a | (uint32_t)c->sub_a << 24);
		d = fxs_put_u32(d, c->b | (uint32_t)c->sub_b << 24);
		d = fxs_put_u8(d, (uint8_t)c->point_count);
		d = fxs_put_u8(d, c->stage);
		for (int k = 0; k < c->point_count; ++k) {
			const fxs_contact_point *p = &c->points[k];
			d = fxs_put_u32(d, p->id);
			d = fxs_put_i64(d, p->normal_impulse);
		}
		d = fxs_put_i64(d, c->friction_impulse[0]);
		d = fxs_put_i64(d, c->friction_impulse[1]);
		d = fxs_put_i64(d, c->friction_impulse[2]);
		d = fxs_put_i64(d, c->twist_impulse);
		/* a recycled manifold (contact.c), as it was made */
		if (fxs_contact_recyclable(&w->bodies[c->a].shape, &w->bodies[c->b].shape)) {
			d = fxs_put_vec3(d, c->normal);
			d = fxs_put_quat(d, c->qa0);
			d = fxs_put_quat(d, c->qb0);
			d = fxs_put_vec3(d, c->d0);
			for (int k = 0; k < c->point_count; ++k) {
				d = fxs_put_vec3(d, c->points[k].anchor_a);
				d = fxs_put_i32(d, c->points[k].base_separation);
			}
			d = fxs_put_i32(d, c->hold);
		}
		fxs_write_span_end(wr, start, d, rec);
	}
}

void fxs_state_write_tail_head(const fxs_world *w, fxs_writer *wr)
{
	fxs_bp_write_state(w->bp, wr);
	fxs_write_u32(wr, w->joint_slot_count); /* as fxs_joints_write begins */
}

void fxs_state_write_joints(const fxs_world *w, fxs_writer *wr, uint32_t first, uint32_t end)
{
	fxs_joints_write_records(w, wr, first, end);
}

void fxs_state_write_tail(const fxs_world *w, fxs_writer *wr)
{
	fxs_bp_write_state(w->bp, wr);
	fxs_joints_write(w, wr);
	fxs_state_write_tail_rest(w, wr);
}

void fxs_state_write_tail_rest(const fxs_world *w, fxs_writer *wr)
{
	fxs_meshes_write(w, wr);     /* nothing when the world has no mesh */
	fxs_hulls_write(w, wr);      /* nothing when the world has no hull */
	fxs_compounds_write(w, wr);  /* nothing when the world has no compound */
	fxs_characters_write(w, wr); /* nothing when the world never had a character */
	fxs_game_write(w, wr);       /* nothing when no game feature is in use (game_state.c) */
}

void fxs_state_write(const fxs_world *w, fxs_writer *wr)
{
	fxs_state_write_head(w, wr);
	fxs_state_write_bodies(w, wr, 0, w->slot_count);
	fxs_write_u32(wr, w->contact_count);
	fxs_state_write_contacts(w, wr, 0, w->contact_count);
	fxs_state_write_tail(w, wr);
}

fxs_world *fxs_state_read(fxs_reader *r, fxs_result *err)
{
	fxs_world_def def;
	read_def(r, &def);
	if (r->err != FXS_OK) {
		*err = r->err;
		return NULL;
	}
	if (fxs_world_def_validate(&def) != FXS_OK) {
		*err = FXS_ERR_CORRUPT;
		return NULL;
	}
	fxs_world *w = fxs_world_create(&def);
	if (!w) {
		*err = FXS_ERR_NOMEM;
		return NULL;
	}
	fxs_result e = FXS_ERR_CORRUPT;
	w->stats.step = fxs_read_u64(r);
	w->stats.overflows_total = fxs_read_u64(r);
	uint32_t slots = fxs_read_u32(r);
	/* every slot takes at least 5 bytes: reject counts the input cannot hold
	 * before allocating for them */
	if (r->err != FXS_OK || slots > def.max_bodies || slots > (r->len - r->pos) / 5)
		goto fail;
	if (!fxs_world_reserve_slots(w, slots)) {
		e = FXS_ERR_NOMEM;
		goto fail;
	}
	w->slot_count = slots;
	if (slots) /* fxs_world_reserve_slots leaves them as they are (and no slots: no array) */
		memset(w->bodies, 0, (size_t)slots * sizeof *w->bodies);
	for (uint32_t i = 0; i < slots; ++i) {
		if (!read_body(r, &w->bodies[i]))
			goto fail;
		w->body_count += w->bodies[i].alive;
	}
	uint32_t cc = fxs_read_u32(r);
	if (r->err != FXS_OK || cc > (r->len - r->pos) / 42)
		goto fail;
	if (cc > 0) {
		w->contacts = calloc(cc, sizeof *w->contacts);
		if (!w->contacts) {
			e = FXS_ERR_NOMEM;
			goto fail;
		}
		w->contact_cap = cc;
	}
	for (uint32_t i = 0; i < cc; ++i) {
		fxs_contact *c = &w->contacts[i];
		c->a = fxs_read_u32(r);
		c->b = fxs_read_u32(r);
		c->sub_a = (uint8_t)(c->a >> 24), c->sub_b = (uint8_t)(c->b >> 24);
		c->a &= 0xFFFFFFu, c->b &= 0xFFFFFFu; /* children checked with the compounds */
		c->point_count = fxs_read_u8(r);
		c->stage = fxs_read_u8(r);
		if (r->err != FXS_OK || (c->stage > FXS_STAGE_OVERFLOW && c->stage != FXS_STAGE_NONE) || c->a >= c->b || c->b >= slots || !w->bodies[c->a].alive ||
		    !w->bodies[c->b].alive || c->point_count < 1 || c->point_count > FXS_MAX_MANIFOLD_POINTS)
			goto fail;
		if (i > 0) {
			const fxs_contact *p = &w->contacts[i - 1];
			uint64_t kp = (uint64_t)p->a << 40 | (uint64_t)p->b << 16 | (uint64_t)p->sub_a << 8 | p->sub_b;
			uint64_t kc = (uint64_t)c->a << 40 | (uint64_t)c->b << 16 | (uint64_t)c->sub_a << 8 | c->sub_b;
			if (kp >= kc)
				goto fail; /* must be strictly sorted by (a, b, sub_a, sub_b) */
		}
		for (int k = 0; k < c->point_count; ++k) {
			fxs_contact_point *p = &c->points[k];
			p->id = fxs_read_u32(r);
			p->normal_impulse = fxs_read_i64(r);
			/* impulses the solver can have made: non-negative normal, all
			 * within 2^47 raw (2^31 N s) so that sums stay far from int64's end */
			if (p->normal_impulse < 0 || p->normal_impulse > IMPULSE_LIMIT)
				goto fail;
		}
		for (int k = 0; k < 3; ++k)
			c->friction_impulse[k] = fxs_read_i64(r);
		c->twist_impulse = fxs_read_i64(r);
		for (int k = 0; k < 4; ++k) {
			int64_t v = k < 3 ? c->friction_impulse[k] : c->twist_impulse;
			if (v < -IMPULSE_LIMIT || v > IMPULSE_LIMIT)
				goto fail;
		}
		if (fxs_contact_recyclable(&w->bodies[c->a].shape, &w->bodies[c->b].shape) && !read_manifold(r, c))
			goto fail;
		w->contact_count = i + 1;
	}
	if (r->err != FXS_OK)
		goto fail;
	fxs_result be = fxs_bp_read_state(w->bp, r, slots);
	if (be != FXS_OK) {
		e = be; /* out of memory, or a corrupt tree */
		goto fail;
	}
	if (r->err != FXS_OK)
		goto fail;
	if (!fxs_joints_read(w, r))
		goto fail;
	if (r->err != FXS_OK)
		goto fail;
	if (!fxs_meshes_read(w, r))
		goto fail;
	if (!fxs_hulls_read(w, r) || r->err != FXS_OK)
		goto fail;
	if (!fxs_compounds_read(w, r) || r->err != FXS_OK)
		goto fail;
	if (!fxs_characters_read(w, r) || r->err != FXS_OK)
		goto fail;
	if (!fxs_game_read(w, r) || r->err != FXS_OK)
		goto fail;
	return w;
fail:
	*err = r->err != FXS_OK ? r->err : e;
	fxs_world_destroy(w);
	return NULL;
}
