/* Input sources, recording, re-simulation and state comparison. */
#include "replay_run.h"
#include "fixstep/character.h"
#include "fixstep/joint.h"

#include <errno.h>
#include <inttypes.h>
#include <libfixmath/fix16.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- input sources ---- */

static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static uint64_t key(uint64_t seed, uint64_t a, uint64_t b)
{
	return mix(mix(mix(seed + 0x9E3779B97F4A7C15ull) ^ (a + 0x632BE59BD9B4E019ull)) ^ (b * 0x9E3779B97F4A7C15ull));
}

static int16_t i16_of(uint64_t v) { return (int16_t)((int32_t)(v & 0xffff) - 32768); }

void fxs_inputs_random(uint64_t seed, uint64_t tick, uint32_t players, fxs_input out[FXS_MAX_PLAYERS])
{
	for (uint32_t p = 0; p < FXS_MAX_PLAYERS; ++p) {
		fxs_input in = fxs_input_neutral();
		if (p < players) {
			uint64_t hold = key(seed, p, tick / 32);
			if ((hold & 3) != 0) { /* a quarter of the stretches leave the stick centred */
				in.move_x = i16_of(hold >> 8);
				in.move_z = i16_of(hold >> 24);
			}
			in.yaw = (uint16_t)((hold >> 40) + tick * 97u);
			in.pitch = i16_of(hold >> 48);
			uint64_t now = key(seed ^ 0xA5A5A5A5ull, p, tick);
			if (now % 61 == 0)
				in.buttons |= FXS_BUTTON_JUMP;
			if (now % 7 == 0)
				in.buttons |= FXS_BUTTON_FIRE;
		}
		out[p] = in;
	}
}

void fxs_input_perturb(fxs_input *in)
{
	in->move_x = (int16_t)(in->move_x >= 0 ? in->move_x - 16384 : in->move_x + 16384);
}

static bool script_push(fxs_input_script *s, const fxs_input_script_entry *e)
{
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		fxs_input_script_entry *n = realloc(s->entries, cap * sizeof *n);
		if (!n)
			return false;
		s->entries = n;
		s->cap = cap;
	}
	s->entries[s->count++] = *e;
	return true;
}

/* one integer token in [lo, hi]: decimal, or 0x hex */
static bool parse_int(const char **p, const char *end, int64_t lo, int64_t hi, int64_t *out)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t'))
		++s;
	bool neg = false;
	if (s < end && (*s == '-' || *s == '+'))
		neg = *s++ == '-';
	int base = 10;
	if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	int64_t v = 0;
	int digits = 0;
	while (s < end) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v > (INT64_MAX - d) / base)
			return false;
		v = v * base + d;
		++digits;
		++s;
	}
	if (!digits || (s < end && *s != ' ' && *s != '\t'))
		return false;
	if (neg)
		v = -v;
	if (v < lo || v > hi)
		return false;
	*out = v;
	*p = s;
	return true;
}

