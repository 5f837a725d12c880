// The JavaScript API: conversions at the boundary, bodies, snapshots,
// queries, joints, the character controller, replays, memory ownership.
// Physics is checked against closed forms within stated tolerances.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import * as fx from '../dist/fixstep.mjs';
import * as portable from '../dist/portable.mjs';
import * as simd from '../dist/simd128.mjs';

const { World, Replay, Recorder, FixstepError, createScene, toFixed, fromFixed, fixed } = fx;
await fx.init();
await portable.init();
await simd.init();

function groundWorld(def = {}) {
	const w = World.create(def);
	w.createBody({ type: 'static', position: [0, -1, 0], shape: { type: 'box', halfExtents: [20, 1, 20] } });
	return w;
}

test('numbers become Q16.16 by rounding to nearest, ties away from zero', () => {
	assert.equal(toFixed(1), 65536);
	assert.equal(toFixed(0.1), 6554); // 6553.6
	assert.equal(toFixed(-0.1), -6554);
	assert.equal(toFixed(0.5 / 65536), 1); // a tie: away from zero
	assert.equal(toFixed(-0.5 / 65536), -1);
	assert.equal(toFixed(1.49 / 65536), 1);
	assert.equal(toFixed(fixed(12345)), 12345);
	assert.equal(fromFixed(98304), 1.5);
	assert.equal(toFixed(-32768), -2147483648);
	assert.throws(() => toFixed(32768), RangeError);
	assert.throws(() => toFixed(NaN), RangeError);
	assert.throws(() => toFixed('1'), TypeError);
	assert.throws(() => fixed(1.5), RangeError);
});

test('definitions are checked: unknown fields, bad enums, refused bodies', () => {
	assert.throws(() => World.create({ gravty: [0, -10, 0] }), /unknown field 'gravty'/);
	assert.throws(() => World.create({ substeps: 0 }), FixstepError);
	const w = World.create();
	assert.throws(() => w.createBody({ shape: { type: 'cone', radius: 1 } }), /one of sphere/);
	assert.throws(() => w.createBody({ shape: { type: 'sphere' } }), /needs a radius/);
	assert.throws(() => w.createBody({ shape: { type: 'sphere', radius: -1 } }), FixstepError);
	w.free();
});

test('a dropped ball falls as symplectic Euler predicts, and lands', () => {
	const w = groundWorld();
	const b = w.createBody({ position: [0, 10.5, 0], shape: { type: 'sphere', radius: 0.5 } });
	const dt = w.def.dt, g = 10, h = dt / w.def.substeps, m = 30 * w.def.substeps;
	w.step(30);
	// per sub-step of h, velocity first, then position: y_m = y0 - g h^2 m (m + 1) / 2
	const want = 10.5 - g * h * h * m * (m + 1) / 2;
	assert.ok(Math.abs(b.position.y - want) < 1e-3, `y ${b.position.y}, closed form ${want}`);
	assert.ok(Math.abs(b.linearVelocity.y + g * dt * 30) < 1e-3);
	w.step(270);
	assert.ok(Math.abs(b.position.y - 0.5) < 0.02, `resting at ${b.position.y}, want 0.5 within 2 cm`);
	assert.deepEqual(Array.from(b.positionRaw()), [b.position.x, b.position.y, b.position.z].map((x) => x * 65536));
	w.free();
});

test('hash is 16 hex digits and the same number as hashBigInt', () => {
	const w = createScene('box_stack');
	w.step(10);
	const h = w.hash();
	assert.match(h, /^[0-9a-f]{16}$/);
	assert.equal(BigInt('0x' + h), w.hashBigInt());
	assert.equal(w.stepCount, 10);
	w.free();
});

test('snapshot and restore: the same state, the same future; bad bytes refused', () => {
	const w = createScene('shapes');
	w.step(50);
	const snap = w.snapshot();
	assert.ok(snap instanceof Uint8Array && snap.length === w.snapshotSize());
	const c = World.restore(snap);
	assert.equal(c.hash(), w.hash());
	w.step(50);
	c.step(50);
	assert.equal(c.hash(), w.hash());
	c.restore(snap);
	assert.equal(c.stepCount, 50);
	const bad = snap.slice();
	bad[bad.length >> 1] ^= 0x40;
	assert.throws(() => World.restore(bad), FixstepError);
	assert.throws(() => c.restore(snap.subarray(0, 20)), FixstepError);
	assert.equal(c.stepCount, 50, 'a refused restore leaves the world as it was');
	w.free();
	c.free();
});

