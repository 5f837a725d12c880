// The C# binding's tests (make test-csharp, part of make test when Mono is
// installed): a self-checking program that prints "N passed, N failed".
// Every built-in scene and every corpus replay through C# against the native
// results; the struct layouts against the C compiler's; the fixed-point
// type; bodies, joints, queries, events, debug draw, snapshots; replays
// recorded and verified from C# with a C# input handler; bad input.
// Arguments: the repository's root and the native fixstep program.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using Fixstep;

static class Tests
{
    static int passed, failed;
    static string root, prog;

    static void Check(bool ok, string what)
    {
        if (ok) ++passed;
        else { ++failed; Console.WriteLine("FAILED: " + what); }
    }
    static void Equal<T>(T want, T got, string what)
    {
        Check(EqualityComparer<T>.Default.Equals(want, got), what + ": expected " + want + ", got " + got);
    }
    static void Throws<E>(Action a, string what, string messagePart = null) where E : Exception
    {
        try { a(); Check(false, what + ": no exception"); }
        catch (E e) { Check(messagePart == null || e.Message.Contains(messagePart), what + ": message '" + e.Message + "' lacks '" + messagePart + "'"); }
        catch (Exception e) { Check(false, what + ": " + e.GetType().Name + " " + e.Message); }
    }

    static string Native(params string[] args)
    {
        var p = new ProcessStartInfo(prog, string.Join(" ", args)) { RedirectStandardOutput = true, UseShellExecute = false };
        using (var proc = Process.Start(p))
        {
            string o = proc.StandardOutput.ReadToEnd();
            proc.WaitForExit();
            return o;
        }
    }
    static string LastHash(string output)
    {
        var line = output.Split('\n').Last(l => l.StartsWith("hash "));
        return line.Substring(5).Trim();
    }

    static void Run(string name, Action t)
    {
        var sw = Stopwatch.StartNew();
        int before = failed;
        try { t(); }
        catch (Exception e) { ++failed; Console.WriteLine("FAILED: " + name + ": " + e); }
        Console.WriteLine((failed == before ? "ok   " : "FAIL ") + name + " (" + sw.ElapsedMilliseconds + " ms)");
    }

    // ---- the layouts ----
    static readonly Dictionary<string, string> TypeOf = new Dictionary<string, string>
    {
        { "fxs_shape", "Shape" }, { "fxs_transform", "FixTransform" }, { "fxs_world_def", "WorldDef" }, { "fxs_body_def", "BodyDef" },
        { "fxs_filter", "Filter" }, { "fxs_motion_locks", "MotionLocks" }, { "fxs_step_stats", "StepStats" }, { "fxs_joint_def", "JointDef" },
        { "fxs_cast_hit", "CastHit" }, { "fxs_query_filter", "QueryFilter" }, { "fxs_contact_begin_event", "ContactBeginEvent" },
        { "fxs_contact_end_event", "ContactEndEvent" }, { "fxs_contact_hit_event", "ContactHitEvent" }, { "fxs_sensor_event", "SensorEvent" },
        { "fxs_contact_events", "NativeContactEvents" }, { "fxs_sensor_events", "NativeSensorEvents" }, { "fxs_contact_data", "ContactData" },
        { "fxs_debug_draw", "NativeDebugDraw" }, { "fxs_replay_expect", "NativeReplayExpect" }, { "fxs_replay_verify_result", "NativeVerifyResult" },
        { "fxs_replay_writer", "NativeReplayWriter" }, { "fxs_state_diff", "NativeStateDiff" },
        { "fxs_session_config", "NativeSessionConfig" }, { "fxs_session_callbacks", "NativeSessionCallbacks" }, { "fxs_session_world", "NativeSessionWorld" },
        { "fxs_compound_child", "CompoundChild" }, { "fxs_character_def", "CharacterDef" },
    };
    static readonly Dictionary<string, string> FieldOf = new Dictionary<string, string>
    {
        { "mesh_id", "id" }, { "mesh", "derived" }, { "points", "Point0" }, { "normal_impulses", "NormalImpulse0" },
    };
    static string FindField(Type t, string c)
    {
        string mapped;
        if (FieldOf.TryGetValue(c, out mapped)) return mapped;
        var parts = c.Split('_');
        string camel = parts[0] + string.Concat(parts.Skip(1).Select(p => char.ToUpper(p[0]) + p.Substring(1)));
        string pascal = char.ToUpper(camel[0]) + camel.Substring(1);
        var flags = System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.NonPublic;
        if (t.GetField(pascal, flags) != null) return pascal;
        if (t.GetField(camel, flags) != null) return camel;
        return null;
    }
    static void Layouts()
    {
        var asm = typeof(World).Assembly;
        int lines = 0;
        foreach (var line in Scenes.Layouts().Split(new[] { '\n' }, StringSplitOptions.RemoveEmptyEntries))
        {
            var kv = line.Split(' ');
            long want = long.Parse(kv[1]);
            var name = kv[0].Split('.');
            Type t = asm.GetType("Fixstep." + TypeOf[name[0]]);
            if (t == null) { Check(false, "no C# type for " + name[0]); continue; }
            if (name.Length == 1) Equal(want, (long)Marshal.SizeOf(t), "sizeof(" + name[0] + ") in C#");
            else
            {
                string f = FindField(t, name[1]);
                if (f == null) { Check(false, t.Name + " has no field for " + kv[0]); continue; }
                Equal(want, (long)Marshal.OffsetOf(t, f), "offsetof(" + kv[0] + ") in C#");
            }
            ++lines;
        }
        Check(lines > 60, "the layout report has " + lines + " lines");
    }

