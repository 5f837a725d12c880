/* The vector kernels for AVX2 (four int64 lanes a vector): each phase's *_vector.h compiled on
 * simd/lanes_avx2.h, and their table (kernels.h). Built where the compiler
 * targets that instruction set only; elsewhere the table is NULL. Integer
 * instructions only (`make nofloat` disassembles this object). */
#include "simd/kernels.h"
#include "simd/lanes_avx2.h"

#if FXS_VEC_BUILD
#include "solve/contact_batch.h"
#include "joint/joint_batch.h"
#include "collide/collide_common.h"
#include "collide/recycle.h"
#include "solve/integrate.h"
#include "geometry/shape.h"

#define VK avx2
#include "solve/contact_batch_vector.h"
#include "joint/joint_batch_vector.h"
#include "collide/collide_box_box_vector.h"
#include "collide/recycle_vector.h"
#include "solve/integrate_vector.h"
#include "state/hash_vector.h"

static const fxs_kernel_table table = {
	.level = FXS_KERNELS_AVX2,
	.batches_warm_start = fxs_batches_warm_start_avx2,
	.batches_solve = fxs_batches_solve_avx2,
	.pack_rows = fxs_pack_rows_avx2,
	.ball_setup = fxs_ball_setup_avx2,
	.ball_warm_start = fxs_ball_warm_start_avx2,
	.ball_solve = fxs_ball_solve_avx2,
	.box_sat_x8 = fxs_box_sat_x8_avx2,
	.recycle_x8 = fxs_recycle_x8_avx2,
	.integrate_x64 = fxs_integrate_x64_avx2,
	.hash_update = fxs_hash_update_avx2,
};

const fxs_kernel_table *fxs_kernel_table_avx2(void) { return &table; }
#else
const fxs_kernel_table *fxs_kernel_table_avx2(void) { return NULL; }
#endif
