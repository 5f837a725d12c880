/* fixstep's JavaScript API over the flat C API of fxjs*.c (compiled to wasm
 * with the kernel). This file is a plain script body: build.mjs puts the
 * emscripten factory (createFixstepWasm) before it and an ES module or
 * CommonJS footer after it. The int32 layouts below mirror fxjs.c.
 *
 * Numbers: lengths, speeds, masses ... are given in SI units as JavaScript
 * numbers and converted to Q16.16 at the boundary: round(x * 65536) to the
 * nearest integer, ties away from zero (for numbers with at most five
 * decimal digits this is exactly what libfixmath's fix16_from_str, which the
 * C scenes use, gives). Numbers outside [-32768, 32768) are a RangeError. A
 * value may also be given exactly as {raw: int32}, and every getter has a
 * raw form (Int32Array of Q16.16) for code that must stay bit-exact. */

const FX_ONE = 65536;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

let M = null; /* the emscripten module once init() is done */
let initPromise = null;
let ARGS = 0, OUT = 0; /* scratch: 2048 int32 of arguments, 2048 of results */
const SCRATCH_INTS = 2048;

class FixstepError extends Error {
	constructor(message, code) {
		super(message);
		this.name = 'FixstepError';
		this.code = code; /* the kernel's fxs_result, or a replay status */
	}
}

function need() {
	if (!M) throw new Error('fixstep: call `await init()` before using the API');
	return M;
}
function h32() { return M.HEAP32; }
function hu8() { return M.HEAPU8; }
function cstr(p) { return M.UTF8ToString(p); }

/* ---- numbers ---- */

function toFixed(v, what = 'value') {
	if (typeof v === 'number') {
		if (!Number.isFinite(v)) throw new RangeError(`fixstep: ${what} is ${v}, not a finite number`);
		const r = v < 0 ? -Math.round(-v * FX_ONE) : Math.round(v * FX_ONE);
		if (r < INT32_MIN || r > INT32_MAX) throw new RangeError(`fixstep: ${what} = ${v} is outside Q16.16's range [-32768, 32768)`);
		return r | 0;
	}
	if (v !== null && typeof v === 'object' && 'raw' in v) return rawInt(v.raw, what);
	throw new TypeError(`fixstep: ${what} must be a number or {raw: int32}, not ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
}
function rawInt(r, what) {
	if (!Number.isInteger(r) || r < INT32_MIN || r > INT32_MAX) throw new RangeError(`fixstep: ${what}: raw value ${r} is not an int32`);
	return r | 0;
}
function fromFixed(raw) { return raw / FX_ONE; }
function fixed(raw) { return { raw: rawInt(raw, 'fixed()') }; }

function vec(v, what) {
	if (Array.isArray(v) || ArrayBuffer.isView(v)) {
		if (v.length !== 3) throw new TypeError(`fixstep: ${what} needs 3 components`);
		return [toFixed(v[0], what + '[0]'), toFixed(v[1], what + '[1]'), toFixed(v[2], what + '[2]')];
	}
	if (v !== null && typeof v === 'object') return [toFixed(v.x, what + '.x'), toFixed(v.y, what + '.y'), toFixed(v.z, what + '.z')];
	throw new TypeError(`fixstep: ${what} must be [x, y, z] or {x, y, z}`);
}
function quat(q, what) {
	if (Array.isArray(q) || ArrayBuffer.isView(q)) {
		if (q.length !== 4) throw new TypeError(`fixstep: ${what} needs 4 components (x, y, z, w)`);
		return [0, 1, 2, 3].map((k) => toFixed(q[k], `${what}[${k}]`));
	}
	if (q !== null && typeof q === 'object') return [toFixed(q.x, what + '.x'), toFixed(q.y, what + '.y'), toFixed(q.z, what + '.z'), toFixed(q.w, what + '.w')];
	throw new TypeError(`fixstep: ${what} must be [x, y, z, w] or {x, y, z, w}`);
}
function vecOut(a, o) { return { x: a[o] / FX_ONE, y: a[o + 1] / FX_ONE, z: a[o + 2] / FX_ONE }; }
function vecRaw(a, o) { return { x: a[o], y: a[o + 1], z: a[o + 2] }; }
function quatOut(a, o) { return { x: a[o] / FX_ONE, y: a[o + 1] / FX_ONE, z: a[o + 2] / FX_ONE, w: a[o + 3] / FX_ONE }; }

function u64(lo, hi) { return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0); }
function hex64(lo, hi) { return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0'); }
function num64(lo, hi) { return (hi >>> 0) * 4294967296 + (lo >>> 0); }
function split64(v, what) {
	const b = BigInt(v);
	if (b < 0n || b >= 1n << 64n) throw new RangeError(`fixstep: ${what} must be in [0, 2^64)`);
	return [Number(b & 0xffffffffn) | 0, Number(b >> 32n) | 0];
}

/* Q32.32 (masses, inertias): round(x * 2^32), ties away from zero, or
 * {raw: bigint} exactly; read back as numbers (exact below 2^21 kg) or,
 * with the raw getters, as BigInt. */
function toQ32(v, what) {
	if (typeof v === 'number') {
		if (!Number.isFinite(v)) throw new RangeError(`fixstep: ${what} is ${v}, not a finite number`);
		const r = BigInt(v < 0 ? -Math.round(-v * 4294967296) : Math.round(v * 4294967296));
		if (r < -(1n << 63n) || r >= 1n << 63n) throw new RangeError(`fixstep: ${what} = ${v} is outside Q32.32's range`);
		return r;
	}
	if (v !== null && typeof v === 'object' && typeof v.raw === 'bigint') {
		if (v.raw < -(1n << 63n) || v.raw >= 1n << 63n) throw new RangeError(`fixstep: ${what}: raw value ${v.raw} is not an int64`);
		return v.raw;
	}
	throw new TypeError(`fixstep: ${what} must be a number or {raw: bigint} (Q32.32)`);
}
function ints64(b) { return [Number(BigInt.asUintN(32, b)) | 0, Number(BigInt.asUintN(32, b >> 32n)) | 0]; }
function i64(lo, hi) { return BigInt.asIntN(64, u64(lo, hi)); }

/* Bit sets of 64 bits (filters): a number (a safe integer) or a BigInt;
 * negative values are two's complement, so that ~CATEGORY means every bit
 * but that one, as in C. Read back as BigInt. */
const ALL_BITS = (1n << 64n) - 1n;
function bits64(v, what) {
	let b;
	if (typeof v === 'bigint') b = v;
	else if (Number.isSafeInteger(v)) b = BigInt(v);
	else throw new TypeError(`fixstep: ${what} must be an integer or a BigInt, not ${String(v)}`);
	if (b < -(1n << 63n) || b > ALL_BITS) throw new RangeError(`fixstep: ${what} = ${b} does not fit in 64 bits`);
	return ints64(BigInt.asUintN(64, b));
}

/* Writes ints at ARGS + 4 * at; returns the pointer. */
function args(list, at = 0) {
	const H = h32(), base = (ARGS >> 2) + at;
	for (let i = 0; i < list.length; ++i) H[base + i] = list[i];
	return ARGS + 4 * at;
}
function out(n) { return h32().subarray(OUT >> 2, (OUT >> 2) + n); }

/* A heap copy of bytes (freed by the caller with M._free). */
function toHeap(bytes) {
	const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes.buffer ? bytes.buffer : bytes, bytes.byteOffset || 0, bytes.byteLength);
	const p = M._malloc(Math.max(1, u8.length));
	if (!p) throw new FixstepError('fixstep: out of memory', 3);
	hu8().set(u8, p);
	return [p, u8.length];
}
function fromHeap(p, n) { return hu8().slice(p, p + n); }
/* A heap buffer of n int32 owned by the module, reused by the next call
 * (results are copied out before anything else runs). */
let heapBuf = 0, heapCap = 0;
function heapInts(n) {
	if (n > heapCap) {
		const cap = Math.max(n, 2 * heapCap, 4096), p = M._malloc(4 * cap);
		if (!p) throw new FixstepError('fixstep: out of memory', 3);
		if (heapBuf) M._free(heapBuf);
		heapBuf = p, heapCap = cap;
	}
	return heapBuf;
}
/* The ints of a typed or plain array, copied into the heap (freed by the caller). */
function intsToHeap(list) {
	const p = M._malloc(Math.max(4, 4 * list.length));
	if (!p) throw new FixstepError('fixstep: out of memory', 3);
	h32().set(list, p >> 2);
	return p;
}

function resultString(r) { return cstr(M._fxjs_result_string(r)); }
/* the kernel's field names in the API's words: "relax_iterations" -> "relaxIterations" */
function camel(name) { return name.replace(/_([a-z])/g, (_, c) => c.toUpperCase()); }
/* Why the last creator called on world pointer p failed: a FixstepError
 * with the kernel's reason ("body def: friction out of range 0..100"), or
 * `fallback` when the kernel left none (a refusal of this file's own). */
function creatorError(p, what, fallback) {
	const code = M._fxjs_world_last_error(p), msg = cstr(M._fxjs_world_last_error_message(p));
	return code !== 0 && msg ? new FixstepError(`fixstep: ${what}: ${msg}`, code) : new FixstepError(`fixstep: ${what}: ${fallback}`, code || 1);
}
function check(r, what) {
	if (r !== 0) throw new FixstepError(`fixstep: ${what}: ${resultString(r)}`, r);
}

/* Plain-object definitions: unknown keys are an error (a misspelt key
 * would otherwise be silently ignored). */
function keysOf(def, allowed, what) {
	if (def === undefined || def === null) return {};
	if (typeof def !== 'object') throw new TypeError(`fixstep: ${what} must be an object`);
	for (const k of Object.keys(def)) if (!allowed.includes(k)) throw new TypeError(`fixstep: ${what}: unknown field '${k}' (known: ${allowed.join(', ')})`);
	return def;
}
function bool(v) { return v ? 1 : 0; }
function u32(v, what) {
	if (!Number.isInteger(v) || v < 0 || v > 4294967295) throw new RangeError(`fixstep: ${what} must be an integer in [0, 2^32)`);
	return v | 0;
}
function i32(v, what) { return rawInt(v, what); }

/* ---- memory: explicit free() and a FinalizationRegistry safety net ---- */
const FREE = {
	world: (p) => M._fxjs_world_destroy(p),
	replay: (p) => M._fxjs_replay_free(p),
	writer: (p) => M._fxjs_writer_abandon(p),
	session: (p, handle) => { M._fxjs_session_destroy(p); sessions.delete(handle); },
};
const registry = typeof FinalizationRegistry === 'function' ? new FinalizationRegistry(({ kind, ptr, handle }) => { if (M && ptr) FREE[kind](ptr, handle); }) : null;
function own(obj, kind, ptr) {
	obj._ptr = ptr;
	obj._kind = kind;
	if (registry) registry.register(obj, { kind, ptr }, obj);
}
function release(obj) {
	if (!obj._ptr) return false;
	if (registry) registry.unregister(obj);
	FREE[obj._kind](obj._ptr);
	obj._ptr = 0;
	return true;
}
function live(obj, what) {
	if (!obj._ptr) throw new Error(`fixstep: this ${what} was freed`);
	return obj._ptr;
}

/* ---- enums ---- */
const BODY_TYPES = ['static', 'kinematic', 'dynamic'];
const SHAPE_TYPES = ['sphere', 'box', 'capsule', 'mesh', 'hull', 'compound', 'cylinder'];
const JOINT_TYPES = ['ball', 'hinge', 'fixed', 'distance', 'prismatic', 'spherical', 'filter', 'wheel', 'motor'];
const KERNELS = ['portable', 'avx2', 'avx512', 'simd128', 'neon', 'sse4'];
function enumIndex(list, v, what) {
	if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < list.length) return v;
	const i = list.indexOf(v);
	if (i < 0) throw new TypeError(`fixstep: ${what} must be one of ${list.join(', ')}, not ${v}`);
	return i;
}

/* ---- filters and motion locks ----
 * A filter {categoryBits, maskBits, groupIndex}: fields left out take the
 * kernel's defaults (category 1, every mask bit, group 0), as in C. A query
 * filter {categoryBits, maskBits} the same (category 1, every bit). */
const FILTER_KEYS = ['categoryBits', 'maskBits', 'groupIndex'];
function filterInts(f, what) {
	keysOf(f, FILTER_KEYS, what);
	const d = f || {};
	return [...bits64(d.categoryBits === undefined ? 1 : d.categoryBits, what + '.categoryBits'),
		...bits64(d.maskBits === undefined ? -1 : d.maskBits, what + '.maskBits'), d.groupIndex === undefined ? 0 : i32(d.groupIndex, what + '.groupIndex')];
}
function filterOut(a, o) { return { categoryBits: u64(a[o], a[o + 1]), maskBits: u64(a[o + 2], a[o + 3]), groupIndex: a[o + 4] }; }
/* 5 ints: on, category lo hi, mask lo hi (off: every body) */
function queryFilterInts(f, what = 'filter') {
	if (f === undefined || f === null) return [0, 0, 0, 0, 0];
	keysOf(f, ['categoryBits', 'maskBits'], what);
	return [1, ...filterInts(f, what).slice(0, 4)];
}
const LOCKS = ['linearX', 'linearY', 'linearZ', 'angularX', 'angularY', 'angularZ'];
function lockBits(l, what) {
	keysOf(l, LOCKS, what);
	return LOCKS.reduce((b, k, i) => (l && l[k] ? b | (1 << i) : b), 0);
}
function locksOut(bits) { return Object.fromEntries(LOCKS.map((k, i) => [k, (bits & (1 << i)) !== 0])); }

