/* Re-simulating replays in the library: the start checked against what
 * the verifier trusts, one tick (inputs through the game's callback, or the
 * recorded calls), the whole verification, and the first difference
 * between two worlds. */
#include "fixstep/replay.h"
#include "fixstep/character.h"
#include "fixstep/joint.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

static bool empty_world(const fxs_world *w)
{
	return fxs_world_body_count(w) == 0 && fxs_world_mesh_count(w) == 0 && fxs_world_hull_count(w) == 0 &&
		fxs_world_compound_count(w) == 0 && fxs_world_joint_count(w) == 0 && fxs_world_character_count(w) == 0 &&
		fxs_world_get_step(w) == 0;
}

fxs_world *fxs_replay_start_checked(const uint8_t *snapshot, size_t len, uint64_t start_tick, uint32_t mode,
				    const fxs_replay_expect *expect, fxs_replay_status *status, char *err, size_t errlen)
{
	fxs_replay_status dummy;
	if (!status)
		status = &dummy;
	if (!err)
		errlen = 0;
	fxs_result e;
	fxs_world *w = snapshot ? fxs_world_create_from_snapshot(snapshot, len, &e) : NULL;
	if (!w)
		return bad_start(NULL, status, snapshot && e == FXS_ERR_NOMEM ? FXS_REPLAY_NOMEM : FXS_REPLAY_CORRUPT, err,
				 errlen, "corrupt: the initial snapshot does not restore (%s)",
				 snapshot ? fxs_result_string(e) : "none");
	if (fxs_world_get_step(w) != start_tick)
		return bad_start(w, status, FXS_REPLAY_CORRUPT, err, errlen,
				 "corrupt: the initial snapshot is at step %" PRIu64 ", the header says %" PRIu64,
				 fxs_world_get_step(w), start_tick);
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
	if (mode != FXS_REPLAY_MODE_CALLS)
		return bad_start(w, status, FXS_REPLAY_BAD_START, err, errlen,
				 "not the expected start: an inputs replay proves a run only from a start the verifier "
				 "gives (a snapshot or a state hash)");
	/* a calls replay from an empty world: exactly a new world of its definition */
	fxs_world_def def = fxs_world_get_def(w);
	fxs_world *x = empty_world(w) ? fxs_world_create(&def) : NULL;
	if (!x && empty_world(w))
		return bad_start(w, status, FXS_REPLAY_NOMEM, err, errlen, "out of memory creating the empty start");
	if (!x)
		return bad_start(w, status, FXS_REPLAY_BAD_START, err, errlen,
				 "not the expected start: a calls replay whose start is not an empty world (%u bodies, "
				 "step %" PRIu64 ") needs the start it must have (a snapshot or a state hash)",
				 fxs_world_body_count(w), fxs_world_get_step(w));
	w = check_against(w, x, "an empty world", status, err, errlen);
	fxs_world_destroy(x);
	return w;
}

/* ---- what the verifier accepts ---- */

static fxs_replay_status refuse(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return FXS_REPLAY_REFUSED;
}

static const char *mode_name(uint32_t mode)
{
	return mode == FXS_REPLAY_MODE_INPUTS ? "inputs" : mode == FXS_REPLAY_MODE_CALLS ? "API calls" : "unknown";
}

