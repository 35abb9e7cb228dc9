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
    /// y = x in dst's type, no parameters: a copy of the bits when the types match (Reorder,
    /// StaticReshape, StaticTranspose: data movement through the strides), else f32 <-> bf16
    /// / f16 (TypeCast), rounded to nearest even.
    convert,
    /// y = tables[entry * 256 + x]: a fused chain from an 8-bit integer source to an 8-bit
    /// integer destination (passes/chain_tables.hpp), x the source's byte read as unsigned and
    /// entry the element's parameter entry (scale_offset of its index). The tables are the
    /// chain's own ops run on the reference backend over every code, so they are exact.
    lookup,
};

/// Where scales or zero points come from.
enum class param_source {
    none, ///< no zero point (0)
    attr, ///< values known at compile (oneDNN Quantize/Dequantize attributes)
    input, ///< an input tensor read at execute
};

/// How scales and zero points vary along one dim: element i of the dim takes parameter
/// entry i / group along it, or entry 0 for every i when group is 0 (the parameters do not
/// vary along the dim). Per-channel is group 1; ONNX blocked quantization is group
/// block_size (the last block may be partial); oneDNN per_group is one group size on each of
/// two dims. The strides are in elements of the parameter arrays (p.scales / p.zps when they
/// are attributes, the tensors bound at execute when they are inputs); 0 when group is 0.
struct param_dim {
    int64_t group = 0;
    int64_t scale_stride = 0;
    int64_t zp_stride = 0;

    bool varies() const { return group > 0; }
    /// Entries of the parameter tensor along a dim of `extent` elements.
    int64_t count(int64_t extent) const { return varies() ? (extent + group - 1) / group : 1; }
};

/// A dequantize fused after a quantize (fake-quantize: Quantize -> Dequantize as one problem,
/// passes/chain_rewrite.hpp). The quantize computes its integer q = saturate(rne(x / s) + zp)
/// in q_dt, as it would store it; the problem's result is the dequantize of q, f32(q - zp') *
/// s', rounded to the problem's dst_dt (f32, bf16 or f16) as the dequantize rounds it. q is
/// never stored. The parameters are attributes on the quantize's own map: the element whose
/// scale_offset is e takes scale scales[e] and zero point zps[e] (0 when zps is empty).
struct dequantize_stage {
    data_type q_dt = data_type::undef; ///< an integer type; undef: no stage
    std::vector<float> scales;
    std::vector<int64_t> zps;
};

/// One elementwise problem over a strided N-D index space.
///
/// Layout is canonical: dims of size 1 are dropped and adjacent dims that are contiguous in
/// both src and dst, and along which the parameters do not vary, are merged, so a dense
/// per-tensor tensor is one dim. Zero dims (ndims == 0) mean a single element. Strides are in
/// elements and non-negative.
struct quant_problem {
    q_kind kind = q_kind::quantize;
    data_type src_dt = data_type::undef;
    data_type dst_dt = data_type::undef;

    std::vector<int64_t> dims;
    std::vector<int64_t> src_strides;
    std::vector<int64_t> dst_strides;
    int64_t nelems = 0;

    /// The parameter map: one entry per dim. Per-tensor when no dim varies.
    std::vector<param_dim> params;

    param_source scale_src = param_source::attr;
    std::vector<float> scales; ///< scale_src == attr
    /// scale_src == input: f32, f16, bf16 or e8m0 (NUMERICS.md); attribute scales are f32.
    data_type scale_dt = data_type::f32;

    param_source zp_src = param_source::none;
    /// zp_src == input: any integer type (sub-byte ones packed like the data), or the float
    /// destination's own type, whose every value must then be 0 (checked at execute).
    data_type zp_dt = data_type::undef;
    std::vector<int64_t> zps; ///< zp_src == attr

    /// Quantize: the type x / s is computed in (NUMERICS.md, division precision): f32, or
    /// f16 / bf16, where x and s are first rounded to it and the quotient is rounded to it.
    data_type div_dt = data_type::f32;
    /// Quantize of an f32 source: undef, or bf16 / f16, the type each source value is first
    /// rounded to, as TypeCast rounds f32 (NUMERICS.md), and widened back from, exactly,
    /// before the division: a TypeCast -> Quantize chain as one problem
    /// (passes/chain_rewrite.hpp).
    data_type src_round_dt = data_type::undef;
    /// Quantize to a float8 type: values rounding beyond the largest finite one, and +-Inf,
    /// give +-max (true: ONNX saturate=1) or NaN / +-Inf (false: ONNX saturate=0, oneDNN).
    /// float4 always saturates; integer destinations always do.
    bool saturate = true;
    /// Quantize only: the dequantize fused after it, or none (q_dt undef). With one, dst_dt
    /// is the dequantize's float destination and quantized_dt() the quantize's own type.
    dequantize_stage dequantize_after;

