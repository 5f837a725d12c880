// Types of the fixstep package (written by hand beside src/api.js).
//
// Numbers in SI units (metres, m/s, kg/m^3, seconds) are converted to Q16.16
// at the boundary: round(x * 65536), ties away from zero, a RangeError
// outside [-32768, 32768). `{ raw }` passes a Q16.16 integer exactly, and
// every getter has a raw (Int32Array) form.

/** A number in SI units, or an exact Q16.16 value. */
export type Num = number | { raw: number };
export type Vec3In = [Num, Num, Num] | { x: Num; y: Num; z: Num } | ArrayLike<number>;
export type QuatIn = [Num, Num, Num, Num] | { x: Num; y: Num; z: Num; w: Num } | ArrayLike<number>;
export interface Vec3 { x: number; y: number; z: number }
export interface Quat { x: number; y: number; z: number; w: number }

export type BodyType = 'static' | 'kinematic' | 'dynamic';
export type Kernels = 'portable' | 'avx2' | 'avx512' | 'simd128';

export type Shape =
	| { type: 'sphere'; radius: Num; halfHeight?: Num; halfExtents?: Vec3In }
	| { type: 'box'; halfExtents: Vec3In; radius?: Num; halfHeight?: Num }
	| { type: 'capsule'; radius: Num; halfHeight: Num; halfExtents?: Vec3In }
	| { type: 'mesh' | 'hull' | 'compound'; id: number };
/** A shape as read back (numbers in metres). */
export interface ShapeOut { type: 'sphere' | 'box' | 'capsule' | 'mesh' | 'hull' | 'compound'; radius?: number; halfHeight?: number; halfExtents?: Vec3; id?: number }

export interface WorldDef {
	gravity?: Vec3In; dt?: Num; substeps?: number; relaxIterations?: number; contactHertz?: Num; contactDamping?: Num;
	contactPushMax?: Num; linearSlop?: Num; speculativeDistance?: Num; restitutionThreshold?: Num; enableSleep?: boolean;
	linearSleepTolerance?: Num; angularSleepTolerance?: Num; timeToSleep?: Num; maxBodies?: number; directJointRows?: number;
	directContactRows?: number;
}
export interface WorldDefOut {
	gravity: Vec3; dt: number; substeps: number; relaxIterations: number; contactHertz: number; contactDamping: number;
	contactPushMax: number; linearSlop: number; speculativeDistance: number; restitutionThreshold: number; enableSleep: boolean;
	linearSleepTolerance: number; angularSleepTolerance: number; timeToSleep: number; maxBodies: number; directJointRows: number;
	directContactRows: number;
}

export interface BodyDef {
	type?: BodyType; position?: Vec3In; rotation?: QuatIn; linearVelocity?: Vec3In; angularVelocity?: Vec3In; shape: Shape;
	density?: Num; friction?: Num; restitution?: Num; linearDamping?: Num; angularDamping?: Num; gravityScale?: Num; userData?: number;
}

export interface JointDef {
	type?: 'ball' | 'hinge' | 'fixed' | 'distance' | 'prismatic'; bodyA: Body; bodyB: Body; localAnchorA?: Vec3In; localAnchorB?: Vec3In;
	localAxisA?: Vec3In; collideConnected?: boolean; hertz?: Num; dampingRatio?: Num; enableLimit?: boolean; lower?: Num; upper?: Num;
	enableMotor?: boolean; motorSpeed?: Num; maxMotorForce?: Num; length?: Num; enableSpring?: boolean; springHertz?: Num;
	springDampingRatio?: Num;
}

export interface CharacterDef { position?: Vec3In; radius?: Num; halfHeight?: Num; stepHeight?: Num; maxSlopeCos?: Num; jumpSpeed?: Num; density?: Num }

export interface StepStats {
	step: number; overflows: number; overflowsTotal: number; bodyCount: number; pairCount: number; contactCount: number;
	contactPointCount: number; awakeBodyCount: number;
}
export interface CastHit { body: Body | null; fraction: number; distance: number; point: Vec3; normal: Vec3 }
export interface StateDifference { body: number; field: string; expected: string; got: string; text: string }

/** One player's input for one tick (fixstep/input.h): integers. */
export interface Input { moveX?: number; moveZ?: number; yaw?: number; pitch?: number; buttons?: number }

