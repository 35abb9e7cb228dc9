#ifndef QGRAPH_COMMON_Q10N_HPP
#define QGRAPH_COMMON_Q10N_HPP

// The quantization numerics of ../shared/NUMERICS.md, written once. Every backend either calls
// these functions or is tested bit-exactly against the reference backend built on them.
//
// All functions assume the default floating-point environment (round to nearest even, no
// flush-to-zero), as IEEE division and int->float conversion do.

#include <cmath>
#include <cstdint>

#include "common/half_types.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {

/// The integer range of a quantized type, as exact integers.
struct q_range {
    int64_t lo;
    int64_t hi;
};

/// Rounds to nearest, ties to even. std::nearbyint honours the current rounding mode, which
/// is round-to-nearest-even in the default environment qgraph requires.
inline float rne(float v) { return std::nearbyint(v); }

/// `v` rounded once to nearest even into f16 or bf16 and back (exact), unchanged for f32.
inline float round_to(float v, data_type dt) {
    switch (dt) {
        case data_type::f16: return f16_to_f32(f32_to_f16(v));
        case data_type::bf16: return bf16_to_f32(f32_to_bf16(v));
        default: return v;
    }
}

/// x / s in the division precision `div` (f32, f16 or bf16; NUMERICS.md): x and s rounded to
/// it, then the quotient rounded to it. Rounding the f32 quotient of two f16 (or bf16) values
/// to f16 (bf16) gives their correctly rounded quotient in that type: 24 bits >= 2p + 2 for
/// p = 11 (8), the condition under which a second rounding of a division is innocuous.
inline float quotient(float x, float s, data_type div) {
    if (div == data_type::f32) return x / s;
    return round_to(round_to(x, div) / round_to(s, div), div);
}

/// saturate(rne(v) + zp) for the quotient v = x / s.
/// - Rounding happens before zp is added.
/// - Saturation is mathematical: the clamp happens on exact integers, so |x/s| >= 2^31 and
///   +-Inf saturate instead of wrapping.
/// - NaN (x/s = NaN for 0/0, Inf/Inf, x/NaN) gives q.lo whatever zp is (ONNX Runtime on x86).
inline int64_t quantize_quotient(float v, int64_t zp, q_range q) {
    if (std::isnan(v)) return q.lo;
    const float r = rne(v);
    // Any |r| >= 2^40 saturates (zp is at most 2^32 in magnitude), and clamping here keeps
    // the float->int64 conversion below in range (+-Inf included).
    constexpr float big = 1099511627776.0f; // 2^40
    if (r >= big) return q.hi;
    if (r <= -big) return q.lo;
    const int64_t y = static_cast<int64_t>(r) + zp;
    return y < q.lo ? q.lo : (y > q.hi ? q.hi : y);
}

/// y = saturate(rne(x / s) + zp) with one IEEE f32 division.
inline int64_t quantize_value(float x, float s, int64_t zp, q_range q) {
    return quantize_quotient(x / s, zp, q);
}

/// y = f32(x - zp) * s: the difference is an exact integer, converted to f32 once (round to
/// nearest even), then multiplied once. For 8-bit x this equals ONNX's (f32(x) - f32(zp)) * s.
inline float dequantize_value(int64_t x, int64_t zp, float s) {
    return static_cast<float>(x - zp) * s;
}

/// Running min/max for DynamicQuantizeLinear, starting from the 0 the rule includes.
struct min_max {
    float lo = 0.f;
    float hi = 0.f;
    bool has_nan = false;

    void add(float x) {
        if (std::isnan(x)) has_nan = true;
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    void merge(const min_max &o) {
        has_nan = has_nan || o.has_nan;
        lo = o.lo < lo ? o.lo : lo;
        hi = o.hi > hi ? o.hi : hi;
    }
};

/// DynamicQuantizeLinear's y_scale and y_zero_point (u8).
struct dql_params {
    float scale;
    int64_t zp;
};

/// scale = (hi - lo) / 255, zp = rne(clamp(0 - lo / scale, 0, 255)), with NUMERICS.md's
/// special cases:
/// - all-zero or empty input (hi == lo == 0): scale 1, zp 0 (ONNX Runtime's choice);
/// - NaN anywhere: scale NaN, zp 255 (the ONNX reference result);
/// - a NaN zero point from +-Inf ranges (-Inf / Inf) is 255, as the ONNX reference casts it.
/// A subnormal-only range can make scale underflow to 0; the formula then still applies.
inline dql_params dynamic_qlinear_params(const min_max &mm) {
    constexpr float nan = __builtin_nanf("");
    if (mm.has_nan) return {nan, 255};
    if (mm.lo == 0.f && mm.hi == 0.f) return {1.f, 0};
    const float scale = (mm.hi - mm.lo) / 255.f;
    const float zp = 0.f - mm.lo / scale;
    if (std::isnan(zp)) return {scale, 255};
    const float clamped = zp < 0.f ? 0.f : (zp > 255.f ? 255.f : zp);
    return {scale, static_cast<int64_t>(rne(clamped))};
}

} // namespace impl
} // namespace qgraph

#endif