bool fxs_input_script_parse(fxs_input_script *s, const char *text, size_t len, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	const char *p = text, *end = text + len;
	uint64_t line = 0, last_tick = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		++line;
		const char *q = p, *le = eol;
		const char *hash = memchr(q, '#', (size_t)(le - q));
		if (hash)
			le = hash;
		while (le > q && (le[-1] == ' ' || le[-1] == '\t' || le[-1] == '\r'))
			--le;
		while (q < le && (*q == ' ' || *q == '\t'))
			++q;
		p = eol + (eol < end);
		if (q == le)
			continue;
		if (le - q > 8 && memcmp(q, "players ", 8) == 0) {
			int64_t n;
			q += 8;
			if (s->count || s->players || !parse_int(&q, le, 1, FXS_MAX_PLAYERS, &n) || q != le) {
				snprintf(err, errlen, "line %" PRIu64 ": 'players N' (1..%d) must come once, before any input", line,
					 FXS_MAX_PLAYERS);
				goto bad;
			}
			s->players = (uint32_t)n;
			continue;
		}
		int64_t v[7];
		static const int64_t lo[7] = { 0, 0, -32768, -32768, 0, -32768, 0 };
		static const int64_t hi[7] = { INT64_MAX / 2, FXS_MAX_PLAYERS - 1, 32767, 32767, 65535, 32767, UINT32_MAX };
		static const char *names[7] = { "tick", "player", "move_x", "move_z", "yaw", "pitch", "buttons" };
		for (int k = 0; k < 7; ++k) {
			if (!parse_int(&q, le, lo[k], hi[k], &v[k])) {
				snprintf(err, errlen, "line %" PRIu64 ": bad or missing %s (want TICK PLAYER MOVE_X MOVE_Z YAW PITCH BUTTONS)",
					 line, names[k]);
				goto bad;
			}
		}
		if (q != le) {
			snprintf(err, errlen, "line %" PRIu64 ": extra text after BUTTONS", line);
			goto bad;
		}
		if ((uint64_t)v[0] < last_tick) {
			snprintf(err, errlen, "line %" PRIu64 ": tick %" PRId64 " comes after tick %" PRIu64 " (ticks must not decrease)",
				 line, v[0], last_tick);
			goto bad;
		}
		if (s->players && (uint32_t)v[1] >= s->players) {
			snprintf(err, errlen, "line %" PRIu64 ": player %" PRId64 " but 'players %u'", line, v[1], s->players);
			goto bad;
		}
		last_tick = (uint64_t)v[0];
		fxs_input_script_entry e;
		e.tick = (uint64_t)v[0];
		e.player = (uint32_t)v[1];
		e.input.move_x = (int16_t)v[2];
		e.input.move_z = (int16_t)v[3];
		e.input.yaw = (uint16_t)v[4];
		e.input.pitch = (int16_t)v[5];
		e.input.buttons = (uint32_t)v[6];
		if (!script_push(s, &e)) {
			snprintf(err, errlen, "out of memory");
			goto bad;
		}
	}
	return true;
bad:
	fxs_input_script_free(s);
	return false;
}

bool fxs_input_script_load(fxs_input_script *s, const char *path, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	errno = 0;
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return false;
	}
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf) {
		if (n == cap) {
			char *nb = cap < ((size_t)1 << 28) ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (!got)
			break;
	}
	int read_errno = ferror(f) ? errno : 0;
	fclose(f);
	if (!buf) {
		snprintf(err, errlen, "%s: too large or out of memory", path);
		return false;
	}
	if (read_errno) {
		free(buf);
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(read_errno));
		return false;
	}
	bool ok = fxs_input_script_parse(s, buf, n, err, errlen);
	free(buf);
	return ok;
}

void fxs_input_script_free(fxs_input_script *s)
{
	free(s->entries);
	memset(s, 0, sizeof *s);
}

void fxs_input_script_at(const fxs_input_script *s, size_t *cursor, uint64_t tick, fxs_input cur[FXS_MAX_PLAYERS])
{
	while (*cursor < s->count && s->entries[*cursor].tick <= tick) {
		const fxs_input_script_entry *e = &s->entries[*cursor];
		cur[e->player] = e->input;
		++*cursor;
	}
}

/* ---- recording ---- */

/* The end of a recording: the final hash, the file closed (or abandoned
 * after a failure, whose reason goes to err), the world destroyed. */
static fxs_replay_status record_finish(fxs_replay_writer *rw, fxs_replay_status s, fxs_world *w, const char *path,
				       uint64_t *final_hash, char *err, size_t errlen)
{
	if (final_hash)
		*final_hash = fxs_world_hash(w);
	if (s == FXS_REPLAY_OK)
		s = fxs_replay_writer_close(rw);
	else
		fxs_replay_writer_abandon(rw);
	if (s != FXS_REPLAY_OK)
		snprintf(err, errlen, "%s: %s", path, rw->error[0] ? rw->error : fxs_replay_status_string(s));
	fxs_world_destroy(w);
	return s;
}

