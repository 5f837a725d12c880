/* The vector kernels: one table of entry points per instruction set.
 *
 * Each phase of the step that has vector kernels writes them once, on the lanes of
 * simd/lanes.h, in a *_vector.h beside its portable code:
 *   solve/contact_batch_vector.h   the contact batches' warm start, solve, packing
 *   joint/joint_batch_vector.h     the ball joints' setup, warm start, solve
 *   collide/collide_box_box_vector.h   the box-box separating axes
 *   collide/recycle_vector.h       the contact recycling test
 *   solve/integrate_vector.h       the position integration
 *   state/hash_vector.h            the state hash's XXH3 update
 * and one translation unit per instruction set (simd/kernels_sse4.c,
 * kernels_avx2.c, kernels_avx512.c, kernels_neon.c, kernels_simd128.c) includes its lanes
 * layer and those sources and fills the table. Every kernel computes the
 * portable code's integer formulas, so whichever table runs (or none) the
 * bits are the same.
 *
 * simd/cpu.c owns the choice: which instruction sets this CPU and build
 * have, and the table of a level. A phase holds the table pointer it was
 * given (NULL: the portable code) and calls through it; a NULL entry means
 * that phase has no kernel for that instruction set. */
#ifndef FXS_SIMD_KERNELS_H
#define FXS_SIMD_KERNELS_H

#include "fixstep/fixstep.h"

struct solver_ctx;
struct solver_body;
struct contact_batch;
struct lane_arms;
struct fxs_body;
struct fxs_contact;
struct fxs_recycle_lanes;
struct fxs_box_sat_result;

typedef struct fxs_kernel_table {
	fxs_kernels level;
	/* the contact batches (contact_batch.h): the batches [first, end) of
	 * the stages 0..63, returning the saturations they counted; the rows of
	 * one batch, returning the lanes left to the portable code */
	uint32_t (*batches_warm_start)(struct solver_ctx *c, uint32_t first, uint32_t end);
	uint32_t (*batches_solve)(struct solver_ctx *c, uint32_t first, uint32_t end, bool use_bias);
	uint32_t (*pack_rows)(struct solver_ctx *c, struct contact_batch *bt, const struct lane_arms *arms);
	/* the ball joint batches (joint_batch.h) [first, end) */
	uint32_t (*ball_setup)(struct solver_ctx *c, uint32_t first, uint32_t end, bool all);
	uint32_t (*ball_warm_start)(struct solver_ctx *c, uint32_t first, uint32_t end);
	uint32_t (*ball_solve)(struct solver_ctx *c, uint32_t first, uint32_t end, bool use_bias);
	/* the box-box separating axes of up to 8 pairs (collide_common.h's
	 * FXS_BOX_SAT_ARGS): the mask of the pairs done */
	uint32_t (*box_sat_x8)(int n, const fxs_shape *const a[8], const fxs_shape *const b[8], const fxg_vec3 dw[8],
			       const fxg_mat3 *const ra[8], const fxg_mat3 *const rb[8], struct fxs_box_sat_result *out);
	/* the recycling test of up to 8 manifolds (recycle.h's FXS_RECYCLE_ARGS) */
	void (*recycle_x8)(int n, const struct fxs_contact *const prev[8], const struct fxs_body *const a[8],
			   const struct fxs_body *const b[8], fix16_t linear_slop, struct fxs_recycle_lanes *out);
	/* the position integration of up to 64 bodies (integrate.h's
	 * FXS_INTEGRATE_ARGS): the bodies left to the portable code */
	uint64_t (*integrate_x64)(struct fxs_body *b, struct solver_body *s, const uint8_t *flags, uint32_t n, fix16_t len);
	/* the hash's XXH3 update on this instruction set's accumulator; NULL:
	 * the xxHash library's own */
	void (*hash_update)(void *state, const void *p, size_t n);
} fxs_kernel_table;

/* ---- simd/cpu.c ---- */

/* Whether this CPU and build have the kernels of level k (the portable
 * level always). */
bool fxs_kernels_available(fxs_kernels k);
/* The widest level no wider than k (in the order fixstep.h states: portable,
 * sse4, avx2, avx512, simd128, neon) that this CPU and build have: what
 * fxs_world_set_kernels promises. */
fxs_kernels fxs_kernels_at_most(fxs_kernels k);
/* The table of level k; NULL for the portable level and for a level this
 * CPU or build does not have. */
const fxs_kernel_table *fxs_kernel_table_get(fxs_kernels k);

/* ---- each instruction set's translation unit ---- */

/* The tables, NULL where the build does not target that instruction set
 * (the SSE4 and AVX ones outside x86, NEON outside aarch64, SIMD128 outside wasm
 * builds made with -msimd128). Whether the CPU has it is cpu.c's question. */
const fxs_kernel_table *fxs_kernel_table_sse4(void);
const fxs_kernel_table *fxs_kernel_table_avx2(void);
const fxs_kernel_table *fxs_kernel_table_avx512(void);
const fxs_kernel_table *fxs_kernel_table_neon(void);
const fxs_kernel_table *fxs_kernel_table_simd128(void);

/* The names a kernel source gives its functions: NAME_VK, VK the
 * instruction set its translation unit defines (fxs_batches_solve_avx2),
 * so that profiles tell the kernels apart. */
#define FXS_VK_PASTE_(name, suffix) name##_##suffix
#define FXS_VK_PASTE(name, suffix) FXS_VK_PASTE_(name, suffix)
#define VKN(name) FXS_VK_PASTE(name, VK)

#endif
