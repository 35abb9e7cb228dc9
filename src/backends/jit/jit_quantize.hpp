#ifndef QGRAPH_BACKENDS_JIT_JIT_QUANTIZE_HPP
#define QGRAPH_BACKENDS_JIT_JIT_QUANTIZE_HPP

// The quantize kernel: y = saturate(rne(x / s) + zp) over rows of n contiguous elements.
// Generated per problem, specialised on everything known at compile: source and destination
// types, whether scales and zero points are the same for the whole run (broadcast) or vary
// along it (lane params: the channel is the innermost dim), and where lane params come from.
//
// Per element:
//   q = x / s              exactly (jit_division.hpp: reciprocal + FMA correction, or vdivps)
//   q = clamp(q, qmin - zp, qmax - zp)     in f32, NaN -> qmin - zp; the bounds are exact
//   y = int(rne(q)) + zp                    rounding before the zero point, as NUMERICS says
// Clamping before rounding is the same as after because the bounds are integers.
//
// float8 destinations (NUMERICS.md "Float8 and float4"): y = cast(x / s + 0.f), the quotient
// exact (the multiply path for scales with an exact reciprocal, else the divide path: the
// reciprocal path may be 1 ulp off on a subnormal quotient, which decides the sign of a zero
// code), then jit_float8_emitter.hpp's encode, saturating as conf.saturate says.

#include <cstdint>
#include <memory>

#include "backends/jit/jit_code.hpp"
#include "backends/jit/jit_float8_planes_table.hpp"
#include "common/data_types.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// Where the lane parameters of a run come from.
enum class lane_source {
    none, ///< broadcast: one scale and zero point per row (quantize_params)
    table, ///< per-lane arrays prepared at compile (static scales): reciprocal path
    raw, ///< the user's scale (f32) and zero-point arrays: divide path
};

struct quantize_conf {
    cpu_isa_t isa = avx512_core; ///< avx2 or avx512_core
    data_type src_dt = data_type::f32; ///< f32, bf16, f16 (exact to f32) or s32 (rne)
    /// f32 sources: undef, or bf16 / f16, each value rounded to first and widened back
    /// (quant_problem::src_round_dt; jit_load_emitter.hpp).
    data_type round_dt = data_type::undef;
    /// round_dt bf16 on avx512_core with avx512_core_bf16: vcvtneps2bf16 where it is exact
    /// (jit_load_emitter.hpp).
    bool bf16_insn = false;
    /// avx512_core with AVX512_VBMI (has_avx512_vbmi()): float8 codes gathered by vpermt2b
    /// (jit_float8_emitter.hpp), else packed.
    bool vbmi = false;
    /// u8, s8, u16, s16, a float8 type (is_float8), or s4 / u4 / f4_e2m1 (blocked rows of an
    /// even `block`, zero points of s4 / u4 or none; jit_store_emitter.hpp packs two elements
    /// a byte; f4_e2m1 divides, recip off, and stores its codes as u4)
    data_type dst_dt = data_type::u8;
    bool saturate = false; ///< float8 destinations: overflow saturates to the largest finite
    lane_source lanes = lane_source::none;
    bool has_zp = false;
    data_type raw_zp_dt = data_type::s32; ///< lanes == raw: u8, s8, u16, s16 or s32
    /// Broadcast: generate the reciprocal and multiply paths beside the divide path (chosen
    /// per row by quantize_params::path). Off when every scale needs the divide path anyway.
    /// Lane tables: the one path every lane can take (lane_path).
    bool recip = true;
    int32_t lane_path = 0; ///< lanes == table: a div_path (jit_division.hpp)
    /// lanes == table with zero points: the least and the greatest of them (runtime tables:
    /// their type's range). avx2 lane groups clamp every lane to [qmin - lane_zp_max, qmax -
    /// lane_zp_min].
    int32_t lane_zp_min = 0;
    int32_t lane_zp_max = 0;
    /// Broadcast: generate the proven path too (rows whose path is div_path::proven).
    /// Blocked rows: every row takes the proven path instead of the checked one (the caller
    /// proved the multiply for every value of x: 4-bit rows of one scale).
    bool proven = false;
    /// float8 broadcast rows of the checked encode: generate its groups without the check
    /// too, for rows with quantize_params::f8_proven.
    bool f8_proven = false;
    /// > 0: blocked rows (runtime scales, u8/s8/s4/u4 destinations). Every row has `block`
    /// elements (avx2: a multiple of 8) and reads its own scale and zero point (of
    /// raw_zp_dt, 8- or 4-bit) through quantize_call's b_s and b_zp, in the generated code: y_hi =
    /// RN(1/s) by one vdivps for a chunk of vlen rows, the checked multiply, and the division
    /// itself as its redo, exact for every scale (jit_quantize.cpp's fill_block_table() says
    /// why). prm and n are not read.
    int64_t block = 0;
    /// 1-byte destinations (u8, s8, float8), not blocked: whole vectors are stored with
    /// non-temporal stores, then sfence. The caller keeps dst and every row start aligned to
    /// jit_quantize_kernel::stream_align(). Masked tails and avx2's 8-byte stores of single
    /// vectors stay ordinary stores.
    bool stream = false;
    /// f32, f16 or bf16: the division precision (NUMERICS.md; ONNX QuantizeLinear of f16 x
    /// with f16 scales, bf16 with bf16). u8, s8, u16 and s16 destinations, broadcast
    /// parameters: the rows multiply by RN(1/s) (scales outside [2^-30, 2^30] divide) and
    /// round the product to f16 (bf16), which gives the quotient's rounding in that type
    /// (jit_division.hpp, "Division in f16 and bf16"); the packed byte groups and the word
    /// pairs take them, the checked and proven paths (which round the f32 quotient) do not.
    data_type quotient_dt = data_type::f32;
    /// Fake-quantize (quant_problem::dequantize_after; broadcast parameters, u8 / s8
    /// dst_dt, not blocked or streamed): undef, or f32 / f16, the type the rounded, saturated
    /// value is stored in once dequantized with the row's dq_s and dq_off
    /// (jit_dequantize_stage_emitter.hpp).
    data_type dequantize_to = data_type::undef;
};

