// The viewer in a real browser: Debian's Chromium, headless, driven by
// puppeteer-core, the page served by python3's static server on 127.0.0.1.
// It loads a scene through the page's controls, steps to tick 120, and the
// tick and hash on the page must equal the native `fixstep run`; the
// screenshot must show drawn bodies (its pixels are decoded and counted).
// The desync inspector, given a replay recorded with --tamper-input, must
// name the tick, body and field that `fixstep verify` names. A game's own
// replay (a world built in JavaScript, 5-byte inputs, per-tick states) plays
// to its last tick from its recorded states with no handler, and with the
// game's handler registered the inspector names its tampered tick as the
// JS API's verify does. Also: the counts at tick 0, the scene list while a
// replay is loaded, the inspector's lines within the panel, the school's
// camera not against a wall, and the arena's two teams in two colours.
// Skipped (with the reason) when Chromium or puppeteer-core is not installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { pkgDir, repo, native, nativeStatus, lastHash, headlessChromium, freePort } from './helpers.mjs';
import * as fx from '../dist/fixstep.mjs';

const { chromium, puppeteer, missing: skip } = await headlessChromium();
const shots = process.env.FIXSTEP_SCREENSHOTS || join(repo, 'build/js/screenshots');

// A PNG's pixels (8-bit RGB or RGBA, not interlaced: what Chromium writes).
function decodePng(buf) {
	assert.equal(buf.toString('latin1', 1, 4), 'PNG');
	let o = 8, w = 0, h = 0, ch = 0;
	const idat = [];
	while (o < buf.length) {
		const len = buf.readUInt32BE(o), type = buf.toString('latin1', o + 4, o + 8), d = buf.subarray(o + 8, o + 8 + len);
		if (type === 'IHDR') {
			w = d.readUInt32BE(0), h = d.readUInt32BE(4);
			assert.equal(d[8], 8, 'bit depth 8');
			ch = { 2: 3, 6: 4 }[d[9]];
			assert.ok(ch && d[12] === 0, 'RGB(A), not interlaced');
		} else if (type === 'IDAT') idat.push(d);
		o += 12 + len;
	}
	const raw = inflateSync(Buffer.concat(idat)), px = Buffer.alloc(w * h * ch), stride = w * ch;
	for (let y = 0; y < h; ++y) {
		const f = raw[y * (stride + 1)], src = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		for (let x = 0; x < stride; ++x) {
			const a = x >= ch ? px[y * stride + x - ch] : 0, b = y ? px[(y - 1) * stride + x] : 0, c = x >= ch && y ? px[(y - 1) * stride + x - ch] : 0;
			const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
			const pred = f === 0 ? 0 : f === 1 ? a : f === 2 ? b : f === 3 ? (a + b) >> 1 : pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
			px[y * stride + x] = (src[x] + pred) & 255;
		}
	}
	return { w, h, ch, px };
}

// Pixels right of the panel (x >= 360 CSS px) that are neither the
// background nor grey: the coloured dynamic bodies.
function colouredFraction(png, dpr) {
	let n = 0, all = 0;
	for (let y = 0; y < png.h; ++y)
		for (let x = Math.ceil(360 * dpr); x < png.w; ++x) {
			const i = (y * png.w + x) * png.ch, r = png.px[i], g = png.px[i + 1], b = png.px[i + 2];
			++all;
			if (Math.max(r, g, b) - Math.min(r, g, b) > 40) ++n;
		}
	return n / all;
}

// Pixels in the sensor colour (0x2ecc71, its edges drawn full): strongly green.
function greenPixels(png) {
	let n = 0;
	for (let i = 0; i < png.px.length; i += png.ch) if (png.px[i + 1] > 150 && png.px[i + 1] - png.px[i] > 80 && png.px[i + 1] - png.px[i + 2] > 40) ++n;
	return n;
}

// Pixels of a hue band (degrees), saturated and bright: a team's colour.
function huePixels(png, lo, hi) {
	let n = 0;
	for (let i = 0; i < png.px.length; i += png.ch) {
		const r = png.px[i] / 255, g = png.px[i + 1] / 255, b = png.px[i + 2] / 255, mx = Math.max(r, g, b), mn = Math.min(r, g, b);
		if (mx < 0.35 || mx - mn < 0.35 * mx) continue;
		const d = mx - mn, h = 60 * (mx === r ? ((g - b) / d + 6) % 6 : mx === g ? (b - r) / d + 2 : (r - g) / d + 4);
		if (h >= lo && h <= hi) ++n;
	}
	return n;
}

