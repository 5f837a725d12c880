// Fixed-point values of the kernel (Q16.16 and Q32.32) as small readonly
// structs: a raw integer never becomes a length, a speed or a force by
// accident. `Fix f = 200;` does not compile; `(Fix)200` is 200 units,
// `Fix.FromRaw(200)` is 200/65536 of one. Arithmetic saturates and rounds
// as the kernel's (fixmath_glue/fxg_scalar.h): half away from zero.
using System;

namespace Fixstep
{
    /// <summary>A Q16.16 number: <c>Raw / 65536</c>, in [-32768, 32768).</summary>
    [Serializable]
    public readonly struct Fix : IEquatable<Fix>, IComparable<Fix>
    {
        public const int One = 65536;
        /// <summary>The raw Q16.16 bits, as the C API and the state hash see them.</summary>
        public readonly int Raw;

        Fix(int raw) { Raw = raw; }

        public static Fix FromRaw(int raw) { return new Fix(raw); }
        public static readonly Fix Zero = new Fix(0);
        public static readonly Fix MaxValue = new Fix(int.MaxValue);
        public static readonly Fix MinValue = new Fix(int.MinValue);

        /// <summary>A whole number of units; OverflowException outside [-32768, 32767].</summary>
        public static explicit operator Fix(int units)
        {
            if (units < -32768 || units > 32767) throw new OverflowException("Fix: " + units + " is outside [-32768, 32767]");
            return new Fix(units * One);
        }

        /// <summary>round(x * 65536), ties away from zero; OverflowException outside
        /// [-32768, 32768). Exact for a given double on every machine (the product
        /// by 2^16 is exact), so a definition written in decimals is the same
        /// everywhere; keep floats out of the simulation's inputs all the same.</summary>
        public static explicit operator Fix(double x)
        {
            double r = Math.Round(x * One, MidpointRounding.AwayFromZero);
            if (double.IsNaN(r) || r < int.MinValue || r > int.MaxValue)
                throw new OverflowException("Fix: " + x + " is outside [-32768, 32768)");
            return new Fix((int)r);
        }

        public static explicit operator Fix(float x) { return (Fix)(double)x; }
        public static explicit operator double(Fix f) { return f.Raw / (double)One; }
        public static explicit operator float(Fix f) { return (float)(f.Raw / (double)One); }

        static int Sat(long v) { return v > int.MaxValue ? int.MaxValue : (v < int.MinValue ? int.MinValue : (int)v); }
        static long ShrRound(long v, int s)
        {
            long half = 1L << (s - 1);
            if (v > long.MaxValue - half) v = long.MaxValue - half;
            return (v + half - (v < 0 ? 1 : 0)) >> s;
        }

        public static Fix operator +(Fix a, Fix b) { return new Fix(Sat((long)a.Raw + b.Raw)); }
        public static Fix operator -(Fix a, Fix b) { return new Fix(Sat((long)a.Raw - b.Raw)); }
        public static Fix operator -(Fix a) { return new Fix(Sat(-(long)a.Raw)); }
        /// <summary>The kernel's fxg_mul: the product rounded half away from zero, saturated.</summary>
        public static Fix operator *(Fix a, Fix b) { return new Fix(Sat(ShrRound((long)a.Raw * b.Raw, 16))); }
        /// <summary>Times a plain count (no unit), saturated.</summary>
        public static Fix operator *(Fix a, int k) { return new Fix(Sat((long)a.Raw * k)); }
        public static Fix operator *(int k, Fix a) { return a * k; }
        /// <summary>The kernel's fxg_div: correctly rounded, ties away from zero, saturated; by zero: the
        /// largest value of a's sign (0 for 0).</summary>
        public static Fix operator /(Fix a, Fix b)
        {
            if (b.Raw == 0) return new Fix(a.Raw > 0 ? int.MaxValue : (a.Raw < 0 ? int.MinValue : 0));
            long n = (long)a.Raw << 16, d = b.Raw;
            bool neg = (n < 0) != (d < 0);
            ulong un = (ulong)(n < 0 ? -n : n), ud = (ulong)(d < 0 ? -d : d);
            ulong q = un / ud, r = un % ud;
            if (r * 2 >= ud) ++q;
            long s = neg ? -(long)q : (long)q;
            return new Fix(Sat(s));
        }

        public static bool operator ==(Fix a, Fix b) { return a.Raw == b.Raw; }
        public static bool operator !=(Fix a, Fix b) { return a.Raw != b.Raw; }
        public static bool operator <(Fix a, Fix b) { return a.Raw < b.Raw; }
        public static bool operator >(Fix a, Fix b) { return a.Raw > b.Raw; }
        public static bool operator <=(Fix a, Fix b) { return a.Raw <= b.Raw; }
        public static bool operator >=(Fix a, Fix b) { return a.Raw >= b.Raw; }
        public bool Equals(Fix o) { return Raw == o.Raw; }
        public override bool Equals(object o) { return o is Fix && ((Fix)o).Raw == Raw; }
        public override int GetHashCode() { return Raw; }
        public int CompareTo(Fix o) { return Raw.CompareTo(o.Raw); }
        public override string ToString() { return ((double)this).ToString("0.#####", System.Globalization.CultureInfo.InvariantCulture); }
    }

    /// <summary>A Q32.32 number (masses, inertia): <c>Raw / 2^32</c>.</summary>
    [Serializable]
    public readonly struct FixWide : IEquatable<FixWide>
    {
        public readonly long Raw;
        FixWide(long raw) { Raw = raw; }
        public static FixWide FromRaw(long raw) { return new FixWide(raw); }
        public static explicit operator double(FixWide f) { return f.Raw / 4294967296.0; }
        public static explicit operator FixWide(double x)
        {
            double r = Math.Round(x * 4294967296.0, MidpointRounding.AwayFromZero);
            if (double.IsNaN(r) || r < long.MinValue || r >= 9223372036854775807.0)
                throw new OverflowException("FixWide: " + x + " is out of range");
            return new FixWide((long)r);
        }
        public bool Equals(FixWide o) { return Raw == o.Raw; }
        public override bool Equals(object o) { return o is FixWide && ((FixWide)o).Raw == Raw; }
        public override int GetHashCode() { return Raw.GetHashCode(); }
        public override string ToString() { return ((double)this).ToString("0.#####", System.Globalization.CultureInfo.InvariantCulture); }
    }
}
