/* The reliable chunked transfer (session/xfer.h): a blob crosses the seeded
 * simulated network (10% loss, 60 ms jitter, duplicates, the reordering
 * jitter makes) whole and in a bounded time; a restarted sender and a
 * receiver cut off for seconds resume what was there; a chunk that lies about
 * the data is caught by the whole blob's hash; every malformed field is
 * rejected with its reason; random and mutated messages never crash it and
 * never complete a blob that is not the one sent. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "fixstep/session.h"
#include "session/xfer.h"
#include "test.h"

static uint8_t *make_blob(size_t n, uint64_t seed)
{
	uint8_t *b = malloc(n);
	for (size_t i = 0; i < n; ++i)
		b[i] = (uint8_t)(test_rng_next(&seed) >> 56);
	return b;
}

/* Peer 0 sends, peer 1 receives, over net, in steps of step_ms of virtual
 * time, until both are done or max_ms passed; `cut` (when not NULL) says
 * for a time whether every datagram is dropped (a connection down). Returns
 * the virtual ms it took (UINT64_MAX: not done). */
typedef bool (*cut_fn)(uint64_t now_ms);
static uint64_t run_transfer(fxs_simnet *net, fxs_xfer_sender *tx, fxs_xfer_receiver *rx, uint64_t start_ms,
			     uint64_t max_ms, cut_fn cut)
{
	fxs_transport a = fxs_simnet_endpoint(net, 0), b = fxs_simnet_endpoint(net, 1);
	uint8_t buf[2048];
	const uint32_t step_ms = 4;
	for (uint64_t now = start_ms; now <= start_ms + max_ms; now += step_ms) {
		bool down = cut && cut(now);
		size_t n;
		int from;
		while ((n = b.recv(b.ctx, buf, sizeof buf, &from)) > 0)
			if (!down)
				fxs_xfer_recv_chunk(rx, buf, n);
		if ((n = fxs_xfer_recv_poll(rx, buf, sizeof buf)) > 0)
			b.send(b.ctx, 0, buf, n);
		while ((n = a.recv(a.ctx, buf, sizeof buf, &from)) > 0)
			if (!down)
				fxs_xfer_send_ack(tx, buf, n, now);
		while ((n = fxs_xfer_send_poll(tx, now, buf, sizeof buf)) > 0)
			a.send(a.ctx, 1, buf, n);
		if (rx->state == FXS_XFER_RECEIVED && tx->state == FXS_XFER_SENT)
			return now - start_ms;
		if (tx->state == FXS_XFER_FAILED)
			return UINT64_MAX;
		fxs_simnet_advance(net, step_ms);
	}
	return UINT64_MAX;
}

static bool took_blob(fxs_xfer_receiver *rx, const uint8_t *want, size_t n, uint32_t id)
{
	size_t size = 0;
	uint8_t purpose = 0;
	uint32_t got_id = 0;
	uint8_t *b = fxs_xfer_recv_take(rx, &size, &purpose, &got_id);
	bool ok = b && size == n && got_id == id && purpose == 3 && memcmp(b, want, n) == 0;
	free(b);
	return ok;
}

/* 100 KiB under 10% loss, 20 ms delay + 0..60 ms jitter, 5% duplicates:
 * whole, and within a stated bound of virtual time. */
