// The game features through the JavaScript API: filters, sensors, contact
// and hit events, overlap queries and filtered casts, run-time setters,
// the reasons creators and setters give. Events are checked
// against a native run of the same world (a snapshot saved here, restored
// and stepped by bindings/js/test/native_events.c) and the arena's event
// digest against the native `fixstep events arena`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fx from '../dist/fixstep.mjs';
import { native, nativeEvents, eventLines } from './helpers.mjs';

const { World, FixstepError, createScene, toFixed } = fx;
await fx.init();

const ball = (r) => ({ type: 'sphere', radius: r });
const box = (x, y, z) => ({ type: 'box', halfExtents: [x, y, z] });
function groundWorld(def = {}) {
	const w = World.create(def);
	w.createBody({ type: 'static', position: [0, -1, 0], shape: box(20, 1, 20) });
	return w;
}
const slots = (bodies) => bodies.map((b) => b.slot);

test('a filter that rules a pair out: no contact, no event; set at run time it ends the contact', () => {
	const w = groundWorld();
	const ghost = w.createBody({ position: [0, 2, 0], shape: ball(0.5), filter: { maskBits: ~1 }, enableContactEvents: true });
	const solid = w.createBody({ position: [3, 2, 0], shape: ball(0.5), enableContactEvents: true });
	const begins = [];
	for (let s = 1; s <= 120; ++s) {
		w.step();
		for (const e of w.contactEvents().begin) begins.push([s, e.bodyA.slot, e.bodyB.slot]);
		assert.equal(ghost.contacts().length, 0, `step ${s}: the filtered pair has a contact`);
	}
	assert.equal(begins.length, 1, JSON.stringify(begins));
	assert.deepEqual(begins[0].slice(1), [0, solid.slot]);
	assert.ok(ghost.position.y < -10, `the ghost fell through the ground (y ${ghost.position.y})`);
	assert.ok(Math.abs(solid.position.y - 0.5) < 0.02, `the solid ball rests on it (y ${solid.position.y})`);
	assert.equal(solid.contacts().length, 1);
	// the same filter at run time: the contact goes now, its end event after the next step
	solid.setFilter({ maskBits: ~1 });
	assert.equal(solid.contacts().length, 0);
	w.step();
	const end = w.contactEvents().end;
	assert.deepEqual(end.map((e) => [e.bodyA.slot, e.bodyB.slot]), [[0, solid.slot]]);
	w.step(30);
	assert.ok(solid.position.y < 0, 'and then it falls through');
	w.free();
});

test("group rules: the same positive group always collides, the same negative never, else the bits decide", () => {
	const w = World.create({ gravity: [0, 0, 0] });
	const NOT2 = ~2;
	// [filter a, filter b, collide?] (overlapping balls 10 m apart from the next pair)
	const pairs = [
		[{ categoryBits: 2, maskBits: NOT2, groupIndex: 3 }, { categoryBits: 2, maskBits: NOT2, groupIndex: 3 }, true],
		[{ groupIndex: -3 }, { groupIndex: -3 }, false],
		[{ categoryBits: 2, maskBits: NOT2, groupIndex: 3 }, { categoryBits: 2, maskBits: NOT2, groupIndex: 4 }, false],
		[{ groupIndex: -3 }, { groupIndex: -4 }, true],
		[{ groupIndex: -3 }, {}, true],
		[{ categoryBits: 4n, maskBits: 1 }, { categoryBits: 1, maskBits: 4 }, true],
		[{ categoryBits: 4n, maskBits: 2 }, { categoryBits: 1, maskBits: 4 }, false],
	];
	const bodies = pairs.map(([fa, fb], k) => [
		w.createBody({ position: [10 * k, 0, 0], shape: ball(0.5), filter: fa }),
		w.createBody({ position: [10 * k + 0.8, 0, 0], shape: ball(0.5), filter: fb }),
	]);
	w.step();
	pairs.forEach(([fa, fb, want], k) => {
		const n = bodies[k][0].contacts().length;
		assert.equal(n, want ? 1 : 0, `pair ${k} (${JSON.stringify([fa, fb], (_, v) => (typeof v === 'bigint' ? `${v}n` : v))})`);
	});
	w.free();
});

