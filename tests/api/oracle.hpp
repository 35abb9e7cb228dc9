#ifndef QGRAPH_TESTS_API_ORACLE_HPP
#define QGRAPH_TESTS_API_ORACLE_HPP

// An independent scalar oracle written from ../shared/NUMERICS.md (not from src/common/q10n):
// rounding is done by hand in double, saturation in double, so it shares no code with the
// library it checks.

#include <cmath>
#include <cstdint>
#include <vector>

namespace qtest {

struct qrange {
    int64_t lo, hi;
};
constexpr qrange u8_range {0, 255};
constexpr qrange s8_range {-128, 127};
constexpr qrange s32_range {-2147483648LL, 2147483647LL};

/// Round half to even, by hand: floor, then compare the fraction with one half.
inline double oracle_rne(float v) {
    if (std::isinf(v)) return v;
    const double f = std::floor(static_cast<double>(v));
    const double frac = static_cast<double>(v) - f; // exact: v has at most 24 bits
    if (frac > 0.5) return f + 1;
    if (frac < 0.5) return f;
    return std::fmod(f, 2.0) == 0.0 ? f : f + 1;
}

/// NUMERICS.md "Quantize": y = saturate(rne(x / s) + zp); NaN -> qmin whatever zp is.
inline int64_t oracle_quantize(float x, float s, int64_t zp, qrange q) {
    const float v = x / s; // one IEEE f32 division
    if (std::isnan(v)) return q.lo;
    // r + zp is exact in double while |r| < 2^52; beyond that it saturates anyway.
    const double y = oracle_rne(v) + static_cast<double>(zp);
    if (y <= static_cast<double>(q.lo)) return q.lo;
    if (y >= static_cast<double>(q.hi)) return q.hi;
    return static_cast<int64_t>(y);
}

/// NUMERICS.md "Dequantize": y = f32(x - zp) * s, the difference exact, converted once.
inline float oracle_dequantize(int64_t x, int64_t zp, float s) {
    // x - zp fits in 34 bits, so the double is exact and the cast to float rounds once.
    const float d = static_cast<float>(static_cast<double>(x - zp));
    return d * s;
}

struct oracle_dql {
    float scale;
    int64_t zp;
    std::vector<int64_t> y;
};

/// NUMERICS.md "DynamicQuantizeLinear", special cases first.
inline oracle_dql oracle_dynamic_quantize_linear(const std::vector<float> &x) {
    bool nan = false;
    float lo = 0.f, hi = 0.f;
    for (float v : x) {
        if (std::isnan(v)) {
            nan = true;
            continue;
        }
        if (v < lo) lo = v;
        if (v > hi) hi = v;
    }
    oracle_dql r;
    if (nan) {
        r.scale = std::nanf("");
        r.zp = 255;
    } else if (lo == 0.f && hi == 0.f) {
        r.scale = 1.f;
        r.zp = 0;
    } else {
        r.scale = (hi - lo) / 255.f;
        const float z = 0.f - lo / r.scale;
        if (std::isnan(z))
            r.zp = 255; // -Inf in x (or a 0/0 from an underflowed scale): zp 255
        else
            r.zp = static_cast<int64_t>(oracle_rne(z < 0.f ? 0.f : (z > 255.f ? 255.f : z)));
    }
    for (float v : x) r.y.push_back(oracle_quantize(v, r.scale, r.zp, u8_range));
    return r;
}

} // namespace qtest

#endif
