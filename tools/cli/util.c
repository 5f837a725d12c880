#define _POSIX_C_SOURCE 199309L
#include "cli/cli.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("fixstep: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return 2;
}

bool cli_positional(const char *cmd, const char *a, const char **slots, int n)
{
	if (a[0] == '-') {
		cli_usage_error("%s: unknown option '%s'", cmd, a);
		return false;
	}
	for (int k = 0; k < n; ++k)
		if (!slots[k]) {
			slots[k] = a;
			return true;
		}
	cli_usage_error("%s: unexpected argument '%s'", cmd, a);
	return false;
}

const fxs_scene *cli_scene(const char *name)
{
	const fxs_scene *sc = fxs_scene_find(name);
	if (!sc)
		cli_usage_error("unknown scene '%s' (see fixstep scenes)", name);
	return sc;
}

fxs_world *cli_scene_world(const fxs_scene *sc)
{
	fxs_world *w = sc->create();
	if (!w)
		cli_usage_error("scene '%s' could not be created", sc->name);
	return w;
}

int cli_parse_u32(const char *s, uint32_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return 0;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return 0;
	*out = (uint32_t)v;
	return 1;
}

/* one hex digit's value, or -1 */
static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool cli_parse_hex(const char *s, uint8_t *out, size_t n)
{
	if (!s || strlen(s) != 2 * n)
		return false;
	for (size_t i = 0; i < 2 * n; ++i) {
		int d = hex_digit(s[i]);
		if (d < 0)
			return false;
		out[i / 2] = (uint8_t)(i % 2 ? (out[i / 2] | d) : d << 4);
	}
	return true;
}

bool cli_parse_prob(const char *s, double *out)
{
	if (!s || !((*s >= '0' && *s <= '9') || *s == '.'))
		return false;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (*end || end == s || errno || !(v >= 0 && v <= 1))
		return false;
	*out = v;
	return true;
}

int cli_parse_kernels(const char *s)
{
	for (int k = FXS_KERNELS_PORTABLE; k < FXS_KERNELS_LEVELS; ++k)
		if (s && strcmp(s, fxs_kernels_name((fxs_kernels)k)) == 0)
			return k;
	cli_usage_error("--kernels needs portable, sse4, avx2, avx512, simd128 or neon");
	return -1;
}

void cli_use_kernels(fxs_world *w, int requested)
{
	if (requested < 0)
		return;
	fxs_kernels got = fxs_world_set_kernels(w, (fxs_kernels)requested);
	if ((int)got != requested)
		fprintf(stderr, "fixstep: note: no %s kernels on this machine; running %s (the same bits)\n",
			fxs_kernels_name((fxs_kernels)requested), fxs_kernels_name(got));
}

bool cli_step(fxs_world *w)
{
	fxs_result e = fxs_world_step(w);
	if (e == FXS_OK)
		return true;
	fprintf(stderr, "fixstep: %s at step %" PRIu64 "\n", fxs_result_string(e), fxs_world_get_step(w) + 1);
	return false;
}

uint64_t cli_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
