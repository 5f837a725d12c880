// Characters (fixstep/character.h): kinematic capsule controllers the world
// moves at the start of every step: walking, sliding along walls, climbing
// steps and slopes, falling, jumping, riding and pushing bodies.
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    [Serializable, StructLayout(LayoutKind.Sequential)]
    public struct CharacterDef
    {
        public FixVec3 Position;  /* the capsule's centre */
        public Fix Radius;        /* default 0.3 m */
        public Fix HalfHeight;    /* of the segment; default 0.6 m */
        public Fix StepHeight;    /* default 0.35 m */
        public Fix MaxSlopeCos;   /* cos of the steepest walkable slope; default cos 45 deg */
        public Fix JumpSpeed;     /* m/s, default 5 */
        public Fix Density;       /* of the capsule body; default 1000 */
        public static CharacterDef Default { get { return Native.fxs_default_character_def(); } }
    }

    /// <summary>A character of a world (its id: index + 1, 0 is none).</summary>
    public readonly struct Character : IEquatable<Character>
    {
        public readonly World World;
        public readonly uint Id;
        internal Character(World w, uint id) { World = w; Id = id; }
        WorldHandle H { get { return World.Handle; } }

        public bool IsValid { get { return World != null && !Native.fxs_character_get_body(H, Id).IsNull; } }
        public bool Destroy() { return Native.fxs_character_destroy(H, Id); }
        /// <summary>The move for the next step: a horizontal velocity (m/s; y ignored, each component
        /// clamped to +-100) and a jump (taken on the ground). FixstepException (InvalidId) for a
        /// destroyed character.</summary>
        public void SetMove(FixVec3 velocity, bool jump)
        {
            if (!IsValid) throw new FixstepException(Result.InvalidId, "character " + Id + ": not a character of this world");
            Native.fxs_character_set_move(H, Id, velocity, jump);
        }
        /// <summary>Its capsule: a kinematic body the world owns.</summary>
        public Body Body { get { return new Body(World, Native.fxs_character_get_body(H, Id)); } }
        public FixVec3 Position { get { return Native.fxs_character_get_position(H, Id); } }
        public bool IsGrounded { get { return Native.fxs_character_is_grounded(H, Id); } }
        /// <summary>The body it stands on (BodyId.Null in the air).</summary>
        public BodyId Ground { get { return Native.fxs_character_get_ground(H, Id); } }

        public bool Equals(Character o) { return ReferenceEquals(World, o.World) && Id == o.Id; }
        public override bool Equals(object o) { return o is Character && Equals((Character)o); }
        public override int GetHashCode() { return (int)Id; }
        public override string ToString() { return "character " + Id; }
    }

    public sealed partial class World
    {
        /// <summary>FixstepException naming the field (or the limit of 64) on a bad definition.</summary>
        public Character CreateCharacter(CharacterDef def)
        {
            uint id = Native.fxs_character_create(Handle, ref def);
            if (id == 0) throw LastError("character create");
            return new Character(this, id);
        }
        public int CharacterCount { get { return (int)Native.fxs_world_character_count(Handle); } }
    }
}