test('free() is explicit and safe: a freed world refuses use', () => {
	const w = World.create();
	const b = w.createBody({ shape: { type: 'sphere', radius: 1 } });
	w.free();
	w.free(); // twice is harmless
	assert.equal(w.freed, true);
	assert.throws(() => w.step(), /freed/);
	assert.equal(b.valid, false);
});

test('bodies: ids go stale when destroyed; forces and impulses act', () => {
	const w = World.create({ gravity: [0, 0, 0] });
	const a = w.createBody({ position: [0, 0, 0], shape: { type: 'box', halfExtents: [0.5, 0.5, 0.5] }, density: 1000, userData: 7 });
	assert.equal(a.userData, 7);
	assert.equal(a.type, 'dynamic');
	assert.ok(Math.abs(a.mass.mass - 1000) < 1e-3, `mass ${a.mass.mass}`);
	a.applyImpulse([1000, 0, 0]); // 1 m/s on 1000 kg
	assert.ok(Math.abs(a.linearVelocity.x - 1) < 1e-4);
	w.step(60); // 1 s at 1 m/s
	assert.ok(Math.abs(a.position.x - 60 * w.def.dt) < 1e-3);
	// the movers refuse what they cannot do, with the C call's reason, and change nothing
	const wall = w.createBody({ type: 'static', position: [5, 0, 0], shape: { type: 'sphere', radius: 1 } });
	const h = w.hash();
	const refused = (name) => (e) => e instanceof fx.FixstepError && e.code === 1 && e.message.includes(name);
	assert.throws(() => wall.applyForce([1, 0, 0]), refused('applyForce'));
	assert.throws(() => wall.applyImpulse([1, 0, 0]), refused('applyImpulse'));
	assert.throws(() => wall.setLinearVelocity([1, 0, 0]), refused('setLinearVelocity'));
	assert.throws(() => a.setTransform([0, 0, 0], [0, 0, 0, 0]), refused('setTransform'));
	assert.equal(w.hash(), h);
	wall.setTransform([6, 0, 0]); // a static body is moved where it is put
	assert.equal(wall.position.x, 6);
	assert.equal(a.destroy(), true);
	assert.equal(a.valid, false);
	assert.throws(() => a.position, /not valid/);
	const b = w.createBody({ shape: { type: 'sphere', radius: 1 } });
	assert.equal(b.slot, a.slot);
	assert.notEqual(b.generation, a.generation);
	w.free();
});

test('a cylinder: its shape, closed-form mass and inertia, a ray on its side, standing on its cap', () => {
	const w = groundWorld();
	assert.throws(() => w.createBody({ shape: { type: 'cylinder', radius: 0.5 } }), /needs a halfHeight/);
	const c = w.createBody({ position: [0, 1, 0], density: 1000, shape: { type: 'cylinder', radius: 0.5, halfHeight: 1 } });
	assert.deepEqual(c.shape, { type: 'cylinder', radius: 0.5, halfHeight: 1 });
	// m = pi rho r^2 h, Iy = m r^2 / 2, Ix = Iz = m (3 r^2 + h^2) / 12 (h = 2)
	const m = Math.PI * 1000 * 0.25 * 2, { mass, inertia } = c.mass;
	assert.ok(Math.abs(mass - m) < 1e-4 * m, `mass ${mass}, closed form ${m}`);
	assert.ok(Math.abs(inertia[1] - m * 0.25 / 2) < 1e-4 * m, `Iy ${inertia[1]}`);
	assert.ok(Math.abs(inertia[0] - m * (0.75 + 4) / 12) < 1e-4 * m && inertia[2] === inertia[0], `Ix ${inertia[0]}`);
	// along -x at height 1.2 and z 0.3: enters the side at x = sqrt(0.25 - 0.09) = 0.4
	const hit = w.rayCast([5, 1.2, 0.3], [-5, 1.2, 0.3]);
	assert.ok(hit && hit.body.slot === c.slot && Math.abs(hit.distance - 4.6) < 1e-3, `distance ${hit && hit.distance}`);
	w.step(300);
	assert.ok(Math.abs(c.position.y - 1) < 5e-3 && Math.abs(c.position.x) < 1e-4, `stands at ${c.position.y}`);
	w.free();
});