// A sensor slab, a ball dropped through it, a ball that opts out, one the
// sensor's filter does not see, a kinematic crate crossing it; contact and
// hit events on the balls.
function sensorWorld(withSensor) {
	const w = groundWorld();
	if (withSensor) w.createBody({ type: 'static', position: [0, 6, 0], shape: box(3, 2, 3), isSensor: true, filter: { maskBits: 1 | 4 } });
	w.createBody({ position: [0, 12, 0], shape: ball(0.5), enableContactEvents: true, enableHitEvents: true });
	w.createBody({ position: [1.5, 12, 0], shape: ball(0.5), enableSensorEvents: false, enableHitEvents: true });
	w.createBody({ position: [-1.5, 12, 1], shape: ball(0.5), filter: { categoryBits: 2 }, enableContactEvents: true });
	w.createBody({ type: 'kinematic', position: [-8, 6, 0], linearVelocity: [4, 0, 0], shape: box(0.5, 0.5, 0.5) });
	return w;
}

test('sensor events come at the same steps as a native run of the same world, and at the closed-form steps', () => {
	const w = sensorWorld(true);
	const js = eventLines(w.clone(), 150);
	const nat = nativeEvents(w.snapshot(), 150);
	assert.equal(js, nat, 'the JavaScript API reads the events the native library makes');
	const sensorLines = js.split('\n').filter((l) => l.includes('sensor'));
	console.log(`  ${sensorLines.join('; ')}`);
	// the dropped ball (slot 2): begin at the first step whose end has it
	// overlapping the slab (y - r <= 8), end at the first after which it no
	// longer does (y + r < 4); it moves as in a world without the sensor
	const twin = sensorWorld(false), b = w.bodyAt(2), t = twin.bodyAt(1);
	let wantBegin = 0, wantEnd = 0, begin = 0, end = 0;
	for (let s = 1; s <= 150; ++s) {
		w.step(), twin.step();
		assert.deepEqual(Array.from(b.positionRaw()), Array.from(t.positionRaw()), `step ${s}: the sensor moved the ball`);
		const y = b.position.y, inside = y - 0.5 <= 8 && y + 0.5 >= 4;
		if (inside && !wantBegin) wantBegin = s;
		if (!inside && wantBegin && !wantEnd) wantEnd = s;
		const e = w.sensorEvents();
		if (e.begin.some((x) => x.visitor.slot === 2)) begin = s;
		if (e.end.some((x) => x.visitor.slot === 2)) end = s;
		assert.deepEqual(slots(w.bodyAt(1).sensorOverlaps()).includes(2), inside);
	}
	assert.ok(wantBegin > 0 && wantEnd > wantBegin);
	assert.deepEqual([begin, end], [wantBegin, wantEnd], 'begin and end at the closed-form steps');
	const seen = new Set(sensorLines.map((l) => l.split(' ').at(-1).split(':')[0]));
	assert.ok(seen.has('3') && seen.has('6'), 'the dropped ball (index1 3) and the kinematic crate (6) are seen');
	assert.ok(!seen.has('4') && !seen.has('5'), 'the ball that opted out and the one outside the filter are not');
	w.free(), twin.free();
});