/* ---- shapes ----
 * {type: 'sphere', radius} | {type: 'box', halfExtents} | {type: 'capsule',
 * radius, halfHeight} | {type: 'cylinder', radius, halfHeight} | the object a world's createMesh / createHull /
 * createCompound returned ({type: 'mesh' | 'hull' | 'compound', id}). */
const SHAPE_KEYS = ['type', 'radius', 'halfHeight', 'halfExtents', 'id'];
/* base: the fields a shape leaves out keep these (they are part of the
 * state and its hash, even where the type does not use them: a body's
 * definition starts from the kernel's default shape, a sphere of radius
 * 0.5, as fxs_default_body_def does; compound children and casts from
 * zeros) */
function shapeInts(s, what = 'shape', base = [0, 0, 0, 0, 0, 0, 0]) {
	keysOf(s, SHAPE_KEYS, what);
	if (!s || s.type === undefined) throw new TypeError(`fixstep: ${what} needs a type (${SHAPE_TYPES.join(', ')})`);
	const t = enumIndex(SHAPE_TYPES, s.type, what + '.type');
	const o = base.slice();
	o[0] = t;
	if (s.radius !== undefined) o[1] = toFixed(s.radius, what + '.radius');
	if (s.halfHeight !== undefined) o[2] = toFixed(s.halfHeight, what + '.halfHeight');
	if (s.halfExtents !== undefined) o.splice(3, 3, ...vec(s.halfExtents, what + '.halfExtents'));
	if (s.id !== undefined) o[6] = u32(s.id, what + '.id');
	if ((t === 0 || t === 2 || t === 6) && s.radius === undefined) throw new TypeError(`fixstep: ${what}: a ${SHAPE_TYPES[t]} needs a radius`);
	if ((t === 2 || t === 6) && s.halfHeight === undefined) throw new TypeError(`fixstep: ${what}: a ${SHAPE_TYPES[t]} needs a halfHeight`);
	if (t === 1 && s.halfExtents === undefined) throw new TypeError(`fixstep: ${what}: a box needs halfExtents`);
	if (t >= 3 && t <= 5 && s.id === undefined) throw new TypeError(`fixstep: ${what}: a ${SHAPE_TYPES[t]} needs the id its world's create${t === 3 ? 'Mesh' : t === 4 ? 'Hull' : 'Compound'} gave`);
	return o;
}
function shapeOut(a, o) {
	const t = a[o];
	const s = { type: SHAPE_TYPES[t] };
	if (t === 0 || t === 2 || t === 6) s.radius = a[o + 1] / FX_ONE;
	if (t === 2 || t === 6) s.halfHeight = a[o + 2] / FX_ONE;
	if (t === 1) s.halfExtents = vecOut(a, o + 3);
	if (t >= 3 && t <= 5) s.id = a[o + 6] >>> 0;
	return s;
}

/* ---- world definition ---- */
const WORLD_FIELDS = [
	/* name, offset, kind: v (vector), f (fixed), i (integer), b (bool), u (uint32) */
	['gravity', 0, 'v'], ['dt', 3, 'f'], ['substeps', 4, 'i'], ['relaxIterations', 5, 'i'], ['contactHertz', 6, 'f'],
	['contactDamping', 7, 'f'], ['contactPushMax', 8, 'f'], ['linearSlop', 9, 'f'], ['speculativeDistance', 10, 'f'],
	['restitutionThreshold', 11, 'f'], ['enableSleep', 12, 'b'], ['linearSleepTolerance', 13, 'f'],
	['angularSleepTolerance', 14, 'f'], ['timeToSleep', 15, 'f'], ['maxBodies', 16, 'u'], ['directJointRows', 17, 'u'],
	['directContactRows', 18, 'u'], ['hitEventThreshold', 19, 'f'],
];
const WORLD_DEF_INTS = 20;
function fieldIn(kind, v, what) {
	switch (kind) {
	case 'v': return vec(v, what);
	case 'f': return [toFixed(v, what)];
	case 'i': return [i32(v, what)];
	case 'u': return [u32(v, what)];
	default: return [bool(v)];
	}
}
function fieldOut(kind, a, o) {
	switch (kind) {
	case 'v': return vecOut(a, o);
	case 'f': return a[o] / FX_ONE;
	case 'i': return a[o];
	case 'u': return a[o] >>> 0;
	default: return a[o] !== 0;
	}
}
function defaultWorldDef() {
	need()._fxjs_world_def_default(OUT);
	const a = Array.from(out(WORLD_DEF_INTS)), d = {};
	for (const [k, o, t] of WORLD_FIELDS) d[k] = fieldOut(t, a, o);
	return d;
}

/* ---- inputs: the 12-byte records of fixstep/input.h ---- */
const INPUT_SIZE = 12;
const BUTTONS = { jump: 1, crouch: 2, use: 4, fire: 8 };
function encodeInputs(inputs, players, dst, at) {
	const dv = new DataView(dst.buffer, dst.byteOffset + at, players * INPUT_SIZE);
	for (let p = 0; p < players; ++p) {
		const i = (inputs && inputs[p]) || {};
		const o = p * INPUT_SIZE;
		dv.setInt16(o, clampInt(i.moveX, -32768, 32767), true);
		dv.setInt16(o + 2, clampInt(i.moveZ, -32768, 32767), true);
		dv.setUint16(o + 4, clampInt(i.yaw, 0, 65535), true);
		dv.setInt16(o + 6, clampInt(i.pitch, -32768, 32767), true);
		dv.setUint32(o + 8, (i.buttons || 0) >>> 0, true);
	}
}
function clampInt(v, lo, hi) {
	if (v === undefined) return 0;
	if (!Number.isInteger(v) || v < lo || v > hi) throw new RangeError(`fixstep: an input field is ${v}, outside [${lo}, ${hi}]`);
	return v;
}
function decodeInputs(u8, players) {
	const dv = new DataView(u8.buffer, u8.byteOffset, players * INPUT_SIZE), r = [];
	for (let p = 0; p < players; ++p) {
		const o = p * INPUT_SIZE;
		r.push({ moveX: dv.getInt16(o, true), moveZ: dv.getInt16(o + 2, true), yaw: dv.getUint16(o + 4, true), pitch: dv.getInt16(o + 6, true), buttons: dv.getUint32(o + 8, true) });
	}
	return r;
}
/* inputs into the heap's argument scratch (after the first 64 ints) */
function inputsArg(inputs, players) {
	if (!Number.isInteger(players) || players < 0 || players > 16) throw new RangeError('fixstep: players must be 0..16');
	const p = ARGS + 256;
	encodeInputs(inputs, players, hu8(), p);
	return p;
}

/* ---- World ---- */
class World {
	/* the most steps one step(n) call makes */
	static MAX_STEPS = 65536;

	constructor(ptr, token) {
		if (token !== WORLD_TOKEN) throw new TypeError('fixstep: use World.create(), World.restore() or createScene()');
		own(this, 'world', ptr);
	}

	/* A new world from a definition (every field optional: the kernel's
	 * defaults, World.defaults()). */
	static create(def = {}) {
		need();
		keysOf(def, WORLD_FIELDS.map((f) => f[0]), 'World.create');
		M._fxjs_world_def_default(ARGS);
		const a = Array.from(h32().subarray(ARGS >> 2, (ARGS >> 2) + WORLD_DEF_INTS));
		for (const [k, o, t] of WORLD_FIELDS) if (def[k] !== undefined) a.splice(o, t === 'v' ? 3 : 1, ...fieldIn(t, def[k], k));
		const p = M._fxjs_world_create(args(a), OUT);
		if (!p) {
			const code = out(1)[0], field = camel(cstr(M._fxjs_world_def_invalid_field(args(a))));
			const e = new FixstepError(`fixstep: World.create: ${field ? `${field} is out of range (${resultString(code)})` : resultString(code)}`, code);
			if (field) e.field = field;
			throw e;
		}
		return new World(p, WORLD_TOKEN);
	}

	static defaults() { return defaultWorldDef(); }

	/* A new world from snapshot bytes (untrusted: every field is checked). */
	static restore(bytes) {
		need();
		const [p, n] = toHeap(bytes);
		try {
			const w = M._fxjs_world_create_from_snapshot(p, n, OUT);
			if (!w) throw new FixstepError(`fixstep: World.restore: ${resultString(out(1)[0])}`, out(1)[0]);
			return new World(w, WORLD_TOKEN);
		} finally {
			M._free(p);
		}
	}

	get ptr() { return live(this, 'world'); }
	free() { release(this); }
	dispose() { release(this); }
	get freed() { return !this._ptr; }

	get def() {
		M._fxjs_world_get_def(this.ptr, OUT);
		const a = Array.from(out(WORLD_DEF_INTS)), d = {};
		for (const [k, o, t] of WORLD_FIELDS) d[k] = fieldOut(t, a, o);
		return d;
	}

	/* n steps of def.dt: n an integer in [0, World.MAX_STEPS] (65536, 18
	 * minutes at 60 Hz per call), else a RangeError before any step. Throws
	 * FixstepError (code 3) when memory ran out (fxs_world_step: the world is
	 * then unusable until restore()). */
	step(n = 1) {
		if (!Number.isInteger(n) || n < 0 || n > World.MAX_STEPS)
			throw new RangeError(`fixstep: step(${n}): the steps must be an integer in [0, ${World.MAX_STEPS}]`);
		const p = this.ptr;
		for (let i = 0; i < n; ++i) {
			const r = M._fxjs_world_step(p);
			if (r !== 0) throw new FixstepError(`fixstep: step ${this.stepCount + 1}: ${resultString(r)}`, r);
		}
		return this;
	}

	/* The state hash (XXH3-64 of the canonical state) as 16 hex digits, as
	 * `fixstep run` prints it. */
	hash() {
		M._fxjs_world_hash(this.ptr, OUT);
		const o = out(2);
		return hex64(o[0], o[1]);
	}
	hashBigInt() {
		M._fxjs_world_hash(this.ptr, OUT);
		const o = out(2);
		return u64(o[0], o[1]);
	}

	get stepCount() {
		M._fxjs_world_get_step(this.ptr, OUT);
		const o = out(2);
		return num64(o[0], o[1]);
	}

	stats() {
		M._fxjs_world_get_stats(this.ptr, OUT);
		const o = out(10);
		return { step: num64(o[0], o[1]), overflows: o[2] >>> 0, overflowsTotal: num64(o[3], o[4]), bodyCount: o[5] >>> 0,
			pairCount: o[6] >>> 0, contactCount: o[7] >>> 0, contactPointCount: o[8] >>> 0, awakeBodyCount: o[9] >>> 0 };
	}

	/* 'portable', 'simd128' (the wasm vector kernel, when this build has
	 * it): the same bits with any. */
	get kernels() { return KERNELS[M._fxjs_world_get_kernels(this.ptr)] || 'portable'; }
	set kernels(k) { M._fxjs_world_set_kernels(this.ptr, enumIndex(KERNELS, k, 'kernels')); }

	get bodyCount() { return M._fxjs_world_body_count(this.ptr); }
	get slotCount() { return M._fxjs_world_slot_count(this.ptr); }

	/* The body in slot `slot` (slots are the canonical order), or null. */
	bodyAt(slot) {
		M._fxjs_world_body_at(this.ptr, slot, OUT);
		const o = out(2);
		return o[0] ? new Body(this, o[0], o[1]) : null;
	}
	*bodies() {
		const n = this.slotCount;
		for (let s = 0; s < n; ++s) {
			const b = this.bodyAt(s);
			if (b) yield b;
		}
	}

	createBody(def) {
		keysOf(def, BODY_FIELDS, 'createBody');
		if (!def || !def.shape) throw new TypeError('fixstep: createBody needs a shape');
		M._fxjs_body_def_default(ARGS);
		const a = Array.from(h32().subarray(ARGS >> 2, (ARGS >> 2) + BODY_DEF_INTS));
		if (def.type !== undefined) a[0] = enumIndex(BODY_TYPES, def.type, 'type');
		if (def.position !== undefined) a.splice(1, 3, ...vec(def.position, 'position'));
		if (def.rotation !== undefined) a.splice(4, 4, ...quat(def.rotation, 'rotation'));
		if (def.linearVelocity !== undefined) a.splice(8, 3, ...vec(def.linearVelocity, 'linearVelocity'));
		if (def.angularVelocity !== undefined) a.splice(11, 3, ...vec(def.angularVelocity, 'angularVelocity'));
		a.splice(14, 7, ...shapeInts(def.shape, 'shape', a.slice(14, 21)));
		const f = [['density', 21], ['friction', 22], ['restitution', 23], ['linearDamping', 24], ['angularDamping', 25], ['gravityScale', 26], ['rollingResistance', 35]];
		for (const [k, o] of f) if (def[k] !== undefined) a[o] = toFixed(def[k], k);
		if (def.userData !== undefined) a[27] = u32(def.userData, 'userData');
		if (def.filter !== undefined) a.splice(28, 5, ...filterInts(def.filter, 'filter'));
		if (def.motionLocks !== undefined) a[33] = lockBits(def.motionLocks, 'motionLocks');
		BODY_FLAGS.forEach((k, i) => { if (def[k] !== undefined) a[34] = def[k] ? a[34] | (1 << i) : a[34] & ~(1 << i); });
		M._fxjs_body_create(this.ptr, args(a), OUT);
		const o = out(2);
		if (!o[0]) throw creatorError(this.ptr, 'createBody', 'the definition was refused');
		return new Body(this, o[0], o[1]);
	}

