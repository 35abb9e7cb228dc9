#ifndef QGRAPH_COMMON_HALF_TYPES_HPP
#define QGRAPH_COMMON_HALF_TYPES_HPP

// bf16 and f16 <-> f32, bit for bit the way the x86 conversion instructions the JIT kernels
// use behave, so that the reference and the kernels agree on every input, NaNs included.
//
// - To f32 (quantize sources): exact. bf16 is the top half of an f32 (its bits shifted, NaNs
//   unchanged, like vpslld). f16 -> f32 is exact for every finite value (f16 subnormals are
//   f32 normals); an f16 NaN becomes a quiet f32 NaN with the same sign and payload (like
//   vcvtph2ps).
// - From f32 (dequantize destinations): rounded once to nearest even (NUMERICS.md), overflow
//   to +-Inf, subnormal results kept (never flushed). A NaN keeps its sign and the top bits
//   of its payload and is made quiet (f16: like vcvtps2ph; bf16: like vcvtneps2bf16, which
//   the kernels use only where no input is subnormal, as it flushes them).
//
// And e8m0 (power-of-two scales) -> f32, exact.

#include <cstdint>
#include <cstring>

namespace qgraph {
namespace impl {

inline uint32_t f32_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof(b));
    return b;
}

inline float f32_from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof(f));
    return f;
}

inline float bf16_to_f32(uint16_t h) { return f32_from_bits(static_cast<uint32_t>(h) << 16); }

inline uint16_t f32_to_bf16(float f) {
    const uint32_t b = f32_bits(f);
    if ((b & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((b >> 16) | 0x40u);
    // Adding 0x7fff plus the lowest kept bit rounds to nearest, ties to even; a carry moves
    // into the exponent, up to Inf, as rounding should.
    return static_cast<uint16_t>((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
}

float f16_to_f32(uint16_t h);
uint16_t f32_to_f16(float f);
/// f16_to_f32() of the n codes at h (any byte address), in a loop the compiler vectorizes
/// (runtime scale tensors widened at execute).
void f16_to_f32(const void *h, float *f, int64_t n);
/// bf16_to_f32() of the n codes at h (any byte address).
void bf16_to_f32(const void *h, float *f, int64_t n);

/// An e8m0 scale (NUMERICS.md) as f32, exactly: 2^(c - 127) for c = 0..254 (c = 0 is the
/// f32 subnormal 2^-127), a quiet NaN for 0xff.
inline float e8m0_to_f32(uint8_t c) {
    if (c == 0xff) return f32_from_bits(0x7fc00000u);
    return f32_from_bits(c == 0 ? 0x00400000u : static_cast<uint32_t>(c) << 23);
}
/// e8m0_to_f32() of the n codes at c, in a loop the compiler vectorizes (MX scale tensors
/// widened at execute).
void e8m0_to_f32(const uint8_t *c, float *f, int64_t n);

} // namespace impl
} // namespace qgraph

#endif