test('ray and shape casts find the ground at the closed-form distance', () => {
	const w = groundWorld();
	const hit = w.rayCast([1, 10, 2], [1, -5, 2]);
	assert.ok(hit && hit.body.slot === 0);
	assert.ok(Math.abs(hit.distance - 10) < 1e-3, `distance ${hit.distance}`);
	assert.ok(Math.abs(hit.normal.y - 1) < 1e-3);
	assert.equal(w.rayCast([0, 10, 0], [0, 5, 0]), null);
	const s = w.shapeCast({ type: 'sphere', radius: 0.5 }, [0, 10, 0], [0, -5, 0]);
	assert.ok(s && Math.abs(s.distance - 9.5) < 2e-3, `sphere stops 9.5 m down, got ${s && s.distance}`);
	w.free();
});

test('a hinge pendulum keeps its length; a distance joint its distance', () => {
	const w = World.create({ enableSleep: false });
	const pivot = w.createBody({ type: 'static', position: [0, 5, 0], shape: { type: 'sphere', radius: 0.05 } });
	const bob = w.createBody({ position: [1, 5, 0], shape: { type: 'sphere', radius: 0.1 } });
	const j = w.createJoint({ type: 'hinge', bodyA: pivot, bodyB: bob, localAxisA: [0, 0, 1], localAnchorB: [-1, 0, 0] });
	assert.equal(j.type, 'hinge');
	const ball = w.createBody({ position: [4, 5, 0], shape: { type: 'sphere', radius: 0.1 } });
	const d = w.createJoint({ type: 'distance', bodyA: pivot, bodyB: ball });
	let worst = 0;
	for (let i = 0; i < 120; ++i) {
		w.step();
		const p = bob.position, q = ball.position;
		worst = Math.max(worst, Math.abs(Math.hypot(p.x, p.y - 5, p.z) - 1), Math.abs(Math.hypot(q.x, q.y - 5, q.z) - 4));
	}
	assert.ok(worst < 0.01, `lengths drift by ${worst} m (tolerance 1 cm)`);
	assert.ok(bob.position.y < 4.5, 'the bob swung down');
	assert.ok(Math.abs(d.position - 4) < 0.01);
	assert.equal(w.jointCount, 2);
	assert.throws(() => w.createJoint({ bodyA: bob, bodyB: bob }), FixstepError);
	w.free();
});

test('a spherical joint rests on its cone; a filter joint lets one pair pass', () => {
	const w = World.create({ enableSleep: false });
	const pivot = w.createBody({ type: 'static', position: [0, 5, 0], shape: { type: 'sphere', radius: 0.05 } });
	const bar = w.createBody({ position: [0.5, 5, 0], angularDamping: 1, shape: { type: 'box', halfExtents: [0.5, 0.05, 0.05] } });
	const j = w.createJoint({ type: 'spherical', bodyA: pivot, bodyB: bar, localAnchorB: [-0.5, 0, 0], localAxisA: [1, 0, 0], enableCone: true, coneAngle: Math.PI / 6 });
	assert.equal(j.type, 'spherical');
	w.step(300);
	assert.ok(Math.abs(j.swingAngle - Math.PI / 6) < 2 * Math.PI / 180, `swing ${j.swingAngle} rad, cone pi/6`);
	assert.ok(Math.abs(j.position) < 0.035, `twist ${j.position} rad`);
	const a = w.createBody({ position: [-1, 0, 0], linearVelocity: [2, 0, 0], gravityScale: 0, shape: { type: 'sphere', radius: 0.25 } });
	const b = w.createBody({ position: [1, 0, 0], linearVelocity: [-2, 0, 0], gravityScale: 0, shape: { type: 'sphere', radius: 0.25 } });
	assert.equal(w.createJoint({ type: 'filter', bodyA: a, bodyB: b }).type, 'filter');
	assert.throws(() => w.createJoint({ type: 'filter', bodyA: a, bodyB: b, collideConnected: true }), FixstepError);
	assert.throws(() => w.createJoint({ type: 'spherical', bodyA: pivot, bodyB: bar, enableCone: true, coneAngle: 4 }), FixstepError);
	w.step(45);
	assert.ok(b.position.x < -0.4, `b passed through a, at ${b.position.x}`);
	w.free();
});

test('the character controller falls, stands on the ground and walks', () => {
	const w = groundWorld();
	const c = w.createCharacter({ position: [0, 3, 0] });
	w.step(120);
	assert.equal(c.grounded, true);
	assert.ok(c.ground && c.ground.slot === 0);
	// standing: the capsule's centre at radius + half height above the ground (0.9 m by default)
	assert.ok(Math.abs(c.position.y - 0.9) < 0.02, `stands at ${c.position.y}`);
	for (let i = 0; i < 60; ++i) c.setMove([2, 0, 0]), w.step();
	assert.ok(Math.abs(c.position.x - 2) < 0.05, `walked to ${c.position.x}, want 2 m in 1 s`);
	w.free();
});

