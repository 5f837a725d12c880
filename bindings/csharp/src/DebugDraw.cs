// Debug draw (fixstep/debug_draw.h): the world handed to a renderer shape by
// shape. Subclass DebugDraw, override what you draw, call world.Draw(this)
// between steps. Callbacks come through static methods marked for AOT
// (Unity's IL2CPP needs that) with the DebugDraw as their context.
using System;
using System.Runtime.InteropServices;

namespace Fixstep
{
    /// <summary>Unity's IL2CPP compiles a static method with this attribute (any namespace) as a
    /// native callback.</summary>
    [AttributeUsage(AttributeTargets.Method)]
    sealed class MonoPInvokeCallbackAttribute : Attribute
    {
        public MonoPInvokeCallbackAttribute(Type t) { }
    }

    /// <summary>Colours (0xRRGGBB) the library gives things.</summary>
    public static class DebugColor
    {
        public const uint Static = 0x7f8c8d, Kinematic = 0x3498db, Dynamic = 0xe67e22, Sleeping = 0x95a5a6, Sensor = 0x2ecc71,
            Disabled = 0xd5d8dc, Joint = 0x9b59b6, Contact = 0xe74c3c, Normal = 0xf1c40f, Aabb = 0xbdc3c7;
    }

    public abstract class DebugDraw
    {
        public bool DrawShapes = true, DrawSensors = true, DrawJoints = true, DrawContactPoints, DrawContactNormals, DrawAabbs, DrawDisabled;
        /// <summary>Only bodies whose bounds meet Bounds, when set.</summary>
        public FixAabb? Bounds;

        public virtual void Box(FixTransform xf, FixVec3 halfExtents, uint color) { }
        public virtual void Sphere(FixVec3 center, Fix radius, uint color) { }
        public virtual void Capsule(FixVec3 p1, FixVec3 p2, Fix radius, uint color) { }
        /// <summary>One face of a hull, counter-clockwise seen from outside.</summary>
        public virtual void Polygon(FixVec3[] vertices, uint color) { }
        public virtual void Triangle(FixVec3 a, FixVec3 b, FixVec3 c, uint color) { }
        public virtual void Segment(FixVec3 p1, FixVec3 p2, uint color) { }
        public virtual void Point(FixVec3 p, uint color) { }
        public virtual void Aabb(FixAabb box, uint color) { }
    }

    [StructLayout(LayoutKind.Sequential)]
    struct NativeDebugDraw
    {
        public IntPtr box, sphere, capsule, polygon, triangle, segment, point, aabb;
        public IntPtr context;
        public FixAabb bounds;
        public byte useBounds, drawShapes, drawSensors, drawJoints, drawContactPoints, drawContactNormals, drawAabbs, drawDisabled;
    }

