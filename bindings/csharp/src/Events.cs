// The last step's events (fixstep/events.h), copied out of the world's
// arrays (which the next step reuses) into C# arrays.
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct ContactBeginEvent
    {
        public BodyId BodyA, BodyB;
        public uint ChildA, ChildB;
        public FixVec3 Normal; /* from a to b */
        public FixVec3 Point;
        public Fix Separation;
        public int PointCount;
    }

    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct ContactEndEvent
    {
        public BodyId BodyA, BodyB;
        public uint ChildA, ChildB;
    }

    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct ContactHitEvent
    {
        public BodyId BodyA, BodyB;
        public uint ChildA, ChildB;
        public FixVec3 Point;
        public FixVec3 Normal;
        public Fix ApproachSpeed; /* m/s */
    }

    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct SensorEvent
    {
        public BodyId Sensor, Visitor;
    }

    /// <summary>One of a body's current contacts (fxs_contact_data).</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct ContactData
    {
        public BodyId BodyA, BodyB;
        public uint ChildA, ChildB;
        public FixVec3 Normal;
        public int PointCount;
        public FixVec3 Point0, Point1, Point2, Point3;
        public Fix Separation0, Separation1, Separation2, Separation3;
        public Fix NormalImpulse0, NormalImpulse1, NormalImpulse2, NormalImpulse3;
    }

    public sealed class ContactEvents
    {
        public ContactBeginEvent[] Begin = new ContactBeginEvent[0];
        public ContactEndEvent[] End = new ContactEndEvent[0];
        public ContactHitEvent[] Hit = new ContactHitEvent[0];
    }

    public sealed class SensorEvents
    {
        public SensorEvent[] Begin = new SensorEvent[0];
        public SensorEvent[] End = new SensorEvent[0];
    }

    [StructLayout(LayoutKind.Sequential)]
    struct NativeContactEvents
    {
        public IntPtr Begin, End, Hit;
        public uint BeginCount, EndCount, HitCount;
    }

    [StructLayout(LayoutKind.Sequential)]
    struct NativeSensorEvents
    {
        public IntPtr Begin, End;
        public uint BeginCount, EndCount;
    }
}