fxs_replay_status fxs_replay_record(const char *path, const fxs_record_options *o, uint64_t *final_hash, char *err,
				    size_t errlen)
{
	uint32_t players = o->players ? o->players : o->scene->players;
	if (o->script && o->script->players)
		players = o->script->players;
	if (players < 1 || players > FXS_MAX_PLAYERS) {
		snprintf(err, errlen, "bad player count %u", players);
		return FXS_REPLAY_CORRUPT;
	}
	fxs_world *w = o->scene->create();
	if (!w) {
		snprintf(err, errlen, "scene '%s' could not be created", o->scene->name);
		return FXS_REPLAY_NOMEM;
	}
	fxs_replay_writer rw;
	fxs_replay_status s =
		fxs_replay_writer_open(&rw, path, o->scene->name, w, players, FXS_INPUT_SIZE, o->chunk_ticks, o->flags);
	fxs_input held[FXS_MAX_PLAYERS];
	for (uint32_t p = 0; p < FXS_MAX_PLAYERS; ++p)
		held[p] = fxs_input_neutral();
	size_t cursor = 0;
	for (uint32_t i = 0; s == FXS_REPLAY_OK && i < o->steps; ++i) {
		uint64_t tick = fxs_world_get_step(w) + 1;
		fxs_input in[FXS_MAX_PLAYERS], written[FXS_MAX_PLAYERS];
		if (o->script) {
			fxs_input_script_at(o->script, &cursor, tick, held);
			memcpy(in, held, sizeof in);
		} else if (o->scripted && o->scene->script) {
			o->scene->script(w, tick, players, in);
		} else {
			fxs_inputs_random(o->seed, tick, players, in);
		}
		memcpy(written, in, sizeof in);
		if (o->perturb_tick == tick && o->perturb_player < players) {
			fxs_input_perturb(&written[o->perturb_player]);
			if (!o->tamper)
				in[o->perturb_player] = written[o->perturb_player];
		}
		o->scene->apply_inputs(w, in, players, tick);
		if (fxs_world_step(w) != FXS_OK) {
			s = FXS_REPLAY_NOMEM;
			snprintf(rw.error, sizeof rw.error, "out of memory at step %" PRIu64 " (not recorded)", tick);
			break;
		}
		s = fxs_replay_writer_tick_inputs(&rw, written, w);
		if (o->on_tick)
			o->on_tick(tick, o->ctx);
	}
	s = record_finish(&rw, s, w, path, final_hash, err, errlen);
	return s;
}

/* ---- the API-call demo ---- */

static void demo_add(fxs_calls_demo *d, fxs_body_id id)
{
	if (d->count < FXS_CALLS_DEMO_BODIES)
		d->bodies[d->count++] = id;
}

static fxs_body_def demo_body(fxs_shape_type type, int32_t x, int32_t y, int32_t z)
{
	fxs_body_def b = fxs_default_body_def();
	b.position = fxg_v3(FXG_I(x), FXG_I(y), FXG_I(z));
	b.shape.type = type;
	b.shape.radius = FXG_RATIO(1, 2);
	b.shape.half_extents = fxg_v3(FXG_RATIO(1, 2), FXG_RATIO(1, 2), FXG_RATIO(1, 2));
	return b;
}

