#ifndef QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_GROUPED_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_GROUPED_HPP

// The grouped dequantize kernel (LLM weights: ONNX block_size on the last axis, oneDNN
// per_group 1xG): y = f32(x - zp) * s over one contiguous run of n elements, in which every
// `group` consecutive elements share one scale and one zero point. x is s4, u4, s8, u8, or
// a float type, f4_e2m1 or float8 (MX and blocked FP8 weights; y = f32(x) * s, the code's
// exact value, no zero point);
// scales f32, bf16 or f16 (converted exactly to f32); zero points s4, u4, s8, u8 or s32, or
// none. x - zp is exact in s32 (the driver keeps |zp| <= 2^30), its conversion to f32 is exact
// for these sources, the multiply rounds once, and bf16 / f16 destinations round that f32
// once more to nearest even (NUMERICS.md), bit for bit as the reference does.
//
// 4-bit x on avx512, and to bf16/f16 on avx2: per group, the 16 outputs of the 16 values of
// x are computed that way once (a table), and each element is a lookup of its nibble
// (avx512 vpermw / vpermps; avx2 vpshufb on the outputs' low and high bytes); the other cases
// compute each element (docs/kernels.md, "Grouped dequantize").
//
// Sub-byte x: element k of the run sits in byte k / 2, low nibble first. A call's run starts
// on a byte (its first element is even); each group but the call's last then has an even
// length (the driver takes sub-byte sources only with an even group), so every group starts on
// a byte too.

#include <cstdint>

#include "backends/jit/jit_code.hpp"
#include "common/data_types.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {
namespace jit {

struct grouped_conf {
    cpu_isa_t isa = avx512_core;
    data_type src_dt = data_type::s4; ///< s4, u4, s8, u8, f4_e2m1, float8
    data_type dst_dt = data_type::f32; ///< f32, bf16, f16
    data_type scale_dt = data_type::f32; ///< f32, bf16, f16
    data_type zp_dt = data_type::undef; ///< undef: no zero point
    /// Elements per group after a call's first; 0: the whole call is one group (the
    /// parameters do not vary along the run); 1: a scale and zero point per element, loaded
    /// a vector at a time (lanes; sub-byte zero points then start on a byte, zp_index even).
    int64_t group = 0;
    /// bf16 destination: vcvtneps2bf16 (avx512_core_bf16) for groups whose scale is not
    /// subnormal, where it rounds exactly (it flushes subnormal results; with |x - zp| an
    /// integer, only a subnormal scale gives any).
    bool bf16_insn = false;
    /// avx512 with AVX512_VBMI (has_avx512_vbmi()): e4m3 / e5m2 word blocks into bf16 look
    /// their codes up in byte planes, 64 a step (jit_float8_bf16_words.hpp).
    bool vbmi = false;
};

/// One run: n elements of x from `src` (byte address of element 0), y to `dst`; the first
/// group has `first` elements (1..group), later ones `group`. Group k's scale is scales[k]
/// (of scale_dt) and its zero point element zp_index + k of `zps` (elements, so that a
/// sub-byte zero-point tensor is addressed by nibble).
struct grouped_call {
    const void *src;
    void *dst;
    const void *scales;
    const void *zps;
    int64_t zp_index;
    int64_t n;
    int64_t first;
    /// Lanes of 4-bit x (takes_rows()): `rows` rows of n elements each, with the same
    /// scales and zero points, row i's x at src + i * src_stride bytes and its y at dst +
    /// i * dst_stride; n is a multiple of lane_block() when rows > 1. Every other call: 1 row.
    int64_t rows = 1;
    int64_t src_stride = 0;
    int64_t dst_stride = 0;
};

/// Elements of a lane block: the lanes of 4-bit x take the scales and zero points of this many
/// consecutive elements once for all the rows of a call (see grouped_call::rows): the
/// nibbles of 8 bytes (avx2) or 16 (avx512), an even and an odd vector.
inline int64_t lane_block(const grouped_conf &c) { return c.isa == avx512_core ? 32 : 16; }

/// Whether the code takes calls of several rows (grouped_call::rows).
inline bool takes_rows(const grouped_conf &c) { return c.group == 1 && four_bit(c.src_dt); }

/// Any n >= 0: tails are masked (avx512) or bounced through the stack (avx2), so no byte
/// outside the run's elements is read or written.
class jit_grouped_dequantize_kernel : public jit_code<grouped_call> {
public:
    explicit jit_grouped_dequantize_kernel(const grouped_conf &conf);
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
