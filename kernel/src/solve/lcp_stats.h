/* The boxed LCP's running counts (lcp.c, solver_direct.c): diagnostics,
 * not state (never hashed); the world keeps one (fxs_world.lcp_stats). A
 * leaf header: it includes nothing of the kernel, so the world can hold it
 * by value. */
#ifndef FXS_LCP_STATS_H
#define FXS_LCP_STATS_H

#include <stdint.h>

typedef struct fxs_lcp_stats {
	uint32_t solves;    /* boxed LCPs solved */
	uint32_t passes;    /* bound re-estimation passes */
	uint32_t pivots;    /* index-set changes */
	uint32_t factors;   /* factorisations */
	uint32_t fallbacks; /* passes that hit the pivot cap */
	uint32_t floored;   /* floored pivots */
} fxs_lcp_stats;

#endif
