#include "tools/qbench/op_case.hpp"

#include <cmath>
#include <string>
#include <vector>

#include "qgraph/qgraph.hpp"

namespace qgraph {
namespace qbench {

namespace {

using lt = logical_tensor;

bool dequantizing(const std::string &op) {
    return op == "Dequantize" || op == "DynamicDequantize" || op == "DequantizeLinear";
}

/// Scale of channel c: powers of two times the base, so --scale=2^k keeps every scale an
/// exact reciprocal (the case the dnnl backend may take) and --scale=0.3 none.
float scale_of(float base, int64_t c) { return base * std::ldexp(1.f, static_cast<int>(c % 4)); }

/// Zero point of channel c: small values for the type (s8 spans both signs, the others are
/// nonzero and positive, so they also fit a u8 side).
int64_t zp_of(const std::string &zp, int64_t c) { return zp == "s8" ? c % 5 - 2 : 3 + c % 5; }

} // namespace

op_knobs resolve_op_knobs(const op_knobs &o) {
    op_knobs r = o;
    const bool deq = dequantizing(o.op);
    const bool onnx = o.op == "QuantizeLinear" || o.op == "DequantizeLinear";
    const std::string int_default = onnx && (o.zp == "s8" || o.zp == "u8") ? o.zp : "u8";
    if (r.sdt.empty()) r.sdt = deq ? int_default : "f32";
    if (r.ddt.empty()) r.ddt = deq ? "f32" : int_default;
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

    if (kind == op::kind::DynamicQuantizeLinear) {
        op q(0, kind, {lt(0, sdt, shape, lt::layout_type::strided)},
                {lt(1, ddt, shape, lt::layout_type::strided),
                        lt(2, data_type::f32, {}, lt::layout_type::strided),
                        lt(3, ddt, {}, lt::layout_type::strided)},
                "dql");
        c.ops.push_back(q);
        return c;
    }

    const bool per_channel = o.qtype == "per_channel";
    const int64_t rank = static_cast<int64_t>(shape.size());
    const int64_t axis = o.axis < 0 ? o.axis + rank : o.axis;
    if (per_channel && (axis < 0 || axis >= rank))
        throw error(status::invalid_arguments,
                "--axis=" + std::to_string(o.axis) + " is outside the shape of rank "
                        + std::to_string(rank));
    const int64_t channels = per_channel ? shape[static_cast<size_t>(axis)] : 1;
    std::vector<float> scales;
    std::vector<int64_t> zps;
    for (int64_t ch = 0; ch < channels; ++ch) {
        scales.push_back(scale_of(o.scale, ch));
        // A static zero point lives in the integer side's range (its attribute has no type).
        const std::string &int_side = dequantizing(o.op) ? o.sdt : o.ddt;
        const bool is_static = kind == op::kind::Quantize || kind == op::kind::Dequantize;
        zps.push_back(o.zp == "none" ? 0 : zp_of(is_static ? int_side : o.zp, ch));
    }

    const lt x(0, sdt, shape, lt::layout_type::strided);
    const lt y(3, ddt, shape, lt::layout_type::strided);
    if (kind == op::kind::Quantize || kind == op::kind::Dequantize) {
        op q(0, kind, {x}, {y}, "q");
        q.set_attr(op::attr::qtype, o.qtype);
        q.set_attr(op::attr::axis, o.axis);
        q.set_attr(op::attr::scales, scales);
        q.set_attr(op::attr::zps, zps);
        c.ops.push_back(q);
        return c;
    }

    // Runtime scales: inputs. oneDNN's dynamic ops take 1-D {C} (or {1}); ONNX's take 0-D for
    // per-tensor and 1-D {C} per axis.
    const bool onnx = kind == op::kind::QuantizeLinear || kind == op::kind::DequantizeLinear;
    const lt::dims pdims = per_channel ? lt::dims {channels} : onnx ? lt::dims {} : lt::dims {1};
    std::vector<lt> ins {x, lt(1, data_type::f32, pdims, lt::layout_type::strided)};
    c.inputs[1] = tools::tensor_values(scales.begin(), scales.end());
    if (o.zp != "none") {
        ins.push_back(lt(2, data_type_from_string(o.zp), pdims, lt::layout_type::strided));
        c.inputs[2] = tools::tensor_values(zps.begin(), zps.end());
    }
    op q(0, kind, ins, {y}, "q");
    if (onnx) {
        if (per_channel) q.set_attr(op::attr::axis, o.axis);
    } else {
        q.set_attr(op::attr::qtype, o.qtype);
        q.set_attr(op::attr::axis, o.axis);
    }
    c.ops.push_back(q);
    return c;
}

} // namespace qbench
} // namespace qgraph