	/* A static triangle mesh: vertices [[x, y, z], ...] (or a flat array),
	 * triangles [[i, j, k], ...] (or flat), counter-clockwise from the
	 * front. Returns the shape to put in a static body's definition. */
	createMesh({ vertices, triangles, thickness = 0.5 }) {
		const v = flat3(vertices, 'vertices').map((x, i) => toFixed(x, `vertices[${i / 3 | 0}]`));
		const t = flat3(triangles, 'triangles').map((x) => u32(x, 'triangle index'));
		const pv = intsToHeap(v), pt = intsToHeap(t);
		try {
			const id = M._fxjs_world_create_mesh(this.ptr, pv, v.length / 3, pt, t.length / 3, toFixed(thickness, 'thickness'));
			if (!id) throw creatorError(this.ptr, 'createMesh', 'the mesh was refused (bad indices, degenerate triangles, a vertex beyond 4096 m)');
			return { type: 'mesh', id };
		} finally {
			M._free(pv), M._free(pt);
		}
	}

	/* heights[j * nx + i] at (i * cell, j * cell): see fxs_world_create_heightfield */
	createHeightfield({ heights, nx, nz, cell, thickness = 0.5 }) {
		const h = Array.from(heights, (x, i) => toFixed(x, `heights[${i}]`));
		if (h.length !== nx * nz) throw new RangeError('fixstep: createHeightfield: heights must have nx * nz values');
		const p = intsToHeap(h);
		try {
			const id = M._fxjs_world_create_heightfield(this.ptr, p, nx, nz, toFixed(cell, 'cell'), toFixed(thickness, 'thickness'));
			if (!id) throw creatorError(this.ptr, 'createHeightfield', 'refused (nx, nz in 2..4097, cell > 0, vertices within 4096 m)');
			return { type: 'mesh', id };
		} finally {
			M._free(p);
		}
	}

	/* A convex hull of up to 64 points (snapped to 1/256 m, within 8 m):
	 * {shape, centerOfMass} (a hull body's position is its centre of mass). */
	createHull(points) {
		const v = flat3(points, 'points').map((x, i) => toFixed(x, `points[${i / 3 | 0}]`));
		const p = intsToHeap(v);
		try {
			const id = M._fxjs_world_create_hull(this.ptr, p, v.length / 3, OUT);
			if (!id) throw creatorError(this.ptr, 'createHull', 'refused (flat points, more than 64, beyond 8 m, or more than 32 hull vertices)');
			return { shape: { type: 'hull', id }, centerOfMass: vecOut(out(3), 0) };
		} finally {
			M._free(p);
		}
	}
	hullVertices(shape) {
		const n = M._fxjs_hull_get_vertices(this.ptr, u32(shape.id, 'id'), OUT, 32);
		const o = out(3 * n), r = [];
		for (let i = 0; i < n; ++i) r.push(vecOut(o, 3 * i));
		return r;
	}

	/* children: [{shape, position, rotation}] (1..16 spheres, boxes,
	 * capsules or hulls of this world): {shape, centerOfMass}. */
	createCompound(children) {
		if (!Array.isArray(children) || children.length < 1 || children.length > 16) throw new RangeError('fixstep: createCompound needs 1..16 children');
		const a = [];
		children.forEach((c, k) => {
			keysOf(c, ['shape', 'position', 'rotation'], `children[${k}]`);
			a.push(...shapeInts(c.shape, `children[${k}].shape`), ...vec(c.position || [0, 0, 0], `children[${k}].position`),
				...quat(c.rotation || [0, 0, 0, 1], `children[${k}].rotation`));
		});
		const p = intsToHeap(a);
		try {
			const id = M._fxjs_world_create_compound(this.ptr, p, children.length, OUT);
			if (!id) throw creatorError(this.ptr, 'createCompound', 'refused (a bad child shape, a non-unit rotation, a child beyond 100 m)');
			return { shape: { type: 'compound', id }, centerOfMass: vecOut(out(3), 0) };
		} finally {
			M._free(p);
		}
	}

	/* ---- snapshots ---- */
	snapshotSize() { return M._fxjs_world_snapshot_size(this.ptr); }
	/* The whole state as bytes (little-endian, the same on every machine). */
	snapshot() {
		const n = this.snapshotSize(), p = M._malloc(Math.max(1, n));
		if (!p) throw new FixstepError('fixstep: out of memory', 3);
		try {
			check(M._fxjs_world_snapshot_save(this.ptr, p, n, OUT), 'snapshot');
			return fromHeap(p, out(1)[0]);
		} finally {
			M._free(p);
		}
	}
	/* Restores a snapshot into this world (on error it is unchanged). */
	restore(bytes) {
		const [p, n] = toHeap(bytes);
		try {
			check(M._fxjs_world_snapshot_restore(this.ptr, p, n), 'restore');
		} finally {
			M._free(p);
		}
		return this;
	}
	clone() { return World.restore(this.snapshot()); }

	/* ---- joints ---- */
	createJoint(def) {
		keysOf(def, JOINT_FIELDS, 'createJoint');
		const t = enumIndex(JOINT_TYPES, def.type === undefined ? 'ball' : def.type, 'type');
		M._fxjs_joint_def_default(t, ARGS);
		const a = Array.from(h32().subarray(ARGS >> 2, (ARGS >> 2) + 42));
		const ba = bodyArg(this, def.bodyA, 'bodyA'), bb = bodyArg(this, def.bodyB, 'bodyB');
		a[1] = ba.index1, a[2] = ba.generation, a[3] = bb.index1, a[4] = bb.generation;
		if (def.localAnchorA !== undefined) a.splice(5, 3, ...vec(def.localAnchorA, 'localAnchorA'));
		if (def.localAnchorB !== undefined) a.splice(8, 3, ...vec(def.localAnchorB, 'localAnchorB'));
		if (def.localAxisA !== undefined) a.splice(11, 3, ...vec(def.localAxisA, 'localAxisA'));
		if (def.localSpinAxisA !== undefined) a.splice(29, 3, ...vec(def.localSpinAxisA, 'localSpinAxisA'));
		if (def.linearOffset !== undefined) a.splice(33, 3, ...vec(def.linearOffset, 'linearOffset'));
		if (def.angularOffset !== undefined) a.splice(36, 4, ...quat(def.angularOffset, 'angularOffset'));
		const f = [['hertz', 15], ['dampingRatio', 16], ['lower', 18], ['upper', 19], ['motorSpeed', 21], ['maxMotorForce', 22],
			['length', 23], ['springHertz', 25], ['springDampingRatio', 26], ['coneAngle', 28], ['steeringAngle', 32], ['maxMotorTorque', 40], ['correctionFactor', 41]];
		for (const [k, o] of f) if (def[k] !== undefined) a[o] = toFixed(def[k], k);
		for (const [k, o] of [['collideConnected', 14], ['enableLimit', 17], ['enableMotor', 20], ['enableSpring', 24], ['enableCone', 27]]) if (def[k] !== undefined) a[o] = bool(def[k]);
		M._fxjs_joint_create(this.ptr, args(a), OUT);
		const o = out(2);
		if (!o[0]) throw creatorError(this.ptr, 'createJoint', 'refused (invalid bodies, the same body twice, numbers out of range)');
		return new Joint(this, o[0], o[1]);
	}
	get jointCount() { return M._fxjs_world_joint_count(this.ptr); }

	/* ---- characters ---- */
	createCharacter(def = {}) {
		keysOf(def, ['position', 'radius', 'halfHeight', 'stepHeight', 'maxSlopeCos', 'jumpSpeed', 'density'], 'createCharacter');
		M._fxjs_character_def_default(ARGS);
		const a = Array.from(h32().subarray(ARGS >> 2, (ARGS >> 2) + 9));
		if (def.position !== undefined) a.splice(0, 3, ...vec(def.position, 'position'));
		const f = [['radius', 3], ['halfHeight', 4], ['stepHeight', 5], ['maxSlopeCos', 6], ['jumpSpeed', 7], ['density', 8]];
		for (const [k, o] of f) if (def[k] !== undefined) a[o] = toFixed(def[k], k);
		const id = M._fxjs_character_create(this.ptr, args(a));
		if (!id) throw creatorError(this.ptr, 'createCharacter', 'refused (64 characters already, or a number out of range)');
		return new Character(this, id);
	}
	get characterCount() { return M._fxjs_world_character_count(this.ptr); }

	/* ---- queries ----
	 * options.filter: a query filter {categoryBits, maskBits} (queries see
	 * a body when each is in the other's bits; group indices do not apply;
	 * left out: every body). Queries never see sensors or disabled bodies. */
	/* The first body the segment from -> to hits: {body, fraction,
	 * distance, point, normal}, or null. options: skip (a body to ignore),
	 * filter, raw (Q16.16 integers). */
	rayCast(from, to, options = {}) {
		keysOf(options, ['skip', 'filter', 'raw'], 'rayCast');
		const s = options.skip ? bodyArg(this, options.skip, 'skip') : { index1: 0, generation: 0 };
		const a = [...vec(from, 'from'), ...vec(to, 'to'), s.index1, s.generation, ...queryFilterInts(options.filter)];
		return M._fxjs_world_ray_cast(this.ptr, args(a), OUT) ? hitOut(this, out(10), options.raw) : null;
	}
	/* A shape swept without rotating from -> to: the first body it touches.
	 * options: rotation, skip, filter, raw. */
	shapeCast(shape, from, to, options = {}) {
		keysOf(options, ['rotation', 'skip', 'filter', 'raw'], 'shapeCast');
		const s = options.skip ? bodyArg(this, options.skip, 'skip') : { index1: 0, generation: 0 };
		const a = [...shapeInts(shape), ...quat(options.rotation || [0, 0, 0, 1], 'rotation'), ...vec(from, 'from'), ...vec(to, 'to'),
			s.index1, s.generation, ...queryFilterInts(options.filter)];
		return M._fxjs_world_shape_cast(this.ptr, args(a), OUT) ? hitOut(this, out(10), options.raw) : null;
	}
	/* The bodies whose bounds overlap box {lo, hi} (closed), in ascending
	 * slot order. options: filter. */
	overlapAabb(box, options = {}) {
		keysOf(options, ['filter'], 'overlapAabb');
		if (!box || box.lo === undefined || box.hi === undefined) throw new TypeError('fixstep: overlapAabb needs a box {lo, hi}');
		const a = [...vec(box.lo, 'box.lo'), ...vec(box.hi, 'box.hi'), ...queryFilterInts(options.filter)];
		return this._ids((p, cap) => M._fxjs_world_overlap_aabb(this.ptr, args(a), p, cap));
	}
	/* The bodies whose shape overlaps `shape` (a sphere, box, capsule, hull
	 * or compound of this world) placed at position (options.rotation: its
	 * rotation), touching included, in ascending slot order. options: filter. */
	overlapShape(shape, position, options = {}) {
		keysOf(options, ['rotation', 'filter'], 'overlapShape');
		const a = [...shapeInts(shape), ...vec(position, 'position'), ...quat(options.rotation || [0, 0, 0, 1], 'rotation'), ...queryFilterInts(options.filter)];
		return this._ids((p, cap) => M._fxjs_world_overlap_shape(this.ptr, args(a), p, cap));
	}
	/* Bodies from fn(pointer, cap) -> count, which writes (index1,
	 * generation) pairs: sized by a first call when they do not fit. */
	_ids(fn) {
		let n = fn(OUT, SCRATCH_INTS >> 1);
		let ids = out(2 * n);
		if (n > SCRATCH_INTS >> 1) {
			const p = heapInts(2 * n);
			n = fn(p, n);
			ids = h32().subarray(p >> 2, (p >> 2) + 2 * n);
		}
		const r = [];
		for (let k = 0; k < n; ++k) r.push(new Body(this, ids[2 * k], ids[2 * k + 1]));
		return r;
	}

	/* ---- events: what the last step did (copies: they stay valid) ----
	 * Numbers in metres and m/s; options.raw: Q16.16 integers instead.
	 * Ids of end events may be stale (a destroyed body's). */
	contactEvents(options = {}) {
		keysOf(options, ['raw'], 'contactEvents');
		const n = M._fxjs_world_contact_events(this.ptr, 0, 0), p = heapInts(n);
		M._fxjs_world_contact_events(this.ptr, p, n);
		const a = h32().subarray(p >> 2, (p >> 2) + n), v = options.raw ? vecRaw : vecOut, x = options.raw ? (r) => r : fromFixed;
		const ev = (o) => ({ bodyA: new Body(this, a[o], a[o + 1]), bodyB: new Body(this, a[o + 2], a[o + 3]), childA: a[o + 4] >>> 0, childB: a[o + 5] >>> 0 });
		const r = { begin: [], end: [], hit: [] };
		let o = 3;
		for (let k = 0; k < a[0]; ++k, o += 14) r.begin.push({ ...ev(o), normal: v(a, o + 6), point: v(a, o + 9), separation: x(a[o + 12]), pointCount: a[o + 13] });
		for (let k = 0; k < a[1]; ++k, o += 6) r.end.push(ev(o));
		for (let k = 0; k < a[2]; ++k, o += 13) r.hit.push({ ...ev(o), point: v(a, o + 6), normal: v(a, o + 9), approachSpeed: x(a[o + 12]) });
		return r;
	}
	sensorEvents() {
		const n = M._fxjs_world_sensor_events(this.ptr, 0, 0), p = heapInts(n);
		M._fxjs_world_sensor_events(this.ptr, p, n);
		const a = h32().subarray(p >> 2, (p >> 2) + n), r = { begin: [], end: [] };
		for (let k = 0; k < a[0] + a[1]; ++k) {
			const o = 2 + 4 * k;
			(k < a[0] ? r.begin : r.end).push({ sensor: new Body(this, a[o], a[o + 1]), visitor: new Body(this, a[o + 2], a[o + 3]) });
		}
		return r;
	}