test('hit events carry the approach speed at the touch: sqrt(2 g d) within 1%, above the pre-step speed', () => {
	for (const [h, want] of [[5, 1], [12.5, 1], [0.02, 0]]) {
		const w = groundWorld();
		const y0 = h + 0.5, b = w.createBody({ position: [0, y0, 0], shape: ball(0.5), enableHitEvents: true });
		let hits = 0;
		for (let s = 0; s < 300 && !hits; ++s) {
			const v = b.linearVelocityRaw()[1];
			w.step();
			const e = w.contactEvents().hit;
			hits = e.length;
			if (!hits) continue;
			const closed = Math.sqrt(2 * 10 * h), got = e[0].approachSpeed;
			console.log(`  drop ${h} m: hit at step ${s + 1}, approach ${got.toFixed(4)} m/s, sqrt(2 g d) ${closed.toFixed(4)} m/s`);
			assert.ok(Math.abs(got - closed) <= 0.01 * closed);
			assert.ok(w.contactEvents({ raw: true }).hit[0].approachSpeed > -v);
			assert.ok(e[0].normal.y > 0.9999 && e[0].bodyB.equals(b));
		}
		assert.equal(hits, want, `drop ${h} m`);
		w.free();
	}
	// above the world's threshold only
	const w = groundWorld();
	w.setHitEventThreshold(20);
	w.createBody({ position: [0, 5.5, 0], shape: ball(0.5), enableHitEvents: true });
	let hits = 0;
	for (let s = 0; s < 120; ++s) hits += w.step().contactEvents().hit.length;
	assert.equal(hits, 0, 'a 10 m/s landing under a 20 m/s threshold');
	w.free();
});

test('events are copies: they outlive the next steps and a snapshot restores them', () => {
	const w = groundWorld();
	w.createBody({ position: [0, 3, 0], shape: ball(0.5), enableContactEvents: true, enableHitEvents: true });
	let e = null;
	while (!e) { w.step(); const c = w.contactEvents(); if (c.begin.length) e = c; }
	const text = JSON.stringify(e, (k, v) => (k === 'world' ? undefined : v));
	const restored = World.restore(w.snapshot());
	assert.equal(JSON.stringify(restored.contactEvents(), (k, v) => (k === 'world' ? undefined : v)), text, 'a restored world reads the same events');
	for (let k = 0; k < 5; ++k) w.step(), w.createBody({ position: [5 + 2 * k, 1, 0], shape: box(0.5, 0.5, 0.5) });
	assert.equal(w.contactEvents().begin.length, 0);
	assert.equal(JSON.stringify(e, (k, v) => (k === 'world' ? undefined : v)), text, 'the events read before are unchanged');
	w.free(), restored.free();
});

