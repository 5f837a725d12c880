/* What the x86 layers below AVX-512 (lanes_avx2.h, lanes_sse4.h) make the
 * same way of their own instructions: neither has 64-bit arithmetic right
 * shifts, min, max or abs, leading-zero counts or full 64-bit products.
 * Included by such a layer once it has defined V, M, OFF62, splat, zero,
 * add, sub, and_, or_, xor_, andnot_, gt, srli, slli, srlv, sel, and
 *   mulu(a, b)         the low 32 bits of each, unsigned, multiplied
 *   nibble_bits(x)     the bits of each lane's x < 16 (a pshufb table)
 *  - 64-bit arithmetic right shifts: exactly as ((x ^ s) >>> n) ^ s, s the
 *    sign; or, for |x| < 2^62 (sra62), as ((x + 2^62) >>> n) - 2^(62 - n),
 *    one instruction fewer;
 *  - 64-bit min, max and abs: a compare and a blend;
 *  - leading-zero counts: a binary search, then the table;
 *  - 64-bit products: three 32 x 32 -> 64 ones (the packing and the
 *    joints' setup use them, not the passes). */
#ifndef FXS_LANES_X86_H
#define FXS_LANES_X86_H

INLINE M ugt(V a, V b)
{
	const V top = splat(INT64_MIN);
	return gt(xor_(a, top), xor_(b, top));
}
INLINE V sra_(V x, int n)
{
	const V s = gt(zero(), x);
	return xor_(srli(xor_(x, s), n), s);
}
#define sra(x, n) sra_((x), (n))
INLINE V sra62_(V x, int n)
{
	return sub(srli(add(x, splat(OFF62)), n), splat(OFF62 >> n));
}
#define sra62(x, n) sra62_((x), (n))
INLINE V srav(V x, V s)
{
	const V m = gt(zero(), x);
	return xor_(srlv(xor_(x, m), s), m);
}
INLINE V maskz(M m, V x) { return and_(m, x); }
INLINE V min_(V a, V b) { return sel(gt(a, b), b, a); }
INLINE V max_(V a, V b) { return sel(gt(a, b), a, b); }
INLINE V abs_(V x)
{
	const V m = gt(zero(), x);
	return sub(xor_(x, m), m);
}
INLINE M m_and(M a, M b) { return and_(a, b); }
INLINE M m_or(M a, M b) { return or_(a, b); }
INLINE M m_andnot(M a, M b) { return andnot_(a, b); }
INLINE M m_not(M a) { return xor_(a, splat(-1)); }
INLINE M m_all(void) { return splat(-1); }
INLINE M m_none(void) { return zero(); }

/* x >= 0, below 2^(2 top): a binary search over top, ..., 8 and 4 bits,
 * then the bits of the last nibble from the table */
INLINE V bitlen_from(V x, int top)
{
	V n = zero();
	for (int k = top; k >= 4; k /= 2) {
		const M big = gt(x, splat(((int64_t)1 << k) - 1));
		n = add(n, and_(big, splat(k)));
		x = sel(big, srli(x, k), x);
	}
	return add(n, nibble_bits(x)); /* x < 16, in the low byte of its lane */
}
INLINE V bitlen(V x) { return bitlen_from(x, 32); }
INLINE V bitlen32(V x) { return bitlen_from(x, 16); }
/* the low 64 bits of a b from three 32 x 32 -> 64 products */
INLINE V mullo(V a, V b)
{
	const V lo = mulu(a, b);
	const V cross = add(mulu(srli(a, 32), b), mulu(a, srli(b, 32)));
	return add(lo, slli(cross, 32));
}

#endif
