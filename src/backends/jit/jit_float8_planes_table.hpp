#ifndef QGRAPH_BACKENDS_JIT_JIT_FLOAT8_PLANES_TABLE_HPP
#define QGRAPH_BACKENDS_JIT_JIT_FLOAT8_PLANES_TABLE_HPP

// The byte planes' tables for a scale that is not a power of two (jit_float8_planes.hpp, "Any
// scale"): bf16 or f16 x into e4m3 / e5m2 by y = cast(x / s + 0.f), 64 codes a step.
//
// Write s = 2^e * s1 with s1 in [1, 2), and x = 2^(ex - bx) * (1 + m / 2^p) a normal x (bf16:
// bias bx = 127, p = 7 mantissa bits; f16: 15 and 10). In f32's normal range scaling by a
// power of two commutes with rounding, so RN(x / s) = 2^(ex - bx - e) * RN((1 + m / 2^p) /
// s1), and where the code is normal and finite, scaling it by 2^j adds j * 2^man to the code.
// So the code is
//
//     2^man * (ex - bx - e) + code(RN(x_m / s)),   x_m = 2^e * (1 + m / 2^p),
//
// the second term a table of m alone, made here from the reference's own rounding of the
// quotients x_m / s (f32_to_minifloat() of x_m / s + 0.f). Its quotients lie in (1/2, 2), so
// an entry less (bias - 1) * 2^man lies in [0, 2^(man + 1)]: the planes' R table. bf16: R has
// the 128 entries of m. f16: m has 10 bits, and R holds the entries of m = 8i (i = m >> 3)
// and `th` the least j in 1..7 whose entry 8i + j is one more (8: none): the codes' steps lie
// at least 64 m apart (a code's ulp is at least 1/16 of the quotient, whose ratio from one m
// to the next is at most 1 + 2^-10), so a group of 8 holds one at most, and the entry of m is
// R[m >> 3] + ((m & 7) >= th[m >> 3]). The code sees R, th and k, the step of x's exponent
// field that T subtracts.

#include <cstdint>

#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// The kernel reads it through quantize_params::planes (offsetof).
struct float8_planes_table {
    uint8_t r[128];
    uint8_t th[128]; ///< f16 x only
    /// T's subtraction for x's 16 bits: bf16 (128 + e - bias) << 7, f16 (16 + e - bias) << 10
    int32_t k;
};

/// The table of scale s for `src` x (bf16, f16) into dst (f8_e4m3 or f8_e5m2), saturating as
/// `saturate` says; false where the planes do not serve s: s not a positive normal number,
/// or (bf16) its exponent e outside [man + 2 + bias - 128, 16] (below it T gives a bf16
/// subnormal x, whose quotient rounds to zero, no zero code of its own; above it a nonzero x
/// could have a zero f32 quotient, whose code is +0 where the planes keep x's sign), or (f16)
/// outside [-28, 16] (the range the planes' T words are argued and tested over).
bool make_float8_planes_table(
        data_type src, data_type dst, bool saturate, float s, float8_planes_table &t);

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
