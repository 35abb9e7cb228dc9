#include "passes/lowering.hpp"

#include "common/data_types.hpp"
#include "common/op_attrs.hpp"
#include "common/utils.hpp"
#include "qgraph/data_type_table.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {

void canonicalise(quant_problem &p) {
    if (p.orig_params.empty()) p.orig_params.resize(p.orig_dims.size());
    // One parameter entry along a dim (a size-1 channel, a block covering the dim) is the
    // same as no variation: scales[0] along it.
    for (size_t i = 0; i < p.orig_dims.size(); ++i)
        if (p.orig_params[i].count(p.orig_dims[i]) == 1) p.orig_params[i] = param_dim {};
    p.dims.clear();
    p.src_strides.clear();
    p.dst_strides.clear();
    p.params.clear();
    if (p.nelems == 0) {
        p.dims = {0};
        p.src_strides = p.dst_strides = {1};
        p.params = {param_dim {}};
        return;
    }
    for (size_t i = 0; i < p.orig_dims.size(); ++i) {
        if (p.orig_dims[i] == 1) continue;
        const param_dim &pm = p.orig_params[i];
        // Dims the parameters vary along stay apart: their index selects the parameter,
        // and keeping them whole keeps per-channel maps per-channel for the JIT.
        if (!p.dims.empty() && !pm.varies() && !p.params.back().varies()
                && p.src_strides.back() == p.orig_src_strides[i] * p.orig_dims[i]
                && p.dst_strides.back() == p.orig_dst_strides[i] * p.orig_dims[i]) {
            p.dims.back() *= p.orig_dims[i];
            p.src_strides.back() = p.orig_src_strides[i];
            p.dst_strides.back() = p.orig_dst_strides[i];
            continue;
        }
        p.dims.push_back(p.orig_dims[i]);
        p.src_strides.push_back(p.orig_src_strides[i]);
        p.dst_strides.push_back(p.orig_dst_strides[i]);
        p.params.push_back(pm);
    }
}

