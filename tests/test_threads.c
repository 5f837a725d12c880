/* The parallel step (world/tasks.h, docs/threads.md): the same hash, step
 * after step, on every built-in scene with 1, 2, 3, 4, 8 and 16 workers, on
 * the built-in pool and on a test scheduler that runs the ranges of each
 * task in a seeded random order on random threads of its own (and, now and
 * then, all of them at once before enqueue returns) with every phase cut
 * into its smallest blocks; the definition's thread fields checked with
 * their reasons; the threads kept by a snapshot restore. */
#if !defined(__EMSCRIPTEN__) || defined(__EMSCRIPTEN_PTHREADS__) /* wasm without threads: none */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "fixstep/fixstep.h"
#include "scenes/scenes.h"
#include "test.h"
#include "world/world.h"
#include "state/state.h"
#include "joint/joint.h"
#include "collide/contact.h"

/* ---- the random-order scheduler: a game's job system of its own ---- */

#define RS_THREADS_MAX 16
#define RS_RANGES_MAX 4096

typedef struct rs_range {
	uint32_t start, end;
} rs_range;

typedef struct rs_sched rs_sched;
typedef struct rs_thread {
	rs_sched *s;
	uint32_t index;
	pthread_t tid;
	rs_range queue[RS_RANGES_MAX];
	uint32_t count;
} rs_thread;

struct rs_sched {
	pthread_mutex_t mu;
	pthread_cond_t go, done;
	uint32_t threads;
	rs_thread t[RS_THREADS_MAX];
	uint64_t gen;    /* tasks enqueued */
	uint32_t left;   /* threads still running the current task's ranges */
	fxs_task_fn *fn; /* the current task */
	void *ctx;
	bool stop;
	uint64_t rng;
	uint64_t tasks, inline_tasks; /* counted, to show the test ran what it says */
};

static void *rs_main(void *arg)
{
	rs_thread *t = arg;
	rs_sched *s = t->s;
	uint64_t seen = 0;
	pthread_mutex_lock(&s->mu);
	for (;;) {
		while (s->gen == seen && !s->stop)
			pthread_cond_wait(&s->go, &s->mu);
		if (s->stop)
			break;
		seen = s->gen;
		fxs_task_fn *fn = s->fn;
		void *ctx = s->ctx;
		uint32_t n = t->count;
		pthread_mutex_unlock(&s->mu);
		for (uint32_t k = 0; k < n; ++k)
			fn(t->queue[k].start, t->queue[k].end, t->index, ctx);
		pthread_mutex_lock(&s->mu);
		t->count = 0;
		if (--s->left == 0)
			pthread_cond_signal(&s->done);
	}
	pthread_mutex_unlock(&s->mu);
	return NULL;
}

static void *rs_enqueue(fxs_task_fn *task, uint32_t item_count, uint32_t min_range, void *task_ctx, void *user)
{
	rs_sched *s = user;
	/* ranges of random lengths (at least min_range, but the last) */
	rs_range r[RS_RANGES_MAX];
	uint32_t n = 0;
	for (uint32_t at = 0; at < item_count; ++n) {
		uint32_t len = min_range + (uint32_t)(test_rng_next(&s->rng) % 3);
		r[n].start = at;
		at = item_count - at <= len || n + 1 == RS_RANGES_MAX ? item_count : at + len;
		r[n].end = at;
	}
	for (uint32_t i = n; i > 1; --i) { /* shuffled */
		uint32_t j = (uint32_t)(test_rng_next(&s->rng) % i);
		rs_range x = r[i - 1];
		r[i - 1] = r[j], r[j] = x;
	}
	s->tasks++;
	if (test_rng_next(&s->rng) % 8 == 0) { /* now, here, in the shuffled order */
		s->inline_tasks++;
		for (uint32_t k = 0; k < n; ++k)
			task(r[k].start, r[k].end, (uint32_t)(test_rng_next(&s->rng) % s->threads), task_ctx);
		return NULL;
	}
	pthread_mutex_lock(&s->mu);
	s->left = s->threads; /* every thread checks in, with ranges or none */
	for (uint32_t k = 0; k < n; ++k) {
		rs_thread *t = &s->t[test_rng_next(&s->rng) % s->threads];
		t->queue[t->count++] = r[k];
	}
	s->fn = task, s->ctx = task_ctx;
	s->gen++;
	pthread_cond_broadcast(&s->go);
	pthread_mutex_unlock(&s->mu);
	return s;
}

