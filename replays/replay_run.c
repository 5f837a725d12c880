/* Input sources, recording, re-simulation and state comparison. */
#include "replay_run.h"

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
	fxs_replay_status s = fxs_replay_writer_open(&rw, path, o->scene->name, w, players, o->chunk_ticks, o->flags);
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
		s = fxs_replay_writer_tick(&rw, written, w);
		if (o->on_tick)
			o->on_tick(tick, o->ctx);
	}
	if (final_hash)
		*final_hash = fxs_world_hash(w);
	if (s == FXS_REPLAY_OK)
		s = fxs_replay_writer_close(&rw);
	else
		fxs_replay_writer_abandon(&rw);
	if (s != FXS_REPLAY_OK)
		snprintf(err, errlen, "%s: %s", path, rw.error[0] ? rw.error : fxs_replay_status_string(s));
	fxs_world_destroy(w);
	return s;
}

/* ---- re-simulation, from a known start ---- */

/* The canonical state bytes of w (NULL when out of memory). */
static uint8_t *state_bytes(const fxs_world *w, size_t *n)
{
	*n = fxs_world_serialize_state(w, NULL, 0);
	uint8_t *b = malloc(*n ? *n : 1);
	if (b)
		fxs_world_serialize_state(w, b, *n);
	return b;
}

/* 1 when a and b hold the same state, 0 when not (*d names where, from
 * `expected` a to `got` b), -1 when out of memory. */
static int same_state(const fxs_world *a, const fxs_world *b, fxs_state_diff *d)
{
	size_t na, nb;
	uint8_t *sa = state_bytes(a, &na), *sb = state_bytes(b, &nb);
	int same = sa && sb ? na == nb && memcmp(sa, sb, na) == 0 : -1;
	free(sa);
	free(sb);
	if (same == 0 && !fxs_world_first_difference(a, b, d)) {
		memset(d, 0, sizeof *d); /* differs where the comparison does not look: the hash says so */
		d->body = -1;
		snprintf(d->field, sizeof d->field, "state hash");
		snprintf(d->expected, sizeof d->expected, "%016" PRIx64, fxs_world_hash(a));
		snprintf(d->got, sizeof d->got, "%016" PRIx64, fxs_world_hash(b));
	}
	return same;
}

static fxs_world *bad_start(fxs_world *w, fxs_replay_status *status, fxs_replay_status s, char *err, size_t errlen,
			    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	*status = s;
	fxs_world_destroy(w);
	return NULL;
}

/* w's start against the state of e; *status etc. as fxs_replay_start_world */
static fxs_world *check_against(fxs_world *w, const fxs_world *e, const char *what, fxs_replay_status *status, char *err,
				size_t errlen)
{
	fxs_state_diff d;
	int same = same_state(e, w, &d);
	if (same < 0)
		return bad_start(w, status, FXS_REPLAY_NOMEM, err, errlen, "out of memory comparing the start");
	if (same)
		return w;
	char where[256];
	fxs_state_diff_format(&d, where, sizeof where);
	return bad_start(w, status, FXS_REPLAY_BAD_START, err, errlen, "not the expected start: %s, not %s's: %s",
			 "the replay starts from a state", what, where);
}

