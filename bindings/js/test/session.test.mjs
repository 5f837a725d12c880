// Sessions in JavaScript: the C session library in the package's wasm, its
// MACs by libsodium compiled to wasm (checked against native libsodium and
// node's own HMAC), and Sessions that play the arena scene over the
// package's WebSocket relay (started here, on 127.0.0.1) to one hash: the
// hash of `fixstep synctest arena` (the native session library's run of the
// same game and inputs). A perturbed peer's desync is named with the same
// line on both peers, and a packet the relay (untrusted) changed is dropped.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import * as fx from '../dist/fixstep.mjs';
import { startRelay } from '../dist/relay.mjs';
import { native, lastHash, nativeSodium } from './helpers.mjs';

const { Session, FixstepError, createScene, connectRelay, randomInputBytes, sodium, inputsFromBytes } = fx;
await fx.init();

const hex = (u8) => Buffer.from(u8).toString('hex');
const SCENE = 'arena', SEED = 7;

test('libsodium in wasm: crypto_auth and crypto_kdf_derive_from_key give native libsodium\'s bytes', () => {
	for (const len of [0, 1, 63, 64, 65, 200, 1200]) {
		const msg = new Uint8Array(randomBytes(len)), key = new Uint8Array(randomBytes(32)), id = len * 7 + 1;
		const n = nativeSodium(hex(msg) || '', hex(key), id);
		const mac = hex(sodium.auth(msg, key));
		assert.equal(mac, n.auth, `MAC of ${len} bytes`);
		// and HMAC-SHA-512 cut to 32 bytes, by node's OpenSSL: what crypto_auth is
		assert.equal(mac, createHmac('sha512', key).update(msg).digest('hex').slice(0, 64));
		assert.equal(hex(sodium.kdf(32, id, 'fxs-test', key)), n.kdf, `subkey ${id}`);
	}
});

// The game: the arena scene; player p's input of tick t is the seeded random
// one `fixstep synctest arena --seed 7` plays; applyInputs is the scene's
// input handler. perturb: after that tick, this peer moves the first dynamic
// body by 1 LSB (a desync on purpose, as `fixstep netdemo --perturb`).
function game(perturb = 0) {
	const world = createScene(SCENE);
	return {
		world,
		input: (tick, player) => randomInputBytes(SEED, tick, player),
		applyInputs(w, bytes, tick) {
			if (perturb && tick === perturb + 1) {
				const b = [...w.bodies()].find((x) => x.type === 'dynamic'), st = b.stateRaw(), raw = (v) => ({ raw: v });
				b.setTransform([raw(st[0] + 1), raw(st[1]), raw(st[2])], Array.from(st.subarray(3, 7), raw));
			}
			w.applySceneInputs(SCENE, inputsFromBytes(bytes), tick);
		},
	};
}

