/* Broadphase: the seed 000 tree and the seed 001 octree against brute force
 * on thousands of seeded scenes, the seed's worked example, membership
 * rules, queries and the snapshot round trip. */
#include <stdlib.h>
#include <string.h>

#include "broadphase/broadphase.h"
#include "broadphase/broadphase_tree.h"
#include "broadphase/octree.h"
#include "fixstep/fixstep.h"
#include "world/world.h"
#include "test.h"

#define F(x) ((fix16_t)((x)*65536))

static fxs_aabb box3(int32_t lx, int32_t ly, int32_t lz, int32_t hx, int32_t hy, int32_t hz)
{
	fxs_aabb b = { { lx, ly, lz }, { hx, hy, hz } };
	return b;
}

/* ------------------------------------------------------------ brute force */

typedef struct pair_list {
	fxs_pair *p;
	uint32_t n, cap;
} pair_list;

static void pl_push(pair_list *l, uint32_t a, uint32_t b)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->p = realloc(l->p, l->cap * sizeof *l->p);
		if (!l->p)
			abort();
	}
	l->p[l->n++] = (fxs_pair){ a, b };
}

/* The contract, literally: live pairs, at least one moving, closed overlap,
 * a < b, sorted by (a, b). */
static void brute_pairs(const fxs_aabb *aabbs, const uint8_t *flags, uint32_t count, pair_list *out)
{
	out->n = 0;
	for (uint32_t a = 0; a < count; ++a) {
		if (!(flags[a] & FXS_PROXY_LIVE))
			continue;
		for (uint32_t b = a + 1; b < count; ++b) {
			if (!(flags[b] & FXS_PROXY_LIVE) || !((flags[a] | flags[b]) & FXS_PROXY_MOVING))
				continue;
			if (fxs_aabb_overlap(&aabbs[a], &aabbs[b]))
				pl_push(out, a, b);
		}
	}
}

static bool same_pairs(const fxs_pair *p, uint32_t n, const pair_list *ref, char *why, size_t whylen)
{
	uint32_t k = 0;
	for (; k < n && k < ref->n; ++k)
		if (p[k].a != ref->p[k].a || p[k].b != ref->p[k].b) {
			snprintf(why, whylen, "pair %u: got (%u,%u) want (%u,%u)", k, p[k].a, p[k].b, ref->p[k].a,
				 ref->p[k].b);
			return false;
		}
	if (n != ref->n) {
		snprintf(why, whylen, "got %u pairs, want %u (first extra at %u)", n, ref->n, k);
		return false;
	}
	return true;
}

/* ------------------------------------------------------------ random scenes */

static int32_t rnd_coord(uint64_t *s)
{
	uint64_t r = test_rng_next(s);
	switch (r % 16) {
	case 0:
		return INT32_MIN;
	case 1:
		return INT32_MAX;
	case 2:
		return INT32_MIN + (int32_t)(r >> 40 & 0xFFFF);
	case 3:
		return INT32_MAX - (int32_t)(r >> 40 & 0xFFFF);
	case 4:
		return (int32_t)(uint32_t)(r >> 32); /* anywhere */
	default:
		return (int32_t)((r >> 32) % F(8)) - F(4); /* a crowded 8 m cube */
	}
}

/* One box of some kind: ordinary, degenerate (a point or a plane), huge,
 * at the range edges, touching or identical to an earlier one. */
static fxs_aabb rnd_box(uint64_t *s, const fxs_aabb *prev, uint32_t nprev, int scale)
{
	uint64_t r = test_rng_next(s);
	unsigned kind = (unsigned)(r % 20);
	if (nprev && kind == 0)
		return prev[(r >> 8) % nprev]; /* identical */
	if (nprev && kind == 1) {              /* touching on one face */
		fxs_aabb b = prev[(r >> 8) % nprev];
		int axis = (int)((r >> 20) % 3);
		int32_t *lo = axis == 0 ? &b.lo.x : axis == 1 ? &b.lo.y
							      : &b.lo.z;
		int32_t *hi = axis == 0 ? &b.hi.x : axis == 1 ? &b.hi.y
							      : &b.hi.z;
		int64_t w = (int64_t)*hi - *lo;
		if (w < 0)
			w = 0;
		int64_t nlo = *hi, nhi = (int64_t)*hi + w;
		*lo = (int32_t)nlo;
		*hi = (int32_t)(nhi > INT32_MAX ? INT32_MAX : nhi);
		return b;
	}
	if (kind == 2) { /* a point */
		int32_t x = rnd_coord(s), y = rnd_coord(s), z = rnd_coord(s);
		return box3(x, y, z, x, y, z);
	}
	if (kind == 3) { /* the whole range or a huge random box */
		if (r & 0x100)
			return box3(INT32_MIN, INT32_MIN, INT32_MIN, INT32_MAX, INT32_MAX, INT32_MAX);
	}
	if (kind == 4) { /* inverted on one axis: still follows the closed test */
		int32_t a = rnd_coord(s), b = rnd_coord(s);
		fxs_aabb x = rnd_box(s, prev, 0, scale);
		x.lo.y = a > b ? a : b;
		x.hi.y = a > b ? b : a;
		return x;
	}
	int32_t c[3], h[3];
	for (int a = 0; a < 3; ++a) {
		c[a] = rnd_coord(s);
		uint64_t q = test_rng_next(s);
		h[a] = (q & 7) == 0 ? 0 : (int32_t)(q >> 40) % (scale > 0 ? scale : 1);
	}
	int32_t lo[3], hi[3];
	for (int a = 0; a < 3; ++a) {
		int64_t l = (int64_t)c[a] - h[a], u = (int64_t)c[a] + h[a];
		lo[a] = (int32_t)(l < INT32_MIN ? INT32_MIN : l);
		hi[a] = (int32_t)(u > INT32_MAX ? INT32_MAX : u);
	}
	return box3(lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]);
}

static uint8_t rnd_flags(uint64_t *s)
{
	uint64_t r = test_rng_next(s) % 16;
	if (r < 7)
		return FXS_PROXY_LIVE | FXS_PROXY_MOVING;
	if (r < 11)
		return FXS_PROXY_LIVE | FXS_PROXY_STATIC;
	if (r < 13)
		return FXS_PROXY_LIVE; /* kinematic or asleep */
	if (r < 14)
		return FXS_PROXY_LIVE | FXS_PROXY_STATIC | FXS_PROXY_MOVING;
	return 0;
}

