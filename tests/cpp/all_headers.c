/* Every installed header of fixstep from strict C11 (-pedantic -Werror:
 * `make cxx-check`), beside its C++ twin all_headers.cpp. */
#include "fixstep/authoring.h"
#include "fixstep/character.h"
#include "fixstep/debug_draw.h"
#include "fixstep/events.h"
#include "fixstep/fixstep.h"
#include "fixstep/input.h"
#include "fixstep/joint.h"
#include "fixstep/query.h"
#include "fixstep/replay.h"
#include "fixstep/session.h"
#include "fixstep/sphere_walls.h"
#include "fixstep/types.h"
#include "fixstep/verifyd_game.h"
#include "fxg.h"

int main(void)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_replay_verify_result vr;
	int ok = w != NULL && fxs_world_step(w) == FXS_OK && fxs_world_step(NULL) == FXS_ERR_INVALID_ID &&
		fxs_replay_verify_memory("FXSREPLY", 8, NULL, NULL, NULL, &vr) == FXS_REPLAY_TRUNCATED;
	/* a session over the world: refused without its key, said why */
	fxs_session_world gw = { w, NULL, NULL, FXS_OK, 0 };
	fxs_session_config c = fxs_session_default_config();
	c.game = fxs_session_world_callbacks(&gw);
	char err[128] = "";
	ok = ok && fxs_session_create(&c, err, sizeof err) == NULL && err[0] != 0;
	ok = ok && fxs_session_tick(NULL) == 0 && fxs_drop_name(FXS_DROP_MAC)[0] == 'b';
	fxs_world_destroy(w);
	return ok ? 0 : 1;
}
