/* The vector kernels for WebAssembly SIMD128 (two int64 lanes a vector):
 * each phase's *_vector.h compiled on simd/lanes_simd128.h, and their table
 * (kernels.h). Built in wasm builds made with -msimd128 (`make js`), chosen
 * at build time: every engine that runs such a build has SIMD128; elsewhere
 * the table is NULL. Integer instructions only (`make nofloat` disassembles
 * the wasm build). */
#include "simd/kernels.h"
#include "simd/lanes_simd128.h"

#if FXS_VEC_BUILD
#include "solve/contact_batch.h"
#include "joint/joint_batch.h"
#include "collide/collide_common.h"
#include "collide/recycle.h"
#include "solve/integrate.h"
#include "geometry/shape.h"

#define VK simd128
#include "solve/contact_batch_vector.h"
#include "joint/joint_batch_vector.h"
#include "collide/collide_box_box_vector.h"
#include "collide/recycle_vector.h"
#include "solve/integrate_vector.h"

static const fxs_kernel_table table = {
	.level = FXS_KERNELS_SIMD128,
	.batches_warm_start = fxs_batches_warm_start_simd128,
	.batches_solve = fxs_batches_solve_simd128,
	.pack_rows = fxs_pack_rows_simd128,
	.ball_setup = fxs_ball_setup_simd128,
	.ball_warm_start = fxs_ball_warm_start_simd128,
	.ball_solve = fxs_ball_solve_simd128,
	.box_sat_x8 = fxs_box_sat_x8_simd128,
	.recycle_x8 = fxs_recycle_x8_simd128,
	.integrate_x64 = fxs_integrate_x64_simd128,
	.hash_update = NULL,
};

const fxs_kernel_table *fxs_kernel_table_simd128(void) { return &table; }
#else
const fxs_kernel_table *fxs_kernel_table_simd128(void) { return NULL; }
#endif
