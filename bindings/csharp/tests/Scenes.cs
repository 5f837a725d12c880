// The built-in scenes through libfixstep_scenes.so (native/fixstep_scenes.c,
// test-only): their worlds, handlers, scripts and golden start hashes.
using System;
using System.Runtime.InteropServices;
using Fixstep;

static class Scenes
{
    const string Lib = "fixstep_scenes";
    [DllImport(Lib)] static extern int fxcs_scene_count();
    [DllImport(Lib)] static extern IntPtr fxcs_scene_name(int i);
    [DllImport(Lib)] static extern uint fxcs_scene_default_steps(int i);
    [DllImport(Lib)] static extern uint fxcs_scene_players(int i);
    [DllImport(Lib)] static extern IntPtr fxcs_scene_create(int i);
    [DllImport(Lib)] static extern int fxcs_scene_start_hash(int i, out ulong hash);
    [DllImport(Lib)] static extern int fxcs_scene_apply(int i, IntPtr w, byte[] inputs, uint players, ulong tick);
    [DllImport(Lib)] static extern int fxcs_scene_script(int i, IntPtr w, ulong tick, uint players, [Out] byte[] outInputs);
    [DllImport(Lib)] static extern void fxcs_arena_score(IntPtr w, [Out] uint[] score);
    [DllImport(Lib)] static extern UIntPtr fxcs_layouts([Out] byte[] buf, UIntPtr cap);

    public const int InputSize = 12;
    public static int Count { get { return fxcs_scene_count(); } }
    public static string Name(int i) { return Marshal.PtrToStringAnsi(fxcs_scene_name(i)); }
    public static int Find(string name) { for (int i = 0; i < Count; ++i) if (Name(i) == name) return i; return -1; }
    public static int DefaultSteps(int i) { return (int)fxcs_scene_default_steps(i); }
    public static int Players(int i) { return (int)fxcs_scene_players(i); }
    public static World Create(int i) { return World.FromNative(fxcs_scene_create(i)); }
    public static ulong StartHash(int i) { ulong h; if (fxcs_scene_start_hash(i, out h) == 0) throw new Exception("no start hash"); return h; }
    /// <summary>The scene's handler as a C# ApplyInputs (what a C# game's own handler would be).</summary>
    public static ApplyInputs Handler(int i)
    {
        return (world, tick, inputs, players) =>
        {
            if (fxcs_scene_apply(i, world.NativePointer, inputs, (uint)players, tick) == 0) throw new Exception("bad players " + players);
        };
    }
    public static void Apply(int i, World w, byte[] inputs, int players, ulong tick) { fxcs_scene_apply(i, w.NativePointer, inputs, (uint)players, tick); }
    public static bool Script(int i, World w, ulong tick, int players, byte[] outInputs) { return fxcs_scene_script(i, w.NativePointer, tick, (uint)players, outInputs) != 0; }
    public static uint[] ArenaScore(World w) { var s = new uint[4]; fxcs_arena_score(w.NativePointer, s); return s; }
    public static string Layouts()
    {
        int n = (int)fxcs_layouts(null, UIntPtr.Zero);
        var b = new byte[n + 1];
        fxcs_layouts(b, (UIntPtr)b.Length);
        return System.Text.Encoding.ASCII.GetString(b, 0, n);
    }
}
