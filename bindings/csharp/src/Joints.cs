// Joints (fixstep/joint.h): one definition for every type, started from
// JointDef.Ball / Hinge / Fixed / Distance / Prismatic / Spherical / Filter / Wheel.
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    public enum JointType { Ball = 0, Hinge = 1, Fixed = 2, Distance = 3, Prismatic = 4, Spherical = 5, Filter = 6, Wheel = 7, Motor = 8 }

    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct JointDef
    {
        int type;
        public BodyId BodyA, BodyB;
        public FixVec3 LocalAnchorA, LocalAnchorB; /* m, in each body's frame */
        public FixVec3 LocalAxisA;                 /* hinge / prismatic / spherical twist axis in body a's frame */
        byte collideConnected;
        public Fix Hertz, DampingRatio;
        byte enableLimit;
        public Fix Lower, Upper;                   /* rad (hinge, spherical twist) or m */
        byte enableMotor;
        public Fix MotorSpeed, MaxMotorForce;
        public Fix Length;                         /* distance: < 0 is the anchors' distance at creation */
        byte enableSpring;
        public Fix SpringHertz, SpringDampingRatio;
        byte enableCone;
        public Fix ConeAngle;                      /* spherical: the swing cone's half-angle, rad in [0, pi] */
        public FixVec3 LocalSpinAxisA;             /* wheel: the spin axis in body a's frame at steering 0 */
        public Fix SteeringAngle;                  /* wheel: rad, within +-pi/2 */
        public FixVec3 LinearOffset;               /* motor: b's anchor's target from a's, in a's frame */
        public FixQuat AngularOffset;              /* motor: b's target rotation relative to a's */
        public Fix MaxMotorTorque, CorrectionFactor; /* motor: N m; in [0, 1] */

        public JointType Type { get { return (JointType)type; } }
        public bool CollideConnected { get { return collideConnected != 0; } set { collideConnected = Bool.B(value); } }
        public bool EnableLimit { get { return enableLimit != 0; } set { enableLimit = Bool.B(value); } }
        public bool EnableMotor { get { return enableMotor != 0; } set { enableMotor = Bool.B(value); } }
        public bool EnableSpring { get { return enableSpring != 0; } set { enableSpring = Bool.B(value); } }
        public bool EnableCone { get { return enableCone != 0; } set { enableCone = Bool.B(value); } }

        static JointDef With(JointDef d, BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB)
        {
            d.BodyA = a; d.BodyB = b; d.LocalAnchorA = anchorA; d.LocalAnchorB = anchorB; return d;
        }
        public static JointDef Ball(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_ball_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Hinge(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_hinge_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Fixed(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_fixed_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Distance(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_distance_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Prismatic(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_prismatic_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Spherical(BodyId a, BodyId b, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_spherical_joint_def(), a, b, anchorA, anchorB); }
        public static JointDef Wheel(BodyId chassis, BodyId wheel, FixVec3 anchorA, FixVec3 anchorB) { return With(Native.fxs_default_wheel_joint_def(), chassis, wheel, anchorA, anchorB); }
        public static JointDef Motor(BodyId a, BodyId b) { return With(Native.fxs_default_motor_joint_def(), a, b, default(FixVec3), default(FixVec3)); }
        public static JointDef Filter(BodyId a, BodyId b) { return With(Native.fxs_default_filter_joint_def(), a, b, default(FixVec3), default(FixVec3)); }
    }
}
