/* Snapshots: the synctest on every scene, restore into a fresh world, and
 * untrusted input (truncated, bit-flipped, wrong version) rejected cleanly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixstep/fixstep.h"
#include "scenes/scenes.h"
#include "test.h"
#include "world/world.h"
#include "state/pack.h"
#include "snapshot_util.h"

static void *save(const fxs_world *w, size_t *len)
{
	size_t n = fxs_world_snapshot_size(w);
	void *buf = malloc(n);
	if (!buf || fxs_world_snapshot_save(w, buf, n, len) != FXS_OK || *len != n) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Save at step k, run to k + n recording hashes, restore, run again: the
 * hashes match at every step; a restore into a fresh world matches too. */
static int synctest(const fxs_scene *sc, uint32_t k, uint32_t n)
{
	fxs_world *w = sc->create();
	for (uint32_t s = 0; s < k; ++s)
		fxs_world_step(w);
	size_t len;
	void *snap = save(w, &len);
	if (!snap)
		return 0;
	uint64_t *h = malloc(n * sizeof *h);
	for (uint32_t s = 0; s < n; ++s) {
		fxs_world_step(w);
		h[s] = fxs_world_hash(w);
	}
	int ok = fxs_world_snapshot_restore(w, snap, len) == FXS_OK;
	fxs_result err;
	fxs_world *fresh = fxs_world_create_from_snapshot(snap, len, &err);
	ok = ok && fresh && err == FXS_OK;
	for (uint32_t s = 0; ok && s < n; ++s) {
		fxs_world_step(w);
		fxs_world_step(fresh);
		ok = fxs_world_hash(w) == h[s] && fxs_world_hash(fresh) == h[s];
		if (!ok)
			printf("  %s: hash differs %u steps after the restore\n", sc->name, s + 1);
	}
	free(h);
	free(snap);
	fxs_world_destroy(w);
	fxs_world_destroy(fresh);
	return ok;
}

SLOW_TEST(synctest_every_scene)
{
	uint32_t count;
	const fxs_scene *sc = fxs_scenes(&count);
	for (uint32_t i = 0; i < count; ++i) {
		/* big scenes (by body count, so new scenes are covered) run a few steps */
		fxs_world *probe = sc[i].create();
		uint32_t bodies = fxs_world_body_count(probe);
		fxs_world_destroy(probe);
		uint32_t k = 30, n = 60;
		if (bodies > 600)
			k = 2, n = 3;
		else if (test_quick)
			k = 10, n = 10;
		CHECKF(synctest(&sc[i], k, n), "synctest %s", sc[i].name);
	}
}

TEST(snapshot_round_trip_is_byte_identical)
{
	fxs_world *w = fxs_scene_find("shapes")->create();
	for (int i = 0; i < 50; ++i)
		fxs_world_step(w);
	size_t len, len2;
	void *a = save(w, &len);
	CHECK(a);
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(a, len, &err);
	CHECK(r && err == FXS_OK);
	CHECK(fxs_world_hash(r) == fxs_world_hash(w));
	void *b = save(r, &len2);
	CHECK(b && len2 == len && memcmp(a, b, len) == 0);
	/* a buffer one byte short is refused, and nothing is written past it */
	CHECK(fxs_world_snapshot_save(w, b, len - 1, &len2) == FXS_ERR_BUFFER_TOO_SMALL);
	free(a);
	free(b);
	fxs_world_destroy(w);
	fxs_world_destroy(r);
}

