// Vectors, rotations, transforms and boxes of Q16.16 numbers, laid out as
// the C API's fxg_vec3, fxg_quat, fxs_transform and fxs_aabb.
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public readonly struct FixVec3 : IEquatable<FixVec3>
    {
        public readonly Fix X, Y, Z;
        public FixVec3(Fix x, Fix y, Fix z) { X = x; Y = y; Z = z; }
        public static readonly FixVec3 Zero = new FixVec3(Fix.Zero, Fix.Zero, Fix.Zero);
        /// <summary>From units (metres, m/s, N...); each component as (Fix)double.</summary>
        public static FixVec3 FromUnits(double x, double y, double z) { return new FixVec3((Fix)x, (Fix)y, (Fix)z); }
        public static FixVec3 FromRaw(int x, int y, int z) { return new FixVec3(Fix.FromRaw(x), Fix.FromRaw(y), Fix.FromRaw(z)); }
        public static FixVec3 operator +(FixVec3 a, FixVec3 b) { return new FixVec3(a.X + b.X, a.Y + b.Y, a.Z + b.Z); }
        public static FixVec3 operator -(FixVec3 a, FixVec3 b) { return new FixVec3(a.X - b.X, a.Y - b.Y, a.Z - b.Z); }
        public static FixVec3 operator -(FixVec3 a) { return new FixVec3(-a.X, -a.Y, -a.Z); }
        public static FixVec3 operator *(FixVec3 a, Fix s) { return new FixVec3(a.X * s, a.Y * s, a.Z * s); }
        public static FixVec3 operator *(Fix s, FixVec3 a) { return a * s; }
        public static bool operator ==(FixVec3 a, FixVec3 b) { return a.Equals(b); }
        public static bool operator !=(FixVec3 a, FixVec3 b) { return !a.Equals(b); }
        public bool Equals(FixVec3 o) { return X == o.X && Y == o.Y && Z == o.Z; }
        public override bool Equals(object o) { return o is FixVec3 && Equals((FixVec3)o); }
        public override int GetHashCode() { return X.Raw ^ (Y.Raw * 31) ^ (Z.Raw * 961); }
        public override string ToString() { return "(" + X + ", " + Y + ", " + Z + ")"; }
    }

    /// <summary>A rotation (x, y, z, w), unit length.</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public readonly struct FixQuat : IEquatable<FixQuat>
    {
        public readonly Fix X, Y, Z, W;
        public FixQuat(Fix x, Fix y, Fix z, Fix w) { X = x; Y = y; Z = z; W = w; }
        public static readonly FixQuat Identity = new FixQuat(Fix.Zero, Fix.Zero, Fix.Zero, (Fix)1);
        public bool Equals(FixQuat o) { return X == o.X && Y == o.Y && Z == o.Z && W == o.W; }
        public override bool Equals(object o) { return o is FixQuat && Equals((FixQuat)o); }
        public override int GetHashCode() { return X.Raw ^ (Y.Raw * 31) ^ (Z.Raw * 961) ^ (W.Raw * 29791); }
        public override string ToString() { return "(" + X + ", " + Y + ", " + Z + ", " + W + ")"; }
    }

    [Serializable, StructLayout(LayoutKind.Sequential)]
    public readonly struct FixTransform
    {
        public readonly FixVec3 Position;
        public readonly FixQuat Rotation;
        public FixTransform(FixVec3 p, FixQuat q) { Position = p; Rotation = q; }
    }

    /// <summary>An axis-aligned box, Lo &lt;= Hi on every axis.</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public readonly struct FixAabb
    {
        public readonly FixVec3 Lo, Hi;
        public FixAabb(FixVec3 lo, FixVec3 hi) { Lo = lo; Hi = hi; }
    }
}
