/* Seed 004's wall spheres (fixstep/sphere_walls.h for the algorithm and the
 * fixes to the paper). */
#include "fixstep/sphere_walls.h"
#include "fixstep/query.h"

#include "world/world.h"

#include <stdlib.h>
#include <string.h>

fxs_sphere_walls_def fxs_default_sphere_walls_def(void)
{
	fxs_sphere_walls_def d;
	d.radius = FXG_ONE / 4;
	d.merge_distance = 0;
	d.max_spheres = 1u << 20;
	return d;
}

typedef struct keyed {
	uint64_t d; /* distance from the origin, rounded down (raw units) */
	uint32_t i;
} keyed;

static int keyed_cmp(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->d != y->d)
		return x->d < y->d ? -1 : 1;
	return x->i < y->i ? -1 : (x->i > y->i);
}

static int pair_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return *x < *y ? -1 : (*x > *y);
}

static uint64_t isqrt_floor(uint64_t n)
{
	uint64_t r = fxg_isqrt64_round(n);
	while (r * r > n)
		--r;
	return r;
}

/* The paper's origin-distance search for near-duplicates: sort by |c|
 * (rounded down, so the filter |D_i - D_j| <= thr + 1 is conservative),
 * exact test on the candidates, keep the lower index. Returns the new count
 * (the array compacted in place, order kept), or UINT32_MAX on no memory. */
static uint32_t merge_near(fxg_vec3 *c, uint32_t n, fxg_vec3 origin, fix16_t thr, fxs_sphere_walls_stats *st)
{
	if (n < 2 || thr <= 0)
		return n;
	keyed *k = malloc((size_t)n * sizeof *k);
	uint8_t *gone = calloc(n, 1);
	size_t pcap = 1024, pn = 0;
	uint64_t *pairs = malloc(pcap * sizeof *pairs);
	if (!k || !gone || !pairs) {
		free(k), free(gone), free(pairs);
		return UINT32_MAX;
	}
	for (uint32_t i = 0; i < n; ++i) {
		int64_t x = (int64_t)c[i].x - origin.x, y = (int64_t)c[i].y - origin.y, z = (int64_t)c[i].z - origin.z;
		k[i].d = isqrt_floor((uint64_t)(x * x) + (uint64_t)(y * y) + (uint64_t)(z * z));
		k[i].i = i;
	}
	qsort(k, n, sizeof *k, keyed_cmp);
	const int64_t t2 = (int64_t)thr * thr;
	for (uint32_t a = 0; a < n; ++a)
		for (uint32_t b = a + 1; b < n && k[b].d - k[a].d <= (uint64_t)thr + 1; ++b) {
			st->candidate_pairs++;
			uint32_t i = k[a].i, j = k[b].i;
			int64_t dx = (int64_t)c[i].x - c[j].x, dy = (int64_t)c[i].y - c[j].y, dz = (int64_t)c[i].z - c[j].z;
			if (dx * dx + dy * dy + dz * dz > t2)
				continue;
			if (pn == pcap) {
				uint64_t *np = realloc(pairs, 2 * pcap * sizeof *pairs);
				if (!np) {
					free(k), free(gone), free(pairs);
					return UINT32_MAX;
				}
				pairs = np;
				pcap *= 2;
			}
			uint32_t lo = i < j ? i : j, hi = i < j ? j : i;
			pairs[pn++] = (uint64_t)hi << 32 | lo;
		}
	/* by higher index: a sphere goes when a kept lower one is that close */
	qsort(pairs, pn, sizeof *pairs, pair_cmp);
	for (size_t p = 0; p < pn; ++p) {
		uint32_t hi = (uint32_t)(pairs[p] >> 32), lo = (uint32_t)pairs[p];
		if (!gone[lo])
			gone[hi] = 1;
	}
	uint32_t m = 0;
	for (uint32_t i = 0; i < n; ++i)
		if (!gone[i])
			c[m++] = c[i];
	st->merged += n - m;
	free(k), free(gone), free(pairs);
	return m;
}

uint32_t fxs_sphere_walls_build(const fxs_world *w, fxs_body_id mesh_body, const fxs_sphere_walls_def *def,
				fxg_vec3 *out, uint32_t cap, fxs_sphere_walls_stats *stats)
{
	fxs_sphere_walls_stats st;
	memset(&st, 0, sizeof st);
	const fxs_body *b = fxs_world_get_body(w, mesh_body);
	if (!b || !def)
		return UINT32_MAX;
	fix16_t r = def->radius;
	if (!b || b->shape.type != FXS_SHAPE_MESH || r < FXG_ONE / 64 || r > FXG_I(100) || def->merge_distance < 0)
		return UINT32_MAX;
	fix16_t merge = def->merge_distance ? def->merge_distance : r / 2;
	uint32_t ovf = 0;
	fxs_aabb bb = fxs_body_compute_aabb(b, &ovf);
	int64_t ext[3] = { (int64_t)bb.hi.x - bb.lo.x, (int64_t)bb.hi.y - bb.lo.y, (int64_t)bb.hi.z - bb.lo.z };
	uint32_t cnt[3];
	for (int a = 0; a < 3; ++a) {
		if (ext[a] < 0 || ext[a] > FXG_I(16384))
			return UINT32_MAX;
		cnt[a] = (uint32_t)(ext[a] / r) + 1;
	}
	size_t cap_hits = 1024, nh = 0;
	fxg_vec3 *hits = malloc(cap_hits * sizeof *hits);
	if (!hits)
		return UINT32_MAX;
	static const int dirs[6][3] = { { 1, 0, 0 }, { -1, 0, 0 }, { 0, 1, 0 }, { 0, -1, 0 }, { 0, 0, 1 }, { 0, 0, -1 } };
	for (uint32_t iy = 0; iy < cnt[1]; ++iy)
		for (uint32_t iz = 0; iz < cnt[2]; ++iz)
			for (uint32_t ix = 0; ix < cnt[0]; ++ix) {
				fxg_vec3 p = fxg_v3(bb.lo.x + (fix16_t)ix * r, bb.lo.y + (fix16_t)iy * r, bb.lo.z + (fix16_t)iz * r);
				st.probes++;
				for (int d = 0; d < 6; ++d) {
					fxg_vec3 q = fxg_v3(p.x + dirs[d][0] * r, p.y + dirs[d][1] * r, p.z + dirs[d][2] * r);
					fxs_cast_hit h;
					if (!fxs_shape_ray_cast(&b->shape, &b->xf, p, q, &h))
						continue;
					if (nh == cap_hits) {
						fxg_vec3 *nw = realloc(hits, 2 * cap_hits * sizeof *hits);
						if (!nw) {
							free(hits);
							return UINT32_MAX;
						}
						hits = nw;
						cap_hits *= 2;
					}
					/* centre r behind the surface, along the face normal */
					hits[nh++] = fxg_v3(h.point.x - fxg_mul(r, h.normal.x, &ovf),
							    h.point.y - fxg_mul(r, h.normal.y, &ovf),
							    h.point.z - fxg_mul(r, h.normal.z, &ovf));
					if (nh > def->max_spheres * (size_t)2 + 64) {
						free(hits);
						return UINT32_MAX;
					}
				}
			}
	st.hits = (uint32_t)nh;
	uint32_t n = merge_near(hits, (uint32_t)nh, bb.lo, merge, &st);
	if (n == UINT32_MAX || n > def->max_spheres) {
		free(hits);
		return UINT32_MAX;
	}
	if (cap)
		memcpy(out, hits, (size_t)(n < cap ? n : cap) * sizeof *out);
	free(hits);
	if (stats)
		*stats = st;
	return n;
}