TEST(bad_snapshots_get_clear_errors_and_change_nothing)
{
	fxs_world *w = fxs_scene_find("box_stack")->create();
	for (int i = 0; i < 20; ++i)
		fxs_world_step(w);
	uint64_t before = fxs_world_hash(w);
	size_t len;
	uint8_t *snap = save(w, &len);
	CHECK(snap);
	/* every truncation */
	for (size_t cut = 0; cut < len; ++cut) {
		fxs_result e = fxs_world_snapshot_restore(w, snap, cut);
		CHECKF(e == FXS_ERR_TRUNCATED || e == FXS_ERR_BAD_MAGIC, "cut %zu: %s", cut, fxs_result_string(e));
	}
	/* every single-bit flip is detected (header fields or the checksum) */
	for (size_t i = 0; i < len; ++i) {
		for (int bit = 0; bit < 8; bit += test_quick ? 7 : 1) {
			snap[i] ^= (uint8_t)(1u << bit);
			fxs_result e = fxs_world_snapshot_restore(w, snap, len);
			snap[i] ^= (uint8_t)(1u << bit);
			CHECKF(e != FXS_OK, "flip of bit %d in byte %zu accepted", bit, i);
		}
	}
	CHECK(fxs_world_hash(w) == before);
	CHECK(fxs_world_snapshot_restore(w, NULL, 0) == FXS_ERR_TRUNCATED);
	snap[4] = 99; /* format version */
	CHECK(fxs_world_snapshot_restore(w, snap, len) == FXS_ERR_VERSION);
	CHECK(fxs_world_hash(w) == before);
	free(snap);
	fxs_world_destroy(w);
}

/* Regression: a sleeping body's broadphase box was kept from the step it fell
 * asleep (fattened and swept by that step's velocity); a restored world
 * rebuilt it unswept, so an awake body passing close by paired with the
 * sleeper in one world and not in the other, woke it in one only, and the
 * two parted. Now a sleeping body's box is made from the state every step. */
TEST(snapshot_restore_with_a_sleeper_and_a_passer_by)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = fxg_v3(FXG_I(20), FXG_ONE, FXG_I(20));
	g.position = fxg_v3(0, -FXG_ONE, 0);
	fxs_body_create(w, &g);
	fxs_body_def b = fxs_default_body_def();
	b.shape.type = FXS_SHAPE_BOX;
	b.shape.half_extents = fxg_v3(FXG_HALF, FXG_HALF, FXG_HALF);
	b.position = fxg_v3(0, FXG_HALF + FXG_ONE / 8, 0); /* drops, bounces a little, sleeps */
	fxs_body_id box = fxs_body_create(w, &b);
	fxs_body_def k = fxs_default_body_def();
	k.type = FXS_BODY_KINEMATIC;
	k.shape.radius = FXG_ONE / 4;
	k.position = fxg_v3(-FXG_I(3), FXG_ONE / 4, 0);
	fxs_body_id ball = fxs_body_create(w, &k);
	for (int i = 0; i < 90; ++i)
		fxs_world_step(w);
	CHECK(!fxs_world_get_body(w, box)->awake); /* the box sleeps */
	/* the kinematic ball rolls past the box, 2 mm from its side */
	fxs_body_set_transform(w, ball, fxg_v3(-FXG_I(3), FXG_ONE / 4, FXG_HALF + FXG_ONE / 4 + 131), (fxg_quat){ 0, 0, 0, FXG_ONE });
	fxs_body_set_linear_velocity(w, ball, fxg_v3(FXG_ONE, 0, 0));
	size_t n;
	void *buf = save(w, &n);
	CHECK(buf);
	fxs_result err;
	fxs_world *r = fxs_world_create_from_snapshot(buf, n, &err);
	CHECK(r);
	for (int i = 0; i < 240; ++i) {
		fxs_world_step(w);
		fxs_world_step(r);
		CHECKF(fxs_world_hash(w) == fxs_world_hash(r), "step %d: the restored world parted", i);
	}
	CHECK(fxs_body_is_valid(w, box));
	free(buf);
	fxs_world_destroy(w);
	fxs_world_destroy(r);
}

/* The versions a program reads at run time are the library's: the headers'
 * macros, and the format version a saved snapshot carries in bytes 4..7. */