	/* ---- settings after creation (state: hashed, in snapshots; from the
	 * next step). A value out of the definition's range is a FixstepError
	 * and changes nothing. ---- */
	get gravity() { return this.def.gravity; }
	setGravity(g) { return this._setting(0, vec(g, 'gravity'), 'setGravity'); }
	/* {hertz, dampingRatio, pushMax}: fields left out keep their values */
	setContactTuning(t) {
		keysOf(t, ['hertz', 'dampingRatio', 'pushMax'], 'setContactTuning');
		M._fxjs_world_get_def(this.ptr, OUT);
		const d = out(WORLD_DEF_INTS), a = [d[6], d[7], d[8]];
		[['hertz', 0], ['dampingRatio', 1], ['pushMax', 2]].forEach(([k, i]) => { if (t && t[k] !== undefined) a[i] = toFixed(t[k], k); });
		return this._setting(1, a, 'setContactTuning');
	}
	setRestitutionThreshold(speed) { return this._setting(2, [toFixed(speed, 'speed')], 'setRestitutionThreshold'); }
	setHitEventThreshold(speed) { return this._setting(3, [toFixed(speed, 'speed')], 'setHitEventThreshold'); }
	enableSleeping(on = true) { return this._setting(4, [bool(on)], 'enableSleeping'); }
	_setting(op, a, what) {
		check(M._fxjs_world_set(this.ptr, op, args(a)), what);
		return this;
	}

	/* ---- built-in scenes played as `fixstep events` and `fixstep draw` play them ---- */
	/* The scene's scripted players' inputs for step `tick` (default: the
	 * next), or null when the scene has no script. */
	scriptedInputs(scene, tick = this.stepCount + 1) {
		const i = sceneIndex(scene), n = scenes()[i].players, p = ARGS + 256;
		const [lo, hi] = split64(tick, 'tick');
		if (!M._fxjs_scene_script(i, this.ptr, lo, hi, n, p)) return null;
		return decodeInputs(hu8().slice(p, p + INPUT_SIZE * n), n);
	}
	/* One step of a built-in scene: its scripted players' inputs (neutral
	 * ones when it has no script) through its input handler, then the step. */
	playScene(scene, n = 1) {
		for (let k = 0; k < n; ++k) {
			const inputs = this.scriptedInputs(scene) || new Array(scenes()[sceneIndex(scene)].players).fill({});
			this.applySceneInputs(scene, inputs).step();
		}
		return this;
	}

	/* ---- comparing and drawing ---- */
	/* The first difference from `expected` in canonical order, as
	 * `fixstep verify` names it: {body, field, expected, got, text}, or null. */
	firstDifference(expected) {
		const cap = 1024, p = M._malloc(cap);
		try {
			const differ = M._fxjs_world_first_difference(live(expected, 'world'), this.ptr, p, cap);
			if (!differ) return null;
			const [body, field, e, g, text] = cstr(p).split('\t');
			return { body: Number(body), field, expected: e, got: g, text };
		} finally {
			M._free(p);
		}
	}

	/* Every slot's pose in one Int32Array of 9 ints a slot: type + 1 (0:
	 * empty), position x y z, rotation x y z w (Q16.16), awake. */
	poses() { return this._bulk(M._fxjs_world_poses, 9); }
	/* Every slot's bounds now, 6 ints a slot (lo, hi; Q16.16; zeros for an empty slot). */
	aabbs() { return this._bulk(M._fxjs_world_aabbs, 6); }
	_bulk(fn, per) {
		const n = this.slotCount, p = heapInts(n * per);
		fn(this.ptr, p, n);
		return h32().slice(p >> 2, (p >> 2) + n * per);
	}

	/* The kernel's debug draw (fixstep/debug_draw.h) as Int32Arrays of
	 * Q16.16 records, copies (DRAW_LAYOUT says each record's ints):
	 * {boxes, spheres, capsules, polygons (hull faces), triangles (mesh
	 * faces), segments (joints, contact normals), points (contact points),
	 * aabbs}. A body's records carry its slot and its colour (DEBUG_COLORS
	 * says what it is). options: shapes, sensors, joints (default true),
	 * contactPoints, contactNormals, aabbs, disabled (default false),
	 * bounds {lo, hi} (only the bodies whose bounds meet it). */
	draw(options = {}) {
		keysOf(options, DRAW_FLAGS.concat('bounds'), 'draw');
		let flags = 0;
		DRAW_FLAGS.forEach((k, i) => { if (options[k] === undefined ? i < 3 : options[k]) flags |= 1 << i; });
		let b = [0, 0, 0, 0, 0, 0];
		if (options.bounds !== undefined) {
			flags |= 128;
			b = [...vec(options.bounds.lo, 'bounds.lo'), ...vec(options.bounds.hi, 'bounds.hi')];
		}
		if (M._fxjs_world_draw(this.ptr, flags, args(b), OUT + 64) !== 0) throw new FixstepError('fixstep: draw: out of memory', 3);
		const o = h32().slice((OUT >> 2) + 16, (OUT >> 2) + 32), r = {};
		DRAW_LISTS.forEach((k, i) => { r[k] = h32().slice(o[2 * i] >> 2, (o[2 * i] >> 2) + o[2 * i + 1]); });
		return r;
	}

	/* The built-in scene's input handler (scenes()[i].name), before the step. */
	applySceneInputs(scene, inputs, tick = this.stepCount + 1) {
		const i = sceneIndex(scene), n = inputs.length;
		const [lo, hi] = split64(tick, 'tick');
		M._fxjs_scene_apply_inputs(i, this.ptr, inputsArg(inputs, n), n, lo, hi);
		return this;
	}
}
const WORLD_TOKEN = Symbol('world');
const DRAW_FLAGS = ['shapes', 'sensors', 'joints', 'contactPoints', 'contactNormals', 'aabbs', 'disabled'];
const DRAW_LISTS = ['boxes', 'spheres', 'capsules', 'polygons', 'triangles', 'segments', 'points', 'aabbs'];
/* The ints of one record of each list of World.draw(): lengths in Q16.16,
 * colours 0xRRGGBB, slot -1 when the body is not known. */
const DRAW_LAYOUT = Object.freeze({
	boxes: 'slot, color, position x y z, rotation x y z w, half extents x y z (12)',
	spheres: 'slot, color, centre x y z, radius (6)',
	capsules: 'slot, color, p1 x y z, p2 x y z, radius (9)',
	polygons: 'slot, color, n, then n vertices x y z (3 + 3 n)',
	triangles: 'slot, color, a x y z, b x y z, c x y z (11)',
	segments: 'color, p1 x y z, p2 x y z (7)',
	points: 'color, x y z (4)',
	aabbs: 'slot, color, lo x y z, hi x y z (8)',
});
if (typeof Symbol.dispose === 'symbol') World.prototype[Symbol.dispose] = World.prototype.dispose;

/* the flag bits of the body definition's last int (fxjs.c) */
const BODY_FLAGS = ['isSensor', 'enableSensorEvents', 'enableContactEvents', 'enableHitEvents', 'isEnabled', 'isAwake'];
const BODY_FIELDS = ['type', 'position', 'rotation', 'linearVelocity', 'angularVelocity', 'shape', 'density', 'friction', 'restitution',
	'rollingResistance', 'linearDamping', 'angularDamping', 'gravityScale', 'userData', 'filter', 'motionLocks', ...BODY_FLAGS];
const BODY_DEF_INTS = 36;
const JOINT_FIELDS = ['type', 'bodyA', 'bodyB', 'localAnchorA', 'localAnchorB', 'localAxisA', 'collideConnected', 'hertz', 'dampingRatio', 'enableLimit', 'lower', 'upper', 'enableMotor', 'motorSpeed', 'maxMotorForce', 'length', 'enableSpring', 'springHertz', 'springDampingRatio', 'enableCone', 'coneAngle', 'localSpinAxisA', 'steeringAngle', 'linearOffset', 'angularOffset', 'maxMotorTorque', 'correctionFactor'];

function flat3(a, what) {
	const f = Array.isArray(a) && Array.isArray(a[0]) ? a.flat() : Array.isArray(a) && a.length && typeof a[0] === 'object' && !ArrayBuffer.isView(a[0]) ? a.flatMap((p) => [p.x, p.y, p.z]) : Array.from(a || []);
	if (f.length === 0 || f.length % 3) throw new TypeError(`fixstep: ${what} must be triples`);
	return f;
}
function bodyArg(world, b, what) {
	if (!(b instanceof Body) || b.world !== world) throw new TypeError(`fixstep: ${what} must be a Body of this world`);
	return b;
}
function hitOut(world, o, raw) {
	const v = raw ? vecRaw : vecOut, x = raw ? (r) => r : fromFixed;
	return { body: o[0] ? new Body(world, o[0], o[1]) : null, fraction: x(o[2]), distance: x(o[3]), point: v(o, 4), normal: v(o, 7) };
}

/* ---- bodies: ids (slot + 1, generation); a destroyed body's id stays invalid ---- */
class Body {
	constructor(world, index1, generation) {
		this.world = world;
		this.index1 = index1;
		this.generation = generation;
	}
	get slot() { return this.index1 - 1; }
	get valid() { return !this.world.freed && M._fxjs_body_is_valid(this.world.ptr, this.index1, this.generation) !== 0; }
	_p() {
		const p = this.world.ptr;
		if (!M._fxjs_body_is_valid(p, this.index1, this.generation)) throw new Error(`fixstep: body ${this.slot} (generation ${this.generation}) is not valid`);
		return p;
	}
	get type() { return BODY_TYPES[M._fxjs_body_get_type(this._p(), this.index1, this.generation)]; }
	get shape() {
		M._fxjs_body_get_shape(this._p(), this.index1, this.generation, OUT);
		return shapeOut(out(7), 0);
	}
	get userData() { return M._fxjs_body_get_user_data(this._p(), this.index1, this.generation) >>> 0; }
	/* position x y z, rotation x y z w, linear and angular velocity: Q16.16 */
	stateRaw() {
		M._fxjs_body_get_state(this._p(), this.index1, this.generation, OUT);
		return out(13).slice();
	}
	get position() { return vecOut(this.stateRaw(), 0); }
	get rotation() { return quatOut(this.stateRaw(), 3); }
	get linearVelocity() { return vecOut(this.stateRaw(), 7); }
	get angularVelocity() { return vecOut(this.stateRaw(), 10); }
	positionRaw() { return this.stateRaw().subarray(0, 3); }
	rotationRaw() { return this.stateRaw().subarray(3, 7); }
	linearVelocityRaw() { return this.stateRaw().subarray(7, 10); }
	angularVelocityRaw() { return this.stateRaw().subarray(10, 13); }
	/* mass (kg), inverse mass and the inertia diagonal, as numbers from Q32.32 */
	get mass() {
		const r = this.massRaw(), w = (b) => Number(b) / 4294967296;
		return { mass: w(r.mass), invMass: w(r.invMass), inertia: r.inertia.map(w) };
	}
	/* the same, exactly: Q32.32 as BigInt */
	massRaw() {
		M._fxjs_body_get_mass(this._p(), this.index1, this.generation, OUT);
		const o = out(10), w = (k) => i64(o[k], o[k + 1]);
		return { mass: w(0), invMass: w(2), inertia: [w(4), w(6), w(8)] };
	}
	hash() {
		M._fxjs_body_hash(this._p(), this.index1, this.generation, OUT);
		const o = out(2);
		return hex64(o[0], o[1]);
	}
	/* the movers: a FixstepError for a stale body (code 9), a zero rotation, a
	 * velocity for a static body, a force, torque or impulse for a body that
	 * is not dynamic (code 1); nothing changes then */
	_set(op, a, what) {
		check(M._fxjs_body_set(this._p(), this.index1, this.generation, op, args(a)), what);
		return this;
	}
	setTransform(position, rotation = [0, 0, 0, 1]) { return this._set(0, [...vec(position, 'position'), ...quat(rotation, 'rotation')], 'setTransform'); }
	setLinearVelocity(v) { return this._set(1, vec(v, 'velocity'), 'setLinearVelocity'); }
	setAngularVelocity(w) { return this._set(2, vec(w, 'angular velocity'), 'setAngularVelocity'); }
	/* at a world point, or at the centre of mass when point is omitted */
	applyForce(f, point) { return point === undefined ? this._set(4, vec(f, 'force'), 'applyForce') : this._set(3, [...vec(f, 'force'), ...vec(point, 'point')], 'applyForce'); }
	applyTorque(t) { return this._set(5, vec(t, 'torque'), 'applyTorque'); }
	applyImpulse(j, point) { return this._set(6, [...vec(j, 'impulse'), ...vec(point === undefined ? Array.from(this.positionRaw(), (x) => ({ raw: x })) : point, 'point')], 'applyImpulse'); }
	applyAngularImpulse(j) { return this._set(7, vec(j, 'angular impulse'), 'applyAngularImpulse'); }

