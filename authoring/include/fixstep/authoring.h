/* Authoring helpers for client code: numbers between a game's floats,
 * doubles and decimal strings and fixstep's Q16.16 (fix16_t) and Q32.32
 * (fxg_wide), and rotations from an axis and an angle in degrees.
 *
 * Header only, and never part of the kernel, which has no floating point
 * (`make nofloat` checks kernel/ and fixmath_glue/): it lives outside kernel/
 * for that reason and is installed beside the kernel's headers. Include it
 * where a game builds its worlds, prints them or draws them. A world built from the same numbers is the same world
 * everywhere, so the conversions into fixed point below are exact
 * functions of their input on every machine:
 *   - decimal strings are parsed with integers only, correctly rounded
 *     (half away from zero): fxs_q16_from_string("0.1") is 6554 anywhere;
 *   - doubles and floats are rounded with exact IEEE operations only (no
 *     result depends on a machine's excess precision);
 *   - fxs_quat_from_axis_angle uses fixstep's integer trigonometry;
 *     the double version converts its inputs first.
 * Conversions out of fixed point (to double, float, text) are for display
 * and need not agree to the last bit between machines. The conversions
 * from integers (units: fxs_q16_from_int, _milli, _ratio, _axis) use
 * integers only, so an input handler may call them. */
#ifndef FIXSTEP_AUTHORING_H
#define FIXSTEP_AUTHORING_H

#include "fixstep/types.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Q16.16 from integers: units without slips ----
 *
 * Every fix16_t is a number of 1/65536 of its SI unit (m, m/s, rad/s, N,
 * N m, N s, kg/m^3): 200 newtons is 200 * 65536, and a plain integer left
 * raw is 65536 times too small. A force written as `(int8_t)b * 200` is at
 * most 0.39 N. These write the unit once, from integers, with integer
 * arithmetic only (deterministic: safe in an input handler):
 *   fxs_q16_from_int(200)                    200 N
 *   fxs_q16_from_milli(1250)                 1.25 m
 *   fxs_q16_from_axis(stick, 127, max)       stick / 127 of max, clamped
 * Results are rounded half away from zero and saturated to the Q16.16
 * range. */

static inline fix16_t fxs_q16_saturate_(int64_t v)
{
	return v > INT32_MAX ? (fix16_t)INT32_MAX : v < INT32_MIN ? (fix16_t)INT32_MIN : (fix16_t)v;
}
/* n / d rounded half away from zero (d > 0) */
static inline int64_t fxs_q16_div_round_(int64_t n, int64_t d) { return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d); }

/* v whole units (metres, newtons, ...). */
static inline fix16_t fxs_q16_from_int(int32_t v) { return fxs_q16_saturate_((int64_t)v * 65536); }
/* milli / 1000 of a unit (millimetres, millinewtons, ...). */
static inline fix16_t fxs_q16_from_milli(int32_t milli) { return fxs_q16_saturate_(fxs_q16_div_round_((int64_t)milli * 65536, 1000)); }
/* num / den of a unit; 0 when den is 0. */
static inline fix16_t fxs_q16_from_ratio(int32_t num, int32_t den)
{
	if (den == 0)
		return 0;
	int64_t n = (int64_t)num * 65536, d = den;
	if (d < 0)
		n = -n, d = -d;
	return fxs_q16_saturate_(fxs_q16_div_round_(n, d));
}
/* An input axis as a quantity: v (clamped to -full_scale..full_scale) as
 * that fraction of max. fxs_q16_from_axis((int8_t)b, 127, fxs_q16_from_int(200))
 * is -200 N .. 200 N; 0 when full_scale <= 0. */
static inline fix16_t fxs_q16_from_axis(int32_t v, int32_t full_scale, fix16_t max)
{
	if (full_scale <= 0)
		return 0;
	int64_t c = v > full_scale ? full_scale : v < -full_scale ? -full_scale : v;
	return fxs_q16_saturate_(fxs_q16_div_round_(c * max, full_scale));
}
static inline fxg_vec3 fxs_vec3_from_ints(int32_t x, int32_t y, int32_t z)
{
	fxg_vec3 r;
	r.x = fxs_q16_from_int(x);
	r.y = fxs_q16_from_int(y);
	r.z = fxs_q16_from_int(z);
	return r;
}
static inline fxg_vec3 fxs_vec3_from_milli(int32_t x, int32_t y, int32_t z)
{
	fxg_vec3 r;
	r.x = fxs_q16_from_milli(x);
	r.y = fxs_q16_from_milli(y);
	r.z = fxs_q16_from_milli(z);
	return r;
}