static void rs_finish(void *handle, void *user)
{
	rs_sched *s = user;
	(void)handle;
	pthread_mutex_lock(&s->mu);
	while (s->left)
		pthread_cond_wait(&s->done, &s->mu);
	pthread_mutex_unlock(&s->mu);
}

static rs_sched *rs_create(uint32_t threads, uint64_t seed)
{
	rs_sched *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->go, NULL);
	pthread_cond_init(&s->done, NULL);
	s->threads = threads;
	s->rng = seed;
	for (uint32_t i = 0; i < threads; ++i) {
		s->t[i].s = s, s->t[i].index = i;
		pthread_create(&s->t[i].tid, NULL, rs_main, &s->t[i]);
	}
	return s;
}

static void rs_destroy(rs_sched *s)
{
	pthread_mutex_lock(&s->mu);
	s->stop = true;
	pthread_cond_broadcast(&s->go);
	pthread_mutex_unlock(&s->mu);
	for (uint32_t i = 0; i < s->threads; ++i)
		pthread_join(s->t[i].tid, NULL);
	pthread_cond_destroy(&s->go);
	pthread_cond_destroy(&s->done);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* ---- the scenes ---- */

/* Under ThreadSanitizer (make tsan: 5 to 15 times slower) the scenes of
 * up to 1,000 bodies, for fewer steps: the random-order scheduler cuts
 * their phases into many blocks all the same. */
#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

/* steps per scene: about 20,000 body-steps (--quick: 4,000; under
 * ThreadSanitizer 1,000), 4 (2) to 120 */
static uint32_t scene_steps(const fxs_scene *sc, uint32_t bodies)
{
	uint32_t budget = UNDER_TSAN ? 1000 : test_quick ? 4000 : 20000, least = UNDER_TSAN ? 2 : 4;
	uint32_t n = budget / (bodies ? bodies : 1);
	n = n < least ? least : (n > 120 ? 120 : n);
	return n < sc->default_steps ? n : sc->default_steps;
}

/* the first step whose hash differs from ref[], 0 if none */
static uint32_t first_difference(fxs_world *w, const uint64_t *ref, uint32_t steps)
{
	for (uint32_t s = 1; s <= steps; ++s) {
		if (fxs_world_step(w) != FXS_OK || fxs_world_hash(w) != ref[s - 1])
			return s;
	}
	return 0;
}

static const uint32_t counts[] = { 2, 3, 4, 8, 16 };

/* how check_scene spreads the steps: the built-in pool; the random-order
 * scheduler with every phase in its smallest blocks (each block a range);
 * or the random-order scheduler with the step's own blocks, so that the
 * workers' shares meet in every order (a worker runs out of its own and
 * takes the back halves of the others', whatever worker numbers it gets) */
enum { POOL, RANDOM_FINE, RANDOM_SHARES };

static void check_scene(const fxs_scene *sc, int mode)
{
	const bool random_order = mode != POOL;
	fxs_world *w = sc->create();
	CHECK(w);
	if (UNDER_TSAN && fxs_world_body_count(w) > 1000) {
		fxs_world_destroy(w);
		return;
	}
	const uint32_t bodies = fxs_world_body_count(w), steps = scene_steps(sc, bodies);
	uint64_t *ref = malloc(steps * sizeof *ref);
	CHECK(ref);
	for (uint32_t s = 0; s < steps; ++s) {
		CHECK(fxs_world_step(w) == FXS_OK);
		ref[s] = fxs_world_hash(w);
	}
	fxs_world_destroy(w);
	for (size_t i = 0; i < sizeof counts / sizeof *counts; ++i) {
		const uint32_t n = counts[i];
		w = sc->create();
		rs_sched *rs = NULL;
		if (random_order) {
			rs = rs_create(n, 0x7E57 + n * 977 + (uint64_t)steps);
			CHECK(rs);
			CHECK(fxs_world_set_workers(w, n, rs_enqueue, rs_finish, rs) == FXS_OK);
			w->task_fine = mode == RANDOM_FINE;
		} else {
			CHECK(fxs_world_set_workers(w, n, NULL, NULL, NULL) == FXS_OK);
			CHECK(fxs_world_get_def(w).worker_count == n && w->pool != NULL);
		}
		uint32_t d = first_difference(w, ref, steps);
		fxs_world_destroy(w);
		if (rs) {
			/* with the smallest blocks the scheduler ran tasks (with more
			 * than one block) unless the scene has too few items to cut (a
			 * single ball); with the step's own blocks a small scene may
			 * have no phase of two */
			CHECKF(rs->tasks > 0 || bodies < 4 || mode == RANDOM_SHARES, "%s: no task reached the scheduler", sc->name);
			rs_destroy(rs);
		}
		CHECKF(d == 0, "%s, %u workers (%s): step %u's hash differs from one worker's", sc->name, n,
		       mode == RANDOM_FINE ? "random order" : mode == RANDOM_SHARES ? "random order, shares" : "built-in pool", d);
	}
	free(ref);
}

SLOW_TEST(threads_scenes_pool)
{
	uint32_t n;
	const fxs_scene *sc = fxs_scenes(&n);
	for (uint32_t i = 0; i < n; ++i) {
		check_scene(&sc[i], POOL);
		if (test_failed)
			return;
	}
}

SLOW_TEST(threads_scenes_random_order)
{
	uint32_t n;
	const fxs_scene *sc = fxs_scenes(&n);
	for (uint32_t i = 0; i < n; ++i) {
		check_scene(&sc[i], RANDOM_FINE);
		if (!test_failed)
			check_scene(&sc[i], RANDOM_SHARES);
		if (test_failed)
			return;
	}
}

/* A grid of ball-jointed spheres (joint_grid's layout, 16 x 16, top row
 * static) whose spheres spin and tumble: the ball joint batches' lever
 * arms turn every sub-step, so their setup makes the responses and
 * inverses again batch by batch (joint_batch.h), and the spheres of two
 * sizes put batches of several stages in every block */
static fxs_world *spinning_ball_grid(void)
{
	enum { N = 16 };
	fxs_world_def d = fxs_default_world_def();
	d.enable_sleep = false;
	fxs_world *w = fxs_world_create(&d);
	fxs_body_id id[N * N];
	for (int x = 0; x < N; ++x)
		for (int y = 0; y < N; ++y) {
			fxs_body_def b = fxs_default_body_def();
			b.type = y == 0 ? FXS_BODY_STATIC : FXS_BODY_DYNAMIC;
			b.shape.type = FXS_SHAPE_SPHERE;
			b.shape.radius = x % 3 == 0 ? FXG_RATIO(1, 10) : FXG_RATIO(2, 5);
			b.position = fxg_v3(FXG_I(x), FXG_I(-y), 0);
			b.angular_velocity = fxg_v3(FXG_I((x * 7 + y * 3) % 5 - 2), FXG_I(y % 3), FXG_I(1));
			id[x * N + y] = fxs_body_create(w, &b);
		}
	for (int x = 0; x < N; ++x)
		for (int y = 1; y < N; ++y) {
			fxs_joint_def jd = fxs_default_ball_joint_def();
			jd.body_a = id[x * N + y - 1], jd.body_b = id[x * N + y];
			jd.local_anchor_a = fxg_v3(0, -FXG_HALF, 0), jd.local_anchor_b = fxg_v3(0, FXG_HALF, 0);
			fxs_joint_create(w, &jd);
			if (x > 0) {
				jd.body_a = id[(x - 1) * N + y];
				jd.local_anchor_a = fxg_v3(FXG_HALF, 0, 0), jd.local_anchor_b = fxg_v3(-FXG_HALF, 0, 0);
				fxs_joint_create(w, &jd);
			}
		}
	return w;
}

/* the spinning grid's hashes at every worker count, on the pool and in
 * random order, equal one worker's */
TEST(threads_spinning_ball_joints)
{
	const fxs_scene sc = { .name = "spinning ball joints", .default_steps = 60, .create = spinning_ball_grid };
	check_scene(&sc, POOL);
	if (!test_failed)
		check_scene(&sc, RANDOM_FINE);
	if (!test_failed)
		check_scene(&sc, RANDOM_SHARES);
}

/* A pile of compounds (four boxes each) with contact events, falling onto a
 * row of boxes and a ground box: a pair of compounds makes several
 * contacts, so a narrowphase block (in random order, blocks of a few
 * pairs) outgrows its region of the next list and moves to its own buffer
 * (contact.c), and the begin and end events walk the new list's parts.
 * At every worker count the hashes and the events of every step equal one
 * worker's. */
static fxs_world *compound_pile(void)
{
	fxs_world_def d = fxs_default_world_def();
	d.enable_sleep = false;
	fxs_world *w = fxs_world_create(&d);
	fxs_compound_child ch[4];
	for (int i = 0; i < 4; ++i) {
		memset(&ch[i], 0, sizeof ch[i]);
		ch[i].shape.type = FXS_SHAPE_BOX;
		ch[i].shape.half_extents = fxg_v3(FXG_RATIO(1, 5), FXG_RATIO(1, 5), FXG_RATIO(1, 5));
		ch[i].xf.p = fxg_v3(FXG_RATIO(2 * (i & 1) - 1, 4), 0, FXG_RATIO(2 * (i >> 1) - 1, 4));
		ch[i].xf.q = fxg_q_identity();
	}
	const fxs_compound_id comp = fxs_world_create_compound(w, ch, 4, NULL);
	fxs_body_def g = fxs_default_body_def();
	g.type = FXS_BODY_STATIC;
	g.shape.type = FXS_SHAPE_BOX;
	g.shape.half_extents = fxg_v3(FXG_I(20), FXG_ONE, FXG_I(20));
	g.position = fxg_v3(0, -FXG_ONE, 0);
	g.enable_contact_events = true;
	fxs_body_create(w, &g);
	for (int i = 0; i < 120; ++i) {
		fxs_body_def b = fxs_default_body_def();
		b.type = FXS_BODY_DYNAMIC;
		b.enable_contact_events = i % 3 != 0;
		b.position = fxg_v3(FXG_RATIO(i % 12 * 9, 10) - FXG_I(5), FXG_RATIO(6 + i / 12 * 9, 10), FXG_RATIO(i % 5, 7));
		if (i % 4 == 0) {
			b.shape.type = FXS_SHAPE_BOX;
			b.shape.half_extents = fxg_v3(FXG_RATIO(2, 5), FXG_RATIO(1, 5), FXG_RATIO(2, 5));
		} else {
			b.shape = fxs_compound_shape(w, comp);
		}
		b.angular_velocity = fxg_v3(FXG_RATIO(i % 7 - 3, 2), 0, FXG_RATIO(i % 5 - 2, 2));
		fxs_body_create(w, &b);
	}
	return w;
}

static uint64_t events_digest(const fxs_world *w)
{
	const fxs_contact_events e = fxs_world_get_contact_events(w);
	uint64_t h = 1469598103934665603u;
	for (uint32_t i = 0; i < e.begin_count; ++i)
		h = (h ^ ((uint64_t)e.begin_events[i].body_a.index1 << 32 | e.begin_events[i].body_b.index1)) * 1099511628211u;
	h = (h ^ 0xE11D) * 1099511628211u;
	for (uint32_t i = 0; i < e.end_count; ++i)
		h = (h ^ ((uint64_t)e.end_events[i].body_a.index1 << 32 | e.end_events[i].body_b.index1)) * 1099511628211u;
	return h ^ e.begin_count ^ (uint64_t)e.end_count << 20;
}

TEST(threads_compound_pile_and_contact_events)
{
	enum { STEPS = 100 };
	uint64_t ref[STEPS], ev[STEPS];
	uint32_t begins = 0, ends = 0, most = 0;
	fxs_world *w = compound_pile();
	CHECK(w);
	for (uint32_t s = 0; s < STEPS; ++s) {
		CHECK(fxs_world_step(w) == FXS_OK);
		ref[s] = fxs_world_hash(w);
		ev[s] = events_digest(w);
		const fxs_contact_events e = fxs_world_get_contact_events(w);
		begins += e.begin_count, ends += e.end_count;
		const uint32_t n = fxs_world_get_stats(w).contact_count;
		most = n > most ? n : most;
	}
	fxs_world_destroy(w);
	/* the pile makes and breaks contacts, more of them than it has pairs of bodies */
	CHECKF(begins > 500 && ends > 50, "the pile's events: %u begin, %u end", begins, ends);
	for (int r = 0; r < 2; ++r)
		for (size_t i = 0; i < sizeof counts / sizeof *counts; ++i) {
			const uint32_t n = counts[i];
			w = compound_pile();
			rs_sched *rs = NULL;
			if (r) {
				rs = rs_create(n, 0xC0E1 + n);
				CHECK(rs);
				CHECK(fxs_world_set_workers(w, n, rs_enqueue, rs_finish, rs) == FXS_OK);
				w->task_fine = true;
			} else {
				CHECK(fxs_world_set_workers(w, n, NULL, NULL, NULL) == FXS_OK);
			}
			uint32_t bad = 0;
			for (uint32_t s = 0; s < STEPS && !bad; ++s)
				if (fxs_world_step(w) != FXS_OK || fxs_world_hash(w) != ref[s] || events_digest(w) != ev[s])
					bad = s + 1;
			fxs_world_destroy(w);
			if (rs)
				rs_destroy(rs);
			CHECKF(bad == 0, "compound pile, %u workers (%s): step %u differs from one worker's", n,
			       r ? "random order" : "built-in pool", bad);
		}
	printf("  %u begin and %u end events over %d steps, up to %u contacts\n", begins, ends, STEPS, most);
}

/* A chain of boxes joined by every joint type in turn, each with the
 * parts its type can have switched on (limits, motors, springs, cones), a
 * few slots freed: joint records of every length, and dead ones */
static fxs_world *mixed_joint_chain(uint32_t *types)
{
	enum { N = 160 };
	fxs_world_def d = fxs_default_world_def();
	d.enable_sleep = false;
	fxs_world *w = fxs_world_create(&d);
	fxs_body_id id[N];
	for (int i = 0; i < N; ++i) {
		fxs_body_def b = fxs_default_body_def();
		b.type = i == 0 ? FXS_BODY_STATIC : FXS_BODY_DYNAMIC;
		b.shape.type = FXS_SHAPE_BOX;
		b.shape.half_extents = fxg_v3(FXG_RATIO(1, 5), FXG_RATIO(1, 5), FXG_RATIO(1, 5));
		b.position = fxg_v3(FXG_I(i), FXG_I(i % 3), 0);
		b.angular_velocity = fxg_v3(FXG_I(i % 5 - 2), FXG_I(1), 0);
		id[i] = fxs_body_create(w, &b);
	}
	fxs_joint_def (*const defs[FXS_JOINT_TYPE_COUNT])(void) = {
		fxs_default_ball_joint_def,      fxs_default_hinge_joint_def,  fxs_default_fixed_joint_def,
		fxs_default_distance_joint_def,  fxs_default_prismatic_joint_def, fxs_default_spherical_joint_def,
		fxs_default_filter_joint_def,    fxs_default_wheel_joint_def,  fxs_default_motor_joint_def,
	};
	*types = 0;
	fxs_joint_id made[N];
	for (int i = 1; i < N; ++i) {
		fxs_joint_def j = defs[i % FXS_JOINT_TYPE_COUNT]();
		j.body_a = id[i - 1], j.body_b = id[i];
		j.local_anchor_a = fxg_v3(FXG_HALF, 0, 0), j.local_anchor_b = fxg_v3(-FXG_HALF, 0, 0);
		if (i % 2) { /* every part the type has: the longest records */
			j.enable_limit = true, j.lower = -FXG_HALF, j.upper = FXG_HALF;
			j.enable_motor = true, j.motor_speed = FXG_ONE, j.max_motor_force = FXG_I(10);
			j.enable_spring = true, j.spring_hertz = FXG_I(5), j.spring_damping_ratio = FXG_HALF;
			j.enable_cone = true, j.cone_angle = FXG_HALF;
		}
		made[i] = fxs_joint_create(w, &j);
		if (!fxs_joint_is_valid(w, made[i])) { /* a part the type cannot have: the plain joint */
			j = defs[i % FXS_JOINT_TYPE_COUNT]();
			j.body_a = id[i - 1], j.body_b = id[i];
			made[i] = fxs_joint_create(w, &j);
		}
		if (fxs_joint_is_valid(w, made[i]))
			*types |= 1u << fxs_joint_get_type(w, made[i]);
	}
	for (int i = 7; i < N; i += 11)
		fxs_joint_destroy(w, made[i]);
	return w;
}

/* The hash with workers writes the joints' records in blocks at once and
 * streams them in order (hash.c): the same bytes as the serial
 * serialisation. Checked on the chain of every joint type, cut into blocks
 * of 3 records, after every step, against XXH3 over the serial bytes and
 * against the same world's serial hash; and every step's hash against a
 * serial world's. */
TEST(threads_hash_joint_records)
{
	uint32_t types = 0;
	fxs_world *ref = mixed_joint_chain(&types), *w = mixed_joint_chain(&types);
	CHECKF(types == (1u << FXS_JOINT_TYPE_COUNT) - 1, "joint types made: %#x", types);
	CHECK(fxs_world_joint_count(w) < fxs_world_joint_slot_count(w)); /* dead slots too */
	rs_sched *rs = rs_create(3, 0x10147);
	CHECK(rs);
	CHECK(fxs_world_set_workers(w, 3, rs_enqueue, rs_finish, rs) == FXS_OK);
	w->task_fine = true;
	uint8_t *buf = malloc(1 << 20);
	CHECK(buf);
	for (int s = 0; s < 12 && !test_failed; ++s) {
		CHECK(fxs_world_step(ref) == FXS_OK && fxs_world_step(w) == FXS_OK);
		const uint64_t tasks = rs->tasks, parallel = fxs_world_rehash(w);
		CHECKF(rs->tasks > tasks, "step %d: the hash ran no task", s + 1);
		const size_t len = fxs_world_serialize_state(w, buf, 1 << 20);
		CHECK(len > 0 && len < (1 << 20));
		CHECKF(parallel == XXH3_64bits(buf, len), "step %d: the parallel hash is not XXH3 of the serial bytes", s + 1);
		CHECKF(parallel == fxs_world_hash(ref), "step %d: the hash differs from the serial world's", s + 1);
	}
	CHECK(fxs_world_set_workers(w, 1, NULL, NULL, NULL) == FXS_OK);
	CHECK(fxs_world_rehash(w) == fxs_world_hash(ref));
	free(buf);
	fxs_world_destroy(w);
	fxs_world_destroy(ref);
	rs_destroy(rs);
}

/* The impulses bounded at the step's end in blocks (state.c): the same
 * impulses and the same saturation count as one worker, on joint_grid_10
 * with its contacts and joints' impulses pushed past the bound, every few
 * in either direction */
TEST(threads_bound_impulses)
{
	const fxs_scene *sc = fxs_scene_find("joint_grid_10");
	CHECK(sc);
	fxs_world *a = sc->create(), *b = sc->create();
	rs_sched *rs = rs_create(4, 0xB0D);
	CHECK(a && b && rs);
	CHECK(fxs_world_set_workers(b, 4, rs_enqueue, rs_finish, rs) == FXS_OK);
	b->task_fine = true;
	for (int s = 0; s < 3; ++s)
		CHECK(fxs_world_step(a) == FXS_OK && fxs_world_step(b) == FXS_OK);
	CHECK(a->joint_slot_count > 50 && a->joint_slot_count == b->joint_slot_count);
	const int64_t big = FXS_STATE_IMPULSE_MAX + 5;
	for (fxs_world *w = a; w; w = w == a ? b : NULL) {
		for (uint32_t i = 0; i < w->joint_slot_count; ++i)
			if (i % 3 == 0)
				w->joints[i].impulse[i % 2] = i % 6 ? big : -big;
		for (uint32_t i = 0; i < w->contact_count; ++i)
			w->contacts[i].friction_impulse[0] = i % 2 ? big : -big;
		w->ovf = 0;
	}
	const uint64_t tasks = rs->tasks;
	fxs_state_bound_impulses(a);
	fxs_state_bound_impulses(b);
	CHECK(rs->tasks > tasks);
	CHECKF(a->ovf > 30 && a->ovf == b->ovf, "saturations: %u with one worker, %u with four", a->ovf, b->ovf);
	CHECK(memcmp(a->joints, b->joints, a->joint_slot_count * sizeof *a->joints) == 0);
	CHECK(fxs_world_rehash(a) == fxs_world_rehash(b));
	fxs_world_destroy(a);
	fxs_world_destroy(b);
	rs_destroy(rs);
}

/* the definition's thread fields, each with its reason */
TEST(threads_def_validate)
{
	fxs_world_def d = fxs_default_world_def();
	CHECK(d.worker_count == 1 && !d.enqueue_task && !d.finish_task);
	d.worker_count = 0; /* 0 means 1 */
	CHECK(fxs_world_def_invalid_field(&d) == NULL);
	d.worker_count = FXS_MAX_WORKERS;
	CHECK(fxs_world_def_invalid_field(&d) == NULL);
	d.worker_count = FXS_MAX_WORKERS + 1;
	CHECK(strcmp(fxs_world_def_invalid_field(&d), "worker_count") == 0);
	CHECK(fxs_world_create(&d) == NULL);
	d.worker_count = 4;
	d.enqueue_task = rs_enqueue;
	CHECK(strcmp(fxs_world_def_invalid_field(&d), "finish_task") == 0);
	d.enqueue_task = NULL, d.finish_task = rs_finish;
	CHECK(strcmp(fxs_world_def_invalid_field(&d), "enqueue_task") == 0);
	fxs_world *w = fxs_world_create(NULL);
	CHECK(w == NULL);
	d = fxs_default_world_def();
	w = fxs_world_create(&d);
	CHECK(fxs_world_set_workers(w, FXS_MAX_WORKERS + 1, NULL, NULL, NULL) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_world_set_workers(w, 2, rs_enqueue, NULL, NULL) == FXS_ERR_INVALID_ARGUMENT);
	CHECK(fxs_world_get_def(w).worker_count == 1);
	CHECK(fxs_world_set_workers(NULL, 2, NULL, NULL, NULL) == FXS_ERR_INVALID_ID);
	CHECK(fxs_world_set_workers(w, 0, NULL, NULL, NULL) == FXS_OK);
	CHECK(fxs_world_get_def(w).worker_count == 1 && w->task_enqueue == NULL);
	fxs_world_destroy(w);
	/* the definition's own: a world made with 3 workers has the pool */
	d.worker_count = 3;
	w = fxs_world_create(&d);
	CHECK(w && w->pool && fxs_world_get_def(w).worker_count == 3);
	fxs_world_destroy(w);
}

/* A restore keeps the world's threads (not state), and a threaded world
 * goes on from a snapshot as the serial one does. */
TEST(threads_snapshot_restore)
{
	const fxs_scene *sc = fxs_scene_find("large_pyramid_b40");
	CHECK(sc);
	fxs_world *a = sc->create(), *b = sc->create();
	CHECK(fxs_world_set_workers(b, 4, NULL, NULL, NULL) == FXS_OK);
	for (int s = 0; s < 5; ++s)
		fxs_world_step(a);
	size_t len = fxs_world_snapshot_size(a);
	void *buf = malloc(len);
	CHECK(buf && fxs_world_snapshot_save(a, buf, len, NULL) == FXS_OK);
	CHECK(fxs_world_snapshot_restore(b, buf, len) == FXS_OK);
	CHECK(fxs_world_get_def(b).worker_count == 4 && b->pool != NULL);
	for (int s = 0; s < 5; ++s) {
		fxs_world_step(a), fxs_world_step(b);
		CHECK(fxs_world_hash(a) == fxs_world_hash(b));
	}
	fxs_world *c = fxs_world_create_from_snapshot(buf, len, NULL);
	CHECK(c && fxs_world_get_def(c).worker_count == 1);
	fxs_world_destroy(c);
	free(buf);
	fxs_world_destroy(a);
	fxs_world_destroy(b);
}
#endif