void fxs_calls_demo_tick(fxs_world *w, fxs_calls_demo *d, uint64_t tick)
{
	if (tick == 1) {
		fxs_body_def g = fxs_default_body_def();
		g.type = FXS_BODY_STATIC;
		g.shape.type = FXS_SHAPE_BOX;
		g.shape.half_extents = fxg_v3(FXG_I(20), FXG_I(1), FXG_I(20));
		g.position = fxg_v3(0, FXG_I(-1), 0);
		demo_add(d, fxs_body_create(w, &g));
		fxs_body_def bad = { 0 }; /* radius 0: refused, recorded all the same, refused again on replay */
		fxs_body_create(w, &bad);
		for (int32_t i = 0; i < 6; ++i) {
			fxs_body_def b = demo_body(i % 2 ? FXS_SHAPE_SPHERE : FXS_SHAPE_BOX, i - 3, 1 + i, 0);
			demo_add(d, fxs_body_create(w, &b));
		}
		fxs_body_set_friction(w, d->bodies[1], FXG_RATIO(1, 5));
		fxs_body_set_user_data(w, d->bodies[2], 42);
		return;
	}
	if (tick == 10) {
		const fxg_vec3 pts[6] = { { FXG_I(1), 0, 0 }, { FXG_I(-1), 0, 0 }, { 0, FXG_I(1), 0 }, { 0, FXG_I(-1), 0 }, { 0, 0, FXG_I(1) }, { 0, 0, FXG_I(-1) } };
		fxg_vec3 com;
		fxs_hull_id h = fxs_world_create_hull(w, pts, 6, &com);
		fxs_body_def b = demo_body(FXS_SHAPE_HULL, 4, 3, 2);
		b.shape = fxs_hull_shape(w, h);
		demo_add(d, fxs_body_create(w, &b));
	}
	if (tick % 20 == 5 && d->count > 1) {
		fxs_body_id id = d->bodies[1 + tick / 20 % (d->count - 1)];
		fxs_body_apply_linear_impulse(w, id, fxg_v3(FXG_I(2), FXG_I(5), FXG_I(-1)), fxs_body_get_position(w, id));
	}
	if (tick % 7 == 0 && d->count > 2)
		fxs_body_apply_force_to_center(w, d->bodies[2], fxg_v3(FXG_I(30), 0, 0));
	if (tick == 30 && d->count > 4) {
		fxs_joint_def j = fxs_default_ball_joint_def();
		j.body_a = d->bodies[3], j.body_b = d->bodies[4];
		j.local_anchor_a = fxg_v3(FXG_RATIO(1, 2), 0, 0);
		j.local_anchor_b = fxg_v3(FXG_RATIO(-1, 2), 0, 0);
		fxs_joint_create(w, &j);
		fxs_body_set_damping(w, d->bodies[3], FXG_RATIO(1, 10), FXG_RATIO(1, 10));
	}
	if (tick == 40 && d->count > 5) {
		fxs_body_destroy(w, d->bodies[5]);
		fxs_body_def b = demo_body(FXS_SHAPE_CAPSULE, 0, 6, -3);
		b.shape.half_height = FXG_RATIO(1, 2);
		d->bodies[5] = fxs_body_create(w, &b);
		fxs_body_set_angular_velocity(w, d->bodies[5], fxg_v3(0, FXG_I(3), 0));
	}
	if (tick == 50) {
		fxs_character_def c = fxs_default_character_def();
		c.position = fxg_v3(FXG_I(-6), FXG_I(1), FXG_I(-6));
		d->character = fxs_character_create(w, &c);
	}
	if (tick > 50 && d->character)
		fxs_character_set_move(w, d->character, fxg_v3(FXG_I(2), 0, FXG_I(1)), tick % 40 == 0);
	if (tick == 60 && !d->saved) {
		size_t n = fxs_world_snapshot_size(w);
		d->saved = malloc(n ? n : 1);
		if (d->saved && fxs_world_snapshot_save(w, d->saved, n, &d->saved_len) != FXS_OK)
			d->saved_len = 0;
	}
	if (tick == 61 && d->saved)
		fxs_world_snapshot_restore(w, d->saved, d->saved_len); /* back to before tick 60 */
	if (tick == 70)
		fxs_world_set_gravity(w, fxg_v3(FXG_RATIO(1, 2), FXG_I(-9), 0));
	if (tick == 80 && d->count > 6) {
		fxs_body_set_type(w, d->bodies[6], FXS_BODY_KINEMATIC);
		fxs_body_set_linear_velocity(w, d->bodies[6], fxg_v3(0, FXG_I(1), 0));
	}
}

void fxs_calls_demo_free(fxs_calls_demo *d)
{
	free(d->saved);
	d->saved = NULL;
}

fxs_replay_status fxs_calls_demo_record(const char *path, uint32_t steps, uint32_t chunk_ticks, uint32_t flags,
					uint64_t *final_hash, char *err, size_t errlen)
{
	fxs_world_def def = fxs_default_world_def();
	fxs_world *w = fxs_world_create(&def);
	if (!w) {
		snprintf(err, errlen, "out of memory creating the world");
		return FXS_REPLAY_NOMEM;
	}
	fxs_calls_demo d;
	memset(&d, 0, sizeof d);
	fxs_replay_writer rw;
	fxs_replay_status s = fxs_replay_writer_open_calls(&rw, path, "calls_demo", w, chunk_ticks, flags);
	for (uint32_t i = 0; s == FXS_REPLAY_OK && i < steps; ++i) {
		fxs_calls_demo_tick(w, &d, i + 1);
		if (fxs_world_step(w) != FXS_OK) {
			s = FXS_REPLAY_NOMEM;
			snprintf(rw.error, sizeof rw.error, "out of memory at step %u (not recorded)", i + 1);
			break;
		}
		s = fxs_replay_writer_tick(&rw, NULL, w);
	}
	s = record_finish(&rw, s, w, path, final_hash, err, errlen);
	fxs_calls_demo_free(&d);
	return s;
}

/* ---- re-simulation, from a known start ---- */

