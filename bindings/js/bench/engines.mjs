// The engines and the run of `make bench-js`, shared by its two places:
// node (bench.mjs) and Chromium (page.html, driven by browser.mjs). Each
// engine builds the scenes as tools/scenes/scenes.c builds them; `run` steps
// them in alternating rounds in one process (one page) and prints ms per step,
// each engine's ratio to fixstep's default build with its range over the rounds,
// and the snapshot size and save / restore times on large_pyramid_b40.
// Everything is single-threaded.

const SCENES = {
	large_pyramid_b40: { warm: 10, steps: 60 },
	large_pyramid: { warm: 5, steps: 20 },
	joint_grid_50: { warm: 10, steps: 60 },
	falling_spheres_500: { warm: 60, steps: 60 },
};

// A scene as a list of plain items: {kind: 'box'|'sphere', stat, p, h|r, d},
// {kind: 'ball', a, b, la, lb} (indices of the bodies), and world flags.
function layout(name) {
	const items = [], joints = [];
	let sleep = true;
	const box = (stat, p, h, d) => items.push({ kind: 'box', stat, p, h, d });
	const sphere = (stat, p, r, d) => items.push({ kind: 'sphere', stat, p, r, d });
	if (name.startsWith('large_pyramid')) {
		const base = name === 'large_pyramid' ? 100 : 40;
		sleep = false;
		box(true, [0, -1, 0], [400, 1, 400], 1000);
		for (let i = 0; i < base; ++i) for (let j = i; j < base; ++j) box(false, [(i + 1) * 0.5 + (j - i) - 0.5 * base, i + 0.5, 0], [0.5, 0.5, 0.5], 100);
	} else if (name === 'joint_grid_50') {
		const n = 50, id = [];
		sleep = false;
		for (let k = 0; k < n; ++k) for (let i = 0; i < n; ++i) {
			id[k * n + i] = items.length;
			sphere(i === 0, [k, -i, 0], 0.4, 1000);
			if (i > 0) joints.push({ a: id[k * n + i - 1], b: id[k * n + i], la: [0, -0.5, 0], lb: [0, 0.5, 0] });
			if (k > 0 && i > 0) joints.push({ a: id[(k - 1) * n + i], b: id[k * n + i], la: [0.5, 0, 0], lb: [-0.5, 0, 0] });
		}
	} else if (name === 'falling_spheres_500') {
		box(true, [0, -1, 0], [20, 1, 20], 1000);
		box(true, [21, 5, 0], [1, 5, 22], 1000), box(true, [-21, 5, 0], [1, 5, 22], 1000);
		box(true, [0, 5, 21], [20, 5, 1], 1000), box(true, [0, 5, -21], [20, 5, 1], 1000);
		const n = 10;
		for (let l = 0; l < 5; ++l) for (let i = 0; i < n; ++i) for (let k = 0; k < n; ++k)
			sphere(false, [(-3 * (n - 1) + 6 * i + (l & 1 ? 3 : 0)) / 4, (4 + 6 * l) / 4, (-3 * (n - 1) + 6 * k + (l & 2 ? 3 : 0)) / 4], 0.5, 1000);
	}
	return { items, joints, sleep };
}

// ---- the engines: build(scene) -> {step(), save() -> bytes, restore(bytes), free()} ----
export function fixstepEngine(fx, kernels) {
	return (name) => {
		const w = fx.createScene(name);
		if (kernels) w.kernels = kernels;
		return {
			step: () => w.step(),
			save: () => w.snapshot(),
			restore: (b) => { const r = fx.World.restore(b); r.free(); },
			free: () => w.free(),
		};
	};
}

export function rapierEngine(R) {
	return (name) => {
		const L = layout(name);
		const world = new R.World({ x: 0, y: -10, z: 0 });
		world.timestep = 1 / 60;
		const bodies = L.items.map((it) => {
			const desc = (it.stat ? R.RigidBodyDesc.fixed() : R.RigidBodyDesc.dynamic().setCanSleep(L.sleep)).setTranslation(...it.p);
			const b = world.createRigidBody(desc);
			const c = it.kind === 'box' ? R.ColliderDesc.cuboid(...it.h) : R.ColliderDesc.ball(it.r);
			world.createCollider(c.setDensity(it.d).setFriction(0.6), b);
			return b;
		});
		for (const j of L.joints) {
			const jt = world.createImpulseJoint(R.JointData.spherical({ x: j.la[0], y: j.la[1], z: j.la[2] }, { x: j.lb[0], y: j.lb[1], z: j.lb[2] }), bodies[j.a], bodies[j.b], true);
			jt.setContactsEnabled(false);
		}
		return {
			step: () => world.step(),
			save: () => world.takeSnapshot(),
			restore: (b) => { const r = R.World.restoreSnapshot(b); r.free(); },
			free: () => world.free(),
		};
	};
}

