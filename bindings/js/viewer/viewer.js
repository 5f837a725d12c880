// The fixstep viewer: plays a built-in scene or a replay through the wasm
// kernel, draws what the kernel's debug draw hands it (World.draw(): boxes,
// spheres, capsules, hull faces, mesh triangles, joints, contacts, bounds)
// with three.js, and shows the tick and the state hash; the desync
// inspector finds where two runs part. Static files only.
//
// Query string (for links and tests): ?scene=NAME&tick=N, ?replay=URL&tick=N,
// ?inspect=URL[&b=URL], &contacts=1, &aabbs=1, &sensors=0, &joints=0, &play=1.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import * as fx from './fixstep.mjs';

const $ = (id) => document.getElementById(id);
const FX = 1 / 65536;
const KEYFRAME_EVERY = 30; /* ticks between the snapshots a scrub back restores */

const view = {
	world: null, replay: null, scene: null, source: '', tick: 0, last: 0, keyframes: new Map(),
	playing: false, highlight: -1,
	game: null, /* the registered game of the scene or replay shown (games below), or null */
	play: null, /* how the replay shown plays (playMode) */
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
const bodyRoot = new THREE.Group(), debugRoot = new THREE.Group(), ghostRoot = new THREE.Group();
scene3.add(bodyRoot, debugRoot, ghostRoot);

function resize() {
	const w = window.innerWidth, h = window.innerHeight;
	renderer.setSize(w, h);
	camera.aspect = w / h;
	camera.updateProjectionMatrix();
}
window.addEventListener('resize', resize);
resize();

/* ---- what the debug draw hands over, as three.js instances ----
 * Every record of World.draw() carries its body's slot and the kernel's
 * colour for what the body is (fx.DEBUG_COLORS). A Layer draws the records
 * a pick(slot, colour) function accepts, in the colour it returns: the
 * solid bodies, the sensors (translucent, with their edges), the
 * inspector's ghost (a wireframe). */
const UNIT_BOX = new THREE.BoxGeometry(1, 1, 1);
const UNIT_SPHERE = new THREE.SphereGeometry(1, 24, 16);
const UNIT_TUBE = new THREE.CylinderGeometry(1, 1, 1, 20, 1, true); /* a capsule's side: caps are spheres */

/* An InstancedMesh that grows to what a frame needs. */
class Instances {
	constructor(root, geometry, material) {
		Object.assign(this, { root, geometry, material, mesh: null, cap: 0, n: 0 });
	}
	begin(upTo) {
		if (upTo > this.cap) {
			if (this.mesh) this.root.remove(this.mesh), this.mesh.dispose();
			this.cap = Math.max(64, upTo, 2 * this.cap);
			this.mesh = new THREE.InstancedMesh(this.geometry, this.material, this.cap);
			this.mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
			this.mesh.frustumCulled = false;
			this.root.add(this.mesh);
		}
		this.n = 0;
	}
	add(m, c) {
		this.mesh.setMatrixAt(this.n, m);
		this.mesh.setColorAt(this.n++, c);
	}
	end() {
		if (!this.mesh) return;
		this.mesh.count = this.n;
		this.mesh.instanceMatrix.needsUpdate = true;
		if (this.mesh.instanceColor) this.mesh.instanceColor.needsUpdate = true;
	}
}

/* Triangles (hull faces fanned, mesh faces) in one geometry a frame. */
class Faces {
	constructor(root, material) {
		this.geometry = new THREE.BufferGeometry();
		this.mesh = new THREE.Mesh(this.geometry, material);
		this.mesh.frustumCulled = false;
		root.add(this.mesh);
		this.pos = [], this.col = [];
	}
	begin() { this.pos.length = 0, this.col.length = 0; }
	tri(l, a, b, c, colour) {
		for (const o of [a, b, c]) this.pos.push(l[o] * FX, l[o + 1] * FX, l[o + 2] * FX), this.col.push(colour.r, colour.g, colour.b);
	}
	end() {
		this.geometry.setAttribute('position', new THREE.Float32BufferAttribute(this.pos, 3));
		this.geometry.setAttribute('color', new THREE.Float32BufferAttribute(this.col, 3));
		this.geometry.computeVertexNormals(); /* non-indexed: flat, one normal a face */
	}
}

const tmpM = new THREE.Matrix4(), tmpP = new THREE.Vector3(), tmpQ = new THREE.Quaternion(), tmpS = new THREE.Vector3();
const UP = new THREE.Vector3(0, 1, 0), tmpD = new THREE.Vector3();

class Layer {
	constructor(root, material, faceMaterial) {
		const m = (mat) => new Instances(root, null, mat);
		this.box = m(material), this.sphere = m(material), this.tube = m(material);
		this.box.geometry = UNIT_BOX, this.sphere.geometry = UNIT_SPHERE, this.tube.geometry = UNIT_TUBE;
		this.faces = new Faces(root, faceMaterial || material);
	}
	fill(d, pick) {
		const { boxes, spheres, capsules, polygons, triangles } = d;
		this.box.begin(boxes.length / 12);
		this.sphere.begin(spheres.length / 6 + 2 * capsules.length / 9);
		this.tube.begin(capsules.length / 9);
		this.faces.begin();
		for (let o = 0; o < boxes.length; o += 12) {
			const c = pick(boxes[o], boxes[o + 1]);
			if (!c) continue;
			tmpP.set(boxes[o + 2] * FX, boxes[o + 3] * FX, boxes[o + 4] * FX);
			tmpQ.set(boxes[o + 5] * FX, boxes[o + 6] * FX, boxes[o + 7] * FX, boxes[o + 8] * FX).normalize();
			tmpS.set(2 * boxes[o + 9] * FX, 2 * boxes[o + 10] * FX, 2 * boxes[o + 11] * FX);
			this.box.add(tmpM.compose(tmpP, tmpQ, tmpS), c);
		}
		const ball = (l, o, r, c) => {
			tmpP.set(l[o] * FX, l[o + 1] * FX, l[o + 2] * FX);
			this.sphere.add(tmpM.compose(tmpP, tmpQ.identity(), tmpS.setScalar(r * FX)), c);
		};
		for (let o = 0; o < spheres.length; o += 6) {
			const c = pick(spheres[o], spheres[o + 1]);
			if (c) ball(spheres, o + 2, spheres[o + 5], c);
		}
		for (let o = 0; o < capsules.length; o += 9) {
			const c = pick(capsules[o], capsules[o + 1]);
			if (!c) continue;
			const r = capsules[o + 8];
			ball(capsules, o + 2, r, c), ball(capsules, o + 5, r, c);
			tmpD.set(capsules[o + 5] - capsules[o + 2], capsules[o + 6] - capsules[o + 3], capsules[o + 7] - capsules[o + 4]).multiplyScalar(FX);
			const len = tmpD.length();
			tmpQ.setFromUnitVectors(UP, len > 0 ? tmpD.divideScalar(len) : UP);
			tmpP.set((capsules[o + 2] + capsules[o + 5]) * FX / 2, (capsules[o + 3] + capsules[o + 6]) * FX / 2, (capsules[o + 4] + capsules[o + 7]) * FX / 2);
			this.tube.add(tmpM.compose(tmpP, tmpQ, tmpS.set(r * FX, len, r * FX)), c);
		}
		for (let o = 0; o < polygons.length; o += 3 + 3 * polygons[o + 2]) {
			const c = pick(polygons[o], polygons[o + 1]);
			for (let k = 2; c && k < polygons[o + 2]; ++k) this.faces.tri(polygons, o + 3, o + 3 * k, o + 3 * k + 3, c);
		}
		for (let o = 0; o < triangles.length; o += 11) {
			const c = pick(triangles[o], triangles[o + 1]);
			if (c) this.faces.tri(triangles, o + 2, o + 5, o + 8, c);
		}
		this.box.end(), this.sphere.end(), this.tube.end(), this.faces.end();
	}
}

const solid = new Layer(bodyRoot, new THREE.MeshStandardMaterial({ roughness: 0.75, metalness: 0.05 }),
	new THREE.MeshStandardMaterial({ roughness: 0.75, metalness: 0.05, vertexColors: true, side: THREE.DoubleSide }));
const sensorMaterial = { color: 0xffffff, transparent: true, opacity: 0.22, depthWrite: false, side: THREE.DoubleSide };
const sensorFill = new Layer(bodyRoot, new THREE.MeshBasicMaterial(sensorMaterial), new THREE.MeshBasicMaterial({ ...sensorMaterial, vertexColors: true }));
const sensorEdges = new Layer(bodyRoot, new THREE.MeshBasicMaterial({ wireframe: true }), new THREE.MeshBasicMaterial({ wireframe: true, vertexColors: true }));

/* The viewer's colours for the kernel's kinds: dynamic bodies in the
 * kernel's orange, each slot a little apart so that neighbours show,
 * darker asleep; sensors only are green; the inspector's body red, the
 * others dimmed. */
const RED = new THREE.Color(0xff2a2a), tmpC = new THREE.Color();
function bodyColour(slot, kind) {
	if (slot === view.highlight) return RED;
	const C = fx.DEBUG_COLORS, dim = view.highlight >= 0 ? 0.35 : 1, jitter = ((slot * 0.61803398875) % 1 + 1) % 1;
	/* a game's own colours (its teams...), where it gives one */
	const own = view.game && view.game.colour && kind !== C.static ? view.game.colour(view.world.bodyAt(slot)) : null;
	if (own !== null && own !== undefined) return tmpC.set(own).multiplyScalar(dim * (kind === C.sleeping ? 0.6 : 1));
	if (kind === C.dynamic || kind === C.sleeping) tmpC.setHSL(0.02 + 0.09 * jitter, kind === C.dynamic ? 0.75 : 0.35, kind === C.dynamic ? 0.45 + 0.15 * jitter : 0.36);
	else if (kind === C.static) tmpC.set(0x6d737d);
	else tmpC.set(kind);
	return tmpC.multiplyScalar(dim);
}
const SENSOR = new THREE.Color();

/* ---- drawing a frame ---- */
function drawOptions() {
	return { sensors: $('show-sensors').checked, joints: $('show-joints').checked, contactPoints: $('show-contacts').checked,
		contactNormals: $('show-contacts').checked, aabbs: $('show-aabbs').checked };
}
function lines(positions, colours, opacity = 1) {
	const g = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(positions, 3));
	g.setAttribute('color', new THREE.Float32BufferAttribute(colours, 3));
	return new THREE.LineSegments(g, new THREE.LineBasicMaterial({ vertexColors: true, transparent: opacity < 1, opacity, depthTest: false }));
}
function clearGroup(root) {
	for (const o of [...root.children]) {
		root.remove(o);
		o.traverse((c) => { if (c.geometry) c.geometry.dispose(); if (c.material) c.material.dispose(); });
	}
}

