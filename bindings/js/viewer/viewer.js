// The fixstep viewer: plays a built-in scene or a replay through the wasm
// kernel, draws its bodies with three.js, and shows the tick and the state
// hash; the desync inspector finds where two runs part. Static files only.
//
// Query string (for links and tests): ?scene=NAME&tick=N, ?replay=URL&tick=N,
// ?inspect=URL[&b=URL], &contacts=1, &aabbs=1, &play=1.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { ConvexGeometry } from 'three/addons/geometries/ConvexGeometry.js';
import { mergeGeometries } from 'three/addons/utils/BufferGeometryUtils.js';
import * as fx from './fixstep.mjs';

const $ = (id) => document.getElementById(id);
const FX = 1 / 65536;
const KEYFRAME_EVERY = 30; /* ticks between the snapshots a scrub back restores */

const view = {
	world: null, replay: null, source: '', tick: 0, last: 0, keyframes: new Map(),
	playing: false, highlight: -1, ghost: null, bodiesKey: '',
};

/* ---- three.js ---- */
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(window.devicePixelRatio || 1);
$('view').appendChild(renderer.domElement);
const scene3 = new THREE.Scene();
scene3.background = new THREE.Color(0x1d2024);
const camera = new THREE.PerspectiveCamera(45, 1, 0.05, 5000);
const controls = new OrbitControls(camera, renderer.domElement);
controls.enableDamping = false;
scene3.add(new THREE.HemisphereLight(0xdde8ff, 0x30281e, 1.6));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(0.5, 1, 0.35);
scene3.add(sun);
const bodyRoot = new THREE.Group(), debugRoot = new THREE.Group();
scene3.add(bodyRoot, debugRoot);

