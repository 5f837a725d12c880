// The page's game: the arena scene (two players) as a rollback session over
// the relay that served this page. Query: peer (0 or 1), ticks (default
// 600), seed (seeded inputs, as `fixstep synctest arena --seed N` plays
// them; without it, the keyboard), delay (input delay in ticks, default 2),
// room; fragment: key (64 hex digits, the session key, from the lobby: here
// the address serve.mjs printed). The page keeps pumping once its session
// is complete, so that the other peer hears it finished.
import * as fx from './fixstep.mjs';

const $ = (id) => document.getElementById(id);
const q = new URLSearchParams(location.search);
const peer = Number(q.get('peer') || 0), ticks = Number(q.get('ticks') || 600), seed = q.get('seed');
const delay = Number(q.get('delay') || 2);
const room = q.get('room') || 'arena';
const keyHex = new URLSearchParams(location.hash.slice(1)).get('key') || '';
$('peer').textContent = String(peer);

function fail(why) {
	$('status').textContent = why;
	document.body.dataset.error = why;
}

async function main() {
	if (!/^[0-9a-f]{64}$/.test(keyHex)) return fail('no #key= (64 hex digits) in the address');
	const key = Uint8Array.from(keyHex.match(/../g), (h) => parseInt(h, 16));
	await fx.init();
	const world = fx.createScene('arena');
	const keys = new Set();
	addEventListener('keydown', (e) => keys.add(e.key.toLowerCase()));
	addEventListener('keyup', (e) => keys.delete(e.key.toLowerCase()));
	const keyboard = () => fx.inputsToBytes([{
		moveX: (keys.has('d') ? 32767 : 0) - (keys.has('a') ? 32767 : 0),
		moveZ: (keys.has('s') ? 32767 : 0) - (keys.has('w') ? 32767 : 0),
		buttons: keys.has(' ') ? fx.BUTTONS.jump : 0,
	}]);
	$('status').textContent = 'connecting to the relay';
	const transport = await fx.connectRelay(`ws://${location.host}/`, { room, peer });
	const log = [];
	const session = new fx.Session({
		world, peers: 2, local: peer, mode: 'rollback', ticks, key, transport, inputDelay: delay,
		input: (tick, player) => (seed !== null ? fx.randomInputBytes(Number(seed), tick, player) : keyboard()),
		applyInputs: (w, bytes, tick) => w.applySceneInputs('arena', fx.inputsFromBytes(bytes), tick),
		onEvent: (e) => {
			if (e.type === 'synchronized') $('status').textContent = 'playing';
			log.push(e.line || `${e.type} peer ${e.peer}${e.tick ? ` tick ${e.tick}` : ''}`);
			$('events').textContent = log.slice(-4).join(' · ');
		},
	});
	$('status').textContent = 'synchronizing';
	const ctx = $('view').getContext('2d');
	setInterval(() => {
		session.pump(performance.now(), 16);
		$('tick').textContent = String(session.tick);
		$('confirmed').textContent = String(session.confirmed);
		$('ahead').textContent = String(session.framesAhead);
		$('rollbacks').textContent = String(session.stats.rollbacks);
		draw(ctx, world);
		if (session.desyncLine) $('status').textContent = session.desyncLine;
		if (session.complete && !document.body.dataset.done) {
			$('hash').textContent = session.hash(ticks);
			$('status').textContent = session.desync ? session.desyncLine || 'desync' : 'done';
			document.body.dataset.done = '1';
		}
	}, 4);
}

// Top view: every body at its x, z (the arena is about 24 m across).
function draw(ctx, world) {
	const p = world.poses(), s = 480 / 28, o = 240;
	ctx.clearRect(0, 0, 480, 480);
	for (let i = 0; i < p.length; i += 9) {
		if (!p[i]) continue;
		ctx.fillStyle = p[i] === 1 ? '#555' : p[i] === 2 ? '#8ab' : '#e8a33d';
		ctx.fillRect(o + (p[i + 1] / 65536) * s - 3, o + (p[i + 3] / 65536) * s - 3, 6, 6);
	}
}

main().catch((e) => fail(String(e && e.message ? e.message : e)));
