// make bench-js, in node: fixstep's wasm builds (the default entry, which is
// the SIMD128 build where node has SIMD128, and the portable build) against
// Rapier (@dimforge/rapier3d-deterministic-compat) and Jolt (jolt-physics),
// installed by run.sh into build/js/bench-deps, in one node process
// (engines.mjs says what is measured). ROUNDS=3 by default.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { fixstepEngine, rapierEngine, joltEngine, run } from './engines.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const require = createRequire(join(here, '../../../build/js/bench-deps/package.json'));
const fx = require(join(here, '../dist/fixstep.cjs')), fxp = require(join(here, '../dist/portable.cjs'));
await fx.init();
await fxp.init();
const R = require('@dimforge/rapier3d-deterministic-compat');
await R.init();
const jm = require('jolt-physics');
const J = await (typeof jm === 'function' ? jm : jm.default)();
run({
	engines: [['fixstep', fixstepEngine(fx)], ['fixstep portable', fixstepEngine(fxp)], ['rapier det', rapierEngine(R)], ['jolt', joltEngine(J)]],
	rounds: Number(process.env.ROUNDS || 3),
	header: `node ${process.version}, one process; fixstep's default entry: the ${fx.buildKernels().includes('simd128') ? 'SIMD128' : 'portable'} build; ` +
		`rapier3d-deterministic-compat ${R.version ? R.version() : '?'}; jolt-physics ${require('jolt-physics/package.json').version}`,
	log: (line) => console.log(line),
});