test('overlap queries: ascending slots, the bodies a brute force finds, filtered; casts filtered', () => {
	const w = World.create({ gravity: [0, 0, 0] });
	let seed = 12345;
	const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
	const bodies = [];
	for (let i = 0; i < 80; ++i) {
		const r = 0.2 + rnd() * 0.6;
		bodies.push(w.createBody({ position: [rnd() * 20 - 10, rnd() * 20 - 10, rnd() * 20 - 10], shape: ball(r), filter: { categoryBits: i % 2 ? 2 : 1 } }));
	}
	for (const k of [3, 17, 40]) bodies[k].destroy();
	w.createBody({ position: [20, 20, 20], shape: ball(0.5) }); // into slot 3: a hole filled
	w.createBody({ type: 'static', position: [0, 0, 0], shape: box(2, 2, 2), isSensor: true }); // never seen
	const live = [...w.bodies()].filter((b) => !b.isSensor);
	const q = { lo: [-4, -3, -5], hi: [5, 6, 4] };
	const lo = [-4, -3, -5].map((x) => toFixed(x)), hi = [5, 6, 4].map((x) => toFixed(x));
	const meets = (b) => { const a = b.aabbRaw(); return [0, 1, 2].every((k) => a[k] <= hi[k] && a[k + 3] >= lo[k]); };
	const got = slots(w.overlapAabb(q));
	assert.ok(got.length > 5, `${got.length} bodies in the box`);
	assert.deepEqual(got, [...got].sort((a, b) => a - b), 'ascending');
	assert.deepEqual(got, slots(live.filter(meets)));
	const cat2 = slots(w.overlapAabb(q, { filter: { categoryBits: 1, maskBits: 2 } }));
	assert.deepEqual(cat2, slots(live.filter((b) => meets(b) && b.filter.categoryBits === 2n)));
	// a ball of radius 6 at c: the balls within r + 4 of c (away from the boundary by 1 mm)
	const c = [1, -2, 0.5], R = 6;
	const gotS = slots(w.overlapShape(ball(R), c));
	assert.deepEqual(gotS, [...gotS].sort((a, b) => a - b), 'ascending');
	let checked = 0;
	for (const b of live) {
		const p = b.position, d = Math.hypot(p.x - c[0], p.y - c[1], p.z - c[2]) - b.shape.radius - R;
		if (Math.abs(d) < 1e-3) continue;
		assert.equal(gotS.includes(b.slot), d < 0, `slot ${b.slot}: ${d} m from touching`);
		++checked;
	}
	assert.ok(checked > 70 && gotS.length > 3, `${gotS.length} found, ${checked} checked`);
	assert.deepEqual(slots(w.overlapShape(ball(R), c, { filter: { maskBits: 1 } })), gotS.filter((s) => w.bodyAt(s).filter.categoryBits === 1n));
	w.free();

	// filtered casts: the first box is category 2; a filter without 2 sees through it
	const v = World.create({ gravity: [0, 0, 0] });
	const near = v.createBody({ type: 'static', position: [3, 0, 0], shape: box(0.5, 0.5, 0.5), filter: { categoryBits: 2 } });
	const far = v.createBody({ type: 'static', position: [8, 0, 0], shape: box(0.5, 0.5, 0.5) });
	assert.ok(v.rayCast([0, 0, 0], [20, 0, 0]).body.equals(near));
	const h = v.rayCast([0, 0, 0], [20, 0, 0], { filter: { maskBits: ~2 } });
	assert.ok(h.body.equals(far) && Math.abs(h.distance - 7.5) < 1e-3, `${h.distance}`);
	assert.equal(v.rayCast([0, 0, 0], [20, 0, 0], { filter: { maskBits: ~2, categoryBits: 1 }, raw: true }).distance, h.distance * 65536);
	assert.ok(v.shapeCast(ball(0.25), [0, 0, 0], [20, 0, 0]).body.equals(near));
	const s = v.shapeCast(ball(0.25), [0, 0, 0], [20, 0, 0], { filter: { maskBits: 1 } });
	assert.ok(s.body.equals(far) && Math.abs(s.distance - 7.25) < 2e-3, `${s.distance}`);
	assert.equal(v.rayCast([0, 0, 0], [20, 0, 0], { filter: { maskBits: 4 } }), null);
	v.free();
});

