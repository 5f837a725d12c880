/* Writes the fuzzers' seed corpora: snapshots of small scenes at a few
 * steps (with contacts), and small replays with and without per-tick state,
 * each starting with the harness's mode byte (1: recompute checksums); and,
 * given a third directory, seeded attack scripts for the session target. */
#include "replay_run.h"
#include "session_insider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* p (n bytes) as dir/name, after the mode byte unless it is -1 */
static void write_file(const char *dir, const char *name, int mode, const uint8_t *p, size_t n)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || (mode >= 0 && fputc(mode, f) == EOF) || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
		fprintf(stderr, "make_seeds: cannot write %s\n", path);
		exit(1);
	}
}

static void write_seed(const char *dir, const char *name, const uint8_t *p, size_t n) { write_file(dir, name, 1, p, n); }

/* A recorded replay at tmp as two seeds, whole and cut (a killed recorder). */
static void replay_seeds(const char *dir, const char *tmp, const char *stem)
{
	FILE *f = fopen(tmp, "rb");
	uint8_t *buf = malloc(1 << 20);
	size_t n = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	remove(tmp);
	char name[96];
	snprintf(name, sizeof name, "%s.fxr", stem);
	write_seed(dir, name, buf, n);
	snprintf(name, sizeof name, "%s_cut.fxr", stem);
	write_seed(dir, name, buf, n * 2 / 3);
	free(buf);
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: make_seeds SNAPSHOT-DIR REPLAY-DIR [SESSION-DIR]\n");
		return 2;
	}
	for (uint64_t rng = 1; argc == 4 && rng <= 8; ++rng) {
		static uint8_t script[8192];
		uint64_t r = rng;
		char name[64];
		snprintf(name, sizeof name, "attack_%u.bin", (unsigned)rng);
		write_file(argv[3], name, -1, script, insider_script(&r, script, sizeof script));
	}
	/* all_shapes: hulls, compounds (contacts naming children) and a mesh;
	 * snapshots only (its replays would be large seeds) */
	static const char *scenes[] = { "drop", "box_stack", "shapes", "all_shapes" };
	static const uint32_t steps[] = { 0, 40, 120 };
	for (int s = 0; s < 4; ++s) {
		const fxs_scene *sc = fxs_scene_find(scenes[s]);
		fxs_world *w = sc->create();
		uint32_t done = 0;
		for (int k = 0; k < 3; ++k) {
			while (done < steps[k]) {
				fxs_world_step(w);
				++done;
			}
			size_t n = fxs_world_snapshot_size(w), written;
			uint8_t *buf = malloc(n);
			fxs_world_snapshot_save(w, buf, n, &written);
			char name[64];
			snprintf(name, sizeof name, "%s_%u.snap", scenes[s], steps[k]);
			write_seed(argv[1], name, buf, written);
			free(buf);
		}
		fxs_world_destroy(w);
	}
	for (int s = 0; s < 3; ++s) {
		for (int detail = 0; detail < 2; ++detail) {
			if (s == 2 && detail)
				continue; /* keep seeds small */
			fxs_record_options o;
			memset(&o, 0, sizeof o);
			o.scene = fxs_scene_find(scenes[s]);
			o.steps = s == 0 ? 40 : 20;
			o.chunk_ticks = 8;
			o.flags = detail ? FXS_REPLAY_FLAG_DETAIL : 0;
			o.seed = 3;
			char path[512], err[256];
			snprintf(path, sizeof path, "%s/%s%s.fxr.tmp", argv[2], scenes[s], detail ? "_detail" : "");
			if (fxs_replay_record(path, &o, NULL, err, sizeof err) != FXS_REPLAY_OK) {
				fprintf(stderr, "make_seeds: %s\n", err);
				return 1;
			}
			char stem[64];
			snprintf(stem, sizeof stem, "%s%s", scenes[s], detail ? "_detail" : "");
			replay_seeds(argv[2], path, stem);
		}
	}
	/* API calls (CALLS mode), with and without per-tick state, and cut */
	for (int detail = 0; detail < 2; ++detail) {
		char path[512], err[256];
		snprintf(path, sizeof path, "%s/calls.fxr.tmp", argv[2]);
		if (fxs_calls_demo_record(path, 70, 8, detail ? FXS_REPLAY_FLAG_DETAIL : 0, NULL, err, sizeof err) !=
		    FXS_REPLAY_OK) {
			fprintf(stderr, "make_seeds: %s\n", err);
			return 1;
		}
		replay_seeds(argv[2], path, detail ? "calls_detail" : "calls");
	}
	return 0;
}