function resize() {
	const w = window.innerWidth, h = window.innerHeight;
	renderer.setSize(w, h);
	camera.aspect = w / h;
	camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

/* ---- bodies ---- */
function shapeGeometry(world, s) {
	switch (s.type) {
	case 'sphere': return new THREE.SphereGeometry(s.radius, 24, 16);
	case 'box': return new THREE.BoxGeometry(2 * s.halfExtents.x, 2 * s.halfExtents.y, 2 * s.halfExtents.z);
	case 'capsule': return new THREE.CapsuleGeometry(s.radius, 2 * s.halfHeight, 6, 16);
	case 'hull': return new ConvexGeometry(world.hullVertices(s).map((v) => new THREE.Vector3(v.x, v.y, v.z)));
	case 'mesh': {
		const m = world.meshGeometry(s), g = new THREE.BufferGeometry();
		g.setAttribute('position', new THREE.BufferAttribute(m.vertices, 3));
		g.setIndex(new THREE.BufferAttribute(m.triangles, 1));
		g.computeVertexNormals();
		return g.toNonIndexed();
	}
	case 'compound': {
		const parts = world.compoundChildren(s).map((c) => {
			const g = shapeGeometry(world, c.shape).toNonIndexed();
			g.deleteAttribute('uv');
			const m = new THREE.Matrix4().compose(new THREE.Vector3(c.position.x, c.position.y, c.position.z),
				new THREE.Quaternion(c.rotation.x, c.rotation.y, c.rotation.z, c.rotation.w), new THREE.Vector3(1, 1, 1));
			return g.applyMatrix4(m);
		});
		return mergeGeometries(parts);
	}
	default: return new THREE.SphereGeometry(0.1);
	}
}
function shapeKey(s) {
	return s.type === 'sphere' ? `s${s.radius}` : s.type === 'box' ? `b${s.halfExtents.x},${s.halfExtents.y},${s.halfExtents.z}`
		: s.type === 'capsule' ? `c${s.radius},${s.halfHeight}` : `${s.type}${s.id}`;
}

let groups = []; /* {mesh: InstancedMesh, slots: [slot]} */
let slotGroup = []; /* slot -> [group index, instance] */
function clearGroup(root) {
	for (const o of [...root.children]) {
		root.remove(o);
		o.traverse((c) => { if (c.geometry) c.geometry.dispose(); if (c.material) c.material.dispose(); });
	}
}
function buildBodies() {
	clearGroup(bodyRoot);
	groups = [];
	slotGroup = [];
	const w = view.world, byKey = new Map(), geo = new Map();
	for (const b of w.bodies()) {
		const s = b.shape, k = shapeKey(s);
		if (!byKey.has(k)) {
			byKey.set(k, []);
			geo.set(k, shapeGeometry(w, s));
		}
		byKey.get(k).push(b.slot);
	}
	for (const [k, slots] of byKey) {
		const mat = new THREE.MeshStandardMaterial({ roughness: 0.75, metalness: 0.05, side: k.startsWith('mesh') ? THREE.DoubleSide : THREE.FrontSide });
		const mesh = new THREE.InstancedMesh(geo.get(k), mat, slots.length);
		mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
		mesh.frustumCulled = false;
		slots.forEach((s, i) => { slotGroup[s] = [groups.length, i]; });
		groups.push({ mesh, slots });
		bodyRoot.add(mesh);
	}
	view.bodiesKey = bodiesKey();
}
function bodiesKey() {
	const p = view.world.poses();
	let k = '';
	for (let i = 0; i < p.length; i += 9) k += p[i];
	return k;
}

const tmpM = new THREE.Matrix4(), tmpP = new THREE.Vector3(), tmpQ = new THREE.Quaternion(), ONE = new THREE.Vector3(1, 1, 1), tmpC = new THREE.Color();
function bodyColor(slot, type, awake) {
	if (slot === view.highlight) return tmpC.set(0xff2a2a);
	const dim = view.highlight >= 0 ? 0.35 : 1;
	if (type === 1) return tmpC.set(0x6d737d).multiplyScalar(dim);
	if (type === 2) return tmpC.set(0xc9a227).multiplyScalar(dim);
	tmpC.setHSL(((slot * 0.61803398875) % 1 + 1) % 1, 0.55, awake ? 0.58 : 0.36);
	return tmpC.multiplyScalar(dim);
}
function updateBodies() {
	if (bodiesKey() !== view.bodiesKey) buildBodies();
	const p = view.world.poses();
	for (let s = 0; 9 * s < p.length; ++s) {
		const o = 9 * s, gi = slotGroup[s];
		if (!p[o] || !gi) continue;
		const g = groups[gi[0]];
		tmpP.set(p[o + 1] * FX, p[o + 2] * FX, p[o + 3] * FX);
		tmpQ.set(p[o + 4] * FX, p[o + 5] * FX, p[o + 6] * FX, p[o + 7] * FX).normalize();
		g.mesh.setMatrixAt(gi[1], tmpM.compose(tmpP, tmpQ, ONE));
		g.mesh.setColorAt(gi[1], bodyColor(s, p[o], p[o + 8]));
	}
	for (const g of groups) {
		g.mesh.instanceMatrix.needsUpdate = true;
		if (g.mesh.instanceColor) g.mesh.instanceColor.needsUpdate = true;
	}
}

/* ---- contacts, AABBs, the inspector's ghost ---- */
function updateDebug() {
	clearGroup(debugRoot);
	const w = view.world;
	if ($('show-contacts').checked) {
		const c = w.contacts(), n = c.length / 8, pts = new Float32Array(3 * n), lines = new Float32Array(6 * n);
		for (let i = 0; i < n; ++i) {
			const o = 8 * i;
			for (let k = 0; k < 3; ++k) {
				pts[3 * i + k] = c[o + 2 + k] * FX;
				lines[6 * i + k] = c[o + 2 + k] * FX;
				lines[6 * i + 3 + k] = (c[o + 2 + k] + 0.3 * c[o + 5 + k]) * FX;
			}
		}
		const pg = new THREE.BufferGeometry().setAttribute('position', new THREE.BufferAttribute(pts, 3));
		debugRoot.add(new THREE.Points(pg, new THREE.PointsMaterial({ color: 0xff4fd8, size: 5, sizeAttenuation: false, depthTest: false })));
		const lg = new THREE.BufferGeometry().setAttribute('position', new THREE.BufferAttribute(lines, 3));
		debugRoot.add(new THREE.LineSegments(lg, new THREE.LineBasicMaterial({ color: 0xff4fd8, depthTest: false })));
	}
	if ($('show-aabbs').checked) {
		const a = w.aabbs(), p = w.poses(), v = [];
		const E = [[0, 1], [1, 3], [3, 2], [2, 0], [4, 5], [5, 7], [7, 6], [6, 4], [0, 4], [1, 5], [2, 6], [3, 7]];
		for (let s = 0; 6 * s < a.length; ++s) {
			if (!p[9 * s]) continue;
			const lo = [a[6 * s] * FX, a[6 * s + 1] * FX, a[6 * s + 2] * FX], hi = [a[6 * s + 3] * FX, a[6 * s + 4] * FX, a[6 * s + 5] * FX];
			const corner = (c) => [(c & 1 ? hi : lo)[0], (c & 2 ? hi : lo)[1], (c & 4 ? hi : lo)[2]];
			for (const [i, j] of E) v.push(...corner(i), ...corner(j));
		}
		const g = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(v, 3));
		debugRoot.add(new THREE.LineSegments(g, new THREE.LineBasicMaterial({ color: 0x57e389, transparent: true, opacity: 0.7 })));
	}
	if (view.ghost) debugRoot.add(view.ghost);
	$('counts').textContent = `${w.bodyCount} bodies, ${w.stats().contactPointCount} contact points`;
}