test('run-time setters: round trips, the hash moves, bad values refused and nothing changed, snapshots keep them', () => {
	const w = groundWorld();
	const b = w.createBody({ position: [0, 3, 0], shape: box(0.5, 0.5, 0.5) });
	const hashMoves = (what, f) => {
		const h = w.hash();
		f();
		assert.notEqual(w.hash(), h, `${what} changes the state hash`);
	};
	hashMoves('friction', () => b.setFriction(0.25));
	assert.equal(b.friction, 0.25);
	hashMoves('restitution', () => b.setRestitution(0.5));
	assert.equal(b.restitution, 0.5);
	hashMoves('rolling resistance', () => b.setRollingResistance(0.125));
	assert.equal(b.rollingResistance, 0.125);
	assert.throws(() => b.setRollingResistance(2));
	assert.equal(b.rollingResistance, 0.125);
	assert.equal(w.createBody({ position: [5, 3, 0], shape: ball(0.5), rollingResistance: 0.25 }).rollingResistance, 0.25);
	hashMoves('density', () => b.setDensity(500));
	assert.equal(b.density, 500);
	assert.ok(Math.abs(b.mass.mass - 500) < 1e-3, `a 1 m cube of 500 kg/m^3: ${b.mass.mass} kg`);
	hashMoves('mass data', () => b.setMassData({ mass: 2.5, inertia: [1, 2, { raw: 3n << 32n }] }));
	assert.deepEqual(b.massRaw().mass, 5n << 31n);
	assert.deepEqual(b.massRaw().inertia, [1n << 32n, 2n << 32n, 3n << 32n]);
	hashMoves('gravity scale', () => b.setGravityScale(-0.5));
	assert.equal(b.gravityScale, -0.5);
	hashMoves('damping', () => b.setDamping(0.5, 0.25));
	hashMoves('locks', () => b.setMotionLocks({ angularX: true, angularZ: true }));
	assert.deepEqual(b.motionLocks, { linearX: false, linearY: false, linearZ: false, angularX: true, angularY: false, angularZ: true });
	hashMoves('filter', () => b.setFilter({ categoryBits: 2n, maskBits: ~4, groupIndex: -7 }));
	assert.deepEqual(b.filter, { categoryBits: 2n, maskBits: (1n << 64n) - 1n - 4n, groupIndex: -7 });
	hashMoves('user data', () => b.setUserData(0xdeadbeef));
	assert.equal(b.userData, 0xdeadbeef);
	hashMoves('type', () => b.setType('kinematic'));
	assert.equal(b.type, 'kinematic');
	b.setType('dynamic');
	hashMoves('sleep', () => b.setAwake(false));
	assert.equal(b.awake, false);
	b.setAwake(true);
	assert.equal(b.awake, true);
	hashMoves('disable', () => b.setEnabled(false));
	assert.equal(b.enabled, false);
	assert.ok(!slots(w.overlapAabb({ lo: [-1, 2, -1], hi: [1, 4, 1] })).includes(b.slot), 'a disabled body is not in queries');
	b.setEnabled(true);
	assert.equal(b.enabled, true);
	hashMoves('contact events', () => b.enableContactEvents());
	hashMoves('hit events', () => b.enableHitEvents(true));
	hashMoves('sensor events', () => b.enableSensorEvents(false));
	hashMoves('gravity', () => w.setGravity([0, -5, 1]));
	assert.deepEqual(w.gravity, { x: 0, y: -5, z: 1 });
	hashMoves('contact tuning', () => w.setContactTuning({ hertz: 20 }));
	assert.deepEqual([w.def.contactHertz, w.def.contactDamping, w.def.contactPushMax], [20, World.defaults().contactDamping, World.defaults().contactPushMax]);
	hashMoves('hit threshold', () => w.setHitEventThreshold(2.5));
	assert.equal(w.def.hitEventThreshold, 2.5);
	hashMoves('restitution threshold', () => w.setRestitutionThreshold(0.5));
	assert.equal(w.def.restitutionThreshold, 0.5);
	hashMoves('sleeping', () => w.enableSleeping(false));
	assert.equal(w.def.enableSleep, false);

	// refused: a FixstepError, and nothing changed
	const h = w.hash();
	for (const [what, f] of [['setFriction', () => b.setFriction(-1)], ['setGravityScale', () => b.setGravityScale(1000)],
		['setDamping', () => b.setDamping(-1, 0)], ['setAwake', () => w.bodyAt(0).setAwake(false)], ['setMassData', () => b.setMassData({ mass: 0, inertia: [1, 1, 1] })],
		['setGravity', () => w.setGravity([0, 0, 30000])], ['setContactTuning', () => w.setContactTuning({ hertz: -1 })]]) {
		assert.throws(f, (e) => e instanceof FixstepError && e.code === 1 && e.message.includes(what), what);
	}
	assert.throws(() => b.setType('floating'), TypeError);
	assert.equal(w.hash(), h, 'a refused change changes nothing');
	assert.equal(b.friction, 0.25);

	// a snapshot carries them
	const c = World.restore(w.snapshot()), cb = c.bodyAt(b.slot);
	assert.deepEqual([cb.friction, cb.restitution, cb.gravityScale, cb.userData, cb.filter, cb.motionLocks, c.def.hitEventThreshold],
		[b.friction, b.restitution, b.gravityScale, b.userData, b.filter, b.motionLocks, w.def.hitEventThreshold]);
	c.free();
	// a stale id is an Error, not a crash
	b.destroy();
	assert.throws(() => b.setFriction(0.5), /not valid/);
	w.free();
});

