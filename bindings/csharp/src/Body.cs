// A body of a world: the world and the body's id. A stale id (a destroyed
// body's) reads as zeros and its setters throw FixstepException (InvalidId).
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
        public void SetTransform(FixVec3 position, FixQuat rotation) { Valid(); Native.fxs_body_set_transform(H, Id, position, rotation); }
        public FixVec3 LinearVelocity
        {
            get { return Native.fxs_body_get_linear_velocity(H, Id); }
            set { Valid(); Native.fxs_body_set_linear_velocity(H, Id, value); }
        }
        public FixVec3 AngularVelocity
        {
            get { return Native.fxs_body_get_angular_velocity(H, Id); }
            set { Valid(); Native.fxs_body_set_angular_velocity(H, Id, value); }
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
        public void ApplyForce(FixVec3 force, FixVec3 point) { Valid(); Native.fxs_body_apply_force(H, Id, force, point); }
        public void ApplyForceToCenter(FixVec3 force) { Valid(); Native.fxs_body_apply_force_to_center(H, Id, force); }
        public void ApplyTorque(FixVec3 torque) { Valid(); Native.fxs_body_apply_torque(H, Id, torque); }
        /// <summary>N s, at once; point in world space.</summary>
        public void ApplyLinearImpulse(FixVec3 impulse, FixVec3 point) { Valid(); Native.fxs_body_apply_linear_impulse(H, Id, impulse, point); }
        public void ApplyAngularImpulse(FixVec3 impulse) { Valid(); Native.fxs_body_apply_angular_impulse(H, Id, impulse); }

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
