/* Naming a desync across machines (session/desync_exchange.h): two peers
 * that hold different states of one tick exchange tables and then the
 * differing entry over a lossy, reordering, duplicating network, and both
 * print the same line, which names the same body and field as the
 * snapshot comparison does when it has both states; opaque states are named
 * by byte range; a peer's lies name nothing. */
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "replay_run.h"
#include "scenes/scenes.h"
#include "session/desync_exchange.h"
#include "fixstep/session.h"
#include "test.h"

/* Two exchanges (peer 1 and peer 3) over the simulated network until both
 * named (or gave up): the virtual ms it took, UINT64_MAX when not. */
static uint64_t run_pair(fxs_dx *a, fxs_dx *b, uint64_t seed)
{
	fxs_impair imp = { 0.10, 0.05, 20, 60, seed };
	fxs_simnet *net = fxs_simnet_create(2, &imp);
	fxs_transport ta = fxs_simnet_endpoint(net, 0), tb = fxs_simnet_endpoint(net, 1);
	uint8_t buf[2048];
	uint64_t took = UINT64_MAX;
	for (uint64_t now = 0; now < 30000; now += 8) {
		size_t n;
		int from;
		while ((n = ta.recv(ta.ctx, buf, sizeof buf, &from)) > 0)
			fxs_dx_receive(a, buf, n, now);
		while ((n = tb.recv(tb.ctx, buf, sizeof buf, &from)) > 0)
			fxs_dx_receive(b, buf, n, now);
		while ((n = fxs_dx_poll(a, now, buf, sizeof buf)) > 0)
			ta.send(ta.ctx, 1, buf, n);
		while ((n = fxs_dx_poll(b, now, buf, sizeof buf)) > 0)
			tb.send(tb.ctx, 0, buf, n);
		if (fxs_dx_finished(a) && fxs_dx_finished(b)) {
			took = now;
			break;
		}
		if (a->problem[0] || b->problem[0])
			break;
		fxs_simnet_advance(net, 8);
	}
	fxs_simnet_destroy(net);
	return took;
}

static uint8_t *snapshot_of(const fxs_world *w, size_t *len)
{
	size_t cap = fxs_world_snapshot_size(w);
	uint8_t *b = malloc(cap);
	if (b && fxs_world_snapshot_save(w, b, cap, len) != FXS_OK) {
		free(b);
		return NULL;
	}
	return b;
}

/* The state of `scene` after `ticks` steps, with body `slot` moved by one
 * LSB along `axis` after the last step when `perturb`. */
static uint8_t *scene_state(const char *scene, uint32_t ticks, bool perturb, uint32_t slot, int axis, size_t *len)
{
	const fxs_scene *sc = fxs_scene_find(scene);
	fxs_world *w = sc->create();
	for (uint32_t t = 0; t < ticks; ++t)
		fxs_world_step(w);
	if (perturb) {
		fxs_body_id id = fxs_world_body_at(w, slot);
		fxg_vec3 p = fxs_body_get_position(w, id);
		if (axis == 0)
			p.x += 1;
		else
			p.z -= 1;
		fxs_body_set_transform(w, id, p, fxs_body_get_rotation(w, id));
	}
	uint8_t *s = snapshot_of(w, len);
	fxs_world_destroy(w);
	return s;
}

static uint32_t last_dynamic_slot(const char *scene)
{
	fxs_world *w = fxs_scene_find(scene)->create();
	uint32_t last = 0;
	for (uint32_t i = 0; i < fxs_world_slot_count(w); ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (fxs_body_is_valid(w, id) && fxs_body_get_type(w, id) == FXS_BODY_DYNAMIC)
			last = i;
	}
	fxs_world_destroy(w);
	return last;
}

/* the one-machine comparison of two snapshots: "body B field F (expected E, got G)" */
static bool compare_snapshots(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, char *out, size_t n)
{
	fxs_state_diff d;
	bool differ = fxs_snapshot_first_difference(a, alen, b, blen, &d);
	if (differ)
		fxs_state_diff_format(&d, out, n);
	return differ;
}

static void world_case(const char *scene, int axis, uint64_t seed)
{
	uint32_t slot = last_dynamic_slot(scene);
	size_t la, lb;
	uint8_t *sa = scene_state(scene, 50, false, slot, axis, &la);
	uint8_t *sb = scene_state(scene, 50, true, slot, axis, &lb);
	CHECK(sa && sb);
	fxs_dx a, b;
	fxs_dx_init(&a, 1, 3);
	fxs_dx_init(&b, 3, 1);
	CHECK(fxs_dx_start(&b, 50, sb, lb, FXS_DX_WORLD));
	CHECK(fxs_dx_start(&a, 50, sa, la, FXS_DX_WORLD));
	uint64_t ms = run_pair(&a, &b, seed);
	/* the same words as the comparison of both snapshots on one machine */
	char local[256], want[320];
	CHECK(compare_snapshots(sa, la, sb, lb, local, sizeof local));
	*strstr(local, " (") = 0;
	snprintf(want, sizeof want, "desync at tick 50: %s (peer 1: ", local);
	CHECKF(ms != UINT64_MAX && a.named && b.named && strcmp(a.line, b.line) == 0 && strstr(a.line, want) == a.line &&
		       strstr(a.line, ", peer 3: "),
	       "%s: %" PRIu64 " ms, '%.140s' / '%.140s' (want '%.60s...'), problems '%.40s' '%.40s'", scene, ms, a.line, b.line, want,
	       a.problem, b.problem);
	printf("    %s: %s (%" PRIu64 " ms of network time, 10%% loss)\n", scene, a.line, ms);
	fxs_dx_free(&a);
	fxs_dx_free(&b);
	free(sa);
	free(sb);
}

