/* State hashing: XXH3-64 over the canonical serialisation (state.c),
 * streamed: the serialisation goes through a small buffer into XXH3's
 * streaming state (the same hash as over the whole, which never sits in
 * memory: 2 MB a step for 5,000 boxes, written and read back). */
#include "state/hash.h"
#include "state/state.h"
#include "state/game_state.h"
#include "simd/kernels.h"
#include "world/tasks.h"
#include "collide/contact.h"

#include <stdlib.h>
#include <xxhash.h>

enum { HASH_CHUNK = 16384 };

static void hash_flush(void *ctx, const void *p, size_t n) { (void)XXH3_64bits_update((XXH3_state_t *)ctx, p, n); }

/* ---- with workers: the records of bodies, contacts and joints written in parallel ----
 * A body's record depends on that body alone, a contact's on that contact,
 * a joint's on that joint (state.h), so blocks of them are written at once on the world's workers,
 * each into its own buffer, and the buffers go into XXH3 in block order:
 * the same bytes in the same order as the serial stream, so the same hash
 * (XXH3's streaming digest does not depend on where the updates cut the
 * input). The blocks are fixed by the counts alone (tasks.h); a round takes
 * as many blocks as it has buffers, and only the rounds' grouping, never a
 * byte, depends on the worker count. */
enum {
	HASH_BLOCK = 256,        /* records a block */
	HASH_PARALLEL_MIN = 2048, /* records below which the serial stream is as fast */
	FXS_HASH_ROUND_MAX = 32  /* blocks a round at most */
};

enum { HASH_BODIES, HASH_CONTACTS, HASH_JOINTS };

/* the most bytes of a record of any section */
#define HASH_RECORD_MAX                                                                                                \
	(FXS_STATE_CONTACT_RECORD_MAX > FXS_STATE_JOINT_RECORD_MAX ? FXS_STATE_CONTACT_RECORD_MAX                      \
								     : FXS_STATE_JOINT_RECORD_MAX)
_Static_assert(HASH_RECORD_MAX >= FXS_STATE_BODY_RECORD_MAX, "a buffer holds a block of any section");

typedef struct hash_job {
	const fxs_world *w;
	int section; /* HASH_BODIES, HASH_CONTACTS or HASH_JOINTS */
	uint32_t first, end, block;
	uint8_t *bufs; /* a round's buffers, `stride` bytes each */
	size_t stride;
	size_t lens[FXS_HASH_ROUND_MAX];
} hash_job;

static void hash_block(void *ctx, uint32_t k)
{
	hash_job *j = ctx;
	const uint32_t i0 = j->first + k * j->block;
	const uint32_t i1 = j->end - i0 < j->block ? j->end : i0 + j->block;
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, j->bufs + k * j->stride, j->stride); /* room for the block's largest records */
	if (j->section == HASH_CONTACTS)
		fxs_state_write_contacts(j->w, &wr, i0, i1);
	else if (j->section == HASH_JOINTS)
		fxs_state_write_joints(j->w, &wr, i0, i1);
	else
		fxs_state_write_bodies(j->w, &wr, i0, i1);
	j->lens[k] = wr.len;
}

/* the records of [0, n) bodies, contacts or joints, block by block, into st */
static void hash_section(hash_job *j, uint32_t n, void (*update)(void *, const void *, size_t), XXH3_state_t *st,
			 uint32_t round)
{
	for (uint32_t first = 0; first < n;) {
		const uint32_t left = (n - first + j->block - 1) / j->block;
		const uint32_t count = left < round ? left : round;
		j->first = first;
		j->end = n - first <= count * j->block ? n : first + count * j->block;
		fxs_tasks_run(j->w, hash_block, j, count);
		for (uint32_t k = 0; k < count; ++k)
			update(st, j->bufs + k * j->stride, j->lens[k]);
		first = j->end;
	}
}

/* the buffers of a round of blocks (the world keeps them); false when out
 * of memory (the serial stream then makes the same hash) */
static bool hash_buffers(fxs_world *w, uint32_t round, size_t stride)
{
	const size_t need = (size_t)round * stride;
	if (w->hash_blocks_size >= need)
		return true;
	uint8_t *b = realloc(w->hash_blocks, need);
	if (!b)
		return false;
	w->hash_blocks = b, w->hash_blocks_size = need;
	return true;
}

