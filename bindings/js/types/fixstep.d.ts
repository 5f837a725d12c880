// Types of the fixstep package (written by hand beside src/api.js).
//
// Numbers in SI units (metres, m/s, kg/m^3, seconds) are converted to Q16.16
// at the boundary: round(x * 65536), ties away from zero, a RangeError
// outside [-32768, 32768). `{ raw }` passes a Q16.16 integer exactly, and
// every getter has a raw (Int32Array) form.

// `Symbol.dispose` (for `using`) belongs to TypeScript's esnext.disposable lib
// (and es2025+), which targets es2020 and es2022 do not load by default: it is
// declared here the same way, so that these types compile with the default lib
// and merge with the lib's declaration where a project loads it. At run time
// the classes have [Symbol.dispose] where the engine defines the symbol
// (node 20+, current browsers); `dispose()` works everywhere.
declare global {
	interface SymbolConstructor {
		readonly dispose: unique symbol;
	}
}

/** A number in SI units, or an exact Q16.16 value. */
export type Num = number | { raw: number };
export type Vec3In = [Num, Num, Num] | { x: Num; y: Num; z: Num } | ArrayLike<number>;
export type QuatIn = [Num, Num, Num, Num] | { x: Num; y: Num; z: Num; w: Num } | ArrayLike<number>;
export interface Vec3 { x: number; y: number; z: number }
export interface Quat { x: number; y: number; z: number; w: number }

export type BodyType = 'static' | 'kinematic' | 'dynamic';
export type Kernels = 'portable' | 'avx2' | 'avx512' | 'simd128' | 'neon' | 'sse4';

export type Shape =
	| { type: 'sphere'; radius: Num; halfHeight?: Num; halfExtents?: Vec3In }
	| { type: 'box'; halfExtents: Vec3In; radius?: Num; halfHeight?: Num }
	| { type: 'capsule'; radius: Num; halfHeight: Num; halfExtents?: Vec3In }
	| { type: 'cylinder'; radius: Num; halfHeight: Num; halfExtents?: Vec3In }
	| { type: 'mesh' | 'hull' | 'compound'; id: number };
/** A shape as read back (numbers in metres). */
export interface ShapeOut { type: 'sphere' | 'box' | 'capsule' | 'mesh' | 'hull' | 'compound' | 'cylinder'; radius?: number; halfHeight?: number; halfExtents?: Vec3; id?: number }

export interface WorldDef {
	gravity?: Vec3In; dt?: Num; substeps?: number; relaxIterations?: number; contactHertz?: Num; contactDamping?: Num;
	contactPushMax?: Num; linearSlop?: Num; speculativeDistance?: Num; restitutionThreshold?: Num; enableSleep?: boolean;
	linearSleepTolerance?: Num; angularSleepTolerance?: Num; timeToSleep?: Num; maxBodies?: number; directJointRows?: number;
	directContactRows?: number;
	/** m/s: contacts approaching faster make hit events (default 1) */
	hitEventThreshold?: Num;
}
export interface WorldDefOut {
	gravity: Vec3; dt: number; substeps: number; relaxIterations: number; contactHertz: number; contactDamping: number;
	contactPushMax: number; linearSlop: number; speculativeDistance: number; restitutionThreshold: number; enableSleep: boolean;
	linearSleepTolerance: number; angularSleepTolerance: number; timeToSleep: number; maxBodies: number; directJointRows: number;
	directContactRows: number; hitEventThreshold: number;
}

/**
 * 64 bits of a filter: a safe integer or a BigInt. Negative values are two's
 * complement, so `~CATEGORY` means every bit but that one, as in C.
 */
export type Bits = number | bigint;
/** Collision filter (Box2D's rules); fields left out take the defaults: category 1, every mask bit, group 0. */
export interface Filter { categoryBits?: Bits; maskBits?: Bits; groupIndex?: number }
/** A filter as read back: the bits as BigInt. */
export interface FilterOut { categoryBits: bigint; maskBits: bigint; groupIndex: number }
/** What a query sees: bodies whose category is in maskBits and whose mask has categoryBits (defaults: 1, every bit). */
export interface QueryFilter { categoryBits?: Bits; maskBits?: Bits }
/** Motion locks (world axes); axes left out are free. */
export interface MotionLocks { linearX?: boolean; linearY?: boolean; linearZ?: boolean; angularX?: boolean; angularY?: boolean; angularZ?: boolean }

