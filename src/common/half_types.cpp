#include "common/half_types.hpp"

namespace qgraph {
namespace impl {

float f16_to_f32(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    if (exp == 0x1f) // Inf, or NaN made quiet
        return f32_from_bits(sign | 0x7f800000u | (mant << 13) | (mant ? 0x400000u : 0u));
    if (exp != 0) return f32_from_bits(sign | ((exp + 112) << 23) | (mant << 13));
    // Zero or subnormal: mant * 2^-24, exact in f32 whatever the rounding mode.
    const float v = static_cast<float>(mant) * 0x1p-24f;
    return sign ? -v : v;
}

void f16_to_f32(const void *h, float *f, int64_t n) {
    // f16_to_f32() with masks: the vectorizer does not if-convert a chain of selects, which
    // left this loop scalar.
    const auto *bytes = static_cast<const unsigned char *>(h);
    for (int64_t i = 0; i < n; ++i) {
        uint16_t c;
        std::memcpy(&c, bytes + 2 * i, 2); // any alignment
        const uint32_t sign = static_cast<uint32_t>(c & 0x8000u) << 16, em = c & 0x7fffu;
        const uint32_t tiny = f32_bits(static_cast<float>(static_cast<int32_t>(em)) * 0x1p-24f);
        const uint32_t normal = (em << 13) + (112u << 23);
        const uint32_t quiet = 0x400000u & (0u - static_cast<uint32_t>(em > 0x7c00u));
        const uint32_t special = 0x7f800000u | (em << 13) | quiet;
        const uint32_t is_tiny = 0u - static_cast<uint32_t>(em < 0x400u);
        const uint32_t is_special = 0u - static_cast<uint32_t>(em >= 0x7c00u);
        f[i] = f32_from_bits(sign | (tiny & is_tiny) | (special & is_special)
                | (normal & ~(is_tiny | is_special)));
    }
}

void bf16_to_f32(const void *h, float *f, int64_t n) {
    const auto *bytes = static_cast<const unsigned char *>(h);
    for (int64_t i = 0; i < n; ++i) {
        uint16_t c;
        std::memcpy(&c, bytes + 2 * i, 2); // any alignment
        f[i] = bf16_to_f32(c);
    }
}

void e8m0_to_f32(const uint8_t *c, float *f, int64_t n) {
    for (int64_t i = 0; i < n; ++i) f[i] = e8m0_to_f32(c[i]);
}

uint16_t f32_to_f16(float f) {
    const uint32_t b = f32_bits(f);
    const uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000u);
    const uint32_t a = b & 0x7fffffffu;
    if (a > 0x7f800000u) // NaN: quiet, top 10 payload bits
        return static_cast<uint16_t>(sign | 0x7e00u | ((a >> 13) & 0x3ffu));
    if (a >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u); // >= 65520: Inf
    if (a >= 0x38800000u) { // normal f16 (>= 2^-14): rebias, round 23 -> 10 mantissa bits
        const uint32_t r = a - (112u << 23);
        return static_cast<uint16_t>(sign | ((r + 0xfffu + ((r >> 13) & 1u)) >> 13));
    }
    // Subnormal f16 or zero: the value in units of 2^-24, rounded to nearest even.
    const uint32_t e = a >> 23;
    if (e < 102) return sign; // below 2^-25: rounds to 0 (e = 0: f32 zero or subnormal)
    const uint32_t m = (a & 0x7fffffu) | 0x800000u; // a = m * 2^(e - 150)
    const uint32_t shift = 126 - e; // units of 2^-24: m >> shift, shift in [14, 24]
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
}

} // namespace impl
} // namespace qgraph
