#ifndef QGRAPH_COMMON_MINIFLOAT_HPP
#define QGRAPH_COMMON_MINIFLOAT_HPP

// float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz) and float4 (e2m1) <-> f32, from the type table's
// format fields (qgraph/data_type_table.hpp) and NUMERICS.md's rules, for the reference
// backend and the tests. Decoding is exact; encoding rounds once, to nearest even, directly
// from the f32 value to the target (never through f16).

#include <cstdint>

#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {

/// The value of `code` (the type's bits in the low bits) as f32, exactly. NaN codes give a
/// quiet f32 NaN with the code's sign (the fnuz NaN 0x80 gives +NaN: its sign bit is not a
/// sign).
float minifloat_to_f32(data_type dt, uint32_t code);

/// `x` rounded once to nearest even into `dt` (NUMERICS.md "Float8 and float4"):
/// - NaN: the type's NaN (e4m3fn 0x7F, e5m2 0x7E, fnuz 0x80, with x's sign where the type has
///   one); float4 has none and gives +6 (0x7) whatever the sign.
/// - Rounding beyond the largest finite value, and +-Inf: +-max when `saturate` (float4
///   always), else NaN (e4m3fn and the fnuz types) or +-Inf (e5m2).
/// - Rounding to zero keeps x's sign where the type has -0 (not the fnuz types).
uint32_t f32_to_minifloat(data_type dt, float x, bool saturate);

} // namespace impl
} // namespace qgraph

#endif
