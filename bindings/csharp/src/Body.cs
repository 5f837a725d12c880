// A body of a world: the world and the body's id. A stale id (a destroyed
// body's) reads as zeros and its setters throw FixstepException (InvalidId).
// Every setter and mover throws FixstepException with the library's reason
// (fxs_result) and changes nothing then: a velocity for a static body, a
// force, torque or impulse for a body that is not dynamic, a zero rotation,
// a value out of the range BodyDef accepts are InvalidArgument.
using System;

namespace Fixstep
{
    public readonly struct Body : IEquatable<Body>
    {
        public readonly World World;
        public readonly BodyId Id;
        internal Body(World w, BodyId id) { World = w; Id = id; }

        WorldHandle H { get { return World.Handle; } }
        void Valid() { if (!IsValid) throw new FixstepException(Result.InvalidId, Id + ": not a body of this world"); }

        public bool IsValid { get { return World != null && Native.fxs_body_is_valid(H, Id); } }
        public bool Destroy() { return Native.fxs_body_destroy(H, Id); }
        public BodyType Type
        {
            get { return Native.fxs_body_get_type(H, Id); }
            set { World.Check(Native.fxs_body_set_type(H, Id, value), "body type"); }
        }
        public Shape Shape { get { return Native.fxs_body_get_shape(H, Id); } }
        public FixVec3 Position { get { return Native.fxs_body_get_position(H, Id); } }
        public FixQuat Rotation { get { return Native.fxs_body_get_rotation(H, Id); } }
        public void SetTransform(FixVec3 position, FixQuat rotation) { Check(Native.fxs_body_set_transform(H, Id, position, rotation), "transform"); }
        public FixVec3 LinearVelocity
        {
            get { return Native.fxs_body_get_linear_velocity(H, Id); }
            set { Check(Native.fxs_body_set_linear_velocity(H, Id, value), "linear velocity"); }
        }
        public FixVec3 AngularVelocity
        {
            get { return Native.fxs_body_get_angular_velocity(H, Id); }
            set { Check(Native.fxs_body_set_angular_velocity(H, Id, value), "angular velocity"); }
        }
        /// <summary>kg, Q32.32.</summary>
        public FixWide Mass { get { return FixWide.FromRaw(Native.fxs_body_get_mass(H, Id)); } }
        public uint UserData
        {
            get { return Native.fxs_body_get_user_data(H, Id); }
            set { World.Check(Native.fxs_body_set_user_data(H, Id, value), "user data"); }
        }
        public Fix Friction
        {
            get { return Native.fxs_body_get_friction(H, Id); }
            set { World.Check(Native.fxs_body_set_friction(H, Id, value), "friction"); }
        }
        public Fix Restitution
        {
            get { return Native.fxs_body_get_restitution(H, Id); }
            set { World.Check(Native.fxs_body_set_restitution(H, Id, value), "restitution"); }
        }
        /// <summary>0..1: a sphere, capsule or cylinder resists rolling with a torque up to this times
        /// the normal force times its radius.</summary>
        public Fix RollingResistance
        {
            get { return Native.fxs_body_get_rolling_resistance(H, Id); }
            set { World.Check(Native.fxs_body_set_rolling_resistance(H, Id, value), "rolling resistance"); }
        }
        public Filter Filter
        {
            get { return Native.fxs_body_get_filter(H, Id); }
            set { World.Check(Native.fxs_body_set_filter(H, Id, value), "filter"); }
        }
        public bool IsAwake
        {
            get { return Native.fxs_body_is_awake(H, Id); }
            set { World.Check(Native.fxs_body_set_awake(H, Id, value), "awake"); }
        }
        public FixAabb Aabb { get { return Native.fxs_body_get_aabb(H, Id); } }
        /// <summary>XXH3-64 of this body's state alone (0 for a stale id).</summary>
        public ulong Hash { get { return Native.fxs_body_hash(H, Id); } }

        /// <summary>Newtons, until the end of the next step; point in world space.</summary>
        public void ApplyForce(FixVec3 force, FixVec3 point) { Check(Native.fxs_body_apply_force(H, Id, force, point), "force"); }
        public void ApplyForceToCenter(FixVec3 force) { Check(Native.fxs_body_apply_force_to_center(H, Id, force), "force"); }
        public void ApplyTorque(FixVec3 torque) { Check(Native.fxs_body_apply_torque(H, Id, torque), "torque"); }
        /// <summary>N s, at once; point in world space.</summary>
        public void ApplyLinearImpulse(FixVec3 impulse, FixVec3 point) { Check(Native.fxs_body_apply_linear_impulse(H, Id, impulse, point), "linear impulse"); }
        public void ApplyAngularImpulse(FixVec3 impulse) { Check(Native.fxs_body_apply_angular_impulse(H, Id, impulse), "angular impulse"); }

        // ---- run time (fixstep.h "bodies at run time": hashed, in snapshots) ----

        /// <summary>kg/m^3; recomputes the mass and inertia from the shape.</summary>
        public Fix Density
        {
            get { return Native.fxs_body_get_density(H, Id); }
            set { Check(Native.fxs_body_set_density(H, Id, value), "density"); }
        }
        /// <summary>-100..100 times the world's gravity.</summary>
        public Fix GravityScale
        {
            get { return Native.fxs_body_get_gravity_scale(H, Id); }
            set { Check(Native.fxs_body_set_gravity_scale(H, Id, value), "gravity scale"); }
        }
        /// <summary>0..1000 each.</summary>
        public void SetDamping(Fix linear, Fix angular) { Check(Native.fxs_body_set_damping(H, Id, linear, angular), "damping"); }
        /// <summary>The principal moments of inertia about the centre of mass, body frame, kg m^2.</summary>
        public FixWide[] Inertia
        {
            get
            {
                var a = new long[3];
                Native.fxs_body_get_inertia(H, Id, a);
                return new[] { FixWide.FromRaw(a[0]), FixWide.FromRaw(a[1]), FixWide.FromRaw(a[2]) };
            }
        }
        /// <summary>Mass and principal moments instead of what the shape and density give (a dynamic
        /// body; mass 2^-16..2^24 kg, moments 2^-16..2^30 kg m^2).</summary>
        public void SetMassData(FixWide mass, FixWide ix, FixWide iy, FixWide iz)
        {
            Check(Native.fxs_body_set_mass_data(H, Id, mass.Raw, new[] { ix.Raw, iy.Raw, iz.Raw }), "mass data");
        }
        /// <summary>Locked axes (world frame); their velocities are zeroed now.</summary>
        public MotionLocks MotionLocks
        {
            get { return Native.fxs_body_get_motion_locks(H, Id); }
            set { Check(Native.fxs_body_set_motion_locks(H, Id, value), "motion locks"); }
        }
        /// <summary>Out of the simulation (keeping its slot, id, pose and velocity) and back.</summary>
        public bool IsEnabled
        {
            get { return Native.fxs_body_is_enabled(H, Id); }
            set { Check(value ? Native.fxs_body_enable(H, Id) : Native.fxs_body_disable(H, Id), value ? "enable" : "disable"); }
        }
        public bool IsSensor { get { return Native.fxs_body_is_sensor(H, Id); } }
        public void EnableContactEvents(bool on) { Check(Native.fxs_body_enable_contact_events(H, Id, on), "contact events"); }
        public void EnableHitEvents(bool on) { Check(Native.fxs_body_enable_hit_events(H, Id, on), "hit events"); }
        public void EnableSensorEvents(bool on) { Check(Native.fxs_body_enable_sensor_events(H, Id, on), "sensor events"); }
        /// <summary>The velocity of the body's material point at world point p.</summary>
        public FixVec3 PointVelocity(FixVec3 p) { return Native.fxs_body_get_point_velocity(H, Id, p); }

        void Check(Result r, string what)
        {
            if (World == null) throw new FixstepException(Result.InvalidId, Id + ": no world");
            if (r == Result.InvalidId) Valid();
            World.Check(r, Id + " " + what);
        }

        /// <summary>The body's contacts as the last step found them.</summary>
        public ContactData[] Contacts
        {
            get
            {
                uint n = Native.fxs_body_get_contacts(H, Id, null, 0);
                var a = new ContactData[n];
                if (n > 0) Native.fxs_body_get_contacts(H, Id, a, n);
                return a;
            }
        }
        /// <summary>What overlaps this sensor now.</summary>
        public BodyId[] SensorOverlaps
        {
            get
            {
                uint n = Native.fxs_sensor_get_overlaps(H, Id, null, 0);
                var a = new BodyId[n];
                if (n > 0) Native.fxs_sensor_get_overlaps(H, Id, a, n);
                return a;
            }
        }

        public bool Equals(Body o) { return ReferenceEquals(World, o.World) && Id == o.Id; }
        public override bool Equals(object o) { return o is Body && Equals((Body)o); }
        public override int GetHashCode() { return Id.GetHashCode(); }
        public override string ToString() { return Id.ToString(); }
    }
}
