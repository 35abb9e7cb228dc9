#include "tools/qbench/op_case.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "qgraph/qgraph.hpp"
#include "tools/qbench/codec.hpp"

namespace qgraph {
namespace qbench {

namespace {

using lt = logical_tensor;

bool dequantizing(const std::string &op) {
    return op == "Dequantize" || op == "DynamicDequantize" || op == "DequantizeLinear";
}

bool is_onnx(const std::string &op) { return op == "QuantizeLinear" || op == "DequantizeLinear"; }

/// The ops whose scales are an input tensor (their type is --scale-dt, their granularity may
/// be --group).
bool has_scale_input(const std::string &op) {
    return op == "DynamicQuantize" || op == "DynamicDequantize" || is_onnx(op);
}

bool is_float8(const std::string &t) { return t.compare(0, 3, "f8_") == 0; }

/// Scale of channel (or group) c: powers of two times the base, so --scale=2^k keeps every
/// scale an exact reciprocal (the case the dnnl backend may take) and --scale=0.3 none.
float scale_of(float base, int64_t c) { return base * std::ldexp(1.f, static_cast<int>(c % 4)); }

/// Zero point of channel c for a zero point of type `t`: small nonzero values, spanning both
/// signs for the signed types below s32 (s8: -2..2), positive for the others so that an s32
/// zero point also fits a u8 side (u8: 3..7); float types hold 0 (NUMERICS.md: a float
/// quantized type takes no zero point).
int64_t zp_of(const std::string &t, int64_t c) {
    const data_type dt = data_type_from_string(t);
    if (is_float_type(dt)) return 0;
    const int64_t lo = static_cast<int64_t>(type_lowest(dt));
    const int64_t hi = static_cast<int64_t>(std::fmin(type_max(dt), 7));
    if (lo < 0 && t != "s32") {
        const int64_t first = std::max<int64_t>(lo, -2), last = std::min<int64_t>(hi, 2);
        return first + c % (last - first + 1);
    }
    const int64_t first = std::min<int64_t>(3, hi - 1);
    return first + c % (hi - first + 1);
}

/// ONNX's TensorProto code of a DequantizeLinear output type (its 'output_dtype'); 0 for a
/// type DequantizeLinear cannot output, which the schema then reports.
int64_t onnx_output_code(const std::string &t) {
    return t == "f32" ? 1 : t == "f16" ? 10 : t == "bf16" ? 16 : 0;
}

[[noreturn]] void bad_knobs(const std::string &msg) { throw error(status::invalid_arguments, msg); }

/// The knobs of issue 12 on an op that has no use for them are an error, not ignored.
void check_knobs_apply(const op_knobs &o) {
    if (!o.group.empty() && !has_scale_input(o.op))
        bad_knobs("--group applies to QuantizeLinear, DequantizeLinear, DynamicQuantize and "
                  "DynamicDequantize, not " + o.op);
    if (!o.group.empty() && o.qtype == "per_channel")
        bad_knobs("--group and --qtype=per_channel exclude each other (" + o.op + ")");
    if (o.scale_dt != "f32" && !has_scale_input(o.op))
        bad_knobs("--scale-dt applies to ops with a scale input, not " + o.op
                + " (its scales are an f32 attribute)");
    if (o.saturate >= 0 && (o.op != "QuantizeLinear" || !is_float8(o.ddt)))
        bad_knobs("--saturate applies to QuantizeLinear to a float8 type, not " + o.op + " "
                + o.sdt + " -> " + o.ddt);
    if (o.opset != 0 && !is_onnx(o.op))
        bad_knobs("--opset applies to QuantizeLinear and DequantizeLinear, not " + o.op);
}

/// The parameter tensor's dims and the attributes that say how it maps onto x: per tensor,
/// per channel along `axis`, ONNX blocks (axis + block_size) or oneDNN groups (group_shape).
lt::dims param_dims(const op_knobs &o, const lt::dims &shape, op &q) {
    const bool onnx = is_onnx(o.op);
    const int64_t rank = static_cast<int64_t>(shape.size());
    if (o.group.empty()) {
        if (o.qtype != "per_channel") {
            if (!onnx) q.set_attr(op::attr::axis, o.axis);
            return onnx ? lt::dims {} : lt::dims {1};
        }
        const int64_t axis = o.axis < 0 ? o.axis + rank : o.axis;
        if (axis < 0 || axis >= rank)
            bad_knobs("--axis=" + std::to_string(o.axis) + " is outside the shape of rank "
                    + std::to_string(rank));
        q.set_attr(op::attr::axis, o.axis);
        return {shape[static_cast<size_t>(axis)]};
    }
    const std::string group = std::to_string(o.group[0]) + "x" + std::to_string(o.group[1]);
    if (rank < 2)
        bad_knobs("--group=" + group + " groups the last two dims, but the shape has rank "
                + std::to_string(rank));
    lt::dims dims = shape;
    if (onnx) {
        // ONNX blocks one axis: the grouped dim, with ceil(D / block) scales along it.
        if (o.group[0] > 1 && o.group[1] > 1)
            bad_knobs("--group=" + group + ": " + o.op
                    + " blocks one axis (block_size), so one of the two sizes must be 1");
        const int64_t axis = o.group[0] > 1 ? rank - 2 : rank - 1;
        const int64_t block = o.group[0] > 1 ? o.group[0] : o.group[1];
        dims[static_cast<size_t>(axis)] = (dims[static_cast<size_t>(axis)] + block - 1) / block;
        q.set_attr(op::attr::axis, axis);
        q.set_attr(op::attr::block_size, block);
        return dims;
    }
    // oneDNN per_group: group_shape has x's rank; a dim that is not a multiple of its group
    // is the schema's to report (no partial groups).
    std::vector<int64_t> group_shape(shape.size(), 1);
    group_shape[shape.size() - 2] = o.group[0];
    group_shape[shape.size() - 1] = o.group[1];
    for (size_t i = 0; i < dims.size(); ++i) dims[i] /= group_shape[i];
    q.set_attr(op::attr::qtype, std::string("per_group"));
    q.set_attr(op::attr::group_shape, group_shape);
    return dims;
}

int64_t element_count(const lt::dims &dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

} // namespace

op_knobs resolve_op_knobs(const op_knobs &o) {
    op_knobs r = o;
    const bool deq = dequantizing(o.op);
    // An ONNX op's quantized side takes its zero point's type (QuantizeLinear has no s32 y).
    const bool zp_sets_side
            = is_onnx(o.op) && o.zp != "none" && !(o.op == "QuantizeLinear" && o.zp == "s32");
    const std::string int_default = zp_sets_side ? o.zp : "u8";
    // DequantizeLinear and DynamicDequantize output their scales' type (an e8m0 scale needs
    // DequantizeLinear's output_dtype, which the case builder sets from the f32 default).
    const bool dst_is_scale_dt = o.op == "DequantizeLinear" || o.op == "DynamicDequantize";
    const std::string float_default
            = dst_is_scale_dt && o.scale_dt != "e8m0" ? o.scale_dt : "f32";
    if (r.sdt.empty()) r.sdt = deq ? int_default : "f32";
    if (r.ddt.empty()) r.ddt = deq ? float_default : int_default;
    if (o.op == "DynamicQuantizeLinear") {
        r.qtype = "per_tensor";
        r.zp = "none";
    }
    return r;
}

tools::graph_case make_op_case(const op_knobs &knobs, const lt::dims &shape) {
    const op_knobs o = resolve_op_knobs(knobs);
    const op::kind kind = op_kind_from_string(o.op);
    const data_type sdt = data_type_from_string(o.sdt);
    const data_type ddt = data_type_from_string(o.ddt);
    tools::graph_case c;
    check_knobs_apply(o);

    if (kind == op::kind::DynamicQuantizeLinear) {
        op q(0, kind, {lt(0, sdt, shape, lt::layout_type::strided)},
                {lt(1, ddt, shape, lt::layout_type::strided),
                        lt(2, data_type::f32, {}, lt::layout_type::strided),
                        lt(3, ddt, {}, lt::layout_type::strided)},
                "dql");
        c.ops.push_back(q);
        return c;
    }

    const lt x(0, sdt, shape, lt::layout_type::strided);
    const lt y(3, ddt, shape, lt::layout_type::strided);
    const bool is_static = kind == op::kind::Quantize || kind == op::kind::Dequantize;
    op q(0, kind, {x}, {y}, "q"); // runtime ops get their scale and zp inputs below
    // Runtime scales: inputs. oneDNN's dynamic ops take 1-D {C} (or {1}); ONNX's take 0-D for
    // per-tensor, 1-D {C} per axis and x's rank when blocked.
    const lt::dims pdims = param_dims(o, shape, q);
    const int64_t n = element_count(pdims);
    std::vector<float> scales;
    std::vector<int64_t> zps;
    // A static zero point lives in the integer side's range (its attribute has no type).
    const std::string &zp_type = is_static ? (dequantizing(o.op) ? o.sdt : o.ddt) : o.zp;
    for (int64_t i = 0; i < n; ++i) {
        scales.push_back(scale_of(o.scale, i));
        zps.push_back(o.zp == "none" ? 0 : zp_of(zp_type, i));
    }

    if (is_static) {
        q.set_attr(op::attr::qtype, o.qtype);
        q.set_attr(op::attr::scales, scales);
        q.set_attr(op::attr::zps, zps);
        c.ops.push_back(q);
        return c;
    }

    const data_type scale_dt = data_type_from_string(o.scale_dt);
    for (float s : scales) {
        // Scales are stored as given: one the type would round is an error, not a new scale.
        uint64_t bits;
        std::string why;
        if (!encode(scale_dt, s, bits, why) || decode(scale_dt, bits) != s)
            bad_knobs("--scale=" + std::to_string(o.scale) + " gives the scale "
                    + std::to_string(s) + ", which " + o.scale_dt
                    + " cannot hold exactly (use a power of two)");
    }
    q.add_input(lt(1, scale_dt, pdims, lt::layout_type::strided));
    c.inputs[1] = tools::tensor_values(scales.begin(), scales.end());
    if (o.zp != "none") {
        q.add_input(lt(2, data_type_from_string(o.zp), pdims, lt::layout_type::strided));
        c.inputs[2] = tools::tensor_values(zps.begin(), zps.end());
    }
    if (!is_onnx(o.op) && o.group.empty()) q.set_attr(op::attr::qtype, o.qtype);
    if (kind == op::kind::DequantizeLinear && o.ddt != o.scale_dt)
        if (const int64_t code = onnx_output_code(o.ddt)) q.set_attr("output_dtype", code);
    if (o.saturate >= 0) q.set_attr(op::attr::saturate, int64_t(o.saturate));
    if (o.opset != 0) q.set_attr("opset", o.opset);
    c.ops.push_back(q);
    return c;
}

} // namespace qbench
} // namespace qgraph