export interface BodyDef {
	type?: BodyType; position?: Vec3In; rotation?: QuatIn; linearVelocity?: Vec3In; angularVelocity?: Vec3In; shape: Shape;
	density?: Num; friction?: Num; restitution?: Num; rollingResistance?: Num; linearDamping?: Num; angularDamping?: Num; gravityScale?: Num; userData?: number;
	filter?: Filter; motionLocks?: MotionLocks;
	/** detects overlaps (sensor events), never touches; default false */
	isSensor?: boolean;
	/** sensors see this body; default true */
	enableSensorEvents?: boolean;
	/** contact begin and end events for its contacts; default false */
	enableContactEvents?: boolean;
	/** hit events for its contacts; default false */
	enableHitEvents?: boolean;
	/** false: created out of the simulation; default true */
	isEnabled?: boolean;
	/** false: created asleep; default true */
	isAwake?: boolean;
}

export interface JointDef {
	type?: 'ball' | 'hinge' | 'fixed' | 'distance' | 'prismatic' | 'spherical' | 'filter' | 'wheel' | 'motor'; bodyA: Body; bodyB: Body; localAnchorA?: Vec3In; localAnchorB?: Vec3In;
	localAxisA?: Vec3In; collideConnected?: boolean; hertz?: Num; dampingRatio?: Num; enableLimit?: boolean; lower?: Num; upper?: Num;
	enableMotor?: boolean; motorSpeed?: Num; maxMotorForce?: Num; length?: Num; enableSpring?: boolean; springHertz?: Num;
	springDampingRatio?: Num; enableCone?: boolean; coneAngle?: Num; localSpinAxisA?: Vec3In; steeringAngle?: Num;
	linearOffset?: Vec3In; angularOffset?: QuatIn; maxMotorTorque?: Num; correctionFactor?: Num;
}

export interface CharacterDef { position?: Vec3In; radius?: Num; halfHeight?: Num; stepHeight?: Num; maxSlopeCos?: Num; jumpSpeed?: Num; density?: Num }

export interface StepStats {
	step: number; overflows: number; overflowsTotal: number; bodyCount: number; pairCount: number; contactCount: number;
	contactPointCount: number; awakeBodyCount: number;
}
export interface CastHit { body: Body | null; fraction: number; distance: number; point: Vec3; normal: Vec3 }
/** A box in world coordinates (closed intervals). */
export interface Aabb { lo: Vec3; hi: Vec3 }
export interface AabbIn { lo: Vec3In; hi: Vec3In }

/**
 * Events of the last step (copies: valid after later steps). Numbers in metres
 * and m/s, or Q16.16 integers with `{ raw: true }`. Canonical order: contact
 * events by (bodyA slot, bodyB slot, childA, childB), sensor events by
 * (sensor slot, visitor slot). The ids of end events may be stale.
 */
export interface ContactPair { bodyA: Body; bodyB: Body; childA: number; childB: number }
export interface ContactBeginEvent extends ContactPair { normal: Vec3; point: Vec3; separation: number; pointCount: number }
export type ContactEndEvent = ContactPair;
export interface ContactHitEvent extends ContactPair { point: Vec3; normal: Vec3; approachSpeed: number }
export interface ContactEvents { begin: ContactBeginEvent[]; end: ContactEndEvent[]; hit: ContactHitEvent[] }
export interface SensorEvent { sensor: Body; visitor: Body }
export interface SensorEvents { begin: SensorEvent[]; end: SensorEvent[] }
/** One of a body's contacts as the last step found it (normal from bodyA to bodyB). */
export interface ContactData extends ContactPair { normal: Vec3; points: { point: Vec3; separation: number; normalImpulse: number }[] }
export interface StateDifference { body: number; field: string; expected: string; got: string; text: string }

/** One player's input for one tick (fixstep/input.h): integers. */
export interface Input { moveX?: number; moveZ?: number; yaw?: number; pitch?: number; buttons?: number }

export class FixstepError extends Error {
	/** the kernel's fxs_result (1 invalid argument, 3 out of memory, 6 truncated, 7 corrupt, 8 limit, 9 invalid id, ...) or a replay status */
	code: number;
	/** World.create: the first definition field out of range */
	field?: string;
}