    // ---- fixed point ----
    static void FixedPoint()
    {
        Equal(98304, ((Fix)1.5).Raw, "(Fix)1.5");
        Equal(-98304, ((Fix)(-1.5)).Raw, "(Fix)-1.5");
        Equal(1, ((Fix)(0.5 / 65536)).Raw, "half a raw unit rounds away from zero");
        Equal(-1, ((Fix)(-0.5 / 65536)).Raw, "minus half a raw unit rounds away from zero");
        Equal(2, ((Fix)(1.5 / 65536)).Raw, "one and a half raw units");
        Equal(1, ((Fix)(1.49 / 65536)).Raw, "1.49 raw units");
        Equal(200 * 65536, ((Fix)200).Raw, "(Fix)200 is 200 units");
        Equal(200, Fix.FromRaw(200).Raw, "FromRaw(200) is 200 raw");
        Throws<OverflowException>(() => { Fix f = (Fix)40000; f += Fix.Zero; }, "(Fix)40000");
        Throws<OverflowException>(() => { Fix f = (Fix)32768.0; f += Fix.Zero; }, "(Fix)32768.0");
        Equal((Fix)3, (Fix)1.5 * (Fix)2, "1.5 * 2");
        Equal(Fix.FromRaw(1), Fix.FromRaw(1) * (Fix)0.5, "1 raw * 0.5 rounds half away from zero");
        Equal(Fix.FromRaw(-1), Fix.FromRaw(-1) * (Fix)0.5, "-1 raw * 0.5");
        Equal(Fix.MaxValue, (Fix)30000 + (Fix)30000, "addition saturates");
        Equal(Fix.MinValue, -(Fix)30000 * 2 - (Fix)30000, "subtraction saturates");
        Equal(Fix.FromRaw(21845), (Fix)1 / (Fix)3, "1/3");
        Equal(Fix.FromRaw(43691), (Fix)2 / (Fix)3, "2/3 rounds up");
        Equal(Fix.MaxValue, (Fix)1 / Fix.Zero, "1/0 saturates");
        Equal(1.5, (double)(Fix)1.5, "(double)");
        Equal("1.5", ((Fix)1.5).ToString(), "ToString");
    }

    // ---- the README's program, from C# ----
    static void ReadmeProgram()
    {
        using (var world = World.Create())
        {
            var ground = BodyDef.Default;
            ground.Type = BodyType.Static;
            // as the C program does: the default shape (a sphere of radius 0.5) made a box, its
            // radius kept (a shape's every field is state: hashed)
            Shape box = Shape.Box(new FixVec3((Fix)20, (Fix)1, (Fix)20));
            box.Radius = ground.Shape.Radius;
            ground.Shape = box;
            ground.Position = new FixVec3(Fix.Zero, (Fix)(-1), Fix.Zero);
            world.CreateBody(ground);
            var ball = BodyDef.Default;
            ball.Position = new FixVec3(Fix.Zero, (Fix)10, Fix.Zero);
            Body b = world.CreateBody(ball);
            world.Step(120);
            Equal(32768, b.Position.Y.Raw, "the ball's y after 120 steps");
            Equal("64479cdc2697d572", world.HashHex, "the README's hash");
            var snap = world.SaveSnapshot();
            world.Step(30);
            ulong h150 = world.Hash;
            world.RestoreSnapshot(snap);
            Equal(120UL, world.StepCount, "restored step count");
            world.Step(30);
            Equal(h150, world.Hash, "a restored world steps on to the same hash");
            using (var copy = World.FromSnapshot(snap))
            {
                copy.Step(30);
                Equal(h150, copy.Hash, "a world from the snapshot steps on to the same hash");
            }
            Check(Math.Abs((double)b.Mass - 523.6) < 0.1, "a 0.5 m ball of 1000 kg/m^3 weighs 523.6 kg: " + b.Mass);
        }
    }

    // ---- every scene: golden start and the native hash ----
    static int StepsFor(int i)
    {
        string n = Scenes.Name(i);
        if (n == "large_pyramid" || n == "many_pyramids" || n == "falling_spheres" || n == "joint_grid") return 10;
        return Math.Min(Scenes.DefaultSteps(i), 120);
    }
    static void EveryScene()
    {
        Check(Scenes.Count >= 20, "scenes: " + Scenes.Count);
        for (int i = 0; i < Scenes.Count; ++i)
        {
            string name = Scenes.Name(i);
            using (World w = Scenes.Create(i))
            {
                Equal(Scenes.StartHash(i), w.Hash, name + ": the golden start hash");
                int n = StepsFor(i);
                w.Step(n);
                Equal(LastHash(Native("run", name, "--steps", n.ToString())), w.HashHex, name + ": the hash after " + n + " steps, against native fixstep run");
            }
        }
    }

    // ---- every corpus replay, verified through C# ----
    static void Corpus()
    {
        string dir = Path.Combine(root, "replays/corpus");
        int verified = 0;
        foreach (var line in File.ReadAllLines(Path.Combine(dir, "MANIFEST")))
        {
            if (line.StartsWith("#") || line.Trim() == "") continue;
            var f = line.Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
            string scene = f[0], file = Path.Combine(dir, f[1]), final = f[4];
            ulong ticks = ulong.Parse(f[2]);
            VerifyResult r;
            if (f[3] == "0")
            {
                Equal(ReplayStatus.Refused, Replay.Verify(file, ReplayStart.EmptyWorld, null).Status, f[1] + ": a calls replay for a verifier that did not ask for one");
                r = Replay.Verify(file, ReplayStart.EmptyWorld.Calls("*"), null);
            }
            else
            {
                int i = Scenes.Find(scene);
                r = Replay.Verify(file, ReplayStart.FromHash(Scenes.StartHash(i)), Scenes.Handler(i));
            }
            Check(r.Ok, f[1] + ": " + r.Status + " " + r.Message);
            Equal(ticks, r.Ticks, f[1] + ": ticks");
            Equal(final, r.FinalHash.ToString("x16"), f[1] + ": the final hash against the MANIFEST");
            ++verified;
        }
        Check(verified >= 22, "corpus replays verified: " + verified);
        // from the bytes, and a start snapshot instead of a hash
        int drop = Scenes.Find("drop");
        byte[] bytes = File.ReadAllBytes(Path.Combine(dir, "drop.fxr"));
        byte[] start;
        using (var w = Scenes.Create(drop)) start = w.SaveSnapshot();
        var m = Replay.Verify(bytes, ReplayStart.FromSnapshot(start), Scenes.Handler(drop));
        Check(m.Ok, "drop.fxr from its bytes and a start snapshot: " + m.Message);
        // a wrong start is refused
        var bad = Replay.Verify(bytes, ReplayStart.FromHash(12345), Scenes.Handler(drop));
        Equal(ReplayStatus.BadStart, bad.Status, "drop.fxr from a wrong start hash");
        // a tampered byte is caught, and a truncated file
        byte[] t = (byte[])bytes.Clone();
        t[t.Length / 2] ^= 1;
        Check(!Replay.Verify(t, ReplayStart.FromHash(Scenes.StartHash(drop)), Scenes.Handler(drop)).Ok, "a tampered drop.fxr is refused");
        var cut = Replay.Verify(bytes.Take(bytes.Length - 9).ToArray(), ReplayStart.FromHash(Scenes.StartHash(drop)), Scenes.Handler(drop));
        Equal(ReplayStatus.Truncated, cut.Status, "a truncated drop.fxr");
        Equal(ReplayStatus.BadMagic, Replay.Verify(new byte[100], ReplayStart.EmptyWorld, null).Status, "zeros are not a replay");
        Equal(ReplayStatus.IO, Replay.Verify(Path.Combine(dir, "no-such-file.fxr"), ReplayStart.EmptyWorld, null).Status, "a missing file");
    }

