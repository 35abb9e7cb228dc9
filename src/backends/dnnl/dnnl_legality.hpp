#ifndef QGRAPH_BACKENDS_DNNL_DNNL_LEGALITY_HPP
#define QGRAPH_BACKENDS_DNNL_DNNL_LEGALITY_HPP

// Which quant_problems one oneDNN 2.6 reorder computes bit-exactly (NUMERICS.md), and what the
// kernel must check per call when scales or zero points arrive at execute. No oneDNN here: the
// decisions are plain data, so tests can check every rule without running anything.
//
// The evidence behind each rule is in tests/dnnl/test_dnnl_evidence.cpp (oneDNN called
// directly) and the bit-exact sweeps against the reference backend.

#include <cstdint>
#include <string>
#include <vector>

#include "backends/problem.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_impl {

/// How the zero point reaches oneDNN (or why it must not).
enum class zp_plan {
    none, ///< no zero point, or a static one that is 0
    src_static, ///< dequantize: common zp known at compile, passed as oneDNN's src zp
    src_input, ///< dequantize: common zp read per call, passed as oneDNN's src zp
    input_must_be_zero, ///< a zp input oneDNN cannot take unless it is 0: checked per call
};

/// Everything the kernel needs, decided at compile.
struct reorder_plan {
    q_kind kind = q_kind::quantize;
    data_type src_dt = data_type::undef;
    data_type dst_dt = data_type::undef;

    /// oneDNN's view of the tensors: rank >= 1 (a 0-D problem is {1}), strides in elements.
    std::vector<int64_t> dims;
    std::vector<int64_t> src_strides;
    std::vector<int64_t> dst_strides;
    /// oneDNN output-scale mask: 0 (common) or 1 << channel axis.
    int scale_mask = 0;
    /// Scales oneDNN reads: dims[axis] or 1.
    int64_t nscales = 1;

    /// Static scales are baked into the primitive as oneDNN output scales: s for
    /// dequantize, the exact reciprocal 1/s for quantize.
    bool runtime_scales = false;
    std::vector<float> output_scales; ///< !runtime_scales
    int64_t scale_stride = 1; ///< runtime_scales: element stride of the scale input

    zp_plan zp = zp_plan::none;
    int64_t zp_value = 0; ///< zp == src_static
    data_type zp_dt = data_type::undef; ///< zp input type (u8, s8, s32)
    int64_t zp_count = 1; ///< zp inputs: values to read (nparams when per-channel)
    int64_t zp_stride = 1;

    /// True when run() may find the call inexact and hand it to the fallback kernel.
    bool needs_fallback() const;
};

/// Fills `plan` for a problem the dnnl backend accepts; otherwise returns false with `reason`.
bool plan_reorder(const quant_problem &prb, reorder_plan &plan, std::string &reason);

/// s is +-2^k with a finite, exact reciprocal (|s| in [2^-127, 2^127]): then x * (1/s) and
/// x / s are the same real number, so they round to the same f32 bits, overflow and
/// underflow included. This is the only case where oneDNN's multiply equals the division.
bool has_exact_reciprocal(float s);

/// zp converts to f32 without rounding. oneDNN 2.6 subtracts f32(zp) from f32(x); for 8-bit
/// x that equals f32(x - zp) exactly when f32(zp) is exact (one rounding of an exact
/// difference), and differs otherwise (e.g. zp = 2^24 + 1).
bool is_exact_in_f32(int64_t zp);

/// The oneDNN implementations whose numerics the evidence tests measured ("jit:uni").
/// Any other implementation (simple:any, ref:any, ...) is rejected rather than trusted.
bool is_verified_impl(const std::string &impl_name);

} // namespace dnnl_impl
} // namespace impl
} // namespace qgraph

#endif