function updateBodies() {
	const d = view.world.draw(drawOptions()), C = fx.DEBUG_COLORS;
	SENSOR.set(C.sensor);
	solid.fill(d, (slot, kind) => (kind === C.sensor ? null : bodyColour(slot, kind)));
	sensorFill.fill(d, (slot, kind) => (kind === C.sensor ? (slot === view.highlight ? RED : SENSOR) : null));
	sensorEdges.fill(d, (slot, kind) => (kind === C.sensor ? (slot === view.highlight ? RED : SENSOR) : null));
	return d;
}

/* joints, contact normals, bounds (the kernel's colours), contact points
 * (magenta: apart from the inspector's red), and what the last step did */
function updateDebug(d) {
	clearGroup(debugRoot);
	const C = fx.DEBUG_COLORS, seg = d.segments, pos = [], col = [], c = new THREE.Color();
	for (let o = 0; o < seg.length; o += 7) {
		for (let k = 1; k < 7; ++k) pos.push(seg[o + k] * FX);
		c.set(seg[o]);
		col.push(c.r, c.g, c.b, c.r, c.g, c.b);
	}
	if (pos.length) debugRoot.add(lines(pos, col));
	if (d.points.length) {
		const p = [];
		for (let o = 0; o < d.points.length; o += 4) p.push(d.points[o + 1] * FX, d.points[o + 2] * FX, d.points[o + 3] * FX);
		const g = new THREE.BufferGeometry().setAttribute('position', new THREE.Float32BufferAttribute(p, 3));
		debugRoot.add(new THREE.Points(g, new THREE.PointsMaterial({ color: 0xff4fd8, size: 5, sizeAttenuation: false, depthTest: false })));
	}
	if (d.aabbs.length) {
		const E = [[0, 1], [1, 3], [3, 2], [2, 0], [4, 5], [5, 7], [7, 6], [6, 4], [0, 4], [1, 5], [2, 6], [3, 7]], v = [], vc = [];
		c.set(C.aabb);
		for (let o = 0; o < d.aabbs.length; o += 8) {
			const lo = [0, 1, 2].map((k) => d.aabbs[o + 2 + k] * FX), hi = [0, 1, 2].map((k) => d.aabbs[o + 5 + k] * FX);
			const corner = (i) => [(i & 1 ? hi : lo)[0], (i & 2 ? hi : lo)[1], (i & 4 ? hi : lo)[2]];
			for (const [i, j] of E) v.push(...corner(i), ...corner(j)), vc.push(c.r, c.g, c.b, c.r, c.g, c.b);
		}
		debugRoot.add(lines(v, vc, 0.7));
	}
	const s = view.world.stats(), e = view.world.contactEvents(), se = view.world.sensorEvents();
	const events = e.begin.length + e.end.length + e.hit.length + se.begin.length + se.end.length;
	/* the bodies there now (the step's counters are the last step's: none before the first) */
	$('counts').textContent = `${view.world.bodyCount} bodies, ` + (s.step > 0 ? `${s.contactPointCount} contact points` : 'contacts after the first step') +
		(events ? `; events: contact ${e.begin.length}/${e.end.length}/${e.hit.length} (begin/end/hit), sensor ${se.begin.length}/${se.end.length}` : '');
}