    // ---- a game of its own: 5-byte inputs, recorded and verified from C# ----
    static World NewGame()
    {
        var w = World.Create();
        var ground = BodyDef.Default;
        ground.Type = BodyType.Static;
        ground.Shape = Shape.Box(FixVec3.FromUnits(20, 1, 20));
        ground.Position = FixVec3.FromUnits(0, -1, 0);
        w.CreateBody(ground);
        for (int p = 0; p < 2; ++p)
        {
            var ball = BodyDef.Default;
            ball.Position = FixVec3.FromUnits(3 * p, 0.5, 0);
            w.CreateBody(ball);
        }
        return w;
    }
    // each player: x and z pushes (sbyte) as impulses in N s, and a jump flag; the rest of the 5 bytes unused
    static void GameInputs(World w, ulong tick, byte[] inputs, int players)
    {
        Body[] bodies = w.Bodies;
        for (int p = 0; p < players; ++p)
        {
            Body b = bodies[1 + p];
            Fix push = (Fix)10; /* N s per unit of stick: (sbyte)127 gives 1270 N s on a 523.6 kg ball */
            var impulse = new FixVec3(push * (sbyte)inputs[5 * p], (inputs[5 * p + 2] & 1) != 0 ? (Fix)2000 : Fix.Zero, push * (sbyte)inputs[5 * p + 1]);
            b.ApplyLinearImpulse(impulse, b.Position);
        }
    }
    static byte[] TickInputs(ulong tick)
    {
        var b = new byte[10];
        for (int i = 0; i < b.Length; ++i) b[i] = (byte)((tick * 37 + (ulong)i * 11) % 7 == 0 ? 0 : (tick * 13 + (ulong)i) % 256);
        return b;
    }
    static void OwnGame()
    {
        string dir = Path.Combine(Path.GetTempPath(), "fixstep-cs-" + Process.GetCurrentProcess().Id);
        Directory.CreateDirectory(dir);
        try
        {
            string path = Path.Combine(dir, "game.fxr");
            ulong start, final;
            byte[] startSnap;
            using (var w = NewGame())
            {
                start = w.Hash;
                startSnap = w.SaveSnapshot();
                using (var rec = ReplayWriter.Open(path, "csharp_game", w, 2, 5, ReplayFlags.Detail))
                {
                    Throws<ArgumentException>(() => rec.Tick(new byte[12], w), "a tick of the wrong size");
                    for (ulong t = 1; t <= 90; ++t)
                    {
                        byte[] inp = TickInputs(t);
                        GameInputs(w, t, inp, 2);
                        w.Step();
                        rec.Tick(inp, w);
                    }
                    rec.Close();
                }
                final = w.Hash;
            }
            Equal(ReplayStatus.Refused, Replay.Verify(path, ReplayStart.FromHash(start), GameInputs).Status, "the game's replay for a verifier of 12-byte inputs");
            var r = Replay.Verify(path, ReplayStart.FromHash(start).Inputs(5, 2), GameInputs);
            Check(r.Ok, "the game's replay verifies: " + r.Message);
            Equal(90UL, r.Ticks, "the game's replay: ticks");
            Equal(final, r.FinalHash, "the game's replay: final hash");
            Check(Replay.Verify(path, ReplayStart.FromSnapshot(startSnap).Inputs(5, 2), GameInputs).Ok, "the game's replay from its start snapshot");
            // a handler that differs from tick 40 on: the verifier names that tick, and a body and field (DETAIL)
            ApplyInputs cheat = (w, tick, inputs, players) =>
            {
                if (tick == 40) inputs[0] = (byte)(inputs[0] + 1);
                GameInputs(w, tick, inputs, players);
            };
            var d = Replay.Verify(path, ReplayStart.FromHash(start).Inputs(5, 2), cheat);
            Equal(ReplayStatus.Diverged, d.Status, "a different handler diverges");
            Equal(40UL, d.Tick, "the divergent tick");
            Check(d.Message.Contains("body 1"), "the message names the body: " + d.Message);
            // the verifier's world, kept by a handler past the verification: disposed, not a dangling pointer
            World kept = null;
            Replay.Verify(path, ReplayStart.FromHash(start).Inputs(5, 2), (w, tick, inputs, players) => { kept = w; GameInputs(w, tick, inputs, players); });
            Throws<ObjectDisposedException>(() => { ulong x = kept.Hash; }, "a verifier's world used after the verification");
            // a handler that throws stops the verification and says so
            ApplyInputs thrower = (w, tick, inputs, players) => { if (tick == 7) throw new InvalidOperationException("no such move"); GameInputs(w, tick, inputs, players); };
            var e = Replay.Verify(path, ReplayStart.FromHash(start).Inputs(5, 2), thrower);
            Check(!e.Ok && e.Message.Contains("no such move") && e.Message.Contains("tick 7"), "a throwing handler: " + e.Status + " " + e.Message);
            // a tampered input byte: the replay no longer verifies
            byte[] bytes = File.ReadAllBytes(path);
            int at = bytes.Length - 200;
            bytes[at] ^= 0x40;
            Check(!Replay.Verify(bytes, ReplayStart.FromHash(start).Inputs(5, 2), GameInputs).Ok, "a tampered game replay is refused");

            // CALLS mode: every API call recorded, verified from an empty world
            string calls = Path.Combine(dir, "calls.fxr");
            ulong callsFinal;
            using (var w = World.Create())
            {
                using (var rec = ReplayWriter.OpenCalls(calls, "csharp_calls", w))
                {
                    Body ball = default(Body);
                    for (int t = 0; t < 60; ++t)
                    {
                        if (t == 0)
                        {
                            var g = BodyDef.Default; g.Type = BodyType.Static; g.Shape = Shape.Box(FixVec3.FromUnits(10, 1, 10)); g.Position = FixVec3.FromUnits(0, -1, 0);
                            w.CreateBody(g);
                            var bd = BodyDef.Default; bd.Position = FixVec3.FromUnits(0, 2, 0);
                            ball = w.CreateBody(bd);
                        }
                        if (t == 30) ball.LinearVelocity = FixVec3.FromUnits(1, 3, 0);
                        w.Step();
                        rec.Tick(null, w);
                    }
                    rec.Close();
                }
                callsFinal = w.Hash;
            }
            var c = Replay.Verify(calls, ReplayStart.EmptyWorld.Calls("*"), null);
            Check(c.Ok, "the calls replay verifies from an empty world: " + c.Message);
            Equal(callsFinal, c.FinalHash, "the calls replay's final hash");
            Throws<ReplayException>(() => ReplayWriter.Open(Path.Combine(dir, "no/such/dir.fxr"), "x", World.Create(), 1, 1), "a writer on a bad path");
            Throws<ReplayException>(() => { using (var w = World.Create()) ReplayWriter.Open(Path.Combine(dir, "bad.fxr"), "bad name!", w, 1, 1); }, "a writer with a bad name", "name");
        }
        finally { Directory.Delete(dir, true); }
    }

