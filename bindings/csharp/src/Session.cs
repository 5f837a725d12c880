// Sessions (fixstep/session.h): lockstep and rollback on a World, the
// transport the game's own. The session makes packets (Packets(peer)) and
// takes the ones that arrive (Receive); the game moves them however it
// likes: UDP, a relay, Steam, Unity Transport, or a queue in a test. The
// game's rules are the same ApplyInputs a replay takes; its local inputs
// come through a SessionInput callback.
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;

namespace Fixstep
{
    public enum SessionMode { Lockstep = 0, Rollback = 1 }

    /// <summary>Why a packet was dropped (fxs_drop); None: accepted.</summary>
    public enum SessionDrop
    {
        None = 0, Truncated, Oversized, Magic, Version, Type, Count, Mac, Session, Peer, Spoofed, NotOwner, Replayed, Range, Conflict, Window, Ahead
    }

    /// <summary>This peer's local input for a tick: fill output (the session's input size, zeros
    /// beforehand) for local player `player`.</summary>
    public delegate void SessionInput(ulong tick, int player, byte[] output);

    /// <summary>A session's settings (fxs_session_config).</summary>
    public sealed class SessionConfig
    {
        public int Peers = 2;             /* 1..64, spectators included */
        public int Local;                 /* this peer's id */
        public byte[] PlayersPerPeer;     /* players each peer owns (0: a spectator); null: one each */
        public int InputSize = 12;        /* bytes per player per tick, 1..124 */
        public uint SessionId = 1;
        public SessionMode Mode = SessionMode.Lockstep;
        public int Ticks = 600;           /* the session ends after this tick */
        public int InputDelay;            /* 0..60 */
        public int MaxRollback = 8;       /* rollback: 1..15 */
        /// <summary>32 random bytes the lobby gives every peer (all zero is refused).</summary>
        public byte[] Key;
        public int AbsentMs;
        public bool Join;
        /// <summary>ms of silence after which a peer is reported interrupted (0: the default)</summary>
        public int InterruptMs;
    }

    [StructLayout(LayoutKind.Sequential)]
    struct NativeSessionCallbacks
    {
        public IntPtr ctx, stateSize, save, load, advance, checksum;
        public int format;
    }

    [StructLayout(LayoutKind.Sequential)]
    struct NativeSessionWorld
    {
        public IntPtr world, applyInputs, ctx;
        public Result failed;
        public ulong failedTick;
    }