test('meshes, hulls and compounds from JS', () => {
	const w = World.create();
	const mesh = w.createMesh({ vertices: [[-10, 0, -10], [10, 0, -10], [-10, 0, 10], [10, 0, 10]], triangles: [[0, 2, 1], [1, 2, 3]] });
	const m = w.createBody({ type: 'static', shape: mesh });
	const hull = w.createHull([[0, 0.5, 0], [0.45, -0.2, 0.25], [-0.45, -0.2, 0.25], [0, -0.2, -0.5]]);
	assert.equal(w.hullVertices(hull.shape).length, 4);
	const comp = w.createCompound([{ shape: { type: 'sphere', radius: 0.25 }, position: [-0.6, 0, 0] }, { shape: { type: 'sphere', radius: 0.25 }, position: [0.6, 0, 0] }]);
	const b = w.createBody({ position: [0, 2, 0], shape: hull.shape });
	const c = w.createBody({ position: [3, 2, 0], shape: comp.shape });
	// the kernel's debug draw: the mesh's 2 triangles, the hull's 4 faces, the compound's 2 spheres
	const d = w.draw();
	assert.deepEqual([d.triangles.length / 11, d.triangles[0], d.triangles[11]], [2, m.slot, m.slot]);
	assert.equal(d.polygons.length, 4 * (3 + 3 * 3));
	assert.deepEqual([d.spheres.length / 6, d.spheres[0], d.spheres[6]], [2, c.slot, c.slot]);
	assert.deepEqual([d.spheres[2] + d.spheres[8], d.spheres[8] - d.spheres[2]], [2 * 3 * 65536, 2 * fx.toFixed(0.6)]);
	w.step(180);
	assert.ok(b.position.y > 0 && b.position.y < 0.6, `the hull rests on the mesh (${b.position.y})`);
	assert.ok(Math.abs(c.position.y - 0.25) < 0.02, `the dumbbell rests on its spheres (${c.position.y})`);
	assert.ok(b.contacts().length > 0 && b.contacts()[0].bodyA.equals(m));
	w.free();
});

test('the default entry is the SIMD128 build where the engine has SIMD128, else the portable one', () => {
	// node 20 has SIMD128: the default entry is the SIMD128 build's module itself
	assert.deepEqual(fx.buildKernels(), ['portable', 'simd128']);
	assert.equal(fx.World, simd.World);
	const require = createRequire(import.meta.url);
	assert.equal(require('../dist/fixstep.cjs').World, require('../dist/simd128.cjs').World);
	// an engine that refuses the SIMD128 test module gets the portable build, in either module system
	const dist = new URL('../dist/', import.meta.url);
	const without = 'WebAssembly.validate = () => false;';
	const esm = execFileSync(process.execPath, ['--input-type=module', '-e',
		`${without} const m = await import(${JSON.stringify(new URL('fixstep.mjs', dist).href)}); await m.init(); ` +
		"const w = m.createScene('drop'); w.step(100); console.log(m.buildKernels().join(), w.hash());"], { encoding: 'utf8' }).trim();
	const cjs = execFileSync(process.execPath, ['-e',
		`${without} const m = require(${JSON.stringify(new URL('fixstep.cjs', dist).pathname)}); ` +
		"m.init().then(() => { const w = m.createScene('drop'); w.step(100); console.log(m.buildKernels().join(), w.hash()); });"],
	{ encoding: 'utf8' }).trim();
	const w = createScene('drop');
	w.step(100);
	assert.equal(esm, `portable ${w.hash()}`);
	assert.equal(cjs, esm);
	w.free();
});

test('the SIMD128 and portable builds, and every kernel, give the same bits', () => {
	assert.deepEqual(simd.buildKernels(), ['portable', 'simd128']);
	assert.deepEqual(portable.buildKernels(), ['portable']);
	const a = simd.createScene('large_pyramid_b20'), b = portable.createScene('large_pyramid_b20'), c = simd.createScene('large_pyramid_b20');
	assert.equal(a.kernels, 'simd128');
	assert.equal(b.kernels, 'portable');
	c.kernels = 'portable';
	assert.equal(c.kernels, 'portable');
	a.step(60), b.step(60), c.step(60);
	assert.equal(a.hash(), b.hash());
	assert.equal(a.hash(), c.hash());
	a.free(), b.free(), c.free();
});

