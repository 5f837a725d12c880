// A world (fixstep/fixstep.h): created from a definition or a snapshot,
// stepped, hashed, saved; freed by Dispose (or, late, by the finalizer of
// its SafeHandle). A world is used from one thread at a time.
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    /// <summary>The native fxs_world pointer; fxs_world_destroy when released.</summary>
    public sealed class WorldHandle : SafeHandle
    {
        WorldHandle() : base(IntPtr.Zero, true) { }
        internal WorldHandle(IntPtr p, bool owns) : base(IntPtr.Zero, owns) { SetHandle(p); }
        public override bool IsInvalid { get { return handle == IntPtr.Zero; } }
        protected override bool ReleaseHandle() { Native.fxs_world_destroy(handle); return true; }
    }

    public sealed partial class World : IDisposable
    {
        internal readonly WorldHandle Handle;

        World(WorldHandle h) { Handle = h; }

        /// <summary>A world borrowed from a callback (the library owns it): never destroyed here.</summary>
        internal static World Borrow(IntPtr p) { return new World(new WorldHandle(p, false)); }

        public static World Create() { return Create(WorldDef.Default); }

        /// <summary>FixstepException naming the first field out of range on a bad definition.</summary>
        public static World Create(WorldDef def)
        {
            string field = Native.Str(Native.fxs_world_def_invalid_field(ref def));
            if (field != null) throw new FixstepException(Result.InvalidArgument, "world def: " + field + " out of range");
            WorldHandle h = Native.fxs_world_create(ref def);
            if (h.IsInvalid) throw new FixstepException(Result.NoMemory, "world create: out of memory");
            return new World(h);
        }

        /// <summary>A new world from snapshot bytes (untrusted input: checked field by field).</summary>
        public static World FromSnapshot(byte[] snapshot)
        {
            if (snapshot == null) throw new ArgumentNullException("snapshot");
            Result r;
            WorldHandle h = Native.fxs_world_create_from_snapshot(snapshot, (UIntPtr)snapshot.Length, out r);
            if (h.IsInvalid) throw new FixstepException(r, "snapshot: " + ResultString(r));
            return new World(h);
        }

        /// <summary>Wraps a world made by native code (e.g. a scene's create function); the World owns
        /// and destroys it.</summary>
        public static World FromNative(IntPtr world)
        {
            if (world == IntPtr.Zero) throw new ArgumentException("null world", "world");
            return new World(new WorldHandle(world, true));
        }

        /// <summary>The native fxs_world pointer, for native code of your own (valid until Dispose).</summary>
        public IntPtr NativePointer { get { return Handle.DangerousGetHandle(); } }

        public void Dispose() { Handle.Dispose(); }
        public bool IsDisposed { get { return Handle.IsClosed; } }

        public static string ResultString(Result r) { return Native.Str(Native.fxs_result_string(r)); }
        public static string Version { get { return Native.Str(Native.fxs_version_string()); } }

        internal void Check(Result r, string what)
        {
            if (r != Result.Ok) throw new FixstepException(r, what + ": " + ResultString(r));
        }

        public WorldDef Def { get { return Native.fxs_world_get_def(Handle); } }
        public FixVec3 Gravity
        {
            get { return Native.fxs_world_get_gravity(Handle); }
            set { Check(Native.fxs_world_set_gravity(Handle, value), "gravity"); }
        }

        /// <summary>One step of Def.Dt. FixstepException (NoMemory) when memory ran out.</summary>
        public void Step() { Check(Native.fxs_world_step(Handle), "step"); }
        public void Step(int n) { for (int i = 0; i < n; ++i) Step(); }

        /// <summary>XXH3-64 of the whole state, as `fixstep run` prints it (ToString("x16")).</summary>
        public ulong Hash { get { return Native.fxs_world_hash(Handle); } }
        public string HashHex { get { return Hash.ToString("x16"); } }
        public ulong StepCount { get { return Native.fxs_world_get_step(Handle); } }
        public StepStats Stats { get { return Native.fxs_world_get_stats(Handle); } }
        public Kernels Kernels
        {
            get { return Native.fxs_world_get_kernels(Handle); }
            set { Native.fxs_world_set_kernels(Handle, value); }
        }

        // ---- bodies ----

        /// <summary>FixstepException naming the field (or the limit) on a bad definition.</summary>
        public Body CreateBody(BodyDef def)
        {
            BodyId id = Native.fxs_body_create(Handle, ref def);
            if (id.IsNull) throw LastError("body create");
            return new Body(this, id);
        }

        internal FixstepException LastError(string what)
        {
            Result r = Native.fxs_world_get_last_error(Handle);
            string m = Native.Str(Native.fxs_world_get_last_error_message(Handle));
            return new FixstepException(r, what + ": " + (string.IsNullOrEmpty(m) ? ResultString(r) : m));
        }

        public Body GetBody(BodyId id) { return new Body(this, id); }
        public int BodyCount { get { return (int)Native.fxs_world_body_count(Handle); } }
        /// <summary>Every body in slot order (the canonical order).</summary>
        public Body[] Bodies
        {
            get
            {
                uint n = Native.fxs_world_slot_count(Handle);
                var list = new System.Collections.Generic.List<Body>();
                for (uint i = 0; i < n; ++i)
                {
                    BodyId id = Native.fxs_world_body_at(Handle, i);
                    if (!id.IsNull) list.Add(new Body(this, id));
                }
                return list.ToArray();
            }
        }

        // ---- shapes owned by the world ----

        /// <summary>A static triangle mesh (counter-clockwise triangles, 3 indices each): the shape of
        /// a static body.</summary>
        public Shape CreateMesh(FixVec3[] vertices, uint[] triangles, Fix thickness)
        {
            if (vertices == null || triangles == null || triangles.Length % 3 != 0) throw new ArgumentException("mesh: vertices and a multiple of 3 indices");
            uint id = Native.fxs_world_create_mesh(Handle, vertices, (uint)vertices.Length, triangles, (uint)(triangles.Length / 3), thickness);
            if (id == 0) throw LastError("mesh");
            return Native.fxs_mesh_shape(Handle, id);
        }

        /// <summary>A convex hull of up to 64 points; centerOfMass is where, in the points' frame, the
        /// body's position must go.</summary>
        public Shape CreateHull(FixVec3[] points, out FixVec3 centerOfMass)
        {
            if (points == null) throw new ArgumentNullException("points");
            uint id = Native.fxs_world_create_hull(Handle, points, (uint)points.Length, out centerOfMass);
            if (id == 0) throw LastError("hull");
            return Native.fxs_hull_shape(Handle, id);
        }

        /// <summary>A heightfield (a static mesh): nx x nz heights, row by row (heights[j * nx + i] at
        /// (i * cell, j * cell), y up), thick faces `thickness` deep below it.</summary>
        public Shape CreateHeightfield(Fix[] heights, int nx, int nz, Fix cell, Fix thickness)
        {
            if (heights == null || nx < 0 || nz < 0 || (long)nx * nz != heights.Length) throw new ArgumentException("heightfield: nx x nz heights");
            uint id = Native.fxs_world_create_heightfield(Handle, heights, (uint)nx, (uint)nz, cell, thickness);
            if (id == 0) throw LastError("heightfield");
            return Native.fxs_mesh_shape(Handle, id);
        }

        /// <summary>A compound of 1..16 spheres, boxes, capsules or hulls placed in its frame;
        /// centerOfMass is where, in that frame, the body's position must go.</summary>
        public Shape CreateCompound(CompoundChild[] children, out FixVec3 centerOfMass)
        {
            if (children == null) throw new ArgumentNullException("children");
            uint id = Native.fxs_world_create_compound(Handle, children, (uint)children.Length, out centerOfMass);
            if (id == 0) throw LastError("compound");
            return Native.fxs_compound_shape(Handle, id);
        }

        // ---- settings at run time (hashed, in snapshots) ----

        public void SetContactTuning(Fix hertz, Fix dampingRatio, Fix pushMax) { Check(Native.fxs_world_set_contact_tuning(Handle, hertz, dampingRatio, pushMax), "contact tuning"); }
        public void SetRestitutionThreshold(Fix speed) { Check(Native.fxs_world_set_restitution_threshold(Handle, speed), "restitution threshold"); }
        public void SetHitEventThreshold(Fix speed) { Check(Native.fxs_world_set_hit_event_threshold(Handle, speed), "hit event threshold"); }
        public void EnableSleeping(bool on) { Check(Native.fxs_world_enable_sleeping(Handle, on), "sleeping"); }

        // ---- joints ----

        public JointId CreateJoint(JointDef def)
        {
            JointId id = Native.fxs_joint_create(Handle, ref def);
            if (id.IsNull) throw LastError("joint create");
            return id;
        }
        public bool DestroyJoint(JointId id) { return Native.fxs_joint_destroy(Handle, id); }
        public int JointCount { get { return (int)Native.fxs_world_joint_count(Handle); } }
        public FixVec3 JointAnchorA(JointId id) { return Native.fxs_joint_get_anchor_a(Handle, id); }
        public FixVec3 JointAnchorB(JointId id) { return Native.fxs_joint_get_anchor_b(Handle, id); }
        /// <summary>Hinge angle (rad), prismatic translation or distance length (m).</summary>
        public Fix JointPosition(JointId id) { return Native.fxs_joint_get_position(Handle, id); }
        /* spherical: the angle between the twist axes (rad); 0 for the other types */
        public Fix JointSwingAngle(JointId id) { return Native.fxs_joint_get_swing_angle(Handle, id); }
        public void SetJointMotor(JointId id, bool enable, Fix speed, Fix maxForce) { Native.fxs_joint_set_motor(Handle, id, enable, speed, maxForce); }
        /* wheel: the steering angle (rad, within +-pi/2); FixstepException for a stale id, another type or an angle out of range */
        public void SetJointSteering(JointId id, Fix angle) { Check(Native.fxs_joint_set_steering(Handle, id, angle), "steering"); }
        /* motor: a new target pose of b relative to a */
        public void SetJointMotorTarget(JointId id, FixVec3 linearOffset, FixQuat angularOffset) { Check(Native.fxs_joint_set_motor_target(Handle, id, linearOffset, angularOffset), "motor target"); }

        // ---- queries ----

        public bool RayCast(FixVec3 from, FixVec3 to, out CastHit hit) { return RayCast(from, to, QueryFilter.Default, BodyId.Null, out hit); }
        public bool RayCast(FixVec3 from, FixVec3 to, QueryFilter filter, BodyId skip, out CastHit hit)
        {
            return Native.fxs_world_ray_cast_filtered(Handle, from, to, ref filter, skip, out hit);
        }
        public bool ShapeCast(Shape shape, FixQuat rotation, FixVec3 from, FixVec3 to, QueryFilter filter, BodyId skip, out CastHit hit)
        {
            return Native.fxs_world_shape_cast_filtered(Handle, ref shape, rotation, from, to, ref filter, skip, out hit);
        }
        /// <summary>Bodies whose bounds overlap the box, in slot order.</summary>
        public BodyId[] OverlapAabb(FixAabb box) { return OverlapAabb(box, QueryFilter.Default); }
        public BodyId[] OverlapAabb(FixAabb box, QueryFilter filter)
        {
            uint n = Native.fxs_world_overlap_aabb(Handle, box, ref filter, null, 0);
            var ids = new BodyId[n];
            if (n > 0) Native.fxs_world_overlap_aabb(Handle, box, ref filter, ids, n);
            return ids;
        }
        public BodyId[] OverlapShape(Shape shape, FixTransform at, QueryFilter filter)
        {
            uint n = Native.fxs_world_overlap_shape(Handle, ref shape, ref at, ref filter, null, 0);
            var ids = new BodyId[n];
            if (n > 0) Native.fxs_world_overlap_shape(Handle, ref shape, ref at, ref filter, ids, n);
            return ids;
        }

        // ---- events ----

        static T[] Copy<T>(IntPtr p, uint n) where T : struct
        {
            var a = new T[n];
            int size = Marshal.SizeOf(typeof(T));
            for (uint i = 0; i < n; ++i) a[i] = (T)Marshal.PtrToStructure(new IntPtr(p.ToInt64() + i * size), typeof(T));
            return a;
        }

        /// <summary>The last step's contact begin, end and hit events (copies).</summary>
        public ContactEvents ContactEvents
        {
            get
            {
                NativeContactEvents e = Native.fxs_world_get_contact_events(Handle);
                var c = new ContactEvents();
                c.Begin = Copy<ContactBeginEvent>(e.Begin, e.BeginCount);
                c.End = Copy<ContactEndEvent>(e.End, e.EndCount);
                c.Hit = Copy<ContactHitEvent>(e.Hit, e.HitCount);
                return c;
            }
        }
        public SensorEvents SensorEvents
        {
            get
            {
                NativeSensorEvents e = Native.fxs_world_get_sensor_events(Handle);
                var s = new SensorEvents();
                s.Begin = Copy<SensorEvent>(e.Begin, e.BeginCount);
                s.End = Copy<SensorEvent>(e.End, e.EndCount);
                return s;
            }
        }

        // ---- snapshots ----

        /// <summary>The whole state, as bytes any machine restores to the same bits.</summary>
        public byte[] SaveSnapshot()
        {
            var buf = new byte[(long)Native.fxs_world_snapshot_size(Handle)];
            UIntPtr written;
            Check(Native.fxs_world_snapshot_save(Handle, buf, (UIntPtr)buf.Length, out written), "snapshot save");
            if ((long)written != buf.Length) Array.Resize(ref buf, (int)written);
            return buf;
        }
        /// <summary>Untrusted input: on an error the world is unchanged.</summary>
        public void RestoreSnapshot(byte[] snapshot)
        {
            if (snapshot == null) throw new ArgumentNullException("snapshot");
            Check(Native.fxs_world_snapshot_restore(Handle, snapshot, (UIntPtr)snapshot.Length), "snapshot restore");
        }
    }
}
