// The contact solver's SIMD128 kernel against the portable one, as
// tests/test_batch.c compares the AVX2 and AVX-512 kernels: the C tests built
// for wasm with -msimd128 (build.sh tests), run under node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { repo } from './helpers.mjs';

test('tests/test_batch.c under node: SIMD128 gives the portable kernel\'s bits on every scene', () => {
	const out = execFileSync('node', [join(repo, 'build/js/simd128/fixstep_tests.js'), 'batch_'], { encoding: 'utf8' });
	console.log(out.trim().split('\n').map((l) => '  ' + l).join('\n'));
	assert.match(out, /SIMD128: the same bits as the portable kernel on all \d+ scenes/);
	assert.match(out, /SIMD128: the same bits while saturating, on a plank \(\d+ saturations counted\)/);
	assert.match(out, /SIMD128: the same bits while saturating, on the ground/);
	assert.match(out, /^\d+ passed, 0 failed$/m);
});