// A game of its own (not a built-in scene): three balls pushed by 5-byte
// inputs (x and z pushes as int8, a jump flag), written in JavaScript.
function gameWorld() {
	const w = fx.World.create();
	w.createBody({ type: 'static', position: [0, -1, 0], shape: { type: 'box', halfExtents: [20, 1, 20] } });
	for (let p = 0; p < 3; ++p) w.createBody({ position: [3 * p - 3, 0.5, 0], shape: { type: 'sphere', radius: 0.5 } });
	return w;
}
function gameApply(w, bytes) {
	for (let p = 0; p < 3; ++p) {
		const x = (bytes[5 * p] << 24) >> 24, z = (bytes[5 * p + 1] << 24) >> 24;
		w.bodyAt(1 + p).applyImpulse([x * 4, bytes[5 * p + 2] & 1 ? 1500 : 0, z * 4]);
	}
}
// 150 ticks recorded with per-tick states; at tick `tamper` the file gets
// other bytes than the ones that ran (as a cheat would write).
function gameReplay(tamper) {
	const w = gameWorld(), rec = new fx.Recorder(w, { scene: 'newcomer_game', players: 3, inputSize: 5 });
	const startHash = w.hash();
	for (let t = 1; t <= 150; ++t) {
		const b = Uint8Array.from({ length: 15 }, (_, i) => ((t * 29 + i * 53) % 97) - 48 & 255);
		gameApply(w, b);
		w.step();
		if (t === tamper) b[0] ^= 0x20;
		rec.tick(b);
	}
	const bytes = rec.finish();
	w.free();
	return { bytes, startHash };
}

if (!skip) await fx.init();

