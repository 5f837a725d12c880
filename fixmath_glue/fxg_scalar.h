/* fixmath_glue: scalar operations on fix16_t (Q16.16) and on wide int64 values.
 *
 * Integer only, stateless, re-entrant. libfixmath provides the type and the
 * constants; every operation the kernel performs lives here so that its rounding
 * and saturation are specified in one place:
 *
 *   - Narrowing results saturate to [INT32_MIN, INT32_MAX] and add one to the
 *     caller's overflow counter (`uint32_t *ovf`) when they do. Overflow is never
 *     silent: the world passes its step statistics counter.
 *   - fxg_mul rounds half away from zero: bit-identical to libfixmath's
 *     fix16_mul wherever that does not overflow (tested against it).
 *   - fxg_div is correctly rounded (half away from zero).
 *   - fxg_sqrt is correctly rounded (round to nearest; ties cannot occur).
 *   - Wide (fxg_wide, Q32.32 in int64) operations round half up (floor(x + 1/2)).
 */
#ifndef FXG_SCALAR_H
#define FXG_SCALAR_H

#include <stdbool.h>
#include <stdint.h>
#include <libfixmath/fix16.h>

#ifdef __cplusplus
extern "C" {
#define FXG_STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define FXG_STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif

/* A shared libfixstep is compiled with -fvisibility=hidden: it exports the
 * declarations between FXG_EXPORT_BEGIN and FXG_EXPORT_END in the installed
 * headers, and nothing of its internals. */
#if defined(__GNUC__)
#define FXG_EXPORT_BEGIN _Pragma("GCC visibility push(default)")
#define FXG_EXPORT_END _Pragma("GCC visibility pop")
#else
#define FXG_EXPORT_BEGIN
#define FXG_EXPORT_END
#endif
FXG_EXPORT_BEGIN

FXG_STATIC_ASSERT((-1 >> 1) == -1, "fixstep needs arithmetic right shift of negative values");
FXG_STATIC_ASSERT(sizeof(int64_t) == 8 && sizeof(int32_t) == 4, "exact-width integers");

#define FXG_ONE ((fix16_t)0x10000)
#define FXG_HALF ((fix16_t)0x8000)
#define FXG_MAX ((fix16_t)INT32_MAX)
#define FXG_MIN ((fix16_t)INT32_MIN)

/* Integer constant in Q16.16: FXG_I(3) == 3.0. Only for |i| <= 32767. */
#define FXG_I(i) ((fix16_t)((i)*65536))
/* Ratio constant p/q in Q16.16, rounded down; for compile-time constants only. */
#define FXG_RATIO(p, q) ((fix16_t)(((int64_t)(p)*65536) / (q)))

/* Q32.32 held in int64: the wide format for mass properties, accumulated
 * impulses and intermediate products. Range +-2^31, resolution 2^-32. */
typedef int64_t fxg_wide;
#define FXG_WIDE_ONE ((fxg_wide)1 << 32)

static inline fix16_t fxg_sat(int64_t v, uint32_t *ovf)
{
	if (v > INT32_MAX) {
		++*ovf;
		return INT32_MAX;
	}
	if (v < INT32_MIN) {
		++*ovf;
		return INT32_MIN;
	}
	return (fix16_t)v;
}

/* Saturating int64 addition (no undefined behaviour on overflow). */
static inline int64_t fxg_add64(int64_t a, int64_t b, uint32_t *ovf)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r)) {
		++*ovf;
		return a > 0 ? INT64_MAX : INT64_MIN;
	}
	return r;
}

/* Saturating int64 subtraction: a - b, for every b (INT64_MIN too, which
 * fxg_add64(a, -b) cannot take: its negation is undefined). Where -b
 * exists the result is fxg_add64(a, -b)'s, bit for bit. */
static inline int64_t fxg_sub64(int64_t a, int64_t b, uint32_t *ovf)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r)) {
		++*ovf;
		return b < 0 ? INT64_MAX : INT64_MIN;
	}
	return r;
}

/* Saturating int64 negation: -v, and INT64_MAX (counted) for INT64_MIN. */
static inline int64_t fxg_neg64(int64_t v, uint32_t *ovf) { return fxg_sub64(0, v, ovf); }

/* v / 2^s rounded half away from zero. Requires 1 <= s <= 62. A v above
 * INT64_MAX - 2^(s-1) (a saturated value: its rounding would overflow)
 * rounds as INT64_MAX - 2^(s-1); no other result changes. */