TEST(versions_at_run_time_match_the_headers_and_the_snapshot)
{
	char want[32];
	snprintf(want, sizeof want, "%d.%d.%d", FXS_VERSION_MAJOR, FXS_VERSION_MINOR, FXS_VERSION_PATCH);
	CHECK(strcmp(fxs_version_string(), want) == 0);
	CHECK(fxs_version() == ((uint32_t)FXS_VERSION_MAJOR << 16 | (uint32_t)FXS_VERSION_MINOR << 8 | (uint32_t)FXS_VERSION_PATCH));
	fxs_world *w = fxs_scene_find("shapes")->create();
	size_t len;
	uint8_t *a = save(w, &len);
	CHECK(a && len >= 12);
	uint32_t v = (uint32_t)a[4] | (uint32_t)a[5] << 8 | (uint32_t)a[6] << 16 | (uint32_t)a[7] << 24;
	uint32_t k = (uint32_t)a[8] | (uint32_t)a[9] << 8 | (uint32_t)a[10] << 16 | (uint32_t)a[11] << 24;
	CHECK(v == fxs_snapshot_version());
	CHECK(k == fxs_version());
	CHECK(fxs_snapshot_version_oldest() >= 1 && fxs_snapshot_version_oldest() <= fxs_snapshot_version());
	free(a);
	fxs_world_destroy(w);
}

/* Packing (state/pack.h): a snapshot holds the canonical state packed; the
 * state and its hash are the same bytes as ever. Unpacked, a snapshot's
 * payload is exactly fxs_world_serialize_state; fxs_snapshot_state_hash is
 * the world's hash; a version 9 snapshot (the state unpacked) of the same
 * world restores to the same hash. */
TEST(packed_snapshots_hold_the_canonical_state)
{
	const char *scenes[] = { "shapes", "pyramid_20", "all_shapes", "arena", "pendulum" };
	for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; ++k) {
		fxs_world *w = fxs_scene_find(scenes[k])->create();
		for (int i = 0; i < 40; ++i)
			fxs_world_step(w);
		size_t len, raw_len;
		uint8_t *snap = save(w, &len);
		uint8_t *raw = raw_snapshot(w, &raw_len);
		CHECK(snap && raw && snap[4] == 10);
		size_t m = fxs_world_serialize_state(w, NULL, 0);
		uint64_t n = 0, um = 0;
		for (int i = 7; i >= 0; --i)
			n = n << 8 | snap[16 + i], um = um << 8 | snap[24 + i];
		CHECK(um == m && n + 40 == len);
		uint8_t *state = malloc(m), *unpacked = malloc(m);
		CHECK(state && unpacked);
		fxs_world_serialize_state(w, state, m);
		CHECK(fxs_unpack(snap + 32, (size_t)n, unpacked, m) && memcmp(state, unpacked, m) == 0);
		/* one byte more or less is not this packing */
		CHECK(!fxs_unpack(snap + 32, (size_t)n, unpacked, m - 1));
		uint64_t h = 0;
		CHECK(fxs_snapshot_state_hash(snap, len, &h) == FXS_OK && h == fxs_world_hash(w));
		CHECK(fxs_snapshot_state_hash(raw, raw_len, &h) == FXS_OK && h == fxs_world_hash(w));
		fxs_result e;
		fxs_world *r = fxs_world_create_from_snapshot(raw, raw_len, &e);
		CHECKF(r && e == FXS_OK && fxs_world_hash(r) == fxs_world_hash(w), "%s: %s", scenes[k], fxs_result_string(e));
		fxs_world_step(r), fxs_world_step(w);
		CHECK(r && fxs_world_hash(r) == fxs_world_hash(w));
		printf("  %s: state %zu bytes, snapshot %zu (%.0f%%)\n", scenes[k], m, len, 100.0 * (double)len / (double)m);
		fxs_world_destroy(r);
		free(state);
		free(unpacked);
		free(snap);
		free(raw);
		fxs_world_destroy(w);
	}
}

/* Box scenes keep a manifold a contact: packed, a snapshot of a standing
 * pyramid takes under 400 bytes a body (its state takes over 700). */
