// Queries (fixstep/query.h): rays, shape casts and overlaps.
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct CastHit
    {
        public BodyId Body;
        public Fix Fraction;   /* of the segment, 0..1 */
        public Fix Distance;   /* m along the segment */
        public FixVec3 Point;  /* on the surface hit */
        public FixVec3 Normal; /* unit, facing the caster */
    }

    /// <summary>What a query sees: a body passes when its category meets MaskBits and its mask meets
    /// CategoryBits.</summary>
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct QueryFilter
    {
        public ulong CategoryBits;
        public ulong MaskBits;
        public static QueryFilter Default { get { QueryFilter f; f.CategoryBits = 1; f.MaskBits = ulong.MaxValue; return f; } }
    }
}