static inline int64_t fxg_shr_round(int64_t v, int s)
{
	const int64_t half = (int64_t)1 << (s - 1);
	v = v > INT64_MAX - half ? INT64_MAX - half : v;
	return (v + half - (v < 0)) >> s;
}

/* n / d rounded half away from zero, as fxg_shr_round rounds: d > 0 and
 * |n| + d / 2 < 2^63. */
static inline int64_t fxg_div_round64(int64_t n, int64_t d) { return n >= 0 ? (n + d / 2) / d : -((-n + d / 2) / d); }

/* a b / 2^16 rounded half away from zero (fxg_shr_round): the product of
 * two Q16.16 values held in int64, for |a b| < 2^63 - 2^15; no saturation. */
static inline int64_t fxg_mul_round64(int64_t a, int64_t b) { return fxg_shr_round(a * b, 16); }

/* |v| for v > INT64_MIN. */
static inline int64_t fxg_abs64(int64_t v) { return v < 0 ? -v : v; }

/* |v| as uint64_t, exact for every v, INT64_MIN included. */
static inline uint64_t fxg_uabs64(int64_t v) { return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v; }

/* v clamped to [lo, hi] (lo <= hi). */
static inline int64_t fxg_clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static inline fix16_t fxg_add(fix16_t a, fix16_t b, uint32_t *ovf)
{
	return fxg_sat((int64_t)a + b, ovf);
}

static inline fix16_t fxg_sub(fix16_t a, fix16_t b, uint32_t *ovf)
{
	return fxg_sat((int64_t)a - b, ovf);
}

static inline fix16_t fxg_neg(fix16_t a, uint32_t *ovf)
{
	return fxg_sat(-(int64_t)a, ovf);
}

static inline fix16_t fxg_abs(fix16_t a, uint32_t *ovf)
{
	return fxg_sat(a < 0 ? -(int64_t)a : (int64_t)a, ovf);
}

static inline fix16_t fxg_min(fix16_t a, fix16_t b) { return a < b ? a : b; }
static inline fix16_t fxg_max(fix16_t a, fix16_t b) { return a > b ? a : b; }
static inline fix16_t fxg_clamp(fix16_t v, fix16_t lo, fix16_t hi)
{
	return v < lo ? lo : (v > hi ? hi : v);
}

/* a * b, rounded half away from zero, saturated. */
static inline fix16_t fxg_mul(fix16_t a, fix16_t b, uint32_t *ovf)
{
	return fxg_sat(fxg_shr_round((int64_t)a * b, 16), ovf);
}

/* a / b, correctly rounded (ties away from zero), saturated.
 * b == 0: +max for a > 0, min for a < 0, 0 for a == 0; all counted. */
static inline fix16_t fxg_div(fix16_t a, fix16_t b, uint32_t *ovf)
{
	if (b == 0) {
		++*ovf;
		return a > 0 ? FXG_MAX : (a < 0 ? FXG_MIN : 0);
	}
	uint64_t ua = a < 0 ? (uint64_t)0 - (uint64_t)(int64_t)a : (uint64_t)a;
	uint64_t ub = b < 0 ? (uint64_t)0 - (uint64_t)(int64_t)b : (uint64_t)b;
	uint64_t q = ((ua << 17) + ub) / (ub << 1); /* round(ua * 2^16 / ub) */
	int64_t s = (a < 0) != (b < 0) ? -(int64_t)q : (int64_t)q;
	return fxg_sat(s, ovf);
}

/* Exact 128-bit products where the machine has them (x86-64, aarch64,
 * s390x): the same exact integer result as the portable code below, which
 * 32-bit targets use (the crosscheck runs both and compares the bits). wasm
 * takes the portable code too: its compiler has __int128, but wasm has no
 * 64 x 64 -> 128-bit multiply, so each product was a call to __multi3.
 * Define FXG_PORTABLE_WIDE to force the portable code everywhere. */
#if defined(__SIZEOF_INT128__) && !defined(FXG_PORTABLE_WIDE) && !defined(__wasm__)
#define FXG_HAVE_I128 1
__extension__ typedef __int128 fxg_i128;
__extension__ typedef unsigned __int128 fxg_u128;
#endif

