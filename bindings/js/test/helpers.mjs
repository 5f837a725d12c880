// Shared by the package's tests: where the repository, the native fixstep
// program and the built package are, and how to run the native program.
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repo = resolve(pkgDir, '../..');
export const nativeBin = process.env.FIXSTEP_BIN || join(repo, 'build/fixstep');
export const corpusDir = join(repo, 'replays/corpus');

// The native program's output (stdout), failing the test when it fails to run.
export function native(...args) {
	if (!existsSync(nativeBin)) throw new Error(`${nativeBin} is missing: run make first (or set FIXSTEP_BIN)`);
	return execFileSync(nativeBin, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
}

// The native exit status and output of a command that may fail (verify, diff).
export function nativeStatus(...args) {
	try {
		return { status: 0, out: native(...args) };
	} catch (e) {
		if (typeof e.status !== 'number') throw e;
		return { status: e.status, out: String(e.stdout) };
	}
}

// "hash 0123456789abcdef" on the last line -> the hex digits
export function lastHash(out) {
	const m = /hash ([0-9a-f]{16})\s*$/.exec(out.trim());
	if (!m) throw new Error(`no final hash in: ${out.slice(-200)}`);
	return m[1];
}

// The corpus's replays: {scene, file, ticks, players, hash} from MANIFEST.
export function manifest(text) {
	return text.split('\n').filter((l) => l && !l.startsWith('#')).map((l) => {
		const [scene, file, ticks, players, hash] = l.split(/\s+/);
		return { scene, file, ticks: Number(ticks), players: Number(players), hash };
	});
}

// bindings/js/test/native_events.c built against the native library
// (build/libfixstep.a), once per run: it restores a snapshot, steps it and
// prints every step's events (the lines eventLines makes from JavaScript).
let nativeEventsExe = null;
export function nativeEvents(snapshot, steps) {
	if (!nativeEventsExe) {
		const exe = join(repo, 'build/js/native_events'), lib = join(repo, 'build/libfixstep.a');
		if (!existsSync(lib)) throw new Error(`${lib} is missing: run make first`);
		execFileSync(process.env.CC || 'cc', ['-std=c17', '-O2', '-Wall', '-Werror', '-I' + join(repo, 'kernel/include'), '-I' + join(repo, 'fixmath_glue'),
			'-o', exe, join(pkgDir, 'test/native_events.c'), lib, '-llibfixmath', '-l:libxxhash.a'], { stdio: 'inherit' });
		nativeEventsExe = exe;
	}
	const dir = mkdtempSync(join(tmpdir(), 'fixstep-events-'));
	try {
		writeFileSync(join(dir, 'world.snap'), snapshot);
		return execFileSync(nativeEventsExe, [join(dir, 'world.snap'), String(steps)], { encoding: 'utf8', maxBuffer: 1 << 26 });
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

// The same lines from the JavaScript API: `steps` steps of `world`.
export function eventLines(world, steps) {
	const id = (b) => ` ${b.index1}:${b.generation}`, v = (p) => ` ${p.x} ${p.y} ${p.z}`;
	const lines = [];
	for (let s = 1; s <= steps; ++s) {
		world.step();
		const c = world.contactEvents({ raw: true }), e = world.sensorEvents();
		for (const b of c.begin) lines.push(`${s} begin${id(b.bodyA)}${id(b.bodyB)} ${b.childA} ${b.childB}${v(b.normal)}${v(b.point)} ${b.separation} ${b.pointCount}`);
		for (const x of c.end) lines.push(`${s} end${id(x.bodyA)}${id(x.bodyB)} ${x.childA} ${x.childB}`);
		for (const h of c.hit) lines.push(`${s} hit${id(h.bodyA)}${id(h.bodyB)} ${h.childA} ${h.childB}${v(h.point)}${v(h.normal)} ${h.approachSpeed}`);
		for (const x of e.begin) lines.push(`${s} sensor begin${id(x.sensor)}${id(x.visitor)}`);
		for (const x of e.end) lines.push(`${s} sensor end${id(x.sensor)}${id(x.visitor)}`);
	}
	lines.push(`hash ${world.hash()}`);
	return lines.join('\n') + '\n';
}

// bindings/js/test/native_sodium.c built against Debian's libsodium, once
// per run: the sessions' MAC and key derivation computed natively.
let nativeSodiumExe = null;
export function nativeSodium(messageHex, keyHex, subkeyId) {
	if (!nativeSodiumExe) {
		const exe = join(repo, 'build/js/native_sodium');
		execFileSync(process.env.CC || 'cc', ['-std=c17', '-O2', '-Wall', '-Werror', '-o', exe, join(pkgDir, 'test/native_sodium.c'), '-lsodium'], { stdio: 'inherit' });
		nativeSodiumExe = exe;
	}
	const out = execFileSync(nativeSodiumExe, [messageHex, keyHex, String(subkeyId)], { encoding: 'utf8' });
	return Object.fromEntries(out.trim().split('\n').map((l) => l.split(' ')));
}

// Debian's Chromium and puppeteer-core, for what drives a page (the browser
// tests, make bench-js): { chromium, puppeteer, missing }, missing the reason
// they cannot run (false when they can)
export async function headlessChromium() {
	const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
	let puppeteer = null;
	try {
		puppeteer = (await import('puppeteer-core')).default;
	} catch {
		puppeteer = null;
	}
	const missing = !existsSync(chromium) ? `no Chromium at ${chromium} (apt-get install chromium)`
		: !puppeteer ? 'puppeteer-core is not installed (npm ci in bindings/js)' : false;
	return { chromium, puppeteer, missing };
}

// a TCP port free on 127.0.0.1 just now (for a server the caller starts)
export const freePort = () => new Promise((res, rej) => {
	const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }).on('error', rej);
});