TEST(xfer_100k_over_lossy_network)
{
	const size_t n = 100u * 1024u;
	uint64_t wall_us = 0, worst = 0;
	for (uint64_t seed = 1; seed <= 8; ++seed) {
		fxs_impair imp = { 0.10, 0.05, 20, 60, seed };
		fxs_simnet *net = fxs_simnet_create(2, &imp);
		uint8_t *blob = make_blob(n, seed);
		fxs_xfer_sender tx = { 0 };
		fxs_xfer_receiver rx;
		fxs_xfer_recv_init(&rx, 0, 0, 0);
		CHECK(fxs_xfer_send_start(&tx, 3, 77, blob, n));
		uint64_t t0 = test_now_ns();
		uint64_t ms = run_transfer(net, &tx, &rx, 0, 20000, NULL);
		wall_us += (test_now_ns() - t0) / 1000u;
		fxs_simnet_stats ns = fxs_simnet_stats_get(net);
		bool whole = took_blob(&rx, blob, n, 77);
		uint64_t sent = tx.chunks_sent, resent = tx.resent;
		fxs_xfer_send_reset(&tx);
		fxs_xfer_recv_free(&rx);
		fxs_simnet_destroy(net);
		free(blob);
		/* 119 chunks, a window of 64: two round trips (<= 160 ms each) plus
		 * the resends of the losses; 1.5 s is ~4x what it takes */
		CHECKF(ms != UINT64_MAX && ms <= 1500 && whole && ns.lost > 0 && ns.duplicated > 0,
		       "seed %" PRIu64 ": %" PRIu64 " ms, whole %d, lost %" PRIu64 " dup %" PRIu64, seed, ms, whole,
		       ns.lost, ns.duplicated);
		CHECK(sent >= 119 && resent > 0);
		if (ms > worst)
			worst = ms;
	}
	printf("    100 KiB, 10%% loss, 20+0..60 ms, 5%% dup: worst of 8 seeds %" PRIu64
	       " ms of network time (bound 1500), %" PRIu64 " us wall for all 8\n",
	       worst, wall_us);
}

/* A sender that dies half way and a new one that starts the same blob: the
 * receiver keeps what it had, and the new sender learns it from the first
 * ack (it sends what is missing plus at most one window). */
TEST(xfer_resumes_after_sender_restart)
{
	const size_t n = 400u * 1024u; /* 475 chunks */
	uint8_t *blob = make_blob(n, 42);
	fxs_impair none = { 0, 0, 10, 0, 1 };
	fxs_simnet *net = fxs_simnet_create(2, &none);
	fxs_xfer_sender tx = { 0 };
	fxs_xfer_receiver rx;
	fxs_xfer_recv_init(&rx, 0, 0, 0);
	CHECK(fxs_xfer_send_start(&tx, 3, 9, blob, n));
	fxs_transport a = fxs_simnet_endpoint(net, 0), b = fxs_simnet_endpoint(net, 1);
	uint8_t buf[2048];
	uint64_t now = 0;
	/* run until the receiver holds 300 chunks, then the sender dies */
	while (rx.n_held < 300 && now < 10000) {
		size_t len;
		int from;
		while ((len = b.recv(b.ctx, buf, sizeof buf, &from)) > 0)
			fxs_xfer_recv_chunk(&rx, buf, len);
		if ((len = fxs_xfer_recv_poll(&rx, buf, sizeof buf)) > 0)
			b.send(b.ctx, 0, buf, len);
		while ((len = a.recv(a.ctx, buf, sizeof buf, &from)) > 0)
			fxs_xfer_send_ack(&tx, buf, len, now);
		while ((len = fxs_xfer_send_poll(&tx, now, buf, sizeof buf)) > 0)
			a.send(a.ctx, 1, buf, len);
		fxs_simnet_advance(net, 4);
		now += 4;
	}
	uint32_t held = rx.n_held;
	fxs_xfer_send_reset(&tx);
	fxs_simnet_destroy(net);
	net = fxs_simnet_create(2, &none); /* what was in flight is gone too */
	fxs_xfer_sender tx2 = { 0 };
	CHECK(fxs_xfer_send_start(&tx2, 3, 9, blob, n));
	uint64_t ms = run_transfer(net, &tx2, &rx, now, 20000, NULL);
	bool whole = took_blob(&rx, blob, n, 9);
	uint64_t sent2 = tx2.chunks_sent;
	fxs_xfer_send_reset(&tx2);
	fxs_xfer_recv_free(&rx);
	fxs_simnet_destroy(net);
	free(blob);
	CHECKF(held >= 300 && ms != UINT64_MAX && whole && sent2 <= 475 - held + 64,
	       "held %u, %" PRIu64 " ms, whole %d, the new sender sent %" PRIu64, held, ms, whole, sent2);
}