export class World {
	/** the most steps one step(n) call makes (65536) */
	static readonly MAX_STEPS: number;
	private constructor();
	/**
	 * A definition out of range throws a FixstepError whose `field` names the
	 * first bad field ('substeps', 'gravity.y', ...).
	 */
	static create(def?: WorldDef): World;
	static defaults(): WorldDefOut;
	/** A new world from snapshot bytes (untrusted input: checked field by field). */
	static restore(bytes: Uint8Array): World;
	/** Frees the wasm memory now (a FinalizationRegistry frees it later otherwise). */
	free(): void;
	dispose(): void;
	[Symbol.dispose](): void;
	readonly freed: boolean;
	readonly def: WorldDefOut;
	/** n: an integer in [0, World.MAX_STEPS]; a RangeError otherwise */
	step(n?: number): this;
	/** XXH3-64 of the canonical state, 16 lowercase hex digits, as `fixstep run` prints it. */
	hash(): string;
	hashBigInt(): bigint;
	readonly stepCount: number;
	stats(): StepStats;
	kernels: Kernels;
	readonly bodyCount: number;
	readonly slotCount: number;
	bodyAt(slot: number): Body | null;
	bodies(): IterableIterator<Body>;
	createBody(def: BodyDef): Body;
	createMesh(mesh: { vertices: ArrayLike<Num> | Vec3In[]; triangles: ArrayLike<number> | number[][]; thickness?: Num }): Shape;
	createHeightfield(h: { heights: ArrayLike<Num>; nx: number; nz: number; cell: Num; thickness?: Num }): Shape;
	createHull(points: ArrayLike<Num> | Vec3In[]): { shape: Shape; centerOfMass: Vec3 };
	hullVertices(shape: Shape): Vec3[];
	createCompound(children: { shape: Shape; position?: Vec3In; rotation?: QuatIn }[]): { shape: Shape; centerOfMass: Vec3 };
	snapshotSize(): number;
	snapshot(): Uint8Array;
	restore(bytes: Uint8Array): this;
	clone(): World;
	createJoint(def: JointDef): Joint;
	readonly jointCount: number;
	createCharacter(def?: CharacterDef): Character;
	readonly characterCount: number;
	rayCast(from: Vec3In, to: Vec3In, options?: { skip?: Body; filter?: QueryFilter; raw?: boolean }): CastHit | null;
	shapeCast(shape: Shape, from: Vec3In, to: Vec3In, options?: { rotation?: QuatIn; skip?: Body; filter?: QueryFilter; raw?: boolean }): CastHit | null;
	/** Bodies whose bounds overlap the box, in ascending slot order (never sensors or disabled bodies). */
	overlapAabb(box: AabbIn, options?: { filter?: QueryFilter }): Body[];
	/** Bodies whose shape overlaps `shape` at position (and rotation), touching included, in ascending slot order. */
	overlapShape(shape: Shape, position: Vec3In, options?: { rotation?: QuatIn; filter?: QueryFilter }): Body[];
	/** The last step's contact begin, end and hit events. */
	contactEvents(options?: { raw?: boolean }): ContactEvents;
	/** The last step's sensor begin and end events. */
	sensorEvents(): SensorEvents;
	readonly gravity: Vec3;
	/** World settings after creation: state (hashed, in snapshots), from the next step; out of range: a FixstepError. */
	setGravity(g: Vec3In): this;
	/** Fields left out keep their values. */
	setContactTuning(t: { hertz?: Num; dampingRatio?: Num; pushMax?: Num }): this;
	setRestitutionThreshold(speed: Num): this;
	setHitEventThreshold(speed: Num): this;
	enableSleeping(on?: boolean): this;
	/** A built-in scene's scripted players' inputs for step `tick` (default: the next), or null. */
	scriptedInputs(scene: string, tick?: number | bigint): Required<Input>[] | null;
	/** n steps of a built-in scene with its scripted players (neutral inputs without a script), as `fixstep events` plays it. */
	playScene(scene: string, n?: number): this;
	/** The first difference from `expected` in canonical order, or null when the states are equal. */
	firstDifference(expected: World): StateDifference | null;
	/** 9 ints a slot: type + 1 (0 empty), position xyz, rotation xyzw (Q16.16), awake. */
	poses(): Int32Array;
	/** 6 ints a slot: lo xyz, hi xyz (Q16.16; zeros for an empty slot). */
	aabbs(): Int32Array;
	/** The kernel's debug draw as Int32Arrays of Q16.16 records (DRAW_LAYOUT); copies. */
	draw(options?: DrawOptions): DrawLists;
	applySceneInputs(scene: string, inputs: Input[], tick?: number | bigint): this;
}