	/* ---- game state at run time (fixstep.h: each change is hashed and in
	 * snapshots; a value out of the range createBody accepts is a
	 * FixstepError and changes nothing) ---- */
	_game() {
		M._fxjs_body_get_game(this._p(), this.index1, this.generation, OUT);
		return out(14).slice();
	}
	_change(op, a, what) {
		check(M._fxjs_body_change(this._p(), this.index1, this.generation, op, args(a)), what);
		return this;
	}
	get awake() { return this._game()[0] !== 0; }
	get enabled() { return this._game()[1] !== 0; }
	get isSensor() { return this._game()[2] !== 0; }
	get friction() { return this._game()[3] / FX_ONE; }
	get restitution() { return this._game()[4] / FX_ONE; }
	get rollingResistance() { return this._game()[13] / FX_ONE; }
	get density() { return this._game()[5] / FX_ONE; }
	get gravityScale() { return this._game()[6] / FX_ONE; }
	get motionLocks() { return locksOut(this._game()[7]); }
	/* {categoryBits, maskBits} as BigInt, groupIndex */
	get filter() { return filterOut(this._game(), 8); }
	/* asleep puts its island to sleep (velocities zeroed); a static body is neither */
	setAwake(on) { return this._change(0, [bool(on)], 'setAwake'); }
	/* disabled: out of the simulation, keeping its slot, id, pose and velocity */
	setEnabled(on) { return this._change(1, [bool(on)], 'setEnabled'); }
	setType(type) { return this._change(2, [enumIndex(BODY_TYPES, type, 'type')], 'setType'); }
	setFriction(v) { return this._change(3, [toFixed(v, 'friction')], 'setFriction'); }
	setRestitution(v) { return this._change(4, [toFixed(v, 'restitution')], 'setRestitution'); }
	/* 0..1: a sphere, capsule or cylinder resists rolling (docs/simulation.md) */
	setRollingResistance(v) { return this._change(15, [toFixed(v, 'rollingResistance')], 'setRollingResistance'); }
	/* recomputes mass and inertia from the shape */
	setDensity(v) { return this._change(5, [toFixed(v, 'density')], 'setDensity'); }
	/* {mass (kg), inertia: [x, y, z] (kg m^2, principal moments about the
	 * centre of mass in the body's frame)}: numbers or {raw: bigint} Q32.32 */
	setMassData(m) {
		keysOf(m, ['mass', 'inertia'], 'setMassData');
		if (!m || m.mass === undefined || !m.inertia || m.inertia.length !== 3) throw new TypeError('fixstep: setMassData needs {mass, inertia: [x, y, z]}');
		return this._change(6, [...ints64(toQ32(m.mass, 'mass')), ...[0, 1, 2].flatMap((k) => ints64(toQ32(m.inertia[k], `inertia[${k}]`)))], 'setMassData');
	}
	setGravityScale(v) { return this._change(7, [toFixed(v, 'gravityScale')], 'setGravityScale'); }
	setDamping(linear, angular) { return this._change(8, [toFixed(linear, 'linear damping'), toFixed(angular, 'angular damping')], 'setDamping'); }
	/* {linearX, ..., angularZ}: the axes left out are unlocked */
	setMotionLocks(locks) { return this._change(9, [lockBits(locks, 'motionLocks')], 'setMotionLocks'); }
	/* {categoryBits, maskBits, groupIndex}: fields left out take the defaults */
	setFilter(f) { return this._change(10, filterInts(f, 'filter'), 'setFilter'); }
	setUserData(u) { return this._change(11, [u32(u, 'userData')], 'setUserData'); }
	enableContactEvents(on = true) { return this._change(12, [bool(on)], 'enableContactEvents'); }
	enableHitEvents(on = true) { return this._change(13, [bool(on)], 'enableHitEvents'); }
	enableSensorEvents(on = true) { return this._change(14, [bool(on)], 'enableSensorEvents'); }

	/* The velocity of the body's material point at world point p. */
	pointVelocity(p) { return vecOut(this.pointVelocityRaw(p), 0); }
	pointVelocityRaw(p) {
		M._fxjs_body_point_velocity(this._p(), this.index1, this.generation, args(vec(p, 'point')), OUT);
		return out(3).slice();
	}
	/* Its bounds now (tight): {lo, hi}. */
	get aabb() { const a = this.aabbRaw(); return { lo: vecOut(a, 0), hi: vecOut(a, 3) }; }
	aabbRaw() {
		M._fxjs_body_aabb(this._p(), this.index1, this.generation, OUT);
		return out(6).slice();
	}
	/* Its contacts as the last step found them: [{bodyA, bodyB, childA,
	 * childB, normal, points: [{point, separation, normalImpulse (N s)}]}];
	 * options.raw: Q16.16 integers. */
	contacts(options = {}) {
		keysOf(options, ['raw'], 'contacts');
		const p = this._p();
		const n = M._fxjs_body_contacts(p, this.index1, this.generation, 0, 0), buf = heapInts(30 * n);
		if (M._fxjs_body_contacts(p, this.index1, this.generation, buf, n) < 0) throw new FixstepError('fixstep: contacts: out of memory', 3);
		const a = h32().subarray(buf >> 2, (buf >> 2) + 30 * n), v = options.raw ? vecRaw : vecOut, x = options.raw ? (r) => r : fromFixed, r = [];
		for (let k = 0; k < n; ++k) {
			const o = 30 * k, points = [];
			for (let q = 0; q < a[o + 9]; ++q) points.push({ point: v(a, o + 10 + 3 * q), separation: x(a[o + 22 + q]), normalImpulse: x(a[o + 26 + q]) });
			r.push({ bodyA: new Body(this.world, a[o], a[o + 1]), bodyB: new Body(this.world, a[o + 2], a[o + 3]), childA: a[o + 4] >>> 0,
				childB: a[o + 5] >>> 0, normal: v(a, o + 6), points });
		}
		return r;
	}
	/* What overlaps this sensor (as of the last step), in slot order ([] for a body that is not one). */
	sensorOverlaps() {
		const p = this._p();
		return this.world._ids((q, cap) => M._fxjs_sensor_overlaps(p, this.index1, this.generation, q, cap));
	}
	destroy() { return M._fxjs_body_destroy(this.world.ptr, this.index1, this.generation) !== 0; }
	equals(o) { return o instanceof Body && o.world === this.world && o.index1 === this.index1 && o.generation === this.generation; }
}

class Joint {
	constructor(world, index1, generation) {
		this.world = world;
		this.index1 = index1;
		this.generation = generation;
	}
	get valid() { return !this.world.freed && M._fxjs_joint_is_valid(this.world.ptr, this.index1, this.generation) !== 0; }
	_state() {
		const p = this.world.ptr;
		if (!M._fxjs_joint_is_valid(p, this.index1, this.generation)) throw new Error('fixstep: this joint is not valid');
		M._fxjs_joint_get_state(p, this.index1, this.generation, OUT);
		return out(13).slice();
	}
	get type() { return JOINT_TYPES[this._state()[0]]; }
	get bodyA() { const s = this._state(); return new Body(this.world, s[1], s[2]); }
	get bodyB() { const s = this._state(); return new Body(this.world, s[3], s[4]); }
	/* the anchors in world space */
	get anchorA() { return vecOut(this._state(), 5); }
	get anchorB() { return vecOut(this._state(), 8); }
	/* hinge angle (rad), prismatic translation (m), distance length (m), spherical twist (rad) */
	get position() { return this._state()[11] / FX_ONE; }
	/* spherical: the angle between the twist axes (rad); 0 for the other types */
	get swingAngle() { return this._state()[12] / FX_ONE; }
	setMotor(enable, speed = 0, maxForce = 0) {
		this._state();
		M._fxjs_joint_set_motor(this.world.ptr, this.index1, this.generation, bool(enable), toFixed(speed, 'speed'), toFixed(maxForce, 'maxForce'));
		return this;
	}
	/* wheel: the steering angle (rad, within +-pi/2) */
	setSteering(angle) {
		this._state();
		check(M._fxjs_joint_set_steering(this.world.ptr, this.index1, this.generation, toFixed(angle, 'angle')), 'setSteering');
		return this;
	}
	destroy() { return M._fxjs_joint_destroy(this.world.ptr, this.index1, this.generation) !== 0; }
}

class Character {
	constructor(world, id) {
		this.world = world;
		this.id = id;
	}
	_state() {
		M._fxjs_character_get_state(this.world.ptr, this.id, OUT);
		return out(8).slice();
	}
	/* the move for the next step: a horizontal velocity (m/s) and a jump */
	setMove(velocity, jump = false) {
		M._fxjs_character_set_move(this.world.ptr, this.id, args(vec(velocity, 'velocity')), bool(jump));
		return this;
	}
	get body() { const s = this._state(); return s[0] ? new Body(this.world, s[0], s[1]) : null; }
	get position() { return vecOut(this._state(), 2); }
	positionRaw() { return this._state().subarray(2, 5); }
	get grounded() { return this._state()[5] !== 0; }
	get ground() { const s = this._state(); return s[6] ? new Body(this.world, s[6], s[7]) : null; }
	destroy() { return M._fxjs_character_destroy(this.world.ptr, this.id) !== 0; }
}

/* ---- built-in scenes ---- */
let sceneList = null;
function scenes() {
	need();
	if (!sceneList) {
		sceneList = [];
		const n = M._fxjs_scene_count();
		for (let i = 0; i < n; ++i)
			sceneList.push(Object.freeze({ name: cstr(M._fxjs_scene_name(i)), description: cstr(M._fxjs_scene_description(i)),
				defaultSteps: M._fxjs_scene_default_steps(i), players: M._fxjs_scene_players(i), scripted: M._fxjs_scene_scripted(i) !== 0 }));
		Object.freeze(sceneList);
	}
	return sceneList;
}
function sceneIndex(name) {
	const i = scenes().findIndex((s) => s.name === name);
	if (i < 0) throw new RangeError(`fixstep: unknown scene '${name}' (scenes(): ${scenes().map((s) => s.name).join(', ')})`);
	return i;
}
/* A world built by a built-in scene, the same as `fixstep run SCENE` starts from. */
function createScene(name) {
	const p = M._fxjs_scene_create(sceneIndex(name));
	if (!p) throw new FixstepError(`fixstep: scene '${name}' could not be created`, 3);
	return new World(p, WORLD_TOKEN);
}

/* ---- replays (replays/FORMAT.md) ---- */
const REPLAY_FLAG_DETAIL = 1;
class Replay {
	constructor(ptr, token) {
		if (token !== WORLD_TOKEN) throw new TypeError('fixstep: use Replay.parse()');
		own(this, 'replay', ptr);
		M._fxjs_replay_info(ptr, OUT);
		const o = out(18);
		this.status = o[0];
		this.statusText = cstr(M._fxjs_replay_status_string(o[0]));
		this.headerOk = o[1] !== 0;
		this.formatVersion = o[2];
		this.kernelVersion = `${o[3] >> 16}.${(o[3] >> 8) & 255}.${o[3] & 255}`;
		this.flags = o[4];
		this.detail = (o[4] & REPLAY_FLAG_DETAIL) !== 0;
		this.players = o[5];
		this.chunkTicks = o[6];
		this.chunkCount = o[7];
		this.startTick = num64(o[8], o[9]);
		this.tickCount = num64(o[10], o[11]);
		this.complete = o[12] !== 0;
		this.finalHash = this.complete ? hex64(o[13], o[14]) : null;
		this.scene = cstr(M._fxjs_replay_scene(ptr));
		this.error = o[0] === 0 ? null : cstr(M._fxjs_replay_error(ptr));
		/* bytes per player per tick: 12 for Input records, else the game's own (0 in calls mode) */
		this.inputSize = o[16];
		this.mode = o[17] === 1 ? 'calls' : 'inputs';
	}

	/* Reads a replay file's bytes (untrusted: every field is checked). A
	 * file that is not a replay throws; a truncated or partly corrupt one
	 * keeps its verified chunks (status and error say what is wrong). */
	static parse(bytes) {
		need();
		const [p, n] = toHeap(bytes);
		try {
			const r = M._fxjs_replay_parse(p, n);
			if (!r) throw new FixstepError('fixstep: out of memory', 3);
			const rep = new Replay(r, WORLD_TOKEN);
			if (!rep.headerOk) {
				const e = new FixstepError(`fixstep: not a valid replay: ${rep.error}`, rep.status);
				rep.free();
				throw e;
			}
			return rep;
		} finally {
			M._free(p);
		}
	}

