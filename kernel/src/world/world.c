/* The world: creation from a definition, slots, statistics. */
#include "world/world.h"
#include "solve/contact_batch.h"
#include "character/character.h"
#include "geometry/compound.h"
#include "geometry/hull.h"
#include "geometry/mesh.h"

#include <stdlib.h>
#include <xxhash.h>
#include <string.h>

const char *fxs_result_string(fxs_result r)
{
	switch (r) {
	case FXS_OK: return "ok";
	case FXS_ERR_INVALID_ARGUMENT: return "invalid argument";
	case FXS_ERR_BUFFER_TOO_SMALL: return "buffer too small";
	case FXS_ERR_NOMEM: return "out of memory";
	case FXS_ERR_BAD_MAGIC: return "not a fixstep file (bad magic)";
	case FXS_ERR_VERSION: return "unsupported format or kernel version";
	case FXS_ERR_TRUNCATED: return "truncated";
	case FXS_ERR_CORRUPT: return "corrupt (a field is out of range or a checksum does not match)";
	case FXS_ERR_LIMIT: return "over a limit of the world";
	}
	return "unknown error";
}

fxs_world_def fxs_default_world_def(void)
{
	fxs_world_def d;
	memset(&d, 0, sizeof d);
	d.gravity = fxg_v3(0, FXG_I(-10), 0);
	d.dt = FXG_RATIO(1, 60); /* 1092 raw = 0.016662 s */
	d.substeps = 4;
	d.relax_iterations = 1;
	d.contact_hertz = FXG_I(30);
	d.contact_damping = FXG_I(10);
	d.contact_push_max = FXG_I(3);
	d.linear_slop = FXG_RATIO(5, 1000);
	d.speculative_distance = 4 * FXG_RATIO(5, 1000);
	d.restitution_threshold = FXG_I(1);
	d.enable_sleep = true;
	d.linear_sleep_tolerance = FXG_RATIO(5, 100);
	d.angular_sleep_tolerance = FXG_RATIO(349, 10000);
	d.time_to_sleep = FXG_HALF;
	d.max_bodies = 1u << 20;
	d.direct_joint_rows = 96;
	d.direct_contact_rows = 0; /* off: the iterative solver for contacts */
	return d;
}

fxs_result fxs_world_def_validate(const fxs_world_def *d)
{
	const fix16_t gmax = FXG_I(1000);
	if (!d)
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->gravity.x < -gmax || d->gravity.x > gmax || d->gravity.y < -gmax || d->gravity.y > gmax ||
	    d->gravity.z < -gmax || d->gravity.z > gmax)
		return FXS_ERR_INVALID_ARGUMENT;
	/* dt in [1/4096 s, 1 s]; each sub-step at least 16 raw so that h v keeps
	 * precision. Every such dt and count is honoured exactly: the sub-steps
	 * are dt / substeps long, rounded down, and one raw unit longer for the
	 * first dt mod substeps of them (fxs_substep_length, solver.h). */
	if (d->dt < 16 || d->dt > FXG_ONE)
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->substeps < 1 || d->substeps > 64 || d->dt / d->substeps < 16)
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->relax_iterations < 0 || d->relax_iterations > 16)
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->contact_hertz <= 0 || d->contact_hertz > FXG_I(1000) || d->contact_damping < 0 ||
	    d->contact_damping > FXG_I(1000))
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->contact_push_max < 0 || d->contact_push_max > FXG_I(1000))
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->linear_slop < 0 || d->linear_slop > FXG_ONE || d->speculative_distance < 0 ||
	    d->speculative_distance > FXG_I(10))
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->restitution_threshold < 0 || d->restitution_threshold > FXG_I(1000))
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->linear_sleep_tolerance < 0 || d->angular_sleep_tolerance < 0 || d->time_to_sleep < 0 ||
	    d->time_to_sleep > FXG_I(1000))
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->direct_joint_rows > 1024 || d->direct_contact_rows > 1024)
		return FXS_ERR_INVALID_ARGUMENT;
	if (d->max_bodies == 0 || d->max_bodies > (1u << 24))
		return FXS_ERR_INVALID_ARGUMENT;
	return FXS_OK;
}

