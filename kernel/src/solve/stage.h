/* Stages: seed 000's object check table (its sections 6.3-6.4). The solver's
 * constraints are put in stages so that no dynamic body appears twice in a
 * stage: the constraints of one stage touch disjoint bodies and could be
 * solved in parallel, with the same bits as solving them one by one. Stages
 * run in ascending order, constraints within a stage in canonical order.
 *
 * Only bodies the solver writes count: a static, kinematic or sleeping body
 * is read-only during the solve, so any number of constraints of one stage
 * may share it (otherwise every box resting on the ground would need a stage
 * of its own).
 *
 * A constraint that was in stage s last step keeps stage s when it can (the
 * seed's reuse of the t-1 table: the solve order stays stable from step to
 * step, which keeps warm starting coherent); the others are placed, in
 * canonical order, in the lowest stage where neither body is taken. The
 * stage of a contact is therefore state: it is hashed and in the snapshot. */
#ifndef FXS_STAGE_H
#define FXS_STAGE_H

#include <stddef.h>
#include <stdint.h>

#define FXS_STAGE_LIMIT 64u    /* stages 0..63 are conflict-free (one bit each) */
#define FXS_STAGE_OVERFLOW 64u /* no free stage: solved after all others */
#define FXS_STAGE_NONE 255u    /* not placed yet (a new contact) */

/* A body index of FXS_STAGE_FREE does not count (not written by the solver). */
#define FXS_STAGE_FREE UINT32_MAX

typedef struct fxs_stage_item {
	uint32_t a, b; /* body slots, or FXS_STAGE_FREE */
	uint8_t stage; /* in: last step's stage or FXS_STAGE_NONE; out: this step's */
} fxs_stage_item;

/* Scratch (bytes) fxs_stages_assign needs for `bodies` body slots. */
size_t fxs_stages_scratch_size(uint32_t bodies);

/* Assign every item a stage in [0, FXS_STAGE_OVERFLOW]. Items are in
 * canonical order. Also fills order[] with the items' indices sorted by
 * (stage, index): the solve order, and ends[s] (FXS_STAGE_OVERFLOW + 1 of
 * them) with where stage s ends in it (either may be NULL). `scratch`
 * holds fxs_stages_scratch_size bytes, 8-byte aligned. Returns the number
 * of stages used. */
uint32_t fxs_stages_assign(fxs_stage_item *items, uint32_t n, uint32_t bodies, void *scratch, uint32_t *order, uint32_t *ends);

#endif
