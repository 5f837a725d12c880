// The two-page example (examples/relay-game) in headless Chromium: its
// server (the page, dist/fixstep.mjs and the WebSocket relay on one port,
// 127.0.0.1) started here, two pages opened as peers 0 and 1 of a rollback
// session with a fresh key and seeded inputs; both must finish on the hash
// of the native session library's run of the same game (`fixstep synctest
// arena --seed 7`), with no desync and no error on either page. Skipped
// (with the reason) when Chromium or puppeteer-core is not installed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { native, lastHash, headlessChromium } from './helpers.mjs';
import { startExample } from '../examples/relay-game/serve.mjs';

const { chromium, puppeteer, missing: skip } = await headlessChromium();

test('two pages play the arena through the relay in headless Chromium, to the native hash', { skip, timeout: 240000 }, async () => {
	const ticks = 300, seed = 7;
	const want = lastHash(native('synctest', 'arena', '--ticks', String(ticks), '--players', '2', '--seed', String(seed), '--depth', '1'));
	const ex = await startExample({ port: 0 });
	const profile = mkdtempSync(join(tmpdir(), 'fixstep-chromium-'));
	let browser = null;
	try {
		browser = await puppeteer.launch({
			executablePath: chromium, headless: true, userDataDir: profile,
			args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
				'--disable-sync', '--disable-background-timer-throttling', '--disable-renderer-backgrounding', '--disable-backgrounding-occluded-windows',
				`--user-data-dir=${profile}`],
		});
		const key = randomBytes(32).toString('hex'), errors = [];
		const pages = [];
		for (const peer of [0, 1]) {
			const page = await browser.newPage();
			page.on('pageerror', (e) => errors.push(`page ${peer}: ${e}`));
			page.on('console', (m) => { if (m.type() === 'error') errors.push(`page ${peer}: ${m.text()}`); });
			await page.goto(`${ex.url}?peer=${peer}&ticks=${ticks}&seed=${seed}&delay=0&room=test#key=${key}`, { waitUntil: 'load' });
			pages.push(page);
		}
		const state = () => Promise.all(pages.map((page) => page.evaluate(() => ({ error: document.body.dataset.error || '',
			status: document.getElementById('status').textContent, hash: document.getElementById('hash').textContent,
			tick: document.getElementById('tick').textContent, confirmed: document.getElementById('confirmed').textContent,
			rollbacks: document.getElementById('rollbacks').textContent, events: document.getElementById('events').textContent }))));
		try {
			for (const page of pages) await page.waitForFunction(() => document.body.dataset.done === '1' || document.body.dataset.error, { timeout: 120000, polling: 250 });
		} catch (e) {
			throw new Error(`${e.message}: the pages show ${JSON.stringify(await state())}`);
		}
		const got = await state();
		console.log(`  pages: ${got.map((r, k) => `peer ${k} ${r.status} hash ${r.hash} confirmed ${r.confirmed} rollbacks ${r.rollbacks}`).join('; ')}; native ${want}; relay forwarded ${ex.relay.stats.forwarded}`);
		for (const r of got) {
			assert.equal(r.error, '');
			assert.equal(r.status, 'done');
			assert.equal(r.confirmed, String(ticks));
			assert.equal(r.hash, want);
		}
		assert.deepEqual(errors, []);
	} finally {
		if (browser) await browser.close();
		rmSync(profile, { recursive: true, force: true });
		await ex.close();
	}
});