fxs_world *fxs_world_create(const fxs_world_def *def)
{
	if (fxs_world_def_validate(def) != FXS_OK)
		return NULL;
	fxs_world *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	w->def = *def;
	w->simd = FXS_KERNELS_AVX512; /* whatever the CPU has (fxs_world_get_kernels) */
	w->bp = fxs_bp_create();
	if (!w->bp) {
		free(w);
		return NULL;
	}
	return w;
}

void fxs_world_destroy(fxs_world *w)
{
	if (!w)
		return;
	fxs_bp_destroy(w->bp);
	fxs_meshes_free(w);
	fxs_hulls_free(w);
	fxs_compounds_free(w);
	fxs_characters_free(w);
	free(w->bodies);
	free(w->contacts);
	free(w->contacts_next);
	free(w->joints);
	free(w->joint_filter);
	free(w->scratch_aabbs);
	free(w->scratch_flags);
	free(w->solver_scratch);
	free(w->batch_scratch);
	free(w->ball_scratch);
	free(w->rot_cache);
	free(w->island);
	free(w->island_flag);
	XXH3_freeState((XXH3_state_t *)w->hash_stream);
	free(w->hash_chunk);
	free(w);
}

fxs_world_def fxs_world_get_def(const fxs_world *w) { return w->def; }

fxs_result fxs_world_status(const fxs_world *w) { return w->failed ? FXS_ERR_NOMEM : FXS_OK; }

bool fxs_world_reserve_slots(fxs_world *w, uint32_t n)
{
	if (n <= w->slot_cap)
		return true;
	uint32_t cap = w->slot_cap ? w->slot_cap : 64;
	while (cap < n)
		cap = cap > UINT32_MAX / 2 ? n : cap * 2;
	fxs_body *nb = realloc(w->bodies, (size_t)cap * sizeof *nb);
	if (!nb)
		return false;
	memset(nb + w->slot_cap, 0, (size_t)(cap - w->slot_cap) * sizeof *nb);
	w->bodies = nb;
	w->slot_cap = cap;
	return true;
}

fxs_step_stats fxs_world_get_stats(const fxs_world *w) { return w->stats; }
uint64_t fxs_world_get_step(const fxs_world *w) { return w->stats.step; }

_Static_assert((int)FXS_KERNELS_PORTABLE == (int)FXS_SIMD_NONE && (int)FXS_KERNELS_AVX2 == (int)FXS_SIMD_AVX2 &&
		       (int)FXS_KERNELS_AVX512 == (int)FXS_SIMD_AVX512,
	       "the public kernel levels are the solver's (solver.h)");

fxs_kernels fxs_world_get_kernels(const fxs_world *w)
{
	int top = fxs_batches_simd_level();
	return (fxs_kernels)(w->simd < top ? w->simd : top);
}

fxs_kernels fxs_world_set_kernels(fxs_world *w, fxs_kernels k)
{
	w->simd = k < FXS_KERNELS_PORTABLE ? FXS_KERNELS_PORTABLE : k > FXS_KERNELS_AVX512 ? FXS_KERNELS_AVX512
											   : (int)k;
	return fxs_world_get_kernels(w);
}

const char *fxs_kernels_name(fxs_kernels k)
{
	return k == FXS_KERNELS_AVX512 ? "avx512" : k == FXS_KERNELS_AVX2 ? "avx2"
									  : "portable";
}
uint32_t fxs_world_slot_count(const fxs_world *w) { return w->slot_count; }
uint32_t fxs_world_body_count(const fxs_world *w) { return w->body_count; }

fxs_body_id fxs_world_body_at(const fxs_world *w, uint32_t slot)
{
	if (slot >= w->slot_count || !w->bodies[slot].alive)
		return fxs_null_body;
	fxs_body_id id = { slot + 1, w->bodies[slot].generation };
	return id;
}