test('damping, locks, point velocity and bounds as their closed forms', () => {
	const w = World.create({ gravity: [0, 0, 0] });
	const dt = w.def.dt, n = w.def.substeps, hs = dt / n;
	// damping: v *= 1 / (1 + h c) every sub-step of h
	const d = w.createBody({ position: [0, 0, 0], shape: ball(0.5), linearVelocity: [4, 0, 0] });
	d.setDamping(2, 0);
	w.step(30);
	const want = 4 * Math.pow(1 / (1 + hs * 2), 30 * n);
	assert.ok(Math.abs(d.linearVelocity.x - want) < 0.01 * want, `v ${d.linearVelocity.x}, closed form ${want}`);
	// locks: an off-centre impulse turns nothing about locked axes, moves nothing along a locked one
	const l = w.createBody({ position: [10, 0, 0], shape: box(0.5, 0.5, 0.5), motionLocks: { angularX: true, angularY: true, angularZ: true, linearZ: true } });
	l.applyImpulse([2000, 1000, 3000], [10.5, 0.3, 0.2]);
	w.step(20);
	assert.deepEqual(Array.from(l.rotationRaw()), [0, 0, 0, 65536]);
	assert.equal(l.positionRaw()[2], 0);
	assert.ok(l.position.x > 10.5 && l.position.y > 0.2, `it moves along the free axes (${JSON.stringify(l.position)})`);
	// point velocity: v + w x (p - c)
	const p = w.createBody({ position: [1, 1, 1], shape: ball(0.5), linearVelocity: [1, 2, 3], angularVelocity: [0, 0, 2] });
	const v = p.pointVelocity([2, 1, 1]);
	for (const [k, x] of [['x', 1], ['y', 4], ['z', 3]]) assert.ok(Math.abs(v[k] - x) < 1e-4, `${k}: ${v[k]} want ${x}`);
	// bounds: the box's, rounded outwards by at most 2 LSB
	const a = w.createBody({ type: 'static', position: [-5, 2, 3], shape: box(1, 0.5, 0.25) }).aabbRaw();
	const exact = [-6, 1.5, 2.75, -4, 2.5, 3.25].map((x) => toFixed(x));
	for (let k = 0; k < 6; ++k) {
		const out = k < 3 ? exact[k] - a[k] : a[k] - exact[k];
		assert.ok(out >= 0 && out <= 2, `bound ${k}: ${a[k]} raw, the box's ${exact[k]}`);
	}
	w.free();
});

test('a failed creator throws the kernel reason', () => {
	assert.throws(() => World.create({ substeps: 0 }), (e) => e instanceof FixstepError && e.field === 'substeps' && /substeps/.test(e.message));
	assert.throws(() => World.create({ dt: 0 }), (e) => e.field === 'dt' && e.code === 1);
	const w = World.create();
	const b = w.createBody({ shape: ball(0.5) });
	assert.throws(() => w.createBody({ shape: ball(0.5), friction: -1 }), (e) => e instanceof FixstepError && e.code === 1 && /friction out of range/.test(e.message) && /^fixstep: createBody: body def/.test(e.message));
	assert.throws(() => w.createBody({ shape: ball(0.5), rotation: [0, 0, 0, 0] }), (e) => /rotation is zero/.test(e.message));
	assert.throws(() => w.createJoint({ bodyA: b, bodyB: b }), (e) => e instanceof FixstepError && /^fixstep: createJoint: .+/.test(e.message));
	assert.throws(() => w.createHull([[0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, 1]]), (e) => e instanceof FixstepError && /^fixstep: createHull: .+/.test(e.message));
	for (const e of [0, 1, 2].map((k) => { try { [() => w.createJoint({ bodyA: b, bodyB: b }), () => w.createHull([[0, 0, 0], [1, 0, 0], [0, 0, 1]]), () => w.createBody({ shape: ball(-1) })][k](); } catch (x) { return x.message; } return null; }))
		console.log(`  ${e}`);
	assert.ok(w.createBody({ shape: ball(0.5), position: [3, 0, 0] }).valid, 'a good definition after a refused one');
	w.free();
});

