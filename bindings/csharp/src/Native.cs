// The C API of libfixstep.so (kernel/include/fixstep/*.h,
// replays/include/fixstep/replay.h), declared for P/Invoke. Internal: the
// public classes (World, Body, Replay...) are the binding's API. The library
// is "fixstep": libfixstep.so on Linux and Android, fixstep.dll on Windows,
// libfixstep.dylib on macOS (Unity: put it in Assets/Plugins).
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    static class Native
    {
        const string Lib = "fixstep";
        const CallingConvention C = CallingConvention.Cdecl;

        [DllImport(Lib, CallingConvention = C)] public static extern IntPtr fxs_result_string(Result r);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_version();
        [DllImport(Lib, CallingConvention = C)] public static extern IntPtr fxs_version_string();

        // ---- world ----
        [DllImport(Lib, CallingConvention = C)] public static extern WorldDef fxs_default_world_def();
        [DllImport(Lib, CallingConvention = C)] public static extern WorldHandle fxs_world_create(ref WorldDef def);
        [DllImport(Lib, CallingConvention = C)] public static extern void fxs_world_destroy(IntPtr w);
        [DllImport(Lib, CallingConvention = C)] public static extern IntPtr fxs_world_def_invalid_field(ref WorldDef def);
        [DllImport(Lib, CallingConvention = C)] public static extern WorldDef fxs_world_get_def(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_get_last_error(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern IntPtr fxs_world_get_last_error_message(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_set_gravity(WorldHandle w, FixVec3 g);
        [DllImport(Lib, CallingConvention = C)] public static extern FixVec3 fxs_world_get_gravity(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_set_contact_tuning(WorldHandle w, Fix hertz, Fix dampingRatio, Fix pushMax);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_set_restitution_threshold(WorldHandle w, Fix speed);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_set_hit_event_threshold(WorldHandle w, Fix speed);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_enable_sleeping(WorldHandle w, [MarshalAs(UnmanagedType.U1)] bool on);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_step(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_status(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern ulong fxs_world_hash(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern StepStats fxs_world_get_stats(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern ulong fxs_world_get_step(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern Kernels fxs_world_set_kernels(WorldHandle w, Kernels k);
        [DllImport(Lib, CallingConvention = C)] public static extern Kernels fxs_world_get_kernels(WorldHandle w);

        // ---- bodies ----
        [DllImport(Lib, CallingConvention = C)] public static extern BodyDef fxs_default_body_def();
        [DllImport(Lib, CallingConvention = C)] public static extern BodyId fxs_body_create(WorldHandle w, ref BodyDef def);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_body_destroy(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_body_is_valid(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_slot_count(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern BodyId fxs_world_body_at(WorldHandle w, uint slot);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_body_count(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern BodyType fxs_body_get_type(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Shape fxs_body_get_shape(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern FixVec3 fxs_body_get_position(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern FixQuat fxs_body_get_rotation(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern FixVec3 fxs_body_get_linear_velocity(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern FixVec3 fxs_body_get_angular_velocity(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern long fxs_body_get_mass(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_body_get_user_data(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_user_data(WorldHandle w, BodyId id, uint v);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_transform(WorldHandle w, BodyId id, FixVec3 p, FixQuat q);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_linear_velocity(WorldHandle w, BodyId id, FixVec3 v);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_angular_velocity(WorldHandle w, BodyId id, FixVec3 v);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_apply_force(WorldHandle w, BodyId id, FixVec3 f, FixVec3 p);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_apply_force_to_center(WorldHandle w, BodyId id, FixVec3 f);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_apply_torque(WorldHandle w, BodyId id, FixVec3 t);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_apply_linear_impulse(WorldHandle w, BodyId id, FixVec3 i, FixVec3 p);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_apply_angular_impulse(WorldHandle w, BodyId id, FixVec3 i);
        [DllImport(Lib, CallingConvention = C)] public static extern FixAabb fxs_body_get_aabb(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_awake(WorldHandle w, BodyId id, [MarshalAs(UnmanagedType.U1)] bool awake);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_body_is_awake(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_type(WorldHandle w, BodyId id, BodyType t);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_friction(WorldHandle w, BodyId id, Fix v);
        [DllImport(Lib, CallingConvention = C)] public static extern Fix fxs_body_get_friction(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_restitution(WorldHandle w, BodyId id, Fix v);
        [DllImport(Lib, CallingConvention = C)] public static extern Fix fxs_body_get_restitution(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_rolling_resistance(WorldHandle w, BodyId id, Fix v);
        [DllImport(Lib, CallingConvention = C)] public static extern Fix fxs_body_get_rolling_resistance(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_gravity_scale(WorldHandle w, BodyId id, Fix v);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_filter(WorldHandle w, BodyId id, Filter f);
        [DllImport(Lib, CallingConvention = C)] public static extern Filter fxs_body_get_filter(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Fix fxs_body_get_gravity_scale(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_density(WorldHandle w, BodyId id, Fix v);
        [DllImport(Lib, CallingConvention = C)] public static extern Fix fxs_body_get_density(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_mass_data(WorldHandle w, BodyId id, long mass, long[] inertia);
        [DllImport(Lib, CallingConvention = C)] public static extern void fxs_body_get_inertia(WorldHandle w, BodyId id, [Out] long[] inertia);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_damping(WorldHandle w, BodyId id, Fix linear, Fix angular);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_set_motion_locks(WorldHandle w, BodyId id, MotionLocks l);
        [DllImport(Lib, CallingConvention = C)] public static extern MotionLocks fxs_body_get_motion_locks(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_disable(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_enable(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_body_is_enabled(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_body_is_sensor(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_enable_contact_events(WorldHandle w, BodyId id, [MarshalAs(UnmanagedType.U1)] bool on);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_enable_hit_events(WorldHandle w, BodyId id, [MarshalAs(UnmanagedType.U1)] bool on);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_body_enable_sensor_events(WorldHandle w, BodyId id, [MarshalAs(UnmanagedType.U1)] bool on);
        [DllImport(Lib, CallingConvention = C)] public static extern FixVec3 fxs_body_get_point_velocity(WorldHandle w, BodyId id, FixVec3 p);
        [DllImport(Lib, CallingConvention = C)] public static extern ulong fxs_body_hash(WorldHandle w, BodyId id);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_body_get_contacts(WorldHandle w, BodyId id, [Out] ContactData[] buf, uint cap);

        // ---- meshes, hulls ----
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_create_mesh(WorldHandle w, FixVec3[] verts, uint nverts, uint[] tris, uint ntris, Fix thickness);
        [DllImport(Lib, CallingConvention = C)] public static extern Shape fxs_mesh_shape(WorldHandle w, uint id);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_create_hull(WorldHandle w, FixVec3[] pts, uint n, out FixVec3 com);
        [DllImport(Lib, CallingConvention = C)] public static extern Shape fxs_hull_shape(WorldHandle w, uint id);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_create_heightfield(WorldHandle w, Fix[] heights, uint nx, uint nz, Fix cell, Fix thickness);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_create_compound(WorldHandle w, CompoundChild[] children, uint n, out FixVec3 com);
        [DllImport(Lib, CallingConvention = C)] public static extern Shape fxs_compound_shape(WorldHandle w, uint id);

        // ---- characters ----
        [DllImport(Lib, CallingConvention = C)] public static extern CharacterDef fxs_default_character_def();
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_character_create(WorldHandle w, ref CharacterDef def);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_character_destroy(WorldHandle w, uint id);
        [DllImport(Lib, CallingConvention = C)] public static extern void fxs_character_set_move(WorldHandle w, uint id, FixVec3 velocity, [MarshalAs(UnmanagedType.U1)] bool jump);
        [DllImport(Lib, CallingConvention = C)] public static extern BodyId fxs_character_get_body(WorldHandle w, uint id);
        [DllImport(Lib, CallingConvention = C)] public static extern FixVec3 fxs_character_get_position(WorldHandle w, uint id);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_character_is_grounded(WorldHandle w, uint id);
        [DllImport(Lib, CallingConvention = C)] public static extern BodyId fxs_character_get_ground(WorldHandle w, uint id);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_character_count(WorldHandle w);

        // ---- joints ----
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_ball_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_hinge_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_fixed_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_distance_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_prismatic_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_spherical_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_filter_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_wheel_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointDef fxs_default_motor_joint_def();
        [DllImport(Lib, CallingConvention = C)] public static extern JointId fxs_joint_create(WorldHandle w, ref JointDef def);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_joint_destroy(WorldHandle w, JointId id);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_joint_count(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern FixVec3 fxs_joint_get_anchor_a(WorldHandle w, JointId id);
        [DllImport(Lib, CallingConvention = C)] public static extern FixVec3 fxs_joint_get_anchor_b(WorldHandle w, JointId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Fix fxs_joint_get_position(WorldHandle w, JointId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Fix fxs_joint_get_swing_angle(WorldHandle w, JointId id);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_joint_set_steering(WorldHandle w, JointId id, Fix angle);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_joint_set_motor_target(WorldHandle w, JointId id, FixVec3 linearOffset, FixQuat angularOffset);
        [DllImport(Lib, CallingConvention = C)] public static extern void fxs_joint_set_motor(WorldHandle w, JointId id, [MarshalAs(UnmanagedType.U1)] bool enable, Fix speed, Fix maxForce);

        // ---- queries ----
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_world_ray_cast_filtered(WorldHandle w, FixVec3 p0, FixVec3 p1, ref QueryFilter f, BodyId skip, out CastHit hit);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_world_shape_cast_filtered(WorldHandle w, ref Shape s, FixQuat q, FixVec3 p0, FixVec3 p1, ref QueryFilter f, BodyId skip, out CastHit hit);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_overlap_aabb(WorldHandle w, FixAabb box, ref QueryFilter f, [Out] BodyId[] buf, uint cap);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_world_overlap_shape(WorldHandle w, ref Shape s, ref FixTransform xf, ref QueryFilter f, [Out] BodyId[] buf, uint cap);

        // ---- events ----
        [DllImport(Lib, CallingConvention = C)] public static extern NativeContactEvents fxs_world_get_contact_events(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern NativeSensorEvents fxs_world_get_sensor_events(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern uint fxs_sensor_get_overlaps(WorldHandle w, BodyId sensor, [Out] BodyId[] buf, uint cap);

        // ---- snapshots ----
        [DllImport(Lib, CallingConvention = C)] public static extern UIntPtr fxs_world_snapshot_size(WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_snapshot_save(WorldHandle w, [Out] byte[] buf, UIntPtr cap, out UIntPtr written);
        [DllImport(Lib, CallingConvention = C)] public static extern Result fxs_world_snapshot_restore(WorldHandle w, byte[] buf, UIntPtr len);
        [DllImport(Lib, CallingConvention = C)] public static extern WorldHandle fxs_world_create_from_snapshot(byte[] buf, UIntPtr len, out Result err);

        // ---- debug draw ----
        [DllImport(Lib, CallingConvention = C)] public static extern NativeDebugDraw fxs_default_debug_draw();
        [DllImport(Lib, CallingConvention = C)] public static extern void fxs_world_draw(WorldHandle w, ref NativeDebugDraw d);

        // ---- replays ----
        [DllImport(Lib, CallingConvention = C)] public static extern IntPtr fxs_replay_status_string(ReplayStatus s);
        [DllImport(Lib, CallingConvention = C)] public static extern ReplayStatus fxs_replay_writer_open(IntPtr rw, [MarshalAs(UnmanagedType.LPStr)] string path, [MarshalAs(UnmanagedType.LPStr)] string name, WorldHandle w, uint players, uint inputSize, uint chunkTicks, uint flags);
        [DllImport(Lib, CallingConvention = C)] public static extern ReplayStatus fxs_replay_writer_open_calls(IntPtr rw, [MarshalAs(UnmanagedType.LPStr)] string path, [MarshalAs(UnmanagedType.LPStr)] string name, WorldHandle w, uint chunkTicks, uint flags);
        [DllImport(Lib, CallingConvention = C)] public static extern ReplayStatus fxs_replay_writer_tick(IntPtr rw, byte[] inputs, WorldHandle w);
        [DllImport(Lib, CallingConvention = C)] public static extern ReplayStatus fxs_replay_writer_close(IntPtr rw);
        [DllImport(Lib, CallingConvention = C)] public static extern void fxs_replay_writer_abandon(IntPtr rw);
        [DllImport(Lib, CallingConvention = C)] public static extern ReplayStatus fxs_replay_verify([MarshalAs(UnmanagedType.LPStr)] string path, ref NativeReplayExpect expect, IntPtr apply, IntPtr ctx, out NativeVerifyResult result);
        [DllImport(Lib, CallingConvention = C)] public static extern ReplayStatus fxs_replay_verify_memory(byte[] buf, UIntPtr len, ref NativeReplayExpect expect, IntPtr apply, IntPtr ctx, out NativeVerifyResult result);
        [DllImport(Lib, CallingConvention = C)] [return: MarshalAs(UnmanagedType.U1)] public static extern bool fxs_snapshot_first_difference(byte[] expected, UIntPtr expectedLen, byte[] got, UIntPtr gotLen, out NativeStateDiff d);

        public static string Str(IntPtr p) { return p == IntPtr.Zero ? null : Marshal.PtrToStringAnsi(p); }
    }
}