const relay = await startRelay({ port: 0 });
after(() => relay.close());
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Peers on the relay, pumped on their own clocks (offsets: ms added to
// performance.now(), hours apart) until every player peer is complete and
// the desync, when there is one, is named on both (a spectator: until it
// confirmed every tick).
async function play({ peers, players, mode, ticks, tickMs = 5, perturb = [], offsets = [], room, limitMs = 60000 }) {
	const key = new Uint8Array(randomBytes(32));
	const list = [];
	for (let k = 0; k < peers; ++k) {
		const g = game(perturb[k] || 0);
		const transport = await connectRelay(relay.url, { room, peer: k, WebSocket });
		const events = [];
		const s = new Session({ ...g, peers, local: k, players, mode, ticks, key, transport, sessionId: 42, onEvent: (e) => events.push(e) });
		list.push({ s, g, transport, events, offset: offsets[k] || 0 });
	}
	const t0 = performance.now();
	const named = () => !list.some((p) => p.s.desync) || list.every((p) => p.s.peerPlayers(p.s.local) === 0 || p.s.desyncLine);
	while (!(list.every((p) => (p.s.peerPlayers(p.s.local) === 0 ? p.s.confirmed === ticks : p.s.complete)) && named())) {
		for (const p of list) p.s.pump(performance.now() + p.offset, tickMs);
		if (performance.now() - t0 > limitMs) throw new Error(`not done in ${limitMs} ms: ticks ${list.map((p) => `${p.s.tick}/${p.s.confirmed}`).join(' ')}`);
		await sleep(1);
	}
	// a few more passes: the others hear that this one finished
	for (let i = 0; i < 20; ++i) { for (const p of list) p.s.pump(performance.now() + p.offset, tickMs); await sleep(1); }
	return list;
}
function close(list) {
	for (const p of list) { p.s.free(); p.g.world.free(); p.transport.close(); }
}

for (const mode of ['lockstep', 'rollback']) {
	test(`two Sessions (${mode}) and a spectator over the relay end on the native run's hash`, async () => {
		const ticks = 240, want = lastHash(native('synctest', SCENE, '--ticks', String(ticks), '--players', '2', '--seed', String(SEED), '--depth', '1'));
		const list = await play({ peers: 3, players: [1, 1, 0], mode, ticks, room: `play-${mode}`, offsets: [0, 5 * 3600e3, 17] });
		try {
			for (const p of list) {
				assert.equal(p.s.confirmed, ticks, `peer ${p.s.local} confirmed`);
				assert.equal(p.s.hash(ticks), want, `peer ${p.s.local}'s final hash`);
				assert.equal(p.g.world.hash(), want);
				assert.equal(p.s.desync, null);
				assert.equal(p.s.stats.droppedTotal, 0, JSON.stringify(p.s.stats.dropped));
				assert.ok(p.events.some((e) => e.type === 'synchronized'), `peer ${p.s.local}: ${JSON.stringify(p.events.map((e) => e.type))}`);
				assert.ok(!p.events.some((e) => ['absent', 'disconnected', 'desync'].includes(e.type)));
			}
			const st = list.map((p) => p.s.stats);
			console.log(`  ${mode}: hash ${want}; rollbacks ${st.map((x) => x.rollbacks).join('/')}, stalls ${st.map((x) => x.stalls).join('/')}, ` +
				`packets ${st.map((x) => x.packetsAccepted).join('/')}, frames ahead ${list.map((p) => p.s.framesAhead).join('/')}, rtt ${list[0].s.rttMs(1)} ms; relay forwarded ${relay.stats.forwarded}`);
		} finally {
			close(list);
		}
	});
}

test('a perturbed peer: the desync is named with the same line on both peers', async () => {
	const list = await play({ peers: 2, mode: 'rollback', ticks: 120, perturb: [0, 30], room: 'desync' });
	try {
		const [a, b] = list;
		assert.ok(a.s.desync && b.s.desync, 'both see a desync');
		assert.equal(a.s.desync.tick, 31);
		assert.equal(b.s.desync.tick, 31);
		assert.match(a.s.desyncLine, /^desync at tick 31: body \d+ field p\.x \(peer 0: .*, peer 1: .*\)$/);
		assert.equal(a.s.desyncLine, b.s.desyncLine);
		for (const p of list) {
			const named = p.events.find((e) => e.type === 'desync_named');
			assert.ok(named, `peer ${p.s.local}: ${JSON.stringify(p.events.map((e) => e.type))}`);
			assert.equal(named.line, a.s.desyncLine);
			assert.ok(p.events.some((e) => e.type === 'desync' && e.tick === 31));
		}
		console.log(`  ${a.s.desyncLine}`);
	} finally {
		close(list);
	}
});

test('the relay is untrusted: a changed, forged or replayed packet is dropped with its reason', () => {
	const net = [[], []];
	const mk = (k, key) => new Session({ world: createScene(SCENE), peers: 2, local: k, ticks: 10, key,
		transport: { send: (to, bytes) => net[to].push({ from: k, bytes }), receive: () => null } });
	const key = new Uint8Array(randomBytes(32));
	const a = mk(0, key), b = mk(1, key), other = mk(0, new Uint8Array(randomBytes(32)));
	try {
		a.pump(0, 16);
		const pkt = net[1].at(-1).bytes;
		const bad = pkt.slice(); bad[bad.length - 40] ^= 1;
		assert.equal(b.receive(bad, 0), 'bad_mac');
		other.pump(0, 16);
		assert.equal(b.receive(net[1].at(-1).bytes, 0), 'bad_mac', 'a packet under another key');
		assert.equal(b.receive(pkt, 1), 'spoofed', 'the transport says another peer than the packet');
		assert.equal(b.receive(pkt, 0), null);
		assert.equal(b.receive(pkt, 0), 'replayed');
		assert.equal(b.receive(new Uint8Array(1300), 0), 'oversized');
		assert.equal(b.stats.dropped.bad_mac, 2);
	} finally {
		for (const s of [a, b, other]) { s.world.free(); s.free(); }
	}
});

test('a bad configuration is refused with the C library\'s reason; a throwing applyInputs surfaces from pump', () => {
	const key = new Uint8Array(32).fill(7), world = createScene(SCENE);
	const transport = { send() {}, receive: () => null };
	try {
		assert.throws(() => new Session({ world, ticks: 0, key, transport }), (e) => e instanceof FixstepError && /ticks/.test(e.message));
		assert.throws(() => new Session({ world, ticks: 10, key: new Uint8Array(32), transport }), (e) => e instanceof FixstepError && /key/.test(e.message));
		assert.throws(() => new Session({ world, ticks: 10, key, transport, local: 5 }), FixstepError);
		assert.throws(() => new Session({ world, ticks: 10, key, transport, mode: 'bogus' }), TypeError);
		assert.throws(() => new Session({ world, ticks: 10, key: new Uint8Array(5), transport }), TypeError);
		assert.throws(() => new Session({ world, ticks: 10, key, transport, tickRate: 3 }), /unknown field 'tickRate'/);
		const s = new Session({ world, peers: 1, ticks: 10, key, transport, applyInputs() { throw new Error('game bug'); } });
		assert.throws(() => s.pump(0, 16), /game bug/);
		assert.equal(s.failed, true);
		s.free();
	} finally {
		world.free();
	}
});

test('a peer that leaves and comes back with join: absent, then rejoined; both end on one hash', async () => {
	const key = new Uint8Array(randomBytes(32)), ticks = 300, room = 'rejoin', tickMs = 8;
	const base = { peers: 2, mode: 'rollback', ticks, key, sessionId: 9, absentMs: 500 };
	const open = async (k, join) => {
		const g = game(), transport = await connectRelay(relay.url, { room, peer: k, WebSocket }), events = [];
		const s = new Session({ ...g, ...base, local: k, join, transport, onEvent: (e) => events.push(e) });
		return { s, g, transport, events };
	};
	const host = await open(0, false);
	let guest = await open(1, false);
	const t0 = performance.now(), pumpBoth = () => { host.s.pump(performance.now(), tickMs); guest?.s.pump(performance.now() + 3 * 3600e3, tickMs); };
	const until = async (cond, what, ms = 30000) => {
		const end = performance.now() + ms;
		while (!cond()) {
			pumpBoth();
			if (performance.now() > end) throw new Error(`${what}: not in ${ms} ms (host tick ${host.s.tick}/${host.s.confirmed}, guest ${guest ? `${guest.s.tick}/${guest.s.confirmed}` : 'gone'})`);
			await sleep(1);
		}
	};
	try {
		await until(() => guest.s.tick >= 100, 'peer 1 at tick 100');
		// peer 1 "crashes": its session and its connection are gone
		guest.s.free(); guest.g.world.free(); guest.transport.close();
		guest = null;
		await until(() => host.events.some((e) => e.type === 'absent' && e.peer === 1), 'peer 0 declares peer 1 absent');
		const stalledFrom = performance.now();
		guest = await open(1, true);
		await until(() => host.s.complete && guest.s.complete, 'both complete', 30000);
		for (let i = 0; i < 20; ++i) { pumpBoth(); await sleep(1); }
		const js = guest.s.joinStatus;
		console.log(`  rejoin: host ${host.s.hash(ticks)}, guest ${guest.s.hash(ticks)}; the guest loaded the state of tick ${js.stateTick}, its inputs from ${js.returnTick}; ` +
			`${Math.round(performance.now() - stalledFrom)} ms from the restart to the end; host events ${host.events.map((e) => e.type).filter((t) => !t.startsWith('synchroniz')).join(',')}; ` +
			`guest events ${guest.events.map((e) => e.type).filter((t) => !t.startsWith('synchroniz')).join(',')}; total ${Math.round(performance.now() - t0)} ms`);
		assert.equal(host.s.confirmed, ticks);
		assert.equal(guest.s.confirmed, ticks);
		assert.equal(guest.s.hash(ticks), host.s.hash(ticks));
		assert.equal(guest.g.world.hash(), host.g.world.hash());
		assert.ok(js.loaded && js.stateTick > 0 && js.returnTick > js.stateTick, JSON.stringify(js));
		assert.ok(host.events.some((e) => e.type === 'rejoined' && e.peer === 1), 'the host saw peer 1 rejoin');
		assert.ok(guest.events.some((e) => e.type === 'joined'), 'the guest saw its join done');
		assert.equal(host.s.desync, null, `host: ${JSON.stringify(host.s.desync)} ${host.s.desyncLine}`);
		assert.equal(guest.s.desync, null, `guest: ${JSON.stringify(guest.s.desync)} ${guest.s.desyncLine}`);
	} finally {
		for (const p of [host, guest]) if (p) { p.s.free(); p.g.world.free(); p.transport.close(); }
	}
});