    // ---- bodies, joints, queries, events, bad input ----
    static void Features()
    {
        using (var w = World.Create())
        {
            var g = BodyDef.Default; g.Type = BodyType.Static; g.Shape = Shape.Box(FixVec3.FromUnits(10, 1, 10)); g.Position = FixVec3.FromUnits(0, -1, 0);
            Body ground = w.CreateBody(g);
            var bd = BodyDef.Default; bd.Position = FixVec3.FromUnits(0, 3, 0); bd.EnableContactEvents = true; bd.EnableHitEvents = true;
            Body ball = w.CreateBody(bd);
            var sd = BodyDef.Default; sd.Type = BodyType.Static; sd.IsSensor = true; sd.Shape = Shape.Box(FixVec3.FromUnits(1, 0.5, 1)); sd.Position = FixVec3.FromUnits(0, 0.6, 0); /* clear of the ground: a sensor sees static bodies too */
            Body sensor = w.CreateBody(sd);
            int begins = 0, hits = 0, sensorBegins = 0;
            for (int i = 0; i < 90; ++i)
            {
                w.Step();
                var ev = w.ContactEvents;
                begins += ev.Begin.Length; hits += ev.Hit.Length;
                foreach (var e in ev.Begin) Check(e.BodyA == ball.Id || e.BodyB == ball.Id, "a begin event names the ball");
                var se = w.SensorEvents;
                sensorBegins += se.Begin.Length;
                foreach (var e in se.Begin) { Equal(sensor.Id, e.Sensor, "sensor event: the sensor"); Equal(ball.Id, e.Visitor, "sensor event: the visitor"); }
            }
            Equal(1, begins, "the ball's contact began once");
            Check(hits >= 1, "the ball hit the ground: " + hits);
            Equal(1, sensorBegins, "the sensor saw the ball once");
            Equal(1, sensor.SensorOverlaps.Length, "the sensor's overlaps");
            Equal(1, ball.Contacts.Length, "the ball's contacts");
            CastHit hit;
            Check(w.RayCast(FixVec3.FromUnits(5, 10, 5), FixVec3.FromUnits(5, -10, 5), out hit), "a ray down hits");
            Equal(ground.Id, hit.Body, "the ray hits the ground");
            Check(Math.Abs(hit.Point.Y.Raw) <= 66, "on its top face, within the queries' 1 mm: " + hit.Point.Y.Raw);
            Check(!w.RayCast(FixVec3.FromUnits(50, 10, 50), FixVec3.FromUnits(50, -10, 50), out hit), "a ray beside misses");
            var over = w.OverlapAabb(new FixAabb(FixVec3.FromUnits(-0.1, 0.1, -0.1), FixVec3.FromUnits(0.1, 0.2, 0.1)));
            Check(over.Contains(ball.Id) && !over.Contains(sensor.Id), "the overlap finds the ball, not the sensor");
            Check(w.ShapeCast(Shape.Sphere((Fix)0.25), FixQuat.Identity, FixVec3.FromUnits(-5, 0.5, 0), FixVec3.FromUnits(5, 0.5, 0), QueryFilter.Default, BodyId.Null, out hit) && hit.Body == ball.Id, "a sphere cast hits the ball");

            // joints: a pendulum on a hinge
            var pd = BodyDef.Default; pd.Type = BodyType.Static; pd.Shape = Shape.Sphere((Fix)0.1); pd.Position = FixVec3.FromUnits(5, 5, 0);
            Body pivot = w.CreateBody(pd);
            var bob = BodyDef.Default; bob.Position = FixVec3.FromUnits(7, 5, 0); bob.Shape = Shape.Capsule((Fix)0.2, (Fix)0.3);
            Body b = w.CreateBody(bob);
            JointId j = w.CreateJoint(JointDef.Hinge(pivot.Id, b.Id, FixVec3.Zero, FixVec3.FromUnits(-2, 0, 0)));
            Equal(1, w.JointCount, "joints");
            w.Step(30);
            FixVec3 a = w.JointAnchorA(j), c = w.JointAnchorB(j);
            Check(Math.Abs((double)(a.X - c.X)) < 0.01 && Math.Abs((double)(a.Y - c.Y)) < 0.01, "the hinge holds its anchors together");
            Check(b.Position.Y < (Fix)5, "the bob swung down");
            Check(w.DestroyJoint(j) && w.JointCount == 0, "the joint is destroyed");
            // a spherical joint on its cone, a wheel's steering
            var spd = JointDef.Spherical(pivot.Id, b.Id, FixVec3.Zero, FixVec3.FromUnits(-2, 0, 0));
            spd.LocalAxisA = FixVec3.FromUnits(1, 0, 0); spd.EnableCone = true; spd.ConeAngle = (Fix)0.5;
            JointId sj = w.CreateJoint(spd);
            w.Step(120);
            Check(Math.Abs((double)w.JointSwingAngle(sj) - 0.5) < 0.035, "the spherical joint rests on its cone: " + (double)w.JointSwingAngle(sj));
            Throws<FixstepException>(() => w.SetJointSteering(sj, (Fix)0.1), "steering a joint that is not a wheel", "steering");
            Check(w.DestroyJoint(sj), "the spherical joint is destroyed");

            // a cylinder (along y, r 0.5, half height 1): read back, and a ray down onto its cap
            var cyd = BodyDef.Default; cyd.Type = BodyType.Static; cyd.Shape = Shape.Cylinder((Fix)0.5, (Fix)1); cyd.Position = FixVec3.FromUnits(-20, 5, 20);
            Body cyl = w.CreateBody(cyd);
            Equal(ShapeType.Cylinder, cyl.Shape.Type, "a cylinder shape");
            Equal((Fix)1, cyl.Shape.HalfHeight, "its half height");
            Check(w.RayCast(FixVec3.FromUnits(-20.2, 10, 20.3), FixVec3.FromUnits(-20.2, 0, 20.3), out hit) && hit.Body == cyl.Id &&
                  Math.Abs((double)hit.Distance - 4) < 0.001, "a ray meets the cylinder's cap 4 m down");

            // hull and mesh
            FixVec3 com;
            Shape hull = w.CreateHull(new[] { FixVec3.FromUnits(0, 0, 0), FixVec3.FromUnits(1, 0, 0), FixVec3.FromUnits(0, 1, 0), FixVec3.FromUnits(0, 0, 1) }, out com);
            Equal(ShapeType.Hull, hull.Type, "a hull shape");
            Equal((Fix)0.25, com.X, "the tetrahedron's centre of mass");
            var hd = BodyDef.Default; hd.Shape = hull; hd.Position = FixVec3.FromUnits(-5, 2, 0);
            Equal(ShapeType.Hull, w.CreateBody(hd).Shape.Type, "a hull body");
            Shape mesh = w.CreateMesh(new[] { FixVec3.FromUnits(0, 0, 0), FixVec3.FromUnits(1, 0, 0), FixVec3.FromUnits(0, 0, 1) }, new uint[] { 0, 2, 1 }, (Fix)0.1);
            Equal(ShapeType.Mesh, mesh.Type, "a mesh shape");

            // bad input and stale ids: errors that say why, never a crash
            var bad = BodyDef.Default; bad.Friction = (Fix)1000;
            Throws<FixstepException>(() => w.CreateBody(bad), "a bad body def", "friction");
            var badRoll = BodyDef.Default; badRoll.RollingResistance = (Fix)2;
            Throws<FixstepException>(() => w.CreateBody(badRoll), "a bad rolling resistance", "rolling_resistance");
            // the field sits where the C struct has it: the fields after it still land
            var roll = BodyDef.Default; roll.RollingResistance = (Fix)0.25; roll.LinearDamping = (Fix)0.5;
            roll.Position = FixVec3.FromUnits(9, 2, 0);
            Body rb = w.CreateBody(roll);
            Equal((Fix)0.25, rb.RollingResistance, "a body's rolling resistance from its def");
            rb.RollingResistance = (Fix)0.125;
            Equal((Fix)0.125, rb.RollingResistance, "its setter");
            var badWorld = WorldDef.Default; badWorld.Substeps = 0;
            Throws<FixstepException>(() => World.Create(badWorld), "a bad world def", "substeps");
            Check(b.Destroy(), "destroy a body");
            Check(!b.IsValid, "its id is stale");
            Throws<FixstepException>(() => b.LinearVelocity = FixVec3.Zero, "setting a stale body's velocity");
            Throws<FixstepException>(() => b.Friction = (Fix)1, "setting a stale body's friction");
            Equal(0UL, b.Hash, "a stale body's hash");
            Throws<FixstepException>(() => World.FromSnapshot(new byte[] { 1, 2, 3 }), "a garbage snapshot");
            byte[] snap = w.SaveSnapshot();
            ulong h = w.Hash;
            snap[snap.Length / 2] ^= 0xff;
            Throws<FixstepException>(() => w.RestoreSnapshot(snap), "a corrupt snapshot");
            Equal(h, w.Hash, "a refused restore changes nothing");
        }
        var dead = World.Create();
        dead.Dispose();
        Check(dead.IsDisposed, "disposed");
        Throws<ObjectDisposedException>(() => dead.Step(), "stepping a disposed world");
    }