fxs_replay_status fxs_replay_accepts(uint32_t mode, uint32_t input_size, uint32_t players,
				     const fxs_replay_expect *expect, char *err, size_t errlen)
{
	static const fxs_replay_expect none;
	const fxs_replay_expect *e = expect ? expect : &none;
	uint32_t modes = e->modes ? e->modes : FXS_REPLAY_ACCEPT_INPUTS;
	if (mode == FXS_REPLAY_MODE_CALLS && !(modes & FXS_REPLAY_ACCEPT_CALLS))
		return refuse(err, errlen,
			      "not accepted: a replay of API calls, and this verifier accepts %s only (a calls replay "
			      "can make any call, a snapshot restore among them: it verifies only where the verifier "
			      "asks for calls and lists the ones it allows)",
			      mode_name(FXS_REPLAY_MODE_INPUTS));
	if (mode == FXS_REPLAY_MODE_INPUTS && !(modes & FXS_REPLAY_ACCEPT_INPUTS))
		return refuse(err, errlen, "not accepted: a replay of inputs, and this verifier accepts %s only",
			      mode_name(FXS_REPLAY_MODE_CALLS));
	if (mode != FXS_REPLAY_MODE_INPUTS && mode != FXS_REPLAY_MODE_CALLS)
		return refuse(err, errlen, "not accepted: unknown mode %u", mode);
	if (mode == FXS_REPLAY_MODE_INPUTS) {
		uint32_t size = e->input_size ? e->input_size : FXS_INPUT_SIZE;
		if (input_size != size)
			return refuse(err, errlen,
				      "not accepted: input size %u bytes per player, and this verifier's game has %u",
				      input_size, size);
		if (e->players && players != e->players)
			return refuse(err, errlen, "not accepted: %u players, and this verifier's game has %u", players,
				      e->players);
		if (players < 1 || players > FXS_REPLAY_MAX_PLAYERS)
			return refuse(err, errlen, "not accepted: %u players", players);
	}
	if (err && errlen)
		err[0] = 0;
	return FXS_REPLAY_OK;
}

static bool call_allowed(const fxs_replay_expect *e, const char *name)
{
	for (uint32_t i = 0; name && e->allowed_calls && i < e->allowed_call_count; ++i) {
		const char *a = e->allowed_calls[i];
		if (a && (strcmp(a, "*") == 0 || strcmp(a, name) == 0))
			return true;
	}
	return false;
}

fxs_replay_status fxs_replay_tick_allowed(const fxs_replay_tick *t, const fxs_replay_expect *expect, char *err,
					  size_t errlen)
{
	if (!t) {
		if (err && errlen)
			snprintf(err, errlen, "no tick");
		return FXS_REPLAY_IO;
	}
	if (t->mode != FXS_REPLAY_MODE_CALLS)
		return FXS_REPLAY_OK;
	static const fxs_replay_expect none;
	const fxs_replay_expect *e = expect ? expect : &none;
	if (!((e->modes ? e->modes : FXS_REPLAY_ACCEPT_INPUTS) & FXS_REPLAY_ACCEPT_CALLS))
		return refuse(err, errlen, "tick %" PRIu64 ": not accepted: API calls, and this verifier accepts inputs only",
			      t->number);
	uint32_t op;
	for (uint32_t k = 0; fxs_replay_tick_call(t, k, &op, NULL); ++k) {
		const char *name = fxs_replay_call_name(op);
		if (!call_allowed(e, name))
			return refuse(err, errlen, "tick %" PRIu64 ": call %u (%s) is not one this verifier allows",
				      t->number, k, name ? name : "unknown");
	}
	return FXS_REPLAY_OK;
}

fxs_world *fxs_replay_reader_world(const fxs_replay_reader *r, const fxs_replay_expect *expect,
				   fxs_replay_status *status, char *err, size_t errlen)
{
	fxs_replay_status dummy;
	if (!status)
		status = &dummy;
	if (!err)
		errlen = 0;
	if (!r || !r->header_valid) {
		*status = r && r->status != FXS_REPLAY_OK ? r->status : FXS_REPLAY_IO;
		if (err && errlen)
			snprintf(err, errlen, "no replay header");
		return NULL;
	}
	if ((*status = fxs_replay_accepts(r->mode, r->input_size, r->players, expect, err, errlen)) != FXS_REPLAY_OK)
		return NULL;
	return fxs_replay_start_checked(fxs_replay_reader_snapshot(r), r->snapshot_len, r->start_tick, r->mode, expect,
					status, err, errlen);
}