/* ---- Q16.16 from and to double and float ---- */

/* v rounded half away from zero to the nearest Q16.16, saturated to
 * [-32768, 32767.99998]; NaN gives 0. */
static inline fix16_t fxs_q16_from_double(double v)
{
	if (v != v)
		return 0;
	if (v >= 32768.0)
		return (fix16_t)INT32_MAX;
	if (v <= -32768.0)
		return (fix16_t)INT32_MIN;
	double x = v * 65536.0;   /* exact: a power of two */
	int64_t i = (int64_t)x;   /* truncated towards zero: exact */
	double f = x - (double)i; /* exact (|x| < 2^31) */
	if (f >= 0.5)
		++i;
	else if (f <= -0.5)
		--i;
	return i > INT32_MAX ? (fix16_t)INT32_MAX : i < INT32_MIN ? (fix16_t)INT32_MIN
								  : (fix16_t)i;
}

static inline fix16_t fxs_q16_from_float(float v) { return fxs_q16_from_double((double)v); }
static inline double fxs_q16_to_double(fix16_t v) { return (double)v / 65536.0; }
static inline float fxs_q16_to_float(fix16_t v) { return (float)((double)v / 65536.0); }

/* Q32.32 (masses, inertias, fxs_body_get_mass) to double and float. */
static inline double fxs_q32_to_double(fxg_wide v) { return (double)v / 4294967296.0; }
static inline float fxs_q32_to_float(fxg_wide v) { return (float)((double)v / 4294967296.0); }
/* A double to Q32.32, rounded towards zero, saturated; NaN gives 0. */
static inline fxg_wide fxs_q32_from_double(double v)
{
	if (v != v)
		return 0;
	if (v >= 2147483648.0)
		return (fxg_wide)INT64_MAX;
	if (v <= -2147483648.0)
		return (fxg_wide)INT64_MIN;
	return (fxg_wide)(v * 4294967296.0);
}

static inline fxg_vec3 fxs_vec3_from_doubles(double x, double y, double z)
{
	fxg_vec3 r;
	r.x = fxs_q16_from_double(x);
	r.y = fxs_q16_from_double(y);
	r.z = fxs_q16_from_double(z);
	return r;
}

/* ---- Q16.16 from and to decimal strings ---- */

/* "-12.375", "+3", ".5", "7." (at least one digit; no exponent, no spaces):
 * true with *out the value correctly rounded (half away from zero); false,
 * *out untouched, on anything else or a value beyond [-32768,
 * 32767.99998] after rounding. Any number of digits. */
static inline bool fxs_q16_from_string(const char *s, fix16_t *out)
{
	if (!s)
		return false;
	bool neg = false;
	if (*s == '+' || *s == '-')
		neg = *s++ == '-';
	uint64_t ip = 0;
	int digits = 0;
	for (; *s >= '0' && *s <= '9'; ++s, ++digits) {
		ip = ip * 10 + (uint64_t)(*s - '0');
		if (ip > 65536)
			return false;
	}
	/* the fraction: its first 18 digits; the rest cannot change the
	 * rounding (below: rem is a multiple of 2^16, and what the rest adds is
	 * less than 2^16 in its units) */
	uint64_t fn = 0;
	int fd = 0;
	if (*s == '.') {
		for (++s; *s >= '0' && *s <= '9'; ++s, ++digits) {
			if (fd < 18)
				fn = fn * 10 + (uint64_t)(*s - '0'), ++fd;
		}
	}
	if (*s != '\0' || digits == 0)
		return false;
	for (; fd < 18; ++fd)
		fn *= 10; /* fn / 10^18 is the fraction */
	/* fn 2^16 / 10^18 = q + rem / 10^18, in 64 bits: fn = hi 10^9 + lo */
	const uint64_t e9 = 1000000000u, e18 = e9 * e9;
	uint64_t hi = fn / e9, lo = fn % e9;
	uint64_t a = hi << 16; /* < 10^9 2^16 */
	uint64_t q = a / e9, b = (a % e9) * e9 + (lo << 16);
	q += b / e18;
	uint64_t rem = b % e18;
	/* half away from zero: a tie (rem = 10^18 / 2) and above round up in magnitude */
	if (2 * rem >= e18)
		++q;
	uint64_t mag = (ip << 16) + q;
	if (neg ? mag > (uint64_t)1 << 31 : mag > (uint64_t)INT32_MAX)
		return false;
	*out = neg ? (fix16_t)(-(int64_t)mag) : (fix16_t)mag;
	return true;
}