    // ---- debug draw: the arena as the C++ example draws it ----
    sealed class Counter : DebugDraw
    {
        public int Boxes, Spheres, Capsules, Polygons, Triangles, Segments;
        public readonly Dictionary<uint, int> Colors = new Dictionary<uint, int>();
        void C(uint c) { int n; Colors.TryGetValue(c, out n); Colors[c] = n + 1; }
        public override void Box(FixTransform xf, FixVec3 h, uint c) { ++Boxes; C(c); }
        public override void Sphere(FixVec3 p, Fix r, uint c) { ++Spheres; C(c); }
        public override void Capsule(FixVec3 a, FixVec3 b, Fix r, uint c) { ++Capsules; C(c); }
        public override void Polygon(FixVec3[] v, uint c) { ++Polygons; if (v.Length < 3) throw new Exception("a polygon of " + v.Length); }
        public override void Triangle(FixVec3 a, FixVec3 b, FixVec3 p, uint c) { ++Triangles; }
        public override void Segment(FixVec3 a, FixVec3 b, uint c) { ++Segments; }
    }
    static void Draw()
    {
        int arena = Scenes.Find("arena");
        using (World w = Scenes.Create(arena))
        {
            var inputs = new byte[Scenes.Players(arena) * Scenes.InputSize];
            for (ulong t = 1; t <= 600; ++t)
            {
                Scenes.Script(arena, w, t, Scenes.Players(arena), inputs);
                Scenes.Apply(arena, w, inputs, Scenes.Players(arena), t);
                w.Step();
            }
            string want = File.ReadAllLines(Path.Combine(root, "replays/corpus/MANIFEST")).First(l => l.StartsWith("arena ")).Split(' ')[4];
            Equal(want, w.HashHex, "the arena after 600 scripted ticks from C#, against the corpus");
            var d = new Counter();
            w.Draw(d);
            int shapes = 0;
            foreach (var b in w.Bodies) if (b.Shape.Type == ShapeType.Box || b.Shape.Type == ShapeType.Sphere || b.Shape.Type == ShapeType.Capsule) ++shapes;
            Equal(shapes, d.Boxes + d.Spheres + d.Capsules, "one box, sphere or capsule drawn per such body");
            Check(d.Capsules == 4, "the four players drawn as capsules: " + d.Capsules);
            Check(d.Colors.ContainsKey(DebugColor.Static), "static bodies in their colour");
            var thrower = new ThrowingDraw();
            Throws<FixstepException>(() => w.Draw(thrower), "a draw callback that throws", "boom");
            Equal(1, thrower.Calls, "after a throw, no more callbacks");
        }
        int shapes2 = Scenes.Find("all_shapes");
        using (World w = Scenes.Create(shapes2))
        {
            var d = new Counter();
            w.Draw(d);
            Check(d.Polygons > 0 && d.Triangles > 0, "all_shapes draws hull faces (" + d.Polygons + ") and mesh triangles (" + d.Triangles + ")");
        }
    }
    sealed class ThrowingDraw : DebugDraw
    {
        public int Calls;
        public override void Box(FixTransform xf, FixVec3 h, uint c) { ++Calls; throw new Exception("boom"); }
        public override void Sphere(FixVec3 p, Fix r, uint c) { ++Calls; throw new Exception("boom"); }
        public override void Capsule(FixVec3 a, FixVec3 b, Fix r, uint c) { ++Calls; throw new Exception("boom"); }
    }

