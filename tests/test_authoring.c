/* The authoring helpers (fixstep/authoring.h): decimal strings parsed
 * exactly (correct rounding, ties away from zero), text that reads back,
 * doubles rounded exactly, rotations from an axis and degrees. */
#include <libfixmath/fix16.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fixstep/authoring.h"
#include "fixstep/fixstep.h"
#include "test.h"

static bool parse(const char *s, fix16_t *v) { return fxs_q16_from_string(s, v); }

TEST(q16_from_string_is_correctly_rounded)
{
	fix16_t v = 12345;
	CHECK(parse("0", &v) && v == 0);
	CHECK(parse("-12.375", &v) && v == -811008);
	CHECK(parse("+3", &v) && v == FXG_I(3));
	CHECK(parse(".5", &v) && v == FXG_HALF);
	CHECK(parse("7.", &v) && v == FXG_I(7));
	CHECK(parse("0.1", &v) && v == 6554);
	CHECK(parse("32767.99998", &v) && v == INT32_MAX);
	CHECK(parse("-32768", &v) && v == INT32_MIN);
	/* ties (k + 1/2) / 65536 go away from zero; a hair below goes down */
	CHECK(parse("0.00000762939453125", &v) && v == 1);
	CHECK(parse("-0.00000762939453125", &v) && v == -1);
	CHECK(parse("0.0000076293945312499999999", &v) && v == 0);
	CHECK(parse("0.0000228881835937500000000000001", &v) && v == 2); /* 1.5 LSB: up */
	v = 99;
	const char *bad[] = { "", "-", ".", "1e3", "1.2.3", " 1", "1 ", "32768", "-32768.00001", "abc", "0x10", NULL };
	for (int i = 0; bad[i]; ++i)
		CHECKF(!parse(bad[i], &v) && v == 99, "'%s' accepted", bad[i]);
	CHECK(!parse(NULL, &v));
#ifdef __SIZEOF_INT128__
	__extension__ typedef unsigned __int128 u128;
	/* random decimals with up to 12 fraction digits against exact rational rounding */
	uint64_t rng = 7;
	for (int i = 0; i < 200000; ++i) {
		uint64_t ip = test_rng_next(&rng) % 32768, n = test_rng_next(&rng) % 13, p10 = 1;
		for (uint64_t k = 0; k < n; ++k)
			p10 *= 10;
		uint64_t frac = test_rng_next(&rng) % p10;
		bool neg = test_rng_next(&rng) & 1;
		char s[64];
		int len = snprintf(s, sizeof s, "%s%llu", neg ? "-" : "", (unsigned long long)ip);
		if (n)
			snprintf(s + len, sizeof s - (size_t)len, ".%0*llu", (int)n, (unsigned long long)frac);
		u128 num = ((u128)ip * p10 + frac) * 65536 * 2 + p10;
		uint64_t mag = (uint64_t)(num / ((u128)p10 * 2));
		int64_t want = neg ? -(int64_t)mag : (int64_t)mag;
		bool fits = want >= INT32_MIN && want <= INT32_MAX;
		CHECKF(parse(s, &v) == fits && (!fits || v == want), "%s: got %d, want %lld", s, v, (long long)want);
		/* libfixmath's parser agrees within one LSB where it is defined */
		if (fits && n <= 5) {
			fix16_t lf = fix16_from_str(s);
			CHECKF(lf - v <= 1 && v - lf <= 1, "%s: libfixmath %d, ours %d", s, lf, v);
		}
	}
#endif
}

TEST(q16_text_reads_back)
{
	char buf[32];
	CHECK(fxs_q16_to_string(-FXG_I(3) / 2, 5, buf, sizeof buf) == 8 && strcmp(buf, "-1.50000") == 0);
	CHECK(fxs_q16_to_string(INT32_MIN, 2, buf, sizeof buf) && strcmp(buf, "-32768.00") == 0);
	CHECK(fxs_q16_to_string(INT32_MAX, 0, buf, sizeof buf) && strcmp(buf, "32768") == 0);
	CHECK(fxs_q16_to_string(FXG_ONE, 3, buf, 4) == 0 && buf[0] == 0); /* "1.000" does not fit in 4 */
	CHECK(fxs_q16_to_string(-1, 3, buf, sizeof buf) && strcmp(buf, "-0.000") == 0);
	uint64_t rng = 3;
	for (int i = 0; i < 300000; ++i) {
		fix16_t v = (fix16_t)(uint32_t)test_rng_next(&rng), back = 0;
		CHECK(fxs_q16_to_string(v, 6, buf, sizeof buf) > 0);
		CHECKF(fxs_q16_from_string(buf, &back) && back == v, "%d -> %s -> %d", v, buf, back);
	}
}

