/* Snapshots: the state serialisation, packed (pack.h), in a small container.
 *
 *   offset  size  field
 *   0       4     magic "FXSS"
 *   4       4     format version (FXS_STATE_VERSION)
 *   8       4     kernel version (major << 16 | minor << 8 | patch)
 *   12      4     numeric configuration (fraction bits of the state format
 *                 | wide fraction bits << 8)
 *   16      8     payload length n
 *   24      8     state length m: the canonical state's bytes (state.c),
 *                 of which the world hash is made
 *   32      n     payload: the state packed (pack.h)
 *   32+n    8     XXH3-64 of bytes 0 .. 32+n (header and payload)
 * All integers little-endian. Version 9, which fxs_world_snapshot_save_unpacked
 * writes, has no state length and the state itself as its payload at 24. */
#include "state/state.h"
#include "state/hash.h"
#include "state/game_state.h"
#include "world/call_log.h"
#include "state/pack.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define SNAP_MAGIC "FXSS"
#define SNAP_HEADER 32u
#define SNAP_HEADER_UNPACKED 24u
#define SNAP_VERSION_UNPACKED 9u /* the container of the state unpacked */
#define SNAP_NUMERIC (16u | (32u << 8))

enum { PACK_CHUNK = 4096 };

typedef struct packed_sink {
	fxs_packer packer;
	size_t state_len; /* canonical bytes seen */
} packed_sink;

static void sink_bytes(void *ctx, const void *p, size_t n)
{
	packed_sink *k = ctx;
	k->state_len += n;
	fxs_pack_bytes(&k->packer, p, n);
}

static void sink_record(void *ctx, const uint8_t *rec, size_t n)
{
	packed_sink *k = ctx;
	k->state_len += n;
	fxs_pack_record(&k->packer, rec, n);
}

/* w's state packed into out (cap bytes; NULL: only counted): the packed
 * length, the canonical length in *state_len, *failed when out is short. */
static size_t pack_state(const fxs_world *w, uint8_t *out, size_t cap, size_t *state_len, bool *failed)
{
	packed_sink k;
	fxs_packer_init(&k.packer, out, cap);
	k.state_len = 0;
	uint8_t chunk[PACK_CHUNK];
	fxs_writer wr;
	fxs_writer_init_stream(&wr, chunk, sizeof chunk, sink_bytes, &k);
	wr.record = sink_record;
	fxs_state_write(w, &wr);
	fxs_writer_flush(&wr);
	*state_len = k.state_len;
	*failed = k.packer.failed;
	return k.packer.len;
}

size_t fxs_world_snapshot_size(const fxs_world *w)
{
	if (!w)
		return 0;
	size_t m;
	bool failed;
	return SNAP_HEADER + pack_state(w, NULL, 0, &m, &failed) + 8;
}

fxs_result fxs_world_snapshot_save(const fxs_world *w, void *buf, size_t cap, size_t *written)
{
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (w->failed)
		return FXS_ERR_NOMEM; /* a state other machines would not have: not to be shared */
	size_t m;
	bool failed;
	uint8_t *b = buf;
	size_t room = b && cap >= SNAP_HEADER + 8 ? cap - SNAP_HEADER - 8 : 0;
	size_t payload = pack_state(w, room ? b + SNAP_HEADER : NULL, room, &m, &failed);
	size_t total = SNAP_HEADER + payload + 8;
	if (written)
		*written = total;
	if (!buf || cap < total || failed)
		return FXS_ERR_BUFFER_TOO_SMALL;
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, buf, SNAP_HEADER);
	fxs_write_bytes(&wr, SNAP_MAGIC, 4);
	fxs_write_u32(&wr, FXS_STATE_VERSION);
	fxs_write_u32(&wr, FXS_VERSION);
	fxs_write_u32(&wr, SNAP_NUMERIC);
	fxs_write_u64(&wr, payload);
	fxs_write_u64(&wr, m);
	fxs_writer_init_fixed(&wr, b + SNAP_HEADER + payload, 8);
	fxs_write_u64(&wr, (uint64_t)XXH3_64bits(buf, SNAP_HEADER + payload));
	return FXS_OK;
}

size_t fxs_world_snapshot_size_unpacked(const fxs_world *w)
{
	if (!w)
		return 0;
	return SNAP_HEADER_UNPACKED + fxs_world_serialize_state(w, NULL, 0) + 8;
}

fxs_result fxs_world_snapshot_save_unpacked(const fxs_world *w, void *buf, size_t cap, size_t *written)
{
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (w->failed)
		return FXS_ERR_NOMEM;
	size_t payload = fxs_world_serialize_state(w, NULL, 0);
	size_t total = SNAP_HEADER_UNPACKED + payload + 8;
	if (written)
		*written = total;
	if (!buf || cap < total)
		return FXS_ERR_BUFFER_TOO_SMALL;
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, buf, cap);
	fxs_write_bytes(&wr, SNAP_MAGIC, 4);
	fxs_write_u32(&wr, SNAP_VERSION_UNPACKED);
	fxs_write_u32(&wr, FXS_VERSION);
	fxs_write_u32(&wr, SNAP_NUMERIC);
	fxs_write_u64(&wr, payload);
	fxs_state_write(w, &wr);
	fxs_write_u64(&wr, (uint64_t)XXH3_64bits(buf, SNAP_HEADER_UNPACKED + payload));
	return wr.failed ? FXS_ERR_BUFFER_TOO_SMALL : FXS_OK;
}

