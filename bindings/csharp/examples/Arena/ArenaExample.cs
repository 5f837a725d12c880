// The arena from C#, written as a Unity component is: Start builds the
// world, FixedUpdate runs one lockstep tick (the players' inputs, the rules,
// the step), OnDrawGizmos draws the world through the debug draw's
// callbacks. Here a small Main plays Unity's part: 600 fixed ticks, a frame
// drawn every 100, then the state hash, which is the corpus's
// (replays/corpus/MANIFEST: every build of fixstep computes it).
//
// The arena's rules and scripted players are C (tools/scenes/arena.c, plain C
// on the public API), loaded from libfixstep_scenes.so as examples/arena_cpp
// compiles them; a game of its own writes its rules in C# on World and Body.
// In Unity: Fixstep's sources in Assets/, libfixstep.so (or fixstep.dll)
// in Assets/Plugins, this class deriving from MonoBehaviour, and the
// drawing through Gizmos.DrawWireCube / DrawWireSphere.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using Fixstep;

/// <summary>The arena's rules from libfixstep_scenes.so (test-only native library of the scenes).</summary>
static class ArenaRules
{
    const string Lib = "fixstep_scenes";
    [DllImport(Lib)] static extern int fxcs_scene_count();
    [DllImport(Lib)] static extern IntPtr fxcs_scene_name(int i);
    [DllImport(Lib)] static extern IntPtr fxcs_scene_create(int i);
    [DllImport(Lib)] static extern int fxcs_scene_apply(int i, IntPtr w, byte[] inputs, uint players, ulong tick);
    [DllImport(Lib)] static extern int fxcs_scene_script(int i, IntPtr w, ulong tick, uint players, [Out] byte[] inputs);
    [DllImport(Lib)] static extern void fxcs_arena_score(IntPtr w, [Out] uint[] score);

    public const int Players = 4, InputSize = 12;
    static int index = -1;
    static int Index
    {
        get
        {
            if (index < 0)
                for (int i = 0; i < fxcs_scene_count(); ++i)
                    if (Marshal.PtrToStringAnsi(fxcs_scene_name(i)) == "arena") index = i;
            return index;
        }
    }
    public static World Create() { return World.FromNative(fxcs_scene_create(Index)); }
    public static void Script(World w, ulong tick, byte[] inputs) { fxcs_scene_script(Index, w.NativePointer, tick, Players, inputs); }
    public static void Apply(World w, byte[] inputs, ulong tick) { fxcs_scene_apply(Index, w.NativePointer, inputs, Players, tick); }
    public static uint[] Score(World w) { var s = new uint[4]; fxcs_arena_score(w.NativePointer, s); return s; }
}

/// <summary>What a renderer gets: here, counts by kind and colour (Unity: Gizmos calls).</summary>
sealed class GizmoDraw : DebugDraw
{
    public int Boxes, Spheres, Capsules, Triangles;
    public readonly SortedDictionary<uint, int> ByColor = new SortedDictionary<uint, int>();
    void Count(uint color) { int n; ByColor.TryGetValue(color, out n); ByColor[color] = n + 1; }
    public override void Box(FixTransform xf, FixVec3 halfExtents, uint color) { ++Boxes; Count(color); }
    public override void Sphere(FixVec3 center, Fix radius, uint color) { ++Spheres; Count(color); }
    public override void Capsule(FixVec3 p1, FixVec3 p2, Fix radius, uint color) { ++Capsules; Count(color); }
    public override void Triangle(FixVec3 a, FixVec3 b, FixVec3 c, uint color) { ++Triangles; }
}

sealed class ArenaBehaviour : IDisposable
{
    World world;
    ulong tick;
    readonly byte[] inputs = new byte[ArenaRules.Players * ArenaRules.InputSize];

    public void Start() { world = ArenaRules.Create(); }

    /// <summary>One lockstep tick: every machine runs the same inputs through the same rules.</summary>
    public void FixedUpdate()
    {
        ++tick;
        ArenaRules.Script(world, tick, inputs); /* a real game: the players' inputs from the network */
        ArenaRules.Apply(world, inputs, tick);
        world.Step();
    }

    public void OnDrawGizmos()
    {
        var d = new GizmoDraw();
        world.Draw(d);
        var colors = new List<string>();
        foreach (var kv in d.ByColor) colors.Add(kv.Key.ToString("x6") + " x" + kv.Value);
        Console.WriteLine("tick " + tick + ": " + d.Boxes + " boxes, " + d.Spheres + " spheres, " + d.Capsules + " capsules, " +
                          d.Triangles + " triangles; colours " + string.Join(", ", colors.ToArray()));
    }

    public string Summary()
    {
        uint[] s = ArenaRules.Score(world);
        return "score: team 0 " + s[0] + " hits, " + s[2] + " capture points; team 1 " + s[1] + " hits, " + s[3] + " capture points\n" +
               "hash " + world.HashHex;
    }

    public void Dispose() { if (world != null) world.Dispose(); }

    static int Main()
    {
        using (var arena = new ArenaBehaviour())
        {
            arena.Start();
            for (int i = 1; i <= 600; ++i)
            {
                arena.FixedUpdate();
                if (i % 100 == 0) arena.OnDrawGizmos();
            }
            Console.WriteLine(arena.Summary());
        }
        return 0;
    }
}
