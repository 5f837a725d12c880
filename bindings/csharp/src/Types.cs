// The C API's plain types (fixstep/types.h) as C# value types with the C
// layout: ids, results, shapes, definitions, filters, statistics. C `bool`
// fields are bytes here (every struct stays blittable: passed to the
// library by pointer, never copied field by field); properties give bools.
// The tests hold every size and offset to the C compiler's (fxcs_layouts).
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    public enum Result { Ok = 0, InvalidArgument = 1, BufferTooSmall = 2, NoMemory = 3, BadMagic = 4, Version = 5, Truncated = 6, Corrupt = 7, Limit = 8, InvalidId = 9 }
    public enum BodyType { Static = 0, Kinematic = 1, Dynamic = 2 }
    public enum ShapeType { Sphere = 0, Box = 1, Capsule = 2, Mesh = 3, Hull = 4, Compound = 5, Cylinder = 6 }
    public enum Kernels { Portable = 0, Avx2 = 1, Avx512 = 2, Simd128 = 3, Neon = 4, Sse4 = 5 }

    /// <summary>A failure the library reported: its result and its message.</summary>
    public class FixstepException : Exception
    {
        public readonly Result Result;
        public FixstepException(Result result, string message) : base(message) { Result = result; }
        public FixstepException(Result result, string message, Exception inner) : base(message, inner) { Result = result; }
    }

    static class Bool
    {
        public static byte B(bool v) { return v ? (byte)1 : (byte)0; }
    }

    /// <summary>A body: slot index + 1 (0 is the null id) and the slot's generation. A destroyed
    /// body's id stays invalid forever.</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public readonly struct BodyId : IEquatable<BodyId>
    {
        public readonly uint Index1, Generation;
        public BodyId(uint index1, uint generation) { Index1 = index1; Generation = generation; }
        public static readonly BodyId Null = new BodyId(0, 0);
        public bool IsNull { get { return Index1 == 0; } }
        /// <summary>The body's slot (its place in the canonical order), -1 for the null id.</summary>
        public int Slot { get { return (int)Index1 - 1; } }
        public static bool operator ==(BodyId a, BodyId b) { return a.Equals(b); }
        public static bool operator !=(BodyId a, BodyId b) { return !a.Equals(b); }
        public bool Equals(BodyId o) { return Index1 == o.Index1 && Generation == o.Generation; }
        public override bool Equals(object o) { return o is BodyId && Equals((BodyId)o); }
        public override int GetHashCode() { return (int)(Index1 * 31 + Generation); }
        public override string ToString() { return "body " + Slot + " (generation " + Generation + ")"; }
    }

    [Serializable, StructLayout(LayoutKind.Sequential)]
    public readonly struct JointId : IEquatable<JointId>
    {
        public readonly uint Index1, Generation;
        public JointId(uint index1, uint generation) { Index1 = index1; Generation = generation; }
        public bool IsNull { get { return Index1 == 0; } }
        public bool Equals(JointId o) { return Index1 == o.Index1 && Generation == o.Generation; }
        public override bool Equals(object o) { return o is JointId && Equals((JointId)o); }
        public override int GetHashCode() { return (int)(Index1 * 31 + Generation); }
    }

    /// <summary>One convex shape about the body's centre of mass (fxs_shape), or a mesh, hull or
    /// compound of a world (World.CreateMesh, CreateHull, CreateCompound make those).</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct Shape
    {
        int type;
        public Fix Radius;
        public Fix HalfHeight;
        public FixVec3 HalfExtents;
        uint id;        /* mesh, hull or compound id */
        IntPtr derived; /* the world's, never serialised */

        public ShapeType Type { get { return (ShapeType)type; } }
        /// <summary>The world's mesh, hull or compound id (0 for the others).</summary>
        public uint Id { get { return id; } }
        public static Shape Sphere(Fix radius) { Shape s = default(Shape); s.type = (int)ShapeType.Sphere; s.Radius = radius; return s; }
        public static Shape Box(FixVec3 halfExtents) { Shape s = default(Shape); s.type = (int)ShapeType.Box; s.HalfExtents = halfExtents; return s; }
        /// <summary>The segment along local y from -halfHeight to +halfHeight, swept by radius.</summary>
        public static Shape Capsule(Fix radius, Fix halfHeight)
        {
            Shape s = default(Shape); s.type = (int)ShapeType.Capsule; s.Radius = radius; s.HalfHeight = halfHeight; return s;
        }
        /// <summary>A cylinder along local y from -halfHeight to +halfHeight with flat caps of the given radius.</summary>
        public static Shape Cylinder(Fix radius, Fix halfHeight)
        {
            Shape s = default(Shape); s.type = (int)ShapeType.Cylinder; s.Radius = radius; s.HalfHeight = halfHeight; return s;
        }
    }

    /// <summary>One part of a compound (World.CreateCompound): a sphere, box, capsule or hull of
    /// the world placed at Transform in the compound's frame.</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct CompoundChild
    {
        public Shape Shape;
        public FixTransform Xf;
        public CompoundChild(Shape shape, FixTransform xf) { Shape = shape; Xf = xf; }
    }

    /// <summary>Collision filter (Box2D's rules, fxs_filter).</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct Filter
    {
        public ulong CategoryBits;
        public ulong MaskBits;
        public int GroupIndex;
        public static Filter Default { get { Filter f; f.CategoryBits = 1; f.MaskBits = ulong.MaxValue; f.GroupIndex = 0; return f; } }
    }

    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct MotionLocks
    {
        byte lx, ly, lz, ax, ay, az;
        public bool LinearX { get { return lx != 0; } set { lx = Bool.B(value); } }
        public bool LinearY { get { return ly != 0; } set { ly = Bool.B(value); } }
        public bool LinearZ { get { return lz != 0; } set { lz = Bool.B(value); } }
        public bool AngularX { get { return ax != 0; } set { ax = Bool.B(value); } }
        public bool AngularY { get { return ay != 0; } set { ay = Bool.B(value); } }
        public bool AngularZ { get { return az != 0; } set { az = Bool.B(value); } }
    }

    /// <summary>A world's settings (fxs_world_def); start from WorldDef.Default.</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct WorldDef
    {
        public FixVec3 Gravity;          /* m/s^2 */
        public Fix Dt;                   /* s */
        public int Substeps;
        public int RelaxIterations;
        public Fix ContactHertz;
        public Fix ContactDamping;
        public Fix ContactPushMax;       /* m/s */
        public Fix LinearSlop;           /* m */
        public Fix SpeculativeDistance;  /* m */
        public Fix RestitutionThreshold; /* m/s */
        byte enableSleep;
        public Fix LinearSleepTolerance;
        public Fix AngularSleepTolerance;
        public Fix TimeToSleep;
        public uint MaxBodies;
        public uint DirectJointRows;
        public uint DirectContactRows;
        public Fix HitEventThreshold;    /* m/s */
        /* the step's threads (docs/threads.md): 1..64; more than 1 starts the
         * library's own pool (the same bits with any count). A C# game's own
         * scheduler would need native callbacks: EnqueueTask and FinishTask
         * stay zero here. */
        public uint WorkerCount;
        public IntPtr EnqueueTask, FinishTask, UserTaskContext;
        public bool EnableSleep { get { return enableSleep != 0; } set { enableSleep = Bool.B(value); } }
        public static WorldDef Default { get { return Native.fxs_default_world_def(); } }
    }

    /// <summary>A body's definition (fxs_body_def); start from BodyDef.Default (a dynamic unit sphere
    /// of radius 0.5 m at the origin).</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct BodyDef
    {
        int type;
        public FixVec3 Position;
        public FixQuat Rotation;
        public FixVec3 LinearVelocity;
        public FixVec3 AngularVelocity;
        public Shape Shape;
        public Fix Density;        /* kg/m^3 */
        public Fix Friction;
        public Fix Restitution;
        public Fix RollingResistance; /* 0..1: round shapes resist rolling (docs/simulation.md) */
        public Fix LinearDamping;  /* 1/s */
        public Fix AngularDamping; /* 1/s */
        public Fix GravityScale;
        public uint UserData;
        public Filter Filter;
        public MotionLocks MotionLocks;
        byte isSensor, enableSensorEvents, enableContactEvents, enableHitEvents, isEnabled, isAwake;

        public BodyType Type { get { return (BodyType)type; } set { type = (int)value; } }
        public bool IsSensor { get { return isSensor != 0; } set { isSensor = Bool.B(value); } }
        public bool EnableSensorEvents { get { return enableSensorEvents != 0; } set { enableSensorEvents = Bool.B(value); } }
        public bool EnableContactEvents { get { return enableContactEvents != 0; } set { enableContactEvents = Bool.B(value); } }
        public bool EnableHitEvents { get { return enableHitEvents != 0; } set { enableHitEvents = Bool.B(value); } }
        public bool IsEnabled { get { return isEnabled != 0; } set { isEnabled = Bool.B(value); } }
        public bool IsAwake { get { return isAwake != 0; } set { isAwake = Bool.B(value); } }
        public static BodyDef Default { get { return Native.fxs_default_body_def(); } }
    }

    /// <summary>The last step's counters (fxs_step_stats).</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct StepStats
    {
        public ulong Step;
        public uint Overflows;
        public ulong OverflowsTotal;
        public uint BodyCount;
        public uint PairCount;
        public uint ContactCount;
        public uint ContactPointCount;
        public uint AwakeBodyCount;
    }
}
