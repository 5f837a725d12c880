/* The vector kernels for SSE4.2 (two int64 lanes a vector): each phase's *_vector.h compiled on
 * simd/lanes_sse4.h, and their table (kernels.h). Built where the compiler
 * targets that instruction set only; elsewhere the table is NULL. Integer
 * instructions only (`make nofloat` disassembles this object). */
#include "simd/kernels.h"
#include "simd/lanes_sse4.h"

#if FXS_VEC_BUILD
#include "solve/contact_batch.h"
#include "joint/joint_batch.h"
#include "collide/collide_common.h"
#include "collide/recycle.h"
#include "solve/integrate.h"
#include "geometry/shape.h"

#define VK sse4
#include "solve/contact_batch_vector.h"
#include "joint/joint_batch_vector.h"
#include "collide/collide_box_box_vector.h"
#include "collide/recycle_vector.h"
#include "solve/integrate_vector.h"
#include "state/hash_vector.h"

static const fxs_kernel_table table = {
	.level = FXS_KERNELS_SSE4,
	.batches_warm_start = fxs_batches_warm_start_sse4,
	.batches_solve = fxs_batches_solve_sse4,
	.pack_rows = fxs_pack_rows_sse4,
	.ball_setup = fxs_ball_setup_sse4,
	.ball_warm_start = fxs_ball_warm_start_sse4,
	.ball_solve = fxs_ball_solve_sse4,
	.box_sat_x8 = fxs_box_sat_x8_sse4,
	.recycle_x8 = fxs_recycle_x8_sse4,
	.integrate_x64 = fxs_integrate_x64_sse4,
	.hash_update = fxs_hash_update_sse4,
};

const fxs_kernel_table *fxs_kernel_table_sse4(void) { return &table; }
#else
const fxs_kernel_table *fxs_kernel_table_sse4(void) { return NULL; }
#endif