function fitCamera() {
	const a = view.world.aabbs(), p = view.world.poses();
	const box = new THREE.Box3(), all = new THREE.Box3();
	for (let s = 0; 6 * s < a.length; ++s) {
		if (!p[9 * s]) continue;
		const b = new THREE.Box3(new THREE.Vector3(a[6 * s] * FX, a[6 * s + 1] * FX, a[6 * s + 2] * FX), new THREE.Vector3(a[6 * s + 3] * FX, a[6 * s + 4] * FX, a[6 * s + 5] * FX));
		all.union(b);
		if (p[9 * s] === 3) box.union(b);
	}
	const b = box.isEmpty() ? all : box;
	if (b.isEmpty()) return;
	const c = b.getCenter(new THREE.Vector3()), r = Math.max(1, b.getSize(new THREE.Vector3()).length() / 2);
	controls.target.copy(c);
	camera.position.copy(c).add(new THREE.Vector3(0.55, 0.45, 1).normalize().multiplyScalar(r * 3.2));
	camera.near = r / 200;
	camera.far = r * 200;
	camera.updateProjectionMatrix();
	controls.update();
}

/* the camera onto one body (the inspector's), from where it looked */
function focusOn(slot) {
	const b = view.world.bodyAt(slot);
	if (!b) return;
	const p = b.position, a = view.world.aabbs(), o = 6 * slot;
	const size = Math.max(a[o + 3] - a[o], a[o + 4] - a[o + 1], a[o + 5] - a[o + 2]) * FX;
	const dir = camera.position.clone().sub(controls.target).normalize();
	controls.target.set(p.x, p.y, p.z);
	camera.position.copy(controls.target).add(dir.multiplyScalar(Math.max(3, 6 * size)));
	controls.update();
}

/* ---- playing ---- */
function show() {
	updateBodies();
	updateDebug();
	$('tick').textContent = String(view.tick);
	$('hash').textContent = view.world.hash();
	$('last').textContent = String(view.last);
	$('scrub').max = String(view.last);
	$('scrub').value = String(view.tick);
	$('goto').value = String(view.tick);
	document.body.dataset.tick = String(view.tick);
	document.body.dataset.hash = view.world.hash();
}

function setWorld(world, source, last) {
	if (view.world) view.world.free();
	view.world = world;
	view.source = source;
	view.tick = 0;
	view.last = last;
	view.keyframes = new Map([[0, world.snapshot()]]);
	view.highlight = -1;
	view.ghost = null;
	$('report').textContent = '';
	$('source').textContent = source;
	buildBodies();
	fitCamera();
	show();
}

function stepOnce() {
	if (view.replay) {
		if (view.tick >= view.replay.tickCount) return false;
		view.replay.step(view.world, view.tick);
	} else {
		view.world.step();
	}
	view.tick += 1;
	if (view.tick > view.last) view.last = view.tick;
	if (view.tick % KEYFRAME_EVERY === 0 && !view.keyframes.has(view.tick)) view.keyframes.set(view.tick, view.world.snapshot());
	return true;
}

/* Moves to tick t: forward by stepping, back by restoring the nearest
 * keyframe at or before t and stepping from there. */
function seek(t) {
	t = Math.max(0, Math.floor(t));
	if (view.replay) t = Math.min(t, view.replay.tickCount);
	if (t < view.tick) {
		let k = 0;
		for (const kt of view.keyframes.keys()) if (kt <= t && kt > k) k = kt;
		view.world.restore(view.keyframes.get(k));
		view.tick = k;
	}
	while (view.tick < t && stepOnce());
	show();
}

function loadScene(name) {
	view.replay && view.replay.free();
	view.replay = null;
	const info = fx.scenes().find((s) => s.name === name);
	setWorld(fx.createScene(name), `scene ${name}: ${info.description}`, info.defaultSteps);
}

function loadReplay(bytes, label) {
	const r = fx.Replay.parse(bytes);
	view.replay && view.replay.free();
	view.replay = r;
	const state = r.status === 0 ? `${r.tickCount} ticks` : `${r.tickCount} ticks (${r.error})`;
	setWorld(r.start(), `replay ${label}: ${r.scene}, ${r.players} player${r.players === 1 ? '' : 's'}, ${state}`, r.tickCount);
}