	/* Records a built-in scene as `fixstep record` does: {bytes, finalHash}.
	 * options: scene, steps (default: the scene's), players, seed (random
	 * inputs; default 1), scripted, detail (per-tick state, default true),
	 * chunkTicks, perturbTick/perturbPlayer (change one input), tamper (the
	 * change is written but not simulated: a replay that fails verify). */
	static record(options) {
		need();
		keysOf(options, ['scene', 'steps', 'players', 'seed', 'scripted', 'detail', 'chunkTicks', 'perturbTick', 'perturbPlayer', 'tamper'], 'Replay.record');
		const i = sceneIndex(options.scene);
		const [slo, shi] = split64(options.seed === undefined ? 1 : options.seed, 'seed');
		const [plo, phi] = split64(options.perturbTick || 0, 'perturbTick');
		const a = [u32(options.steps === undefined ? scenes()[i].defaultSteps : options.steps, 'steps'), u32(options.players || 0, 'players'),
			u32(options.chunkTicks || 0, 'chunkTicks'), options.detail === false ? 0 : REPLAY_FLAG_DETAIL, slo, shi, plo, phi,
			u32(options.perturbPlayer || 0, 'perturbPlayer'), bool(options.tamper), bool(options.scripted)];
		const p = M._fxjs_record(i, args(a), OUT, OUT + 8);
		if (!p) throw new FixstepError(`fixstep: record: ${cstr(M._fxjs_last_error())}`, 6);
		const o = out(3);
		try {
			return { bytes: fromHeap(p, o[2]), finalHash: hex64(o[0], o[1]) };
		} finally {
			M._free(p);
		}
	}

	get ptr() { return live(this, 'replay'); }
	free() { release(this); }
	dispose() { release(this); }

	_tick(i) {
		if (!Number.isInteger(i) || i < 0 || i >= this.tickCount) throw new RangeError(`fixstep: tick index ${i} is outside [0, ${this.tickCount})`);
		M._fxjs_replay_tick(this.ptr, i, OUT);
		return out(4).slice();
	}
	/* Tick index i (0-based): its recorded hash, its step number (the
	 * world's step count after it), its inputs. */
	tickHash(i) { const o = this._tick(i); return hex64(o[0], o[1]); }
	tickNumber(i) { const o = this._tick(i); return num64(o[2], o[3]); }
	/* The tick's Input records (a replay whose inputSize is 12; other
	 * sizes: tickInputBytes). */
	tickInputs(i) {
		this._tick(i);
		if (this.inputSize !== INPUT_SIZE) throw new TypeError(`fixstep: this replay's inputs are ${this.inputSize} bytes a player, not Input records: use tickInputBytes`);
		const p = ARGS + 256;
		M._fxjs_replay_tick_inputs(this.ptr, i, p);
		return decodeInputs(hu8().slice(p, p + INPUT_SIZE * this.players), this.players);
	}
	/* Tick index i's input bytes as recorded: players x inputSize (empty in calls mode). */
	tickInputBytes(i) {
		this._tick(i);
		const n = M._fxjs_replay_tick_bytes(this.ptr, i, 0, 0);
		const p = M._malloc(Math.max(1, n));
		if (!p) throw new FixstepError('fixstep: out of memory', 3);
		try {
			M._fxjs_replay_tick_bytes(this.ptr, i, p, n);
			return fromHeap(p, n);
		} finally {
			M._free(p);
		}
	}
	/* The world at the replay's start (its initial snapshot). */
	start() {
		const w = M._fxjs_replay_start(this.ptr, 0);
		if (!w) throw new FixstepError(`fixstep: ${cstr(M._fxjs_last_error())}`, 7);
		return new World(w, WORLD_TOKEN);
	}
	/* Applies tick i's inputs with the scene's input handler and steps. */
	step(world, i) {
		this._tick(i);
		const r = M._fxjs_replay_step(this.ptr, world.ptr, i);
		if (r !== 0) throw new FixstepError(`fixstep: replay step: ${r === 1 ? `this build has no input handler for scene '${this.scene}'` : resultString(r)}`, r);
		return world;
	}
	/* The recorded state after tick i (detail replays), as a new world. */
	recordedWorld(i) {
		this._tick(i);
		const w = M._fxjs_replay_recorded_world(this.ptr, i);
		if (!w) throw new FixstepError(`fixstep: ${cstr(M._fxjs_last_error())}`, 7);
		return new World(w, WORLD_TOKEN);
	}

	/* Re-simulates the replay and checks every tick's hash, as `fixstep
	 * verify` does, from a start the verifier knows (the file's own start is
	 * the player's word): {status: 'ok' | 'diverged' | 'invalid' | 'nomem' |
	 * 'badStart', ticks, step, expected, got, body, field, message}. With
	 * options.applyInputs(world, inputs, tick) a JavaScript input handler
	 * drives the world (a replay of a world built in JavaScript; Input
	 * records), or options.applyInputBytes(world, bytes, tick) with the
	 * game's own input bytes of any size (players x inputSize, as
	 * tickInputBytes gives them), from the start the game's server knows:
	 * options.startHash (its state hash) or options.startSnapshot (exactly
	 * that state, as C's fxs_replay_expect.snapshot); else the built-in
	 * scene's handler does, from the scene's own start (or one of those).
	 * options.kernels: 'portable' or the widest (default). options.mode:
	 * 'inputs' (the default) or 'calls': the kind of replay this verifier
	 * accepts; another kind is 'refused' before anything runs. */
	verify(options = {}) {
		keysOf(options, ['kernels', 'allowTruncated', 'applyInputs', 'applyInputBytes', 'startHash', 'startSnapshot', 'mode'], 'verify');
		const mode = options.mode === undefined ? 'inputs' : options.mode;
		if (mode !== 'inputs' && mode !== 'calls') throw new TypeError(`fixstep: verify: mode must be 'inputs' or 'calls', not ${String(mode)}`);
		/* the kind first: an API-call replay re-runs recorded calls (a
		 * snapshot restore among them can set any state), so it verifies
		 * only for a verifier that asks for it */
		if (mode !== this.mode)
			return { status: 'refused', ticks: 0, message: `not accepted: a replay of ${this.mode === 'calls' ? 'API calls' : 'inputs'}, and this verifier accepts ${mode === 'calls' ? 'API calls' : 'inputs'} only${this.mode === 'calls' ? " (verify({mode: 'calls'}) accepts them)" : ''}` };
		const start = options.startHash === undefined ? null : startHashWords(options.startHash);
		const snap = options.startSnapshot === undefined ? null : options.startSnapshot;
		if (snap !== null && !(snap instanceof Uint8Array)) throw new TypeError('fixstep: verify: startSnapshot must be a Uint8Array (world.snapshot())');
		if (options.applyInputs && options.applyInputBytes) throw new TypeError('fixstep: verify: applyInputs (Input records) or applyInputBytes (bytes), not both');
		if (options.applyInputs || options.applyInputBytes) {
			if (!start && !snap) throw new TypeError(`fixstep: verify: ${options.applyInputs ? 'applyInputs' : 'applyInputBytes'} needs startHash or startSnapshot, the start your game knows (a replay's own start proves nothing)`);
			return this._verifyJs(options, start ? hex64(start[0], start[1]) : null, snap);
		}
		const cap = 1024, msg = M._malloc(cap);
		const [sp, sn] = snap ? toHeap(snap) : [0, 0];
		try {
			const k = options.kernels === undefined ? -1 : enumIndex(KERNELS, options.kernels, 'kernels');
			const st = M._fxjs_replay_verify(this.ptr, k, bool(options.allowTruncated), mode === 'calls' ? 1 : 0, start ? 1 : 0, args(start || [0, 0]), sp, sn, OUT, msg, cap);
			const o = out(9).slice();
			const r = { status: ['ok', 'diverged', 'invalid', 'nomem', 'badStart', 'refused'][st], ticks: num64(o[0], o[1]), message: cstr(msg) };
			if (st === 0) r.hash = hex64(o[6], o[7]);
			if (st === 1) Object.assign(r, { step: num64(o[2], o[3]), expected: hex64(o[4], o[5]), got: hex64(o[6], o[7]), body: o[8] }, parseDiff(r.message));
			return r;
		} finally {
			M._free(msg);
			if (sp) M._free(sp);
		}
	}
	_verifyJs(options, startHash, startSnapshot) {
		const w = this.start();
		try {
			if (startHash !== null && w.hash() !== startHash)
				return { status: 'badStart', ticks: 0, message: `not the expected start: the replay starts from state hash ${w.hash()}, expected ${startHash}` };
			if (startSnapshot) {
				let known;
				try {
					known = World.restore(startSnapshot);
				} catch (e) {
					return { status: 'badStart', ticks: 0, message: `not the expected start: the start snapshot does not restore: ${e.message}` };
				}
				try {
					const d = known.firstDifference(w);
					if (d || known.hash() !== w.hash())
						return { status: 'badStart', ticks: 0, message: `not the expected start: ${d ? d.text : `state hash ${w.hash()}, expected ${known.hash()}`}` };
				} finally {
					known.free();
				}
			}
			if (options.kernels !== undefined) w.kernels = options.kernels;
			for (let i = 0; i < this.tickCount; ++i) {
				const tick = this.tickNumber(i);
				if (options.applyInputBytes) options.applyInputBytes(w, this.tickInputBytes(i), tick);
				else options.applyInputs(w, this.tickInputs(i), tick);
				w.step();
				const want = this.tickHash(i), got = w.hash();
				if (want === got) continue;
				const r = { status: 'diverged', ticks: i, step: tick, expected: want, got, body: -1 };
				if (!this.detail) {
					r.message = `diverged at step ${tick}: state hash (expected ${want}, got ${got}); the replay has no per-tick state (recorded with --no-detail) to name the body`;
					return r;
				}
				const rec = this.recordedWorld(i);
				try {
					const d = w.firstDifference(rec);
					r.message = d ? `diverged at step ${tick}: ${d.text}` : `diverged at step ${tick}: recorded state hash ${want} but the recorded state hashes to ${got} here, as does this run: the hash field was changed`;
					if (d) Object.assign(r, { body: d.body, field: d.field, expectedValue: d.expected, gotValue: d.got });
				} finally {
					rec.free();
				}
				return r;
			}
			if (this.status !== 0 && !(options.allowTruncated && this.status === 1)) return { status: 'invalid', ticks: this.tickCount, message: this.error };
			const h = w.hash();
			return { status: 'ok', ticks: this.tickCount, hash: h, message: `hash ${h}` };
		} finally {
			w.free();
		}
	}
}
if (typeof Symbol.dispose === 'symbol') Replay.prototype[Symbol.dispose] = Replay.prototype.dispose;

/* A start hash (16 hex digits) as [lo, hi]. */
function startHashWords(h) {
	if (typeof h !== 'string' || !/^[0-9a-fA-F]{16}$/.test(h)) throw new TypeError(`fixstep: verify: startHash must be 16 hex digits (as world.hash() gives), not ${String(h)}`);
	return ints64(BigInt('0x' + h));
}

/* "diverged at step S: body B field F (expected E, got G)" -> its parts */
function parseDiff(message) {
	const m = /: (?:body (\d+) )?field (\S+) \(expected (.*), got (.*)\)$/.exec(message) || /: (\S+) \(expected (.*), got (.*)\)$/.exec(message);
	if (!m) return {};
	return m.length === 5 ? { field: m[2], expectedValue: m[3], gotValue: m[4] } : { field: m[1], expectedValue: m[2], gotValue: m[3] };
}

/* Records a world driven from JavaScript: after each step, tick(inputs)
 * with the inputs applied before it; finish() returns the file's bytes.
 * options: scene (the name written into the file; a built-in scene's name
 * lets `fixstep verify` re-simulate it), players (1..16 Input records, or
 * 1..64 with inputSize), inputSize (bytes per player per tick, 1..256: the
 * game's own input bytes, given to tick() as a Uint8Array of players x
 * inputSize; default 12, Input records), detail (default true), chunkTicks. */
class Recorder {
	constructor(world, options = {}) {
		need();
		keysOf(options, ['scene', 'players', 'inputSize', 'detail', 'chunkTicks'], 'Recorder');
		this.world = world;
		this.players = options.players === undefined ? 1 : options.players;
		this.inputSize = options.inputSize === undefined ? INPUT_SIZE : options.inputSize;
		if (!Number.isInteger(this.inputSize) || this.inputSize < 1 || this.inputSize > 256)
			throw new RangeError(`fixstep: Recorder: inputSize must be 1..256 bytes, not ${options.inputSize}`);
		if (!Number.isInteger(this.players) || this.players < 1 || this.players > 64)
			throw new RangeError(`fixstep: Recorder: players must be 1..64, not ${options.players}`);
		const name = String(options.scene || 'js');
		const enc = new TextEncoder().encode(name);
		if (enc.length > 63) throw new RangeError('fixstep: Recorder: the scene name is longer than 63 bytes');
		const np = M._malloc(enc.length + 1);
		hu8().set(enc, np);
		hu8()[np + enc.length] = 0;
		try {
			const p = M._fxjs_writer_open(world.ptr, np, this.players, this.inputSize, options.chunkTicks || 0, options.detail === false ? 0 : REPLAY_FLAG_DETAIL);
			if (!p) throw new FixstepError(`fixstep: Recorder: ${cstr(M._fxjs_last_error())}`, 6);
			own(this, 'writer', p);
		} finally {
			M._free(np);
		}
	}
	/* inputs: the game's bytes (a Uint8Array of players x inputSize), or
	 * Input records when inputSize is 12 */
	tick(inputs = []) {
		const rec = live(this, 'recorder');
		if (inputs instanceof Uint8Array) {
			const want = this.players * this.inputSize;
			if (inputs.length !== want) throw new RangeError(`fixstep: Recorder: a tick's inputs are ${want} bytes (players x inputSize), not ${inputs.length}`);
			const [p] = toHeap(inputs);
			try {
				if (!M._fxjs_writer_tick(rec, p, this.world.ptr)) throw new FixstepError(`fixstep: Recorder: ${cstr(M._fxjs_last_error())}`, 6);
			} finally {
				M._free(p);
			}
			return this;
		}
		if (this.inputSize !== INPUT_SIZE) throw new TypeError(`fixstep: Recorder: with inputSize ${this.inputSize}, tick() takes a Uint8Array of the game's input bytes`);
		if (!M._fxjs_writer_tick(rec, inputsArg(inputs, this.players), this.world.ptr))
			throw new FixstepError(`fixstep: Recorder: ${cstr(M._fxjs_last_error())}`, 6);
		return this;
	}
	finish() {
		const p = live(this, 'recorder');
		if (registry) registry.unregister(this);
		this._ptr = 0;
		const b = M._fxjs_writer_close(p, OUT);
		if (!b) throw new FixstepError(`fixstep: Recorder: ${cstr(M._fxjs_last_error())}`, 6);
		try {
			return fromHeap(b, out(1)[0]);
		} finally {
			M._free(b);
		}
	}
	free() { release(this); }
	dispose() { release(this); }
}