/* The start snapshot of a scene (its own world): NULL when out of memory. */
static uint8_t *scene_snapshot(const fxs_scene *sc, size_t *len)
{
	fxs_world *x = sc->create();
	uint8_t *b = NULL;
	*len = x ? fxs_world_snapshot_size(x) : 0;
	if (x && (b = malloc(*len ? *len : 1)) != NULL && fxs_world_snapshot_save(x, b, *len, len) != FXS_OK) {
		free(b);
		b = NULL;
	}
	fxs_world_destroy(x);
	return b;
}

static fxs_world *refuse(fxs_replay_status *status, fxs_replay_status s, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	*status = s;
	return NULL;
}

fxs_world *fxs_replay_start_world(const char *scene, const uint8_t *snapshot, size_t len, uint64_t start_tick,
				  uint32_t mode, const fxs_replay_expect *expect, const fxs_scene **sc,
				  fxs_replay_status *status, char *err, size_t errlen)
{
	fxs_replay_status dummy;
	if (!status)
		status = &dummy;
	*sc = NULL;
	bool given = expect && (expect->snapshot || expect->has_hash);
	if (mode == FXS_REPLAY_MODE_CALLS) /* no input handler: the library's start (given, or an empty world) */
		return fxs_replay_start_checked(snapshot, len, start_tick, mode, expect, status, err, errlen);
	const fxs_scene *found = fxs_scene_find(scene);
	if (!found)
		return refuse(status, FXS_REPLAY_CORRUPT, err, errlen,
			      "unknown scene '%s': this build has no input handler for it", scene);
	*sc = found;
	if (given)
		return fxs_replay_start_checked(snapshot, len, start_tick, mode, expect, status, err, errlen);
	/* the built-in scene's start: its golden hash, and its state exactly */
	uint64_t golden;
	if (!fxs_scene_start_hash(found->name, &golden))
		return refuse(status, FXS_REPLAY_BAD_START, err, errlen,
			      "not the expected start: scene '%s' has no golden start in this build", found->name);
	fxs_replay_expect by_hash = { .has_hash = true, .hash = golden };
	fxs_world *w = fxs_replay_start_checked(snapshot, len, start_tick, mode, &by_hash, status, err, errlen);
	if (!w) {
		if (*status != FXS_REPLAY_BAD_START)
			return NULL;
		/* name where it differs from the scene's own start */
		fxs_result e;
		fxs_world *x = found->create(), *got = fxs_world_create_from_snapshot(snapshot, len, &e);
		fxs_state_diff d;
		char where[256] = "";
		if (x && got && fxs_world_first_difference(x, got, &d)) {
			fxs_state_diff_format(&d, where + 2, sizeof where - 2);
			memcpy(where, ": ", 2);
		}
		uint64_t h = got ? fxs_world_hash(got) : 0;
		fxs_world_destroy(x);
		fxs_world_destroy(got);
		return refuse(status, FXS_REPLAY_BAD_START, err, errlen,
			      "not the expected start: the replay starts from state hash %016" PRIx64
			      ", scene %s starts from %016" PRIx64 "%s",
			      h, found->name, golden, where);
	}
	fxs_world_destroy(w);
	size_t slen;
	uint8_t *own = scene_snapshot(found, &slen);
	if (!own)
		return refuse(status, FXS_REPLAY_NOMEM, err, errlen, "scene '%s' could not be created", found->name);
	fxs_world *x = fxs_world_create_from_snapshot(own, slen, NULL);
	uint64_t h = x ? fxs_world_hash(x) : 0;
	fxs_world_destroy(x);
	if (h != golden) {
		free(own);
		return refuse(status, FXS_REPLAY_BAD_START, err, errlen,
			      "this build's scene %s starts from state hash %016" PRIx64 ", not its golden start %016" PRIx64
			      ": the program is inconsistent (tools/scenes/scene_starts.c)",
			      found->name, h, golden);
	}
	fxs_replay_expect exact = { .snapshot = own, .snapshot_len = slen };
	w = fxs_replay_start_checked(snapshot, len, start_tick, mode, &exact, status, err, errlen);
	free(own);
	return w;
}

