// The viewer in a real browser: Debian's Chromium, headless, driven by
// puppeteer-core, the page served by python3's static server on 127.0.0.1.
// It loads a scene through the page's controls, steps to tick 120, and the
// tick and hash on the page must equal the native `fixstep run`; the
// screenshot must show drawn bodies (its pixels are decoded and counted).
// The desync inspector, given a replay recorded with --tamper-input, must
// name the tick, body and field that `fixstep verify` names. Skipped (with
// the reason) when Chromium or puppeteer-core is not installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { createServer } from 'node:net';
import { pkgDir, repo, native, nativeStatus, lastHash } from './helpers.mjs';

const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
let puppeteer = null;
try {
	puppeteer = (await import('puppeteer-core')).default;
} catch {
	puppeteer = null;
}
const skip = !existsSync(chromium) ? `no Chromium at ${chromium} (apt-get install chromium)` : !puppeteer ? 'puppeteer-core is not installed (npm ci in bindings/js)' : false;
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

const freePort = () => new Promise((res, rej) => {
	const s = createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }).on('error', rej);
});

test('the viewer and the desync inspector in headless Chromium', { skip, timeout: 240000 }, async (t) => {
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
	} finally {
		if (browser) await browser.close();
		server.kill();
		rmSync(profile, { recursive: true, force: true });
	}
});
