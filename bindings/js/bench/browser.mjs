// make bench-js, in Chromium: the same engines and run as in node
// (engines.mjs), in one page of Debian's Chromium, headless, driven by
// puppeteer-core (the package's dev dependency), the repository served by
// python3's static server on 127.0.0.1 (the page imports the package's dist/
// and build/js/bench-deps). Prints the page's table. Exits 0 with the reason
// when Chromium or puppeteer-core is missing. ROUNDS=3 by default.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { headlessChromium, freePort } from '../test/helpers.mjs';

const repo = fileURLToPath(new URL('../../..', import.meta.url));
const { chromium, puppeteer, missing } = await headlessChromium();
if (missing) {
	console.log(`bench-js: Chromium skipped: ${missing}`);
	process.exit(0);
}
const port = await freePort();
const server = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1', '--directory', repo], { stdio: 'ignore' });
const profile = mkdtempSync(join(tmpdir(), 'fixstep-bench-'));
const page = `http://127.0.0.1:${port}/bindings/js/bench/page.html?rounds=${Number(process.env.ROUNDS || 3)}`;
let browser = null, rc = 0;
try {
	for (let i = 0; i < 100; ++i) { // the server is up when it answers
		try { if ((await fetch(page)).ok) break; } catch { /* not yet */ }
		await new Promise((r) => setTimeout(r, 100));
	}
	browser = await puppeteer.launch({
		executablePath: chromium, headless: true, userDataDir: profile, protocolTimeout: 1800000,
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
	});
	const tab = await browser.newPage();
	tab.on('pageerror', (e) => console.error(`bench-js: the page: ${e}`));
	await tab.goto(page, { waitUntil: 'load' });
	await tab.waitForFunction(() => window.benchDone, { timeout: 1800000, polling: 1000 });
	const done = await tab.evaluate(() => window.benchDone);
	console.log(done.text);
	if (!done.ok) rc = 1;
} finally {
	if (browser) await browser.close();
	server.kill();
	rmSync(profile, { recursive: true, force: true });
}
process.exit(rc);
