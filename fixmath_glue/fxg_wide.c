/* fixmath_glue: wide (Q32.32) operations that need a 128-bit intermediate.
 * Portable: a pair of uint64 words, no __int128 (absent on 32-bit targets).
 * These are off the hot path (mass properties, inertia inverses). */
#include "fxg_scalar.h"

typedef struct {
	uint64_t hi, lo;
} u128;

static u128 u128_mul(uint64_t a, uint64_t b)
{
	uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32;
	uint64_t b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
	u128 r;
	r.lo = (mid << 32) | (p00 & 0xFFFFFFFFu);
	r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	return r;
}

static u128 u128_add64(u128 a, uint64_t b)
{
	u128 r = { a.hi + ((a.lo + b) < a.lo), a.lo + b };
	return r;
}

/* floor(n / d) for d != 0; sets *fits = false when the quotient exceeds 64 bits. */
static uint64_t u128_div64(u128 n, uint64_t d, bool *fits)
{
	if (n.hi >= d) {
		*fits = false;
		return UINT64_MAX;
	}
	*fits = true;
	/* restoring long division: n.hi < d keeps the running remainder below d */
	uint64_t rem = n.hi, q = 0;
	for (int i = 63; i >= 0; --i) {
		uint64_t top = rem >> 63;
		rem = (rem << 1) | ((n.lo >> i) & 1);
		q <<= 1;
		if (top || rem >= d) {
			rem -= d;
			q |= 1;
		}
	}
	return q;
}

/* Apply a sign to a magnitude and saturate to int64. */
static int64_t signed_sat(uint64_t mag, bool neg, bool fits, uint32_t *ovf)
{
	if (!fits || (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > (uint64_t)INT64_MAX)) {
		++*ovf;
		return neg ? INT64_MIN : INT64_MAX;
	}
	if (neg)
		return mag == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)mag;
	return (int64_t)mag;
}

fxg_wide fxg_wmul_wide(fxg_wide a, fxg_wide b, uint32_t *ovf)
{
	uint32_t no_ovf = 0; /* NULL: the caller does not count overflows */
	if (!ovf)
		ovf = &no_ovf;
#ifdef FXG_HAVE_I128
	fxg_i128 r = ((fxg_i128)a * b + ((fxg_i128)1 << 31)) >> 32; /* floor(a b / 2^32 + 1/2) */
	if (r > INT64_MAX || r < INT64_MIN) {
		++*ovf;
		return r > 0 ? INT64_MAX : INT64_MIN;
	}
	return (int64_t)r;
#endif
	bool neg = (a < 0) != (b < 0);
	u128 p = u128_mul(fxg_uabs64(a), fxg_uabs64(b));
	/* round half up on the signed value: for the magnitude that is half away
	 * from zero when positive and half toward zero when negative. */
	uint64_t half = (uint64_t)1 << 31;
	if (neg)
		half -= 1; /* -(m)/2^32 rounded half up == -floor((m + 2^31 - 1) / 2^32) */
	p = u128_add64(p, half);
	uint64_t mag = (p.hi << 32) | (p.lo >> 32);
	bool fits = (p.hi >> 32) == 0;
	return signed_sat(mag, neg, fits, ovf);
}

fxg_wide fxg_wide_div(fxg_wide a, fxg_wide b, uint32_t *ovf)
{
	uint32_t no_ovf = 0; /* NULL: the caller does not count overflows */
	if (!ovf)
		ovf = &no_ovf;
	if (b == 0) {
		++*ovf;
		return a > 0 ? INT64_MAX : (a < 0 ? INT64_MIN : 0);
	}
	bool neg = (a < 0) != (b < 0);
	uint64_t ua = fxg_uabs64(a), ub = fxg_uabs64(b);
#ifdef FXG_HAVE_I128
	fxg_u128 n2 = ((fxg_u128)ua << 33) + ub; /* 2 ua 2^32 + ub < 2^98 */
	fxg_u128 q2 = n2 / ((fxg_u128)ub << 1);  /* round(ua 2^32 / ub), ties away from zero */
	return signed_sat((uint64_t)q2, neg, q2 <= UINT64_MAX, ovf);
#endif
	/* round(ua * 2^32 / ub) = floor((2 * ua * 2^32 + ub) / (2 * ub)), done as
	 * floor((ua * 2^32 + ub / 2) / ub) with the odd half handled by the remainder. */
	u128 n = { ua >> 32, ua << 32 };
	bool fits;
	/* exact: q = floor(n / ub), r = n - q ub; round up when 2r >= ub */
	uint64_t q = u128_div64(n, ub, &fits);
	if (fits) {
		u128 qb = u128_mul(q, ub);
		uint64_t r = n.lo - qb.lo; /* remainder < ub fits in 64 bits */
		if (r >= ub - r)
			q += 1, fits = q != 0;
	}
	return signed_sat(q, neg, fits, ovf);
}

fxg_wide fxg_wide_recip(fxg_wide w, uint32_t *ovf)
{
	uint32_t no_ovf = 0; /* NULL: the caller does not count overflows */
	if (!ovf)
		ovf = &no_ovf;
	if (w == 0) {
		++*ovf;
		return INT64_MAX;
	}
	return fxg_wide_div(FXG_WIDE_ONE, w, ovf);
}
