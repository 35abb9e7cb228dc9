#include "passes/lowering.hpp"

#include "common/op_attrs.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {
namespace {

/// Drops size-1 dims and merges neighbours that are contiguous in both src and dst; the
/// channel dim is never merged (its index selects the scale). A channel dim of size 1 becomes
/// per-tensor: its one scale is scales[0].
void canonicalise(quant_problem &p) {
    std::vector<int64_t> d, ss, ds;
    int ch = -1;
    if (p.nelems == 0) {
        p.dims = {0};
        p.src_strides = p.dst_strides = {1};
        p.channel_dim = -1;
        return;
    }
    for (size_t i = 0; i < p.orig_dims.size(); ++i) {
        if (p.orig_dims[i] == 1) continue;
        const bool is_ch = static_cast<int>(i) == p.orig_axis;
        const bool prev_is_ch = ch >= 0 && ch == static_cast<int>(d.size()) - 1;
        if (!d.empty() && !is_ch && !prev_is_ch
                && ss.back() == p.orig_src_strides[i] * p.orig_dims[i]
                && ds.back() == p.orig_dst_strides[i] * p.orig_dims[i]) {
            d.back() *= p.orig_dims[i];
            ss.back() = p.orig_src_strides[i];
            ds.back() = p.orig_dst_strides[i];
            continue;
        }
        if (is_ch) ch = static_cast<int>(d.size());
        d.push_back(p.orig_dims[i]);
        ss.push_back(p.orig_src_strides[i]);
        ds.push_back(p.orig_dst_strides[i]);
    }
    p.dims = d;
    p.src_strides = ss;
    p.dst_strides = ds;
    p.channel_dim = ch;
}

int64_t param_stride(const logical_tensor &t) {
    return t.get_ndims() == 1 ? t.get_strides()[0] : 1;
}

/// Scales (input 1) and the optional zero points (input 2) are tensors read at execute.
void set_runtime_params(quant_problem &p, const std::vector<logical_tensor> &ins) {
    p.scale_src = param_source::input;
    p.scale_stride = param_stride(ins[1]);
    p.scale_dt = ins[1].get_data_type();
    if (ins.size() > 2) {
        p.zp_src = param_source::input;
        p.zp_dt = ins[2].get_data_type();
        p.zp_stride = param_stride(ins[2]);
    }
}

int normalised_axis(const op &o, size_t rank) {
    const int64_t a = attr_s64(o, "axis", 1);
    return static_cast<int>(a < 0 ? a + static_cast<int64_t>(rank) : a);
}

} // namespace

quant_problem lower_op(const op &o) {
    const auto &ins = o.get_input_logical_tensors();
    const auto &outs = o.get_output_logical_tensors();
    const logical_tensor &src = ins[0], &dst = outs[0];

    quant_problem p;
    p.op_name = to_string(o.get_kind());
    p.src_dt = src.get_data_type();
    p.dst_dt = dst.get_data_type();
    p.orig_dims = src.get_dims();
    p.orig_src_strides = src.get_strides();
    p.orig_dst_strides = dst.get_strides();
    p.nelems = src.get_element_num();

    switch (o.get_kind()) {
        case op::kind::Quantize:
        case op::kind::Dequantize: {
            p.kind = o.get_kind() == op::kind::Quantize ? q_kind::quantize : q_kind::dequantize;
            p.scale_src = param_source::attr;
            p.scales = attr_f32s(o, "scales");
            const std::vector<int64_t> zps = attr_s64s(o, "zps");
            bool any_zp = false;
            for (int64_t z : zps) any_zp = any_zp || z != 0;
            p.zp_src = any_zp ? param_source::attr : param_source::none;
            if (any_zp) p.zps = zps;
            if (attr_string(o, "qtype", "per_tensor") == "per_channel")
                p.orig_axis = normalised_axis(o, p.orig_dims.size());
            break;
        }
        case op::kind::DynamicQuantize:
        case op::kind::DynamicDequantize:
            p.kind = o.get_kind() == op::kind::DynamicQuantize ? q_kind::quantize
                                                               : q_kind::dequantize;
            set_runtime_params(p, ins);
            if (attr_string(o, "qtype", "per_tensor") == "per_channel")
                p.orig_axis = normalised_axis(o, p.orig_dims.size());
            break;
        case op::kind::QuantizeLinear:
        case op::kind::DequantizeLinear:
            p.kind = o.get_kind() == op::kind::QuantizeLinear ? q_kind::quantize
                                                              : q_kind::dequantize;
            set_runtime_params(p, ins);
            // ONNX has no qtype: a scale of more than one value is per-axis.
            if (ins[1].get_element_num() > 1)
                p.orig_axis = normalised_axis(o, p.orig_dims.size());
            break;
        case op::kind::DynamicQuantizeLinear:
            p.kind = q_kind::dynamic_quantize_linear;
            p.scale_src = param_source::none;
            break;
        default:
            throw error(status::unimplemented, op_desc(o) + ": no lowering for this op kind");
    }
    // A single-channel axis is per-tensor.
    if (p.orig_axis >= 0 && p.orig_dims[p.orig_axis] == 1) p.orig_axis = -1;
    canonicalise(p);
    p.nparams = p.per_channel() ? p.dims[p.channel_dim] : 1;
    return p;
}

} // namespace impl
} // namespace qgraph
