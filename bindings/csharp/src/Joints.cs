// Joints (fixstep/joint.h): one definition for every type, started from
// JointDef.Ball / Hinge / Fixed / Distance / Prismatic.
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    public enum JointType { Ball = 0, Hinge = 1, Fixed = 2, Distance = 3, Prismatic = 4 }

    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct JointDef
    {
        int type;
        public BodyId BodyA, BodyB;
        public FixVec3 LocalAnchorA, LocalAnchorB; /* m, in each body's frame */
        public FixVec3 LocalAxisA;                 /* hinge / prismatic axis in body a's frame */
        byte collideConnected;
        public Fix Hertz, DampingRatio;
        byte enableLimit;
        public Fix Lower, Upper;                   /* rad (hinge) or m */
        byte enableMotor;
        public Fix MotorSpeed, MaxMotorForce;
        public Fix Length;                         /* distance: < 0 is the anchors' distance at creation */
        byte enableSpring;
        public Fix SpringHertz, SpringDampingRatio;

        public JointType Type { get { return (JointType)type; } }
        public bool CollideConnected { get { return collideConnected != 0; } set { collideConnected = Bool.B(value); } }
        public bool EnableLimit { get { return enableLimit != 0; } set { enableLimit = Bool.B(value); } }
        public bool EnableMotor { get { return enableMotor != 0; } set { enableMotor = Bool.B(value); } }
        public bool EnableSpring { get { return enableSpring != 0; } set { enableSpring = Bool.B(value); } }

        static JointDef With(JointDef d, BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB)
        {
            d.BodyA = a; d.BodyB = b; d.LocalAnchorA = anchorA; d.LocalAnchorB = anchorB; return d;
        }
        public static JointDef Ball(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_ball_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Hinge(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_hinge_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Fixed(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_fixed_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Distance(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_distance_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Prismatic(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_prismatic_joint_def(), a, b, anchorA, anchorB); }
    }
}