typedef struct scene {
	fxs_aabb *aabbs;
	uint8_t *flags;
	uint32_t count, cap;
} scene;

static void scene_resize(scene *sc, uint32_t n)
{
	if (n > sc->cap) {
		sc->cap = n;
		sc->aabbs = realloc(sc->aabbs, n * sizeof *sc->aabbs);
		sc->flags = realloc(sc->flags, n);
		if (!sc->aabbs || !sc->flags)
			abort();
	}
	sc->count = n;
}

static void scene_free(scene *sc)
{
	free(sc->aabbs);
	free(sc->flags);
}

static void scene_random(scene *sc, uint64_t *s, uint32_t n)
{
	int scale = (int)(test_rng_next(s) % 4 == 0 ? F(3) : F(1) / 2 + 1);
	scene_resize(sc, n);
	for (uint32_t i = 0; i < n; ++i) {
		sc->aabbs[i] = rnd_box(s, sc->aabbs, i, scale);
		sc->flags[i] = rnd_flags(s);
	}
}

/* Move some boxes, change some flags, grow or shrink the slot count. */
static void scene_mutate(scene *sc, uint64_t *s)
{
	uint64_t r = test_rng_next(s);
	uint32_t n = sc->count;
	if ((r & 7) == 0 && n > 1)
		n -= (uint32_t)((r >> 8) % (n / 2 + 1));
	else if ((r & 7) == 1)
		n += (uint32_t)((r >> 8) % 40);
	uint32_t old = sc->count;
	scene_resize(sc, n);
	for (uint32_t i = old; i < n; ++i) {
		sc->aabbs[i] = rnd_box(s, sc->aabbs, i, F(1));
		sc->flags[i] = rnd_flags(s);
	}
	for (uint32_t i = 0; i < n; ++i) {
		uint64_t q = test_rng_next(s);
		if ((q & 3) == 0) {
			/* a small move of a moving body */
			int32_t d = (int32_t)((q >> 8) % 4096) - 2048;
			fxs_aabb *b = &sc->aabbs[i];
			if (b->lo.x > INT32_MIN + 4096 && b->hi.x < INT32_MAX - 4096) {
				b->lo.x += d;
				b->hi.x += d;
			}
		} else if ((q & 31) == 1) {
			sc->aabbs[i] = rnd_box(s, sc->aabbs, n, F(1));
		} else if ((q & 31) == 2) {
			sc->flags[i] = rnd_flags(s);
		}
	}
}

static bool check_step(fxs_broadphase *bp, const scene *sc, pair_list *ref, char *why, size_t whylen)
{
	if (fxs_bp_update(bp, sc->aabbs, sc->flags, sc->count) != FXS_OK) {
		snprintf(why, whylen, "update failed");
		return false;
	}
	uint32_t n;
	const fxs_pair *p = fxs_bp_find_pairs(bp, &n);
	brute_pairs(sc->aabbs, sc->flags, sc->count, ref);
	return same_pairs(p, n, ref, why, whylen);
}

/* ------------------------------------------------------------------ tests */

/* Seed 000 §3.3: eight unit cells A..H (2D, here with z in [0, 1]), area
 * in the text, edge sums here: every choice is the same. */
TEST(bp_worked_example_leaf_order)
{
	static const int xy[8][2] = { { 0, 2 }, { 5, 4 }, { 2, 2 }, { 2, 4 }, { 0, 0 }, { 4, 2 }, { 5, 6 }, { 0, 4 } };
	fxs_aabb a[8];
	uint8_t fl[8];
	for (int i = 0; i < 8; ++i) {
		a[i] = box3(F(xy[i][0]), F(xy[i][1]), 0, F(xy[i][0] + 1), F(xy[i][1] + 1), F(1));
		fl[i] = FXS_PROXY_LIVE | FXS_PROXY_MOVING;
	}
	fxs_broadphase *bp = fxs_bp_create();
	fxs_bp_set_insert_order(bp, FXS_BP_ORDER_ID);
	CHECK(fxs_bp_update(bp, a, fl, 8) == FXS_OK);
	uint32_t L;
	const uint32_t *lo = fxs_bp_leaf_order(bp, &L);
	CHECK(L == 8);
	char got[9] = { 0 };
	for (int i = 0; i < 8; ++i)
		got[i] = (char)('A' + lo[i]);
	CHECKF(strcmp(got, "ACEHBDGF") == 0, "leaf order %s", got);
	CHECK(fxs_bp_get_stats(bp).swaps == 3);
	/* the internal boxes of FIG. 6C: node 31 = (0,0)-(3,5), node 32 = (2,2)-(6,7) */
	const fxs_bptree *t = fxs_bp_get_tree(bp);
	const fxs_aabb *l2 = t->box + t->level_off[2];
	CHECK(l2[0].lo.x == 0 && l2[0].lo.y == 0 && l2[0].hi.x == F(3) && l2[0].hi.y == F(5));
	CHECK(l2[1].lo.x == F(2) && l2[1].lo.y == F(2) && l2[1].hi.x == F(6) && l2[1].hi.y == F(7));
	/* seed §4.2: only (21,22)=(AC,EH) and (23,24)=(BD,GF) overlap on layer 2;
	 * the unit cells touch in places, so compare the pairs to brute force */
	uint32_t n;
	const fxs_pair *p = fxs_bp_find_pairs(bp, &n);
	pair_list ref = { 0 };
	brute_pairs(a, fl, 8, &ref);
	char why[128];
	CHECKF(same_pairs(p, n, &ref, why, sizeof why), "%s", why);
	/* claim 6: the next step starts from A C E H B D G F, and the new
	 * layer-2 group B D G F now re-pairs to B G | D F (10 < 12); the
	 * step after that changes nothing */
	CHECK(fxs_bp_update(bp, a, fl, 8) == FXS_OK);
	lo = fxs_bp_leaf_order(bp, &L);
	for (int i = 0; i < 8; ++i)
		got[i] = (char)('A' + lo[i]);
	CHECKF(strcmp(got, "ACEHBGDF") == 0, "second step %s", got);
	CHECK(fxs_bp_get_stats(bp).swaps == 1);
	CHECK(fxs_bp_update(bp, a, fl, 8) == FXS_OK);
	lo = fxs_bp_leaf_order(bp, &L);
	for (int i = 0; i < 8; ++i)
		got[i] = (char)('A' + lo[i]);
	CHECKF(strcmp(got, "ACEHBGDF") == 0, "third step %s", got);
	CHECK(fxs_bp_get_stats(bp).swaps == 0);
	free(ref.p);
	fxs_bp_destroy(bp);
}