// `fixstep events arena` through the JavaScript API: the scene played with
// its scripted players, every step's events and the same queries written
// little-endian field by field into one XXH3-64 (tools/cli/cmd_events.c).
test('the arena: the events digest through JS equals native fixstep events arena', () => {
	const bytes = [];
	const u32 = (v) => bytes.push(v & 255, (v >>> 8) & 255, (v >>> 16) & 255, (v >>> 24) & 255);
	const id = (b) => (u32(b.index1), u32(b.generation));
	const v3 = (p) => (u32(p.x), u32(p.y), u32(p.z));
	const info = fx.scenes().find((s) => s.name === 'arena');
	assert.ok(info.scripted);
	const w = createScene('arena'), totals = [0, 0, 0, 0, 0];
	let queries = 0;
	for (let s = 1; s <= info.defaultSteps; ++s) {
		w.playScene('arena');
		const c = w.contactEvents({ raw: true }), e = w.sensorEvents();
		[c.begin, c.end, c.hit, e.begin, e.end].forEach((l, k) => (u32(l.length), (totals[k] += l.length)));
		for (const x of c.begin) id(x.bodyA), id(x.bodyB), u32(x.childA), u32(x.childB), v3(x.normal), v3(x.point), u32(x.separation), u32(x.pointCount);
		for (const x of c.end) id(x.bodyA), id(x.bodyB), u32(x.childA), u32(x.childB);
		for (const x of c.hit) id(x.bodyA), id(x.bodyB), u32(x.childA), u32(x.childB), v3(x.point), v3(x.normal), u32(x.approachSpeed);
		for (const x of [...e.begin, ...e.end]) id(x.sensor), id(x.visitor);
		const found = [w.overlapAabb({ lo: [-10, -10, -10], hi: [10, 10, 10] }), w.overlapShape(ball(4), [0, 1, 0]),
			w.overlapShape(ball(4), [0, 1, 0], { filter: { categoryBits: 1, maskBits: 1 } })];
		for (const f of found) {
			assert.ok(f.length <= 256);
			u32(f.length), f.forEach(id), (queries += f.length);
		}
		const hit = w.rayCast([-20, 0.5, { raw: 21845 }], [20, 0.5, { raw: 21845 }], { raw: true });
		if (hit) id(hit.body), u32(hit.fraction), v3(hit.point), v3(hit.normal), ++queries;
	}
	const score = { hits: [0, 0], capture: [0, 0] };
	for (const b of w.bodies()) {
		const u = b.userData;
		if ((u & 255) === 3) score.hits[(u >>> 8) & 1] = (u >>> 10) & 0x7ff, score.capture[(u >>> 8) & 1] = (u >>> 21) & 0x7ff;
	}
	const js = [`steps ${info.defaultSteps}`, `contact begin ${totals[0]}  end ${totals[1]}  hit ${totals[2]}`, `sensor begin ${totals[3]}  end ${totals[4]}`,
		`query results ${queries}`,
		`score team 0: ${score.hits[0]} hits, ${score.capture[0]} capture points; team 1: ${score.hits[1]} hits, ${score.capture[1]} capture points`,
		`state ${w.hash()}`, `hash ${fx.hashBytes(new Uint8Array(bytes))}`].join('\n');
	const nat = native('events', 'arena').trim();
	console.log(`  ${js.split('\n').join('\n  ')}`);
	assert.equal(js, nat);
	w.free();
});