fxs_world *fxs_replay_start_world(const char *scene, const uint8_t *snapshot, size_t len, uint64_t start_tick,
				  const fxs_replay_expect *expect, const fxs_scene **sc, fxs_replay_status *status,
				  char *err, size_t errlen)
{
	fxs_replay_status dummy;
	if (!status)
		status = &dummy;
	const fxs_scene *found = fxs_scene_find(scene);
	if (!found)
		return bad_start(NULL, status, FXS_REPLAY_CORRUPT, err, errlen,
				 "unknown scene '%s': this build has no input handler for it", scene);
	fxs_result e;
	fxs_world *w = fxs_world_create_from_snapshot(snapshot, len, &e);
	if (!w)
		return bad_start(NULL, status, e == FXS_ERR_NOMEM ? FXS_REPLAY_NOMEM : FXS_REPLAY_CORRUPT, err, errlen,
				 "corrupt: the initial snapshot does not restore (%s)", fxs_result_string(e));
	if (fxs_world_get_step(w) != start_tick)
		return bad_start(w, status, FXS_REPLAY_CORRUPT, err, errlen,
				 "corrupt: the initial snapshot is at step %" PRIu64 ", the header says %" PRIu64,
				 fxs_world_get_step(w), start_tick);
	*sc = found;
	*status = FXS_REPLAY_OK;
	if (expect && expect->snapshot) {
		fxs_world *x = fxs_world_create_from_snapshot(expect->snapshot, expect->snapshot_len, &e);
		if (!x)
			return bad_start(w, status, e == FXS_ERR_NOMEM ? FXS_REPLAY_NOMEM : FXS_REPLAY_CORRUPT, err, errlen,
					 "the expected start's snapshot does not restore (%s)", fxs_result_string(e));
		w = check_against(w, x, "the expected start snapshot", status, err, errlen);
		fxs_world_destroy(x);
		return w;
	}
	if (expect && expect->has_hash) {
		uint64_t h = fxs_world_hash(w);
		if (h != expect->hash)
			return bad_start(w, status, FXS_REPLAY_BAD_START, err, errlen,
					 "not the expected start: the replay starts from state hash %016" PRIx64
					 ", the expected start is %016" PRIx64,
					 h, expect->hash);
		return w;
	}
	/* the built-in scene's start: its golden hash, and its state exactly */
	uint64_t golden;
	if (!fxs_scene_start_hash(found->name, &golden))
		return bad_start(w, status, FXS_REPLAY_BAD_START, err, errlen,
				 "not the expected start: scene '%s' has no golden start in this build", found->name);
	if (fxs_world_hash(w) != golden) {
		/* name where it differs from the scene's own start */
		fxs_world *x = found->create();
		fxs_state_diff d;
		char where[256] = "";
		if (x && fxs_world_first_difference(x, w, &d)) {
			fxs_state_diff_format(&d, where + 2, sizeof where - 2);
			memcpy(where, ": ", 2);
		}
		fxs_world_destroy(x);
		return bad_start(w, status, FXS_REPLAY_BAD_START, err, errlen,
				 "not the expected start: the replay starts from state hash %016" PRIx64
				 ", scene %s starts from %016" PRIx64 "%s",
				 fxs_world_hash(w), found->name, golden, where);
	}
	fxs_world *x = found->create();
	if (!x)
		return bad_start(w, status, FXS_REPLAY_NOMEM, err, errlen, "scene '%s' could not be created", found->name);
	if (fxs_world_hash(x) != golden) {
		uint64_t h = fxs_world_hash(x);
		fxs_world_destroy(x);
		return bad_start(w, status, FXS_REPLAY_BAD_START, err, errlen,
				 "this build's scene %s starts from state hash %016" PRIx64 ", not its golden start %016" PRIx64
				 ": the program is inconsistent (tools/scenes/scene_starts.c)",
				 found->name, h, golden);
	}
	char what[96];
	snprintf(what, sizeof what, "scene %s", found->name);
	w = check_against(w, x, what, status, err, errlen);
	fxs_world_destroy(x);
	return w;
}

fxs_world *fxs_replay_start(const fxs_replay *r, const fxs_replay_expect *expect, const fxs_scene **scene, char *err,
			    size_t errlen)
{
	return fxs_replay_start_world(r->scene, r->data + r->snapshot_off, r->snapshot_len, r->start_tick, expect, scene,
				      NULL, err, errlen);
}

fxs_world *fxs_replay_reader_start(const fxs_replay_reader *r, const fxs_replay_expect *expect, const fxs_scene **sc,
				   fxs_replay_status *status, char *err, size_t errlen)
{
	return fxs_replay_start_world(r->scene, fxs_replay_reader_snapshot(r), r->snapshot_len, r->start_tick, expect, sc,
				      status, err, errlen);
}

fxs_result fxs_replay_step(const fxs_replay *r, const fxs_scene *scene, fxs_world *w, uint64_t i)
{
	fxs_input in[FXS_MAX_PLAYERS];
	fxs_replay_tick_inputs(r, i, in);
	scene->apply_inputs(w, in, r->players, fxs_replay_tick_number(r, i));
	return fxs_world_step(w);
}

fxs_result fxs_replay_step_tick(const fxs_scene *scene, fxs_world *w, const fxs_replay_tick *t, uint32_t players)
{
	scene->apply_inputs(w, t->inputs, players, t->number);
	return fxs_world_step(w);
}

/* ---- comparing states ---- */

static void fix_text(fix16_t v, char *buf, size_t n)
{
	char s[16];
	fix16_to_str(v, s, 5);
	snprintf(buf, n, "%s [0x%08" PRIx32 "]", s, (uint32_t)v);
}

static bool diff_fix(fxs_state_diff *d, int64_t body, const char *field, fix16_t e, fix16_t g)
{
	if (e == g)
		return false;
	d->differ = true;
	d->body = body;
	snprintf(d->field, sizeof d->field, "%s", field);
	fix_text(e, d->expected, sizeof d->expected);
	fix_text(g, d->got, sizeof d->got);
	return true;
}

