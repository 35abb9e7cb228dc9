#ifndef QGRAPH_TESTS_REF_MINIFLOAT_MODEL_HPP
#define QGRAPH_TESTS_REF_MINIFLOAT_MODEL_HPP

// A model of the float8 and float4 formats of NUMERICS.md ("Float8 and float4"), written from
// that page and independent of common/minifloat and of the type table's format fields:
// - decoding: each format's fields and NaN / Inf codes spelt out below, value by formula;
// - encoding: the nearest entry of the sorted list of the format's finite non-negative values,
//   ties to the even code, with one extra entry past the largest (the next value an unbounded
//   exponent would give) standing for overflow; then NUMERICS.md's NaN, overflow, saturate,
//   -0 and fnuz rules. The NaN codes it expects are those common/minifloat.hpp documents
//   (e4m3fn 0x7F, e5m2 0x7E, with the input's sign; fnuz 0x80; float4 +6).
// The tests check the model itself against literal values (448, 240, 57344, 6, ...).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "qgraph/logical_tensor.hpp"

namespace qtest {

/// One format, as NUMERICS.md's table describes it.
struct minifloat_format {
    qgraph::data_type dt;
    const char *name;
    int bits; ///< 8 or 4, sign bit first
    int man_bits; ///< exponent bits: bits - 1 - man_bits
    int bias;
    enum class specials { e4m3fn, e5m2, fnuz, none } nan_inf;
};

inline const std::vector<minifloat_format> &minifloat_formats() {
    using qgraph::data_type;
    using sp = minifloat_format::specials;
    static const std::vector<minifloat_format> all = {
            {data_type::f8_e4m3, "f8_e4m3", 8, 3, 7, sp::e4m3fn},
            {data_type::f8_e4m3fnuz, "f8_e4m3fnuz", 8, 3, 8, sp::fnuz},
            {data_type::f8_e5m2, "f8_e5m2", 8, 2, 15, sp::e5m2},
            {data_type::f8_e5m2fnuz, "f8_e5m2fnuz", 8, 2, 16, sp::fnuz},
            {data_type::f4_e2m1, "f4_e2m1", 4, 1, 1, sp::none},
    };
    return all;
}

inline uint32_t sign_bit_of(const minifloat_format &f) { return 1u << (f.bits - 1); }

inline bool is_nan_code(const minifloat_format &f, uint32_t c) {
    using sp = minifloat_format::specials;
    const uint32_t mag = c & (sign_bit_of(f) - 1);
    switch (f.nan_inf) {
        case sp::e4m3fn: return mag == 0x7f;
        case sp::e5m2: return mag > 0x7c;
        case sp::fnuz: return c == 0x80;
        case sp::none: return false;
    }
    return false;
}

inline bool is_inf_code(const minifloat_format &f, uint32_t c) {
    return f.nan_inf == minifloat_format::specials::e5m2 && (c & 0x7f) == 0x7c;
}

/// The value of code c: (-1)^s * 2^(e - bias) * 1.m, or 2^(1 - bias) * 0.m when e == 0;
/// NaN and +-Inf for those codes.
inline double model_value(const minifloat_format &f, uint32_t c) {
    if (is_nan_code(f, c)) return NAN;
    const bool neg = (c & sign_bit_of(f)) != 0;
    if (is_inf_code(f, c)) return neg ? -INFINITY : INFINITY;
    const uint32_t m = c & ((1u << f.man_bits) - 1);
    const int e = static_cast<int>((c & (sign_bit_of(f) - 1)) >> f.man_bits);
    const double frac = static_cast<double>(m) / (1 << f.man_bits);
    const double mag = e == 0 ? std::ldexp(frac, 1 - f.bias) : std::ldexp(1 + frac, e - f.bias);
    return neg ? -mag : mag;
}

/// The finite non-negative values in increasing order with their codes, and one more entry
/// past the largest: its value is the largest plus one step of the top binade, its code the
/// largest code plus one (what an unbounded exponent would give), so rounding to it means
/// overflow and ties at the overflow threshold go to the even code like any other.
struct minifloat_entry {
    double value;
    uint32_t code;
};
inline std::vector<minifloat_entry> model_entries(const minifloat_format &f) {
    std::vector<minifloat_entry> v;
    for (uint32_t c = 0; c < sign_bit_of(f); ++c) {
        const double x = model_value(f, c);
        if (std::isfinite(x)) v.push_back({x, c});
    }
    const minifloat_entry &top = v.back(), &below = v[v.size() - 2];
    v.push_back({2 * top.value - below.value, top.code + 1});
    return v;
}

inline double model_max(const minifloat_format &f) {
    const std::vector<minifloat_entry> v = model_entries(f);
    return v[v.size() - 2].value;
}

/// The code of x once its magnitude has been rounded to the entry with code `mag_code`
/// (`overflow_code`, the extra entry's, when it rounds past the largest value or is Inf).
inline uint32_t model_finish(const minifloat_format &f, bool neg, uint32_t mag_code,
        uint32_t overflow_code, bool saturate) {
    using sp = minifloat_format::specials;
    const uint32_t sign = neg ? sign_bit_of(f) : 0u;
    if (mag_code == overflow_code) {
        if (saturate || f.nan_inf == sp::none) return sign | (overflow_code - 1);
        switch (f.nan_inf) {
            case sp::e4m3fn: return sign | 0x7f;
            case sp::e5m2: return sign | 0x7c;
            default: return 0x80;
        }
    }
    if (mag_code == 0 && f.nan_inf == sp::fnuz) return 0; // no -0
    return sign | mag_code;
}

inline uint32_t model_nan(const minifloat_format &f, bool neg) {
    using sp = minifloat_format::specials;
    const uint32_t sign = neg ? sign_bit_of(f) : 0u;
    switch (f.nan_inf) {
        case sp::e4m3fn: return sign | 0x7f;
        case sp::e5m2: return sign | 0x7e;
        case sp::fnuz: return 0x80;
        case sp::none: return 0x7; // +6 whatever the sign
    }
    return 0;
}

/// Between entries k and k + 1: the code |x| == mid rounds to (ties to the even code).
inline uint32_t tie_code(const std::vector<minifloat_entry> &v, size_t k) {
    return (v[k].code & 1) ? v[k + 1].code : v[k].code;
}

/// f32 -> format, the whole model, one input at a time (binary search).
inline uint32_t model_encode(const minifloat_format &f, const std::vector<minifloat_entry> &v,
        float x, bool saturate) {
    if (std::isnan(x)) return model_nan(f, std::signbit(x));
    const uint32_t overflow = v.back().code;
    const double a = std::fabs(static_cast<double>(x));
    uint32_t mag = overflow;
    if (!std::isinf(a)) {
        // The first entry >= a; a lies between it and the one before.
        const auto hi = std::lower_bound(v.begin(), v.end(), a,
                [](const minifloat_entry &e, double y) { return e.value < y; });
        if (hi == v.end()) {
            mag = overflow;
        } else if (hi->value == a || hi == v.begin()) {
            mag = hi->code;
        } else {
            const minifloat_entry &lo = *(hi - 1);
            const double dlo = a - lo.value, dhi = hi->value - a;
            mag = dlo < dhi ? lo.code : dhi < dlo ? hi->code : tie_code(v, hi - 1 - v.begin());
        }
    }
    return model_finish(f, std::signbit(x), mag, overflow, saturate);
}

inline uint32_t bits_of_f32(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float f32_from(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

} // namespace qtest

#endif