test('record and verify a scene; a tampered replay names the tick, body and field', () => {
	const rec = Replay.record({ scene: 'box_stack', steps: 90 });
	const r = Replay.parse(rec.bytes);
	assert.equal(r.scene, 'box_stack');
	assert.equal(r.tickCount, 90);
	assert.equal(r.finalHash, rec.finalHash);
	const v = r.verify();
	assert.equal(v.status, 'ok');
	assert.equal(v.hash, rec.finalHash);
	r.free();
	const t = Replay.parse(Replay.record({ scene: 'box_stack', steps: 90, perturbTick: 40, tamper: true }).bytes);
	const d = t.verify();
	assert.equal(d.status, 'diverged');
	assert.equal(d.step, 40);
	assert.ok(d.body >= 0 && d.field, d.message);
	assert.match(d.message, /^diverged at step 40: body \d+ field \S+ \(expected .*, got .*\)$/);
	t.free();
	assert.throws(() => Replay.parse(new Uint8Array(100)), /not a valid replay/);
});

test('a world built and driven in JS, recorded and verified with a JS input handler', () => {
	const make = () => {
		const w = groundWorld();
		for (let i = 0; i < 5; ++i) w.createBody({ position: [0, 0.5 + i, 0], shape: { type: 'box', halfExtents: [0.5, 0.5, 0.5] } });
		w.createBody({ position: [10, 0.5, 0], shape: { type: 'sphere', radius: 0.5 } }); // slot 6, alone
		return w;
	};
	const apply = (w, inputs) => { const b = w.bodyAt(5); if (inputs[0].buttons & fx.BUTTONS.jump) b.applyImpulse([0, 2000, 0]); };
	const w = make();
	const startHash = w.hash(); // what the game's server knows
	const rec = new Recorder(w, { scene: 'js_tower', players: 1 });
	for (let t = 1; t <= 60; ++t) {
		const inputs = [{ buttons: t % 20 === 0 ? fx.BUTTONS.jump : 0 }];
		apply(w, inputs);
		w.step();
		rec.tick(inputs);
	}
	const bytes = rec.finish();
	const r = Replay.parse(bytes);
	assert.equal(r.tickCount, 60);
	assert.equal(r.tickInputs(19)[0].buttons, fx.BUTTONS.jump);
	assert.throws(() => r.verify({ applyInputs: apply }), /needs startHash/);
	const ok = r.verify({ applyInputs: apply, startHash });
	assert.equal(ok.status, 'ok', ok.message);
	assert.equal(ok.hash, w.hash());
	const bad = r.verify({ startHash, applyInputs: (w2, inputs, tick) => { apply(w2, inputs); if (tick === 10) w2.bodyAt(6).applyImpulse([5, 0, 0]); } });
	assert.equal(bad.status, 'diverged');
	assert.equal(bad.step, 10);
	assert.equal(bad.body, 6, bad.message);
	assert.equal(bad.field, 'p.x', bad.message);
	// another start (a body moved before tick 1) is refused before a step
	const other = r.verify({ applyInputs: apply, startHash: '0123456789abcdef' });
	assert.equal(other.status, 'badStart', other.message);
	r.free();
	w.free();
});

test('a built-in scene verifies only from its own start', () => {
	const rec = Replay.record({ scene: 'drop', steps: 20 });
	const r = Replay.parse(rec.bytes);
	const s = r.start(), startHash = s.hash();
	s.free();
	assert.equal(r.verify().status, 'ok');
	assert.equal(r.verify({ startHash }).status, 'ok');
	const v = r.verify({ startHash: 'ffffffffffffffff' });
	assert.equal(v.status, 'badStart', v.message);
	assert.match(v.message, /not the expected start/);
	r.free();
});