TEST(desync_named_across_peers_world)
{
	world_case("pendulum", 0, 1);
	world_case("school", 1, 2);
}

TEST(desync_named_across_peers_opaque)
{
	const size_t n = 10000;
	uint8_t *sa = malloc(n + 10), *sb = malloc(n + 10);
	uint64_t rng = 5;
	for (size_t i = 0; i < n + 10; ++i)
		sa[i] = sb[i] = (uint8_t)test_rng_next(&rng);
	sb[3001] ^= 0x10;
	sb[3003] ^= 0x01;
	fxs_dx a, b;
	fxs_dx_init(&a, 0, 2);
	fxs_dx_init(&b, 2, 0);
	CHECK(fxs_dx_start(&a, 7, sa, n, FXS_DX_OPAQUE) && fxs_dx_start(&b, 7, sb, n, FXS_DX_OPAQUE));
	uint64_t ms = run_pair(&a, &b, 3);
	CHECKF(ms != UINT64_MAX && strcmp(a.line, b.line) == 0 && strstr(a.line, "desync at tick 7: state bytes 3001..3003 (peer 0: "),
	       "'%.200s' / '%.200s'", a.line, b.line);
	printf("    %s\n", a.line);
	fxs_dx_free(&a);
	fxs_dx_free(&b);
	/* the same bytes, one state longer */
	sb[3001] = sa[3001];
	sb[3003] = sa[3003];
	fxs_dx_init(&a, 0, 2);
	fxs_dx_init(&b, 2, 0);
	CHECK(fxs_dx_start(&a, 7, sa, n, FXS_DX_OPAQUE) && fxs_dx_start(&b, 7, sb, n + 10, FXS_DX_OPAQUE));
	ms = run_pair(&a, &b, 4);
	CHECKF(ms != UINT64_MAX && strcmp(a.line, b.line) == 0 && strstr(a.line, "desync at tick 7: state bytes 10000..10009 (peer 0: (none), peer 2: "),
	       "'%.200s' / '%.200s'", a.line, b.line);
	fxs_dx_free(&a);
	fxs_dx_free(&b);
	free(sa);
	free(sb);
}

/* A peer that sends a table of another tick, or a table that does not
 * parse, names nothing and leaves its reason. */
TEST(desync_exchange_rejects_lies)
{
	uint8_t state[600] = { 1 };
	fxs_dx a;
	fxs_xfer_sender liar = { 0 };
	uint8_t msg[FXS_XFER_MSG_MAX], ack[FXS_XFER_MSG_MAX];
	const char *why[2] = { "another tick", "does not parse" };
	for (int k = 0; k < 2; ++k) {
		fxs_dx_init(&a, 0, 1);
		CHECK(fxs_dx_start(&a, 9, state, sizeof state, FXS_DX_OPAQUE));
		uint8_t table[8 + 1 + 4 + 24] = { 9 }; /* tick 9, opaque, 600 bytes: 3 blocks */
		table[9] = (uint8_t)(600 & 0xff);
		table[10] = 600 >> 8;
		if (k == 0)
			table[0] = 8; /* tick 8 in the blob, though it travels as tick 9's */
		size_t tlen = k == 0 ? sizeof table : sizeof table - 8;
		CHECK(fxs_xfer_send_start(&liar, FXS_DX_PURPOSE_TABLE, 9, table, tlen));
		size_t n;
		while ((n = fxs_xfer_send_poll(&liar, 0, msg, sizeof msg)) > 0)
			fxs_dx_receive(&a, msg, n, 0);
		while ((n = fxs_dx_poll(&a, 0, ack, sizeof ack)) > 0)
			;
		CHECKF(!a.named && strstr(a.problem, why[k]), "'%.200s' / '%.160s'", a.line, a.problem);
		fxs_dx_free(&a);
	}
	fxs_xfer_send_reset(&liar);
	/* a world that is not a snapshot */
	fxs_dx_init(&a, 0, 1);
	CHECK(!fxs_dx_start(&a, 9, state, sizeof state, FXS_DX_WORLD) && strstr(a.problem, "not a world snapshot"));
	fxs_dx_free(&a);
}
