/* Snapshots: the state serialisation in a small container.
 *
 *   offset  size  field
 *   0       4     magic "FXSS"
 *   4       4     format version (FXS_STATE_VERSION)
 *   8       4     kernel version (major << 16 | minor << 8 | patch)
 *   12      4     numeric configuration (fraction bits of the state format
 *                 | wide fraction bits << 8)
 *   16      8     payload length n
 *   24      n     payload: the canonical state (state.c)
 *   24+n    8     XXH3-64 of bytes 0 .. 24+n (header and payload)
 * All integers little-endian. */
#include "state/state.h"
#include "state/hash.h"
#include "state/game_state.h"
#include "world/call_log.h"

#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define SNAP_MAGIC "FXSS"
#define SNAP_HEADER 24u
#define SNAP_NUMERIC (16u | (32u << 8))

size_t fxs_world_snapshot_size(const fxs_world *w)
{
	if (!w)
		return 0;
	return SNAP_HEADER + fxs_world_serialize_state(w, NULL, 0) + 8;
}

fxs_result fxs_world_snapshot_save(const fxs_world *w, void *buf, size_t cap, size_t *written)
{
	if (!w)
		return FXS_ERR_INVALID_ID;
	if (w->failed)
		return FXS_ERR_NOMEM; /* a state other machines would not have: not to be shared */
	size_t payload = fxs_world_serialize_state(w, NULL, 0);
	size_t total = SNAP_HEADER + payload + 8;
	if (written)
		*written = total;
	if (!buf || cap < total)
		return FXS_ERR_BUFFER_TOO_SMALL;
	fxs_writer wr;
	fxs_writer_init_fixed(&wr, buf, cap);
	fxs_write_bytes(&wr, SNAP_MAGIC, 4);
	fxs_write_u32(&wr, FXS_STATE_VERSION);
	fxs_write_u32(&wr, FXS_VERSION);
	fxs_write_u32(&wr, SNAP_NUMERIC);
	fxs_write_u64(&wr, payload);
	fxs_state_write(w, &wr);
	fxs_write_u64(&wr, (uint64_t)XXH3_64bits(buf, SNAP_HEADER + payload));
	return wr.failed ? FXS_ERR_BUFFER_TOO_SMALL : FXS_OK;
}

fxs_world *fxs_world_create_from_snapshot(const void *buf, size_t len, fxs_result *err)
{
	fxs_result dummy;
	if (!err)
		err = &dummy;
	if (!buf && len > 0) {
		*err = FXS_ERR_INVALID_ARGUMENT;
		return NULL;
	}
	fxs_reader r;
	fxs_reader_init(&r, buf, len);
	char magic[4];
	fxs_read_bytes(&r, magic, 4);
	uint32_t version = fxs_read_u32(&r);
	(void)fxs_read_u32(&r); /* kernel version: informational */
	uint32_t numeric = fxs_read_u32(&r);
	uint64_t payload = fxs_read_u64(&r);
	if (r.err != FXS_OK) {
		*err = memcmp(magic, SNAP_MAGIC, 4) == 0 || r.pos < 4 ? FXS_ERR_TRUNCATED : FXS_ERR_BAD_MAGIC;
		return NULL;
	}
	if (memcmp(magic, SNAP_MAGIC, 4) != 0) {
		*err = FXS_ERR_BAD_MAGIC;
		return NULL;
	}
	if (version < FXS_STATE_VERSION_OLDEST || version > FXS_STATE_VERSION || numeric != SNAP_NUMERIC) {
		*err = FXS_ERR_VERSION;
		return NULL;
	}
	if (payload > len - SNAP_HEADER || len - SNAP_HEADER - payload < 8) {
		*err = FXS_ERR_TRUNCATED;
		return NULL;
	}
	const uint8_t *p = (const uint8_t *)buf + SNAP_HEADER;
	fxs_reader cr;
	fxs_reader_init(&cr, p + payload, 8);
	if (fxs_read_u64(&cr) != (uint64_t)XXH3_64bits(buf, SNAP_HEADER + (size_t)payload)) {
		*err = FXS_ERR_CORRUPT;
		return NULL;
	}
	fxs_reader pr;
	fxs_reader_init(&pr, p, (size_t)payload);
	fxs_world *w = fxs_state_read(&pr, err);
	if (w && pr.pos != pr.len) {
		fxs_world_destroy(w);
		*err = FXS_ERR_CORRUPT; /* trailing bytes inside the payload */
		return NULL;
	}
	if (w)
		*err = FXS_OK;
	return w;
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
	fxs_world_destroy(tmp);
	fxs_world_update_hash(w);
	return FXS_OK;
}