/* floor(sqrt(n)) for any uint64, exact. n is shifted left by an even
 * amount s so that its top bit is bit 62 or 63 (m = n 4^(s/2));
 * floor(sqrt(n)) = floor(sqrt(m)) >> (s / 2).
 *
 * With FXG_HAVE_I128, no division: a table of m's top nine bits gives
 * R = 2^32 / sqrt(m) within 2^-9; two Newton steps for the reciprocal root,
 * R -> R (3 - m R^2 / 2^64) / 2, multiplications only, bring it within
 * about 2^-33, so x = m R / 2^32 is within about one of sqrt(m). The two
 * loops then step x to floor(sqrt(m)) exactly: they, not the error bound,
 * make the result exact.
 * Without: a table of m's top eight bits gives x0 >= floor(sqrt(m)) within
 * 1/128; Newton's iteration x -> (x + m / x) / 2 then decreases strictly
 * until it reaches floor(sqrt(m)), where the next value is not smaller
 * (about three divisions).
 * Both are exact, so both give the same bits; tests/test_glue_scalar.c
 * checks the one a target compiles, and `make crosscheck` runs both (i686
 * has no 128-bit integer). */
#ifdef FXG_HAVE_I128
/* round(2^32 / sqrt(m) 2^31) for m in [(i + 128) 2^55, (i + 129) 2^55), at
 * the harmonic mean of the range's ends (the last capped at 2^32 - 1): within
 * 2^-9 of R for every such m. Generated with Python; constant data, no state. */