/* Tie-break: identical children keep the current layout. */
TEST(bp_swap_ties_keep_layout)
{
	fxs_aabb a[4];
	uint8_t fl[4];
	for (int i = 0; i < 4; ++i) {
		a[i] = box3(0, 0, 0, F(1), F(1), F(1));
		fl[i] = FXS_PROXY_LIVE | FXS_PROXY_MOVING;
	}
	fxs_broadphase *bp = fxs_bp_create();
	fxs_bp_set_insert_order(bp, FXS_BP_ORDER_ID);
	CHECK(fxs_bp_update(bp, a, fl, 4) == FXS_OK);
	uint32_t L;
	const uint32_t *lo = fxs_bp_leaf_order(bp, &L);
	CHECK(L == 4 && lo[0] == 0 && lo[1] == 1 && lo[2] == 2 && lo[3] == 3);
	uint32_t n;
	fxs_bp_find_pairs(bp, &n);
	CHECK(n == 6);
	fxs_bp_destroy(bp);
}

/* Padding, insertion into the lowest EMPTY leaf, growth and compaction. */
TEST(bp_membership_canonical)
{
	enum { N = 40 };
	fxs_aabb a[N];
	uint8_t fl[N];
	for (int i = 0; i < N; ++i) {
		a[i] = box3(F(3 * i), 0, 0, F(3 * i + 1), F(1), F(1));
		fl[i] = FXS_PROXY_LIVE | FXS_PROXY_MOVING;
	}
	fxs_broadphase *bp = fxs_bp_create();
	fxs_bp_set_insert_order(bp, FXS_BP_ORDER_ID);
	CHECK(fxs_bp_update(bp, a, fl, 5) == FXS_OK);
	uint32_t L;
	const uint32_t *lo = fxs_bp_leaf_order(bp, &L);
	CHECK(L == 8);
	CHECK(fxs_bp_get_stats(bp).tree_members == 5);
	uint32_t empties = 0;
	for (uint32_t i = 0; i < L; ++i)
		empties += lo[i] == FXS_BP_EMPTY_LEAF;
	CHECK(empties == 3);
	/* remove slot 2: its leaf becomes EMPTY; add slot 5: it takes the lowest EMPTY leaf */
	uint32_t before[8];
	memcpy(before, lo, sizeof before);
	fl[2] = 0;
	CHECK(fxs_bp_update(bp, a, fl, 6) == FXS_OK);
	lo = fxs_bp_leaf_order(bp, &L);
	CHECK(L == 8);
	uint32_t first_empty = 8;
	for (uint32_t i = 0; i < 8; ++i)
		if (before[i] == 2 || before[i] == FXS_BP_EMPTY_LEAF) {
			first_empty = i;
			break;
		}
	int found2 = 0;
	for (uint32_t i = 0; i < 8; ++i)
		found2 += lo[i] == 2;
	CHECK(found2 == 0);
	(void)first_empty;
	/* growth: 30 members -> 32 leaves, the old 8 leaves stay the left part
	 * (before swapping moves things) */
	for (int i = 0; i < N; ++i)
		fl[i] = FXS_PROXY_LIVE | FXS_PROXY_MOVING;
	CHECK(fxs_bp_update(bp, a, fl, 30) == FXS_OK);
	lo = fxs_bp_leaf_order(bp, &L);
	CHECK(L == 32);
	CHECK(fxs_bp_get_stats(bp).tree_members == 30);
	/* compaction: 8 members of 32 leaves -> 8 leaves, order kept */
	uint32_t order32[32];
	memcpy(order32, lo, sizeof order32);
	for (int i = 8; i < N; ++i)
		fl[i] = 0;
	CHECK(fxs_bp_update(bp, a, fl, 30) == FXS_OK);
	lo = fxs_bp_leaf_order(bp, &L);
	CHECK(L == 8);
	uint32_t seen = 0;
	for (uint32_t i = 0; i < 8; ++i) {
		CHECK(lo[i] != FXS_BP_EMPTY_LEAF && lo[i] < 8);
		seen |= 1u << lo[i];
	}
	CHECK(seen == 0xFF);
	/* everything gone: two EMPTY leaves, no pairs */
	CHECK(fxs_bp_update(bp, a, fl, 0) == FXS_OK);
	lo = fxs_bp_leaf_order(bp, &L);
	CHECK(L == 2 && lo[0] == FXS_BP_EMPTY_LEAF && lo[1] == FXS_BP_EMPTY_LEAF);
	uint32_t n;
	fxs_bp_find_pairs(bp, &n);
	CHECK(n == 0);
	fxs_bp_destroy(bp);
}

/* The same scene through different insertion histories gives the same
 * pairs (never the same leaf order, which is the point of sorting). */
TEST(bp_pairs_independent_of_leaf_order)
{
	uint64_t s = 99;
	scene sc = { 0 };
	scene_random(&sc, &s, 300);
	fxs_broadphase *a = fxs_bp_create(), *b = fxs_bp_create(), *c = fxs_bp_create();
	fxs_bp_set_insert_order(a, FXS_BP_ORDER_ID);
	fxs_bp_set_perturbation(c, true, 7);
	CHECK(fxs_bp_update(a, sc.aabbs, sc.flags, sc.count) == FXS_OK);
	CHECK(fxs_bp_update(b, sc.aabbs, sc.flags, sc.count) == FXS_OK);
	CHECK(fxs_bp_update(c, sc.aabbs, sc.flags, sc.count) == FXS_OK);
	uint32_t na, nb, nc;
	const fxs_pair *pa = fxs_bp_find_pairs(a, &na), *pb = fxs_bp_find_pairs(b, &nb), *pc = fxs_bp_find_pairs(c, &nc);
	CHECK(na == nb && nb == nc && na > 0);
	CHECK(pa && pb && pc);
	CHECK(memcmp(pa, pb, na * sizeof *pa) == 0 && memcmp(pa, pc, na * sizeof *pa) == 0);
	fxs_bp_destroy(a);
	fxs_bp_destroy(b);
	fxs_bp_destroy(c);
	scene_free(&sc);
}