    // ---- sessions: two peers in one process, the transport a queue ----
    static void SessionGame(World w, ulong tick, byte[] inputs, int players)
    {
        Body[] bodies = w.Bodies;
        for (int p = 0; p < players; ++p)
            bodies[1 + p].ApplyLinearImpulse(new FixVec3((Fix)10 * (sbyte)inputs[3 * p], (inputs[3 * p + 2] & 1) != 0 ? (Fix)1500 : Fix.Zero, (Fix)10 * (sbyte)inputs[3 * p + 1]), bodies[1 + p].Position);
    }
    static void SessionInputOf(ulong tick, int player, byte[] o)
    {
        o[0] = (byte)((tick * 7 + (ulong)player * 3) % 41 - 20);
        o[1] = (byte)((tick * 5 + (ulong)player) % 37 - 18);
        o[2] = (byte)(tick % 45 == (ulong)(player * 9) ? 1 : 0);
    }
    static void Sessions()
    {
        var key = new byte[32];
        for (int i = 0; i < 32; ++i) key[i] = (byte)(i * 37 + 11);
        const int ticks = 120;
        ulong offline;
        using (var w = NewGame())
        {
            var inputs = new byte[6];
            for (ulong t = 1; t <= ticks; ++t)
            {
                var a = new byte[3]; var b = new byte[3];
                SessionInputOf(t, 0, a); SessionInputOf(t, 1, b);
                Array.Copy(a, 0, inputs, 0, 3); Array.Copy(b, 0, inputs, 3, 3);
                SessionGame(w, t, inputs, 2);
                w.Step();
            }
            offline = w.Hash;
        }
        foreach (SessionMode mode in new[] { SessionMode.Lockstep, SessionMode.Rollback })
        {
            var worlds = new[] { NewGame(), NewGame() };
            var sessions = new Session[2];
            try
            {
                for (int k = 0; k < 2; ++k)
                {
                    var c = new SessionConfig { Peers = 2, Local = k, InputSize = 3, Mode = mode, Ticks = ticks, Key = key, SessionId = 7 };
                    sessions[k] = new Session(c, worlds[k], SessionGame, (tick, player, o) => SessionInputOf(tick, player, o));
                }
                // the transport: each packet arrives one round later
                var inFlight = new List<KeyValuePair<int, byte[]>>();
                int rounds = 0, forged = 0;
                for (; rounds < 5000 && !(sessions[0].Complete && sessions[1].Complete); ++rounds)
                {
                    var arriving = inFlight;
                    inFlight = new List<KeyValuePair<int, byte[]>>();
                    foreach (var kv in arriving)
                    {
                        SessionDrop d = sessions[kv.Key].Receive(kv.Value, 1 - kv.Key);
                        Check(d == SessionDrop.None, mode + ": a packet dropped: " + d);
                    }
                    for (int k = 0; k < 2; ++k)
                    {
                        sessions[k].SetTime((ulong)rounds * 16);
                        sessions[k].Advance(1);
                        foreach (var p in sessions[k].Packets(1 - k))
                        {
                            inFlight.Add(new KeyValuePair<int, byte[]>(1 - k, p));
                            if (rounds == 10 && forged++ == 0)
                            {
                                var f = (byte[])p.Clone();
                                f[f.Length - 1] ^= 1;
                                Equal(SessionDrop.Mac, sessions[1 - k].Receive(f, k), mode + ": a forged packet");
                            }
                        }
                    }
                }
                Check(sessions[0].Complete && sessions[1].Complete, mode + ": both peers complete (" + rounds + " rounds)");
                Equal((ulong)ticks, sessions[0].Tick, mode + ": ticks");
                Equal(worlds[0].Hash, worlds[1].Hash, mode + ": both peers end on one hash");
                Equal(offline, worlds[0].Hash, mode + ": the hash of the same inputs played offline");
                Equal("", sessions[0].Desync, mode + ": no desync");
                if (mode == SessionMode.Rollback) Check(sessions[0].Rollbacks > 0, "rollback: the late inputs rolled the simulation back (" + sessions[0].Rollbacks + ")");
            }
            finally
            {
                foreach (var x in sessions) if (x != null) x.Dispose();
                foreach (var w in worlds) w.Dispose();
            }
        }
        // a bad configuration says why
        using (var w = NewGame())
            Throws<FixstepException>(() => new Session(new SessionConfig { Peers = 2, Local = 5, Key = key }, w, SessionGame, null), "a session whose local peer is not a peer", "local");
        using (var w = NewGame())
            Throws<FixstepException>(() => new Session(new SessionConfig { Key = new byte[32] }, w, SessionGame, null), "an all-zero key", "key");
    }