export class FixstepError extends Error {
	/** the kernel's fxs_result (1 invalid argument, 3 out of memory, 6 truncated, 7 corrupt, ...) or a replay status */
	code: number;
}

export class World {
	private constructor();
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
	rayCast(from: Vec3In, to: Vec3In, options?: { skip?: Body }): CastHit | null;
	shapeCast(shape: Shape, from: Vec3In, to: Vec3In, options?: { rotation?: QuatIn; skip?: Body }): CastHit | null;
	/** The first difference from `expected` in canonical order, or null when the states are equal. */
	firstDifference(expected: World): StateDifference | null;
	/** 9 ints a slot: type + 1 (0 empty), position xyz, rotation xyzw (Q16.16), awake. */
	poses(): Int32Array;
	/** 6 ints a slot: lo xyz, hi xyz (Q16.16). */
	aabbs(): Int32Array;
	/** 8 ints a contact point: slot a, slot b, point xyz, normal xyz (Q16.16). */
	contacts(): Int32Array;
	meshGeometry(shape: Shape): { vertices: Float32Array; triangles: Uint32Array } | null;
	compoundChildren(shape: Shape): { shape: ShapeOut; position: Vec3; rotation: Quat }[];
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
	/** position xyz, rotation xyzw, linear velocity xyz, angular velocity xyz: Q16.16 */
	stateRaw(): Int32Array;
	positionRaw(): Int32Array;
	rotationRaw(): Int32Array;
	linearVelocityRaw(): Int32Array;
	angularVelocityRaw(): Int32Array;
	hash(): string;
	setTransform(position: Vec3In, rotation?: QuatIn): this;
	setLinearVelocity(v: Vec3In): this;
	setAngularVelocity(w: Vec3In): this;
	applyForce(force: Vec3In, point?: Vec3In): this;
	applyTorque(torque: Vec3In): this;
	applyImpulse(impulse: Vec3In, point?: Vec3In): this;
	applyAngularImpulse(impulse: Vec3In): this;
	destroy(): boolean;
	equals(other: Body): boolean;
}

export class Joint {
	private constructor();
	readonly world: World;
	readonly valid: boolean;
	readonly type: 'ball' | 'hinge' | 'fixed' | 'distance' | 'prismatic';
	readonly bodyA: Body;
	readonly bodyB: Body;
	readonly anchorA: Vec3;
	readonly anchorB: Vec3;
	/** hinge angle (rad), prismatic translation (m), distance length (m) */
	readonly position: number;
	setMotor(enable: boolean, speed?: Num, maxForce?: Num): this;
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
	status: 'ok' | 'diverged' | 'invalid' | 'nomem';
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
	free(): void;
	dispose(): void;
	[Symbol.dispose](): void;
	tickHash(i: number): string;
	tickNumber(i: number): number;
	tickInputs(i: number): Required<Input>[];
	start(): World;
	step(world: World, i: number): World;
	recordedWorld(i: number): World;
	verify(options?: { kernels?: Kernels; allowTruncated?: boolean; applyInputs?: (world: World, inputs: Required<Input>[], tick: number) => void }): VerifyResult;
}

export class Recorder {
	constructor(world: World, options?: { scene?: string; players?: number; detail?: boolean; chunkTicks?: number });
	tick(inputs?: Input[]): this;
	finish(): Uint8Array;
	free(): void;
	dispose(): void;
}

export interface SceneInfo { readonly name: string; readonly description: string; readonly defaultSteps: number; readonly players: number }

export interface Fixstep {
	init(): Promise<Fixstep>;
	version(): string;
	buildKernels(): Kernels[];
	World: typeof World; Body: typeof Body; Joint: typeof Joint; Character: typeof Character; Replay: typeof Replay;
	Recorder: typeof Recorder; FixstepError: typeof FixstepError;
	scenes(): readonly SceneInfo[];
	createScene(name: string): World;
	toFixed(v: Num, what?: string): number;
	fromFixed(raw: number): number;
	fixed(raw: number): { raw: number };
	readonly BUTTONS: { jump: 1; crouch: 2; use: 4; fire: 8 };
	readonly INPUT_SIZE: 12;
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
export const BUTTONS: { jump: 1; crouch: 2; use: 4; fire: 8 };
export const INPUT_SIZE: 12;
declare const fixstep: Fixstep;
export default fixstep;
