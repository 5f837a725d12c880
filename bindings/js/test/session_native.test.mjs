// A JavaScript peer and a native one in one session: the package's Session
// on node's UDP sockets (dgram, a transport of the test's own) and a
// `fixstep peer` process (the C library with Debian's libsodium) on
// 127.0.0.1, the same key and the seeded arena game on both. Their packets
// must be accepted both ways (the wasm's libsodium MACs as native's does):
// both end on one hash, the native synctest's; and with the native peer
// perturbed, both print the same desync line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { randomBytes } from 'node:crypto';
import * as fx from '../dist/fixstep.mjs';
import { native, nativeBin, lastHash } from './helpers.mjs';

const { Session, createScene, randomInputBytes, inputsFromBytes } = fx;
await fx.init();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A UDP transport: peer k at 127.0.0.1:ports[k]; a datagram counts as peer
// k's only from that address and port (as fxs_udp does).
async function udp(ports, local) {
	const sock = createSocket('udp4'), queue = [];
	await new Promise((ok, fail) => sock.once('error', fail).bind(ports[local], '127.0.0.1', ok));
	sock.on('message', (msg, rinfo) => {
		const from = rinfo.address === '127.0.0.1' ? ports.indexOf(rinfo.port) : -1;
		if (queue.length < 4096) queue.push({ from, bytes: new Uint8Array(msg) });
	});
	return { send: (to, bytes) => sock.send(bytes, ports[to], '127.0.0.1'), receive: () => queue.shift(), close: () => sock.close() };
}
async function freePorts(n) {
	const socks = [];
	for (let i = 0; i < n; ++i) {
		const s = createSocket('udp4');
		await new Promise((ok) => s.bind(0, '127.0.0.1', ok));
		socks.push(s);
	}
	const ports = socks.map((s) => s.address().port);
	for (const s of socks) s.close();
	return ports;
}

async function withNative({ mode, ticks, perturbNative = 0 }) {
	const ports = await freePorts(2), key = randomBytes(32).toString('hex');
	const args = ['peer', '--port', String(ports[0]), '--peers', ports.map((p) => `127.0.0.1:${p}`).join(','), '--player', '0', '--scene', 'arena',
		'--ticks', String(ticks), '--seed', '7', '--mode', mode, '--session', '5', '--tick-ms', '8', '--timeout-ms', '20000', '--key', key];
	if (perturbNative) args.push('--perturb-at', String(perturbNative));
	const proc = spawn(nativeBin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	proc.stdout.on('data', (d) => { out += d; });
	proc.stderr.on('data', (d) => { out += d; });
	const exited = new Promise((ok) => proc.on('exit', (code) => ok(code)));
	const transport = await udp(ports, 1), world = createScene('arena');
	const s = new Session({
		world, peers: 2, local: 1, mode, ticks, sessionId: 5, key: Uint8Array.from(Buffer.from(key, 'hex')), transport,
		input: (tick, player) => randomInputBytes(7, tick, player),
		applyInputs: (w, bytes, tick) => w.applySceneInputs('arena', inputsFromBytes(bytes), tick),
	});
	let code = null;
	exited.then((c) => { code = c; });
	try {
		const t0 = performance.now();
		while (code === null || !(s.complete || s.desyncLine)) {
			s.pump(performance.now(), 8);
			if (performance.now() - t0 > 60000) throw new Error(`not done in 60 s: JS at ${s.tick}/${s.confirmed}; native said: ${out.slice(-400)}`);
			await sleep(1);
		}
		for (let i = 0; i < 20; ++i) { s.pump(performance.now(), 8); await sleep(1); }
		const result = Object.fromEntries((/^result (.*)$/m.exec(out) || ['', ''])[1].split(' ').filter(Boolean).map((kv) => kv.split('=')));
		const st = s.stats;
		return { out, code, result, js: { hash: s.hash(ticks), desync: s.desync, desyncLine: s.desyncLine, rollbacks: st.rollbacks, accepted: st.packetsAccepted, dropped: st.droppedTotal, drops: st.dropped } };
	} finally {
		if (code === null) proc.kill();
		transport.close();
		s.free();
		world.free();
	}
}

test('a JS Session and a native `fixstep peer` over UDP: one session, the native synctest\'s hash', { timeout: 120000 }, async () => {
	const ticks = 240, want = lastHash(native('synctest', 'arena', '--ticks', String(ticks), '--players', '2', '--seed', '7', '--depth', '1'));
	const { js, out, code, result } = await withNative({ mode: 'rollback', ticks });
	assert.equal(code, 0, out);
	assert.equal(result.hash, want, out);
	assert.equal(js.hash, want);
	assert.equal(result.dropped, '0', out);
	assert.equal(js.dropped, 0, JSON.stringify(js.drops));
	console.log(`  native peer: ${(/^result .*$/m.exec(out) || [out])[0]}\n  JS peer: hash ${js.hash}, rollbacks ${js.rollbacks}, accepted ${js.accepted}`);
});

test('a desync between a native peer and a JS peer is named with the same line on both', { timeout: 120000 }, async () => {
	const { js, out, code } = await withNative({ mode: 'lockstep', ticks: 120, perturbNative: 40 });
	assert.equal(code, 4, `exit 4 on a desync: ${out}`);
	assert.equal(js.desync && js.desync.tick, 40); // --perturb-at moves the body after the step of that tick
	assert.match(js.desyncLine, /^desync at tick 40: body \d+ field p\.x \(peer 0: .*, peer 1: .*\)$/);
	assert.ok(out.includes(`peer 0: ${js.desyncLine}`), `the native peer printed the same line: ${out}`);
	console.log(`  both: ${js.desyncLine}`);
});