/* ---- sessions: lockstep and rollback over the network (fixstep/session.h,
 * docs/sessions.md) ----
 * A Session is the C session library compiled into this wasm, over one
 * World: the game gives it applyInputs (its input handler, run before each
 * step, rollbacks included), input (its local players' input bytes) and a
 * transport ({send(to, bytes), receive()} of datagrams: the ready
 * RelayTransport, or its own). Packets are MAC'd with libsodium's
 * algorithms (compiled into this wasm) under a key derived from the
 * session key, as in C: a relay in between can drop or delay them, never
 * forge them. */
const SESSION_CFG_INTS = 14, SESSION_INFO_INTS = 24, SESSION_EVENT_INTS = 8, SESSION_KEY_BYTES = 32;
const SESSION_MODES = ['lockstep', 'rollback'];
const SESSION_STAT_NAMES = ['ticks', 'rollbacks', 'deepestRollback', 'resimulated', 'mispredictions', 'packetsSent', 'bytesSent',
	'packetsReceived', 'packetsAccepted', 'droppedTotal', 'stalls', 'eventsLost', 'aheadDropped'];
const SESSION_KEYS = ['world', 'peers', 'local', 'players', 'inputSize', 'sessionId', 'mode', 'ticks', 'inputDelay', 'maxRollback',
	'key', 'pairKeys', 'seqWindow', 'absentMs', 'join', 'interruptMs', 'input', 'applyInputs', 'transport', 'onEvent'];
/* handle -> WeakRef of its Session, for the calls from C (weak: a Session
 * dropped without free() is collected, and the registry frees its C side) */
const sessions = new Map();
let nextSessionHandle = 1;
function sessionOf(h) {
	const r = sessions.get(h), s = r && r.deref();
	if (!s) throw new Error(`fixstep: session ${h} is gone`);
	return s;
}
/* The calls from C (bindings/js/src/fxjs_session.c, EM_JS): a JavaScript
 * exception must not unwind through the wasm, so it is kept (the session
 * rethrows it from the call that ran the game) and the C side told. */
function installSessionCalls(m) {
	m.fxjsSessionApply = (h, w, lo, hi, p, players) => {
		const s = sessionOf(h);
		try {
			const bytes = hu8().slice(p, p + players * s.inputSize);
			s._applyInputs(s.world, bytes, num64(lo, hi));
			return 0;
		} catch (e) {
			if (!s._error) s._error = e;
			return 1; /* FXS_ERR_INVALID_ARGUMENT: the session stops simulating */
		}
	};
	m.fxjsSessionInput = (h, lo, hi, player, p, size) => {
		const s = sessionOf(h);
		try {
			const v = s._input(num64(lo, hi), player);
			if (v === undefined || v === null) return;
			const u8 = v instanceof Uint8Array ? v : ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : Uint8Array.from(v);
			if (u8.length > size) throw new RangeError(`fixstep: Session: input(${num64(lo, hi)}, ${player}) gave ${u8.length} bytes, more than inputSize (${size})`);
			hu8().set(u8, p);
		} catch (e) {
			if (!s._error) s._error = e;
		}
	};
	m.fxjsSessionSend = (h, to, p, n) => {
		const s = sessionOf(h);
		try {
			s.transport.send(to, hu8().slice(p, p + n));
			return 0;
		} catch (e) {
			if (!s._error) s._error = e;
			return -1;
		}
	};
	m.fxjsSessionRecv = (h, p, cap, fromPtr) => {
		const s = sessionOf(h);
		try {
			const d = s.transport.receive();
			if (!d) return 0;
			const u8 = d.bytes instanceof Uint8Array ? d.bytes : new Uint8Array(d.bytes);
			const n = Math.min(u8.length, cap); /* longer: cut, and dropped as oversized */
			hu8().set(n < u8.length ? u8.subarray(0, n) : u8, p);
			h32()[fromPtr >> 2] = Number.isInteger(d.from) ? d.from : -1;
			return n;
		} catch (e) {
			if (!s._error) s._error = e;
			return 0;
		}
	};
}
function keyBytes(k, what) {
	const u8 = k instanceof Uint8Array ? k : ArrayBuffer.isView(k) ? new Uint8Array(k.buffer, k.byteOffset, k.byteLength) : null;
	if (!u8 || u8.length !== SESSION_KEY_BYTES) throw new TypeError(`fixstep: Session: ${what} must be a Uint8Array of ${SESSION_KEY_BYTES} bytes`);
	return u8;
}
function ms64(v, what) {
	if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new RangeError(`fixstep: Session: ${what} must be a finite number of ms >= 0, not ${v}`);
	return split64(Math.floor(v), what);
}

class Session {
	/* options: world (a World: the state; the session saves, loads and
	 * steps it), peers, local (this peer's id), players (per peer, 0: a
	 * spectator; default one each), inputSize (bytes per player per tick,
	 * default 12), sessionId, mode ('lockstep' | 'rollback'), ticks (the
	 * session ends after this tick), inputDelay, maxRollback, key (32
	 * bytes, the same on every peer) or pairKeys (one key per peer: the one
	 * this peer shares with peer q at [q]), seqWindow, absentMs, join,
	 * interruptMs (docs/sessions.md); input(tick, player) -> the local
	 * player's input bytes (Uint8Array, at most inputSize; missing: zeros);
	 * applyInputs(world, inputs, tick): every player's inputs of the tick
	 * (a Uint8Array of players x inputSize bytes) applied to the world
	 * before its step (deterministic: it runs again on rollbacks);
	 * transport: {send(to, bytes), receive() -> {from, bytes} | null};
	 * onEvent(event): called for each event pump() drains (without it,
	 * events() drains them). Every value is checked by the C library:
	 * a FixstepError names the field. */
	constructor(options) {
		need();
		keysOf(options, SESSION_KEYS, 'Session');
		const o = options || {};
		if (!(o.world instanceof World)) throw new TypeError('fixstep: Session: world must be a World');
		if (!o.transport || typeof o.transport.send !== 'function' || typeof o.transport.receive !== 'function')
			throw new TypeError('fixstep: Session: transport must have send(to, bytes) and receive()');
		for (const k of ['input', 'applyInputs', 'onEvent'])
			if (o[k] !== undefined && typeof o[k] !== 'function') throw new TypeError(`fixstep: Session: ${k} must be a function`);
		if ((o.key === undefined) === (o.pairKeys === undefined)) throw new TypeError('fixstep: Session: give key (32 bytes) or pairKeys (one key per peer), one of them');
		const peers = u32(o.peers === undefined ? 2 : o.peers, 'Session: peers');
		const mode = enumIndex(SESSION_MODES, o.mode === undefined ? 'lockstep' : o.mode, 'Session: mode');
		const cfg = [peers, u32(o.local === undefined ? 0 : o.local, 'Session: local'), u32(o.inputSize || 0, 'Session: inputSize'),
			u32(o.sessionId || 0, 'Session: sessionId'), mode, u32(o.ticks === undefined ? 0 : o.ticks, 'Session: ticks'),
			u32(o.inputDelay || 0, 'Session: inputDelay'), u32(o.maxRollback || 0, 'Session: maxRollback'),
			u32(o.seqWindow || 0, 'Session: seqWindow'), u32(o.absentMs || 0, 'Session: absentMs'), bool(o.join),
			u32(o.interruptMs || 0, 'Session: interruptMs'), bool(o.input), bool(o.applyInputs)];
		if (o.players !== undefined && (!Array.isArray(o.players) || o.players.length !== peers || !o.players.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)))
			throw new TypeError(`fixstep: Session: players must be an array of ${peers} counts (0..255; 0: a spectator)`);
		let keyLen = SESSION_KEY_BYTES, keys;
		if (o.pairKeys !== undefined) {
			if (!Array.isArray(o.pairKeys) || o.pairKeys.length !== peers) throw new TypeError(`fixstep: Session: pairKeys must be an array of ${peers} keys`);
			keyLen = peers * SESSION_KEY_BYTES;
			keys = new Uint8Array(keyLen);
			o.pairKeys.forEach((k, q) => keys.set(keyBytes(k, `pairKeys[${q}]`), q * SESSION_KEY_BYTES));
		} else keys = keyBytes(o.key, 'key');
		this.world = o.world;
		this.transport = o.transport;
		this._applyInputs = o.applyInputs || (() => {});
		this._input = o.input || (() => null);
		this._onEvent = o.onEvent || null;
		this._error = null;
		this._handle = nextSessionHandle++;
		const cp = intsToHeap(cfg), pp = M._malloc(Math.max(1, peers)), kp = M._malloc(keyLen);
		try {
			if (!pp || !kp) throw new FixstepError('fixstep: out of memory', 3);
			if (o.players !== undefined) hu8().set(o.players, pp);
			hu8().set(keys, kp);
			sessions.set(this._handle, typeof WeakRef === 'function' ? new WeakRef(this) : { deref: () => this });
			const p = M._fxjs_session_create(this._handle, this.world.ptr, cp, o.players !== undefined ? pp : 0, kp, bool(o.pairKeys !== undefined));
			if (!p) {
				sessions.delete(this._handle);
				throw new FixstepError(`fixstep: Session: ${cstr(M._fxjs_session_error())}`, 1);
			}
			this._ptr = p;
		} finally {
			if (kp) { hu8().fill(0, kp, kp + keyLen); M._free(kp); }
			if (o.pairKeys !== undefined) keys.fill(0);
			M._free(cp);
			if (pp) M._free(pp);
		}
		if (registry) registry.register(this, { kind: 'session', ptr: this._ptr, handle: this._handle }, this);
		const info = this._info();
		this.peers = peers;
		this.local = cfg[1];
		this.players = info[10]; /* players in the session */
		this.inputSize = info[11];
	}

	get ptr() { return live(this, 'session'); }
	free() {
		if (!this._ptr) return;
		if (registry) registry.unregister(this);
		M._fxjs_session_destroy(this._ptr);
		sessions.delete(this._handle);
		this._ptr = 0;
	}
	dispose() { this.free(); }
	get freed() { return !this._ptr; }

	/* A call that ran the game's or the transport's code: rethrows what it threw. */
	_ran(r) {
		if (this._error) {
			const e = this._error;
			this._error = null;
			throw e;
		}
		return r;
	}
	_drain() {
		if (!this._onEvent) return;
		for (let e = this.pollEvent(); e; e = this.pollEvent()) this._onEvent(e);
	}

	/* One pass of the game's loop (fxs_session_pump) on its clock (ms,
	 * monotonic, any origin: performance.now() or Date.now()): received
	 * datagrams in, the ticks due simulated (one every tickMs), packets
	 * out; then onEvent for each event. Returns the ticks simulated. */
	pump(nowMs, tickMs = 16) {
		const [lo, hi] = ms64(nowMs, 'nowMs');
		const n = M._fxjs_session_pump(this.ptr, lo, hi, u32(tickMs, 'tickMs'));
		this._ran(n);
		this._drain();
		return n;
	}
	/* For a game with its own loop: the caller's clock, a received
	 * datagram (-> null, or why it was dropped: 'bad_mac', ...), at most
	 * maxTicks new ticks, and the packets for every peer. */
	setTime(nowMs) { const [lo, hi] = ms64(nowMs, 'nowMs'); M._fxjs_session_set_time(this.ptr, lo, hi); }
	receive(bytes, from = -1) {
		const [p, n] = toHeap(bytes);
		try {
			const r = M._fxjs_session_receive(this.ptr, p, n, Number.isInteger(from) ? from : -1);
			return r === 0 ? null : cstr(M._fxjs_session_drop_name(r));
		} finally {
			M._free(p);
		}
	}
	advance(maxTicks = 1) { return this._ran(M._fxjs_session_advance(this.ptr, u32(maxTicks, 'maxTicks'))); }
	sendPackets() {
		let n = 0;
		for (let q = 0; q < this.peers; ++q) n += M._fxjs_session_send_packets(this.ptr, q);
		return this._ran(n);
	}

	/* The next connection event, or null: {type, peer, tick, progress,
	 * total, stateTick, line} (type in C's words: 'synchronizing',
	 * 'synchronized', 'interrupted', 'resumed', 'absent', 'disconnected',
	 * 'joined', 'rejoined', 'desync', 'join_refused', 'desync_named'). */
	pollEvent() {
		if (!M._fxjs_session_event_poll(this.ptr, OUT)) return null;
		const o = out(SESSION_EVENT_INTS);
		return { type: cstr(M._fxjs_session_event_name(o[0])), peer: o[1], tick: num64(o[2], o[3]), progress: o[4], total: o[5],
			stateTick: num64(o[6], o[7]), line: cstr(M._fxjs_session_event_line(this.ptr)) };
	}
	/* Every event waiting, oldest first. */
	events() {
		const r = [];
		for (let e = this.pollEvent(); e; e = this.pollEvent()) r.push(e);
		return r;
	}

	_info() { M._fxjs_session_info(this.ptr, OUT); return Array.from(out(SESSION_INFO_INTS)); }
	get tick() { const o = this._info(); return num64(o[0], o[1]); }
	get confirmed() { const o = this._info(); return num64(o[2], o[3]); }
	/* every tick confirmed and compared with every player peer */
	get complete() { return this._info()[4] !== 0; }
	/* complete, and every other peer said so: nothing more to send */
	get allDone() { return this._info()[5] !== 0; }
	/* a callback failed (applyInputs threw, the world's step ran out of memory): no further tick */
	get failed() { return this._info()[6] !== 0; }
	/* time sync: ticks this peer runs ahead of the others (negative: behind) */
	get framesAhead() { return this._info()[7]; }
	get ticksWaited() { const o = this._info(); return num64(o[8], o[9]); }
	/* For a game with its own loop: ticks to simulate nothing now (0 mostly). */
	skipTicks() { return M._fxjs_session_skip_ticks(this.ptr); }
	rttMs(peer) { return M._fxjs_session_rtt_ms(this.ptr, u32(peer, 'peer')); }
	peerDone(peer) { return M._fxjs_session_peer_done(this.ptr, u32(peer, 'peer')) !== 0; }
	peerSilenceMs(peer, nowMs) { const [lo, hi] = ms64(nowMs, 'nowMs'); return M._fxjs_session_peer_silence(this.ptr, u32(peer, 'peer'), lo, hi); }
	firstPlayer(peer) { return M._fxjs_session_first_player(this.ptr, u32(peer, 'peer')); }
	peerPlayers(peer) { return M._fxjs_session_peer_players(this.ptr, u32(peer, 'peer')); }
	/* The join as this peer sees it (docs/sessions.md, "Late join and reconnect"). */
	get joinStatus() {
		const o = this._info();
		return { joining: o[12] !== 0, loaded: o[13] !== 0, dropped: o[14] !== 0, stateTick: num64(o[15], o[16]),
			returnTick: num64(o[17], o[18]), absences: o[19], refusals: o[20], vouchers: o[21], refused: cstr(M._fxjs_session_join_refused(this.ptr)) };
	}
	get stats() {
		const nr = M._fxjs_session_stats(this.ptr, OUT), o = out(32 + 2 * nr), r = {};
		SESSION_STAT_NAMES.forEach((k, i) => { r[k] = num64(o[2 * i], o[2 * i + 1]); });
		r.dropped = {};
		for (let d = 1; d < nr; ++d) r.dropped[cstr(M._fxjs_session_drop_name(d))] = num64(o[32 + 2 * d], o[33 + 2 * d]);
		return r;
	}
	/* The checksum after tick t (final when t <= confirmed; 0: the start)
	 * as 16 hex digits (world.hash()'s), or null when t is not simulated. */
	hash(t = this.confirmed) {
		const [lo, hi] = split64(t, 't');
		return M._fxjs_session_hash(this.ptr, lo, hi, OUT) ? hex64(out(2)[0], out(2)[1]) : null;
	}
	/* Confirmed inputs of tick t (1..confirmed): players x inputSize bytes, or null. */
	inputs(t) {
		const [lo, hi] = split64(t, 't'), n = this.players * this.inputSize, p = M._malloc(Math.max(1, n));
		try {
			return M._fxjs_session_inputs(this.ptr, lo, hi, p, n) ? fromHeap(p, n) : null;
		} finally {
			M._free(p);
		}
	}
	/* The first mismatching confirmed tick: {tick, peer, localHash,
	 * remoteHash, haveState}, or null. */
	get desync() {
		if (!M._fxjs_session_desync(this.ptr, OUT)) return null;
		const o = out(8);
		return { tick: num64(o[0], o[1]), peer: o[2], localHash: hex64(o[3], o[4]), remoteHash: hex64(o[5], o[6]), haveState: o[7] !== 0 };
	}
	/* "desync at tick T: body B field F (peer P: X, peer Q: Y)", the same
	 * line on both peers, named over the protocol; "" until named. */
	get desyncLine() { return cstr(M._fxjs_session_desync_line(this.ptr)); }
}