fxs_world *fxs_replay_start(const fxs_replay *r, const fxs_replay_expect *expect, const fxs_scene **scene, char *err,
			    size_t errlen)
{
	if (r->mode == FXS_REPLAY_MODE_INPUTS && (r->input_size != FXS_INPUT_SIZE || r->players > FXS_MAX_PLAYERS)) {
		*scene = NULL;
		snprintf(err, errlen, "a game's replay (%u players of %u-byte inputs): this program has no input handler",
			 r->players, r->input_size);
		return NULL;
	}
	return fxs_replay_start_world(r->scene, r->data + r->snapshot_off, r->snapshot_len, r->start_tick, r->mode, expect,
				      scene, NULL, err, errlen);
}

fxs_world *fxs_replay_reader_start(const fxs_replay_reader *r, const fxs_replay_expect *expect, const fxs_scene **sc,
				   fxs_replay_status *status, char *err, size_t errlen)
{
	fxs_replay_status dummy;
	if (r->mode == FXS_REPLAY_MODE_INPUTS && (r->input_size != FXS_INPUT_SIZE || r->players > FXS_MAX_PLAYERS)) {
		*sc = NULL;
		return refuse(status ? status : &dummy, FXS_REPLAY_NO_HANDLER, err, errlen,
			      "no input handler: a game's replay (%u players of %u-byte inputs), and this program has "
			      "none for them (the game verifies it with its own, fxs_replay_verify)",
			      r->players, r->input_size);
	}
	return fxs_replay_start_world(r->scene, fxs_replay_reader_snapshot(r), r->snapshot_len, r->start_tick, r->mode,
				      expect, sc, status, err, errlen);
}

fxs_result fxs_scene_apply_replay_inputs(fxs_world *w, uint64_t tick, const uint8_t *inputs, uint32_t players,
					 void *ctx)
{
	const fxs_scene *sc = ctx;
	fxs_input in[FXS_MAX_PLAYERS];
	if (players > FXS_MAX_PLAYERS)
		players = FXS_MAX_PLAYERS;
	for (uint32_t p = 0; p < FXS_MAX_PLAYERS; ++p)
		in[p] = p < players ? fxs_input_read(inputs + (size_t)p * FXS_INPUT_SIZE) : fxs_input_neutral();
	sc->apply_inputs(w, in, players, tick);
	return FXS_OK;
}

fxs_result fxs_replay_step_tick(const fxs_scene *scene, fxs_world *w, const fxs_replay_tick *t, uint32_t players)
{
	if (t->mode == FXS_REPLAY_MODE_CALLS || !scene)
		return fxs_replay_tick_apply(w, t, NULL, NULL);
	scene->apply_inputs(w, t->inputs, players < FXS_MAX_PLAYERS ? players : FXS_MAX_PLAYERS, t->number);
	return fxs_world_step(w);
}

fxs_result fxs_replay_step(const fxs_replay *r, const fxs_scene *scene, fxs_world *w, uint64_t i)
{
	fxs_replay_tick t;
	if (!fxs_replay_get_tick(r, i, &t))
		return FXS_ERR_INVALID_ARGUMENT;
	return fxs_replay_step_tick(scene, w, &t, r->players);
}

void fxs_world_log_bits(FILE *f, const fxs_world *w, uint64_t step)
{
	uint32_t slots = fxs_world_slot_count(w);
	for (uint32_t i = 0; i < slots; ++i) {
		fxs_body_id id = fxs_world_body_at(w, i);
		if (!fxs_body_is_valid(w, id)) {
			fprintf(f, "%" PRIu64 " %u dead\n", step, i);
			continue;
		}
		fxg_vec3 p = fxs_body_get_position(w, id), v = fxs_body_get_linear_velocity(w, id);
		fxg_vec3 av = fxs_body_get_angular_velocity(w, id);
		fxg_quat q = fxs_body_get_rotation(w, id);
#define X(v) ((uint32_t)(v))
		fprintf(f,
			"%" PRIu64 " %u g %u p %08x %08x %08x q %08x %08x %08x %08x v %08x %08x %08x w %08x %08x %08x h %016" PRIx64
			"\n",
			step, i, id.generation, X(p.x), X(p.y), X(p.z), X(q.x), X(q.y), X(q.z), X(q.w), X(v.x), X(v.y), X(v.z),
			X(av.x), X(av.y), X(av.z), fxs_body_hash(w, id));
#undef X
	}
	fprintf(f, "%" PRIu64 " hash %016" PRIx64 "\n", step, fxs_world_hash(w));
}
