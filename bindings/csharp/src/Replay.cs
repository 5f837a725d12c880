// Replays (fixstep/replay.h): record a game's run (its own input bytes, or
// every API call between steps) and verify one from a start the verifier
// trusts, with the game's input handler as a C# callback.
using System;
using System.IO;
using System.Runtime.InteropServices;

namespace Fixstep
{
    public enum ReplayStatus { Ok = 0, Truncated, BadMagic, Version, Checksum, Corrupt, IO, NoMemory, BadStart, Diverged, Refused, NoHandler }

    [Flags]
    public enum ReplayFlags : uint { None = 0, Detail = 1 }

    /// <summary>A replay error: its status and the library's message.</summary>
    public class ReplayException : Exception
    {
        public readonly ReplayStatus Status;
        public ReplayException(ReplayStatus status, string message) : base(message) { Status = status; }
    }

    /// <summary>A game's deterministic input handler: apply one tick's inputs (players x the
    /// replay's input size bytes, untrusted: every byte pattern must be handled) to the world before
    /// the step of number tick. Throw to stop the re-simulation. The world is valid during the call
    /// only (a replay's verifier owns it).</summary>
    public delegate void ApplyInputs(World world, ulong tick, byte[] inputs, int players);

    /// <summary>What a replay's start must be: a replay proves a run only from a start the verifier
    /// knows (the file's own snapshot is untrusted like the rest).</summary>
    public sealed class ReplayStart
    {
        internal byte[] Snapshot;
        internal bool HasHash;
        internal ulong StartHash;
        /* what the verifier accepts (fxs_replay_expect): 0 = inputs of 12-byte records */
        internal uint Modes, InputSize, Players;
        internal string[] AllowedCalls;
        ReplayStart() { }
        ReplayStart Copy() { return (ReplayStart)MemberwiseClone(); }
        /// <summary>This start, for a game whose inputs are inputSize bytes a player (1..256) and,
        /// unless 0, players players: a replay of another size, player count or kind is refused
        /// (ReplayStatus.Refused) before the handler runs.</summary>
        public ReplayStart Inputs(int inputSize, int players = 0)
        {
            if (inputSize < 0 || players < 0) throw new ArgumentOutOfRangeException(inputSize < 0 ? "inputSize" : "players");
            var s = Copy(); s.Modes = 1; s.InputSize = (uint)inputSize; s.Players = (uint)players; return s;
        }
        /// <summary>This start, for API-call replays only, and only the calls named
        /// ("fxs_body_apply_force", ...; "*": every call). A calls replay re-runs recorded calls, a
        /// snapshot restore among them, so it verifies only for a verifier that asks for it.</summary>
        public ReplayStart Calls(params string[] allowed)
        {
            var s = Copy(); s.Modes = 2; s.AllowedCalls = allowed ?? new string[0]; return s;
        }
        /// <summary>Exactly this snapshot's state (a game server's start).</summary>
        public static ReplayStart FromSnapshot(byte[] snapshot)
        {
            if (snapshot == null) throw new ArgumentNullException("snapshot");
            var s = new ReplayStart(); s.Snapshot = snapshot; return s;
        }
        /// <summary>A start whose state hash is this.</summary>
        public static ReplayStart FromHash(ulong hash) { var s = new ReplayStart(); s.HasHash = true; s.StartHash = hash; return s; }
        /// <summary>An empty world (a CALLS replay recorded from a world built after it opened).</summary>
        public static readonly ReplayStart EmptyWorld = new ReplayStart();
    }

    /// <summary>The outcome of Replay.Verify.</summary>
    public sealed class VerifyResult
    {
        public ReplayStatus Status;  /* Ok: every tick matched and the file is complete */
        public ulong Ticks;          /* ticks re-simulated and matched */
        public ulong Tick;           /* Diverged: the tick number where the hash differs */
        public ulong ExpectedHash, GotHash;
        public ulong FinalHash;      /* the world's hash after the last matched tick */
        public string Message;       /* why, when Status is not Ok */
        public bool Ok { get { return Status == ReplayStatus.Ok; } }
    }

