#ifndef QGRAPH_COMMON_MINIFLOAT_HPP
#define QGRAPH_COMMON_MINIFLOAT_HPP

// float8 (e4m3fn, e4m3fnuz, e5m2, e5m2fnuz) and float4 (e2m1) <-> f32, from the type table's
// format fields (qgraph/data_type_table.hpp) and NUMERICS.md's rules, for the reference
// backend and the tests. Decoding is exact; encoding rounds once, to nearest even, directly
// from the f32 value to the target (never through f16).

#include <cstdint>

#include "common/half_types.hpp"
#include "qgraph/data_type_table.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {

/// The bits of a field `bits` wide.
inline uint32_t minifloat_field_mask(int bits) { return (1u << bits) - 1; }

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
/// Inline, integer operations only: in a loop over one type the compiler hoists the type's
/// fields, and the exhaustive test runs it on 2^32 inputs per type and saturate value.
inline uint32_t f32_to_minifloat(data_type dt, float x, bool saturate) {
    const data_type_facts &f = facts_of(dt);
    const int man = f.man_bits;
    const uint32_t sign_bit = 1u << (f.bits - 1);
    const uint32_t emask = minifloat_field_mask(f.exp_bits), mmask = minifloat_field_mask(man);
    const uint32_t b = f32_bits(x), a = b & 0x7fffffffu; // a: |x| as f32 bits
    const uint32_t sign = (b >> 31) ? sign_bit : 0u;
    if (a > 0x7f800000u) { // NaN
        switch (f.style) {
            case float_style::ieee: return sign | (emask << man) | (1u << (man - 1));
            case float_style::fn: return sign | minifloat_field_mask(f.bits - 1);
            case float_style::fnuz: return sign_bit;
            default: return minifloat_field_mask(f.bits - 1); // float4: +max
        }
    }
    // The magnitude code of the largest finite value: below the Inf/NaN exponent (ieee),
    // below the one NaN code (fn), or the top code (fnuz, finite).
    const uint32_t max_code = f.style == float_style::ieee ? ((emask - 1) << man) | mmask
            : f.style == float_style::fn                   ? (emask << man) | (mmask - 1)
                                                           : (emask << man) | mmask;
    // Round |x| to nearest even on integers. Codes ordered like magnitudes make this one
    // rounding of the f32 bits for normal results: a mantissa carry steps the exponent, and
    // past the largest code means overflow (Inf rounds past it too).
    uint32_t mag;
    const int emin = 1 - f.bias; // the target's smallest normal exponent
    if (a >= static_cast<uint32_t>(127 + emin) << 23) {
        const int shift = 23 - man;
        const uint32_t r = (a + (1u << (shift - 1)) - 1 + ((a >> shift) & 1)) >> shift;
        mag = r - (static_cast<uint32_t>(127 - f.bias) << man); // rebias the exponent
    } else {
        // Subnormal (or zero) result: |x| = sig * 2^(e - 150) in quanta of 2^(emin - man).
        // The f32 exponent is at most 126 + emin here, so shift >= 23 - man + 1; from 25 up
        // |x| < 2^(emin - man - 1), half the smallest subnormal, and rounds to 0. The
        // rounding may carry into the smallest normal code, which is right.
        const int e = static_cast<int>(a >> 23);
        const uint32_t sig = e ? (a & 0x7fffffu) | 0x800000u : a;
        const int shift = (emin - man) - ((e ? e : 1) - 150);
        mag = shift >= 25 ? 0u : (sig + (1u << (shift - 1)) - 1 + ((sig >> shift) & 1)) >> shift;
    }
    if (mag > max_code) {
        if (saturate || f.style == float_style::finite) return sign | max_code;
        if (f.style == float_style::ieee) return sign | (emask << man);
        return f.style == float_style::fnuz ? sign_bit : sign | minifloat_field_mask(f.bits - 1);
    }
    if (mag == 0 && f.style == float_style::fnuz) return 0; // no -0
    return sign | mag;
}

} // namespace impl
} // namespace qgraph

#endif
