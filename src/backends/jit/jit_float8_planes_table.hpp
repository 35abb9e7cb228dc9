#ifndef QGRAPH_BACKENDS_JIT_JIT_FLOAT8_PLANES_TABLE_HPP
#define QGRAPH_BACKENDS_JIT_JIT_FLOAT8_PLANES_TABLE_HPP

// The byte planes' table for a scale that is not a power of two (jit_float8_planes.hpp, "Any
// scale"): bf16 x into e4m3 / e5m2 by y = cast(x / s + 0.f), 64 codes a step.
//
// Write s = 2^e * s1 with s1 in [1, 2), and x = 2^(ex - 127) * (1 + m / 128) a normal bf16. In
// f32's normal range scaling by a power of two commutes with rounding, so
// RN(x / s) = 2^(ex - 127 - e) * RN((1 + m / 128) / s1), and where the code is normal and
// finite, scaling it by 2^j adds j * 2^man to the code. So the code is
//
//     2^man * (ex - 127 - e) + code(RN(x_m / s)),   x_m = 2^e * (1 + m / 128),
//
// the second term a table of m alone, 128 entries, made here from the reference's own
// rounding of the 128 quotients x_m / s (f32_to_minifloat() of x_m / s + 0.f). Its quotients
// lie in (1/2, 2), so an entry less (bias - 1) * 2^man lies in [0, 2^(man + 1)]: the planes'
// R table. The code sees only R and k, the step of x's exponent field that T subtracts.

#include <cstdint>

#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// The kernel reads it through quantize_params::planes: R at offset 0, k at 128.
struct float8_planes_table {
    uint8_t r[128];
    int32_t k; ///< (128 + e - bias) << 7: T's subtraction for x's 16 bits
};

/// The table of scale s for bf16 x into dst (f8_e4m3 or f8_e5m2), saturating as `saturate`
/// says; false where the planes do not serve s: s not a positive normal number, or its
/// exponent e outside [man + 2 + bias - 128, 16] (below it T gives a bf16 subnormal x, whose
/// quotient rounds to zero, no zero code of its own; above it a nonzero x could have a zero
/// f32 quotient, whose code is +0 where the planes keep x's sign).
bool make_float8_planes_table(data_type dst, bool saturate, float s, float8_planes_table &t);

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