    [StructLayout(LayoutKind.Sequential)]
    struct NativeReplayExpect
    {
        public IntPtr snapshot;
        public UIntPtr snapshotLen;
        public byte hasHash;
        public ulong hash;
        public uint modes, inputSize, players;
        public IntPtr allowedCalls;
        public uint allowedCallCount;
    }

    [StructLayout(LayoutKind.Sequential, CharSet = CharSet.Ansi)]
    struct NativeVerifyResult
    {
        public ReplayStatus status;
        public ulong ticks, tick, expectedHash, gotHash, finalHash;
        [MarshalAs(UnmanagedType.ByValTStr, SizeConst = 320)] public string message;
    }

    [StructLayout(LayoutKind.Sequential, CharSet = CharSet.Ansi)]
    struct NativeStateDiff
    {
        [MarshalAs(UnmanagedType.U1)] public bool differ;
        public long body;
        [MarshalAs(UnmanagedType.ByValTStr, SizeConst = 48)] public string field;
        [MarshalAs(UnmanagedType.ByValTStr, SizeConst = 64)] public string expected;
        [MarshalAs(UnmanagedType.ByValTStr, SizeConst = 64)] public string got;
    }

    /// <summary>fxs_replay_writer's layout: the binding allocates it and reads its error.</summary>
    [StructLayout(LayoutKind.Sequential, CharSet = CharSet.Ansi)]
    struct NativeReplayWriter
    {
        public IntPtr f;
        public uint players, inputSize, mode, chunkTicks, flags;
        public IntPtr callsWorld;
        public ulong headerChecksum, startTick, nextTick;
        public uint chunkIndex, ticksInChunk;
        public ulong chunkFirstTick, lastHash;
        public IntPtr payload;
        public UIntPtr payloadLen, payloadCap;
        public IntPtr prev, cur;
        public UIntPtr prevLen, prevCap, curCap;
        [MarshalAs(UnmanagedType.U1)] public bool failed;
        [MarshalAs(UnmanagedType.ByValTStr, SizeConst = 200)] public string error;
    }

    /// <summary>The first difference between two states, as the library names it.</summary>
    public sealed class StateDifference
    {
        public long Body;     /* slot, or -1 outside the bodies */
        public string Field, Expected, Got;
        public override string ToString() { return (Body >= 0 ? "body " + Body + " " : "") + Field + " (expected " + Expected + ", got " + Got + ")"; }
    }

    /// <summary>Records a replay to a file: Open (the game's inputs) or OpenCalls (every mutating API
    /// call), Tick after each step, Close. Dispose without Close leaves the file as a crash would.</summary>
    public sealed class ReplayWriter : IDisposable
    {
        IntPtr rw;
        readonly int tickBytes; /* players x input size; 0 in CALLS mode */
        static readonly int Size = Marshal.SizeOf(typeof(NativeReplayWriter));
        static readonly int ErrorOffset = (int)Marshal.OffsetOf(typeof(NativeReplayWriter), "error");

        ReplayWriter(int tickBytes)
        {
            this.tickBytes = tickBytes;
            rw = Marshal.AllocHGlobal(Size);
            for (int i = 0; i < Size; ++i) Marshal.WriteByte(rw, i, 0);
        }

        string Error() { return Marshal.PtrToStringAnsi(new IntPtr(rw.ToInt64() + ErrorOffset)); }

        void Check(ReplayStatus s, string what)
        {
            if (s == ReplayStatus.Ok) return;
            string m = Error();
            throw new ReplayException(s, what + ": " + (string.IsNullOrEmpty(m) ? Replay.StatusString(s) : m));
        }

        /// <summary>A replay of world from now: players 1..64, inputSize 1..256 bytes per player per
        /// tick; name a built-in scene's or the game's tag ([A-Za-z0-9_.-], up to 63).</summary>
        public static ReplayWriter Open(string path, string name, World world, int players, int inputSize,
                                        ReplayFlags flags = ReplayFlags.None, int chunkTicks = 0)
        {
            if (players < 1 || players > 64 || inputSize < 1 || inputSize > 256)
                throw new ArgumentOutOfRangeException("players", "players 1..64 and inputSize 1..256");
            var w = new ReplayWriter(players * inputSize);
            try { w.Check(Native.fxs_replay_writer_open(w.rw, path, name ?? "", world.Handle, (uint)players, (uint)inputSize, (uint)chunkTicks, (uint)flags), "replay open"); }
            catch { Marshal.FreeHGlobal(w.rw); w.rw = IntPtr.Zero; throw; }
            return w;
        }

