// Bullet's btDbvtBroadphase on the broadphase micro-benchmark of
// docs/benchmarks.md, for `fixstep bench broadphase` to print
// next to fixstep's figures. A benchmark comparison only: nothing in the
// kernel, the normal build or the tests depends on Bullet.
//
//   bullet_broadphase N fast|slow [WARMUP=20] [STEPS=100]
// prints
//   bullet ms=<per step> pairs=<pair cache size> exact=<of those, overlapping exactly> bytes_per_body=<B>
//
// Same motion as tools/cli/bench_broadphase.c, bit for bit (float, SplitMix64
// seed 12345, no contraction: build with -ffp-contract=off). Timed: per step,
// setAabb for every proxy in index order, then calculateOverlappingPairs.
// Memory: every byte Bullet allocates through btAlignedAlloc (its tree
// nodes, proxies and pair cache) counted by a custom allocator.
#include <btBulletCollisionCommon.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static size_t live_bytes = 0;
static void *count_alloc(size_t n)
{
	unsigned char *p = static_cast<unsigned char *>(std::malloc(n + 16));
	if (!p)
		return nullptr;
	std::memcpy(p, &n, sizeof n);
	live_bytes += n;
	return p + 16;
}
static void count_free(void *q)
{
	if (!q)
		return;
	unsigned char *p = static_cast<unsigned char *>(q) - 16;
	size_t n;
	std::memcpy(&n, p, sizeof n);
	live_bytes -= n;
	std::free(p);
}

static uint64_t sm_state;
static uint64_t sm_next()
{
	uint64_t z = (sm_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
static float uniform(float lo, float hi) { return lo + (hi - lo) * ((float)(sm_next() >> 40) * 0x1p-24f); }

static float world_side(uint32_t n)
{
	double t = 4.0 * n, x = t > 1 ? t / 3 : 1;
	for (int k = 0; k < 200; ++k)
		x = (2 * x + t / (x * x)) / 3;
	return (float)x;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		std::fprintf(stderr, "usage: bullet_broadphase N fast|slow [WARMUP] [STEPS]\n");
		return 2;
	}
	uint32_t n = (uint32_t)std::strtoul(argv[1], nullptr, 10);
	float vmax = std::strcmp(argv[2], "fast") == 0 ? 0.1f : 0.01f;
	int warm = argc > 3 ? std::atoi(argv[3]) : 20, steps = argc > 4 ? std::atoi(argv[4]) : 100;
	if (n < 2 || steps < 1 || warm < 0)
		return 2;
	btAlignedAllocSetCustom(count_alloc, count_free);

	float L = world_side(n);
	std::vector<float> h(3 * n), c(3 * n), v(3 * n);
	sm_state = 12345;
	for (uint32_t i = 0; i < n; ++i) {
		for (int a = 0; a < 3; ++a)
			h[3 * i + a] = uniform(0.25f, 0.75f);
		for (int a = 0; a < 3; ++a)
			c[3 * i + a] = uniform(h[3 * i + a], L - h[3 * i + a]);
		for (int a = 0; a < 3; ++a)
			v[3 * i + a] = uniform(-vmax, vmax);
	}
	auto step_motion = [&]() {
		for (uint32_t k = 0; k < 3 * n; ++k) {
			float hh = h[k], cc = c[k] + v[k];
			if (cc < hh) {
				cc = 2 * hh - cc;
				v[k] = -v[k];
			} else if (cc > L - hh) {
				cc = 2 * (L - hh) - cc;
				v[k] = -v[k];
			}
			c[k] = cc;
		}
	};
	auto box = [&](uint32_t i, btVector3 &mn, btVector3 &mx) {
		mn.setValue(c[3 * i] - h[3 * i], c[3 * i + 1] - h[3 * i + 1], c[3 * i + 2] - h[3 * i + 2]);
		mx.setValue(c[3 * i] + h[3 * i], c[3 * i + 1] + h[3 * i + 1], c[3 * i + 2] + h[3 * i + 2]);
	};

	size_t before = live_bytes;
	btDefaultCollisionConfiguration config;
	btCollisionDispatcher dispatcher(&config);
	size_t dispatcher_bytes = live_bytes - before;
	btDbvtBroadphase *bp = new btDbvtBroadphase();
	std::vector<btBroadphaseProxy *> proxies(n);
	for (uint32_t i = 0; i < n; ++i) {
		btVector3 mn, mx;
		box(i, mn, mx);
		proxies[i] = bp->createProxy(mn, mx, BOX_SHAPE_PROXYTYPE, (void *)(uintptr_t)(i + 1),
					     btBroadphaseProxy::DefaultFilter, btBroadphaseProxy::AllFilter, &dispatcher);
	}
	bp->calculateOverlappingPairs(&dispatcher);
	auto one_step = [&]() {
		for (uint32_t i = 0; i < n; ++i) {
			btVector3 mn, mx;
			box(i, mn, mx);
			bp->setAabb(proxies[i], mn, mx, &dispatcher);
		}
		bp->calculateOverlappingPairs(&dispatcher);
	};
	for (int s = 0; s < warm; ++s) {
		step_motion();
		one_step();
	}
	double total_ns = 0;
	for (int s = 0; s < steps; ++s) {
		step_motion();
		auto t0 = std::chrono::steady_clock::now();
		one_step();
		auto t1 = std::chrono::steady_clock::now();
		total_ns += (double)std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
	}
	btOverlappingPairCache *cache = bp->getOverlappingPairCache();
	int np = cache->getNumOverlappingPairs();
	btBroadphasePair *pairs = np ? cache->getOverlappingPairArrayPtr() : nullptr;
	uint32_t exact = 0;
	for (int k = 0; k < np; ++k) {
		uint32_t a = (uint32_t)(uintptr_t)pairs[k].m_pProxy0->m_clientObject - 1;
		uint32_t b = (uint32_t)(uintptr_t)pairs[k].m_pProxy1->m_clientObject - 1;
		btVector3 amn, amx, bmn, bmx;
		box(a, amn, amx);
		box(b, bmn, bmx);
		exact += TestAabbAgainstAabb2(amn, amx, bmn, bmx) ? 1 : 0;
	}
	size_t bytes = live_bytes - before - dispatcher_bytes;
	std::printf("bullet ms=%.4f pairs=%d exact=%u bytes_per_body=%.1f\n", total_ns / 1e6 / steps, np, exact,
		    (double)bytes / n);
	for (uint32_t i = 0; i < n; ++i)
		bp->destroyProxy(proxies[i], &dispatcher);
	delete bp;
	return 0;
}