/* The receiver's link is down for 5 s in the middle: the sender keeps
 * resending (at most a window per timeout), and everything resumes after. */
static bool down_2_to_7s(uint64_t now_ms) { return now_ms >= 2000 && now_ms < 7000; }
TEST(xfer_resumes_after_link_down)
{
	const size_t n = 300u * 1024u;
	uint8_t *blob = make_blob(n, 5);
	fxs_impair imp = { 0.10, 0.05, 20, 60, 99 };
	fxs_simnet *net = fxs_simnet_create(2, &imp);
	fxs_xfer_sender tx = { 0 };
	tx.window = 16; /* slow enough to be cut half way */
	fxs_xfer_receiver rx;
	fxs_xfer_recv_init(&rx, 0, 0, 0);
	CHECK(fxs_xfer_send_start(&tx, 3, 1, blob, n));
	uint64_t ms = run_transfer(net, &tx, &rx, 0, 30000, down_2_to_7s);
	bool whole = took_blob(&rx, blob, n, 1);
	uint64_t sent = tx.chunks_sent;
	fxs_xfer_send_reset(&tx);
	fxs_xfer_recv_free(&rx);
	fxs_simnet_destroy(net);
	free(blob);
	/* 356 chunks; while down, at most 16 per RTO_MAX (2 s) or per a shorter timeout */
	CHECKF(ms != UINT64_MAX && ms > 7000 && whole && sent < 356 * 3, "%" PRIu64 " ms, whole %d, sent %" PRIu64, ms,
	       whole, sent);
}

/* Builds one chunk message of (purpose 3, id, size, hash) by hand. */
static size_t forge_chunk(uint8_t *out, uint32_t id, uint32_t size, uint64_t hash, uint32_t index, const uint8_t *data,
			  uint32_t clen)
{
	memset(out, 0, 26);
	out[0] = FXS_XFER_KIND_CHUNK;
	out[1] = 3;
	for (int i = 0; i < 4; ++i) {
		out[4 + i] = (uint8_t)(id >> (8 * i));
		out[8 + i] = (uint8_t)(size >> (8 * i));
		out[20 + i] = (uint8_t)(index >> (8 * i));
	}
	for (int i = 0; i < 8; ++i)
		out[12 + i] = (uint8_t)(hash >> (8 * i));
	out[24] = (uint8_t)clen;
	out[25] = (uint8_t)(clen >> 8);
	if (data)
		memcpy(out + 26, data, clen);
	return 26 + clen;
}

/* A chunk whose data lies (the head of the real blob, other bytes): the
 * whole blob's hash catches it, every chunk is thrown away, the ack says so
 * (a new epoch), and the honest sender then sends it all again. */
TEST(xfer_lying_chunk_caught_by_hash)
{
	const size_t n = 3000; /* 4 chunks */
	uint8_t *blob = make_blob(n, 11);
	uint64_t h = XXH3_64bits(blob, n);
	fxs_xfer_receiver rx;
	fxs_xfer_recv_init(&rx, 0, 0, 0);
	uint8_t msg[FXS_XFER_MSG_MAX], bad[FXS_XFER_CHUNK];
	memset(bad, 0xee, sizeof bad);
	for (uint32_t i = 0; i < 4; ++i) {
		uint32_t clen = i < 3 ? FXS_XFER_CHUNK : (uint32_t)n - 3 * FXS_XFER_CHUNK;
		size_t len = forge_chunk(msg, 5, (uint32_t)n, h, i, i == 2 ? bad : blob + i * FXS_XFER_CHUNK, clen);
		CHECK(fxs_xfer_recv_chunk(&rx, msg, len) == FXS_XFER_OK);
	}
	CHECK(rx.state == FXS_XFER_RECEIVING && rx.n_held == 0 && rx.resets == 1 && rx.epoch == 1);
	CHECK(fxs_xfer_recv_take(&rx, NULL, NULL, NULL) == NULL);
	/* the honest sender: its first ack is of the new epoch; it ends whole */
	fxs_impair imp = { 0.10, 0.05, 20, 60, 3 };
	fxs_simnet *net = fxs_simnet_create(2, &imp);
	fxs_xfer_sender tx = { 0 };
	CHECK(fxs_xfer_send_start(&tx, 3, 5, blob, n));
	uint64_t ms = run_transfer(net, &tx, &rx, 0, 10000, NULL);
	bool whole = took_blob(&rx, blob, n, 5);
	fxs_xfer_send_reset(&tx);
	fxs_xfer_recv_free(&rx);
	fxs_simnet_destroy(net);
	free(blob);
	CHECK(ms != UINT64_MAX && whole);
}