TEST(q16_from_double_rounds_exactly)
{
	CHECK(fxs_q16_from_double(1.5) == FXG_I(3) / 2 && fxs_q16_from_float(-0.25f) == -FXG_ONE / 4);
	CHECK(fxs_q16_from_double(0.5 / 65536) == 1 && fxs_q16_from_double(-0.5 / 65536) == -1);
	CHECK(fxs_q16_from_double(0.49999 / 65536) == 0);
	CHECK(fxs_q16_from_double(1e10) == INT32_MAX && fxs_q16_from_double(-1e10) == INT32_MIN);
	CHECK(fxs_q16_from_double(NAN) == 0);
	CHECK(fxs_q16_to_double(FXG_I(3) / 4) == 0.75 && fxs_q16_to_float(-FXG_ONE) == -1.0f);
	CHECK(fxs_q32_to_double((fxg_wide)3 << 31) == 1.5 && fxs_q32_to_float(-((fxg_wide)1 << 32)) == -1.0f);
	CHECK(fxs_q32_from_double(2.25) == (fxg_wide)9 << 30);
	fxg_vec3 p = fxs_vec3_from_doubles(1, -2, 0.5);
	CHECK(p.x == FXG_ONE && p.y == -FXG_I(2) && p.z == FXG_HALF);
	/* every double with at most 16 fraction bits is exact */
	uint64_t rng = 11;
	for (int i = 0; i < 100000; ++i) {
		fix16_t v = (fix16_t)(uint32_t)test_rng_next(&rng);
		CHECK(fxs_q16_from_double((double)v / 65536.0) == v);
	}
}

static bool near(fix16_t a, fix16_t b) { return a - b <= 2 && b - a <= 2; }

TEST(rotation_from_axis_and_degrees)
{
	fxg_quat q = fxs_quat_from_axis_angle(fxg_v3(0, FXG_I(5), 0), FXG_I(90));
	CHECK(q.x == 0 && q.z == 0 && near(q.y, 46341) && near(q.w, 46341));
	q = fxs_quat_from_axis_angle(fxg_v3(FXG_ONE, 0, 0), FXG_I(180));
	CHECK(near(q.x, FXG_ONE) && near(q.w, 0));
	q = fxs_quat_from_axis_angle(fxg_v3(FXG_ONE, 0, 0), -FXG_I(90));
	CHECK(near(q.x, -46341) && near(q.w, 46341));
	q = fxs_quat_from_axis_angle(fxg_v3(0, 0, FXG_ONE), FXG_I(720));
	CHECK(near(q.w, FXG_ONE) && near(q.z, 0));
	q = fxs_quat_from_axis_angle(fxg_v3_zero(), FXG_I(45)); /* no axis: identity */
	CHECK(q.w == FXG_ONE && q.x == 0);
	/* the double version is the fixed one after rounding its inputs */
	fxg_quat a = fxs_quat_from_axis_angle_deg(1, 1, 0, 30), b = fxs_quat_from_axis_angle(fxg_v3(FXG_ONE, FXG_ONE, 0), FXG_I(30));
	CHECK(a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w);
	/* sin 15 deg = 0.258819, cos 15 deg = 0.965926 (the all_shapes scene's tilt) */
	q = fxs_quat_from_axis_angle(fxg_v3(0, 0, FXG_ONE), FXG_I(30));
	CHECK(near(q.z, 16962) && near(q.w, 63303));
}

