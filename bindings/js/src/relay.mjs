#!/usr/bin/env node
// fixstep's WebSocket relay for sessions (node, on the `ws` package): peers
// that cannot reach each other directly (browsers) each open a WebSocket to
// it, and it forwards their session packets within a room. It is untrusted
// by design: it holds no key and reads nothing but the one-byte address in
// front of each packet; the packets are MAC'd end to end by the sessions
// (a relay that changes, forges or replays one gets it dropped as bad_mac,
// spoofed or replayed). It can only drop or delay them, as any network can.
//
// The wire: a client connects to ws://HOST:PORT/?room=ROOM&peer=K (K: its
// peer id, 0..63; ROOM: at most 64 characters) and sends binary messages
// [to, packet...]; the relay sends [from, packet...] to the connection of
// peer `to` in the same room (from: the sender's peer id, as the relay knows
// it). A second connection for the same room and peer replaces the first (a
// restart that rejoins). Anything else (text, a message of fewer than 2 or
// more than 1 + 1200 bytes, a peer id outside the room) is dropped and
// counted; a bad room or peer closes the connection with 4400 and why.
//
//   node relay.mjs [--port 8080] [--host 127.0.0.1]     (npx fixstep-relay)
//   import { startRelay } from 'fixstep/relay'; const r = await startRelay({ port: 0 });
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { WebSocketServer } from 'ws';

export const RELAY_MAX_PEERS = 64;
export const RELAY_MAX_PACKET = 1200; /* FXS_SESSION_PACKET_MAX */
const MAX_ROOM = 64;
const MAX_BUFFERED = 1 << 20; /* a peer that reads nothing: drop instead of queueing without end */

// Starts a relay: resolves to {port, url, stats, close()} once it listens.
// options: port (0: any free one), host (default 127.0.0.1), server (an
// http.Server to attach to instead), log (a function for one line a
// connection; default none).
export function startRelay(options = {}) {
	const host = options.host || '127.0.0.1';
	const log = options.log || (() => {});
	const rooms = new Map(); /* room -> Map(peer -> socket) */
	const stats = { connections: 0, forwarded: 0, dropped: 0, replaced: 0 };
	const wss = new WebSocketServer({
		...(options.server ? { server: options.server } : { port: options.port || 0, host }),
		maxPayload: RELAY_MAX_PACKET + 1,
		perMessageDeflate: false,
	});
	wss.on('connection', (ws, req) => {
		let room, peer;
		try {
			const u = new URL(req.url || '/', 'ws://relay');
			room = u.searchParams.get('room') || '';
			const p = u.searchParams.get('peer');
			peer = /^[0-9]{1,2}$/.test(p || '') ? Number(p) : -1;
		} catch {
			room = '', peer = -1;
		}
		if (!room || room.length > MAX_ROOM || peer < 0 || peer >= RELAY_MAX_PEERS) {
			ws.close(4400, `needs ?room=NAME (1..${MAX_ROOM} chars)&peer=K (0..${RELAY_MAX_PEERS - 1})`);
			return;
		}
		++stats.connections;
		let members = rooms.get(room);
		if (!members) rooms.set(room, (members = new Map()));
		const old = members.get(peer);
		if (old) {
			++stats.replaced;
			old.close(4409, 'replaced by a new connection of the same peer');
		}
		members.set(peer, ws);
		log(`relay: room ${room} peer ${peer} connected`);
		ws.on('message', (data, isBinary) => {
			const b = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
			const to = b.length >= 2 ? b[0] : -1;
			const dst = isBinary && to >= 0 && to < RELAY_MAX_PEERS && to !== peer ? members.get(to) : undefined;
			if (!dst || dst.readyState !== 1 || dst.bufferedAmount > MAX_BUFFERED) {
				++stats.dropped;
				return;
			}
			const m = Buffer.allocUnsafe(b.length);
			m[0] = peer;
			b.copy(m, 1, 1);
			dst.send(m, { binary: true });
			++stats.forwarded;
		});
		ws.on('close', () => {
			if (members.get(peer) === ws) members.delete(peer);
			if (members.size === 0 && rooms.get(room) === members) rooms.delete(room);
			log(`relay: room ${room} peer ${peer} left`);
		});
		ws.on('error', () => {});
	});
	return new Promise((resolve, reject) => {
		const ready = () => {
			const a = wss.address();
			const port = a && typeof a === 'object' ? a.port : options.port;
			resolve({
				port,
				url: `ws://${host.includes(':') ? `[${host}]` : host}:${port}/`,
				stats,
				close: () => new Promise((done) => {
					for (const c of wss.clients) c.terminate();
					wss.close(() => done());
				}),
			});
		};
		if (options.server) ready();
		else {
			wss.once('listening', ready);
			wss.once('error', reject);
		}
	});
}

// As a program: listen until stopped.
function isMain() {
	try { return import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href; } catch { return false; }
}
if (isMain()) {
	const arg = (k, d) => { const i = process.argv.indexOf(k); return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : d; };
	const port = Number(arg('--port', '8080')), host = arg('--host', '127.0.0.1');
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		console.error('usage: fixstep-relay [--port 8080] [--host 127.0.0.1]');
		process.exit(2);
	}
	const r = await startRelay({ port, host, log: (l) => console.log(l) });
	console.log(`fixstep relay on ${r.url}`);
}
