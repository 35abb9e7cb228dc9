#ifndef QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_TRANSPOSED_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_TRANSPOSED_HPP

// The dequantize kernel of a transposing tile (jit_tiles.hpp) that skips the tile buffer: it
// reads 32 rows of the 8-bit source (K) by 16 elements (T), transposes them in registers and
// writes 16 f32 destination rows of 32 elements, so each element is loaded once and stored
// once. The arithmetic is jit_dequantize.hpp's, instruction for instruction (widen, subtract
// the zero point in s32, convert to nearest even, one multiply), so the results are the
// same bits. avx512_core only (it needs the 32 registers). Parameters: one scale and zero
// point for the whole tile (per tensor, or a channel on another dim), or static ones along K
// (lane tables); other tiles take the buffer.

#include <cstdint>

#include "backends/jit/jit_code.hpp"
#include "backends/jit/jit_dequantize.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// nt x nk elements: source element (t, k) at src + k * src_k_stride + t, destination
/// element (t, k) at dst + t * dst_t_stride + 4k (strides in bytes). nk is a positive
/// multiple of block_k and nt of block_t.
struct dequantize_transposed_call {
    const void *src;
    void *dst;
    int64_t nk;
    int64_t nt;
    int64_t src_k_stride;
    int64_t dst_t_stride;
    const dequantize_params *prm; ///< without lanes
    const float *l_s; ///< lanes: the scales of K's elements, from the tile's first
    const int32_t *l_zp; ///< lanes with a zero point: theirs
};

class jit_dequantize_transposed_kernel : public jit_code<dequantize_transposed_call> {
public:
    static constexpr int64_t block_k = 32; ///< two 16-byte halves of a ymm
    static constexpr int64_t block_t = 16; ///< 16 ymm registers of 32 K elements each

    /// `src_dt`: u8 or s8 (destinations are f32). `lanes`: parameters along K (l_s, l_zp).
    jit_dequantize_transposed_kernel(data_type src_dt, bool has_zp, bool lanes);
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
