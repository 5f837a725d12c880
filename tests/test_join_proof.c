/* Joins that prove themselves: a host holding the session key offers a late
 * joiner a blob it changed (a cheating host, through the join's private
 * test hook): its confirmed tick pushed to the session's end, a state
 * labelled with an earlier tick than its own step, a valid state of another
 * world, one player's inputs forged. The joiner refuses each with its named
 * reason, asks again, and joins on the honest blob that follows; all three
 * peers end on one hash. Three peers on the simulated network. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/scene_session.h"
#include "fixstep/session.h"
#include "session/join.h"
#include "session/le.h"
#include "test.h"
#include "session_util.h"

#define JP 3u
#define JP_TICKS 360u

static const uint8_t proof_key[FXS_SESSION_KEY_BYTES] = { 8, 6, 7, 5, 3, 0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9,
							  9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6 };
static uint64_t proof_seed = 5;

typedef enum cheat { HONEST = 0, C_IS_TICKS, STEP_RELABELLED, OTHER_WORLD, FORGED_INPUTS } cheat;

typedef struct tamper {
	cheat how;
	int used;          /* blobs changed (only the first is) */
	size_t tick_in;    /* bytes of every player's inputs of a tick */
	uint64_t step0;    /* the scene's step at tick 0 */
} tamper;

/* the blob's fields (join.c): magic, epoch, T, C, M, state length, state, inputs T+1..C */
static void cheat_blob(void *ctx, uint8_t **blob, size_t *len)
{
	tamper *tp = ctx;
	if (tp->how == HONEST || tp->used++)
		return;
	uint8_t *b = *blob;
	uint64_t T = get64(b + 8), C = get64(b + 16);
	size_t sl = get32(b + 32), in_len = (size_t)(C - T) * tp->tick_in;
	uint8_t *nb = NULL;
	size_t nl = 0;
	switch (tp->how) {
	case C_IS_TICKS: /* everyone's inputs to the end, on the host's word */
		nl = 36 + sl + (size_t)(JP_TICKS - T) * tp->tick_in;
		nb = calloc(1, nl);
		memcpy(nb, b, 36 + sl + in_len);
		put64(nb + 16, JP_TICKS);
		break;
	case STEP_RELABELLED: /* the state of tick T labelled tick 0 */
		nl = 36 + sl + (size_t)C * tp->tick_in;
		nb = calloc(1, nl);
		memcpy(nb, b, 36 + sl);
		put64(nb + 8, 0);
		memcpy(nb + 36 + sl + (size_t)T * tp->tick_in, b + 36 + sl, in_len);
		break;
	case OTHER_WORLD: { /* a valid state of another world, at the right step */
		cli_scene_game g;
		if (!cli_scene_game_open(&g, fxs_scene_find("pendulum"), 0))
			return;
		while (fxs_world_get_step(g.gw.world) < tp->step0 + T)
			fxs_world_step(g.gw.world);
		size_t n = fxs_world_snapshot_size(g.gw.world), got = 0;
		nb = malloc(36 + n + in_len);
		memcpy(nb, b, 36);
		fxs_world_snapshot_save(g.gw.world, nb + 36, n, &got);
		put32(nb + 32, (uint32_t)got);
		memcpy(nb + 36 + got, b + 36 + sl, in_len);
		nl = 36 + got + in_len;
		cli_scene_game_close(&g);
		break;
	}
	case FORGED_INPUTS: /* player 1's inputs, every tick, one byte changed */
		for (uint64_t t = 0; t < C - T; ++t)
			b[36 + sl + t * tp->tick_in + tp->tick_in / JP] ^= 0x55;
		return;
	default:
		return;
	}
	free(*blob);
	*blob = nb;
	*len = nl;
}

static fxs_session *proof_open(cli_scene_game *g, uint32_t p, bool join)
{
	if (!cli_scene_game_open(g, fxs_scene_find("school"), 0))
		return NULL;
	fxs_session_config c = fxs_session_default_config();
	c.game = g->cb;
	c.input = cli_scene_script_input;
	c.input_ctx = &proof_seed;
	c.peers = JP;
	c.local = p;
	c.session_id = 91;
	c.mode = FXS_SESSION_ROLLBACK;
	c.input_delay = 2;
	c.ticks = JP_TICKS;
	c.absent_ms = 500;
	c.join = join;
	memcpy(c.key, proof_key, sizeof c.key);
	char err[160];
	fxs_session *s = fxs_session_create(&c, err, sizeof err);
	if (!s)
		printf("      %s\n", err);
	return s;
}

/* Peers 0 and 1 play; peer 2 joins at tick 100 with peer 0 (its host)
 * cheating as `how` once. The reason the joiner refused with (or "") into why. */