/* v in decimal with `decimals` (0..12) fraction digits, rounded half away
 * from zero ("-1.50000"): the length written (without the NUL), or 0 when
 * it does not fit in cap bytes (nothing written then but, if cap > 0, an
 * empty string). Six decimals read back to the same value. */
static inline size_t fxs_q16_to_string(fix16_t v, int decimals, char *buf, size_t cap)
{
	if (decimals < 0)
		decimals = 0;
	if (decimals > 12)
		decimals = 12;
	uint64_t mag = v < 0 ? (uint64_t)(-(int64_t)v) : (uint64_t)v;
	uint64_t p10 = 1;
	for (int i = 0; i < decimals; ++i)
		p10 *= 10;
	/* mag / 2^16 scaled by 10^decimals, rounded: mag < 2^31, p10 <= 10^12 */
	uint64_t ip = mag >> 16, frac = mag & 0xFFFFu;
	uint64_t fs = (frac * p10 * 2 + 65536) / (65536 * 2);
	if (fs >= p10)
		ip += 1, fs -= p10;
	char tmp[48];
	size_t n = 0;
	char digits[24];
	int nd = 0;
	do {
		digits[nd++] = (char)('0' + ip % 10);
		ip /= 10;
	} while (ip);
	if (v < 0 && (mag != 0))
		tmp[n++] = '-';
	while (nd)
		tmp[n++] = digits[--nd];
	if (decimals > 0) {
		tmp[n++] = '.';
		for (int i = decimals - 1; i >= 0; --i) {
			uint64_t d = fs;
			for (int k = 0; k < i; ++k)
				d /= 10;
			tmp[n++] = (char)('0' + d % 10);
		}
	}
	if (n + 1 > cap) {
		if (cap > 0)
			buf[0] = '\0';
		return 0;
	}
	for (size_t i = 0; i < n; ++i)
		buf[i] = tmp[i];
	buf[n] = '\0';
	return n;
}

/* ---- rotations ---- */

/* The unit quaternion turning `degrees` (Q16.16, any value: whole turns
 * wrap exactly) about `axis` (any length but zero, which gives the
 * identity), right-handed. Integer only: the same bits on every machine. */
static inline fxg_quat fxs_quat_from_axis_angle(fxg_vec3 axis, fix16_t degrees)
{
	uint32_t ovf = 0;
	fix16_t len;
	fxg_vec3 u = fxg_v3_normalize(axis, &len, &ovf);
	fxg_quat q = { 0, 0, 0, FXG_ONE };
	if (len == 0)
		return q;
	/* half the angle as a binary angle (2^32 a turn): degrees 2^16 / 720,
	 * rounded half up (a floor division), taken modulo 2^32 */
	int64_t n = (int64_t)degrees * 131072 + 720;
	int64_t h = n >= 0 ? n / 1440 : -((-n + 1439) / 1440);
	fxg_angle half = (fxg_angle)(uint64_t)h;
	fix16_t s = fxg_sin(half), c = fxg_cos(half);
	q.x = fxg_mul(u.x, s, &ovf);
	q.y = fxg_mul(u.y, s, &ovf);
	q.z = fxg_mul(u.z, s, &ovf);
	q.w = c;
	return fxg_q_normalize(q, &ovf);
}

/* The same from doubles (converted with fxs_q16_from_double first). */
static inline fxg_quat fxs_quat_from_axis_angle_deg(double ax, double ay, double az, double degrees)
{
	return fxs_quat_from_axis_angle(fxs_vec3_from_doubles(ax, ay, az), fxs_q16_from_double(degrees));
}

#ifdef __cplusplus
}
#endif

#endif