    [StructLayout(LayoutKind.Sequential)]
    struct NativeSessionConfig
    {
        public uint peers, local;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 64)] public byte[] players;
        public uint inputSize, sessionId;
        public SessionMode mode;
        public uint ticks, inputDelay, maxRollback;
        public NativeSessionCallbacks game;
        public IntPtr input, inputCtx, desyncDir;
        [MarshalAs(UnmanagedType.ByValArray, SizeConst = 32)] public byte[] key;
        public IntPtr pairKeys;
        public uint seqWindow, absentMs;
        [MarshalAs(UnmanagedType.U1)] public bool join;
        public uint interruptMs;
    }

    public sealed class Session : IDisposable
    {
        const string Lib = "fixstep";
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern NativeSessionCallbacks fxs_session_world_callbacks(IntPtr gw);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern IntPtr fxs_session_create(ref NativeSessionConfig c, byte[] err, UIntPtr errlen);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern void fxs_session_destroy(IntPtr s);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern SessionDrop fxs_session_receive(IntPtr s, byte[] buf, UIntPtr len, int src);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern uint fxs_session_advance(IntPtr s, uint maxTicks);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern UIntPtr fxs_session_packet(IntPtr s, uint to, byte[] buf, UIntPtr cap);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern UIntPtr fxs_session_packet_more(IntPtr s, uint to, byte[] buf, UIntPtr cap);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern void fxs_session_set_time(IntPtr s, ulong ms);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern ulong fxs_session_tick(IntPtr s);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern ulong fxs_session_confirmed(IntPtr s);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] [return: MarshalAs(UnmanagedType.U1)] static extern bool fxs_session_complete(IntPtr s);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern ulong fxs_session_hash(IntPtr s, ulong t);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern IntPtr fxs_session_desync_line(IntPtr s);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern IntPtr fxs_session_stats_get(IntPtr s);
        [DllImport(Lib, CallingConvention = CallingConvention.Cdecl)] static extern uint fxs_session_players(IntPtr s);

        const int PacketMax = 1200;
        IntPtr s, gw;
        readonly World world;
        readonly int inputSize;
        readonly ApplyInputs apply;
        readonly SessionInput input;
        GCHandle self;
        Exception failure;
        readonly byte[] buf = new byte[PacketMax];
        bool worldRef;

        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate Result ApplyFn(IntPtr w, ulong tick, IntPtr inputs, uint players, IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void InputFn(IntPtr ctx, ulong tick, uint player, IntPtr output);

        static Session Of(IntPtr ctx) { return (Session)GCHandle.FromIntPtr(ctx).Target; }

        [MonoPInvokeCallback(typeof(ApplyFn))]
        static Result OnApply(IntPtr w, ulong tick, IntPtr inputs, uint players, IntPtr ctx)
        {
            Session x = Of(ctx);
            if (x.failure != null) return Result.InvalidArgument;
            try
            {
                var bytes = new byte[(long)players * x.inputSize];
                if (bytes.Length > 0) Marshal.Copy(inputs, bytes, 0, bytes.Length);
                x.apply(x.world, tick, bytes, (int)players);
                return Result.Ok;
            }
            catch (Exception e)
            {
                x.failure = e; /* rethrown by Advance: never through the library */
                var f = e as FixstepException;
                return f != null && f.Result != Result.Ok ? f.Result : Result.InvalidArgument; /* the session stops */
            }
        }

        [MonoPInvokeCallback(typeof(InputFn))]
        static void OnInput(IntPtr ctx, ulong tick, uint player, IntPtr output)
        {
            Session x = Of(ctx);
            if (x.failure != null || x.input == null) return;
            try
            {
                var bytes = new byte[x.inputSize];
                x.input(tick, (int)player, bytes);
                Marshal.Copy(bytes, 0, output, bytes.Length);
            }
            catch (Exception e) { x.failure = e; }
        }
        static readonly ApplyFn applyFn = OnApply;
        static readonly InputFn inputFn = OnInput;

        /// <summary>A session on world: its rules `apply` (the same as a replay's), its local inputs
        /// from `input`. The world must outlive the session. FixstepException with the library's
        /// reason on a bad configuration.</summary>
        public Session(SessionConfig config, World world, ApplyInputs apply, SessionInput input)
        {
            if (config == null) throw new ArgumentNullException("config");
            if (world == null) throw new ArgumentNullException("world");
            if (apply == null) throw new ArgumentNullException("apply");
            this.world = world;
            this.apply = apply;
            this.input = input;
            inputSize = config.InputSize == 0 ? 12 : config.InputSize;
            self = GCHandle.Alloc(this);
            world.Handle.DangerousAddRef(ref worldRef); /* the session holds the world's pointer */
            try
            {
                gw = Marshal.AllocHGlobal(Marshal.SizeOf(typeof(NativeSessionWorld)));
                var g = new NativeSessionWorld
                {
                    world = world.NativePointer, applyInputs = Marshal.GetFunctionPointerForDelegate(applyFn), ctx = GCHandle.ToIntPtr(self)
                };
                Marshal.StructureToPtr(g, gw, false);
                var c = new NativeSessionConfig
                {
                    peers = (uint)config.Peers, local = (uint)config.Local, players = new byte[64], inputSize = (uint)config.InputSize,
                    sessionId = config.SessionId, mode = config.Mode, ticks = (uint)config.Ticks, inputDelay = (uint)config.InputDelay,
                    maxRollback = (uint)config.MaxRollback, game = fxs_session_world_callbacks(gw),
                    input = Marshal.GetFunctionPointerForDelegate(inputFn), inputCtx = GCHandle.ToIntPtr(self), key = new byte[32],
                    absentMs = (uint)config.AbsentMs, join = config.Join, interruptMs = (uint)config.InterruptMs
                };
                if (config.PlayersPerPeer != null) Array.Copy(config.PlayersPerPeer, c.players, Math.Min(64, config.PlayersPerPeer.Length));
                else for (int k = 0; k < 64; ++k) c.players[k] = 1;
                if (config.Key == null || config.Key.Length != 32) throw new FixstepException(Result.InvalidArgument, "session: the key must be 32 bytes");
                Array.Copy(config.Key, c.key, 32);
                var err = new byte[256];
                s = fxs_session_create(ref c, err, (UIntPtr)err.Length);
                if (s == IntPtr.Zero)
                {
                    int n = Array.IndexOf(err, (byte)0);
                    throw new FixstepException(Result.InvalidArgument, "session: " + System.Text.Encoding.ASCII.GetString(err, 0, n < 0 ? err.Length : n));
                }
            }
            catch
            {
                Release();
                throw;
            }
        }

        IntPtr S { get { if (s == IntPtr.Zero) throw new ObjectDisposedException("Session"); return s; } }

        void Rethrow()
        {
            if (failure == null) return;
            Exception e = failure;
            var f = e as FixstepException;
            throw new FixstepException(f != null ? f.Result : Result.InvalidArgument, "session: a callback threw: " + e.Message, e);
        }

        /// <summary>A datagram from peer `fromPeer` (-1: an unknown address). Untrusted: a bad one is
        /// dropped, and the reason returned.</summary>
        public SessionDrop Receive(byte[] packet, int fromPeer)
        {
            if (packet == null) throw new ArgumentNullException("packet");
            return fxs_session_receive(S, packet, (UIntPtr)packet.Length, fromPeer);
        }

        /// <summary>Rollbacks, confirmations, checksums, and at most maxTicks new ticks: the ticks
        /// simulated. Rethrows what a callback threw (the session stops there).</summary>
        public int Advance(int maxTicks = 1)
        {
            Rethrow();
            int n = (int)fxs_session_advance(S, (uint)maxTicks);
            Rethrow();
            return n;
        }

        /// <summary>What to send peer `to` now: the session's packet and its others (desync
        /// exchange, joins). Send each as one datagram.</summary>
        public List<byte[]> Packets(int to)
        {
            var list = new List<byte[]>();
            int n = (int)fxs_session_packet(S, (uint)to, buf, (UIntPtr)buf.Length);
            if (n > 0) { var p = new byte[n]; Array.Copy(buf, p, n); list.Add(p); }
            while ((n = (int)fxs_session_packet_more(S, (uint)to, buf, (UIntPtr)buf.Length)) > 0)
            {
                var p = new byte[n]; Array.Copy(buf, p, n); list.Add(p);
            }
            return list;
        }

        /// <summary>The game's clock (ms, never decreasing).</summary>
        public void SetTime(ulong ms) { fxs_session_set_time(S, ms); }
        public ulong Tick { get { return fxs_session_tick(S); } }
        public ulong Confirmed { get { return fxs_session_confirmed(S); } }
        public int Players { get { return (int)fxs_session_players(S); } }
        /// <summary>Every tick confirmed and every checksum compared.</summary>
        public bool Complete { get { return fxs_session_complete(S); } }
        /// <summary>The state checksum of tick t (0 when not kept).</summary>
        public ulong HashAt(ulong t) { return fxs_session_hash(S, t); }
        /// <summary>"desync at tick T: body B field F (peer P: X, peer Q: Y)", or "" while none.</summary>
        public string Desync { get { return Native.Str(fxs_session_desync_line(S)) ?? ""; } }
        /// <summary>Ticks rolled back and simulated again (rollback mode).</summary>
        public ulong Rollbacks { get { return (ulong)Marshal.ReadInt64(fxs_session_stats_get(S), 8); } }

        void Release()
        {
            if (s != IntPtr.Zero) { fxs_session_destroy(s); s = IntPtr.Zero; }
            if (gw != IntPtr.Zero) { Marshal.FreeHGlobal(gw); gw = IntPtr.Zero; }
            if (worldRef) { world.Handle.DangerousRelease(); worldRef = false; }
            if (self.IsAllocated) self.Free();
        }

        public void Dispose() { Release(); }
    }
}
