/* The golden replay corpus (replays/corpus, `make corpus`): every replay
 * re-simulates with every tick's hash matching, and ends on the manifest's
 * final hash. A failure here means the kernel's bits moved: if that is
 * intended, regenerate with `make corpus` and say why in the commit. */
#include "test.h"
#include "replay_run.h"

#include <stdlib.h>
#include <string.h>

#define CORPUS "replays/corpus/"

TEST(replay_corpus_verifies)
{
	FILE *m = fopen(CORPUS "MANIFEST", "r");
	CHECKF(m, "no %sMANIFEST (run the tests from the repository root; `make corpus` makes it)", CORPUS);
	char line[512];
	int count = 0;
	uint32_t nscenes;
	const fxs_scene *scenes = fxs_scenes(&nscenes);
	uint32_t seen = 0;
	while (fgets(line, sizeof line, m)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		char scene[80], file[200];
		unsigned long long ticks, hash;
		unsigned players;
		if (sscanf(line, "%79s %199s %llu %u %llx", scene, file, &ticks, &players, &hash) != 5) {
			fclose(m);
			CHECKF(0, "bad MANIFEST line: %.200s", line);
		}
		char path[300];
		snprintf(path, sizeof path, CORPUS "%s", file);
		fxs_replay r;
		fxs_replay_status s = fxs_replay_load(&r, path);
		if (s != FXS_REPLAY_OK) {
			fclose(m);
			CHECKF(0, "%.200s: %.200s", path, r.error);
		}
		bool ok = strcmp(r.scene, scene) == 0 && r.tick_count == ticks && r.players == players && r.end_final_hash == hash;
		if (!ok) {
			fclose(m);
			fxs_replay_free(&r);
			CHECKF(0, "%.200s does not match its MANIFEST line", path);
		}
		for (uint32_t k = 0; k < nscenes; ++k)
			if (strcmp(scenes[k].name, scene) == 0)
				seen |= 1u << (k & 31);
		/* --quick: the big scenes only up to their first chunk */
		uint64_t upto = r.tick_count;
		if (test_quick && r.snapshot_len > 100000 && upto > 4)
			upto = 4;
		char err[256];
		const fxs_scene *sc;
		fxs_world *w = fxs_replay_start(&r, NULL, &sc, err, sizeof err);
		if (!w) {
			fclose(m);
			fxs_replay_free(&r);
			CHECKF(0, "%.200s: %.200s (a state-format change? regenerate with `make corpus` and say why in the commit)", path, err);
		}
		for (uint64_t i = 0; i < upto; ++i) {
			fxs_replay_step(&r, sc, w, i);
			if (fxs_world_hash(w) != fxs_replay_tick_hash(&r, i)) {
				uint64_t got = fxs_world_hash(w), want = fxs_replay_tick_hash(&r, i);
				fxs_world_destroy(w);
				fxs_replay_free(&r);
				fclose(m);
				CHECKF(0, "%.200s diverged at step %llu (expected %016llx, got %016llx): the kernel's bits moved; if intended, `make corpus` and say why in the commit",
				       path, (unsigned long long)(i + 1), (unsigned long long)want, (unsigned long long)got);
			}
		}
		fxs_world_destroy(w);
		fxs_replay_free(&r);
		++count;
	}
	fclose(m);
	CHECK(count > 0);
	/* every built-in scene has its replay */
	for (uint32_t k = 0; k < nscenes && k < 32; ++k)
		CHECKF(seen & (1u << k), "scene %s has no replay in the corpus (`make corpus`)", scenes[k].name);
}