/* clang-format off */
static const uint32_t fxg_rsqrt_seed[384] = {
	4286611297u, 4270028475u, 4253636629u, 4237432123u, 4221411413u, 4205571053u, 4189907682u, 4174418031u,
	4159098911u, 4143947215u, 4128959917u, 4114134065u, 4099466780u, 4084955257u, 4070596757u, 4056388610u,
	4042328211u, 4028413016u, 4014640543u, 4001008368u, 3987514127u, 3974155508u, 3960930255u, 3947836163u,
	3934871079u, 3922032898u, 3909319563u, 3896729063u, 3884259434u, 3871908754u, 3859675143u, 3847556764u,
	3835551819u, 3823658549u, 3811875234u, 3800200189u, 3788631767u, 3777168355u, 3765808373u, 3754550275u,
	3743392548u, 3732333709u, 3721372305u, 3710506915u, 3699736145u, 3689058629u, 3678473029u, 3667978035u,
	3657572361u, 3647254746u, 3637023957u, 3626878782u, 3616818034u, 3606840548u, 3596945182u, 3587130816u,
	3577396350u, 3567740706u, 3558162827u, 3548661674u, 3539236228u, 3529885488u, 3520608475u, 3511404222u,
	3502271785u, 3493210234u, 3484218657u, 3475296158u, 3466441858u, 3457654890u, 3448934408u, 3440279575u,
	3431689573u, 3423163597u, 3414700855u, 3406300568u, 3397961974u, 3389684319u, 3381466867u, 3373308889u,
	3365209673u, 3357168516u, 3349184729u, 3341257631u, 3333386555u, 3325570845u, 3317809855u, 3310102948u,
	3302449500u, 3294848896u, 3287300529u, 3279803806u, 3272358138u, 3264962950u, 3257617674u, 3250321750u,
	3243074629u, 3235875769u, 3228724636u, 3221620705u, 3214563460u, 3207552392u, 3200586998u, 3193666786u,
	3186791268u, 3179959966u, 3173172409u, 3166428130u, 3159726672u, 3153067584u, 3146450422u, 3139874746u,
	3133340126u, 3126846136u, 3120392356u, 3113978374u, 3107603782u, 3101268179u, 3094971168u, 3088712360u,
	3082491370u, 3076307817u, 3070161330u, 3064051538u, 3057978078u, 3051940591u, 3045938724u, 3039972128u,
	3034040458u, 3028143375u, 3022280545u, 3016451636u, 3010656324u, 3004894287u, 2999165206u, 2993468771u,
	2987804671u, 2982172602u, 2976572263u, 2971003357u, 2965465592u, 2959958678u, 2954482329u, 2949036265u,
	2943620207u, 2938233880u, 2932877014u, 2927549340u, 2922250595u, 2916980518u, 2911738851u, 2906525340u,
	2901339734u, 2896181785u, 2891051247u, 2885947879u, 2880871442u, 2875821699u, 2870798418u, 2865801369u,
	2860830323u, 2855885056u, 2850965347u, 2846070975u, 2841201724u, 2836357380u, 2831537730u, 2826742567u,
	2821971683u, 2817224875u, 2812501940u, 2807802679u, 2803126894u, 2798474392u, 2793844979u, 2789238465u,
	2784654662u, 2780093384u, 2775554447u, 2771037669u, 2766542871u, 2762069874u, 2757618504u, 2753188586u,
	2748779949u, 2744392423u, 2740025839u, 2735680033u, 2731354839u, 2727050095u, 2722765641u, 2718501317u,
	2714256967u, 2710032435u, 2705827567u, 2701642211u, 2697476218u, 2693329437u, 2689201721u, 2685092926u,
	2681002907u, 2676931521u, 2672878628u, 2668844087u, 2664827761u, 2660829513u, 2656849208u, 2652886712u,
	2648941892u, 2645014618u, 2641104760u, 2637212190u, 2633336780u, 2629478405u, 2625636940u, 2621812263u,
	2618004250u, 2614212783u, 2610437740u, 2606679005u, 2602936459u, 2599209988u, 2595499475u, 2591804808u,
	2588125875u, 2584462563u, 2580814763u, 2577182365u, 2573565262u, 2569963346u, 2566376511u, 2562804652u,
	2559247667u, 2555705450u, 2552177901u, 2548664919u, 2545166404u, 2541682256u, 2538212378u, 2534756672u,
	2531315042u, 2527887394u, 2524473631u, 2521073662u, 2517687394u, 2514314734u, 2510955591u, 2507609876u,
	2504277500u, 2500958374u, 2497652410u, 2494359522u, 2491079623u, 2487812629u, 2484558456u, 2481317018u,
	2478088235u, 2474872023u, 2471668301u, 2468476989u, 2465298006u, 2462131274u, 2458976713u, 2455834247u,
	2452703798u, 2449585290u, 2446478647u, 2443383793u, 2440300655u, 2437229159u, 2434169232u, 2431120801u,
	2428083795u, 2425058142u, 2422043771u, 2419040614u, 2416048600u, 2413067660u, 2410097728u, 2407138734u,
	2404190612u, 2401253296u, 2398326719u, 2395410817u, 2392505525u, 2389610778u, 2386726514u, 2383852668u,
	2380989178u, 2378135982u, 2375293019u, 2372460228u, 2369637548u, 2366824918u, 2364022281u, 2361229576u,
	2358446745u, 2355673730u, 2352910474u, 2350156918u, 2347413008u, 2344678686u, 2341953897u, 2339238585u,
	2336532696u, 2333836176u, 2331148970u, 2328471025u, 2325802287u, 2323142705u, 2320492226u, 2317850798u,
	2315218370u, 2312594890u, 2309980309u, 2307374576u, 2304777641u, 2302189455u, 2299609968u, 2297039133u,
	2294476901u, 2291923223u, 2289378054u, 2286841344u, 2284313049u, 2281793120u, 2279281513u, 2276778181u,
	2274283080u, 2271796163u, 2269317387u, 2266846707u, 2264384080u, 2261929461u, 2259482807u, 2257044075u,
	2254613223u, 2252190209u, 2249774989u, 2247367523u, 2244967769u, 2242575687u, 2240191234u, 2237814371u,
	2235445058u, 2233083255u, 2230728922u, 2228382019u, 2226042508u, 2223710351u, 2221385508u, 2219067942u,
	2216757614u, 2214454487u, 2212158524u, 2209869688u, 2207587942u, 2205313249u, 2203045572u, 2200784877u,
	2198531128u, 2196284288u, 2194044322u, 2191811197u, 2189584876u, 2187365325u, 2185152511u, 2182946399u,
	2180746955u, 2178554146u, 2176367938u, 2174188299u, 2172015196u, 2169848596u, 2167688466u, 2165534775u,
	2163387490u, 2161246581u, 2159112015u, 2156983761u, 2154861788u, 2152746066u, 2150636563u, 2148533249u,
};
/* clang-format on */

static inline uint64_t fxg_mulhi64(uint64_t a, uint64_t b) { return (uint64_t)(((fxg_u128)a * b) >> 64); }