/* XXH3-64 of w's serialisation, streamed through chunk (HASH_CHUNK bytes)
 * into st; 0 when there is no state or buffer (out of memory). The update
 * runs on the vector instruction set of the world's kernels (hash.h).
 * With workers (and buffers: `w` non-NULL), the bodies', contacts' and
 * joints' records are written in parallel (above). */
static uint64_t hash_state(const fxs_world *w, fxs_world *scratch, XXH3_state_t *st, uint8_t *chunk)
{
	if (!st || !chunk || XXH3_64bits_reset(st) != XXH_OK)
		return 0;
	const fxs_kernel_table *k = fxs_kernel_table_get(fxs_world_get_kernels(w));
	void (*update)(void *, const void *, size_t) = k && k->hash_update ? k->hash_update : hash_flush;
	fxs_writer wr;
	fxs_writer_init_stream(&wr, chunk, HASH_CHUNK, update, st);
	uint32_t round = w->def.worker_count * 2;
	round = round < FXS_HASH_ROUND_MAX ? round : FXS_HASH_ROUND_MAX;
	const uint32_t block = w->task_fine ? 3 : HASH_BLOCK;
	const size_t stride = (size_t)block * HASH_RECORD_MAX;
	const uint64_t records = (uint64_t)w->slot_count + w->contact_count + w->joint_slot_count;
	if (!scratch || !fxs_tasks_parallel(w) || records < (w->task_fine ? 1u : HASH_PARALLEL_MIN) ||
	    !hash_buffers(scratch, round, stride)) {
		fxs_state_write(w, &wr);
		fxs_writer_flush(&wr);
		return (uint64_t)XXH3_64bits_digest(st);
	}
	hash_job j = { .w = w, .block = block, .bufs = scratch->hash_blocks, .stride = stride };
	fxs_state_write_head(w, &wr);
	fxs_writer_flush(&wr);
	hash_section(&j, w->slot_count, update, st, round);
	fxs_write_u32(&wr, w->contact_count);
	fxs_writer_flush(&wr);
	j.section = HASH_CONTACTS;
	hash_section(&j, w->contact_count, update, st, round);
	fxs_state_write_tail_head(w, &wr);
	fxs_writer_flush(&wr);
	j.section = HASH_JOINTS;
	hash_section(&j, w->joint_slot_count, update, st, round);
	fxs_state_write_tail_rest(w, &wr);
	fxs_writer_flush(&wr);
	return (uint64_t)XXH3_64bits_digest(st);
}

bool fxs_world_hash_reserve(fxs_world *w)
{
	/* the world keeps its state and buffer; each allocated when missing */
	if (!w->hash_stream)
		w->hash_stream = XXH3_createState();
	if (!w->hash_chunk)
		w->hash_chunk = malloc(HASH_CHUNK);
	return w->hash_stream && w->hash_chunk;
}

void fxs_world_update_hash(fxs_world *w)
{
	if (!fxs_world_hash_reserve(w)) { /* (not in a step: it reserves them first) */
		w->hash_valid = false;    /* made when asked, not kept as a wrong 0 */
		return;
	}
	w->hash = hash_state(w, w, (XXH3_state_t *)w->hash_stream, w->hash_chunk);
	w->hash_valid = true;
}

uint64_t fxs_world_rehash(fxs_world *w)
{
	if (!w)
		return 0;
	fxs_world_update_hash(w);
	return fxs_world_hash(w);
}

uint64_t fxs_world_hash(const fxs_world *w)
{
	if (!w)
		return 0;
	if (w->hash_valid)
		return w->hash;
	XXH3_state_t *st = XXH3_createState();
	uint8_t *chunk = malloc(HASH_CHUNK);
	uint64_t h = hash_state(w, NULL, st, chunk);
	XXH3_freeState(st);
	free(chunk);
	return h;
}

uint64_t fxs_body_hash(const fxs_world *w, fxs_body_id id)
{
	const fxs_body *b = fxs_world_get_body(w, id);
	if (!b)
		return 0;
	uint8_t buf[256];
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, buf, sizeof buf);
	fxs_serialize_body(b, &wr);
	if (fxs_game_body_has_record(b)) /* its GAME record: flags, locks, filter, mass */
		fxs_game_write_body(b, id.index1 - 1, &wr);
	return wr.failed ? 0 : (uint64_t)XXH3_64bits(buf, wr.len);
}

size_t fxs_world_serialize_state(const fxs_world *w, void *buf, size_t cap)
{
	if (!w)
		return 0;
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, buf, cap);
	fxs_state_write(w, &wr);
	return wr.len;
}
