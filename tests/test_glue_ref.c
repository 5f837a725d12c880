/* Double-precision references for the fixmath_glue tests, written here so
 * that the test binary does not need libm (the build links only libfixmath
 * and xxhash) and so that the reference is the same on every platform.
 * Accuracy: relative error below 1e-15 on the ranges used, far below the
 * bounds being tested (which are >= 2^-7 of the unit compared). */
#include <stdint.h>

#define GLUE_PI 3.14159265358979323846264338327950288

double glue_ref_abs(double x);
double glue_ref_max(double a, double b);
double glue_ref_floor(double x);
int64_t glue_ref_round(double x);
double glue_ref_pow2(int k);
double glue_ref_sqrt(double x);
double glue_ref_sin_turns(uint32_t a);
double glue_ref_cos_turns(uint32_t a);
double glue_ref_atan2_turns(double y, double x);
double glue_ref_sin(double x);
double glue_ref_cos(double x);
double glue_ref_pi(void);

double glue_ref_pi(void) { return GLUE_PI; }
double glue_ref_abs(double x) { return x < 0 ? -x : x; }
double glue_ref_max(double a, double b) { return a > b ? a : b; }

/* |x| < 2^62 */
double glue_ref_floor(double x)
{
	double t = (double)(int64_t)x; /* truncates toward zero */
	return t > x ? t - 1 : t;
}

/* round half away from zero, |x| < 2^62 */
int64_t glue_ref_round(double x) { return x < 0 ? -(int64_t)(0.5 - x) : (int64_t)(x + 0.5); }

double glue_ref_pow2(int k)
{
	double r = 1;
	for (; k > 0; --k)
		r *= 2;
	for (; k < 0; ++k)
		r *= 0.5;
	return r;
}

double glue_ref_sqrt(double x)
{
	if (x <= 0)
		return 0;
	double r = x > 1 ? x : 1;
	for (int i = 0; i < 200; ++i) { /* Newton from above converges monotonically */
		double n = 0.5 * (r + x / r);
		if (n >= r)
			break;
		r = n;
	}
	return r;
}

/* Taylor series on |x| <= pi/4: the first omitted term is < 1e-19 */
static double sin_small(double x)
{
	double x2 = x * x, term = x, sum = x;
	for (int k = 1; k <= 10; ++k) {
		term *= -x2 / ((2 * k) * (2 * k + 1));
		sum += term;
	}
	return sum;
}

static double cos_small(double x)
{
	double x2 = x * x, term = 1, sum = 1;
	for (int k = 1; k <= 10; ++k) {
		term *= -x2 / ((2 * k - 1) * (2 * k));
		sum += term;
	}
	return sum;
}

/* sin and cos of a binary angle (2^32 == one turn): exact integer reduction
 * to an eighth of a turn, then the series */
static double sincos_turns(uint32_t a, int want_cos)
{
	if (want_cos)
		a += 0x40000000u;
	uint32_t q = a >> 30, f = a & 0x3FFFFFFFu;
	double s;
	if (f <= 0x20000000u)
		s = sin_small((double)f * (2 * GLUE_PI / 4294967296.0));
	else
		s = cos_small((double)(0x40000000u - f) * (2 * GLUE_PI / 4294967296.0));
	double c;
	if (f <= 0x20000000u)
		c = cos_small((double)f * (2 * GLUE_PI / 4294967296.0));
	else
		c = sin_small((double)(0x40000000u - f) * (2 * GLUE_PI / 4294967296.0));
	switch (q) {
	case 0: return s;
	case 1: return c;
	case 2: return -s;
	default: return -c;
	}
}

double glue_ref_sin_turns(uint32_t a) { return sincos_turns(a, 0); }
double glue_ref_cos_turns(uint32_t a) { return sincos_turns(a, 1); }

/* sin / cos of radians, any moderate x: reduce by quarter turns */
double glue_ref_sin(double x)
{
	double k = glue_ref_floor(x / (GLUE_PI / 2) + 0.5);
	double r = x - k * (GLUE_PI / 2);
	int q = (int)((int64_t)k & 3);
	return q == 0 ? sin_small(r) : q == 1 ? cos_small(r)
		: q == 2                      ? -sin_small(r)
					      : -cos_small(r);
}

double glue_ref_cos(double x) { return glue_ref_sin(x + GLUE_PI / 2); }

/* atan on [0, 1]: atan(t) = pi/6 + atan((sqrt3 t - 1) / (sqrt3 + t)) above
 * tan(pi/12), then the alternating series on |u| <= 0.268 (40 terms) */
static double atan_unit(double t)
{
	const double sqrt3 = 1.73205080756887729352744634150587237;
	double base = 0;
	if (t > 0.26794919243112270) {
		base = GLUE_PI / 6;
		t = (sqrt3 * t - 1) / (sqrt3 + t);
	}
	double t2 = t * t, p = t, sum = 0;
	for (int k = 0; k < 40; ++k) {
		sum += (k & 1 ? -p : p) / (2 * k + 1);
		p *= t2;
	}
	return base + sum;
}

/* atan2 in turns, in (-1/2, 1/2] */
double glue_ref_atan2_turns(double y, double x)
{
	double ax = glue_ref_abs(x), ay = glue_ref_abs(y);
	if (ax == 0 && ay == 0)
		return 0;
	double a = ay <= ax ? atan_unit(ay / ax) : GLUE_PI / 2 - atan_unit(ax / ay);
	if (x < 0)
		a = GLUE_PI - a;
	if (y < 0)
		a = -a;
	return a / (2 * GLUE_PI);
}