export class Body {
	private constructor();
	readonly world: World;
	readonly index1: number;
	readonly generation: number;
	readonly slot: number;
	readonly valid: boolean;
	readonly type: BodyType;
	readonly shape: ShapeOut;
	readonly userData: number;
	readonly position: Vec3;
	readonly rotation: Quat;
	readonly linearVelocity: Vec3;
	readonly angularVelocity: Vec3;
	readonly mass: { mass: number; invMass: number; inertia: [number, number, number] };
	/** The same exactly: Q32.32 as BigInt. */
	massRaw(): { mass: bigint; invMass: bigint; inertia: [bigint, bigint, bigint] };
	readonly awake: boolean;
	readonly enabled: boolean;
	readonly isSensor: boolean;
	readonly friction: number;
	readonly restitution: number;
	readonly rollingResistance: number;
	readonly density: number;
	readonly gravityScale: number;
	readonly motionLocks: Required<MotionLocks>;
	readonly filter: FilterOut;
	/** Its bounds now (tight). */
	readonly aabb: Aabb;
	/** lo xyz, hi xyz: Q16.16 */
	aabbRaw(): Int32Array;
	/** position xyz, rotation xyzw, linear velocity xyz, angular velocity xyz: Q16.16 */
	stateRaw(): Int32Array;
	positionRaw(): Int32Array;
	rotationRaw(): Int32Array;
	linearVelocityRaw(): Int32Array;
	angularVelocityRaw(): Int32Array;
	hash(): string;
	/** The movers: a FixstepError (code 1) for a zero rotation, a velocity for a static body, or a force, torque or impulse for a body that is not dynamic; nothing changed. */
	setTransform(position: Vec3In, rotation?: QuatIn): this;
	setLinearVelocity(v: Vec3In): this;
	setAngularVelocity(w: Vec3In): this;
	applyForce(force: Vec3In, point?: Vec3In): this;
	applyTorque(torque: Vec3In): this;
	applyImpulse(impulse: Vec3In, point?: Vec3In): this;
	applyAngularImpulse(impulse: Vec3In): this;
	/** Run-time changes (state: hashed, in snapshots); out of range: a FixstepError, nothing changed. */
	setAwake(on: boolean): this;
	setEnabled(on: boolean): this;
	setType(type: BodyType): this;
	setFriction(v: Num): this;
	setRestitution(v: Num): this;
	setRollingResistance(v: Num): this;
	/** recomputes mass and inertia from the shape */
	setDensity(v: Num): this;
	/** kg and kg m^2 (principal moments about the centre of mass): numbers, or { raw } Q32.32 */
	setMassData(m: { mass: number | { raw: bigint }; inertia: [number | { raw: bigint }, number | { raw: bigint }, number | { raw: bigint }] }): this;
	setGravityScale(v: Num): this;
	setDamping(linear: Num, angular: Num): this;
	setMotionLocks(locks: MotionLocks): this;
	/** fields left out take the defaults */
	setFilter(filter: Filter): this;
	setUserData(u: number): this;
	enableContactEvents(on?: boolean): this;
	enableHitEvents(on?: boolean): this;
	enableSensorEvents(on?: boolean): this;
	/** The velocity of the body's point at world point p: v + w x (p - c). */
	pointVelocity(p: Vec3In): Vec3;
	pointVelocityRaw(p: Vec3In): Int32Array;
	/** Its contacts as the last step found them. */
	contacts(options?: { raw?: boolean }): ContactData[];
	/** What overlaps this sensor (as of the last step), in slot order. */
	sensorOverlaps(): Body[];
	destroy(): boolean;
	equals(other: Body): boolean;
}

export class Joint {
	private constructor();
	readonly world: World;
	readonly valid: boolean;
	readonly type: 'ball' | 'hinge' | 'fixed' | 'distance' | 'prismatic' | 'spherical' | 'filter' | 'wheel' | 'motor';
	readonly bodyA: Body;
	readonly bodyB: Body;
	readonly anchorA: Vec3;
	readonly anchorB: Vec3;
	/** hinge angle (rad), prismatic translation (m), distance length (m), spherical twist (rad) */
	readonly position: number;
	/** spherical: the angle between the twist axes (rad); 0 for the other types */
	readonly swingAngle: number;
	setMotor(enable: boolean, speed?: Num, maxForce?: Num): this;
	/** wheel: the steering angle (rad, within ±π/2) */
	setSteering(angle: Num): this;
	destroy(): boolean;
}