/* The property test: every step of thousands of seeded scenes equals brute
 * force exactly, across moves, flag changes, slot-count changes, both
 * insertion orders and the perturbation variant. */
SLOW_TEST(bp_random_scenes_equal_brute_force)
{
	uint32_t scenes = test_quick ? 400 : 4000;
	pair_list ref = { 0 };
	scene sc = { 0 };
	char why[160];
	uint64_t total_pairs = 0;
	for (uint32_t k = 0; k < scenes; ++k) {
		uint64_t s = 0xB0AD0000ull + k;
		uint64_t r = test_rng_next(&s);
		uint32_t n = (uint32_t)(r % 4 == 0 ? r % 9 : 1 + (r >> 8) % 120);
		scene_random(&sc, &s, n);
		fxs_broadphase *bp = fxs_bp_create();
		fxs_bp_set_insert_order(bp, (r >> 20) & 1 ? FXS_BP_ORDER_ID : FXS_BP_ORDER_MORTON);
		if ((r >> 21) % 3 == 0)
			fxs_bp_set_perturbation(bp, true, r >> 24);
		for (int step = 0; step < 4; ++step) {
			bool ok = check_step(bp, &sc, &ref, why, sizeof why);
			if (!ok) {
				fxs_bp_destroy(bp);
				CHECKF(0, "scene %u step %d: %s", k, step, why);
			}
			total_pairs += ref.n;
			scene_mutate(&sc, &s);
		}
		fxs_bp_destroy(bp);
	}
	CHECK(total_pairs > scenes); /* the scenes are not trivially empty */
	free(ref.p);
	scene_free(&sc);
}

/* Larger crowded scenes: deeper trees, many statics in the octree. */
SLOW_TEST(bp_large_scenes_equal_brute_force)
{
	uint32_t scenes = test_quick ? 4 : 30;
	pair_list ref = { 0 };
	scene sc = { 0 };
	char why[160];
	for (uint32_t k = 0; k < scenes; ++k) {
		uint64_t s = 0x1A46E000ull + k;
		scene_random(&sc, &s, 1000 + k * 37);
		fxs_broadphase *bp = fxs_bp_create();
		for (int step = 0; step < 6; ++step) {
			bool ok = check_step(bp, &sc, &ref, why, sizeof why);
			if (!ok) {
				fxs_bp_destroy(bp);
				CHECKF(0, "scene %u step %d: %s", k, step, why);
			}
			scene_mutate(&sc, &s);
		}
		fxs_bp_destroy(bp);
	}
	free(ref.p);
	scene_free(&sc);
}

static int paircmp(const void *x, const void *y)
{
	const fxs_pair *a = x, *b = y;
	return a->a != b->a ? (a->a > b->a) - (a->a < b->a) : (a->b > b->b) - (a->b < b->b);
}

/* The tree's search cut into jobs (what the step's workers run) emits the
 * pairs the serial search emits, each once: the same sorted list, over
 * trees from 2 leaves to deeper than the job level. */
TEST(bp_pair_jobs_emit_the_serial_pairs)
{
	scene sc = { 0 };
	fxs_bpt_jobs jobs = { 0 };
	uint32_t most_jobs = 0;
	for (uint32_t k = 0; k < 24; ++k) {
		uint64_t s = 0x70B50000ull + k;
		scene_random(&sc, &s, 2 + k * k * 9);
		fxs_broadphase *bp = fxs_bp_create();
		CHECK(fxs_bp_update(bp, sc.aabbs, sc.flags, sc.count) == FXS_OK);
		const fxs_bptree *t = fxs_bp_get_tree(bp);
		fxs_pair_buf serial = { 0 }, cut = { 0 };
		CHECK(fxs_bpt_find_pairs((fxs_bptree *)t, sc.flags, &serial));
		CHECK(fxs_bpt_pair_jobs(t, &jobs));
		for (uint32_t i = 0; i < jobs.n; ++i)
			CHECK(fxs_bpt_run_job(t, sc.flags, jobs.job[i], &cut));
		most_jobs = jobs.n > most_jobs ? jobs.n : most_jobs;
		CHECKF(serial.n == cut.n, "scene %u: %u pairs serial, %u from %u jobs", k, serial.n, cut.n, jobs.n);
		if (serial.n) {
			qsort(serial.p, serial.n, sizeof *serial.p, paircmp);
			qsort(cut.p, cut.n, sizeof *cut.p, paircmp);
			CHECKF(memcmp(serial.p, cut.p, serial.n * sizeof *serial.p) == 0, "scene %u: other pairs", k);
		}
		free(serial.p);
		free(cut.p);
		fxs_bp_destroy(bp);
	}
	CHECKF(most_jobs > 64, "the largest tree made %u jobs", most_jobs); /* the expansion above the job level ran */
	free(jobs.job);
	scene_free(&sc);
}

/* The refit and swaps cut into subtrees on a world's workers (what the
 * step runs) make the serial tree: the same state bytes, quality and
 * swaps, update after update, with and without the perturbed costs, cut
 * into subtrees of 4 leaves (task_fine) and of the step's size; and the
 * search on the workers (the tree's jobs, the static boxes' queries in
 * blocks of leaves) the serial pairs. */
