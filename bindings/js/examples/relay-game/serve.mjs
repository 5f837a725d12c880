// Two browser pages play one fixstep session through the WebSocket relay.
//
//   node examples/relay-game/serve.mjs [--port 8080]
//   then open  http://127.0.0.1:8080/?peer=0#key=...  and  ?peer=1#key=...
//   (the line printed gives both addresses with a fresh session key)
//
// This serves the page (index.html, game.mjs), the package's dist/fixstep.mjs
// (with the two builds it picks from) and the relay (fixstep/relay) on the
// same port: the pages' WebSockets go to
// ws://HOST:PORT/. The session key travels in the address's fragment (#key=),
// which browsers never send to a server: the relay forwards packets it could
// not forge. A real game's lobby gives each player the key instead.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { startRelay } from 'fixstep/relay';

const FILES = {
	'/': ['index.html', 'text/html'], '/index.html': ['index.html', 'text/html'],
	'/game.mjs': ['game.mjs', 'text/javascript'], '/fixstep.mjs': ['../../dist/fixstep.mjs', 'text/javascript'],
	'/portable.mjs': ['../../dist/portable.mjs', 'text/javascript'], '/simd128.mjs': ['../../dist/simd128.mjs', 'text/javascript'],
};

// Resolves to {url, relay, close()} once listening on 127.0.0.1 (port 0: any free one).
export async function startExample({ port = 8080, host = '127.0.0.1' } = {}) {
	const server = createServer(async (req, res) => {
		const path = new URL(req.url, 'http://x').pathname, f = FILES[path];
		if (path === '/favicon.ico') { res.writeHead(204).end(); return; }
		if (!f) { res.writeHead(404).end('not found'); return; }
		try {
			const body = await readFile(new URL(f[0], import.meta.url));
			res.writeHead(200, { 'content-type': f[1], 'cache-control': 'no-store' }).end(body);
		} catch (e) {
			res.writeHead(500).end(String(e));
		}
	});
	await new Promise((ok, fail) => server.listen(port, host, ok).once('error', fail));
	const relay = await startRelay({ server });
	const url = `http://${host}:${server.address().port}/`;
	return {
		url, relay,
		close: async () => { await relay.close(); server.closeAllConnections?.(); await new Promise((ok) => server.close(ok)); },
	};
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
	const i = process.argv.indexOf('--port');
	const ex = await startExample({ port: i > 0 ? Number(process.argv[i + 1]) : 8080 });
	const key = randomBytes(32).toString('hex');
	console.log(`open ${ex.url}?peer=0#key=${key}\nand  ${ex.url}?peer=1#key=${key}`);
}
