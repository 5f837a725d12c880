// The sessions' WebSocket relay (src/relay.mjs) on its own: it forwards a
// binary [to, packet] to peer `to` of the same room as [from, packet] and
// nothing else (another room, text, a message too long or too short, to
// itself: dropped and counted), refuses a connection without a room and a
// peer id in range, and a second connection of one peer replaces the first.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { startRelay, RELAY_MAX_PACKET } from '../dist/relay.mjs';

const relay = await startRelay({ port: 0 });
after(() => relay.close());

function connect(query) {
	return new Promise((ok, fail) => {
		const ws = new WebSocket(`${relay.url}?${query}`), got = [];
		ws.binaryType = 'nodebuffer';
		ws.on('message', (d, binary) => got.push({ d: Buffer.from(d), binary }));
		ws.once('open', () => ok({ ws, got }));
		ws.once('error', fail);
	});
}
const closed = (ws) => new Promise((ok) => ws.once('close', (code, reason) => ok({ code, reason: String(reason) })));
const settle = () => new Promise((r) => setTimeout(r, 150));

test('the relay forwards within a room, by the address byte, with the sender\'s id', async () => {
	const a = await connect('room=r1&peer=0'), b = await connect('room=r1&peer=1'), c = await connect('room=r2&peer=1');
	const before = { ...relay.stats };
	a.ws.send(Buffer.from([1, 10, 20, 30]));
	a.ws.send(Buffer.from([1, 7]));
	await settle();
	assert.deepEqual(b.got.map((m) => [...m.d]), [[0, 10, 20, 30], [0, 7]]);
	assert.ok(b.got.every((m) => m.binary));
	assert.equal(c.got.length, 0, 'another room hears nothing');
	a.ws.send('text is not a packet');
	a.ws.send(Buffer.from([1])); // no packet
	a.ws.send(Buffer.from([0, 1, 2])); // to itself
	a.ws.send(Buffer.from([5, 1, 2])); // nobody there
	await settle();
	assert.equal(b.got.length, 2);
	assert.equal(relay.stats.forwarded - before.forwarded, 2);
	assert.equal(relay.stats.dropped - before.dropped, 4);
	const big = closed(a.ws);
	a.ws.send(Buffer.alloc(RELAY_MAX_PACKET + 2, 1)); // longer than 1 + 1200 bytes: ws closes it
	assert.equal((await big).code, 1009);
	for (const x of [b, c]) x.ws.close();
});

test('a connection without a room or with a peer id out of range is refused; a rejoin replaces the old one', async () => {
	for (const q of ['peer=0', 'room=x&peer=64', 'room=x&peer=-1', 'room=x', `room=${'y'.repeat(65)}&peer=0`]) {
		const ws = new WebSocket(`${relay.url}?${q}`);
		const r = await closed(ws);
		assert.equal(r.code, 4400, q);
		assert.match(r.reason, /needs \?room=/);
	}
	const old = await connect('room=r3&peer=2'), gone = closed(old.ws);
	const fresh = await connect('room=r3&peer=2'), other = await connect('room=r3&peer=0');
	assert.equal((await gone).code, 4409);
	other.ws.send(Buffer.from([2, 99]));
	await settle();
	assert.deepEqual(fresh.got.map((m) => [...m.d]), [[0, 99]]);
	assert.equal(old.got.length, 0);
	for (const x of [fresh, other]) x.ws.close();
});