    // ---- characters, compounds, heightfields and the run-time setters ----
    static void MoreFeatures()
    {
        using (var w = World.Create())
        {
            var g = BodyDef.Default; g.Type = BodyType.Static; g.Shape = Shape.Box(FixVec3.FromUnits(20, 1, 20)); g.Position = FixVec3.FromUnits(0, -1, 0);
            Body ground = w.CreateBody(g);

            // a character stands on the ground and walks 2 m/s along x for one second
            var cd = CharacterDef.Default; cd.Position = FixVec3.FromUnits(-10, 1.5, 0);
            Character ch = w.CreateCharacter(cd);
            Equal(1, w.CharacterCount, "characters");
            Equal(BodyType.Kinematic, ch.Body.Type, "a character's body is kinematic");
            w.Step(60);
            Check(ch.IsGrounded && ch.Ground == ground.Id, "the character stands on the ground");
            Check(Math.Abs((double)ch.Position.Y - ((double)cd.Radius + (double)cd.HalfHeight)) < 0.02, "standing height: " + ch.Position.Y);
            double x0 = (double)ch.Position.X;
            for (int i = 0; i < 60; ++i) { ch.SetMove(FixVec3.FromUnits(2, 0, 0), false); w.Step(); }
            double walked = (double)ch.Position.X - x0;
            Check(Math.Abs(walked - 2 * 60 * (double)w.Def.Dt) < 0.02, "walked 2 m/s for 60 steps: " + walked);
            var bad = CharacterDef.Default; bad.Radius = (Fix)0.01;
            Throws<FixstepException>(() => w.CreateCharacter(bad), "a character of 1 cm radius", "radius");
            Check(ch.Destroy() && !ch.IsValid, "a destroyed character");
            Throws<FixstepException>(() => ch.SetMove(FixVec3.Zero, true), "moving a destroyed character");

            // a compound of two 1 m cubes side by side: 2000 kg at density 1000, centre between them
            FixVec3 com;
            var half = FixVec3.FromUnits(0.5, 0.5, 0.5);
            Shape comp = w.CreateCompound(new[] {
                new CompoundChild(Shape.Box(half), new FixTransform(FixVec3.FromUnits(0, 0, 0), FixQuat.Identity)),
                new CompoundChild(Shape.Box(half), new FixTransform(FixVec3.FromUnits(1, 0, 0), FixQuat.Identity)) }, out com);
            Equal(ShapeType.Compound, comp.Type, "a compound shape");
            Equal((Fix)0.5, com.X, "the compound's centre of mass");
            var kd = BodyDef.Default; kd.Shape = comp; kd.Position = FixVec3.FromUnits(5, 3, 5);
            Body k = w.CreateBody(kd);
            Check(Math.Abs((double)k.Mass - 2000) < 0.5, "the compound's mass: " + (double)k.Mass);
            Throws<FixstepException>(() => w.CreateCompound(new CompoundChild[0], out com), "an empty compound");

            // a heightfield of 5 x 5 points 1 m apart at height 2: a ray finds its surface, a ball lands on it
            var hs = new Fix[25];
            for (int i = 0; i < hs.Length; ++i) hs[i] = (Fix)2;
            Shape hf = w.CreateHeightfield(hs, 5, 5, (Fix)1, (Fix)0.5);
            Equal(ShapeType.Mesh, hf.Type, "a heightfield is a mesh");
            var hd = BodyDef.Default; hd.Type = BodyType.Static; hd.Shape = hf; hd.Position = FixVec3.FromUnits(-5, 0, -10);
            Body field = w.CreateBody(hd);
            CastHit hit;
            Check(w.RayCast(FixVec3.FromUnits(-3, 10, -8), FixVec3.FromUnits(-3, 0, -8), out hit) && hit.Body == field.Id, "a ray hits the heightfield");
            Check(Math.Abs((double)hit.Point.Y - 2) < 0.002, "at its height: " + hit.Point.Y);
            Throws<FixstepException>(() => w.CreateHeightfield(new Fix[1], 1, 1, (Fix)1, (Fix)0.5), "a heightfield of one point");

            // run-time setters: each in the hash, each refusing what is out of range with its reason
            var bd = BodyDef.Default; bd.Position = FixVec3.FromUnits(10, 5, 0);
            Body b = w.CreateBody(bd);
            double m = (double)b.Mass;
            b.Density = (Fix)2000;
            Check(Math.Abs((double)b.Mass - 2 * m) < 0.01 * m, "density 2000 doubles the mass");
            Equal((Fix)2000, b.Density, "density");
            b.SetMassData((FixWide)10.0, (FixWide)1.0, (FixWide)1.0, (FixWide)1.0);
            Equal((FixWide)10.0, b.Mass, "mass data");
            Equal((FixWide)1.0, b.Inertia[1], "inertia");
            b.GravityScale = Fix.Zero;
            ulong h = w.Hash;
            Throws<FixstepException>(() => b.GravityScale = (Fix)101, "a gravity scale of 101");
            Throws<FixstepException>(() => b.SetDamping((Fix)(-1), Fix.Zero), "negative damping");
            Throws<FixstepException>(() => ground.LinearVelocity = FixVec3.FromUnits(1, 0, 0), "a velocity for a static body", "invalid argument");
            Throws<FixstepException>(() => ground.ApplyForceToCenter(FixVec3.FromUnits(1, 0, 0)), "a force on a static body", "invalid argument");
            Throws<FixstepException>(() => ch.Body.ApplyLinearImpulse(FixVec3.Zero, FixVec3.Zero), "an impulse on a destroyed character's body");
            try { b.SetTransform(FixVec3.Zero, new FixQuat(Fix.Zero, Fix.Zero, Fix.Zero, Fix.Zero)); Check(false, "a zero rotation accepted"); }
            catch (FixstepException e) { Equal(Result.InvalidArgument, e.Result, "a zero rotation's reason"); }
            Equal(h, w.Hash, "refused changes change nothing");
            w.Step(30);
            Equal((Fix)5, b.Position.Y, "gravity scale 0: the body floats");
            b.GravityScale = (Fix)1;
            var locks = new MotionLocks(); locks.LinearY = true;
            b.MotionLocks = locks;
            Check(b.MotionLocks.LinearY, "motion locks");
            w.Step(30);
            Equal((Fix)5, b.Position.Y, "a locked y does not fall");
            b.MotionLocks = new MotionLocks();
            b.IsEnabled = false;
            w.Step(30);
            Check(!b.IsEnabled && b.Position.Y == (Fix)5, "a disabled body stays put");
            b.IsEnabled = true;
            w.Step(30);
            Check(b.Position.Y < (Fix)5, "enabled again, it falls");
            b.LinearVelocity = FixVec3.Zero;
            b.AngularVelocity = FixVec3.FromUnits(0, 2, 0);
            FixVec3 pv = b.PointVelocity(b.Position + FixVec3.FromUnits(1, 0, 0));
            Check(Math.Abs((double)pv.Z + 2) < 1e-4, "point velocity: w x r = (0, 0, -2): " + pv.Z);
            b.EnableContactEvents(true); b.EnableHitEvents(true); b.EnableSensorEvents(false);
            Check(!b.IsSensor, "not a sensor");
            h = w.Hash;
            w.SetContactTuning((Fix)20, (Fix)5, (Fix)2);
            w.SetRestitutionThreshold((Fix)2);
            w.SetHitEventThreshold((Fix)3);
            w.EnableSleeping(false);
            Check(w.Hash != h, "world settings are in the hash");
            Throws<FixstepException>(() => w.SetContactTuning((Fix)(-1), (Fix)5, (Fix)2), "a negative contact stiffness");
        }
    }