/* Every malformed field has its reason, and changes nothing. */
TEST(xfer_rejects_lies_with_reasons)
{
	uint8_t data[FXS_XFER_CHUNK] = { 0 };
	uint8_t m[FXS_XFER_MSG_MAX + 8];
	fxs_xfer_receiver rx;
	fxs_xfer_recv_init(&rx, 100000, 0, 0);
	const uint32_t size = 2000; /* chunks 864, 864, 272 */
	size_t len;
#define EXPECT(e)                                                                                            \
	do {                                                                                                 \
		fxs_xfer_err got_ = fxs_xfer_recv_chunk(&rx, m, len);                                        \
		CHECKF(got_ == (e) && rx.state == FXS_XFER_RECV_IDLE, "%s, not %s", fxs_xfer_err_name(got_), \
		       fxs_xfer_err_name(e));                                                                \
	} while (0)
	len = 10;
	memset(m, 0, sizeof m);
	EXPECT(FXS_XFER_SHORT);
	len = forge_chunk(m, 1, size, 0, 0, data, FXS_XFER_CHUNK) + 8; /* past the most a message can be */
	EXPECT(FXS_XFER_LONG);
	len = forge_chunk(m, 1, size, 0, 0, data, FXS_XFER_CHUNK);
	m[0] = 9;
	EXPECT(FXS_XFER_KIND);
	m[0] = FXS_XFER_KIND_ACK; /* an ack given to a receiver */
	EXPECT(FXS_XFER_KIND);
	len = forge_chunk(m, 0, size, 0, 0, data, FXS_XFER_CHUNK); /* id 0 */
	EXPECT(FXS_XFER_FIELD);
	len = forge_chunk(m, 1, size, 0, 0, data, FXS_XFER_CHUNK);
	m[3] = 1; /* a chunk with an epoch */
	EXPECT(FXS_XFER_FIELD);
	len = forge_chunk(m, 1, 0, 0, 0, data, 0); /* size 0 */
	EXPECT(FXS_XFER_SIZE);
	len = forge_chunk(m, 1, FXS_XFER_MAX_SIZE + 1, 0, 0, data, FXS_XFER_CHUNK);
	EXPECT(FXS_XFER_SIZE);
	len = forge_chunk(m, 1, 200000, 0, 0, data, FXS_XFER_CHUNK); /* beyond this receiver's limit */
	EXPECT(FXS_XFER_TOO_BIG);
	CHECK(rx.ack_due && (rx.ack_flags & FXS_XFER_FLAG_REFUSED)); /* the sender will be told */
	uint8_t ack[FXS_XFER_MSG_MAX];
	CHECK(fxs_xfer_recv_poll(&rx, ack, sizeof ack) == 26 && ack[2] == FXS_XFER_FLAG_REFUSED);
	len = forge_chunk(m, 1, size, 0, 3, data, 272); /* index 3 of 3 chunks */
	EXPECT(FXS_XFER_INDEX);
	len = forge_chunk(m, 1, size, 0, 2, data, FXS_XFER_CHUNK); /* the last chunk claims a full length */
	EXPECT(FXS_XFER_LENGTH);
	len = forge_chunk(m, 1, size, 0, 0, data, 272); /* a middle chunk claims a short length */
	EXPECT(FXS_XFER_LENGTH);
	len = forge_chunk(m, 1, size, 0, 2, data, 272) - 1; /* the data cut short */
	EXPECT(FXS_XFER_SHORT);
	len = forge_chunk(m, 1, size, 0, 2, data, 272) + 1; /* a byte after the data */
	EXPECT(FXS_XFER_LONG);
	fxs_xfer_receiver pinned;
	fxs_xfer_recv_init(&pinned, 0, 3, 7);
	len = forge_chunk(m, 1, size, 0, 2, data, 272);
	CHECK(fxs_xfer_recv_chunk(&pinned, m, len) == FXS_XFER_OTHER);
	fxs_xfer_recv_free(&rx);

	/* acks given to a sender */
	uint8_t *blob = make_blob(size, 1);
	fxs_xfer_sender tx = { 0 };
	CHECK(fxs_xfer_send_start(&tx, 3, 1, blob, size));
	uint64_t h = tx.hash;
	uint8_t a[64];
	memset(a, 0, sizeof a);
	a[0] = FXS_XFER_KIND_ACK;
	a[1] = 3;
	a[4] = 1;
	a[8] = (uint8_t)size;
	a[9] = (uint8_t)(size >> 8);
	for (int i = 0; i < 8; ++i)
		a[12 + i] = (uint8_t)(h >> (8 * i));
	CHECK(fxs_xfer_send_ack(&tx, a, 26, 0) == FXS_XFER_OK); /* holds nothing: well formed */
	a[20] = 4;                                              /* contiguous 4 of 3 chunks */
	CHECK(fxs_xfer_send_ack(&tx, a, 26, 0) == FXS_XFER_BITMAP);
	a[20] = 1;
	a[24] = 3; /* 1 + 3 bits reach chunk 3 */
	CHECK(fxs_xfer_send_ack(&tx, a, 27, 0) == FXS_XFER_BITMAP);
	a[24] = 2;
	a[26] = 4; /* a bit past nbits */
	CHECK(fxs_xfer_send_ack(&tx, a, 27, 0) == FXS_XFER_BITMAP);
	a[26] = 2;
	CHECK(fxs_xfer_send_ack(&tx, a, 26, 0) == FXS_XFER_SHORT); /* the bitmap's byte missing */
	CHECK(fxs_xfer_send_ack(&tx, a, 28, 0) == FXS_XFER_LONG);
	a[12] ^= 1; /* another blob's hash */
	CHECK(fxs_xfer_send_ack(&tx, a, 27, 0) == FXS_XFER_OTHER);
	a[12] ^= 1;
	CHECK(tx.n_acked == 0 && tx.state == FXS_XFER_SENDING);                    /* nothing changed */
	CHECK(fxs_xfer_send_ack(&tx, a, 27, 0) == FXS_XFER_OK && tx.n_acked == 2); /* chunk 0, chunk 2 */
	fxs_xfer_send_reset(&tx);
	free(blob);
	CHECK(!fxs_xfer_send_start(&tx, 0, 1, data, 10) && !fxs_xfer_send_start(&tx, 1, 0, data, 10) &&
	      !fxs_xfer_send_start(&tx, 1, 1, data, 0) && !fxs_xfer_send_start(&tx, 1, 1, NULL, 10));
	CHECK(fxs_xfer_recv_chunk(NULL, m, len) != FXS_XFER_OK && fxs_xfer_send_ack(NULL, a, 27, 0) != FXS_XFER_OK);
#undef EXPECT
}

