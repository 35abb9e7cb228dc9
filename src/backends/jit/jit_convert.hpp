#ifndef QGRAPH_BACKENDS_JIT_JIT_CONVERT_HPP
#define QGRAPH_BACKENDS_JIT_JIT_CONVERT_HPP

// The TypeCast kernel: rows of n contiguous elements converted between f32 and bf16 / f16,
// bit for bit as common/half_types.hpp converts them:
//
//   f32 -> bf16   jit_bf16_emitter.hpp's rounding (ties to even, subnormals kept, NaN quiet);
//                 with avx512_core_bf16, vcvtneps2bf16 for each vector with no subnormal lane
//                 (the instruction flushes subnormal inputs), the same as the quantize
//                 kernels' load stage (bf16_rounding::round_packed)
//   f32 -> f16    vcvtps2ph, rounding from the immediate (0: nearest even), not from MXCSR
//   bf16 -> f32   the code shifted into the top half (exact, NaN payloads kept)
//   f16 -> f32    vcvtph2ps (exact; a signalling NaN comes out quiet, as f16_to_f32 makes it)
//
// Copies of one type (Reorder, StaticReshape, StaticTranspose) have no generated code: the
// driver (jit_convert_driver.cpp) moves their rows with memcpy and their transposes with
// jit_tiles.hpp. avx512_core masks a row's tail; avx2 code takes whole vectors of 8 (the
// driver bounces a row's last n % 8 elements through a stack buffer).

#include <cstdint>

#include "backends/jit/jit_code.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// One call: `rows` rows of n elements, row r at src + r * src_row_stride and dst + r *
/// dst_row_stride (bytes). prm and prm_step are the fields jit_generator::row_loop and
/// jit_kernel_base::run_rows read for per-row parameters; a TypeCast has none (null, 0).
struct convert_call {
    const void *src;
    void *dst;
    int64_t n;
    int64_t rows;
    int64_t src_row_stride;
    int64_t dst_row_stride;
    const uint8_t *prm;
    int64_t prm_step;
};

class jit_convert_kernel : public jit_code<convert_call> {
public:
    /// src -> dst one of f32 -> bf16, f32 -> f16, bf16 -> f32, f16 -> f32; isa avx2 or
    /// avx512_core. `bf16_insn` (avx512_core only; the CPU has avx512_core_bf16): f32 -> bf16
    /// takes vcvtneps2bf16 where a vector allows it.
    jit_convert_kernel(cpu_isa_t isa, data_type src, data_type dst, bool bf16_insn);
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