export class Character {
	private constructor();
	readonly world: World;
	readonly id: number;
	setMove(velocity: Vec3In, jump?: boolean): this;
	readonly body: Body | null;
	readonly position: Vec3;
	positionRaw(): Int32Array;
	readonly grounded: boolean;
	readonly ground: Body | null;
	destroy(): boolean;
}

export interface VerifyResult {
	status: 'ok' | 'diverged' | 'invalid' | 'nomem' | 'badStart' | 'refused';
	/** ticks that matched */
	ticks: number;
	/** the line `fixstep verify` prints */
	message: string;
	hash?: string;
	step?: number;
	expected?: string;
	got?: string;
	/** the first differing body's slot, -1 when not a body */
	body?: number;
	field?: string;
	expectedValue?: string;
	gotValue?: string;
}

export class Replay {
	private constructor();
	static parse(bytes: Uint8Array): Replay;
	static record(options: {
		scene: string; steps?: number; players?: number; seed?: number | bigint; scripted?: boolean; detail?: boolean;
		chunkTicks?: number; perturbTick?: number | bigint; perturbPlayer?: number; tamper?: boolean;
	}): { bytes: Uint8Array; finalHash: string };
	readonly status: number;
	readonly statusText: string;
	readonly error: string | null;
	readonly scene: string;
	readonly players: number;
	readonly tickCount: number;
	readonly startTick: number;
	readonly detail: boolean;
	readonly complete: boolean;
	readonly finalHash: string | null;
	readonly kernelVersion: string;
	/** bytes per player per tick: 12 for Input records, else the game's own; 0 in calls mode */
	readonly inputSize: number;
	readonly mode: 'inputs' | 'calls';
	free(): void;
	dispose(): void;
	[Symbol.dispose](): void;
	tickHash(i: number): string;
	tickNumber(i: number): number;
	/** Input records (a replay whose inputSize is 12; else a TypeError: use tickInputBytes) */
	tickInputs(i: number): Required<Input>[];
	/** the tick's input bytes as recorded: players x inputSize */
	tickInputBytes(i: number): Uint8Array;
	start(): World;
	step(world: World, i: number): World;
	recordedWorld(i: number): World;
	/**
	 * From a known start: the scene's own, startHash, or startSnapshot (exactly that state); one of
	 * the last two is required with applyInputs (Input records) or applyInputBytes (the game's own bytes).
	 */
	verify(options?: {
		kernels?: Kernels; allowTruncated?: boolean; startHash?: string; startSnapshot?: Uint8Array;
		/** the kind of replay accepted (default 'inputs'); another kind is 'refused' before anything runs */
		mode?: 'inputs' | 'calls';
		applyInputs?: (world: World, inputs: Required<Input>[], tick: number) => void;
		applyInputBytes?: (world: World, bytes: Uint8Array, tick: number) => void;
	}): VerifyResult;
}

export class Recorder {
	/** inputSize: bytes per player per tick, 1..256 (default 12: Input records); players 1..64 */
	constructor(world: World, options?: { scene?: string; players?: number; inputSize?: number; detail?: boolean; chunkTicks?: number });
	readonly players: number;
	readonly inputSize: number;
	/** Input records (inputSize 12), or the game's bytes: players x inputSize */
	tick(inputs?: Input[] | Uint8Array): this;
	finish(): Uint8Array;
	free(): void;
	dispose(): void;
}

export interface SceneInfo {
	readonly name: string; readonly description: string; readonly defaultSteps: number; readonly players: number;
	/** it has scripted players (World.scriptedInputs, World.playScene) */
	readonly scripted: boolean;
}