/* ---- the desync inspector ---- */
function ghostOf(world, slot, color) {
	const b = world.bodyAt(slot);
	if (!b) return null;
	const m = new THREE.Mesh(shapeGeometry(world, b.shape), new THREE.MeshBasicMaterial({ color, wireframe: true, depthTest: false }));
	const p = b.position, q = b.rotation;
	m.position.set(p.x, p.y, p.z);
	m.quaternion.set(q.x, q.y, q.z, q.w);
	return m;
}

function report(r) {
	const el = $('report');
	el.textContent = r.message;
	for (const k of ['step', 'body', 'field']) if (r[k] !== undefined) el.dataset[k] = String(r[k]);
	if (r.field) {
		const t = document.createElement('table');
		const rows = [['step', r.step], ['body', r.body < 0 ? '(not a body)' : r.body], ['field', r.field], [r.labels[0], r.expectedValue], [r.labels[1], r.gotValue]];
		for (const [k, v] of rows) {
			const tr = t.insertRow();
			tr.insertCell().textContent = k;
			tr.insertCell().textContent = String(v);
		}
		el.appendChild(t);
	}
}

/* One replay: re-simulated here against its recorded hashes (`fixstep
 * verify`). Two: where their inputs or hashes part, and there the first
 * body and field (`fixstep diff`: expected = A, got = B). The view then
 * shows A's re-simulation at that tick, the body in red, and the other
 * run's body as a wireframe. */
function inspect(bytesA, nameA, bytesB, nameB) {
	if (!bytesB) {
		const r = fx.Replay.parse(bytesA);
		const v = r.verify();
		r.free();
		loadReplay(bytesA, nameA);
		if (v.status !== 'diverged') {
			report({ message: v.status === 'ok' ? `${nameA}: every tick matches (${v.message})` : `${nameA}: ${v.message}` });
			return;
		}
		const i = v.step - view.replay.startTick;
		seek(i);
		view.highlight = v.body;
		if (v.body >= 0 && view.replay.detail) {
			const rec = view.replay.recordedWorld(i - 1);
			view.ghost = ghostOf(rec, v.body, 0x40ff80);
			rec.free();
		}
		report({ ...v, labels: ['expected (recorded)', 'got (re-simulated)'] });
		if (v.body >= 0) focusOn(v.body);
		show();
		return;
	}
	const a = fx.Replay.parse(bytesA), b = fx.Replay.parse(bytesB);
	try {
		if (a.scene !== b.scene || a.players !== b.players || a.startTick !== b.startTick) {
			report({ message: `different recordings: A is ${a.scene} with ${a.players} players from step ${a.startTick}, B is ${b.scene} with ${b.players} players from step ${b.startTick}` });
			return;
		}
		const n = Math.min(a.tickCount, b.tickCount);
		let i = 0, lines = [];
		for (; i < n; ++i) {
			const ia = a.tickInputs(i), ib = b.tickInputs(i);
			const p = ia.findIndex((x, k) => JSON.stringify(x) !== JSON.stringify(ib[k]));
			if (p < 0 && a.tickHash(i) === b.tickHash(i)) continue;
			if (p >= 0) lines.push(`inputs part at step ${a.tickNumber(i)}: player ${p}`, `  A: ${JSON.stringify(ia[p])}`, `  B: ${JSON.stringify(ib[p])}`);
			while (i < n && a.tickHash(i) === b.tickHash(i)) ++i;
			break;
		}
		if (i >= n) {
			report({ message: [...lines, a.tickCount === b.tickCount ? `identical: ${n} ticks` : `identical for ${n} ticks, then ${a.tickCount < b.tickCount ? 'A' : 'B'} ends`].join('\n') });
			return;
		}
		const step = a.tickNumber(i);
		const wa = stateAfter(a, i), wb = stateAfter(b, i);
		const d = wb.firstDifference(wa);
		const body = d ? d.body : -1;
		loadReplay(bytesA, nameA);
		seek(i + 1);
		view.highlight = body;
		if (body >= 0) view.ghost = ghostOf(wb, body, 0x40ff80);
		wa.free(), wb.free();
		lines.push(d ? `diverged at step ${step}: ${d.text}` : `diverged at step ${step}: recorded hashes ${a.tickHash(i)} (A) and ${b.tickHash(i)} (B), but here both runs give the same state`);
		lines.push('(expected = A, got = B)');
		report({ message: lines.join('\n'), step, body, field: d && d.field, expectedValue: d && d.expected, gotValue: d && d.got, labels: ['A', 'B'] });
		if (body >= 0) focusOn(body);
		show();
	} finally {
		a.free(), b.free();
	}
}
function stateAfter(r, i) {
	if (r.detail) return r.recordedWorld(i);
	const w = r.start();
	for (let k = 0; k <= i; ++k) r.step(w, k);
	return w;
}