static inline uint64_t fxg_isqrt64(uint64_t n)
{
	if (n < 2)
		return n;
	int s = __builtin_clzll(n) & ~1;
	uint64_t m = n << s;
	uint64_t r = fxg_rsqrt_seed[(m >> 55) - 128]; /* R 2^31 */
	/* one step in 64 bits: M R^2 2^30 with M = m / 2^64 */
	uint64_t h = ((uint64_t)3 << 30) - ((((r * r) >> 32) * (m >> 32)) >> 32);
	r = (r * h) >> 31; /* R 2^31 */
	if (r > 0xFFFFFFFFu)
		r = 0xFFFFFFFFu;                         /* R <= 2: only ever nearer the root */
	h = ((uint64_t)3 << 62) - fxg_mulhi64(m, r * r); /* (3 - M R^2) 2^62 */
	r = fxg_mulhi64(r << 32, h);                     /* R 2^62 */
	uint64_t x = fxg_mulhi64(m, r) >> 30;
	if (x > 0xFFFFFFFFu)
		x = 0xFFFFFFFFu; /* the integer root of m is below 2^32 */
	while (x * x > m)
		--x;
	while (m - x * x > 2 * x) /* (x + 1)^2 <= m */
		++x;
	return x >> (s / 2);
}
#else
/* ceil(sqrt((i + 65) 2^56)) for i in 0..191 (the last capped at 2^32 - 1):
 * an upper bound of sqrt(m) for every m whose top eight bits are i + 64.
 * Generated with Python's math.isqrt; constant data, no state. */
/* clang-format off */
static const uint32_t fxg_isqrt_seed[192] = {
	2164195836u, 2180779954u, 2197238904u, 2213575478u, 2229792365u, 2245892158u, 2261877357u, 2277750375u,
	2293513542u, 2309169106u, 2324719242u, 2340166052u, 2355511567u, 2370757756u, 2385906522u, 2400959709u,
	2415919104u, 2430786439u, 2445563393u, 2460251593u, 2474852621u, 2489368010u, 2503799250u, 2518147787u,
	2532415028u, 2546602338u, 2560711046u, 2574742444u, 2588697790u, 2602578307u, 2616385185u, 2630119585u,
	2643782636u, 2657375438u, 2670899064u, 2684354560u, 2697742946u, 2711065214u, 2724322336u, 2737515257u,
	2750644902u, 2763712172u, 2776717948u, 2789663091u, 2802548439u, 2815374815u, 2828143020u, 2840853839u,
	2853508039u, 2866106370u, 2878649565u, 2891138342u, 2903573403u, 2915955435u, 2928285111u, 2940563090u,
	2952790016u, 2964966522u, 2977093225u, 2989170732u, 3001199636u, 3013180521u, 3025113956u, 3037000500u,
	3048840703u, 3060635102u, 3072384224u, 3084088588u, 3095748699u, 3107365058u, 3118938152u, 3130468462u,
	3141956458u, 3153402604u, 3164807352u, 3176171149u, 3187494433u, 3198777635u, 3210021176u, 3221225472u,
	3232390932u, 3243517956u, 3254606939u, 3265658268u, 3276672323u, 3287649481u, 3298590108u, 3309494568u,
	3320363217u, 3331196404u, 3341994476u, 3352757771u, 3363486624u, 3374181362u, 3384842309u, 3395469783u,
	3406064099u, 3416625563u, 3427154480u, 3437651149u, 3448115865u, 3458548917u, 3468950592u, 3479321170u,
	3489660928u, 3499970141u, 3510249077u, 3520498001u, 3530717175u, 3540906856u, 3551067299u, 3561198752u,
	3571301464u, 3581375677u, 3591421632u, 3601439564u, 3611429706u, 3621392290u, 3631327541u, 3641235684u,
	3651116939u, 3660971523u, 3670799652u, 3680601538u, 3690377389u, 3700127413u, 3709851812u, 3719550787u,
	3729224538u, 3738873259u, 3748497144u, 3758096384u, 3767671168u, 3777221680u, 3786748106u, 3796250625u,
	3805729418u, 3815184661u, 3824616529u, 3834025194u, 3843410827u, 3852773595u, 3862113666u, 3871431204u,
	3880726370u, 3889999325u, 3899250229u, 3908479236u, 3917686503u, 3926872181u, 3936036423u, 3945179377u,
	3954301191u, 3963402011u, 3972481982u, 3981541246u, 3990579944u, 3999598215u, 4008596197u, 4017574028u,
	4026531840u, 4035469769u, 4044387945u, 4053286499u, 4062165560u, 4071025256u, 4079865712u, 4088687053u,
	4097489404u, 4106272885u, 4115037619u, 4123783723u, 4132511318u, 4141220519u, 4149911442u, 4158584203u,
	4167238914u, 4175875688u, 4184494636u, 4193095867u, 4201679491u, 4210245615u, 4218794346u, 4227325789u,
	4235840049u, 4244337229u, 4252817432u, 4261280758u, 4269727309u, 4278157184u, 4286570480u, 4294967295u,
};
/* clang-format on */

