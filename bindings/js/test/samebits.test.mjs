// Same bits as native: every corpus replay re-simulated through the JS API
// (both wasm builds: portable, and SIMD128 stepped tick by tick from JS) must match every tick's recorded hash and end on the
// MANIFEST's final hash, and every built-in scene stepped through the JS API
// must end on the hash the native `fixstep run` prints for the same steps
// (computed now by the native build, not copied).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as fx from '../dist/fixstep.mjs';
import * as simd from '../dist/simd128.mjs';
import { corpusDir, manifest, native, lastHash } from './helpers.mjs';

await fx.init();
await simd.init();
const entries = manifest(readFileSync(join(corpusDir, 'MANIFEST'), 'utf8'));

test('the corpus lists a replay of every scene', () => {
	// (and one of API calls, players 0: no scene)
	assert.deepEqual(entries.filter((e) => e.players > 0).map((e) => e.scene).sort(), fx.scenes().map((s) => s.name).sort());
});

for (const e of entries) {
	test(`corpus replay ${e.file}: every tick's hash, final ${e.hash}`, () => {
		const r = fx.Replay.parse(readFileSync(join(corpusDir, e.file)));
		try {
			assert.equal(r.tickCount, e.ticks);
			if (e.players === 0) { // API calls: only for a verifier that asks for them
				const refused = r.verify();
				assert.equal(refused.status, 'refused');
				assert.match(refused.message, /API calls/);
			}
			const v = r.verify(e.players === 0 ? { mode: 'calls' } : {});
			assert.equal(v.status, 'ok', v.message);
			assert.equal(v.hash, e.hash);
			assert.equal(r.finalHash, e.hash);
			// the SIMD128 build, stepping tick by tick from JS
			const pr = simd.Replay.parse(readFileSync(join(corpusDir, e.file)));
			const w = pr.start();
			for (let i = 0; i < pr.tickCount; ++i) {
				pr.step(w, i);
				assert.equal(w.hash(), pr.tickHash(i), `SIMD128 build, tick ${pr.tickNumber(i)}`);
			}
			w.free();
			pr.free();
		} finally {
			r.free();
		}
	});
}

// Steps per scene: the default up to 120, the big benchmark scenes fewer
// (the crosscheck runs them longer, natively and as wasm under node).
function steps(s) {
	if (['large_pyramid', 'many_pyramids', 'falling_spheres', 'joint_grid'].includes(s.name)) return 10;
	return Math.min(s.defaultSteps, 120);
}

for (const s of fx.scenes()) {
	test(`scene ${s.name}: the JS API's hash equals native fixstep run --steps ${steps(s)}`, () => {
		const n = steps(s);
		const want = lastHash(native('run', s.name, '--steps', String(n)));
		const w = fx.createScene(s.name);
		w.step(n);
		assert.equal(w.hash(), want);
		w.free();
	});
}