    public sealed partial class World
    {
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void BoxFn(FixTransform xf, FixVec3 h, uint color, IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void SphereFn(FixVec3 c, Fix r, uint color, IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void CapsuleFn(FixVec3 p1, FixVec3 p2, Fix r, uint color, IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void PolygonFn(IntPtr v, int n, uint color, IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void TriangleFn(FixVec3 a, FixVec3 b, FixVec3 c, uint color, IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void SegmentFn(FixVec3 p1, FixVec3 p2, uint color, IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void PointFn(FixVec3 p, uint color, IntPtr ctx);
        [UnmanagedFunctionPointer(CallingConvention.Cdecl)] delegate void AabbFn(FixAabb b, uint color, IntPtr ctx);

        // an exception must not unwind through the library's frames: kept, rethrown by Draw
        [ThreadStatic] static Exception drawFailure;
        static DebugDraw Of(IntPtr ctx) { return drawFailure == null ? (DebugDraw)GCHandle.FromIntPtr(ctx).Target : null; }
        static void Fail(Exception e) { if (drawFailure == null) drawFailure = e; }
        [MonoPInvokeCallback(typeof(BoxFn))] static void OnBox(FixTransform xf, FixVec3 h, uint c, IntPtr ctx) { DebugDraw d = Of(ctx); if (d == null) return; try { d.Box(xf, h, c); } catch (Exception e) { Fail(e); } }
        [MonoPInvokeCallback(typeof(SphereFn))] static void OnSphere(FixVec3 p, Fix r, uint c, IntPtr ctx) { DebugDraw d = Of(ctx); if (d == null) return; try { d.Sphere(p, r, c); } catch (Exception e) { Fail(e); } }
        [MonoPInvokeCallback(typeof(CapsuleFn))] static void OnCapsule(FixVec3 a, FixVec3 b, Fix r, uint c, IntPtr ctx) { DebugDraw d = Of(ctx); if (d == null) return; try { d.Capsule(a, b, r, c); } catch (Exception e) { Fail(e); } }
        [MonoPInvokeCallback(typeof(PolygonFn))]
        static void OnPolygon(IntPtr v, int n, uint c, IntPtr ctx)
        {
            DebugDraw d = Of(ctx);
            if (d == null) return;
            try
            {
                var a = new FixVec3[n < 0 ? 0 : n];
                int size = Marshal.SizeOf(typeof(FixVec3));
                for (int i = 0; i < a.Length; ++i) a[i] = (FixVec3)Marshal.PtrToStructure(new IntPtr(v.ToInt64() + i * size), typeof(FixVec3));
                d.Polygon(a, c);
            }
            catch (Exception e) { Fail(e); }
        }
        [MonoPInvokeCallback(typeof(TriangleFn))] static void OnTriangle(FixVec3 a, FixVec3 b, FixVec3 p, uint c, IntPtr ctx) { DebugDraw d = Of(ctx); if (d == null) return; try { d.Triangle(a, b, p, c); } catch (Exception e) { Fail(e); } }
        [MonoPInvokeCallback(typeof(SegmentFn))] static void OnSegment(FixVec3 a, FixVec3 b, uint c, IntPtr ctx) { DebugDraw d = Of(ctx); if (d == null) return; try { d.Segment(a, b, c); } catch (Exception e) { Fail(e); } }
        [MonoPInvokeCallback(typeof(PointFn))] static void OnPoint(FixVec3 p, uint c, IntPtr ctx) { DebugDraw d = Of(ctx); if (d == null) return; try { d.Point(p, c); } catch (Exception e) { Fail(e); } }
        [MonoPInvokeCallback(typeof(AabbFn))] static void OnAabb(FixAabb b, uint c, IntPtr ctx) { DebugDraw d = Of(ctx); if (d == null) return; try { d.Aabb(b, c); } catch (Exception e) { Fail(e); } }

        // kept alive for the process: the library holds only their function pointers during Draw
        static readonly BoxFn boxFn = OnBox;
        static readonly SphereFn sphereFn = OnSphere;
        static readonly CapsuleFn capsuleFn = OnCapsule;
        static readonly PolygonFn polygonFn = OnPolygon;
        static readonly TriangleFn triangleFn = OnTriangle;
        static readonly SegmentFn segmentFn = OnSegment;
        static readonly PointFn pointFn = OnPoint;
        static readonly AabbFn aabbFn = OnAabb;

        /// <summary>Walks the world in slot order (bodies, joints, contacts) and calls dd's methods; changes
        /// nothing. An exception thrown by a method is rethrown here once the walk is over.</summary>
        public void Draw(DebugDraw dd)
        {
            if (dd == null) throw new ArgumentNullException("dd");
            NativeDebugDraw n = Native.fxs_default_debug_draw();
            n.box = Marshal.GetFunctionPointerForDelegate(boxFn);
            n.sphere = Marshal.GetFunctionPointerForDelegate(sphereFn);
            n.capsule = Marshal.GetFunctionPointerForDelegate(capsuleFn);
            n.polygon = Marshal.GetFunctionPointerForDelegate(polygonFn);
            n.triangle = Marshal.GetFunctionPointerForDelegate(triangleFn);
            n.segment = Marshal.GetFunctionPointerForDelegate(segmentFn);
            n.point = Marshal.GetFunctionPointerForDelegate(pointFn);
            n.aabb = Marshal.GetFunctionPointerForDelegate(aabbFn);
            n.useBounds = Bool.B(dd.Bounds.HasValue);
            if (dd.Bounds.HasValue) n.bounds = dd.Bounds.Value;
            n.drawShapes = Bool.B(dd.DrawShapes); n.drawSensors = Bool.B(dd.DrawSensors); n.drawJoints = Bool.B(dd.DrawJoints);
            n.drawContactPoints = Bool.B(dd.DrawContactPoints); n.drawContactNormals = Bool.B(dd.DrawContactNormals);
            n.drawAabbs = Bool.B(dd.DrawAabbs); n.drawDisabled = Bool.B(dd.DrawDisabled);
            GCHandle h = GCHandle.Alloc(dd);
            drawFailure = null;
            try
            {
                n.context = GCHandle.ToIntPtr(h);
                Native.fxs_world_draw(Handle, ref n);
            }
            finally { h.Free(); }
            Exception failure = drawFailure;
            drawFailure = null;
            if (failure != null) throw new FixstepException(Result.InvalidArgument, "draw: " + failure.Message, failure);
        }
    }
}