uint32_t fxs_replay_tick_suspect_calls(const fxs_replay_tick *t, const fxs_world *e, const fxs_world *g, char *buf,
				       size_t n)
{
	char sink[1];
	if (!buf || !n) /* the count only */
		buf = sink, n = sizeof sink;
	uint32_t found = 0, slots = e && g ? fxs_world_slot_count(e) : 0;
	size_t used = 0;
	if (n)
		buf[0] = 0;
	for (uint32_t i = 0; t && t->calls && i < slots && used + 1 < n; ++i) {
		fxs_body_id a = fxs_world_body_at(e, i), b = fxs_world_body_at(g, i);
		if (fxs_body_hash(e, a) == fxs_body_hash(g, b))
			continue;
		char one[160];
		if (!fxs_replay_tick_calls_on_body(t, i, one, sizeof one))
			continue;
		int w = snprintf(buf + used, n - used, "%s%s on body %u", found ? ", " : "", one, i);
		used += w > 0 ? (size_t)w : 0;
		found++;
	}
	return found;
}

/* ---- verifying a whole replay ---- */

static fxs_replay_status vfail(fxs_replay_verify_result *o, fxs_replay_status s, const char *fmt, ...)
{
	o->status = s;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->message, sizeof o->message, fmt, ap);
	va_end(ap);
	return s;
}

/* The first body and field where the tick's recorded state (DETAIL) and w
 * part, into buf (and, for a CALLS tick, the calls on that body); false
 * when the replay has none. */
static bool name_divergence(const fxs_replay_tick *t, const fxs_world *w, char *buf, size_t n)
{
	if (!t->state)
		return false;
	fxs_result e;
	fxs_world *rec = fxs_world_create_from_snapshot(t->state, t->state_len, &e);
	fxs_state_diff d;
	bool named = rec && fxs_world_first_difference(rec, w, &d);
	if (named) {
		char calls[160];
		size_t k = 0;
		if (fxs_replay_tick_suspect_calls(t, rec, w, calls, sizeof calls)) {
			int m = snprintf(buf, n, "%s; ", calls);
			k = m > 0 && (size_t)m < n ? (size_t)m : 0;
		}
		fxs_state_diff_format(&d, buf + k, n - k);
	}
	fxs_world_destroy(rec);
	return named;
}

static fxs_replay_status verify_reader(fxs_replay_reader *r, const fxs_replay_expect *expect, fxs_replay_apply_fn apply,
				       void *ctx, fxs_replay_verify_result *o)
{
	if (r->status != FXS_REPLAY_OK)
		return vfail(o, r->status, "%s", r->error);
	fxs_replay_status st;
	char err[256];
	if ((st = fxs_replay_accepts(r->mode, r->input_size, r->players, expect, err, sizeof err)) != FXS_REPLAY_OK)
		return vfail(o, st, "%s", err);
	if (r->mode == FXS_REPLAY_MODE_INPUTS && !apply)
		return vfail(o, FXS_REPLAY_NO_HANDLER,
			     "no input handler: an inputs replay needs the game's apply callback (a valid replay, not "
			     "verified here)");
	fxs_world *w = fxs_replay_reader_world(r, expect, &st, err, sizeof err);
	if (!w)
		return vfail(o, st, "%s", err);
	o->final_hash = fxs_world_hash(w);
	fxs_replay_tick t;
	while (fxs_replay_next(r, &t)) {
		if ((st = fxs_replay_tick_allowed(&t, expect, err, sizeof err)) != FXS_REPLAY_OK) {
			fxs_world_destroy(w);
			return vfail(o, st, "%s", err);
		}
		fxs_result e = fxs_replay_tick_apply(w, &t, apply, ctx);
		if (e != FXS_OK) {
			fxs_world_destroy(w);
			return vfail(o, e == FXS_ERR_NOMEM ? FXS_REPLAY_NOMEM : FXS_REPLAY_DIVERGED,
				     "tick %" PRIu64 ": re-simulating it failed (%s)", t.number, fxs_result_string(e));
		}
		uint64_t h = fxs_world_hash(w);
		if (h != t.hash) {
			char where[200];
			o->tick = t.number, o->expected_hash = t.hash, o->got_hash = h;
			if (!name_divergence(&t, w, where, sizeof where))
				snprintf(where, sizeof where, "state hash (expected %016" PRIx64 ", got %016" PRIx64 ")", t.hash, h);
			vfail(o, FXS_REPLAY_DIVERGED, "tick %" PRIu64 ": %s", t.number, where);
			fxs_world_destroy(w);
			return o->status;
		}
		o->ticks++;
		o->final_hash = h;
	}
	fxs_world_destroy(w);
	if (r->status != FXS_REPLAY_OK)
		return vfail(o, r->status, "%s", r->error);
	o->status = FXS_REPLAY_OK;
	return FXS_REPLAY_OK;
}

