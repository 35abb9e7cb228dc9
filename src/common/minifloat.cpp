#include "common/minifloat.hpp"

#include <cmath>

#include "common/half_types.hpp"
#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {

namespace {
constexpr uint32_t f32_qnan = 0x7fc00000u;

uint32_t field_mask(int bits) { return (1u << bits) - 1; }
} // namespace

float minifloat_to_f32(data_type dt, uint32_t code) {
    const data_type_facts &f = facts_of(dt);
    const uint32_t sign_bit = 1u << (f.bits - 1);
    const uint32_t emask = field_mask(f.exp_bits), mmask = field_mask(f.man_bits);
    const bool neg = (code & sign_bit) != 0;
    const uint32_t e = (code >> f.man_bits) & emask, m = code & mmask;
    const uint32_t f32_sign = neg ? 0x80000000u : 0u;
    switch (f.style) {
        case float_style::ieee:
            if (e == emask) return f32_from_bits(f32_sign | (m ? f32_qnan : 0x7f800000u));
            break;
        case float_style::fn:
            if (e == emask && m == mmask) return f32_from_bits(f32_sign | f32_qnan);
            break;
        case float_style::fnuz:
            if (code == sign_bit) return f32_from_bits(f32_qnan);
            break;
        default: break;
    }
    // Every value of these formats is a small integer times a power of two: exact in f32.
    const float mag = e == 0
            ? std::ldexp(static_cast<float>(m), 1 - f.bias - f.man_bits)
            : std::ldexp(static_cast<float>(m | (mmask + 1)),
                      static_cast<int>(e) - f.bias - f.man_bits);
    return neg ? -mag : mag;
}

uint32_t f32_to_minifloat(data_type dt, float x, bool saturate) {
    const data_type_facts &f = facts_of(dt);
    const uint32_t sign_bit = 1u << (f.bits - 1);
    const uint32_t emask = field_mask(f.exp_bits), mmask = field_mask(f.man_bits);
    const bool neg = std::signbit(x);
    const bool finite_only = f.style == float_style::finite;
    const uint32_t sign = neg ? sign_bit : 0u;
    if (std::isnan(x)) {
        switch (f.style) {
            case float_style::ieee: return sign | (emask << f.man_bits) | (1u << (f.man_bits - 1));
            case float_style::fn: return sign | field_mask(f.bits - 1);
            case float_style::fnuz: return sign_bit;
            default: return field_mask(f.bits - 1); // float4: +max
        }
    }
    // Round |x| to the target's precision as if its exponent range were unbounded above:
    // the quantum is 2^(E - man) for the binade of |x|, 2^(emin - man) below the normals.
    // Doubles hold every f32 and every scaled value here exactly.
    const double a = std::fabs(static_cast<double>(x));
    const int emin = 1 - f.bias;
    double r = 0; // the rounded magnitude
    int q_exp = emin - f.man_bits;
    if (a != 0 && !std::isinf(a)) {
        const int e = std::ilogb(a);
        q_exp = (e > emin ? e : emin) - f.man_bits;
        r = std::ldexp(std::nearbyint(std::ldexp(a, -q_exp)), q_exp);
    }
    if (std::isinf(a) || r > f.max) {
        if (saturate || finite_only)
            return sign | f32_to_minifloat(dt, static_cast<float>(f.max), true);
        if (f.style == float_style::ieee) return sign | (emask << f.man_bits);
        return f.style == float_style::fnuz ? sign_bit : sign | field_mask(f.bits - 1);
    }
    if (r == 0) return f.style == float_style::fnuz ? 0u : sign;
    const int e = std::ilogb(r);
    if (e < emin) // subnormal: r = m * 2^(emin - man)
        return sign | static_cast<uint32_t>(std::ldexp(r, -(emin - f.man_bits)));
    const uint32_t m = static_cast<uint32_t>(std::ldexp(r, f.man_bits - e)) & mmask;
    return sign | (static_cast<uint32_t>(e + f.bias) << f.man_bits) | m;
}

} // namespace impl
} // namespace qgraph
