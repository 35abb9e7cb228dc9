#ifndef QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_GROUPED_COLUMNS_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_GROUPED_COLUMNS_HPP

// The grouped dequantize of a transposed 4-bit x, in y's order (oneDNN's int4 weights: x [K, N]
// contiguous along K, the grouped dim; y [K, N] contiguous along N; one scale and zero point
// per (group of K, n), dense along N). y's row k, elements n..n+15, shares one vector of
// parameters for all the k of a group, so the code runs over blocks of 8 k (4 bytes of each x
// column) by 32 n. Per 32 columns it first transposes x: 16 columns' 64 bytes (16 blocks) at
// a time are loaded and transposed as a 16 x 16 dword matrix in registers, into a stack block
// of the call's blocks x 32 dwords (vpgatherdd per block cost a third of the time). Then row
// k of a block is nibble k of each lane, y = f32(x - zp) * s, rounded to the destination once
// and stored as a row of y: no table, no transpose of outputs.
//
// Arithmetic (bit for bit the reference): with 8-bit, 4-bit or no zero points, x's nibble c
// is or'ed into the f32 2^23 (2^23 + c, exact) and 2^23 + zp (+ 8 for s4, whose codes are read
// biased: c ^ 8 = x + 8) is subtracted in f32, exact for |zp| < 2^23, giving f32(x - zp);
// with s32 zero points (|zp| <= 2^30, the driver's limit) x - zp is formed in s32 and
// converted to nearest even, as jit_dequantize_grouped.hpp does. Then one multiply, and bf16
// (vcvtne2ps2bf16 on avx512_core_bf16 where no scale of the group's 32 is subnormal, else
// the integer rounding) or f16 (vcvtps2ph) rounding. avx512_core only.

#include <cstdint>

#include "backends/jit/jit_code.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {
namespace jit {

struct grouped_columns_conf {
    data_type src_dt = data_type::s4; ///< s4, u4
    data_type dst_dt = data_type::f32; ///< f32, bf16, f16
    data_type scale_dt = data_type::f32; ///< f32, bf16, f16
    data_type zp_dt = data_type::undef; ///< s4, u4, s8, u8, s32; undef: none
    /// Blocks of 8 k per group (the group is a multiple of 8).
    int64_t group_blocks = 1;
    /// bf16 destination: vcvtne2ps2bf16 (avx512_core_bf16) for groups with no subnormal scale.
    bool bf16_insn = false;
};

/// The most blocks one call takes (the stack block of transposed x).
constexpr int64_t grouped_columns_max_blocks = 32;

/// `blocks` blocks (1..grouped_columns_max_blocks) of 8 k (from a k on a byte) by `cols` n.
/// x of (k, n) is nibble k % 2 of byte k / 2 + n * src_col_stride of `src`; y of (k, n) at
/// dst + k * dst_row_stride + n elements. The first group has `first` blocks
/// (1..group_blocks), later ones group_blocks; group g's scale of n is element
/// g * scale_group_stride + n of `scales`, its zero point element zp_index + g *
/// zp_group_stride + n of `zps` (elements, so that a sub-byte zero-point tensor is addressed
/// by nibble; zp_index and zp_group_stride are then even).
/// All that `outer` times (>= 1), the repetition i at src + i * src_outer_stride, dst + i *
/// dst_outer_stride, scales i * scale_outer_stride further and zp_index + i * zp_outer_stride
/// (even for sub-byte zero points): the outer dims of a weight tensor in one call.
struct grouped_columns_call {
    const void *src;
    void *dst;
    const void *scales;
    const void *zps;
    int64_t zp_index;
    int64_t cols;
    int64_t blocks;
    int64_t first;
    int64_t src_col_stride; ///< bytes
    int64_t dst_row_stride; ///< bytes
    int64_t scale_group_stride; ///< elements
    int64_t zp_group_stride; ///< elements
    int64_t outer;
    int64_t src_outer_stride; ///< bytes
    int64_t dst_outer_stride; ///< bytes
    int64_t scale_outer_stride; ///< elements
    int64_t zp_outer_stride; ///< elements
};

/// Column tails are masked: no byte outside the call's elements and parameters is read or
/// written.
class jit_grouped_columns_kernel : public jit_code<grouped_columns_call> {
public:
    explicit jit_grouped_columns_kernel(const grouped_columns_conf &conf);
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