TEST(bp_refit_subtrees_make_the_serial_tree)
{
	fxs_world_def d = fxs_default_world_def();
	d.worker_count = 3;
	fxs_world *w = fxs_world_create(&d);
	CHECK(w && w->pool);
	scene sc = { 0 };
	uint32_t swapped = 0, deep = 0;
	for (uint32_t k = 0; k < 12 && !test_failed; ++k) {
		uint64_t s = 0x4EF17000ull + k;
		scene_random(&sc, &s, 3 + k * k * 40);
		w->task_fine = k % 2 == 0;
		fxs_broadphase *a = fxs_bp_create(), *b = fxs_bp_create();
		if (k % 3 == 1)
			fxs_bp_set_perturbation(a, true, k), fxs_bp_set_perturbation(b, true, k);
		for (int u = 0; u < 6 && !test_failed; ++u) {
			CHECK(fxs_bp_update(a, sc.aabbs, sc.flags, sc.count) == FXS_OK);
			CHECK(fxs_bp_update_on(b, w, sc.aabbs, sc.flags, sc.count) == FXS_OK);
			const fxs_bptree *ta = fxs_bp_get_tree(a), *tb = fxs_bp_get_tree(b);
			CHECKF(ta->quality == tb->quality && ta->swaps == tb->swaps,
			       "scene %u update %d: quality %llu / %llu, swaps %u / %u", k, u, (unsigned long long)ta->quality,
			       (unsigned long long)tb->quality, ta->swaps, tb->swaps);
			fxs_writer wa, wb;
			fxs_writer_init_growable(&wa), fxs_writer_init_growable(&wb);
			fxs_bp_write_state(a, &wa), fxs_bp_write_state(b, &wb);
			CHECKF(wa.len == wb.len && memcmp(wa.buf, wb.buf, wa.len) == 0, "scene %u update %d: other trees", k, u);
			CHECK(memcmp(ta->box, tb->box, (2 * (size_t)ta->leaf_count - 1) * sizeof *ta->box) == 0);
			fxs_writer_free(&wa), fxs_writer_free(&wb);
			/* and the pairs, the octree's static ones found in blocks of leaves too */
			uint32_t na = 0, nb = 0;
			const fxs_pair *pa = fxs_bp_find_pairs(a, &na), *pb = fxs_bp_find_pairs_on(b, w, &nb);
			CHECK(pa && pb);
			CHECKF(na == nb && memcmp(pa, pb, na * sizeof *pa) == 0, "scene %u update %d: %u pairs, %u", k, u, na, nb);
			swapped += ta->swaps;
			deep += ta->leaf_count >= (w->task_fine ? 16u : 1024u);
			scene_mutate(&sc, &s);
		}
		fxs_bp_destroy(a);
		fxs_bp_destroy(b);
	}
	CHECKF(swapped > 0 && deep > 6, "swaps %u, updates cut into subtrees %u", swapped, deep);
	scene_free(&sc);
	fxs_world_destroy(w);
}

static int u32cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* AABB query and ray cast (tree + octree) against brute force. */
SLOW_TEST(bp_queries_equal_brute_force)
{
	uint32_t scenes = test_quick ? 150 : 1500;
	scene sc = { 0 };
	uint32_t *want = NULL;
	for (uint32_t k = 0; k < scenes; ++k) {
		uint64_t s = 0x9E0E0000ull + k;
		uint32_t n = 1 + (uint32_t)(test_rng_next(&s) % 150);
		scene_random(&sc, &s, n);
		want = realloc(want, n * sizeof *want);
		fxs_broadphase *bp = fxs_bp_create();
		CHECK(fxs_bp_update(bp, sc.aabbs, sc.flags, sc.count) == FXS_OK);
		for (int q = 0; q < 8; ++q) {
			fxs_aabb qb = rnd_box(&s, sc.aabbs, n, F(2));
			uint32_t wn = 0;
			for (uint32_t i = 0; i < n; ++i)
				if ((sc.flags[i] & FXS_PROXY_LIVE) && fxs_aabb_overlap(&sc.aabbs[i], &qb))
					want[wn++] = i;
			uint32_t gn;
			const uint32_t *got = fxs_bp_query_aabb(bp, &qb, &gn);
			if (gn != wn || (wn && memcmp(got, want, wn * sizeof *want) != 0)) {
				fxs_bp_destroy(bp);
				CHECKF(0, "scene %u query %d: %u ids, want %u", k, q, gn, wn);
			}
			/* a segment between two random points (sometimes a box centre) */
			fxs_segment seg;
			fxs_aabb p = rnd_box(&s, sc.aabbs, n, F(1)), p2 = rnd_box(&s, sc.aabbs, n, F(1));
			seg.p0 = p.lo;
			seg.p1 = (q & 1) ? p2.hi : p.lo; /* odd: a real segment; even: a point */
			if (q == 2)
				seg.p1 = p2.lo, seg.p1.y = seg.p0.y; /* parallel to a plane */
			bool have = false;
			fxs_ray_hit best = { 0, { 0, 1 }, 0 };
			for (uint32_t i = 0; i < n; ++i) {
				fxs_frac e;
				if (!(sc.flags[i] & FXS_PROXY_LIVE) || !fxs_segment_box_entry(&seg, &sc.aabbs[i], &e))
					continue;
				if (fxs_ray_hit_better(e, i, &best, have)) {
					best.id = i;
					best.t = e;
					have = true;
				}
			}
			fxs_ray_hit hit;
			bool got_hit = fxs_bp_ray_cast(bp, seg.p0, seg.p1, &hit);
			if (got_hit != have || (have && (hit.id != best.id || fxs_frac_cmp(hit.t, best.t) != 0))) {
				fxs_bp_destroy(bp);
				CHECKF(0, "scene %u ray %d: hit %d id %u, want %d id %u", k, q, got_hit, got_hit ? hit.id : 0,
				       have, best.id);
			}
		}
		fxs_bp_destroy(bp);
	}
	free(want);
	scene_free(&sc);
}

TEST(bp_ray_cast_first_hit_and_ties)
{
	/* three boxes on the x axis; 1 and 2 share their entry face */
	fxs_aabb a[3] = { box3(F(10), F(-1), F(-1), F(11), F(1), F(1)), box3(F(4), F(-1), F(-1), F(5), F(1), F(1)),
			  box3(F(4), F(-2), F(-2), F(6), F(2), F(2)) };
	uint8_t fl[3] = { FXS_PROXY_LIVE | FXS_PROXY_STATIC, FXS_PROXY_LIVE | FXS_PROXY_MOVING,
			  FXS_PROXY_LIVE | FXS_PROXY_STATIC };
	fxs_broadphase *bp = fxs_bp_create();
	CHECK(fxs_bp_update(bp, a, fl, 3) == FXS_OK);
	fxs_ray_hit h;
	CHECK(fxs_bp_ray_cast(bp, fxg_v3(0, 0, 0), fxg_v3(F(20), 0, 0), &h));
	CHECK(h.id == 1);
	CHECK(h.fraction == F(1) / 5); /* 4 / 20 */
	/* reversed: box 0 first */
	CHECK(fxs_bp_ray_cast(bp, fxg_v3(F(20), 0, 0), fxg_v3(0, 0, 0), &h));
	CHECK(h.id == 0 && h.fraction == F(9) / 20);
	/* starting inside box 2 (and 1): entry 0, the smaller id wins */
	CHECK(fxs_bp_ray_cast(bp, fxg_v3(F(4), 0, 0), fxg_v3(F(20), 0, 0), &h));
	CHECK(h.id == 1 && h.fraction == 0);
	/* missing everything */
	CHECK(!fxs_bp_ray_cast(bp, fxg_v3(0, F(5), 0), fxg_v3(F(20), F(5), 0), &h));
	/* a segment that stops short */
	CHECK(!fxs_bp_ray_cast(bp, fxg_v3(0, 0, 0), fxg_v3(F(3), 0, 0), &h));
	fxs_bp_destroy(bp);
}