    // ---- a session whose rules fail: the session stops, Advance says why ----
    static void SessionFailure()
    {
        var key = new byte[32];
        for (int i = 0; i < 32; ++i) key[i] = (byte)(i * 11 + 5);
        using (var w = NewGame())
        using (var s = new Session(new SessionConfig { Peers = 1, InputSize = 3, Ticks = 60, Key = key }, w, (world, tick, inputs, players) =>
        {
            if (tick == 30) world.Bodies[0].ApplyForceToCenter(FixVec3.FromUnits(1, 0, 0)); /* the ground: static */
            SessionGame(world, tick, inputs, players);
        }, (tick, player, o) => SessionInputOf(tick, player, o)))
        {
            int rounds = 0;
            try
            {
                for (; rounds < 200; ++rounds) { s.SetTime((ulong)rounds * 16); s.Advance(1); }
                Check(false, "the session went on past its failing tick");
            }
            catch (FixstepException e)
            {
                Equal(Result.InvalidArgument, e.Result, "the failure's reason");
                Check(e.Message.Contains("force"), "the message names the call: " + e.Message);
            }
            ulong at = s.Tick;
            Check(at >= 29 && at <= 30, "stopped at tick 30: " + at);
            try { s.Advance(5); } catch (FixstepException) { }
            Equal(at, s.Tick, "and simulates nothing more");
        }
    }

    static int Main(string[] args)
    {
        if (args.Length < 2) { Console.WriteLine("usage: tests.exe ROOT FIXSTEP_PROGRAM"); return 2; }
        root = args[0]; prog = args[1];
        Console.WriteLine("fixstep " + World.Version + " from C# (" + (IntPtr.Size * 8) + "-bit)");
        Run("the struct layouts equal C's", Layouts);
        Run("Fix: conversions, rounding, saturation", FixedPoint);
        Run("the README's program", ReadmeProgram);
        Run("every scene: golden start hash and native hash", EveryScene);
        Run("every corpus replay verified through C#", Corpus);
        Run("a game's own replay recorded and verified from C#", OwnGame);
        Run("bodies, joints, queries, events, bad input", Features);
        Run("characters, compounds, heightfields, run-time setters", MoreFeatures);
        Run("debug draw and the arena", Draw);
        Run("sessions: two peers over a C# transport, lockstep and rollback", Sessions);
        Run("a session whose rules fail stops with the reason", SessionFailure);
        Console.WriteLine(passed + " passed, " + failed + " failed (the C# binding)");
        return failed == 0 ? 0 : 1;
    }
}