        /// <summary>CALLS mode: every mutating API call on world from now is recorded; call
        /// Tick(null, world) after each step, and Close before disposing the world.</summary>
        public static ReplayWriter OpenCalls(string path, string name, World world, ReplayFlags flags = ReplayFlags.None, int chunkTicks = 0)
        {
            var w = new ReplayWriter(0);
            try { w.Check(Native.fxs_replay_writer_open_calls(w.rw, path, name ?? "", world.Handle, (uint)chunkTicks, (uint)flags), "replay open"); }
            catch { Marshal.FreeHGlobal(w.rw); w.rw = IntPtr.Zero; throw; }
            return w;
        }

        /// <summary>One tick: the inputs applied before the step (players x inputSize bytes; null in
        /// CALLS mode) and the world after it.</summary>
        public void Tick(byte[] inputs, World world)
        {
            if (rw == IntPtr.Zero) throw new ObjectDisposedException("ReplayWriter");
            int n = inputs == null ? 0 : inputs.Length;
            if (n != tickBytes) throw new ArgumentException("a tick's inputs are " + tickBytes + " bytes, not " + n, "inputs");
            Check(Native.fxs_replay_writer_tick(rw, inputs, world.Handle), "replay tick");
        }

        /// <summary>The last chunk and the end record written, the file closed.</summary>
        public void Close()
        {
            if (rw == IntPtr.Zero) return;
            ReplayStatus s = Native.fxs_replay_writer_close(rw);
            string m = s == ReplayStatus.Ok ? null : Error();
            Marshal.FreeHGlobal(rw);
            rw = IntPtr.Zero;
            if (s != ReplayStatus.Ok) throw new ReplayException(s, "replay close: " + m);
        }

        public void Dispose()
        {
            if (rw == IntPtr.Zero) return;
            Native.fxs_replay_writer_abandon(rw);
            Marshal.FreeHGlobal(rw);
            rw = IntPtr.Zero;
        }
    }

    public static class Replay
    {
        public static string StatusString(ReplayStatus s) { return Native.Str(Native.fxs_replay_status_string(s)); }

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
        delegate Result ApplyFn(IntPtr world, ulong tick, IntPtr inputs, uint players, IntPtr ctx);

        sealed class Context
        {
            public ApplyInputs Apply;
            public int InputSize;
            public Exception Failure;
            public World Borrowed; /* the verifier's world, wrapped once */
        }

        [MonoPInvokeCallback(typeof(ApplyFn))]
        static Result OnApply(IntPtr world, ulong tick, IntPtr inputs, uint players, IntPtr ctx)
        {
            var c = (Context)GCHandle.FromIntPtr(ctx).Target;
            try
            {
                var bytes = new byte[(long)players * c.InputSize];
                if (bytes.Length > 0) Marshal.Copy(inputs, bytes, 0, bytes.Length);
                if (c.Borrowed == null || c.Borrowed.NativePointer != world) c.Borrowed = World.Borrow(world);
                c.Apply(c.Borrowed, tick, bytes, (int)players);
                return Result.Ok;
            }
            catch (Exception e)
            {
                c.Failure = e; /* must not unwind through the library */
                return Result.InvalidArgument;
            }
        }
        static readonly ApplyFn applyFn = OnApply;

        /// <summary>The replay's input size (bytes per player per tick), from its header.</summary>
        static int InputSize(byte[] head)
        {
            return head.Length >= 36 ? BitConverter.ToInt32(head, 32) : 0; /* little-endian in the file */
        }