/* The octree's cell is a pure function of the box; a box on a split plane
 * lives in exactly one node; the build ignores the input order. */
TEST(octree_canonical_placement)
{
	uint32_t shift, key[3];
	/* a zero-thickness box on the root's split plane x = 0 (0x80000000 unsigned) */
	fxs_aabb plane = box3(0, F(1), F(1), 0, F(1) + F(1) / 2, F(1) + F(1) / 2);
	fxs_octree_cell_of(&plane, &shift, key);
	CHECK(shift == 16 && key[0] == 0x80000000u >> 16 && key[1] == 0x80010000u >> 16);
	fxs_aabb straddle = box3(-1, 0, 0, 1, 0, 0);
	fxs_octree_cell_of(&straddle, &shift, key);
	CHECK(shift == 32 && key[0] == 0 && key[1] == 0 && key[2] == 0);
	fxs_aabb tiny = box3(5, 5, 5, 6, 6, 6);
	fxs_octree_cell_of(&tiny, &shift, key);
	CHECK(shift == FXS_OCTREE_MIN_SHIFT);

	uint64_t s = 4242;
	enum { N = 500 };
	uint32_t ids[N], ids2[N];
	fxs_aabb bx[N], bx2[N];
	for (uint32_t i = 0; i < N; ++i) {
		ids[i] = i * 3 + 1;
		bx[i] = rnd_box(&s, bx, i, F(2));
	}
	/* reversed input order */
	for (uint32_t i = 0; i < N; ++i) {
		ids2[i] = ids[N - 1 - i];
		bx2[i] = bx[N - 1 - i];
	}
	fxs_octree a, b;
	fxs_octree_init(&a);
	fxs_octree_init(&b);
	CHECK(fxs_octree_build(&a, ids, bx, N) == FXS_OK);
	CHECK(fxs_octree_build(&b, ids2, bx2, N) == FXS_OK);
	CHECK(a.node_count == b.node_count && a.obj_count == N && b.obj_count == N);
	CHECK(memcmp(a.ids, b.ids, N * sizeof *a.ids) == 0);
	for (uint32_t k = 0; k < a.node_count; ++k) {
		CHECK(a.nodes[k].shift == b.nodes[k].shift && a.nodes[k].first == b.nodes[k].first &&
		      a.nodes[k].count == b.nodes[k].count);
		CHECK(memcmp(a.nodes[k].child, b.nodes[k].child, sizeof a.nodes[k].child) == 0);
		/* each object's node is its own cell (or the minimum cell) */
		for (uint32_t j = a.nodes[k].first; j < a.nodes[k].first + a.nodes[k].count; ++j) {
			fxs_octree_cell_of(&a.boxes[j], &shift, key);
			CHECK(shift == a.nodes[k].shift);
			CHECK(key[0] == a.nodes[k].key[0] && key[1] == a.nodes[k].key[1] && key[2] == a.nodes[k].key[2]);
			if (j > a.nodes[k].first)
				CHECK(a.ids[j] > a.ids[j - 1]);
		}
	}
	/* every object exactly once */
	uint32_t sorted[N];
	memcpy(sorted, a.ids, sizeof sorted);
	qsort(sorted, N, sizeof *sorted, u32cmp);
	for (uint32_t i = 0; i < N; ++i)
		CHECK(sorted[i] == ids[i]);
	fxs_octree_free(&a);
	fxs_octree_free(&b);
}

/* A static proxy straddling the root's split planes (the article's defect
 * §12.1: static ancestors were never tested against moving descendants). */
TEST(octree_static_ancestor_vs_moving)
{
	fxs_aabb a[3] = { box3(F(-400), F(-2), F(-400), F(400), 0, F(400)),  /* ground across x = 0 */
			  box3(F(100), F(-1), F(100), F(101), F(1), F(101)), /* a body resting on it */
			  box3(F(200), F(-1), F(200), F(201), F(1), F(201)) };
	uint8_t fl[3] = { FXS_PROXY_LIVE | FXS_PROXY_STATIC, FXS_PROXY_LIVE | FXS_PROXY_MOVING,
			  FXS_PROXY_LIVE | FXS_PROXY_STATIC };
	fxs_broadphase *bp = fxs_bp_create();
	CHECK(fxs_bp_update(bp, a, fl, 3) == FXS_OK);
	uint32_t n;
	const fxs_pair *p = fxs_bp_find_pairs(bp, &n);
	CHECK(n == 1 && p[0].a == 0 && p[0].b == 1); /* static-static (0,2) skipped */
	CHECK(fxs_bp_get_stats(bp).static_count == 2);
	/* moving a static proxy (teleport) rebuilds the octree */
	uint32_t builds = fxs_bp_get_stats(bp).octree_builds;
	a[2] = box3(F(100), 0, F(100), F(102), F(3), F(102));
	CHECK(fxs_bp_update(bp, a, fl, 3) == FXS_OK);
	CHECK(fxs_bp_get_stats(bp).octree_builds == builds + 1);
	p = fxs_bp_find_pairs(bp, &n);
	CHECK(n == 2 && p[1].a == 1 && p[1].b == 2);
	/* unchanged statics: no rebuild */
	CHECK(fxs_bp_update(bp, a, fl, 3) == FXS_OK);
	CHECK(fxs_bp_get_stats(bp).octree_builds == builds + 1);
	fxs_bp_destroy(bp);
}

static void state_bytes(const fxs_broadphase *bp, fxs_writer *w)
{
	fxs_writer_init_growable(w);
	fxs_bp_write_state(bp, w);
}

/* write_state -> read_state into a fresh broadphase -> the same pairs and
 * the same state bytes, step after step. */
