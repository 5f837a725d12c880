/* A small test framework: TEST(name) registers a test; CHECK fails it.
 * The runner prints one line per test and closes with "N passed, N failed". */
#ifndef FXS_TEST_H
#define FXS_TEST_H

#include <inttypes.h>
#include <stdio.h>

typedef void (*test_fn)(void);
void test_register(const char *name, test_fn fn, int slow);
void test_fail(const char *file, int line, const char *msg);
extern int test_quick;  /* --quick: long sweeps shrink */
extern int test_failed; /* set by test_fail for the running test */

#define TEST_(name, slow)                                                                                    \
	static void name(void);                                                                              \
	__attribute__((constructor)) static void name##_register(void) { test_register(#name, name, slow); } \
	static void name(void)
/* A test. */
#define TEST(name) TEST_(name, 0)
/* A long test: shrinks its sweep under --quick (it reads test_quick itself). */
#define SLOW_TEST(name) TEST_(name, 1)

#define CHECK(cond)                                           \
	do {                                                  \
		if (!(cond)) {                                \
			test_fail(__FILE__, __LINE__, #cond); \
			return;                               \
		}                                             \
	} while (0)

#define CHECKF(cond, ...)                                         \
	do {                                                      \
		if (!(cond)) {                                    \
			char msg_[512];                           \
			snprintf(msg_, sizeof msg_, __VA_ARGS__); \
			test_fail(__FILE__, __LINE__, msg_);      \
			return;                                   \
		}                                                 \
	} while (0)

/* 3 on a loaded machine (the load average at or above the cores) or in a
 * sanitizer's build, else 1: what the multi-process tests on real clocks
 * stretch their absence rules and timeouts by (the same assertions). */
int test_slow_factor(void);

/* Wall clock in ns (C11 timespec_get), for figures tests print, never for a
 * pass or a fail. */
#include <time.h>
static inline uint64_t test_now_ns(void)
{
	struct timespec ts;
	timespec_get(&ts, TIME_UTC);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* SplitMix64: the tests' seeded generator. */
static inline uint64_t test_rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

#endif
