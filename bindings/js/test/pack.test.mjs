// The package as a user gets it: `npm pack`, `npm install ./fixstep-*.tgz`
// in an empty folder (its one dependency, ws, from npm's cache when it is there,
// else from the registry: npm ci caches ws's tarball but not always the index
// an install resolves ws^8 with, and on a fresh machine --offline failed), and the
// 20-line example that builds a pyramid, steps 200 times and prints the hash
// that the native `fixstep run large_pyramid_b20 --steps 200` prints. Also
// the CommonJS entry and the SIMD128 build from the installed package, and
// its types under tsc --strict (targets es2020 and es2022, the default lib).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pkgDir, native, lastHash } from './helpers.mjs';

const npm = (args, cwd) => execFileSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });

test('npm pack, npm install the tarball in an empty folder, run the pyramid example', () => {
	const dir = mkdtempSync(join(tmpdir(), 'fixstep-pack-'));
	try {
		npm(['pack', pkgDir, '--pack-destination', dir, '--silent'], dir);
		const tgz = readdirSync(dir).filter((f) => /^fixstep-.*\.tgz$/.test(f));
		assert.equal(tgz.length, 1, `npm pack made ${tgz}`);
		// a license a studio can ship on, and the notices of what the wasm contains
		const listed = execFileSync('tar', ['-tzf', join(dir, tgz[0])], { encoding: 'utf8' }).split('\n');
		assert.ok(listed.includes('package/LICENSE'), `LICENSE not in the tarball: ${listed.join(' ')}`);
		assert.ok(listed.includes('package/THIRD_PARTY_NOTICES'), 'THIRD_PARTY_NOTICES not in the tarball');
		const packed = JSON.parse(execFileSync('tar', ['-xzOf', join(dir, tgz[0]), 'package/package.json'], { encoding: 'utf8' }));
		assert.equal(packed.license, 'MIT');
		const notices = execFileSync('tar', ['-xzOf', join(dir, tgz[0]), 'package/THIRD_PARTY_NOTICES'], { encoding: 'utf8' });
		assert.match(notices, /^libfixmath$/m);
		assert.match(notices, /^xxHash/m);
		assert.match(notices, /^libsodium/m);
		assert.ok(listed.includes('package/dist/relay.mjs'), 'the relay is in the tarball');
		assert.deepEqual(Object.keys(packed.dependencies || {}), ['ws']);
		assert.match(execFileSync('tar', ['-xzOf', join(dir, tgz[0]), 'package/LICENSE'], { encoding: 'utf8' }), /^MIT License/);
		const app = join(dir, 'app');
		execFileSync('mkdir', [app]);
		npm(['install', join('..', tgz[0]), '--prefer-offline', '--no-audit', '--no-fund', '--silent'], app);
		copyFileSync(join(pkgDir, 'examples/pyramid.mjs'), join(app, 'pyramid.mjs'));
		const got = execFileSync('node', ['pyramid.mjs'], { cwd: app, encoding: 'utf8' });
		const want = native('run', 'large_pyramid_b20', '--steps', '200');
		assert.equal(lastHash(got), lastHash(want));
		console.log(`  installed package: ${got.trim()}; native fixstep run large_pyramid_b20 --steps 200: ${want.trim()}`);
		writeFileSync(join(app, 'cjs.cjs'), "const fx = require('fixstep/portable'); const p = require('fixstep/simd128');\n" +
			"Promise.all([fx.init(), p.init()]).then(() => { const a = fx.createScene('drop'), b = p.createScene('drop'); a.step(300); b.step(300);\n" +
			"console.log(a.hash(), b.hash(), fx.buildKernels().join(','), p.buildKernels().join(','), require('fixstep').World === p.World); });\n");
		const [a, b, ka, kb, same] = execFileSync('node', ['cjs.cjs'], { cwd: app, encoding: 'utf8' }).trim().split(' ');
		assert.equal(a, lastHash(native('run', 'drop', '--steps', '300')));
		assert.equal(b, a);
		assert.equal(ka, 'portable');
		assert.equal(kb, 'portable,simd128');
		assert.equal(same, 'true', "require('fixstep') is the SIMD128 build on node");
		// TypeScript in the empty folder, on the installed package's types: --strict, the default lib
		const tsc = join(pkgDir, 'node_modules/typescript/bin/tsc');
		if (existsSync(tsc)) {
			writeFileSync(join(app, 'app.ts'), "import { init, World } from 'fixstep';\n" +
				'export async function run(): Promise<string> { await init(); const w = World.create(); w.step(); const h = w.hash(); w.dispose(); return h; }\n');
			for (const target of ['es2020', 'es2022']) {
				let out = '';
				try {
					execFileSync(process.execPath, [tsc, '--strict', '--noEmit', '--target', target, '--module', 'esnext', '--moduleResolution', 'bundler', 'app.ts'], { cwd: app, encoding: 'utf8' });
				} catch (e) {
					out = String(e.stdout) || String(e);
				}
				assert.equal(out, '', `tsc --strict --target ${target} on the installed package`);
			}
		}
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
});
