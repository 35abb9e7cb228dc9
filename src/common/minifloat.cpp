#include "common/minifloat.hpp"

#include <cmath>

namespace qgraph {
namespace impl {

namespace {
constexpr uint32_t f32_qnan = 0x7fc00000u;
} // namespace

float minifloat_to_f32(data_type dt, uint32_t code) {
    const data_type_facts &f = facts_of(dt);
    const uint32_t sign_bit = 1u << (f.bits - 1);
    const uint32_t emask = minifloat_field_mask(f.exp_bits);
    const uint32_t mmask = minifloat_field_mask(f.man_bits);
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

} // namespace impl
} // namespace qgraph