        static VerifyResult Run(string path, byte[] bytes, int inputSize, ReplayStart start, ApplyInputs apply)
        {
            if (start == null) throw new ArgumentNullException("start");
            if (!BitConverter.IsLittleEndian) inputSize = (int)(((uint)inputSize >> 24) | (((uint)inputSize >> 8) & 0xff00) | (((uint)inputSize << 8) & 0xff0000) | ((uint)inputSize << 24));
            var c = new Context { Apply = apply, InputSize = inputSize };
            GCHandle ch = GCHandle.Alloc(c);
            GCHandle sh = default(GCHandle);
            IntPtr[] names = new IntPtr[start.AllowedCalls == null ? 0 : start.AllowedCalls.Length];
            IntPtr list = IntPtr.Zero;
            try
            {
                var e = new NativeReplayExpect();
                e.modes = start.Modes;
                e.inputSize = start.InputSize;
                e.players = start.Players;
                if (names.Length > 0)
                {
                    for (int k = 0; k < names.Length; ++k) names[k] = Marshal.StringToHGlobalAnsi(start.AllowedCalls[k]);
                    list = Marshal.AllocHGlobal(IntPtr.Size * names.Length);
                    Marshal.Copy(names, 0, list, names.Length);
                    e.allowedCalls = list;
                    e.allowedCallCount = (uint)names.Length;
                }
                if (start.Snapshot != null)
                {
                    sh = GCHandle.Alloc(start.Snapshot, GCHandleType.Pinned);
                    e.snapshot = sh.AddrOfPinnedObject();
                    e.snapshotLen = (UIntPtr)start.Snapshot.Length;
                }
                e.hasHash = Bool.B(start.HasHash);
                e.hash = start.StartHash;
                IntPtr fn = apply == null ? IntPtr.Zero : Marshal.GetFunctionPointerForDelegate(applyFn);
                NativeVerifyResult r;
                if (path != null) Native.fxs_replay_verify(path, ref e, fn, GCHandle.ToIntPtr(ch), out r);
                else Native.fxs_replay_verify_memory(bytes, (UIntPtr)bytes.Length, ref e, fn, GCHandle.ToIntPtr(ch), out r);
                var v = new VerifyResult
                {
                    Status = r.status, Ticks = r.ticks, Tick = r.tick, ExpectedHash = r.expectedHash, GotHash = r.gotHash,
                    FinalHash = r.finalHash, Message = r.message
                };
                if (c.Failure != null) v.Message = "the input handler threw at tick " + (v.Ticks + 1) + ": " + c.Failure.Message + " (" + v.Message + ")";
                return v;
            }
            finally
            {
                ch.Free();
                if (sh.IsAllocated) sh.Free();
                foreach (var p in names) if (p != IntPtr.Zero) Marshal.FreeHGlobal(p);
                if (list != IntPtr.Zero) Marshal.FreeHGlobal(list);
                /* the verifier's world is gone: a handler that kept it gets ObjectDisposedException, not a crash */
                if (c.Borrowed != null) c.Borrowed.Handle.SetHandleAsInvalid();
            }
        }

        /// <summary>Re-simulate the replay at path from start with the game's handler (INPUTS mode;
        /// null for CALLS) and check every tick's hash. In bounded memory (the file is streamed).</summary>
        public static VerifyResult Verify(string path, ReplayStart start, ApplyInputs apply)
        {
            var head = new byte[36];
            int got = 0;
            try
            {
                using (var f = File.OpenRead(path))
                    for (int n; got < head.Length && (n = f.Read(head, got, head.Length - got)) > 0;) got += n;
            }
            catch (IOException) { /* the library says why */ }
            catch (UnauthorizedAccessException) { }
            if (got < head.Length) Array.Resize(ref head, got);
            return Run(path, null, InputSize(head), start, apply);
        }

        /// <summary>The same from the replay's bytes.</summary>
        public static VerifyResult Verify(byte[] replay, ReplayStart start, ApplyInputs apply)
        {
            if (replay == null) throw new ArgumentNullException("replay");
            return Run(null, replay, InputSize(replay), start, apply);
        }

        /// <summary>The first difference between two snapshots (body and field), or null when they
        /// do not differ or either cannot be read.</summary>
        public static StateDifference FirstDifference(byte[] expected, byte[] got)
        {
            NativeStateDiff d;
            if (!Native.fxs_snapshot_first_difference(expected, (UIntPtr)expected.Length, got, (UIntPtr)got.Length, out d)) return null;
            return new StateDifference { Body = d.body, Field = d.field, Expected = d.expected, Got = d.got };
        }
    }
}