/* The camera onto what moves: the dynamic bodies (else everything), from
 * the first of a few views whose line of sight to them no static body
 * blocks; when every view is blocked (the school: its boxes are spread over
 * two floors inside walls), onto the characters (kinematic bodies) the
 * same way, and else from inside, in front of the nearest wall. */
const VIEWS = [[0.55, 0.45, 1], [-0.55, 0.45, 1], [0.55, 0.45, -1], [-0.55, 0.45, -1], [0.4, 1.2, 0.8], [0.15, 1, 0.25]];
function fitCamera() {
	const a = view.world.aabbs(), p = view.world.poses();
	const dyn = new THREE.Box3(), kin = new THREE.Box3(), all = new THREE.Box3();
	for (let s = 0; 6 * s < a.length; ++s) {
		if (!p[9 * s]) continue;
		const b = new THREE.Box3(new THREE.Vector3(a[6 * s] * FX, a[6 * s + 1] * FX, a[6 * s + 2] * FX), new THREE.Vector3(a[6 * s + 3] * FX, a[6 * s + 4] * FX, a[6 * s + 5] * FX));
		all.union(b);
		if (p[9 * s] === 3) dyn.union(b);
		if (p[9 * s] === 2) kin.union(b);
	}
	const blocked = (from, to) => {
		const hit = view.world.rayCast([from.x, from.y, from.z], [to.x, to.y, to.z]);
		return hit && hit.body && hit.body.type === 'static';
	};
	const place = (c, r, d, dist) => {
		controls.target.copy(c);
		camera.position.copy(c).add(d.clone().multiplyScalar(dist));
		camera.near = r / 200;
		camera.far = Math.max(r, all.isEmpty() ? r : all.getSize(new THREE.Vector3()).length()) * 200;
		camera.updateProjectionMatrix();
		controls.update();
	};
	const boxes = [dyn.isEmpty() ? all : dyn, kin].filter((b) => !b.isEmpty());
	if (!boxes.length) return;
	for (const b of boxes) {
		const c = b.getCenter(new THREE.Vector3()), r = Math.max(1, b.getSize(new THREE.Vector3()).length() / 2);
		for (const v of VIEWS) {
			const d = new THREE.Vector3(...v).normalize();
			if (blocked(c.clone().add(d.clone().multiplyScalar(r * 3.2)), c)) continue;
			place(c, r, d, r * 3.2);
			document.body.dataset.cameraClear = '1';
			return;
		}
	}
	/* every view blocked: from inside, as far back as the walls let it */
	const b = boxes[boxes.length - 1], c = b.getCenter(new THREE.Vector3()), r = Math.max(1, b.getSize(new THREE.Vector3()).length() / 2);
	let best = null, far = 0;
	for (const v of VIEWS) {
		const d = new THREE.Vector3(...v).normalize(), to = c.clone().add(d.clone().multiplyScalar(r * 3.2));
		const hit = view.world.rayCast([c.x, c.y, c.z], [to.x, to.y, to.z]);
		const dist = hit ? hit.distance * 0.9 : r * 3.2;
		if (dist > far) far = dist, best = d;
	}
	place(c, r, best, far);
	document.body.dataset.cameraClear = far >= 2 ? '1' : '0';
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
	updateDebug(updateBodies());
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
	setGhost(null);
	$('report').textContent = '';
	$('source').textContent = source;
	fitCamera();
	show();
}