/* Random and mutated messages among the honest ones, to both ends: no crash,
 * no read outside a message (the sanitizers watch), and any blob that
 * completes is the one sent. */
TEST(xfer_fuzz_never_accepts_a_wrong_blob)
{
	const size_t n = 5000; /* 6 chunks */
	uint32_t rounds = test_quick ? 20000 : 200000;
	uint8_t *blob = make_blob(n, 8);
	uint64_t rng = 12345;
	fxs_xfer_sender tx = { 0 };
	fxs_xfer_receiver rx;
	fxs_xfer_recv_init(&rx, 1u << 20, 0, 0);
	CHECK(fxs_xfer_send_start(&tx, 3, 2, blob, n));
	uint8_t chunks[6][FXS_XFER_MSG_MAX];
	size_t clen[6];
	for (uint32_t i = 0; i < 6; ++i) {
		tx.next = i;
		clen[i] = fxs_xfer_send_poll(&tx, 0, chunks[i], sizeof chunks[i]);
		CHECK(clen[i] > 0);
	}
	uint8_t m[FXS_XFER_MSG_MAX + 64], ack[FXS_XFER_MSG_MAX];
	uint32_t completed = 0, accepted_bad = 0;
	uint64_t rejected = 0;
	for (uint32_t r = 0; r < rounds; ++r) {
		uint64_t x = test_rng_next(&rng);
		size_t len;
		uint32_t k = (uint32_t)(x % 6);
		switch ((x >> 8) % 4) {
		case 0: /* random bytes, random length */
			len = (size_t)((x >> 16) % sizeof m);
			for (size_t i = 0; i < len; ++i)
				m[i] = (uint8_t)test_rng_next(&rng);
			if (len && (x >> 40) % 2)
				m[0] = (uint8_t)(1 + (x >> 41) % 2);
			break;
		case 1: /* an honest chunk with 1..4 bytes changed */
		case 2:
			len = clen[k];
			memcpy(m, chunks[k], len);
			for (uint32_t j = 0; j <= (x >> 20) % 4; ++j)
				m[test_rng_next(&rng) % len] ^= (uint8_t)(1 + test_rng_next(&rng) % 255);
			break;
		default: /* an honest chunk, cut or lengthened */
			len = (size_t)((x >> 16) % (clen[k] + 32));
			memcpy(m, chunks[k], clen[k]);
			break;
		}
		if (fxs_xfer_recv_chunk(&rx, m, len) != FXS_XFER_OK)
			++rejected;
		fxs_xfer_send_ack(&tx, m, len, r); /* the same bytes as an ack */
		if ((x >> 50) % 3 == 0)            /* honest chunks too, so that blobs complete */
			fxs_xfer_recv_chunk(&rx, chunks[k], clen[k]);
		size_t al = fxs_xfer_recv_poll(&rx, ack, sizeof ack);
		if (al) {
			fxs_xfer_head h;
			CHECK(fxs_xfer_peek(ack, al, &h) == FXS_XFER_OK && h.kind == FXS_XFER_KIND_ACK);
			fxs_xfer_send_ack(&tx, ack, al, r);
		}
		CHECK(tx.n_acked <= tx.nchunks && rx.n_held <= rx.nchunks && rx.contiguous <= rx.nchunks);
		if (rx.state == FXS_XFER_RECEIVED) {
			size_t size = 0;
			uint8_t *b = fxs_xfer_recv_take(&rx, &size, NULL, NULL);
			if (size != n || memcmp(b, blob, n) != 0)
				++accepted_bad;
			++completed;
			free(b);
			/* forget it, to complete it again */
			fxs_xfer_recv_free(&rx);
			fxs_xfer_recv_init(&rx, 1u << 20, 0, 0);
		}
	}
	/* after all that, the honest chunks still make the blob (a poisoned
	 * partial one is thrown away by its hash, then made again) */
	for (int pass = 0; pass < 3 && rx.state != FXS_XFER_RECEIVED; ++pass)
		for (uint32_t k = 0; k < 6; ++k)
			fxs_xfer_recv_chunk(&rx, chunks[k], clen[k]);
	size_t size = 0;
	uint8_t *b = fxs_xfer_recv_take(&rx, &size, NULL, NULL);
	if (b && size == n && memcmp(b, blob, n) == 0)
		++completed;
	else
		++accepted_bad;
	free(b);
	fxs_xfer_send_reset(&tx);
	fxs_xfer_recv_free(&rx);
	free(blob);
	printf("    fuzz: %u rounds, %" PRIu64 " rejected, %u blobs completed, %u wrong\n", rounds, rejected, completed,
	       accepted_bad);
	CHECKF(accepted_bad == 0 && completed > 0 && rejected > rounds / 2,
	       "%u wrong blobs accepted, %u completed, %" PRIu64 " rejected", accepted_bad, completed, rejected);
}
