#ifndef QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DEQUANTIZE_HPP

// The dequantize kernel: y = f32(x - zp) * s over rows of n contiguous elements.
// x is u8, s8, u16, s16 or s32, widened to s32; x - zp is exact in s32 (the driver keeps
// |zp| small enough for 8- and 16-bit x, and s32 x has no zero point); the conversion rounds to nearest even
// (the only rounding for s32 x; exact for 8-bit x) and the multiply rounds once. bf16 and f16
// destinations round that f32 once more, to nearest even, the way common/half_types.hpp does.
// float8 sources (is_float8) have no zero point: y = f32(x) * s, x decoded exactly by
// jit_float8_emitter.hpp, so the multiply is the only rounding before bf16 / f16. On avx512,
// long rows of e4m3 / e5m2 to bf16 / f16 with a finite nonzero broadcast scale look each code
// up in tables of those same results, built once per row (docs/kernels.md), and with
// AVX512_VBMI so do long rows of e4m3 / e5m2 to f32 and of u8 / s8 to bf16 / f16 (tables of
// all 256 codes, any scale);
// on avx2, rows whose scale keeps every normal code's result normal look them up in vpshufb
// byte tables (f16 rows also where up to 16 of the lowest normal codes' are not: those from
// a table of their own), and rows of 8- and 16-bit x into bf16 whose scale keeps every
// product normal round 16 codes a step by a float split (docs/kernels.md, "bf16 and f16").

#include <cstdint>

#include "backends/jit/jit_code.hpp"
#include "backends/jit/jit_quantize.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {
namespace jit {

struct dequantize_conf {
    cpu_isa_t isa = avx512_core;
    data_type src_dt = data_type::u8; ///< u8, s8, u16, s16, s32 or a float8 type
    data_type dst_dt = data_type::f32; ///< f32, or bf16 / f16 (rounded once to nearest even)
    /// bf16 destination on a CPU with avx512_core_bf16: vcvtneps2bf16 for broadcast rows
    /// whose dequantize_params::bf16_insn is set.
    bool bf16_insn = false;
    /// avx512 with AVX512_VBMI (has_avx512_vbmi()): lookup tables as byte planes, one
    /// vpermi2b per byte of the result for 64 codes (float8 to bf16 / f16 / f32, u8 / s8 to
    /// bf16 / f16); without it only float8 to bf16 / f16 looks up, 32 codes a step.
    bool vbmi = false;
    /// f32 destination: whole vectors are stored with non-temporal stores (the caller keeps
    /// dst and every row start aligned to the vector size), then sfence.
    bool stream = false;
    lane_source lanes = lane_source::none; ///< table: s32 zero points; raw: of raw_zp_dt
    bool has_zp = false;
    data_type raw_zp_dt = data_type::s32;
};

/// One scale and zero point, broadcast over a row.
struct dequantize_params {
    float s;
    int32_t zp;
    /// bf16 destinations with dequantize_conf::bf16_insn: 1 when no result can be subnormal,
    /// so vcvtneps2bf16, which flushes subnormals, rounds exactly; 0 takes the integer
    /// rounding.
    int32_t bf16_insn;
    /// 1 when s is finite: an integer x then gives no NaN product, so the bf16 rounding of
    /// such rows needs no NaN blend (bf16_rounding::round_no_nan).
    int32_t finite;
};

/// The smallest |s| whose products with every nonzero |x - zp| are normal: 2^-126 / x_min,
/// x_min the smallest of them (1 for integers; a float8 type's smallest subnormal). A power
/// of two, computed once per problem (a division per row cost a third of short rows' time).
inline float min_normal_scale(float x_min = 1.f) { return 0x1p-126f / x_min; }

/// The parameters of scale s and zero point zp: no |f32(x - zp) * s| is subnormal when
/// |s| >= s_min (min_normal_scale()), or s is 0.
inline dequantize_params make_dequantize_params(float s, int32_t zp, float s_min = 0x1p-126f) {
    const float a = s < 0 ? -s : s;
    return {s, zp, !(a > 0.f && a < s_min), a <= 0x1.fffffep127f};
}

/// Rows as in quantize_call: `rows` rows of n elements, strides in bytes, row r with
/// broadcast parameters prm[r * prm_step]; lane parameters restart at each row.
struct dequantize_call {
    const void *src;
    void *dst;
    int64_t n;
    int64_t rows;
    int64_t src_row_stride;
    int64_t dst_row_stride;
    const dequantize_params *prm;
    int64_t prm_step; ///< 0 or 1
    const float *l_s; ///< lane params: scales (table or the user's array)
    const void *l_zp; ///< lane params: zero points (table: s32; raw: raw_zp_dt)
};

/// Same tail contract as jit_quantize_kernel.
class jit_dequantize_kernel : public jit_code<dequantize_call> {
public:
    explicit jit_dequantize_kernel(const dequantize_conf &conf);
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