SLOW_TEST(bp_snapshot_round_trip)
{
	uint32_t scenes = test_quick ? 40 : 300;
	scene sc = { 0 };
	for (uint32_t k = 0; k < scenes; ++k) {
		uint64_t s = 0x5AA50000ull + k;
		scene_random(&sc, &s, 20 + (uint32_t)(test_rng_next(&s) % 200));
		fxs_broadphase *a = fxs_bp_create();
		if (k & 1)
			fxs_bp_set_perturbation(a, true, k * 77);
		uint32_t slots = 0;
		for (int step = 0; step < 3; ++step) {
			CHECK(fxs_bp_update(a, sc.aabbs, sc.flags, sc.count) == FXS_OK);
			slots = sc.count; /* the world snapshots after a step: its slot count then */
			scene_mutate(&sc, &s);
		}
		fxs_writer w;
		state_bytes(a, &w);
		CHECK(!w.failed);
		fxs_broadphase *b = fxs_bp_create();
		fxs_reader r;
		fxs_reader_init(&r, w.buf, w.len);
		CHECK(fxs_bp_read_state(b, &r, slots) == FXS_OK);
		CHECK(r.pos == w.len);
		fxs_writer_free(&w);
		for (int step = 0; step < 5; ++step) {
			CHECK(fxs_bp_update(a, sc.aabbs, sc.flags, sc.count) == FXS_OK);
			CHECK(fxs_bp_update(b, sc.aabbs, sc.flags, sc.count) == FXS_OK);
			uint32_t na, nb;
			const fxs_pair *pa = fxs_bp_find_pairs(a, &na);
			const fxs_pair *pb = fxs_bp_find_pairs(b, &nb);
			CHECK(na == nb && (na == 0 || memcmp(pa, pb, na * sizeof *pa) == 0));
			fxs_writer wa, wb;
			state_bytes(a, &wa);
			state_bytes(b, &wb);
			bool same = wa.len == wb.len && memcmp(wa.buf, wb.buf, wa.len) == 0;
			fxs_writer_free(&wa);
			fxs_writer_free(&wb);
			CHECKF(same, "scene %u step %d: state bytes differ", k, step);
			scene_mutate(&sc, &s);
		}
		fxs_bp_destroy(a);
		fxs_bp_destroy(b);
	}
	scene_free(&sc);
}

/* Bad snapshots are refused, never trusted. */
TEST(bp_read_state_rejects_corrupt)
{
	fxs_aabb a[4];
	uint8_t fl[4];
	for (int i = 0; i < 4; ++i) {
		a[i] = box3(F(i), 0, 0, F(i) + F(1) / 2, F(1), F(1));
		fl[i] = FXS_PROXY_LIVE | FXS_PROXY_MOVING;
	}
	fxs_broadphase *bp = fxs_bp_create();
	CHECK(fxs_bp_update(bp, a, fl, 4) == FXS_OK);
	fxs_writer w;
	state_bytes(bp, &w);
	uint8_t *good = w.buf;
	size_t len = w.len;
	CHECK(len == 4 + 1 + 1 + 8 + 8 + 8 + 4 + 4 * 4); /* version, order, perturb, seed, counter, quality_ref, L, leaves */
	uint8_t buf[64];
	fxs_broadphase *b = fxs_bp_create();
	fxs_reader r;
	/* intact */
	fxs_reader_init(&r, good, len);
	CHECK(fxs_bp_read_state(b, &r, 4) == FXS_OK);
	/* a leaf naming a slot beyond slot_count */
	fxs_reader_init(&r, good, len);
	CHECK(fxs_bp_read_state(b, &r, 3) != FXS_OK);
	/* duplicate leaf */
	memcpy(buf, good, len);
	memcpy(buf + len - 4, buf + len - 8, 4);
	fxs_reader_init(&r, buf, len);
	CHECK(fxs_bp_read_state(b, &r, 4) != FXS_OK);
	/* leaf count not a power of two */
	memcpy(buf, good, len);
	buf[30] = 3;
	fxs_reader_init(&r, buf, len);
	CHECK(fxs_bp_read_state(b, &r, 4) != FXS_OK);
	/* a huge leaf count in a short buffer */
	memcpy(buf, good, len);
	buf[33] = 0x40;
	fxs_reader_init(&r, buf, len);
	CHECK(fxs_bp_read_state(b, &r, 4) != FXS_OK);
	/* version */
	memcpy(buf, good, len);
	buf[0] = 9;
	fxs_reader_init(&r, buf, len);
	CHECK(fxs_bp_read_state(b, &r, 4) != FXS_OK);
	/* truncated */
	for (size_t cut = 0; cut < len; ++cut) {
		fxs_reader_init(&r, good, cut);
		CHECK(fxs_bp_read_state(b, &r, 4) != FXS_OK);
	}
	/* after a refused read, a good one still works and steps */
	fxs_reader_init(&r, good, len);
	CHECK(fxs_bp_read_state(b, &r, 4) == FXS_OK);
	CHECK(fxs_bp_update(b, a, fl, 4) == FXS_OK);
	fxs_writer_free(&w);
	fxs_bp_destroy(bp);
	fxs_bp_destroy(b);
}

/* Temporal coherence on a settling scene: boxes slow down to rest, the
 * swaps die out and the tree stays as good as a fresh one. */
TEST(bp_coherence_settles)
{
	enum { N = 512 };
	static fxs_aabb a[N];
	static uint8_t fl[N];
	int32_t c[N][3], v[N][3];
	uint64_t s = 31337;
	for (int i = 0; i < N; ++i) {
		for (int k = 0; k < 3; ++k) {
			c[i][k] = (int32_t)(test_rng_next(&s) % (uint64_t)F(16));
			v[i][k] = (int32_t)(test_rng_next(&s) % 8192) - 4096;
		}
		fl[i] = FXS_PROXY_LIVE | FXS_PROXY_MOVING;
	}
	fxs_broadphase *bp = fxs_bp_create();
	uint32_t swaps_early = 0, swaps_late = 0;
	for (int step = 0; step < 120; ++step) {
		for (int i = 0; i < N; ++i) {
			for (int k = 0; k < 3; ++k) {
				c[i][k] += v[i][k];
				v[i][k] = v[i][k] * 9 / 10; /* settle */
			}
			a[i] = box3(c[i][0] - F(1) / 4, c[i][1] - F(1) / 4, c[i][2] - F(1) / 4, c[i][0] + F(1) / 4,
				    c[i][1] + F(1) / 4, c[i][2] + F(1) / 4);
		}
		CHECK(fxs_bp_update(bp, a, fl, N) == FXS_OK);
		uint32_t sw = fxs_bp_get_stats(bp).swaps;
		if (step >= 1 && step < 11)
			swaps_early += sw;
		if (step >= 110)
			swaps_late += sw;
	}
	CHECKF(swaps_late == 0, "still swapping at rest: %u (early %u)", swaps_late, swaps_early);
	fxs_bp_destroy(bp);
}