export function joltEngine(J) {
	return (name) => {
		const L = layout(name);
		const MOVING = 1, NON_MOVING = 0;
		const objFilter = new J.ObjectLayerPairFilterTable(2);
		objFilter.EnableCollision(NON_MOVING, MOVING);
		objFilter.EnableCollision(MOVING, MOVING);
		const bpi = new J.BroadPhaseLayerInterfaceTable(2, 2);
		bpi.MapObjectToBroadPhaseLayer(NON_MOVING, new J.BroadPhaseLayer(0));
		bpi.MapObjectToBroadPhaseLayer(MOVING, new J.BroadPhaseLayer(1));
		const settings = new J.JoltSettings();
		settings.mMaxBodies = L.items.length + 16;
		settings.mMaxBodyPairs = 65536;
		settings.mMaxContactConstraints = 16384; // jolt-physics has a 10 MB temp allocator: 472 bytes a constraint
		settings.mObjectLayerPairFilter = objFilter;
		settings.mBroadPhaseLayerInterface = bpi;
		settings.mObjectVsBroadPhaseLayerFilter = new J.ObjectVsBroadPhaseLayerFilterTable(settings.mBroadPhaseLayerInterface, 2, settings.mObjectLayerPairFilter, 2);
		const jolt = new J.JoltInterface(settings);
		J.destroy(settings);
		const system = jolt.GetPhysicsSystem(), bi = system.GetBodyInterface();
		system.SetGravity(new J.Vec3(0, -10, 0));
		const ids = L.items.map((it) => {
			const shape = it.kind === 'box' ? new J.BoxShapeSettings(new J.Vec3(...it.h), 0.0) : new J.SphereShapeSettings(it.r);
			shape.mDensity = it.d;
			const s = shape.Create().Get();
			const cs = new J.BodyCreationSettings(s, new J.RVec3(...it.p), new J.Quat(0, 0, 0, 1), it.stat ? J.EMotionType_Static : J.EMotionType_Dynamic, it.stat ? NON_MOVING : MOVING);
			cs.mFriction = 0.6;
			cs.mAllowSleeping = L.sleep;
			const b = bi.CreateBody(cs);
			J.destroy(cs);
			bi.AddBody(b.GetID(), J.EActivation_Activate);
			return b;
		});
		for (const j of L.joints) {
			const c = new J.PointConstraintSettings();
			c.mSpace = J.EConstraintSpace_LocalToBodyCOM;
			c.mPoint1 = new J.RVec3(...j.la);
			c.mPoint2 = new J.RVec3(...j.lb);
			system.AddConstraint(c.Create(ids[j.a], ids[j.b]));
		}
		system.OptimizeBroadPhase();
		const recorder = () => {
			const r = new J.StateRecorderJS();
			r.chunks = [];
			r.size = 0;
			r.pos = 0;
			r.WriteBytes = (ptr, n) => { r.chunks.push(J.HEAPU8.slice(ptr, ptr + n)); r.size += n; };
			r.ReadBytes = (ptr, n) => {
				for (let k = 0; k < n; ++k) J.HEAPU8[ptr + k] = r.flat[r.pos + k];
				r.pos += n;
			};
			r.IsEOF = () => r.pos >= r.size;
			r.IsFailed = () => false;
			return r;
		};
		return {
			step: () => jolt.Step(1 / 60, 1),
			save: () => {
				const r = recorder();
				system.SaveState(r, J.EStateRecorderState_All);
				const out = new Uint8Array(r.size);
				let o = 0;
				for (const c of r.chunks) out.set(c, o), o += c.length;
				J.destroy(r);
				return out;
			},
			restore: (bytes) => {
				const r = recorder();
				r.flat = bytes;
				r.size = bytes.length;
				system.RestoreState(r);
				J.destroy(r);
			},
			free: () => J.destroy(jolt),
		};
	};
}

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const f2 = (x) => x.toFixed(2);

// engines: [name, build] with fixstep's default build first; log(line).
// Before the rounds each engine steps large_pyramid_b40 120 times, so that
// the engine's optimising compiler has run on every engine's code before the
// clock starts (the first scene measured would otherwise pay for it).
export function run({ engines, rounds, header, log }) {
	log(`${header}; ${rounds} alternating rounds, single thread`);
	for (const [, make] of engines) {
		const e = make('large_pyramid_b40');
		for (let s = 0; s < 120; ++s) e.step();
		e.free();
	}
	log('ms per step (median of the rounds) and each engine / fixstep (median [min..max] over the rounds)\n');
	log(['scene'.padEnd(20), ...engines.map(([n]) => n.padStart(16)), ...engines.slice(1).map(([n]) => (n + '/fx').padStart(20))].join(' '));
	for (const [scene, cfg] of Object.entries(SCENES)) {
		const ms = engines.map(() => []);
		for (let round = 0; round < rounds; ++round) {
			const order = engines.map((_, i) => (i + round) % engines.length); // a different engine first each round
			for (const i of order) {
				const e = engines[i][1](scene);
				for (let s = 0; s < cfg.warm; ++s) e.step();
				const t0 = performance.now();
				for (let s = 0; s < cfg.steps; ++s) e.step();
				ms[i].push((performance.now() - t0) / cfg.steps);
				e.free();
			}
		}
		const ratios = ms.slice(1).map((m) => m.map((x, r) => x / ms[0][r]));
		log([scene.padEnd(20), ...ms.map((m) => f2(median(m)).padStart(16)),
			...ratios.map((r) => `${f2(median(r))} [${f2(Math.min(...r))}..${f2(Math.max(...r))}]`.padStart(20))].join(' '));
	}
	log('\nsnapshots of large_pyramid_b40 after 60 steps: bytes, save ms, restore ms (median of 5)');
	for (const [name, make] of engines) {
		const e = make('large_pyramid_b40');
		for (let s = 0; s < 60; ++s) e.step();
		const save = [], rest = [];
		let bytes = null;
		for (let k = 0; k < 5; ++k) {
			let t0 = performance.now();
			bytes = e.save();
			save.push(performance.now() - t0);
			t0 = performance.now();
			e.restore(bytes);
			rest.push(performance.now() - t0);
		}
		log(`  ${name.padEnd(16)} ${String(bytes.length).padStart(9)} bytes  save ${f2(median(save)).padStart(7)} ms  restore ${f2(median(rest)).padStart(7)} ms`);
		e.free();
	}
}
