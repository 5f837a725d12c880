// The SIMD128 kernels against the portable ones, as tests/test_batch.c and
// tests/test_narrowphase.c compare the AVX2, AVX-512 and NEON kernels: the C
// tests built for wasm with -msimd128 (build.sh tests), run under node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { repo } from './helpers.mjs';

const run = (filter) => {
	const out = execFileSync('node', [join(repo, 'build/js/simd128/fixstep_tests.js'), filter], { encoding: 'utf8' });
	console.log(out.trim().split('\n').map((l) => '  ' + l).join('\n'));
	return out;
};

test('tests/test_batch.c under node: SIMD128 gives the portable kernels\' bits on every scene', () => {
	const out = run('batch_');
	assert.match(out, /SIMD128: the same bits as the portable kernel on all \d+ scenes/);
	assert.match(out, /SIMD128: the same bits while saturating, on a plank \(\d+ saturations counted\)/);
	assert.match(out, /SIMD128: the same bits while saturating, on the ground/);
	assert.match(out, /SIMD128: ball joints, the same bits while saturating \([1-9]\d* saturations counted\)/);
	assert.match(out, /^\d+ passed, 0 failed$/m);
});

test('tests/test_narrowphase.c under node: the SIMD128 box-box axes give the scalar fields', () => {
	const out = run('np_box_tests_vector');
	assert.match(out, /simd128: [1-9]\d* of \d+ pairs taken by the vector tests, 0 differ/);
	assert.match(out, /^1 passed, 0 failed$/m);
});

test('tests/test_narrowphase.c under node: the SIMD128 recycling test gives the scalar contacts', () => {
	const out = run('np_recycle_vector');
	assert.match(out, /simd128: [1-9]\d* of \d+ pairs taken by the vector test, [1-9]\d* kept, [1-9]\d* of them slid, 0 differ/);
	assert.match(out, /^1 passed, 0 failed$/m);
});

test('tests/test_integrate.c under node: the SIMD128 position integration gives the scalar bodies', () => {
	const out = run('integrate_vector');
	assert.match(out, /simd128: [1-9]\d* of \d+ moving bodies taken by the vector kernel, [1-9]\d* of them turning/);
	assert.match(out, /^1 passed, 0 failed$/m);
});
