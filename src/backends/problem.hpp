#ifndef QGRAPH_BACKENDS_PROBLEM_HPP
#define QGRAPH_BACKENDS_PROBLEM_HPP

// The canonical quantization problem: what every backend receives instead of ops and logical
// tensors. passes/lowering builds it; backends accept or reject it.

#include <cstdint>
#include <string>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/parallel.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {

enum class q_kind {
    quantize, ///< y = saturate(rne(x / s) + zp)
    dequantize, ///< y = f32(x - zp) * s
    dynamic_quantize_linear, ///< min/max pass, parameters, then quantize (outputs scale, zp)
};

/// Where scales or zero points come from.
enum class param_source {
    none, ///< no zero point (0)
    attr, ///< values known at compile (oneDNN Quantize/Dequantize attributes)
    input, ///< an input tensor read at execute
};

/// One elementwise problem over a strided N-D index space.
///
/// Layout is canonical: dims of size 1 are dropped and adjacent dims that are contiguous in
/// both src and dst (and are not the channel dim) are merged, so a dense tensor is one dim.
/// Zero dims (ndims == 0) mean a single element. Strides are in elements and non-negative.
struct quant_problem {
    q_kind kind = q_kind::quantize;
    data_type src_dt = data_type::undef;
    data_type dst_dt = data_type::undef;

    std::vector<int64_t> dims;
    std::vector<int64_t> src_strides;
    std::vector<int64_t> dst_strides;
    int64_t nelems = 0;

    /// Index into dims of the dim scales and zero points vary along; -1 for per-tensor.
    int channel_dim = -1;
    /// Number of scales (and zero points, when per-channel): dims[channel_dim] or 1.
    int64_t nparams = 1;

    param_source scale_src = param_source::attr;
    std::vector<float> scales; ///< scale_src == attr
    int64_t scale_stride = 1; ///< scale_src == input: element stride of the scale tensor
    /// scale_src == input: f32, f16, bf16 or e8m0 (NUMERICS.md); attribute scales are f32.
    data_type scale_dt = data_type::f32;

    param_source zp_src = param_source::none;
    data_type zp_dt = data_type::undef; ///< zp_src == input: u8, s8 or s32
    std::vector<int64_t> zps; ///< zp_src == attr
    int64_t zp_stride = 1; ///< zp_src == input

    /// The same problem before canonicalisation, for backends (oneDNN) that want the user's
    /// own shape: dims, strides and the per-channel axis (-1 per-tensor).
    std::vector<int64_t> orig_dims;
    std::vector<int64_t> orig_src_strides;
    std::vector<int64_t> orig_dst_strides;
    int orig_axis = -1;

    /// Op kind for messages ("Quantize", "DequantizeLinear", ...).
    std::string op_name;

    /// The highest ISA a kernel may be generated for: the cap the compile read once with its
    /// other settings (the cache key holds the same value), not the global cap read again.
    cpu_isa_t isa_cap = isa_all;

    bool per_channel() const { return channel_dim >= 0; }
    /// "QuantizeLinear f32:u8 per_channel(axis 1) 1x64x56x56 scales:input zp:input:u8"
    /// (scales:input:f16 where the scale type is not f32)
    std::string describe() const;
};

/// Pointers bound at execute. Fields the problem does not use are null.
struct exec_args {
    const void *src = nullptr;
    void *dst = nullptr;
    const void *scales = nullptr; ///< scale_src == input, of scale_dt
    const void *zps = nullptr; ///< zp_src == input
    float *out_scale = nullptr; ///< dynamic_quantize_linear: y_scale (0-D f32)
    uint8_t *out_zp = nullptr; ///< dynamic_quantize_linear: y_zero_point (0-D u8)
    /// Where the kernel's parallel regions run: the stream's pool or the process runtime,
    /// read once (by default when the arguments are made).
    parallel_ctx par = current_parallel_ctx();
};

} // namespace impl
} // namespace qgraph

#endif