namespace {

int64_t param_stride(const logical_tensor &t) {
    return t.get_ndims() == 1 ? t.get_strides()[0] : 1;
}

/// Scales (input 1) and the optional zero points (input 2) are tensors read at execute;
/// their strides go to `channel`, the map entry of a per-channel axis.
void set_runtime_params(
        quant_problem &p, const std::vector<logical_tensor> &ins, param_dim &channel) {
    p.scale_src = param_source::input;
    channel.scale_stride = param_stride(ins[1]);
    p.scale_dt = ins[1].get_data_type();
    if (ins.size() > 2) {
        p.zp_src = param_source::input;
        p.zp_dt = ins[2].get_data_type();
        channel.zp_stride = param_stride(ins[2]);
    }
}

int normalised_axis(const op &o, size_t rank) {
    const int64_t a = attr_s64(o, "axis", 1);
    return static_cast<int>(a < 0 ? a + static_cast<int64_t>(rank) : a);
}

/// N-D scale (input 1) and zero-point (input 2) tensors of src's rank, entry i / groups[d]
/// along each dim d (the schema checked the shapes): ONNX blocked and oneDNN per_group.
/// A dim with one entry gets group 1 and is made non-varying by canonicalise.
std::vector<param_dim> tensor_map(
        const std::vector<logical_tensor> &ins, const std::vector<int64_t> &groups) {
    std::vector<param_dim> m(groups.size());
    for (size_t d = 0; d < groups.size(); ++d)
        m[d] = param_dim {groups[d], ins[1].get_strides()[d],
                ins.size() > 2 ? ins[2].get_strides()[d] : 0};
    return m;
}

/// ONNX QuantizeLinear's division precision (NUMERICS.md): `precision` if given, else x's
/// type when x and the scale are both f16 or both bf16, else f32.
data_type division_type(const op &o, data_type x, data_type scale) {
    const int64_t precision = attr_s64(o, "precision", 0);
    if (precision != 0) return onnx_data_type(precision);
    if (x == scale && (x == data_type::f16 || x == data_type::bf16)) return x;
    return data_type::f32;
}

/// oneDNN's StaticTranspose order with negative entries counted from the last axis (the
/// schema checked that it is a permutation of src's axes).
std::vector<int64_t> normalised_order(const op &o, size_t rank) {
    std::vector<int64_t> order = attr_s64s(o, "order");
    for (int64_t &a : order)
        if (a < 0) a += static_cast<int64_t>(rank);
    return order;
}

/// Row-major strides of dense `dims`.
std::vector<int64_t> dense_strides(const std::vector<int64_t> &dims) {
    std::vector<int64_t> s(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
    return s;
}

/// Whether `t` is dense row-major; the strides of size-1 dims do not matter (they are never
/// multiplied by a nonzero index), and an empty tensor has no element to misplace.
bool is_dense(const logical_tensor &t) {
    if (t.get_element_num() == 0) return true;
    const std::vector<int64_t> want = dense_strides(t.get_dims());
    for (size_t i = 0; i < want.size(); ++i)
        if (t.get_dims()[i] != 1 && t.get_strides()[i] != want[i]) return false;
    return true;
}

/// TypeCast, Reorder, StaticReshape, StaticTranspose: one element of dst per element of src,
/// no parameters. The index space is dst's; each op says where in src its element lies.
quant_problem lower_data_movement(const op &o) {
    const logical_tensor &src = o.get_input_logical_tensors()[0];
    const logical_tensor &dst = o.get_output_logical_tensors()[0];
    quant_problem p;
    p.kind = q_kind::convert;
    p.op_name = to_string(o.get_kind());
    p.src_dt = src.get_data_type();
    p.dst_dt = dst.get_data_type();
    p.scale_src = param_source::none;
    p.nelems = src.get_element_num();
    p.orig_dims = dst.get_dims();
    p.orig_dst_strides = dst.get_strides();
    switch (o.get_kind()) {
        case op::kind::StaticTranspose: {
            // dst dim i is src dim order[i]: walking it steps src by that dim's stride.
            for (int64_t a : normalised_order(o, src.get_dims().size()))
                p.orig_src_strides.push_back(src.get_strides()[a]);
            break;
        }
        case op::kind::StaticReshape:
            // The elements keep their row-major order, so a dense src is read as if it had
            // dst's dims; any other src would need its own index space (not lowered yet).
            if (!is_dense(src))
                throw error(status::unimplemented,
                        op_desc(o) + ": input 0 (src) with strides "
                                + dims_to_string(src.get_strides()) + " for shape "
                                + dims_to_string(src.get_dims())
                                + " is not dense row-major; only a dense src is reshaped");
            p.orig_src_strides = dense_strides(p.orig_dims);
            break;
        default: p.orig_src_strides = src.get_strides(); break; // same shape on both sides
    }
    canonicalise(p);
    return p;
}

} // namespace

quant_problem lower_op(const op &o) {
    switch (o.get_kind()) {
        case op::kind::TypeCast:
        case op::kind::Reorder:
        case op::kind::StaticReshape:
        case op::kind::StaticTranspose: return lower_data_movement(o);
        default: break;
    }
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
    // Attribute parameters are dense arrays; set_runtime_params gives the tensors' strides.
    param_dim channel {1, 1, 1};
    int axis = -1;
    std::vector<param_dim> map; // N-D parameter tensors: one entry per dim

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
            // oneDNN's f8 conversions do not saturate (NUMERICS.md, Float8 and float4).
            p.saturate = !is_float8(p.dst_dt);
            if (attr_string(o, "qtype", "per_tensor") == "per_channel")
                axis = normalised_axis(o, p.orig_dims.size());
            break;
        }
        case op::kind::DynamicQuantize:
        case op::kind::DynamicDequantize:
            p.kind = o.get_kind() == op::kind::DynamicQuantize ? q_kind::quantize
                                                               : q_kind::dequantize;
            set_runtime_params(p, ins, channel);
            if (attr_string(o, "qtype", "per_tensor") == "per_channel")
                axis = normalised_axis(o, p.orig_dims.size());
            if (attr_string(o, "qtype", "per_tensor") == "per_group")
                map = tensor_map(ins, attr_s64s(o, "group_shape"));
            break;
        case op::kind::QuantizeLinear:
        case op::kind::DequantizeLinear:
            p.kind = o.get_kind() == op::kind::QuantizeLinear ? q_kind::quantize
                                                              : q_kind::dequantize;
            set_runtime_params(p, ins, channel);
            if (p.kind == q_kind::quantize) {
                p.div_dt = division_type(o, p.src_dt, p.scale_dt);
                // ONNX's saturate applies to float8 outputs only.
                p.saturate = !is_float8(p.dst_dt) || attr_s64(o, "saturate", 1) != 0;
            }
            // ONNX has no qtype: a scale of more than one value is blocked with block_size,
            // else per-axis; one value is per-tensor whatever axis and block_size say.
            if (ins[1].get_element_num() > 1) {
                axis = normalised_axis(o, p.orig_dims.size());
                const int64_t block = attr_s64(o, "block_size", 0);
                if (block > 0) {
                    std::vector<int64_t> groups(p.orig_dims.size(), 1);
                    groups[axis] = block;
                    map = tensor_map(ins, groups);
                }
            }
            break;
        case op::kind::DynamicQuantizeLinear:
            p.kind = q_kind::dynamic_quantize_linear;
            p.scale_src = param_source::none;
            break;
        default:
            throw error(status::unimplemented, op_desc(o) + ": no lowering for this op kind");
    }
    p.orig_params.assign(p.orig_dims.size(), param_dim {});
    if (!map.empty())
        p.orig_params = map;
    else if (axis >= 0)
        p.orig_params[axis] = channel;
    canonicalise(p);
    return p;
}

} // namespace impl
} // namespace qgraph