if (typeof Symbol.dispose === 'symbol') Session.prototype[Symbol.dispose] = Session.prototype.dispose;

/* ---- the ready transport: a WebSocket to a relay ----
 * The relay (the package's relay.mjs: `npx fixstep-relay`, or startRelay()
 * in node) forwards each binary message [to, packet...] of a room to peer
 * `to` of that room as [from, packet...], and nothing else: it holds no key,
 * and what it could change the MACs reject. connectRelay(url, {room, peer,
 * WebSocket}) opens one (WebSocket: the browser's by default; in node pass
 * the `ws` package's) and resolves once it is open. */
const RELAY_MAX_PEERS = 64;
class RelayTransport {
	constructor(socket, peer) {
		this.socket = socket;
		this.peer = peer;
		this._queue = [];
		this.received = 0;
		this.sent = 0;
		this.dropped = 0; /* malformed messages from the relay, and sends while not open */
		this.closed = false;
		socket.binaryType = 'arraybuffer';
		socket.onmessage = (ev) => {
			const d = ev.data;
			const u8 = d instanceof ArrayBuffer ? new Uint8Array(d) : ArrayBuffer.isView(d) ? new Uint8Array(d.buffer, d.byteOffset, d.byteLength) : null;
			if (!u8 || u8.length < 2 || u8[0] >= RELAY_MAX_PEERS) { ++this.dropped; return; }
			if (this._queue.length >= 4096) { ++this.dropped; return; } /* a game that stopped pumping */
			this._queue.push({ from: u8[0], bytes: u8.slice(1) });
			++this.received;
		};
		socket.onclose = () => { this.closed = true; };
	}
	send(to, bytes) {
		if (this.socket.readyState !== 1) { ++this.dropped; return; }
		const m = new Uint8Array(bytes.length + 1);
		m[0] = to;
		m.set(bytes, 1);
		this.socket.send(m);
		++this.sent;
	}
	receive() { return this._queue.length ? this._queue.shift() : null; }
	close() { this.socket.close(); }
}
function connectRelay(url, options = {}) {
	keysOf(options, ['room', 'peer', 'WebSocket'], 'connectRelay');
	const WS = options.WebSocket || globalThis.WebSocket;
	if (typeof WS !== 'function') return Promise.reject(new TypeError('fixstep: connectRelay: no WebSocket here: pass options.WebSocket (in node: the `ws` package\'s)'));
	const peer = u32(options.peer === undefined ? 0 : options.peer, 'connectRelay: peer');
	if (peer >= RELAY_MAX_PEERS) return Promise.reject(new RangeError(`fixstep: connectRelay: peer must be below ${RELAY_MAX_PEERS}`));
	const room = String(options.room === undefined ? 'fixstep' : options.room);
	const u = `${url}${url.includes('?') ? '&' : '?'}room=${encodeURIComponent(room)}&peer=${peer}`;
	return new Promise((resolve, reject) => {
		const s = new WS(u);
		s.binaryType = 'arraybuffer';
		s.onopen = () => { s.onerror = null; resolve(new RelayTransport(s, peer)); };
		s.onerror = (e) => reject(new Error(`fixstep: connectRelay: cannot connect to ${url}${e && e.message ? `: ${e.message}` : ''}`));
	});
}

/* The seeded random input (12 bytes, an Input record) of `player` for
 * `tick`, as `fixstep peer`, `fixstep netdemo` and `fixstep synctest SCENE
 * --seed S` play the built-in scenes. */
function randomInputBytes(seed, tick, player) {
	need();
	const [slo, shi] = split64(seed, 'seed'), [tlo, thi] = split64(tick, 'tick'), p = ARGS + 256;
	hu8().fill(0, p, p + INPUT_SIZE);
	M._fxjs_random_input(slo, shi, tlo, thi, u32(player, 'player'), p);
	return hu8().slice(p, p + INPUT_SIZE);
}
/* Input records <-> their bytes (fixstep/input.h, 12 bytes each, little-endian). */
function inputsToBytes(inputs) {
	const n = inputs.length, u8 = new Uint8Array(n * INPUT_SIZE);
	encodeInputs(inputs, n, u8, 0);
	return u8;
}
function inputsFromBytes(bytes) {
	if (!(bytes instanceof Uint8Array) || bytes.length % INPUT_SIZE !== 0) throw new TypeError(`fixstep: inputsFromBytes needs a Uint8Array of a multiple of ${INPUT_SIZE} bytes`);
	return decodeInputs(bytes, bytes.length / INPUT_SIZE);
}
/* libsodium in this wasm, for checking it against a native build:
 * crypto_auth (HMAC-SHA-512-256, the sessions' packet MAC) and
 * crypto_kdf_derive_from_key (BLAKE2b, their per-direction keys). */
const sodium = {
	auth(message, key) {
		need();
		const [mp, mn] = toHeap(message), [kp] = toHeap(keyBytes(key, 'key')), op = M._malloc(32);
		try {
			if (M._fxjs_crypto_auth(op, mp, mn, kp) !== 0) throw new FixstepError('fixstep: libsodium cannot start', 1);
			return fromHeap(op, 32);
		} finally { M._free(mp); M._free(kp); M._free(op); }
	},
	kdf(length, id, context, key) {
		need();
		if (!/^[\x20-\x7e]{8}$/.test(context)) throw new TypeError('fixstep: sodium.kdf: context must be 8 ASCII characters');
		const [kp] = toHeap(keyBytes(key, 'key')), [cp] = toHeap(new TextEncoder().encode(context + '\0')), op = M._malloc(Math.max(1, length));
		const [ilo, ihi] = split64(id, 'id');
		try {
			if (M._fxjs_crypto_kdf(op, u32(length, 'length'), ilo, ihi, cp, kp) !== 0) throw new RangeError(`fixstep: sodium.kdf: length ${length} is outside 16..64`);
			return fromHeap(op, length);
		} finally { M._free(kp); M._free(cp); M._free(op); }
	},
};

/* ---- module ---- */
/* Loads the wasm (inlined in this file; no network, no file access).
 * Resolves to this module's API; every other call needs it done. */
function init() {
	if (!initPromise) {
		/* libsodium's random source (sodium_init asks for it; the sessions
		 * themselves draw no random bytes): the Web Crypto API, in browsers
		 * and node alike */
		const getRandomValue = () => globalThis.crypto.getRandomValues(new Uint32Array(1))[0] >>> 0;
		initPromise = createFixstepWasm({ getRandomValue, print: () => {}, printErr: (s) => { if (typeof console !== 'undefined') console.warn(s); } }).then((m) => {
			M = m;
			installSessionCalls(M);
			ARGS = M._malloc(4 * SCRATCH_INTS);
			OUT = M._malloc(4 * SCRATCH_INTS);
			M._fxjs_debug_colors(OUT);
			COLOR_NAMES.forEach((k, i) => { DEBUG_COLORS[k] = out(10)[i]; });
			Object.freeze(DEBUG_COLORS);
			return API;
		});
	}
	return initPromise;
}

/* The colours of the kernel's debug draw (0xRRGGBB), filled by init():
 * what a body is (static, kinematic, dynamic and awake, sleeping, sensor,
 * disabled) and what else is drawn (joint, contact, normal, aabb). */
const COLOR_NAMES = ['static', 'kinematic', 'dynamic', 'sleeping', 'sensor', 'disabled', 'joint', 'contact', 'normal', 'aabb'];
const DEBUG_COLORS = {};

/* XXH3-64 of bytes (the hash fixstep's state hash uses) as 16 hex digits. */
function hashBytes(bytes) {
	need();
	const [p, n] = toHeap(bytes);
	try {
		M._fxjs_xxh3(p, n, OUT);
		const o = out(2);
		return hex64(o[0], o[1]);
	} finally {
		M._free(p);
	}
}

function version() { const v = need()._fxjs_version(); return `${v >> 16}.${(v >> 8) & 255}.${v & 255}`; }
/* the kernels this build has, widest last */
function buildKernels() { return FIXSTEP_BUILD_KERNELS.slice(); }

const API = { init, version, buildKernels, World, Body, Joint, Character, Replay, Recorder, Session, RelayTransport, connectRelay, randomInputBytes, inputsToBytes, inputsFromBytes, sodium, FixstepError, scenes, createScene, toFixed, fromFixed, fixed, hashBytes, BUTTONS, INPUT_SIZE, DEBUG_COLORS, DRAW_LAYOUT };