static inline uint64_t fxg_isqrt64(uint64_t n)
{
	if (n < 2)
		return n;
	int s = __builtin_clzll(n) & ~1;
	uint64_t m = n << s;
	uint64_t x = fxg_isqrt_seed[(m >> 56) - 64];
	uint64_t y = (x + m / x) >> 1;
	while (y < x) {
		x = y;
		y = (x + m / x) >> 1;
	}
	return x >> (s / 2);
}
#endif

/* round(sqrt(n)) for any uint64 (ties are impossible for integers). */
static inline uint64_t fxg_isqrt64_round(uint64_t n)
{
	uint64_t r = fxg_isqrt64(n);
	/* sqrt(n) >= r + 1/2  <=>  n >= r^2 + r + 1/4  <=>  n > r^2 + r */
	return (n - r * r > r) ? r + 1 : r;
}

/* sqrt(x), correctly rounded. x < 0 is a domain error: returns 0, counted. */
static inline fix16_t fxg_sqrt(fix16_t x, uint32_t *ovf)
{
	if (x < 0) {
		++*ovf;
		return 0;
	}
	return (fix16_t)fxg_isqrt64_round((uint64_t)x << 16);
}

/* 1 / sqrt(x), correctly rounded (round to nearest; ties cannot occur).
 * x <= 0 is a domain error: returns FXG_MAX, counted.
 * In raw units the result is r = round(2^24 / sqrt(x)), so 362 <= r <= 2^24:
 * it never overflows. A seed from the exact integer square root of x scaled
 * into [2^60, 2^62) is within 0.52 of 2^24 / sqrt(x); one exact test on each
 * side then picks the nearest integer:
 *   r is nearest  <=>  (2r - 1)^2 x <= 2^50 < (2r + 1)^2 x
 * where both products stay near 2^50 (r is within 1 of the answer). */
static inline fix16_t fxg_rsqrt(fix16_t x, uint32_t *ovf)
{
	if (x <= 0) {
		++*ovf;
		return FXG_MAX;
	}
	uint64_t ux = (uint64_t)x;
	int k = (__builtin_clzll(ux) - 2) >> 1;  /* 15..30: ux 4^k in [2^60, 2^62) */
	uint64_t s = fxg_isqrt64(ux << (2 * k)); /* in [2^30, 2^31), floor */
	/* 2^24 / sqrt(x) = 2^(24+k) / sqrt(x 4^k); 24 + k <= 54 */
	uint64_t r = (((uint64_t)1 << (24 + k)) + (s >> 1)) / s;
	const uint64_t lim = (uint64_t)1 << 50;
	uint64_t up = 2 * r + 1, dn = 2 * r - 1;
	r += (up * up * ux <= lim); /* seed too small */
	r -= (dn * dn * ux > lim);  /* seed too large */
	return (fix16_t)r;
}

/* sqrt of a non-negative Q32.32 value, as Q16.16, correctly rounded and
 * saturated: sqrt(v * 2^-32) * 2^16 == sqrt(v). */
static inline fix16_t fxg_sqrt_wide(fxg_wide v, uint32_t *ovf)
{
	if (v < 0) {
		++*ovf;
		return 0;
	}
	return fxg_sat((int64_t)fxg_isqrt64_round((uint64_t)v), ovf);
}

/* ---- wide (Q32.32) ---- */

static inline fxg_wide fxg_wide_from_fix(fix16_t a) { return (fxg_wide)a * 65536; }

/* Q32.32 -> Q16.16, rounded half up, saturated. */
static inline fix16_t fxg_wide_to_fix(fxg_wide w, uint32_t *ovf)
{
	if (w > INT64_MAX - 0x8000)
		return fxg_sat(INT64_MAX, ovf);
	return fxg_sat((w + 0x8000) >> 16, ovf);
}

/* Exact product of two Q16.16 values as Q32.32 (cannot overflow). */
static inline fxg_wide fxg_mul_wide(fix16_t a, fix16_t b) { return (int64_t)a * b; }

