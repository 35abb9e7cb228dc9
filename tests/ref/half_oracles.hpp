#ifndef QGRAPH_TESTS_REF_HALF_ORACLES_HPP
#define QGRAPH_TESTS_REF_HALF_ORACLES_HPP

// Oracles for common/half_types, written independently of it:
// - f16: the F16C instructions (vcvtps2ph with round-to-nearest-even, vcvtph2ps), in
//   functions compiled for F16C alone (the rest of the test stays baseline x86-64); tests
//   call have_f16c() and skip without it.
// - bf16: a model that picks the two bf16 neighbours of x by truncation and compares the
//   distances in double (exact: every f32 and bf16 value is a double, and so are their
//   differences), ties to even. x86's vcvtneps2bf16 cannot serve: it flushes subnormals.

#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace qtest {

inline uint32_t f32_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float f32_of(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

inline bool have_f16c() { return __builtin_cpu_supports("f16c"); }

/// vcvtps2ph, imm 0: round to nearest even whatever MXCSR says.
__attribute__((target("f16c"))) inline uint16_t f16c_from_f32(float f) {
    return static_cast<uint16_t>(_cvtss_sh(f, 0));
}
/// vcvtph2ps.
__attribute__((target("f16c"))) inline float f16c_to_f32(uint16_t h) { return _cvtsh_ss(h); }

/// The value of bf16 bits h as a double, except that the Inf encodings stand for +-2^128:
/// the next step beyond the largest finite bf16 (2^127 * (2 - 2^-7)) if the exponent range
/// were unbounded, which is where IEEE round-to-nearest puts the overflow threshold.
inline double bf16_value_unbounded(uint16_t h) {
    if ((h & 0x7fffu) == 0x7f80u) return (h & 0x8000u) ? -0x1p128 : 0x1p128;
    return static_cast<double>(f32_of(static_cast<uint32_t>(h) << 16));
}

/// f32 -> bf16, round to nearest even, no flush; NaN: the top half with the quiet bit set.
inline uint16_t bf16_model(float f) {
    const uint32_t b = f32_bits(f);
    if (std::isnan(f)) return static_cast<uint16_t>((b >> 16) | 0x40u);
    const uint16_t toward0 = static_cast<uint16_t>(b >> 16); // truncation: |value| <= |x|
    if ((b & 0xffffu) == 0) return toward0; // exact (zeros and Inf included)
    const uint16_t away = static_cast<uint16_t>(toward0 + 1); // next bf16 away from 0
    const double x = f, d0 = std::fabs(x - bf16_value_unbounded(toward0)),
                 d1 = std::fabs(bf16_value_unbounded(away) - x);
    if (d0 != d1) return d0 < d1 ? toward0 : away;
    return (toward0 & 1u) ? away : toward0; // tie: the even mantissa
}

} // namespace qtest

#endif