function stepOnce() {
	if (view.replay) {
		const r = view.replay, i = view.tick;
		if (i >= r.tickCount || !view.play) return false;
		if (view.play === 'game') {
			const g = view.game;
			if (g.applyInputBytes) g.applyInputBytes(view.world, r.tickInputBytes(i), r.tickNumber(i));
			else g.applyInputs(view.world, r.tickInputs(i), r.tickNumber(i));
			view.world.step();
		} else if (view.play === 'states') {
			const rec = r.recordedWorld(i);
			try { view.world.restore(rec.snapshot()); } finally { rec.free(); }
		} else r.step(view.world, i);
	} else if (view.scene.scripted) {
		view.world.playScene(view.scene.name);
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
	if (view.replay) t = Math.min(t, view.play ? view.replay.tickCount : 0);
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
	view.scene = info;
	view.game = games.get(name) || null;
	$('scene').value = name;
	$('replay-option').hidden = true;
	/* a scene with scripted players plays them, as fixstep events and fixstep draw do */
	setWorld(fx.createScene(name), `scene ${name}${info.scripted ? ' (its scripted players)' : ''}: ${info.description}`, info.defaultSteps);
}

/* How a replay plays: 'game' (a handler the page registered for its
 * scene name), 'scene' (a built-in scene's handler, or its recorded API
 * calls), 'states' (no handler: its recorded per-tick states, DETAIL), or
 * null (none of them: it shows its start only). */
function playMode(r) {
	const g = games.get(r.scene);
	if (g && (g.applyInputs || g.applyInputBytes) && r.mode === 'inputs') return 'game';
	if (r.mode === 'calls' || fx.scenes().some((s) => s.name === r.scene)) return 'scene';
	return r.detail ? 'states' : null;
}
const PLAYED = { game: 'its game\'s input handler', scene: 'the scene\'s input handler', states: 'its recorded states (no input handler)' };

function loadReplay(bytes, label) {
	const r = fx.Replay.parse(bytes);
	view.replay && view.replay.free();
	view.replay = r;
	view.scene = null;
	view.game = games.get(r.scene) || null;
	view.play = playMode(r);
	/* the scene list says a replay is loaded, not the last scene chosen */
	const opt = $('replay-option');
	opt.textContent = `(replay: ${label})`;
	opt.hidden = false;
	$('scene').value = '';
	const state = r.status === 0 ? `${r.tickCount} ticks` : `${r.tickCount} ticks (${r.error})`;
	const how = view.play ? `played from ${PLAYED[view.play]}` : `no input handler for '${r.scene}' and no recorded states: its start only (fixstepViewer.registerGame)`;
	setWorld(r.start(), `replay ${label}: ${r.scene}, ${r.players} player${r.players === 1 ? '' : 's'}, ${state}; ${how}`, view.play ? r.tickCount : 0);
	document.body.dataset.play = view.play || 'none';
}

/* ---- the desync inspector ---- */
/* The other run's body `slot` of `world` as a green wireframe, drawn by its
 * debug draw (only what meets the body's bounds is asked for); null clears it. */
const GHOST = new THREE.Color(0x40ff80);
function setGhost(world, slot) {
	for (const o of [...ghostRoot.children]) {
		ghostRoot.remove(o);
		if (o.isInstancedMesh) o.dispose(); /* its instances; the unit geometries are shared */
		else o.geometry.dispose();
		o.material.dispose();
	}
	const b = world && world.bodyAt(slot);
	if (!b) return;
	const material = { wireframe: true, depthTest: false, transparent: true };
	new Layer(ghostRoot, new THREE.MeshBasicMaterial(material), new THREE.MeshBasicMaterial({ ...material, vertexColors: true }))
		.fill(world.draw({ disabled: true, joints: false, bounds: b.aabb }), (s) => (s === slot ? GHOST : null));
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
		const mode = playMode(r), g = games.get(r.scene);
		let v;
		if (mode === 'game') {
			/* the viewer trusts the file's own start: it looks for where the run parts, it proves nothing */
			const s0 = r.start(), startHash = s0.hash();
			s0.free();
			v = r.verify(g.applyInputBytes ? { applyInputBytes: g.applyInputBytes, startHash } : { applyInputs: g.applyInputs, startHash });
		} else if (mode === 'states') {
			v = { status: 'states', message: `no input handler for '${r.scene}' (fixstepViewer.registerGame): its ${r.tickCount} recorded states match their recorded hashes; re-simulating them needs the game's handler` };
		} else v = r.verify({ mode: r.mode }); /* looking, not proving: the file's own kind */
		r.free();
		loadReplay(bytesA, nameA);
		if (v.status !== 'diverged') {
			report({ message: v.status === 'ok' ? `${nameA}: every tick matches (${v.message})` : `${nameA}: ${v.message}` });
			document.body.dataset.verdict = v.status;
			return;
		}
		const i = v.step - view.replay.startTick;
		seek(i);
		view.highlight = v.body;
		if (v.body >= 0 && view.replay.detail) {
			const rec = view.replay.recordedWorld(i - 1);
			setGhost(rec, v.body);
			rec.free();
		}
		report({ ...v, labels: ['expected (recorded)', 'got (re-simulated)'] });
		document.body.dataset.verdict = v.status;
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
		const size = a.inputSize;
		for (; i < n; ++i) {
			const ia = a.tickInputBytes(i), ib = b.tickInputBytes(i);
			let p = -1;
			for (let k = 0; k < a.players && p < 0 && size === b.inputSize; ++k)
				for (let j = 0; j < size; ++j) if (ia[k * size + j] !== ib[k * size + j]) { p = k; break; }
			if (p < 0 && a.tickHash(i) === b.tickHash(i)) continue;
			if (p >= 0) lines.push(`inputs part at step ${a.tickNumber(i)}: player ${p}`, `  A: ${inputText(a, i, p)}`, `  B: ${inputText(b, i, p)}`);
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
		if (body >= 0) setGhost(wb, body);
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
/* Player p's inputs at tick i, short: the Input record's fields that are
 * set, or the game's bytes in hex. */
function inputText(r, i, p) {
	if (r.inputSize === fx.INPUT_SIZE) {
		const x = r.tickInputs(i)[p];
		return Object.entries(x).filter(([, v]) => v !== 0).map(([k, v]) => `${k} ${v}`).join(', ') || 'neutral';
	}
	return [...r.tickInputBytes(i).subarray(p * r.inputSize, (p + 1) * r.inputSize)].map((b) => b.toString(16).padStart(2, '0')).join(' ');
}
function stateAfter(r, i) {
	if (r.detail) return r.recordedWorld(i);
	const w = r.start(), g = games.get(r.scene), mode = playMode(r);
	for (let k = 0; k <= i; ++k) {
		if (mode === 'game') {
			if (g.applyInputBytes) g.applyInputBytes(w, r.tickInputBytes(k), r.tickNumber(k));
			else g.applyInputs(w, r.tickInputs(k), r.tickNumber(k));
			w.step();
		} else r.step(w, k);
	}
	return w;
}

/* ---- games: what the page knows of a replay's game ----
 * fixstepViewer.registerGame(name, {applyInputs(world, inputs, tick) |
 * applyInputBytes(world, bytes, tick), colour(body) -> 0xRRGGBB | null}):
 * replays whose scene name is `name` play and are inspected with the
 * game's own input handler (Input records, or its bytes of any size), and
 * its bodies drawn in its colours. The arena's teams are registered here. */
const games = new Map();
function registerGame(name, game) {
	if (typeof name !== 'string' || !name) throw new TypeError('fixstepViewer.registerGame: a scene name');
	const keys = ['applyInputs', 'applyInputBytes', 'colour'];
	for (const k of Object.keys(game || {})) if (!keys.includes(k)) throw new TypeError(`fixstepViewer.registerGame: unknown ${k} (${keys.join(', ')})`);
	if (game.applyInputs && game.applyInputBytes) throw new TypeError('fixstepViewer.registerGame: applyInputs or applyInputBytes, not both');
	games.set(name, { ...game });
}
const ARENA_TEAMS = [0x3d8bff, 0xffe14d]; /* blue, yellow: apart from the dynamic orange and the inspector's red */
registerGame('arena', {
	/* players (tag 1) and bullets (2): their team's colour (user data bit 8); the bases are static, grey */
	colour: (b) => (b && (b.userData & 255) >= 1 && (b.userData & 255) <= 3 ? ARENA_TEAMS[(b.userData >> 8) & 1] : null),
});
window.fixstepViewer = { registerGame };

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
	$('load').onclick = guard(() => { if ($('scene').value) loadScene($('scene').value); });
	$('play').onclick = () => setPlaying(!view.playing);
	$('step').onclick = guard(() => { setPlaying(false); seek(view.tick + 1); });
	$('back').onclick = guard(() => { setPlaying(false); seek(view.tick - 1); });
	$('go').onclick = guard(() => { setPlaying(false); seek(Number($('goto').value)); });
	$('scrub').oninput = guard(() => { setPlaying(false); seek(Number($('scrub').value)); });
	for (const k of ['contacts', 'aabbs', 'sensors', 'joints']) $(`show-${k}`).onchange = guard(() => show());
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
	for (const k of ['contacts', 'aabbs', 'sensors', 'joints']) if (q.get(k)) $(`show-${k}`).checked = q.get(k) === '1';
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