static bool diff_u64(fxs_state_diff *d, int64_t body, const char *field, uint64_t e, uint64_t g, bool hex)
{
	if (e == g)
		return false;
	d->differ = true;
	d->body = body;
	snprintf(d->field, sizeof d->field, "%s", field);
	snprintf(d->expected, sizeof d->expected, hex ? "%016" PRIx64 : "%" PRIu64, e);
	snprintf(d->got, sizeof d->got, hex ? "%016" PRIx64 : "%" PRIu64, g);
	return true;
}

static bool diff_v3(fxs_state_diff *d, int64_t body, const char *name, fxg_vec3 e, fxg_vec3 g)
{
	char f[16];
	snprintf(f, sizeof f, "%s.x", name);
	if (diff_fix(d, body, f, e.x, g.x))
		return true;
	snprintf(f, sizeof f, "%s.y", name);
	if (diff_fix(d, body, f, e.y, g.y))
		return true;
	snprintf(f, sizeof f, "%s.z", name);
	return diff_fix(d, body, f, e.z, g.z);
}

bool fxs_world_first_difference(const fxs_world *e, const fxs_world *g, fxs_state_diff *d)
{
	memset(d, 0, sizeof *d);
	d->body = -1;
	if (diff_u64(d, -1, "slot count", fxs_world_slot_count(e), fxs_world_slot_count(g), false))
		return true;
	uint32_t slots = fxs_world_slot_count(e);
	for (uint32_t i = 0; i < slots; ++i) {
		fxs_body_id a = fxs_world_body_at(e, i), b = fxs_world_body_at(g, i);
		bool va = fxs_body_is_valid(e, a), vb = fxs_body_is_valid(g, b);
		if (diff_u64(d, i, "alive", va, vb, false))
			return true;
		if (diff_u64(d, i, "generation", a.generation, b.generation, false))
			return true;
		if (!va)
			continue;
		if (diff_u64(d, i, "type", (uint64_t)fxs_body_get_type(e, a), (uint64_t)fxs_body_get_type(g, b), false))
			return true;
		fxs_shape sa = fxs_body_get_shape(e, a), sb = fxs_body_get_shape(g, b);
		if (diff_u64(d, i, "shape.type", (uint64_t)(uint32_t)sa.type, (uint64_t)(uint32_t)sb.type, false) ||
		    diff_fix(d, i, "shape.radius", sa.radius, sb.radius) ||
		    diff_fix(d, i, "shape.half_height", sa.half_height, sb.half_height) ||
		    diff_v3(d, i, "shape.half_extents", sa.half_extents, sb.half_extents))
			return true;
		if (diff_v3(d, i, "p", fxs_body_get_position(e, a), fxs_body_get_position(g, b)))
			return true;
		fxg_quat qa = fxs_body_get_rotation(e, a), qb = fxs_body_get_rotation(g, b);
		if (diff_fix(d, i, "q.x", qa.x, qb.x) || diff_fix(d, i, "q.y", qa.y, qb.y) ||
		    diff_fix(d, i, "q.z", qa.z, qb.z) || diff_fix(d, i, "q.w", qa.w, qb.w))
			return true;
		if (diff_v3(d, i, "v", fxs_body_get_linear_velocity(e, a), fxs_body_get_linear_velocity(g, b)) ||
		    diff_v3(d, i, "w", fxs_body_get_angular_velocity(e, a), fxs_body_get_angular_velocity(g, b)))
			return true;
		if (diff_u64(d, i, "user_data", fxs_body_get_user_data(e, a), fxs_body_get_user_data(g, b), false))
			return true;
		/* forces, torques, material: not in the public getters, in the body hash */
		if (diff_u64(d, i, "other (body hash)", fxs_body_hash(e, a), fxs_body_hash(g, b), true))
			return true;
	}
	if (diff_u64(d, -1, "step", fxs_world_get_step(e), fxs_world_get_step(g), false))
		return true;
	fxs_step_stats se = fxs_world_get_stats(e), sg = fxs_world_get_stats(g);
	if (diff_u64(d, -1, "overflows_total", se.overflows_total, sg.overflows_total, false))
		return true;
	return diff_u64(d, -1, "contacts or broadphase (state hash)", fxs_world_hash(e), fxs_world_hash(g), true);
}

void fxs_state_diff_format(const fxs_state_diff *d, char *buf, size_t n)
{
	if (d->body >= 0)
		snprintf(buf, n, "body %" PRId64 " field %s (expected %s, got %s)", d->body, d->field, d->expected, d->got);
	else
		snprintf(buf, n, "%s (expected %s, got %s)", d->field, d->expected, d->got);
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