/* The canonical state a snapshot holds, checked against its container: in
 * *state (buf's own bytes for version 9; for version 10 unpacked into memory
 * that *owned holds and the caller frees). FXS_OK or the reason. */
static fxs_result open_snapshot(const void *buf, size_t len, const uint8_t **state, size_t *state_len, uint8_t **owned)
{
	*owned = NULL;
	if (!buf && len > 0)
		return FXS_ERR_INVALID_ARGUMENT;
	fxs_reader r;
	fxs_reader_init(&r, buf, len);
	char magic[4];
	fxs_read_bytes(&r, magic, 4);
	uint32_t version = fxs_read_u32(&r);
	(void)fxs_read_u32(&r); /* kernel version: informational */
	uint32_t numeric = fxs_read_u32(&r);
	uint64_t payload = fxs_read_u64(&r);
	if (r.err != FXS_OK)
		return memcmp(magic, SNAP_MAGIC, 4) == 0 || r.pos < 4 ? FXS_ERR_TRUNCATED : FXS_ERR_BAD_MAGIC;
	if (memcmp(magic, SNAP_MAGIC, 4) != 0)
		return FXS_ERR_BAD_MAGIC;
	if (version < FXS_STATE_VERSION_OLDEST || version > FXS_STATE_VERSION || numeric != SNAP_NUMERIC)
		return FXS_ERR_VERSION;
	bool packed = version != SNAP_VERSION_UNPACKED;
	uint64_t unpacked = packed ? fxs_read_u64(&r) : payload;
	size_t head = packed ? SNAP_HEADER : SNAP_HEADER_UNPACKED;
	if (r.err != FXS_OK || payload > len - head || len - head - payload < 8)
		return FXS_ERR_TRUNCATED;
	const uint8_t *p = (const uint8_t *)buf + head;
	fxs_reader cr;
	fxs_reader_init(&cr, p + payload, 8);
	if (fxs_read_u64(&cr) != (uint64_t)XXH3_64bits(buf, head + (size_t)payload))
		return FXS_ERR_CORRUPT;
	if (!packed) {
		*state = p;
		*state_len = (size_t)payload;
		return FXS_OK;
	}
	/* a token gives at most 64 bytes: a longer state is not this payload's */
	if (unpacked / 64 > payload)
		return FXS_ERR_CORRUPT;
	uint8_t *out = malloc(unpacked ? (size_t)unpacked : 1);
	if (!out)
		return FXS_ERR_NOMEM;
	if (!fxs_unpack(p, (size_t)payload, out, (size_t)unpacked)) {
		free(out);
		return FXS_ERR_CORRUPT;
	}
	*state = *owned = out;
	*state_len = (size_t)unpacked;
	return FXS_OK;
}

fxs_world *fxs_world_create_from_snapshot(const void *buf, size_t len, fxs_result *err)
{
	fxs_result dummy;
	if (!err)
		err = &dummy;
	const uint8_t *state;
	size_t state_len;
	uint8_t *owned;
	if ((*err = open_snapshot(buf, len, &state, &state_len, &owned)) != FXS_OK)
		return NULL;
	fxs_reader pr;
	fxs_reader_init(&pr, state, state_len);
	fxs_world *w = fxs_state_read(&pr, err);
	if (w && pr.pos != pr.len) {
		fxs_world_destroy(w);
		w = NULL;
		*err = FXS_ERR_CORRUPT; /* trailing bytes inside the state */
	}
	free(owned);
	if (w)
		*err = FXS_OK;
	return w;
}

fxs_result fxs_snapshot_state_hash(const void *buf, size_t len, uint64_t *hash)
{
	if (!hash)
		return FXS_ERR_INVALID_ARGUMENT;
	*hash = 0;
	const uint8_t *state;
	size_t state_len;
	uint8_t *owned;
	fxs_result e = open_snapshot(buf, len, &state, &state_len, &owned);
	if (e == FXS_OK)
		*hash = (uint64_t)XXH3_64bits(state, state_len);
	free(owned);
	return e;
}

fxs_result fxs_world_snapshot_restore(fxs_world *w, const void *buf, size_t len)
{
	if (!w)
		return FXS_ERR_INVALID_ID;
	FXS_CALL_LOG(w, FXS_OP_WORLD_SNAPSHOT_RESTORE, buf, len);
	fxs_result err;
	fxs_world *tmp = fxs_world_create_from_snapshot(buf, len, &err);
	if (!tmp)
		return err;
	/* swap the restored contents in; w's old contents go with tmp */
	fxs_world old = *w;
	*w = *tmp;
	*tmp = old;
	w->kernels = old.kernels; /* the kernels chosen for this world (fxs_world_set_kernels): not state */
	w->call_log = old.call_log, tmp->call_log = NULL; /* nor is its call log */
	/* nor its threads (the definition's and the scheduler they made) */
	w->def.worker_count = old.def.worker_count, w->def.enqueue_task = old.def.enqueue_task;
	w->def.finish_task = old.def.finish_task, w->def.user_task_context = old.def.user_task_context;
	w->task_enqueue = old.task_enqueue, w->task_finish = old.task_finish, w->task_user = old.task_user;
	w->pool = old.pool, tmp->pool = NULL, tmp->task_enqueue = NULL;
	free(w->hash_blocks); /* and the parallel hash's buffers (hash.c), not made again each restore */
	w->hash_blocks = old.hash_blocks, w->hash_blocks_size = old.hash_blocks_size, tmp->hash_blocks = NULL;
	fxs_world_destroy(tmp);
	fxs_world_update_hash(w);
	return FXS_OK;
}