fxs_replay_status fxs_replay_verify(const char *path, const fxs_replay_expect *expect, fxs_replay_apply_fn apply,
				    void *ctx, fxs_replay_verify_result *out)
{
	fxs_replay_verify_result dummy;
	fxs_replay_verify_result *o = out ? out : &dummy;
	memset(o, 0, sizeof *o);
	if (!path)
		return vfail(o, FXS_REPLAY_IO, "no path");
	fxs_replay_reader r;
	fxs_replay_open(&r, path);
	fxs_replay_status s = verify_reader(&r, expect, apply, ctx, o);
	fxs_replay_close(&r);
	return s;
}

fxs_replay_status fxs_replay_verify_memory(const void *buf, size_t len, const fxs_replay_expect *expect,
					   fxs_replay_apply_fn apply, void *ctx, fxs_replay_verify_result *out)
{
	fxs_replay_verify_result dummy;
	fxs_replay_verify_result *o = out ? out : &dummy;
	memset(o, 0, sizeof *o);
	if (!buf && len)
		return vfail(o, FXS_REPLAY_IO, "no buffer");
	fxs_replay_reader r;
	fxs_replay_open_memory(&r, buf, len);
	fxs_replay_status s = verify_reader(&r, expect, apply, ctx, o);
	fxs_replay_close(&r);
	return s;
}

/* ---- comparing states ---- */

/* "12.34567 [0x000c58e4]": the value to 5 decimals, rounded as libfixmath's
 * fix16_to_str rounds (checked against it on 20 million values), in
 * integers (the library calls nothing of libfixmath that uses floats) */
static void fix_text(fix16_t v, char *buf, size_t n)
{
	uint32_t u = v >= 0 ? (uint32_t)v : 0u - (uint32_t)v;
	uint32_t ip = u >> 16, fp = (uint32_t)(((uint64_t)(u & 0xffff) * 100000u + 32768u) >> 16);
	if (fp >= 100000u)
		ip++, fp -= 100000u;
	snprintf(buf, n, "%s%" PRIu32 ".%05" PRIu32 " [0x%08" PRIx32 "]", v < 0 ? "-" : "", ip, fp, (uint32_t)v);
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
	if (!d)
		return false;
	memset(d, 0, sizeof *d);
	d->body = -1;
	if (!e || !g) { /* nothing to compare: said so, not a difference */
		snprintf(d->field, sizeof d->field, "no world");
		return false;
	}
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

bool fxs_snapshot_first_difference(const void *e, size_t elen, const void *g, size_t glen, fxs_state_diff *d)
{
	if (!d)
		return false;
	memset(d, 0, sizeof *d);
	d->body = -1;
	fxs_result err;
	fxs_world *we = e ? fxs_world_create_from_snapshot(e, elen, &err) : NULL;
	fxs_world *wg = g ? fxs_world_create_from_snapshot(g, glen, &err) : NULL;
	bool differ = we && wg && fxs_world_first_difference(we, wg, d);
	fxs_world_destroy(we);
	fxs_world_destroy(wg);
	return differ;
}

void fxs_state_diff_format(const fxs_state_diff *d, char *buf, size_t n)
{
	if (!buf || !n)
		return;
	if (!d)
		snprintf(buf, n, "no difference given");
	else if (d->body >= 0)
		snprintf(buf, n, "body %" PRId64 " field %s (expected %s, got %s)", d->body, d->field, d->expected, d->got);
	else
		snprintf(buf, n, "%s (expected %s, got %s)", d->field, d->expected, d->got);
}