TEST(packed_snapshot_of_a_pyramid_under_400_bytes_a_body)
{
	fxs_world *w = fxs_scene_find("large_pyramid_b20")->create();
	for (int i = 0; i < 100; ++i)
		fxs_world_step(w);
	size_t len = fxs_world_snapshot_size(w), m = fxs_world_serialize_state(w, NULL, 0);
	uint32_t bodies = fxs_world_body_count(w);
	printf("  large_pyramid_b20 after 100 steps: %.1f bytes a body (state %.1f)\n", (double)len / bodies,
	       (double)m / bodies);
	CHECK(len <= 400u * bodies && m > 700u * bodies);
	fxs_world_destroy(w);
}

/* Hostile packed payloads (their checksum made right, so the unpacker is
 * what answers, or the state's reader behind it): every byte of the payload
 * changed, the state length changed, tokens that overrun: refused or, where the change
 * happens to make another valid state, restored; never a crash, and a
 * refusal changes nothing. */
TEST(hostile_packed_payloads_are_refused)
{
	fxs_world *w = fxs_scene_find("shapes")->create();
	for (int i = 0; i < 30; ++i)
		fxs_world_step(w);
	uint64_t before = fxs_world_hash(w);
	size_t len;
	uint8_t *snap = save(w, &len);
	CHECK(snap);
	uint8_t *bad = malloc(len + 64);
	CHECK(bad);
	uint32_t refused = 0;
	for (size_t i = 32; i < len - 8; i += test_quick ? 5 : 1) {
		for (int v = 0; v < 3; ++v) {
			memcpy(bad, snap, len);
			bad[i] = v == 0 ? 0xBF : v == 1 ? 0x7F : (uint8_t)(bad[i] ^ 0x81);
			snapshot_reseal(bad, len);
			fxs_result e = fxs_world_snapshot_restore(w, bad, len);
			if (e != FXS_OK) {
				/* the unpacker's refusal, or the state reader's own */
				CHECKF(e == FXS_ERR_CORRUPT || e == FXS_ERR_VERSION || e == FXS_ERR_TRUNCATED, "byte %zu: %s", i,
				       fxs_result_string(e));
				CHECK(fxs_world_hash(w) == before);
				++refused;
			} else {
				CHECK(fxs_world_snapshot_restore(w, snap, len) == FXS_OK && fxs_world_hash(w) == before);
			}
		}
	}
	CHECK(refused > 0);
	/* the state length one more, one less, huge */
	const uint64_t lens[] = { 1, (uint64_t)-1, 1ull << 40 };
	for (size_t k = 0; k < 3; ++k) {
		memcpy(bad, snap, len);
		uint64_t m = 0;
		for (int i = 7; i >= 0; --i)
			m = m << 8 | bad[24 + i];
		m = k == 0 ? m + 1 : k == 1 ? m - 1 : lens[k];
		for (int i = 0; i < 8; ++i)
			bad[24 + i] = (uint8_t)(m >> (8 * i));
		snapshot_reseal(bad, len);
		CHECK(fxs_world_snapshot_restore(w, bad, len) == FXS_ERR_CORRUPT && fxs_world_hash(w) == before);
	}
	/* raw token streams: a record inside a record, a record too long, a
	 * literal past the end, a run past the record's end */
	const uint8_t streams[][8] = {
		{ 0xBF, 2, 0, 0xBF, 1, 0, 0x80, 0x80 },
		{ 0xBF, 0xFF, 0x7F, 0x80, 0x80, 0x80, 0x80, 0x80 },
		{ 0x07, 1, 2, 3, 0, 0, 0, 0 },
		{ 0xBF, 2, 0, 0x82, 0x00, 0x00, 0x00, 0x00 },
	};
	uint8_t out[64];
	for (size_t k = 0; k < 4; ++k)
		CHECKF(!fxs_unpack(streams[k], 8, out, sizeof out) && !fxs_unpack(streams[k], 8, out, 3), "stream %zu", k);
	free(bad);
	free(snap);
	fxs_world_destroy(w);
}