static bool proof_case(cheat how, const char *want, char *why, size_t whylen)
{
	fxs_simnet *net = fxs_simnet_create(JP, NULL);
	cli_scene_game g[JP];
	fxs_session *s[JP] = { 0 };
	tamper tp = { how, 0, 0, 0 };
	for (uint32_t p = 0; p < 2; ++p)
		if (!(s[p] = proof_open(&g[p], p, false)))
			return false;
	tp.tick_in = (size_t)fxs_session_players(s[0]) * fxs_session_input_size(s[0]);
	tp.step0 = fxs_world_get_step(g[0].gw.world);
	fxs_join_set_tamper(s[0], cheat_blob, &tp);
	uint8_t buf[FXS_SESSION_PACKET_MAX + 8];
	bool done = false;
	uint32_t refused_events = 0;
	char event_line[200] = "";
	uint64_t f;
	for (f = 0; f < 4000 && !done; ++f) {
		if (!s[2] && fxs_session_tick(s[0]) >= 100 && !(s[2] = proof_open(&g[2], 2, true)))
			break;
		done = true;
		for (uint32_t p = 0; p < JP; ++p) {
			fxs_transport t = fxs_simnet_endpoint(net, p);
			size_t n;
			int from;
			while ((n = t.recv(t.ctx, buf, sizeof buf, &from)) > 0)
				if (s[p])
					fxs_session_receive(s[p], buf, n, from);
			if (!s[p]) {
				done = false;
				continue;
			}
			fxs_session_set_time(s[p], f * 16);
			uint64_t pace = p ? fxs_session_tick(s[0]) : f;
			fxs_session_advance(s[p], fxs_session_tick(s[p]) < pace ? 2 : 1);
			session_send_all(s[p], t, JP);
			fxs_session_event e;
			while (fxs_session_event_poll(s[p], &e))
				if (e.type == FXS_SESSION_EVENT_JOIN_REFUSED && p == 2)
					++refused_events, snprintf(event_line, sizeof event_line, "%s", e.line);
			done = done && fxs_session_complete(s[p]);
		}
		fxs_simnet_advance(net, 16);
	}
	fxs_session_join_status js;
	memset(&js, 0, sizeof js);
	if (s[2])
		fxs_session_join_get(s[2], &js);
	snprintf(why, whylen, "%s", js.refused);
	bool same = done;
	for (uint32_t p = 0; p < JP; ++p)
		same = same && fxs_session_tick(s[p]) == JP_TICKS &&
			fxs_session_hash(s[p], JP_TICKS) == fxs_session_hash(s[0], JP_TICKS) &&
			fxs_session_desync_get(s[p])->tick == 0;
	printf("    %-15s %s; then joined with the state of tick %" PRIu64 " (vouched for by %u peer), all 3 end on "
	       "%016" PRIx64 ": %s\n",
	       how == HONEST ? "honest host:" : how == C_IS_TICKS ? "C = ticks:" : how == STEP_RELABELLED ? "relabelled:"
	       : how == OTHER_WORLD ? "another world:" : "forged inputs:",
	       js.refused[0] ? js.refused : "nothing refused", js.state_tick, js.vouchers,
	       fxs_session_hash(s[0], JP_TICKS), same ? "yes" : "NO");
	bool ok = same && js.loaded && js.vouchers == 1 && js.refusals == (how == HONEST ? 0u : 1u) &&
		refused_events == js.refusals && strcmp(event_line, js.refused) == 0 &&
		(how == HONEST ? !js.refused[0] : strstr(js.refused, want) != NULL);
	for (uint32_t p = 0; p < JP; ++p) {
		fxs_session_destroy(s[p]);
		if (s[p])
			cli_scene_game_close(&g[p]);
	}
	fxs_simnet_destroy(net);
	return ok;
}

TEST(join_honest_host_vouched)
{
	char why[200];
	CHECK(proof_case(HONEST, "", why, sizeof why));
}

TEST(join_refuses_inputs_to_the_end)
{
	char why[200];
	CHECK(proof_case(C_IS_TICKS, "join refused (beyond_confirmed)", why, sizeof why));
}

TEST(join_refuses_relabelled_state)
{
	char why[200];
	CHECK(proof_case(STEP_RELABELLED, "join refused (snapshot_step)", why, sizeof why));
}

TEST(join_refuses_another_world)
{
	char why[200];
	CHECK(proof_case(OTHER_WORLD, "join refused (state_hash)", why, sizeof why));
}

TEST(join_refuses_forged_inputs)
{
	char why[200];
	CHECK(proof_case(FORGED_INPUTS, "join refused (inputs)", why, sizeof why));
}
