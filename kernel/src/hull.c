#include "hull.h"

#include <string.h>

typedef struct { int64_t x, y, z; } iv3;

static iv3 isub(iv3 a, iv3 b) { return (iv3){ a.x - b.x, a.y - b.y, a.z - b.z }; }
static iv3 icross(iv3 a, iv3 b)
{
	return (iv3){ a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x };
}
static int64_t idot(iv3 a, iv3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static int iszero(iv3 a) { return a.x == 0 && a.y == 0 && a.z == 0; }

/* lexicographic (x, y, z) order, then index */
static int lex_less(iv3 a, iv3 b)
{
	if (a.x != b.x)
		return a.x < b.x;
	if (a.y != b.y)
		return a.y < b.y;
	return a.z < b.z;
}

int fxs_hull_build(const fxg_vec3 *pts, int n, fxs_hull *out)
{
	memset(out, 0, sizeof *out);
	if (n < 4 || n > FXS_HULL_MAX_INPUT)
		return FXS_HULL_ERR_COUNT;
	/* grid coordinates: |q| <= 2048, differences <= 2^12, cross products
	 * <= 2^25 per component, plane tests <= 3 * 2^37: int64 is exact */
	iv3 q[FXS_HULL_MAX_INPUT];
	int m = 0;
	for (int i = 0; i < n; ++i) {
		iv3 p = { fxg_shr_round(pts[i].x, FXS_HULL_GRID_SHIFT), fxg_shr_round(pts[i].y, FXS_HULL_GRID_SHIFT),
			  fxg_shr_round(pts[i].z, FXS_HULL_GRID_SHIFT) };
		if (p.x < -FXS_HULL_MAX_COORD || p.x > FXS_HULL_MAX_COORD || p.y < -FXS_HULL_MAX_COORD ||
		    p.y > FXS_HULL_MAX_COORD || p.z < -FXS_HULL_MAX_COORD || p.z > FXS_HULL_MAX_COORD)
			return FXS_HULL_ERR_RANGE;
		int dup = 0;
		for (int j = 0; j < m; ++j)
			if (iszero(isub(q[j], p)))
				dup = 1;
		if (!dup) {
			q[m++] = p;
		}
	}
	if (m < 4)
		return FXS_HULL_ERR_FLAT;

	/* faces found so far: outward normal and one point of the plane */
	iv3 fn[2 * FXS_HULL_MAX_INPUT * 2];
	int fp[2 * FXS_HULL_MAX_INPUT * 2];
	int nf = 0;
	/* polygons, then triangles in input-point indices */
	uint8_t tri[FXS_HULL_MAX_INPUT * 2 * 2][3];
	int nt = 0;
	int used[FXS_HULL_MAX_INPUT] = { 0 };
	int any_volume = 0;
	for (int i = 0; i < m; ++i)
		for (int j = i + 1; j < m; ++j)
			for (int k = j + 1; k < m; ++k) {
				iv3 nrm = icross(isub(q[j], q[i]), isub(q[k], q[i]));
				if (iszero(nrm))
					continue;
				int pos = 0, neg = 0;
				for (int t = 0; t < m; ++t) {
					int64_t s = idot(nrm, isub(q[t], q[i]));
					pos += s > 0;
					neg += s < 0;
				}
				if (pos && neg)
					continue;
				if (!pos && !neg)
					return FXS_HULL_ERR_FLAT;
				any_volume = 1;
				if (pos)
					nrm = (iv3){ -nrm.x, -nrm.y, -nrm.z };
				/* the same plane already emitted? (parallel, same side, coplanar) */
				int seen = 0;
				for (int f = 0; f < nf && !seen; ++f)
					if (iszero(icross(fn[f], nrm)) && idot(fn[f], nrm) > 0 &&
					    idot(fn[f], isub(q[i], q[fp[f]])) == 0)
						seen = 1;
				if (seen)
					continue;
				if (nf >= (int)(sizeof fn / sizeof fn[0]))
					return FXS_HULL_ERR_TOO_MANY;
				fn[nf] = nrm;
				fp[nf++] = i;
				/* the face polygon: gift wrapping in the plane over its
				 * coplanar points, from the lexicographically least one;
				 * collinear candidates: the farther one (midpoints dropped) */
				int cop[FXS_HULL_MAX_INPUT], nc = 0;
				for (int t = 0; t < m; ++t)
					if (idot(nrm, isub(q[t], q[i])) == 0)
						cop[nc++] = t;
				int start = cop[0];
				for (int c = 1; c < nc; ++c)
					if (lex_less(q[cop[c]], q[start]))
						start = cop[c];
				int poly[FXS_HULL_MAX_INPUT], np = 0, a = start;
				do {
					if (np >= nc)
						return FXS_HULL_ERR_FLAT; /* cannot happen on exact input */
					poly[np++] = a;
					int b = -1;
					for (int c = 0; c < nc; ++c) {
						int cc = cop[c];
						if (cc == a)
							continue;
						if (b < 0) {
							b = cc;
							continue;
						}
						/* c right of a->b (clockwise): take it; collinear: the farther */
						int64_t o = idot(icross(isub(q[b], q[a]), isub(q[cc], q[a])), nrm);
						if (o < 0 || (o == 0 && idot(isub(q[cc], q[a]), isub(q[cc], q[a])) >
										idot(isub(q[b], q[a]), isub(q[b], q[a]))))
							b = cc;
					}
					a = b;
				} while (a != start);
				for (int t = 1; t + 1 < np; ++t) {
					if (nt >= (int)(sizeof tri / sizeof tri[0]))
						return FXS_HULL_ERR_TOO_MANY;
					tri[nt][0] = (uint8_t)poly[0];
					tri[nt][1] = (uint8_t)poly[t];
					tri[nt][2] = (uint8_t)poly[t + 1];
					++nt;
				}
				for (int t = 0; t < np; ++t)
					used[poly[t]] = 1;
			}
	if (!any_volume)
		return FXS_HULL_ERR_FLAT;
	int remap[FXS_HULL_MAX_INPUT];
	int nv = 0;
	for (int t = 0; t < m; ++t) {
		remap[t] = -1;
		if (!used[t])
			continue;
		if (nv >= FXS_HULL_MAX_VERTS)
			return FXS_HULL_ERR_TOO_MANY;
		remap[t] = nv;
		out->verts[nv++] = fxg_v3((fix16_t)(q[t].x * (1 << FXS_HULL_GRID_SHIFT)),
					  (fix16_t)(q[t].y * (1 << FXS_HULL_GRID_SHIFT)),
					  (fix16_t)(q[t].z * (1 << FXS_HULL_GRID_SHIFT)));
	}
	if (nt > FXS_HULL_MAX_TRIS)
		return FXS_HULL_ERR_TOO_MANY;
	out->n_verts = nv;
	out->n_tris = nt;
	for (int t = 0; t < nt; ++t)
		for (int c = 0; c < 3; ++c)
			out->tris[t][c] = (uint8_t)remap[tri[t][c]];
	return FXS_HULL_OK;
}

/* a - b, saturated and counted (b may be a saturated INT64_MIN) */
static int64_t wsub(int64_t a, int64_t b, uint32_t *ovf)
{
	if (b == INT64_MIN) {
		++*ovf;
		return a < 0 ? fxg_add64(a, INT64_MAX, ovf) : INT64_MAX;
	}
	return fxg_add64(a, -b, ovf);
}

void fxs_hull_mass(const fxs_hull *h, fix16_t density, fxg_wide *mass, fxg_vec3 *com, fxg_wide inertia[6],
		   uint32_t *ovf)
{
	/* grid coordinates relative to vertex 0: |d| <= 2^12 */
	iv3 v[FXS_HULL_MAX_VERTS];
	iv3 o = { h->verts[0].x / (1 << FXS_HULL_GRID_SHIFT), h->verts[0].y / (1 << FXS_HULL_GRID_SHIFT),
		  h->verts[0].z / (1 << FXS_HULL_GRID_SHIFT) };
	for (int i = 0; i < h->n_verts; ++i) {
		iv3 p = { h->verts[i].x / (1 << FXS_HULL_GRID_SHIFT), h->verts[i].y / (1 << FXS_HULL_GRID_SHIFT),
			  h->verts[i].z / (1 << FXS_HULL_GRID_SHIFT) };
		v[i] = isub(p, o);
	}
	/* exact: 6 V (2^-24 m^3 units, <= 2^42 per tet) and 24 x first moment */
	int64_t six_v = 0;
	iv3 mom = { 0, 0, 0 };
	/* second moments about vertex 0 (Q32.32 m^5 times 120): xx yy zz xy xz yz */
	fxg_wide sec[6] = { 0 };
	for (int t = 0; t < h->n_tris; ++t) {
		iv3 a = v[h->tris[t][0]], b = v[h->tris[t][1]], c = v[h->tris[t][2]];
		int64_t d = idot(a, icross(b, c));
		six_v += d;
		iv3 s = { a.x + b.x + c.x, a.y + b.y + c.y, a.z + b.z + c.z };
		mom.x += d * s.x;
		mom.y += d * s.y;
		mom.z += d * s.z;
		/* tet (0, a, b, c): integral(x_i x_j) = d / 120 (sum_v v_i v_j + s_i s_j) */
		int64_t p[6] = {
			a.x * a.x + b.x * b.x + c.x * c.x + s.x * s.x, a.y * a.y + b.y * b.y + c.y * c.y + s.y * s.y,
			a.z * a.z + b.z * b.z + c.z * c.z + s.z * s.z, a.x * a.y + b.x * b.y + c.x * c.y + s.x * s.y,
			a.x * a.z + b.x * b.z + c.x * c.z + s.x * s.z, a.y * a.z + b.y * b.z + c.y * c.z + s.y * s.z,
		};
		/* d: 2^-24 m^3 -> Q32.32 is * 2^8; p: 2^-16 m^2 -> Q32.32 is * 2^16 */
		for (int e = 0; e < 6; ++e)
			sec[e] = fxg_add64(sec[e], fxg_wmul_wide(d * 256, p[e] * 65536, ovf), ovf);
	}
	fxg_wide rho = fxg_wide_from_fix(density);
	fxg_wide vol = fxg_wide_div(six_v * 256, (fxg_wide)6 * FXG_WIDE_ONE, ovf); /* Q32.32 m^3 */
	*mass = fxg_wmul_wide(rho, vol, ovf);
	/* centre offset in metres, Q32.32: mom / (4 6V) grid units / 256,
	 * one rounding (4 6V 256 <= 2^49) */
	int64_t den = 4 * six_v * 256;
	fxg_wide cx = fxg_wide_div(mom.x, den, ovf), cy = fxg_wide_div(mom.y, den, ovf),
		 cz = fxg_wide_div(mom.z, den, ovf);
	/* second moments about the centre: S - V c c^T (Q32.32 m^5) */
	fxg_wide c3[3] = { cx, cy, cz };
	fxg_wide S[6];
	static const int ei[6] = { 0, 1, 2, 0, 0, 1 }, ej[6] = { 0, 1, 2, 1, 2, 2 };
	for (int e = 0; e < 6; ++e) {
		S[e] = fxg_wide_div(sec[e], (fxg_wide)120 * FXG_WIDE_ONE, ovf);
		S[e] = wsub(S[e], fxg_wmul_wide(vol, fxg_wmul_wide(c3[ei[e]], c3[ej[e]], ovf), ovf), ovf);
	}
	/* rho - the products of inertia are -rho S: negating rho (>= -2^47)
	 * cannot overflow, so no saturated INT64_MIN is ever negated */
	inertia[0] = fxg_wmul_wide(rho, fxg_add64(S[1], S[2], ovf), ovf);
	inertia[1] = fxg_wmul_wide(rho, fxg_add64(S[0], S[2], ovf), ovf);
	inertia[2] = fxg_wmul_wide(rho, fxg_add64(S[0], S[1], ovf), ovf);
	inertia[3] = fxg_wmul_wide(-rho, S[3], ovf);
	inertia[4] = fxg_wmul_wide(-rho, S[4], ovf);
	inertia[5] = fxg_wmul_wide(-rho, S[5], ovf);
	*com = fxg_v3(fxg_add(h->verts[0].x, fxg_wide_to_fix(cx, ovf), ovf),
		      fxg_add(h->verts[0].y, fxg_wide_to_fix(cy, ovf), ovf),
		      fxg_add(h->verts[0].z, fxg_wide_to_fix(cz, ovf), ovf));
}