/* The exact segment test against an independent oracle: the separating
 * axis theorem in doubled integer coordinates (box axes and the three
 * cross products), on coordinates small enough for exact int64. A hit's
 * entry point must lie in the box, and either be the start or on a face. */
static int64_t iabs64(int64_t v) { return v < 0 ? -v : v; }

TEST(segment_box_entry_matches_sat)
{
	uint64_t s = 777;
	int hits = 0, misses = 0;
	for (int k = 0; k < 20000; ++k) {
		int32_t R = (k & 1) ? (1 << 27) : 64; /* wide, and tiny (many exact touches) */
		int32_t v[12];
		for (int i = 0; i < 12; ++i)
			v[i] = (int32_t)(test_rng_next(&s) % (uint64_t)(2 * R)) - R;
		fxs_aabb b = box3(v[0] < v[3] ? v[0] : v[3], v[1] < v[4] ? v[1] : v[4], v[2] < v[5] ? v[2] : v[5],
				  v[0] < v[3] ? v[3] : v[0], v[1] < v[4] ? v[4] : v[1], v[2] < v[5] ? v[5] : v[2]);
		if (k % 7 == 0)
			b.hi.z = b.lo.z; /* flat */
		fxs_segment seg = { { v[6], v[7], v[8] }, { v[9], v[10], v[11] } };
		if (k % 5 == 0)
			seg.p1.x = seg.p0.x; /* axis-parallel */
		if (k % 11 == 0)
			seg.p1 = seg.p0; /* a point */
		const int64_t lo[3] = { b.lo.x, b.lo.y, b.lo.z }, hi[3] = { b.hi.x, b.hi.y, b.hi.z };
		const int64_t p0[3] = { seg.p0.x, seg.p0.y, seg.p0.z }, p1[3] = { seg.p1.x, seg.p1.y, seg.p1.z };
		int64_t c[3], e[3], m[3], d[3];
		for (int a = 0; a < 3; ++a) {
			c[a] = lo[a] + hi[a];
			e[a] = hi[a] - lo[a];
			m[a] = p0[a] + p1[a];
			d[a] = p1[a] - p0[a];
		}
		bool sep = false;
		for (int a = 0; a < 3; ++a)
			if (iabs64(m[a] - c[a]) > e[a] + iabs64(d[a]))
				sep = true;
		for (int a = 0; a < 3 && !sep; ++a) {
			int i = (a + 1) % 3, j = (a + 2) % 3;
			int64_t lhs = iabs64((m[i] - c[i]) * d[j] - (m[j] - c[j]) * d[i]);
			if (lhs > e[i] * iabs64(d[j]) + e[j] * iabs64(d[i]))
				sep = true;
		}
		fxs_frac t;
		bool hit = fxs_segment_box_entry(&seg, &b, &t);
		CHECKF(hit == !sep, "case %d: hit %d, SAT says %d", k, hit, !sep);
		if (!hit) {
			++misses;
			continue;
		}
		++hits;
		CHECK(t.num >= 0 && (uint64_t)t.num <= t.den);
		bool on_face = t.num == 0;
		for (int a = 0; a < 3; ++a) {
			int64_t pd = p0[a] * (int64_t)t.den + t.num * d[a];
			CHECKF(lo[a] * (int64_t)t.den <= pd && pd <= hi[a] * (int64_t)t.den, "case %d: entry outside", k);
			if ((d[a] > 0 && pd == lo[a] * (int64_t)t.den) || (d[a] < 0 && pd == hi[a] * (int64_t)t.den))
				on_face = true;
		}
		CHECKF(on_face, "case %d: entry neither the start nor on an entered face", k);
	}
	CHECK(hits > 1000 && misses > 1000);
}

/* Boxes that jump across the world every step: the local swaps cannot keep
 * up, the quality rule re-sorts, and pairs and snapshots stay exact. */
TEST(bp_resort_on_decay)
{
	enum { N = 600 };
	scene sc = { 0 };
	scene_resize(&sc, N);
	uint64_t s = 2024;
	pair_list ref = { 0 };
	char why[160];
	fxs_broadphase *bp = fxs_bp_create(), *copy = NULL;
	uint32_t resorts = 0;
	for (int step = 0; step < 30; ++step) {
		for (uint32_t i = 0; i < N; ++i) {
			if (step > 0 && test_rng_next(&s) % 3)
				continue;
			int32_t c[3];
			for (int a = 0; a < 3; ++a)
				c[a] = (int32_t)(test_rng_next(&s) % (uint64_t)F(40));
			sc.aabbs[i] = box3(c[0], c[1], c[2], c[0] + F(1), c[1] + F(1), c[2] + F(1));
			sc.flags[i] = FXS_PROXY_LIVE | FXS_PROXY_MOVING;
		}
		bool ok = check_step(bp, &sc, &ref, why, sizeof why);
		CHECKF(ok, "step %d: %s", step, why);
		resorts += fxs_bp_get_tree(bp)->resorted;
		if (copy) {
			CHECK(fxs_bp_update(copy, sc.aabbs, sc.flags, N) == FXS_OK);
			uint32_t na, nb;
			const fxs_pair *pa = fxs_bp_find_pairs(bp, &na), *pb = fxs_bp_find_pairs(copy, &nb);
			CHECK(na == nb && (na == 0 || memcmp(pa, pb, na * sizeof *pa) == 0));
			fxs_writer wa, wb;
			state_bytes(bp, &wa);
			state_bytes(copy, &wb);
			bool same = wa.len == wb.len && memcmp(wa.buf, wb.buf, wa.len) == 0;
			fxs_writer_free(&wa);
			fxs_writer_free(&wb);
			CHECKF(same, "step %d: state differs after restore", step);
		}
		if (step == 3) {
			fxs_writer w;
			state_bytes(bp, &w);
			copy = fxs_bp_create();
			fxs_reader r;
			fxs_reader_init(&r, w.buf, w.len);
			CHECK(fxs_bp_read_state(copy, &r, N) == FXS_OK);
			fxs_writer_free(&w);
		}
	}
	CHECKF(resorts >= 2, "resorts %u", resorts);
	fxs_bp_destroy(bp);
	fxs_bp_destroy(copy);
	free(ref.p);
	scene_free(&sc);
}