/* Q32.32 * Q16.16 -> Q32.32, rounded half up, saturated. Exact 96-bit product
 * (FXG_HAVE_I128 above, or the portable code for 32-bit targets). */
static inline fxg_wide fxg_wmul(fxg_wide w, fix16_t f, uint32_t *ovf)
{
#ifdef FXG_HAVE_I128
	fxg_i128 r = ((fxg_i128)w * f + 0x8000) >> 16; /* floor(w f / 2^16 + 1/2) */
	if (r > INT64_MAX || r < INT64_MIN) {
		++*ovf;
		return r > 0 ? INT64_MAX : INT64_MIN;
	}
	return (int64_t)r;
#else
	int64_t hi = w >> 32;                      /* signed high word */
	uint64_t lo = (uint64_t)w & 0xFFFFFFFFu;   /* unsigned low word */
	int64_t a = hi * f;                        /* |a| <= 2^62 */
	int64_t t = (int64_t)lo * f;               /* |t| < 2^63 */
	int64_t low = (t >> 16) + ((t >> 15) & 1); /* round(t / 2^16), half up */
	/* result = a 2^16 + low. Fold low's whole multiples of 2^16 into a first, so
	 * that the range test is exact: a result just inside the int64 range with
	 * a 2^16 just outside it (a = 2^47, low < 0) must not saturate. */
	int64_t a2 = a + (low >> 16); /* |a2| < 2^62 + 2^32 */
	int64_t rem = low & 0xFFFF;   /* in [0, 2^16) */
	if (a2 > (INT64_MAX >> 16) || a2 < (INT64_MIN >> 16)) {
		++*ovf;
		return a2 > 0 ? INT64_MAX : INT64_MIN;
	}
	return a2 * 65536 + rem; /* a2 in [-2^47, 2^47 - 1]: exact, no overflow */
#endif
}

/* Q32.32 * Q16.16 -> Q16.16 held in int64: floor((w f + 2^31) / 2^32), exact
 * and never out of int64 range (|w f / 2^32| < 2^62). The solver's response
 * products (inverse mass or inertia times an impulse) are this. */
static inline int64_t fxg_wmul_fix64(fxg_wide w, fix16_t f)
{
#ifdef FXG_HAVE_I128
	fxg_i128 p = (fxg_i128)w * (int64_t)f; /* one signed 64x64 -> 128 multiply */
	return (int64_t)((p + ((fxg_i128)1 << 31)) >> 32);
#else
	int64_t hi = w >> 32;    /* w = hi 2^32 + lo */
	int64_t lo = (int64_t)((uint64_t)w & 0xFFFFFFFFu);
	int64_t t = lo * f; /* |t| < 2^63 - 2^32: + 2^31 cannot overflow */
	return hi * f + ((t + ((int64_t)1 << 31)) >> 32);
#endif
}

/* The same, saturated to Q16.16. */
static inline fix16_t fxg_wmul_fix(fxg_wide w, fix16_t f, uint32_t *ovf) { return fxg_sat(fxg_wmul_fix64(w, f), ovf); }

/* Q32.32 * Q32.32 -> Q32.32, rounded half up, saturated (portable 128-bit product). */
fxg_wide fxg_wmul_wide(fxg_wide a, fxg_wide b, uint32_t *ovf);

/* 1 / w for a Q32.32 value, as Q32.32, correctly rounded, saturated.
 * w == 0 saturates to INT64_MAX and is counted. */
fxg_wide fxg_wide_recip(fxg_wide w, uint32_t *ovf);

/* Q32.32 / Q32.32 -> Q32.32, correctly rounded (ties away from zero), saturated. */
fxg_wide fxg_wide_div(fxg_wide a, fxg_wide b, uint32_t *ovf);

/* ---- conversions ---- */

/* int -> Q16.16, saturated (|i| > 32767 clips, counted). */
static inline fix16_t fxg_from_int(int32_t i, uint32_t *ovf) { return fxg_sat((int64_t)i * 65536, ovf); }
/* Q16.16 -> int, floor. */
static inline int32_t fxg_to_int_floor(fix16_t a) { return a >> 16; }
/* Q16.16 -> int, rounded half away from zero; never UB (fixes fix16_to_int). */
static inline int32_t fxg_to_int_round(fix16_t a) { return (int32_t)fxg_shr_round((int64_t)a, 16); }

FXG_EXPORT_END
#ifdef __cplusplus
}
#endif

#endif
