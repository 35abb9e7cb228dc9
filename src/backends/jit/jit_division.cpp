#include "backends/jit/jit_division.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/half_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {

namespace {

/// The float next to a finite nonzero v toward 0 (std::nextafter(v, 0.f) without the libm
/// call: runtime per-channel scales set up one reciprocal per row at execute).
float toward_zero(float v) { return f32_from_bits(f32_bits(v) - 1); }

} // namespace

recip_params make_recip(float s) {
    recip_params p;
    const float inv = 1.f / s; // one IEEE division: the correctly rounded reciprocal
    const float a = std::fabs(s);
    // Also false for 0, subnormals, Inf and NaN.
    p.in_range = a >= recip_min_scale && a <= recip_max_scale;
    // 1/s is exact iff s * inv == 1 exactly (the product of two floats is exact in double).
    const bool exact = std::isfinite(inv) && inv != 0.f && static_cast<double>(s) * inv == 1.0;
    p.path = exact ? div_path::multiply : p.in_range ? div_path::recip : div_path::divide;
    p.y_hi = inv;
    if (!p.in_range) return p;
    // The reciprocal path's constants, also for exact reciprocals (a lane table may send a
    // power-of-two lane down the reciprocal path with the others). y_a is strictly below
    // |1/s|: y_hi itself when it was rounded toward zero, else its neighbour toward 0; s * y_a
    // has at most 48 significant bits, so the comparison and 1 - s * y_a are exact in double.
    const double sd = s;
    p.y_a = sd * inv >= 1.0 ? toward_zero(inv) : inv;
    // 1/s - y_a = (1 - s y_a) / s > 0 in magnitude: the double division errs by 2^-53
    // relative, and rounding to f32 gives y_b = RN(1/s - y_a) up to that negligible error,
    // with the sign of s and never 0.
    p.y_b = static_cast<float>((1.0 - sd * p.y_a) / sd);
    return p;
}

bool reciprocals_in_range(const void *s, int64_t n, float *y) {
    // |s| in range as an unsigned compare of its bits (NaN and Inf lie above, 0 and
    // subnormals below), without a branch the vectorized loop would have to take.
    const uint32_t lo = f32_bits(recip_min_scale), span = f32_bits(recip_max_scale) - lo;
    const auto *bytes = static_cast<const unsigned char *>(s);
    uint32_t outside = 0;
    for (int64_t i = 0; i < n; ++i) {
        uint32_t b;
        std::memcpy(&b, bytes + 4 * i, 4); // any alignment
        y[i] = 1.f / f32_from_bits(b);
        outside |= static_cast<uint32_t>((b & 0x7fffffffu) - lo > span);
    }
    return outside == 0;
}

float recip_divide(float x, float s, const recip_params &p) {
    if (p.path == div_path::divide) return x / s;
    if (p.path == div_path::multiply) return x * p.y_hi;
    const float q0 = std::fma(x, p.y_a, x * p.y_b);
    float r = std::fma(-q0, s, x);
    if (!(std::fabs(r) < std::numeric_limits<float>::infinity())) r = 0.f; // NaN or +-Inf
    return std::fma(r, p.y_hi, q0);
}

} // namespace jit
} // namespace impl
} // namespace qgraph
