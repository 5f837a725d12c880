/* An example game for the verification service (docs/verifyd.md): four
 * marbles on a floor, each pushed by its player's 4-byte input (push x,
 * push z: int8; buttons: bit 0 jumps; a spare byte). Built as a shared
 * library (make: build/libfixstep_example_game.so) that `fixstep-verifyd
 * worker --game` loads; the tests record its replays with the same code. */
#include "fixstep/authoring.h"
#include "fixstep/verifyd_game.h"

enum { PLAYERS = 4, INPUT = 4 };

static fxs_world *create_start(void)
{
	fxs_world_def wd = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&wd);
	if (!w)
		return NULL;
	fxs_body_def floor = fxs_default_body_def();
	floor.type = FXS_BODY_STATIC;
	floor.shape.type = FXS_SHAPE_BOX;
	floor.shape.half_extents = fxg_v3(FXG_I(20), FXG_I(1), FXG_I(20));
	floor.position = fxg_v3(0, FXG_I(-1), 0);
	fxs_body_create(w, &floor);
	for (int p = 0; p < PLAYERS; ++p) {
		fxs_body_def m = fxs_default_body_def();
		m.shape.type = FXS_SHAPE_SPHERE;
		m.shape.radius = FXG_RATIO(1, 2);
		m.position = fxg_v3(FXG_I(3 * p - 5), FXG_I(1), 0);
		fxs_body_create(w, &m);
	}
	return w;
}

/* Every byte pattern is a valid input: the pushes are int8 (a push of
 * 127 is 20 N s on a 523 kg marble), the rest bits; a jump is 3 m/s up
 * from (nearly) still. The units are written with fixstep/authoring.h: a
 * raw `(int8_t)i[0] * 128` would be 0.25 N s, which moves nothing. */
static fxs_result apply(fxs_world *w, uint64_t tick, const uint8_t *in, uint32_t players, void *ctx)
{
	(void)tick, (void)ctx;
	const fix16_t most = fxs_q16_from_int(20);
	for (uint32_t p = 0; p < players && p < PLAYERS; ++p) {
		const uint8_t *i = in + (size_t)p * INPUT;
		fxs_body_id b = fxs_world_body_at(w, p + 1);
		fxg_vec3 push = fxg_v3(fxs_q16_from_axis((int8_t)i[0], 127, most), 0,
				       fxs_q16_from_axis((int8_t)i[1], 127, most));
		fxs_result r = fxs_body_apply_linear_impulse(w, b, push, fxs_body_get_position(w, b));
		fxg_vec3 v = fxs_body_get_linear_velocity(w, b);
		if (r == FXS_OK && (i[2] & 1) && v.y < fxs_q16_from_milli(250) && v.y > fxs_q16_from_milli(-250))
			r = fxs_body_set_linear_velocity(w, b, fxg_v3(v.x, fxs_q16_from_int(3), v.z));
		if (r != FXS_OK)
			return r; /* not this game's world */
	}
	return FXS_OK;
}

static const fxs_verifyd_game game = {
	.abi = FXS_VERIFYD_GAME_ABI,
	.name = "marbles4",
	.input_size = INPUT,
	.players = PLAYERS,
	.apply = apply,
	.ctx = NULL,
	.create_start = create_start,
};

__attribute__((visibility("default"))) const fxs_verifyd_game *fxs_verifyd_game_v1(void);
const fxs_verifyd_game *fxs_verifyd_game_v1(void) { return &game; }