/* Units from integers: exact values at the edges, rounding half away from
 * zero, saturation, clamped axes; and physics: the unit slip the helpers
 * prevent, a raw `stick * 200` force (0.39 N at full stick), moves a
 * 4.19 kg ball 516 times less than the 200 N at full stick written with
 * fxs_q16_from_axis, which gives v = F t / m. */
TEST(q16_units_from_integers)
{
	CHECK(fxs_q16_from_int(200) == FXG_I(200));
	CHECK(fxs_q16_from_int(-3) == FXG_I(-3));
	CHECK(fxs_q16_from_int(40000) == INT32_MAX && fxs_q16_from_int(-40000) == INT32_MIN);
	CHECK(fxs_q16_from_milli(1250) == 81920);
	CHECK(fxs_q16_from_milli(-1) == -66); /* -65.536 rounds away from zero */
	CHECK(fxs_q16_from_milli(1) == 66 && fxs_q16_from_milli(0) == 0);
	CHECK(fxs_q16_from_milli(INT32_MAX) == INT32_MAX);
	CHECK(fxs_q16_from_ratio(1, 3) == 21845 && fxs_q16_from_ratio(-1, 3) == -21845);
	CHECK(fxs_q16_from_ratio(1, -2) == -FXG_HALF && fxs_q16_from_ratio(5, 0) == 0);
	fix16_t max = fxs_q16_from_int(200);
	CHECK(fxs_q16_from_axis(127, 127, max) == max && fxs_q16_from_axis(-128, 127, max) == -max);
	CHECK(fxs_q16_from_axis(1000, 127, max) == max && fxs_q16_from_axis(5, 0, max) == 0);
	CHECK(fxs_q16_from_axis(64, 127, max) == 6605203); /* 64/127 x 200 N = 100.787 N */
	fxg_vec3 v = fxs_vec3_from_milli(500, -2000, 1);
	CHECK(v.x == FXG_HALF && v.y == FXG_I(-2) && v.z == 66);
	v = fxs_vec3_from_ints(1, 2, -3);
	CHECK(v.x == FXG_ONE && v.y == FXG_I(2) && v.z == FXG_I(-3));

	/* a 0.5 m sphere of density 8 (4.189 kg) in zero gravity, pushed for one
	 * second at full stick, with the slip and without it */
	fxs_world_def wd = fxs_default_world_def();
	wd.gravity = fxg_v3(0, 0, 0);
	fxs_world *w = fxs_world_create(&wd);
	fxs_body_def d = fxs_default_body_def();
	d.density = fxs_q16_from_int(8);
	d.linear_damping = 0;
	fxs_body_id right = fxs_body_create(w, &d);
	d.position = fxs_vec3_from_ints(0, 0, 10); /* clear of the first one's path along x */
	fxs_body_id wrong = fxs_body_create(w, &d);
	int8_t stick = 127;
	uint32_t ticks = (uint32_t)(FXG_ONE / wd.dt);
	for (uint32_t t = 0; t < ticks; ++t) {
		CHECK(fxs_body_apply_force_to_center(w, right, fxg_v3(fxs_q16_from_axis(stick, 127, max), 0, 0)) == FXS_OK);
		CHECK(fxs_body_apply_force_to_center(w, wrong, fxg_v3((fix16_t)stick * 200, 0, 0)) == FXS_OK);
		fxs_world_step(w);
	}
	double m = fxs_q32_to_double(fxs_body_get_mass(w, right));
	double want = 200.0 * ticks * fxs_q16_to_double(wd.dt) / m; /* F t / m, m/s */
	double got = fxs_q16_to_double(fxs_body_get_linear_velocity(w, right).x);
	double slip = fxs_q16_to_double(fxs_body_get_linear_velocity(w, wrong).x);
	CHECKF(fabs(m - 4.18879) < 0.01, "mass %.4f kg", m);
	CHECKF(fabs(got - want) < 0.002 * want, "200 N for 1 s: %.4f m/s, F t / m = %.4f", got, want);
	/* its change per sub-step is 25.3 LSB, rounded to 25: 1.2% */
	CHECKF(fabs(slip * (200.0 * 65536 / 25400) - want) < 0.02 * want, "the raw force gives %.5f m/s", slip);
	fxs_world_destroy(w);
}
