// Compiled by types.test.mjs with tsc --strict --noEmit against
// types/fixstep.d.ts: the package's calls as a TypeScript user writes them.
// `@ts-expect-error` lines must fail to type-check.
import fixstep, { init, World, Body, FixstepError, createScene, hashBytes, DEBUG_COLORS, DRAW_LAYOUT } from '../../types/fixstep';
import type { ContactEvents, SensorEvents, DrawLists, FilterOut, QueryFilter } from '../../types/fixstep';

export async function main(): Promise<string> {
	await init();
	const w: World = World.create({ gravity: [0, -10, 0], hitEventThreshold: 2 });
	const ground: Body = w.createBody({ type: 'static', position: [0, -1, 0], shape: { type: 'box', halfExtents: [20, 1, 20] } });
	const zone = w.createBody({ type: 'static', position: [0, 2, 0], shape: { type: 'box', halfExtents: [2, 1, 2] }, isSensor: true, filter: { maskBits: ~4 } });
	const ball = w.createBody({
		position: [0, 6, 0], shape: { type: 'sphere', radius: 0.5 }, enableContactEvents: true, enableHitEvents: true,
		filter: { categoryBits: 2n, maskBits: 1, groupIndex: -1 }, motionLocks: { angularX: true }, isAwake: true,
	});
	w.step(60);
	const c: ContactEvents = w.contactEvents();
	const s: SensorEvents = w.sensorEvents();
	const speeds: number[] = c.hit.map((h) => h.approachSpeed);
	const visitors: Body[] = s.begin.map((e) => e.visitor);
	const raw = w.contactEvents({ raw: true }).begin.map((e) => e.separation);
	const q: QueryFilter = { categoryBits: 1, maskBits: 2n };
	const found: Body[] = w.overlapAabb({ lo: [-5, -5, -5], hi: [5, 5, 5] }, { filter: q });
	const near: Body[] = w.overlapShape({ type: 'sphere', radius: 3 }, { x: 0, y: 0, z: 0 }, { rotation: [0, 0, 0, 1] });
	const hit = w.rayCast([0, 10, 0], [0, -10, 0], { filter: q, skip: zone, raw: true });
	const f: FilterOut = ball.filter;
	const bits: bigint = f.maskBits & 3n;
	ball.setFilter({ groupIndex: 2 }).setFriction(0.3).setMotionLocks({ linearZ: true }).setMassData({ mass: 2, inertia: [1, 1, { raw: 1n << 32n }] });
	ball.setAwake(true).setEnabled(true).setType('dynamic').setDamping(0.1, 0.1).enableHitEvents(false);
	w.setGravity({ x: 0, y: -5, z: 0 }).setContactTuning({ hertz: 20 }).setHitEventThreshold(1).enableSleeping(false);
	const v = ball.pointVelocity([0, 6, 1]).y + ball.aabb.hi.y + ball.contacts()[0].points[0].normalImpulse;
	const d: DrawLists = w.draw({ aabbs: true, bounds: ball.aabb });
	const colour: number = DEBUG_COLORS.sensor;
	const layout: string = DRAW_LAYOUT.boxes;
	const arena = createScene('arena').playScene('arena', 10);
	const inputs = arena.scriptedInputs('arena');
	const digest: string = hashBytes(new Uint8Array(d.boxes.buffer));
	try {
		w.createBody({ shape: { type: 'sphere', radius: 1 }, friction: -1 });
	} catch (e) {
		if (e instanceof FixstepError) return `${e.code} ${e.field ?? ''}`;
	}
	// @ts-expect-error: a filter's bits are integers or BigInts, not strings
	w.createBody({ shape: { type: 'sphere', radius: 1 }, filter: { maskBits: 'all' } });
	// @ts-expect-error: sensorEvents has no raw numbers to give
	w.sensorEvents({ raw: true });
	// @ts-expect-error: the lock axes are named
	ball.setMotionLocks({ x: true });
	// @ts-expect-error: filter bits read back are BigInt
	const n: number = ball.filter.categoryBits;
	return [speeds, visitors, raw, found, near, hit, bits, v, colour, layout, inputs, digest, n, fixstep.version(), ground.slot].join();
}

// sessions: a Session on the relay transport, its events and readings
import { Session, connectRelay, randomInputBytes, inputsFromBytes, sodium } from '../../types/fixstep';
import type { SessionEvent, SessionTransport, SessionStats } from '../../types/fixstep';
import { startRelay } from '../../types/relay';

export async function session(): Promise<string> {
	const relay = await startRelay({ port: 0 });
	const transport: SessionTransport = await connectRelay(relay.url, { room: 'r', peer: 0 });
	const key = new Uint8Array(32).fill(1);
	const seen: SessionEvent[] = [];
	const s = new Session({
		world: createScene('arena'), peers: 2, local: 0, players: [1, 1], mode: 'rollback', ticks: 60, key, transport,
		input: (tick, player) => randomInputBytes(7, tick, player),
		applyInputs: (world, inputs, tick) => { world.applySceneInputs('arena', inputsFromBytes(inputs), tick); },
		onEvent: (e) => { seen.push(e); },
	});
	s.pump(performance.now(), 16);
	const st: SessionStats = s.stats;
	const drops: number = st.dropped['bad_mac'] ?? 0;
	const mac: Uint8Array = sodium.auth(new Uint8Array(3), key);
	// @ts-expect-error: the mode is a name
	new Session({ world: createScene('arena'), ticks: 10, key, transport, mode: 2 });
	const line: string = s.desyncLine;
	s.free();
	await relay.close();
	return `${s.framesAhead} ${s.hash(0)} ${drops} ${mac.length} ${line} ${seen.length}`;
}