/* ---- UI ---- */
function fail(e) {
	$('error').textContent = String(e && e.message ? e.message : e);
	document.body.dataset.error = $('error').textContent;
	console.error(e);
}
const guard = (f) => (...a) => { try { $('error').textContent = ''; return f(...a); } catch (e) { fail(e); } };
const readFile = (f) => f.arrayBuffer().then((b) => new Uint8Array(b));

function animate() {
	requestAnimationFrame(animate);
	if (view.playing && view.world) {
		try {
			if (!stepOnce() || (view.replay && view.tick >= view.last)) setPlaying(false);
			show();
		} catch (e) {
			setPlaying(false);
			fail(e);
		}
	}
	controls.update();
	renderer.render(scene3, camera);
}
function setPlaying(on) {
	view.playing = on;
	$('play').textContent = on ? 'pause' : 'play';
}

async function main() {
	await fx.init();
	$('version').textContent = `${fx.version()} (${fx.buildKernels().at(-1)})`;
	for (const s of fx.scenes()) $('scene').add(new Option(`${s.name}`, s.name));
	$('load').onclick = guard(() => loadScene($('scene').value));
	$('play').onclick = () => setPlaying(!view.playing);
	$('step').onclick = guard(() => { setPlaying(false); seek(view.tick + 1); });
	$('back').onclick = guard(() => { setPlaying(false); seek(view.tick - 1); });
	$('go').onclick = guard(() => { setPlaying(false); seek(Number($('goto').value)); });
	$('scrub').oninput = guard(() => { setPlaying(false); seek(Number($('scrub').value)); });
	$('show-contacts').onchange = guard(() => updateDebug());
	$('show-aabbs').onchange = guard(() => updateDebug());
	$('file').onchange = () => { const f = $('file').files[0]; if (f) readFile(f).then(guard((b) => loadReplay(b, f.name))); };
	const drop = $('drop');
	drop.ondragover = (e) => { e.preventDefault(); drop.classList.add('over'); };
	drop.ondragleave = () => drop.classList.remove('over');
	drop.ondrop = (e) => {
		e.preventDefault();
		drop.classList.remove('over');
		const f = e.dataTransfer.files[0];
		if (f) readFile(f).then(guard((b) => loadReplay(b, f.name)));
	};
	$('inspect').onclick = async () => {
		const fa = $('inspect-a').files[0], fb = $('inspect-b').files[0];
		if (!fa) return fail('choose replay A (and B to compare two replays)');
		const a = await readFile(fa), b = fb ? await readFile(fb) : null;
		guard(inspect)(a, fa.name, b, fb && fb.name);
		document.body.dataset.inspected = '1';
	};
	window.addEventListener('keydown', (e) => {
		if (e.target.tagName === 'INPUT' || e.target.tagName === 'SELECT') return;
		if (e.key === ' ') { e.preventDefault(); setPlaying(!view.playing); }
		if (e.key === '.') $('step').onclick();
		if (e.key === ',') $('back').onclick();
	});

	const q = new URLSearchParams(location.search);
	if (q.get('contacts') === '1') $('show-contacts').checked = true;
	if (q.get('aabbs') === '1') $('show-aabbs').checked = true;
	const fetchBytes = async (u) => { const r = await fetch(u); if (!r.ok) throw new Error(`${u}: ${r.status}`); return new Uint8Array(await r.arrayBuffer()); };
	if (q.get('inspect')) {
		const a = await fetchBytes(q.get('inspect')), b = q.get('b') ? await fetchBytes(q.get('b')) : null;
		inspect(a, q.get('inspect'), b, q.get('b'));
	} else if (q.get('replay')) {
		loadReplay(await fetchBytes(q.get('replay')), q.get('replay'));
	} else {
		const name = q.get('scene') || 'pyramid_20';
		$('scene').value = name;
		loadScene(name);
	}
	if (q.get('tick')) seek(Number(q.get('tick')));
	if (q.get('play') === '1') setPlaying(true);
	document.body.dataset.ready = '1';
	animate();
}
main().catch(fail);