    /// The same problem before canonicalisation, for backends (oneDNN) that want the user's
    /// own shape: dims, strides and the parameter map, one entry per orig dim (an entry whose
    /// dim has one parameter entry does not vary).
    std::vector<int64_t> orig_dims;
    std::vector<int64_t> orig_src_strides;
    std::vector<int64_t> orig_dst_strides;
    std::vector<param_dim> orig_params;

    /// lookup: 256 result codes per parameter entry; the map's scale strides index entries.
    std::vector<uint8_t> tables;

    /// Op kind for messages ("Quantize", "DequantizeLinear", ...).
    std::string op_name;

    /// The highest ISA a kernel may be generated for: the cap the compile read once with its
    /// other settings (the cache key holds the same value), not the global cap read again.
    cpu_isa_t isa_cap = isa_all;

    /// A quantize followed by a fused dequantize (dequantize_after).
    bool fake_quantize() const { return dequantize_after.q_dt != data_type::undef; }
    /// The type a quantize rounds and saturates to: dst_dt, or the fused dequantize's q_dt.
    data_type quantized_dt() const { return fake_quantize() ? dequantize_after.q_dt : dst_dt; }

    /// The parameter tensor's shape, one extent per dim (all 1 per-tensor).
    std::vector<int64_t> param_shape() const;
    /// Parameter entries the problem reads: the product of param_shape().
    int64_t nparams() const;
    /// Scale entries from the first the map reaches to the last, inclusive: the extent of the
    /// scale tensor a kernel reads (nparams() for dense scales; 0 for an empty problem).
    int64_t scale_span() const;
    /// Offset of the scale and of the zero point of the element at index idx (one per dim).
    int64_t scale_offset(const int64_t *idx) const;
    int64_t zp_offset(const int64_t *idx) const;

    /// No dim varies.
    bool per_tensor() const;
    /// The dim the parameters vary along one element at a time (group 1) when it is the only
    /// dim they vary along, else -1: per-channel. Blocked and grouped maps have no channel dim.
    int channel_dim() const;
    bool per_channel() const { return channel_dim() >= 0; }
    /// The channel dim's scale and zero-point strides; 1 when there is no channel dim.
    int64_t scale_stride() const;
    int64_t zp_stride() const;
    /// The per-channel axis among orig_dims, or -1.
    int orig_axis() const;

    /// "QuantizeLinear f32:u8 per_channel(axis 1) 1x64x56x56 scales:input zp:input:u8";
    /// a lookup names its tables: "Dequantize+Quantize u8:s8 per_tensor 1x64 lookup:1x256";
    /// blocked and grouped maps read "groups(1x32)", the group along each orig dim;
    /// scales:input:f16 where the scale type is not f32; "f32(bf16):u8" where the source is
    /// rounded to bf16 first (src_round_dt); "Quantize+Dequantize f32:u8:f32" with a fused
    /// dequantize (the quantized type between). A convert has no parameters:
    /// "StaticTranspose f32:f32 2x3".
    std::string describe() const;
};

/// Splits every canonical dim whose parameter groups (> 1) tile it exactly into the groups (one
/// parameter entry each: group 1) and the elements of a group (parameters constant), then
/// merges neighbours that are contiguous in src, dst and the parameter tensors. A blocked map
/// whose blocks tile their dim (ONNX block_size B on the last axis, dims a multiple of B)
/// becomes a per-channel map whose channel is the block index: one parameter set per row of B
/// elements, which kernels that take per-channel parameters on an outer dim run as they are.
/// Returns false and leaves p unchanged when no dim splits. orig_* are kept (the user's view).
bool split_full_groups(quant_problem &p);

/// Where the second part of a split problem starts in each of the problem's tensors, in
/// bytes from the tensors' own starts.
struct part_offsets {
    int64_t src = 0;
    int64_t dst = 0;
    int64_t scales = 0;
    int64_t zps = 0;
};

/// Splits a problem whose parameter groups along one dim do not tile it (ONNX block_size with
/// a partial last block) into `whole`, the whole groups (which split_full_groups then turns
/// into rows), and `last`, the partial last group along that dim (its parameters constant
/// along it), whose tensors start at the byte offsets `at` of the problem's. Both parts are
/// canonical (dims of extent 1 dropped) and are their own user's view (orig_*), so any
/// backend may take either. Returns false, the outputs untouched, unless exactly one dim has
/// a partial group, the parameters are tensors (attributes would need their own copies) and
/// `last` starts on a byte of every tensor (sub-byte types).
bool split_last_group(const quant_problem &p, quant_problem &whole, quant_problem &last,
        part_offsets &at);

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