test('a game records its own input bytes (any size) and verifies them from a start hash or snapshot', () => {
	const make = () => {
		const w = groundWorld();
		for (let p = 0; p < 3; ++p) w.createBody({ position: [3 * p, 0.5, 0], shape: { type: 'sphere', radius: 0.5 } });
		return w;
	};
	// 5 bytes a player: x and z pushes (int8), a jump flag, two unused
	const apply = (w, bytes) => {
		const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
		for (let p = 0; p < 3; ++p) {
			const b = w.bodyAt(1 + p);
			b.applyImpulse([dv.getInt8(5 * p) * 10, bytes[5 * p + 2] & 1 ? 2000 : 0, dv.getInt8(5 * p + 1) * 10]);
		}
	};
	const tickBytes = (t) => Uint8Array.from({ length: 15 }, (_, i) => (t * 13 + i * 7) % 256);
	const w = make();
	const startHash = w.hash(), startSnapshot = w.snapshot();
	const rec = new Recorder(w, { scene: 'js_marbles', players: 3, inputSize: 5 });
	assert.throws(() => rec.tick(new Uint8Array(12)), /15 bytes \(players x inputSize\), not 12/);
	assert.throws(() => rec.tick([{ buttons: 1 }]), /takes a Uint8Array/);
	for (let t = 1; t <= 50; ++t) {
		const b = tickBytes(t);
		apply(w, b);
		w.step();
		rec.tick(b);
	}
	const r = Replay.parse(rec.finish());
	assert.equal(r.inputSize, 5);
	assert.equal(r.players, 3);
	assert.equal(r.mode, 'inputs');
	assert.deepEqual(r.tickInputBytes(6), tickBytes(7));
	assert.throws(() => r.tickInputs(0), /use tickInputBytes/);
	assert.throws(() => r.verify({ applyInputBytes: apply }), /needs startHash or startSnapshot/);
	for (const start of [{ startHash }, { startSnapshot }]) {
		const ok = r.verify({ applyInputBytes: apply, ...start });
		assert.equal(ok.status, 'ok', ok.message);
		assert.equal(ok.ticks, 50);
		assert.equal(ok.hash, w.hash());
	}
	const bad = r.verify({ startSnapshot, applyInputBytes: (w2, b, tick) => { if (tick === 30) b[0] ^= 1; apply(w2, b); } });
	assert.equal(bad.status, 'diverged', bad.message);
	assert.equal(bad.step, 30);
	assert.equal(bad.body, 1, bad.message);
	// another start snapshot (one ball moved): refused before a step, naming the body and field
	const moved = make();
	moved.bodyAt(2).setTransform([3, 0.75, 0]);
	const other = r.verify({ applyInputBytes: apply, startSnapshot: moved.snapshot() });
	assert.equal(other.status, 'badStart', other.message);
	assert.match(other.message, /not the expected start: body 2 field p\.y/);
	assert.equal(r.verify({ applyInputBytes: apply, startSnapshot: new Uint8Array([1, 2, 3]) }).status, 'badStart');
	assert.throws(() => r.verify({ applyInputBytes: apply, applyInputs: apply, startHash }), /not both/);
	assert.throws(() => new Recorder(w, { inputSize: 257 }), /inputSize must be 1\.\.256/);
	assert.throws(() => new Recorder(w, { players: 65, inputSize: 1 }), /players must be 1\.\.64/);
	// 64 players of one byte, the format's widest
	const wide = new Recorder(w, { players: 64, inputSize: 1 });
	w.step();
	wide.tick(new Uint8Array(64).fill(7));
	const r64 = Replay.parse(wide.finish());
	assert.deepEqual(r64.tickInputBytes(0), new Uint8Array(64).fill(7));
	r64.free();
	for (const x of [r, w, moved]) x.free();
});

test('a built-in scene verifies from a start snapshot, as C does', () => {
	const rec = Replay.record({ scene: 'drop', steps: 20 });
	const r = Replay.parse(rec.bytes);
	const s = createScene('drop');
	assert.equal(r.verify({ startSnapshot: s.snapshot() }).status, 'ok');
	s.bodyAt(1).setTransform([0, 7, 0]);
	const v = r.verify({ startSnapshot: s.snapshot() });
	assert.equal(v.status, 'badStart', v.message);
	assert.match(v.message, /not the expected start/);
	s.free();
	r.free();
});

test('CommonJS require gives the same API', async () => {
	const require = createRequire(import.meta.url);
	const cjs = require('../dist/fixstep.cjs');
	await cjs.init();
	const w = cjs.createScene('drop');
	w.step(100);
	const v = createScene('drop');
	v.step(100);
	assert.equal(w.hash(), v.hash());
	w.free(), v.free();
});

test('step(n) takes an integer count in [0, World.MAX_STEPS]; anything else is a RangeError before any step', () => {
	const w = fx.World.create();
	for (const bad of [Infinity, -Infinity, NaN, -1, 1.5, 1e8, fx.World.MAX_STEPS + 1, '3', null])
		assert.throws(() => w.step(bad), RangeError, String(bad));
	assert.equal(w.stepCount, 0);
	w.step(0).step().step(2);
	assert.equal(w.stepCount, 3);
	w.free();
});