test('the viewer and the desync inspector in headless Chromium', { skip, timeout: 360000 }, async (t) => {
	const port = await freePort();
	const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', join(pkgDir, 'dist/viewer')], { stdio: 'ignore' });
	const profile = mkdtempSync(join(tmpdir(), 'fixstep-chromium-'));
	let browser = null;
	try {
		// the server is up when it answers
		for (let i = 0; i < 100; ++i) {
			try { if ((await fetch(`http://127.0.0.1:${port}/index.html`)).ok) break; } catch { /* not yet */ }
			await new Promise((r) => setTimeout(r, 100));
		}
		browser = await puppeteer.launch({
			executablePath: chromium, headless: true, userDataDir: profile,
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
				'--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', `--user-data-dir=${profile}`],
		});
		const page = await browser.newPage();
		const errors = [];
		page.on('pageerror', (e) => errors.push(String(e)));
		page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
		await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
		mkdirSync(shots, { recursive: true });

		await t.test('a scene stepped to tick 120 shows the native hash and drawn bodies', async () => {
			await page.goto(`http://127.0.0.1:${port}/index.html`, { waitUntil: 'load' });
			await page.waitForSelector('body[data-ready="1"]', { timeout: 60000 });
			await page.select('#scene', 'pyramid_20');
			await page.click('#load');
			// at tick 0: the bodies there, not the (absent) last step's count
			const w0 = fx.createScene('pyramid_20'), n0 = w0.bodyCount;
			w0.free();
			assert.equal(await page.$eval('#counts', (e) => e.textContent), `${n0} bodies, contacts after the first step`);
			await page.click('#show-contacts');
			await page.$eval('#goto', (e) => { e.value = '120'; });
			await page.click('#go');
			await page.waitForFunction(() => document.getElementById('tick').textContent === '120', { timeout: 60000 });
			const tick = await page.$eval('#tick', (e) => e.textContent), hash = await page.$eval('#hash', (e) => e.textContent);
			const want = lastHash(native('run', 'pyramid_20', '--steps', '120'));
			assert.equal(tick, '120');
			assert.equal(hash, want, 'the page shows the native hash after 120 steps');
			await new Promise((r) => setTimeout(r, 300)); // a few frames drawn
			const file = join(shots, 'viewer.png');
			await page.screenshot({ path: file });
			const frac = colouredFraction(decodePng(readFileSync(file)), 1);
			console.log(`  viewer: tick ${tick} hash ${hash} (native ${want}); ${(100 * frac).toFixed(1)}% coloured pixels; ${file}`);
			assert.ok(frac > 0.01, `only ${(100 * frac).toFixed(2)}% of the view is drawn bodies: a blank canvas?`);
			assert.deepEqual(errors, []);
		});

		await t.test('the arena, played by its scripted players: the native state at tick 120, its sensor drawn apart', async () => {
			await page.select('#scene', 'arena');
			await page.click('#load');
			await page.$eval('#goto', (e) => { e.value = '120'; });
			await page.click('#go');
			await page.waitForFunction(() => document.getElementById('tick').textContent === '120', { timeout: 60000 });
			const hash = await page.$eval('#hash', (e) => e.textContent);
			const want = /^state ([0-9a-f]{16})$/m.exec(native('events', 'arena', '--steps', '120'))[1];
			assert.equal(hash, want, 'the page shows the state fixstep events arena --steps 120 ends on');
			await new Promise((r) => setTimeout(r, 300));
			const file = join(shots, 'arena.png');
			await page.screenshot({ path: file });
			// the capture zone is the only green thing: the kernel's sensor colour, its edges drawn full
			const png = decodePng(readFileSync(file)), green = greenPixels(png), frac = colouredFraction(png, 1);
			console.log(`  arena: tick 120 hash ${hash} (native ${want}); ${green} sensor-green pixels, ${(100 * frac).toFixed(1)}% coloured; ${file}`);
			assert.ok(green > 50, 'the capture zone is drawn in the sensor colour');
			// the two teams in two colours: blue (team 0) and yellow (team 1), their players and bullets
			const blue = huePixels(png, 205, 225), yellow = huePixels(png, 46, 60);
			console.log(`  arena: team 0 ${blue} blue pixels, team 1 ${yellow} yellow pixels`);
			assert.ok(blue > 100 && yellow > 100, `each team in its colour: ${blue} blue, ${yellow} yellow pixels`);
			await page.click('#show-sensors');
			await new Promise((r) => setTimeout(r, 300));
			await page.screenshot({ path: join(shots, 'arena-nosensors.png') });
			const green2 = greenPixels(decodePng(readFileSync(join(shots, 'arena-nosensors.png'))));
			assert.ok(green2 < green / 10, `sensors off: ${green2} green pixels`);
			await page.click('#show-sensors');
			assert.deepEqual(errors, []);
		});

		await t.test('the inspector names the tick, body and field fixstep verify names', async () => {
			const dir = mkdtempSync(join(tmpdir(), 'fixstep-tamper-'));
			try {
				const file = join(dir, 'tampered.fxr');
				native('record', 'box_stack', '--steps', '180', '--random-inputs', '1', '--tamper-input', '90', '-o', file);
				const v = nativeStatus('verify', file, '--quiet');
				assert.equal(v.status, 1, 'fixstep verify rejects the tampered replay');
				const line = v.out.trim().split('\n').at(-1);
				const m = /^diverged at step (\d+): body (\d+) field (\S+) \(expected (.*), got (.*)\)$/.exec(line);
				assert.ok(m, `verify printed: ${line}`);
				const input = await page.$('#inspect-a');
				await input.uploadFile(file);
				await page.click('#inspect');
				await page.waitForSelector('body[data-inspected="1"]', { timeout: 60000 });
				const r = await page.$eval('#report', (e) => ({ text: e.firstChild ? e.firstChild.textContent : '', ...e.dataset }));
				assert.equal(r.text, line, 'the same line as fixstep verify');
				assert.equal(r.step, m[1]);
				assert.equal(r.body, m[2]);
				assert.equal(r.field, m[3]);
				const tick = await page.$eval('#tick', (e) => e.textContent);
				assert.equal(Number(tick), Number(m[1]), 'the view jumped to the tick where the runs part');
				await new Promise((r2) => setTimeout(r2, 300));
				const shot = join(shots, 'inspector.png');
				await page.screenshot({ path: shot });
				// the diverging body is drawn in pure red
				const png = decodePng(readFileSync(shot));
				let red = 0;
				for (let i = 0; i < png.px.length; i += png.ch) if (png.px[i] > 180 && png.px[i + 1] < 90 && png.px[i + 2] < 90) ++red;
				console.log(`  inspector: "${r.text}" (fixstep verify: "${line}"); ${red} red pixels; ${shot}`);
				assert.ok(red > 50, 'the diverging body is highlighted');
				assert.deepEqual(errors, []);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		});

		await t.test('the school opens with a clear line of sight, not against a wall', async () => {
			await page.select('#scene', 'school');
			await page.click('#load');
			await page.waitForFunction(() => document.body.dataset.cameraClear !== undefined);
			assert.equal(await page.evaluate(() => document.body.dataset.cameraClear), '1', 'a view no static body blocks');
			await new Promise((r) => setTimeout(r, 300));
			const file = join(shots, 'school.png');
			await page.screenshot({ path: file });
			const frac = colouredFraction(decodePng(readFileSync(file)), 1);
			console.log(`  school: ${(100 * frac).toFixed(1)}% coloured pixels; ${file}`);
			assert.ok(frac > 0.002, 'bodies in view, not one grey wall');
			assert.deepEqual(errors, []);
		});

		await t.test('a game\'s own replay: played from its states, then inspected with its handler', async () => {
			const dir = mkdtempSync(join(tmpdir(), 'fixstep-game-'));
			try {
				const { bytes, startHash } = gameReplay(40);
				const file = join(dir, 'newcomer_game.fxr');
				writeFileSync(file, bytes);
				const r = fx.Replay.parse(bytes), n = r.tickCount, last = r.tickHash(n - 1);
				const want = r.verify({ applyInputBytes: gameApply, startHash });
				r.free();
				assert.equal(want.status, 'diverged');
				assert.equal(want.step, 40);
				// no handler: it plays from its recorded states to its last tick
				await (await page.$('#file')).uploadFile(file);
				await page.waitForFunction(() => document.body.dataset.play === 'states', { timeout: 60000 });
				assert.match(await page.$eval('#source', (e) => e.textContent), /newcomer_game.*played from its recorded states/);
				// the scene list no longer names the last scene
				assert.equal(await page.$eval('#scene', (e) => e.options[e.selectedIndex].textContent), '(replay: newcomer_game.fxr)');
				await page.click('#play');
				await page.waitForFunction((k) => document.getElementById('tick').textContent === String(k), { timeout: 60000 }, n);
				assert.equal(await page.$eval('#hash', (e) => e.textContent), last, 'the last tick\'s recorded hash');
				assert.equal(await page.$eval('#play', (e) => e.textContent), 'play', 'it stopped at the end');
				// the inspector without the handler says what it can
				await page.evaluate(() => { delete document.body.dataset.inspected; });
				await (await page.$('#inspect-a')).uploadFile(file);
				await page.click('#inspect');
				await page.waitForSelector('body[data-inspected="1"]', { timeout: 60000 });
				assert.match(await page.$eval('#report', (e) => e.textContent), /no input handler for 'newcomer_game'.*150 recorded states match/);
				// the game registers its handler: the inspector re-simulates and names the tampered tick
				await page.evaluate((src) => window.fixstepViewer.registerGame('newcomer_game', { applyInputBytes: (0, eval)(`(${src})`) }), gameApply.toString());
				await page.evaluate(() => { delete document.body.dataset.inspected; });
				await page.click('#inspect');
				await page.waitForSelector('body[data-inspected="1"]', { timeout: 60000 });
				const got = await page.$eval('#report', (e) => ({ text: e.firstChild ? e.firstChild.textContent : '', ...e.dataset }));
				assert.equal(got.text, want.message, 'the message the JS API\'s verify gives');
				assert.equal(got.step, '40');
				assert.equal(got.body, String(want.body));
				assert.equal(await page.$eval('#tick', (e) => e.textContent), '40');
				assert.equal(await page.evaluate(() => document.body.dataset.play), 'game');
				await new Promise((r2) => setTimeout(r2, 300));
				const shot = join(shots, 'game-inspector.png');
				await page.screenshot({ path: shot });
				console.log(`  a game's replay: ${n} ticks played from its states (hash ${last}); inspector: "${got.text}"; ${shot}`);
				assert.deepEqual(errors, []);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		});

		await t.test('two replays whose inputs part: the inspector\'s lines stay inside the panel', async () => {
			const dir = mkdtempSync(join(tmpdir(), 'fixstep-two-'));
			try {
				const a = join(dir, 'a.fxr'), b = join(dir, 'b.fxr');
				writeFileSync(a, fx.Replay.record({ scene: 'box_stack', steps: 120, perturbTick: 60 }).bytes);
				writeFileSync(b, fx.Replay.record({ scene: 'box_stack', steps: 120 }).bytes);
				await page.evaluate(() => { delete document.body.dataset.inspected; });
				await (await page.$('#inspect-a')).uploadFile(a);
				await (await page.$('#inspect-b')).uploadFile(b);
				await page.click('#inspect');
				await page.waitForSelector('body[data-inspected="1"]', { timeout: 60000 });
				const text = await page.$eval('#report', (e) => e.textContent);
				assert.match(text, /inputs part at step 60: player 0/);
				const fit = await page.evaluate(() => {
					const panel = document.getElementById('panel').getBoundingClientRect(), rep = document.getElementById('report');
					let right = rep.getBoundingClientRect().right;
					for (const el of rep.querySelectorAll('*')) right = Math.max(right, el.getBoundingClientRect().right);
					return { right, panel: panel.right, scroll: rep.scrollWidth, client: rep.clientWidth };
				});
				assert.ok(fit.right <= fit.panel && fit.scroll <= fit.client, `the report reaches x ${fit.right} (${fit.scroll} px wide in ${fit.client}), the panel ends at ${fit.panel}`);
				await page.screenshot({ path: join(shots, 'inspector-two.png') });
				// loading a scene again: the list names it
				await page.select('#scene', 'drop');
				await page.click('#load');
				assert.equal(await page.$eval('#scene', (e) => e.options[e.selectedIndex].textContent), 'drop');
				assert.deepEqual(errors, []);
			} finally {
				rmSync(dir, { recursive: true, force: true });
			}
		});
	} finally {
		if (browser) await browser.close();
		server.kill();
		rmSync(profile, { recursive: true, force: true });
	}
});