export interface DrawOptions {
	/** default true */
	shapes?: boolean; sensors?: boolean; joints?: boolean;
	/** default false */
	contactPoints?: boolean; contactNormals?: boolean; aabbs?: boolean; disabled?: boolean;
	/** only the bodies whose bounds meet this box */
	bounds?: AabbIn;
}
/** World.draw(): records of Q16.16 ints, a body's records led by its slot and colour (DRAW_LAYOUT). */
export interface DrawLists {
	boxes: Int32Array; spheres: Int32Array; capsules: Int32Array; polygons: Int32Array; triangles: Int32Array;
	segments: Int32Array; points: Int32Array; aabbs: Int32Array;
}
/** The kernel's debug-draw colours (0xRRGGBB), set by init(). */
export interface DebugColors {
	readonly static: number; readonly kinematic: number; readonly dynamic: number; readonly sleeping: number; readonly sensor: number;
	readonly disabled: number; readonly joint: number; readonly contact: number; readonly normal: number; readonly aabb: number;
}


// ---- sessions (docs/sessions.md): lockstep and rollback over the network ----

/** A datagram transport: the session calls send for each packet and
 * receive until it gives null. RelayTransport is the ready one. */
export interface SessionTransport {
	send(to: number, bytes: Uint8Array): void;
	receive(): { from: number; bytes: Uint8Array } | null | undefined;
}
export type SessionEventType = 'synchronizing' | 'synchronized' | 'interrupted' | 'resumed' | 'absent' | 'disconnected' |
	'joined' | 'rejoined' | 'desync' | 'join_refused' | 'desync_named';
export interface SessionEvent {
	type: SessionEventType;
	peer: number;
	tick: number;
	/** synchronizing: round trips measured of total */
	progress: number; total: number;
	/** joined: the state's tick */
	stateTick: number;
	/** desync_named, join_refused: the line; else "" */
	line: string;
}
export interface SessionOptions {
	/** the game's state: the session saves, loads (rollbacks, joins) and steps it */
	world: World;
	/** peers, spectators included (1..64; default 2) */
	peers?: number;
	/** this peer's id (default 0) */
	local?: number;
	/** players[k]: players peer k owns (0: a spectator); default one each */
	players?: number[];
	/** bytes per player per tick (1..124; default 12, an Input record) */
	inputSize?: number;
	sessionId?: number;
	mode?: 'lockstep' | 'rollback';
	/** the session ends after this tick */
	ticks: number;
	inputDelay?: number;
	maxRollback?: number;
	/** the session key (32 bytes, the same on every peer), or pairKeys: one per peer */
	key?: Uint8Array;
	pairKeys?: Uint8Array[];
	seqWindow?: number;
	absentMs?: number;
	join?: boolean;
	interruptMs?: number;
	/** a local player's input bytes for a tick (at most inputSize; missing: zeros) */
	input?: (tick: number, player: number) => Uint8Array | ArrayLike<number> | null | undefined;
	/** every player's inputs of the tick (players x inputSize bytes) applied before the step; runs again on rollbacks */
	applyInputs?: (world: World, inputs: Uint8Array, tick: number) => void;
	transport: SessionTransport;
	/** called for each event pump() drains; without it, events() drains them */
	onEvent?: (event: SessionEvent) => void;
}
export interface SessionStats {
	ticks: number; rollbacks: number; deepestRollback: number; resimulated: number; mispredictions: number;
	packetsSent: number; bytesSent: number; packetsReceived: number; packetsAccepted: number; droppedTotal: number;
	stalls: number; eventsLost: number; aheadDropped: number;
	/** drops by reason: bad_mac, spoofed, replayed, ... */
	dropped: Record<string, number>;
}
export interface SessionJoinStatus {
	joining: boolean; loaded: boolean; dropped: boolean; stateTick: number; returnTick: number;
	absences: number; refusals: number; vouchers: number; refused: string;
}
export interface SessionDesync { tick: number; peer: number; localHash: string; remoteHash: string; haveState: boolean }
/** The C session library (fixstep/session.h) in this wasm, over one World. */
export class Session {
	constructor(options: SessionOptions);
	readonly world: World;
	readonly transport: SessionTransport;
	readonly peers: number;
	readonly local: number;
	/** players in the session */
	readonly players: number;
	readonly inputSize: number;
	/** one pass of the game's loop on its clock (ms, any origin): the ticks simulated */
	pump(nowMs: number, tickMs?: number): number;
	setTime(nowMs: number): void;
	/** null, or why the datagram was dropped ('bad_mac', 'spoofed', ...) */
	receive(bytes: Uint8Array, from?: number): string | null;
	advance(maxTicks?: number): number;
	sendPackets(): number;
	pollEvent(): SessionEvent | null;
	events(): SessionEvent[];
	readonly tick: number;
	readonly confirmed: number;
	readonly complete: boolean;
	readonly allDone: boolean;
	readonly failed: boolean;
	readonly framesAhead: number;
	readonly ticksWaited: number;
	skipTicks(): number;
	rttMs(peer: number): number;
	peerDone(peer: number): boolean;
	peerSilenceMs(peer: number, nowMs: number): number;
	firstPlayer(peer: number): number;
	peerPlayers(peer: number): number;
	readonly joinStatus: SessionJoinStatus;
	readonly stats: SessionStats;
	/** the checksum after tick t (default: the confirmed tick), 16 hex digits; null when not simulated */
	hash(t?: number): string | null;
	inputs(t: number): Uint8Array | null;
	readonly desync: SessionDesync | null;
	/** "desync at tick T: body B field F (peer P: X, peer Q: Y)"; "" until named */
	readonly desyncLine: string;
	free(): void;
	dispose(): void;
	readonly freed: boolean;
	[Symbol.dispose](): void;
}
/** A WebSocket to the package's relay (fixstep/relay), as a SessionTransport. */
export class RelayTransport implements SessionTransport {
	readonly peer: number;
	readonly received: number;
	readonly sent: number;
	readonly dropped: number;
	readonly closed: boolean;
	send(to: number, bytes: Uint8Array): void;
	receive(): { from: number; bytes: Uint8Array } | null;
	close(): void;
}
/** Opens a relay connection as peer `peer` of `room`; WebSocket: the browser's by default (node: the `ws` package's). */
export function connectRelay(url: string, options?: { room?: string; peer?: number; WebSocket?: unknown }): Promise<RelayTransport>;
/** The seeded random input (12 bytes) of player for tick, as `fixstep synctest SCENE --seed S` plays a scene. */
export function randomInputBytes(seed: number | bigint, tick: number, player: number): Uint8Array;
export function inputsToBytes(inputs: readonly Input[]): Uint8Array;
export function inputsFromBytes(bytes: Uint8Array): Input[];
/** libsodium compiled into this wasm (the sessions' MAC and key derivation), for checks against native builds. */
export const sodium: {
	auth(message: Uint8Array, key: Uint8Array): Uint8Array;
	kdf(length: number, id: number | bigint, context: string, key: Uint8Array): Uint8Array;
};

