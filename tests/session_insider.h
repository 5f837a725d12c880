/* A session attacked by one of its own peers: an insider holds the session
 * key, so its packets pass the MAC, and only the body's own checks stand
 * between its bytes and the session's state. The bytes of an attack (a
 * libFuzzer input, or a seeded test's) script a four-peer session over the
 * simulated network, a late joiner, pauses long enough to be declared
 * absent, restarts, and packets of every type whose bodies are chosen,
 * mutated from real ones, or cut short. The fuzz target
 * (replays/fuzz/fuzz_session.c) and the tests (tests/test_session.c) run the
 * same script; under ASan and UBSan no body may crash, read or write out of
 * bounds, leak or hang. */
#ifndef FXS_TESTS_SESSION_INSIDER_H
#define FXS_TESTS_SESSION_INSIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fixstep/session.h"

/* The script: one byte (bit 0: lockstep, else rollback; bits 1-2: the
 * input delay), then ops, each its kind (byte % 8: 0-1 frames pass, 2 a
 * forged body, 3 a real body changed or cut, 4 a roster message of the
 * right shape, 5 a peer paused or resumed, 6 a peer restarted to join
 * again, 7 the late joiner arrives), who attacks whom (byte % 4), then
 * INSIDER_OP_BYTES of its own; a forged body's bytes come after those. */
#define INSIDER_OP_BYTES 48u
enum { INSIDER_FRAMES = 0,
       INSIDER_FORGED = 2,
       INSIDER_MUTATED,
       INSIDER_ROSTER,
       INSIDER_PAUSE,
       INSIDER_RESTART,
       INSIDER_JOIN };

typedef struct insider_stats {
	uint64_t injected;                  /* packets of the attacker's making, delivered */
	uint64_t accepted;                  /* of those, taken (FXS_DROP_NONE) */
	uint64_t dropped[FXS_DROP_REASONS]; /* of those, dropped, by reason */
	uint64_t by_type[16];               /* of those, by packet type */
	uint64_t frames, restarts, pauses;
	uint64_t max_tick; /* the furthest tick a peer reached */
} insider_stats;

/* Run one attack script; st (may be NULL) adds up what happened. Returns
 * false only when the session could not be made (out of memory). */
bool insider_run(const uint8_t *script, size_t len, insider_stats *st);

/* A seeded script of about 70 ops, weighted towards attacks (the tests'
 * and the fuzz target's seeds): its length (at most cap). */
size_t insider_script(uint64_t *rng, uint8_t *out, size_t cap);

#endif
