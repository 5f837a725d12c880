// The kernel's debug draw through the JavaScript API (World.draw), what the
// viewer draws from: every record tagged with its body's slot and the
// kernel's colour for what the body is, sensors apart, bounds; and the flat
// C API (src/*.c) built from the kernel's public headers alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as fx from '../dist/fixstep.mjs';
import { pkgDir, repo } from './helpers.mjs';

const { createScene, DEBUG_COLORS } = fx;
await fx.init();
const slots = (bodies) => bodies.map((b) => b.slot);

test('debug draw: every shape tagged with its body, colours by kind, sensors apart, bounds', () => {
	const w = createScene('all_shapes');
	w.step(60);
	const d = w.draw({ aabbs: true, contactPoints: true, contactNormals: true });
	const bodies = [...w.bodies()], seen = new Set();
	const colour = (b) => (b.isSensor ? DEBUG_COLORS.sensor : b.type === 'static' ? DEBUG_COLORS.static : b.type === 'kinematic' ? DEBUG_COLORS.kinematic : b.awake ? DEBUG_COLORS.dynamic : DEBUG_COLORS.sleeping);
	const each = (list, len, f) => { for (let o = 0; o < list.length; o += len(o)) f(o); };
	const check = (list, len, what, f) => each(list, len, (o) => {
		const b = w.bodyAt(list[o]);
		assert.ok(b, `a ${what} of slot ${list[o]}`);
		assert.equal(list[o + 1], colour(b), `slot ${b.slot}'s colour`);
		seen.add(b.slot);
		f(b, o);
	});
	check(d.boxes, () => 12, 'box', (b, o) => { if (b.shape.type === 'box') assert.deepEqual(Array.from(d.boxes.subarray(o + 2, o + 9)), Array.from(b.stateRaw().subarray(0, 7))); });
	check(d.spheres, () => 6, 'sphere', (b, o) => { if (b.shape.type === 'sphere') assert.deepEqual(Array.from(d.spheres.subarray(o + 2, o + 5)), Array.from(b.positionRaw())); });
	check(d.capsules, () => 9, 'capsule', (b, o) => {
		if (b.shape.type !== 'capsule') return;
		const p = b.positionRaw();
		for (let k = 0; k < 3; ++k) assert.ok(Math.abs(d.capsules[o + 2 + k] + d.capsules[o + 5 + k] - 2 * p[k]) <= 2, 'its segment is about its centre');
	});
	check(d.polygons, (o) => 3 + 3 * d.polygons[o + 2], 'hull face', (b, o) => {
		const a = b.aabbRaw();
		for (let k = 0; k < 3 * d.polygons[o + 2]; ++k) assert.ok(d.polygons[o + 3 + k] >= a[k % 3] - 2 && d.polygons[o + 3 + k] <= a[3 + (k % 3)] + 2, 'a hull vertex within its body');
	});
	check(d.triangles, () => 11, 'mesh triangle', (b) => assert.equal(b.shape.type, 'mesh'));
	assert.deepEqual([...seen].sort((a, b) => a - b), slots(bodies), 'every body drawn, each under its own slot');
	assert.deepEqual(slots(bodies), Array.from({ length: d.aabbs.length / 8 }, (_, k) => d.aabbs[8 * k]));
	each(d.aabbs, () => 8, (o) => assert.deepEqual(Array.from(d.aabbs.subarray(o + 2, o + 8)), Array.from(w.bodyAt(d.aabbs[o]).aabbRaw())));
	assert.ok(d.points.length / 4 === w.stats().contactPointCount && d.points.length > 0, 'the contact points');
	assert.equal(d.segments.length / 7, w.stats().contactCount, 'a normal per touching manifold (no joints here)');
	// only what meets the bounds
	const one = bodies.find((b) => b.type === 'dynamic'), near = w.draw({ bounds: one.aabb });
	assert.ok(near.aabbs.length === 0 && [...near.boxes, ...near.spheres].length < [...d.boxes, ...d.spheres].length);
	w.free();

	// the arena's capture zone: a sensor, drawn in the sensor colour, left out on request
	const a = createScene('arena');
	const zone = [...a.bodies()].find((b) => b.isSensor);
	assert.ok(zone, 'the arena has a sensor');
	const all = a.draw(), records = (dd) => [dd.boxes, dd.spheres, dd.capsules].flatMap((l, i) => { const n = [12, 6, 9][i], r = []; for (let o = 0; o < l.length; o += n) r.push([l[o], l[o + 1]]); return r; });
	assert.deepEqual(records(all).filter(([s]) => s === zone.slot).map(([, c]) => c), [DEBUG_COLORS.sensor]);
	assert.deepEqual(records(a.draw({ sensors: false })).filter(([s]) => s === zone.slot), []);
	assert.deepEqual(records(a.draw({ shapes: false })).map(([s]) => s), [zone.slot]);
	a.free();
});

test('a disabled body with the same bounds as a drawn one does not take its shapes', () => {
	const w = fx.World.create({ gravity: [0, 0, 0] });
	const cube = { type: 'box', halfExtents: [0.5, 0.5, 0.5] };
	const a = w.createBody({ position: [1, 2, 3], shape: cube }), b = w.createBody({ position: [1, 2, 3], shape: cube, isEnabled: false });
	const c = w.createBody({ position: [1, 2, 3], shape: cube });
	const tags = (d) => Array.from({ length: d.boxes.length / 12 }, (_, k) => [d.boxes[12 * k], d.boxes[12 * k + 1]]);
	assert.deepEqual(tags(w.draw()), [[a.slot, DEBUG_COLORS.dynamic], [c.slot, DEBUG_COLORS.dynamic]]);
	assert.deepEqual(tags(w.draw({ disabled: true })), [[a.slot, DEBUG_COLORS.dynamic], [b.slot, DEBUG_COLORS.disabled], [c.slot, DEBUG_COLORS.dynamic]]);
	w.free();
});

test('the flat C API compiles against the public headers alone (no kernel/src)', () => {
	const files = readdirSync(join(pkgDir, 'src')).filter((f) => f.endsWith('.c'));
	assert.ok(files.includes('fxjs_view.c'));
	for (const f of files)
		execFileSync(process.env.CC || 'cc', ['-std=c17', '-fsyntax-only', '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter',
			...['fixmath_glue', 'kernel/include', 'replays/include', 'session/include', 'replays', 'tools'].map((d) => '-I' + join(repo, d)), join(pkgDir, 'src', f)], { stdio: 'inherit' });
});