export interface Fixstep {
	init(): Promise<Fixstep>;
	version(): string;
	buildKernels(): Kernels[];
	World: typeof World; Body: typeof Body; Joint: typeof Joint; Character: typeof Character; Replay: typeof Replay;
	Recorder: typeof Recorder; FixstepError: typeof FixstepError;
	Session: typeof Session; RelayTransport: typeof RelayTransport; connectRelay: typeof connectRelay;
	randomInputBytes: typeof randomInputBytes; inputsToBytes: typeof inputsToBytes; inputsFromBytes: typeof inputsFromBytes;
	sodium: typeof sodium;
	scenes(): readonly SceneInfo[];
	createScene(name: string): World;
	toFixed(v: Num, what?: string): number;
	fromFixed(raw: number): number;
	fixed(raw: number): { raw: number };
	hashBytes(bytes: Uint8Array): string;
	readonly BUTTONS: { jump: 1; crouch: 2; use: 4; fire: 8 };
	readonly INPUT_SIZE: 12;
	readonly DEBUG_COLORS: DebugColors;
	readonly DRAW_LAYOUT: Readonly<Record<keyof DrawLists, string>>;
}

/** Loads the wasm (inlined: no network, no file access); everything else needs it done. */
export function init(): Promise<Fixstep>;
export function version(): string;
export function buildKernels(): Kernels[];
export function scenes(): readonly SceneInfo[];
/** A world built by a built-in scene, as `fixstep run SCENE` starts it. */
export function createScene(name: string): World;
export function toFixed(v: Num, what?: string): number;
export function fromFixed(raw: number): number;
export function fixed(raw: number): { raw: number };
/** XXH3-64 of bytes (the hash of fixstep's state hash), 16 hex digits. */
export function hashBytes(bytes: Uint8Array): string;
export const DEBUG_COLORS: DebugColors;
export const DRAW_LAYOUT: Readonly<Record<keyof DrawLists, string>>;
export const BUTTONS: { jump: 1; crouch: 2; use: 4; fire: 8 };
export const INPUT_SIZE: 12;
declare const fixstep: Fixstep;
export default fixstep;