/// One scale's parameters, broadcast over a row (see jit_params.hpp).
struct quantize_params {
    float s;
    float y_hi; ///< jit_division.hpp
    float y_a;
    float y_b;
    float lo; ///< qmin - zp (exact in f32)
    float hi; ///< qmax - zp
    int32_t zp;
    int32_t path; ///< div_path (jit_division.hpp)
    /// div_path::proven rows: the smallest 16-bit source code, compared as s16, whose
    /// product with y_hi may reach 2^31 (the driver's clamp_from()); avx512 groups whose
    /// codes all lie below it skip the clamp.
    int32_t clamp_from;
    /// float8 rows of the checked encode (quantize_conf::f8_proven): nonzero where the short
    /// encode of x * y8 + 0 gives every 16-bit x its code (the driver's proof), so that the
    /// groups skip the check.
    int32_t f8_proven = 0;
    /// quantize_conf::dequantize: the dequantize's scale s' and f32(zp - zp').
    float dq_s;
    float dq_off;
    /// bf16 / f16 x into e4m3 / e5m2 whose scale is not a power of two: the byte planes'
    /// table of the row's scale (make_float8_planes_table()), for the row's whole steps of
    /// 64; null where the planes do not serve the scale or the code has no planes.
    const float8_planes_table *planes = nullptr;
};

/// One call: `rows` rows of n contiguous elements each, row r starting at src + r *
/// src_row_stride and dst + r * dst_row_stride (bytes). Broadcast parameters: row r uses
/// prm[r * prm_step] (prm_step 0: one set for all rows). Lane parameters point at the lane of
/// each row's first element (every row starts at the same lane).
struct quantize_call {
    const void *src;
    void *dst;
    int64_t n;
    int64_t rows;
    int64_t src_row_stride;
    int64_t dst_row_stride;
    const quantize_params *prm;
    int64_t prm_step; ///< 0 or 1
    // Lane parameters (lane_source::table: all; raw: s and zp, zp of raw_zp_dt).
    const float *l_s;
    const float *l_y_hi;
    const float *l_y_a;
    const float *l_y_b;
    const float *l_lo;
    const float *l_hi;
    const void *l_zp; ///< table: int32
    // Blocked rows (quantize_conf::block): row r's scale at b_s + r * b_s_step and zero point
    // at b_zp + r * b_zp_step (bytes; b_zp unread without a zero point). s4 / u4 zero points
    // (raw_zp_dt): element b_zp_index + r * b_zp_step of the packed tensor at b_zp.
    const float *b_s;
    const void *b_zp;
    int64_t b_s_step;
    int64_t b_zp_step;
    int64_t b_zp_index;
};

class jit_quantize_kernel : public jit_code<quantize_call> {
public:
    explicit jit_quantize_kernel(const quantize_conf &conf);
    /// avx2 kernels take only n that is a multiple of 8 (the driver bounces the tail);
    /// avx512_core kernels take any n and mask the tail. rows >= 0.
    const quantize_conf &conf() const { return conf_; }
    static int vlen(cpu_isa_t isa) { return isa == avx2 ? 8 : 16; }
    /// quantize_conf::stream: the widest non-temporal store the code does, in bytes (each at
    /// a multiple of it from the row start); 0 when it does none.
    int stream_align() const { return stream_align_; }

private:
    /// The generated code and its stream_align(), read off the generator before jit_code
    /// takes it.
    struct generated {
        std::unique_ptr<jit_generator> gen;
        int stream_align;
    };
    static generated generate(const quantize_conf &conf);
    jit_quantize_kernel(const quantize_conf &conf, generated g);

    quantize_conf conf_;
    int stream_align_;
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
