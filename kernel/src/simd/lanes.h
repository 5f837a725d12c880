/* The vector kernels' lanes: one API, five instruction sets.
 *
 * The vector kernels (solve/contact_batch_vector.h,
 * joint/joint_batch_vector.h, collide/collide_box_box_vector.h,
 * collide/recycle_vector.h, solve/integrate_vector.h) are written once
 * against the operations below; each instruction set's translation
 * unit (simd/kernels_sse4.c, _avx2.c, _avx512.c, _neon.c, _simd128.c;
 * kernels.h) includes its layer (lanes_sse4.h, lanes_avx2.h, lanes_avx512.h,
 * lanes_neon.h, lanes_simd128.h; the two x86 layers below AVX-512 share
 * lanes_x86.h), then the kernel. So a change
 * to a portable formula is carried over once, for every instruction set, and
 * every kernel computes the portable kernel's integer formulas lane for lane.
 * Integer instructions only: `make nofloat` disassembles every object built
 * from them.
 *
 * A layer defines FXS_VEC_BUILD (1 where the compiler targets the
 * instruction set), and then:
 *   VW                 lanes per vector: 8 (AVX-512), 4 (AVX2), 2 (SSE4,
 *                      NEON, SIMD128); a
 *                      kernel takes a batch's FXS_LANES lanes VW at a time
 *   V                  VW int64 lanes; M a mask of VW lanes
 *   splat zero add sub and_ or_ xor_ andnot_(a, b) = ~a & b
 *   mul(a, b)          the low 32 bits of each, signed, multiplied: exact
 *   ld32_ st32_        VW int32 (sign-extended; stored: the low 32 bits)
 *   ld64_ st64_ ld8_ st8_ (bytes zero-extended; stored: the low byte)
 *   slli srli sra      by a constant; sra exact for every value
 *   sra62(x, n)        x >> n (arithmetic) for |x| < 2^62 (cheaper on AVX2, SSE4)
 *   sllv srlv srav     by a count per lane in [0, 63]; srav exact
 *   min_ max_ abs_     signed; abs_(INT64_MIN) = INT64_MIN
 *   gt eq ugt          compares (ugt unsigned) giving M
 *   sel(m, a, b)       m ? a : b;  maskz(m, x): m ? x : 0
 *   m_and m_or m_andnot(a, b) m_not m_any m_bits (lane l's bit l) m_count
 *   m_all() m_none() m_from_bits(bits)
 *   bitlen(x)          the bits of x >= 0 (0 for 0)
 *   bitlen32(x)        the same for 0 <= x < 2^32 (cheaper on AVX2, SSE4, NEON)
 *                      (FXS_VEC_CHEAP_BITLEN 1 where bitlen is one instruction)
 *   mullo(a, b)        the low 64 bits of a b
 *   shifter, shifter_of(s), shr_by(x, h)
 *                      (x + 2^(s-1)) >> s (nothing added for s = 0) for
 *                      |x| < 2^62, the shift prepared once for many values;
 *                      shifter_sel(m, a, b) m ? a : b
 *   rows_to_lanes(row, out)   VW rows of 32 bytes (one body per lane) to 8
 *                      vectors, vector k holding each row's int32 k
 *   lanes_to_rows6(in, row)   the inverse for six vectors: lane l of in[k]
 *                      (its low 32 bits) to int32 k of row l, k < 6; the
 *                      rows' other bytes are not written
 *   guard              the fast path's range record (lanes_common.h says how
 *                      the kernels use it): guard_new(bound2), note(g, x, live)
 *                      (x in int32), note_imp (in [-INT32_MAX, INT32_MAX]),
 *                      note_hi (x <= bound2), note_wide (|x| <= bound2),
 *                      guard_ok(g); a layer may be stricter than a bound by
 *                      one (a value at the bound itself then costs a rerun);
 *                      or FXS_VEC_GUARD_EXTREMES and max_where, min_where
 *                      (masked max and min), or FXS_VEC_GUARD_OFFSETS and
 *                      none_high(x) (no lane with a bit of its high half
 *                      set), and lanes_common.h makes it
 * and lanes_common.h adds what is made of these. */
#ifndef FXS_LANES_H
#define FXS_LANES_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define INLINE static inline __attribute__((always_inline))

#endif
