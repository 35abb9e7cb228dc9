#include "interface/op_schema.hpp"

#include <cmath>
#include <sstream>

#include "common/data_types.hpp"
#include "common/op_attrs.hpp"
#include "common/utils.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {
namespace {

using dt = data_type;
using dts = std::vector<data_type>;

// Index of each type in op::attr_value.
enum attr_type : size_t { s64 = 0, f32 = 1, boolean = 2, string = 3, s64s = 4, f32s = 5 };
const char *const attr_type_names[] = {"s64", "f32", "bool", "string", "s64[]", "f32[]"};

/// A port: the types the op specification allows, and the subset qgraph implements.
struct port_def {
    const char *name;
    bool optional;
    dts spec;
    dts impl;
};

struct attr_def {
    const char *name;
    attr_type type;
    bool required;
};

struct schema {
    std::vector<port_def> inputs;
    std::vector<port_def> outputs;
    std::vector<attr_def> attrs;
    void (*rules)(const op &); ///< cross-port rules on known shapes
};

const dts f32_only {dt::f32};
const dts float_types {dt::f32, dt::bf16, dt::f16};
const dts int8_types {dt::u8, dt::s8};
const dts dyn_zp_spec {dt::u8, dt::s8, dt::s32, dt::s4, dt::u4};
const dts dyn_zp_impl {dt::u8, dt::s8, dt::s32};
const dts onnx_q_types {dt::u8, dt::s8, dt::s16, dt::u16, dt::s4, dt::u4, dt::s2, dt::u2,
        dt::f8_e4m3, dt::f8_e5m2, dt::f8_e4m3fnuz, dt::f8_e5m2fnuz, dt::f4_e2m1};

std::string join_types(const dts &types) {
    std::string s;
    for (size_t i = 0; i < types.size(); ++i)
        s += std::string(i == 0 ? "" : (i + 1 == types.size() ? " or " : ", "))
                + to_string(types[i]);
    return s;
}

bool contains(const dts &types, data_type t) {
    for (data_type x : types)
        if (x == t) return true;
    return false;
}

[[noreturn]] void fail(const op &o, status st, const std::string &what) {
    throw error(st, op_desc(o) + ": " + what);
}

std::string port_name(const schema &s, bool input, size_t i) {
    const auto &ports = input ? s.inputs : s.outputs;
    return std::string(input ? "input " : "output ") + std::to_string(i) + " ("
            + ports[i].name + ")";
}

const logical_tensor &in(const op &o, size_t i) { return o.get_input_logical_tensors()[i]; }
const logical_tensor &out(const op &o, size_t i) { return o.get_output_logical_tensors()[i]; }
bool has_in(const op &o, size_t i) { return o.get_input_logical_tensors().size() > i; }

/// axis in [-rank, rank-1], returned in [0, rank-1].
int64_t checked_axis(const op &o, int64_t axis, const logical_tensor &t, const char *tname) {
    const int64_t r = t.get_ndims();
    if (axis < -r || axis >= r)
        fail(o, status::invalid_graph_op,
                "attribute 'axis' = " + std::to_string(axis) + " is out of range [" +
                        std::to_string(-r) + ", " + std::to_string(r - 1) + "] for " + tname
                        + " of rank " + std::to_string(r));
    return axis < 0 ? axis + r : axis;
}

/// The logical tensor a quantization op's scales apply to (the quantized or float side, both
/// have the same shape).
const logical_tensor &data_tensor(const op &o) { return in(o, 0); }

// oneDNN Quantize / Dequantize: scales and zero points are attributes.
void static_rules(const op &o) {
    const bool quantize = o.get_kind() == op::kind::Quantize;
    const std::string qtype = attr_string(o, "qtype", "per_tensor");
    const std::vector<float> &scales = attr_f32s(o, "scales");
    const std::vector<int64_t> zps = attr_s64s(o, "zps");
    if (scales.empty()) fail(o, status::invalid_graph_op, "attribute 'scales' is empty");
    for (size_t i = 0; i < scales.size(); ++i)
        if (scales[i] == 0.f || !std::isfinite(scales[i])) {
            std::ostringstream os;
            os << "attribute 'scales'[" << i << "] = " << scales[i]
               << ": a static scale must be finite and non-zero";
            fail(o, status::invalid_graph_op, os.str());
        }
    if (!zps.empty() && zps.size() != scales.size())
        fail(o, status::invalid_graph_op,
                "attribute 'zps' has " + std::to_string(zps.size())
                        + " values but 'scales' has " + std::to_string(scales.size()));
    const data_type qdt = quantize ? out(o, 0).get_data_type() : in(o, 0).get_data_type();
    const q_range q = range_of(qdt);
    if (is_int8(qdt))
        for (size_t i = 0; i < zps.size(); ++i)
            if (zps[i] < q.lo || zps[i] > q.hi)
                fail(o, status::invalid_graph_op,
                        "attribute 'zps'[" + std::to_string(i) + "] = "
                                + std::to_string(zps[i]) + " is outside the range of "
                                + to_string(qdt) + " [" + std::to_string(q.lo) + ", "
                                + std::to_string(q.hi) + "]");
    const logical_tensor &t = data_tensor(o);
    if (qtype == "per_tensor") {
        if (scales.size() != 1)
            fail(o, status::invalid_graph_op,
                    "qtype per_tensor needs exactly 1 scale, 'scales' has "
                            + std::to_string(scales.size()));
    } else if (qtype == "per_channel" && t.has_known_shape()) {
        const int64_t axis = checked_axis(o, attr_s64(o, "axis", 1), t, "input 0 (src)");
        const int64_t c = t.get_dims()[axis];
        if (static_cast<int64_t>(scales.size()) != c)
            fail(o, status::invalid_graph_op,
                    "attribute 'scales' has " + std::to_string(scales.size())
                            + " values but input 0 (src) has " + std::to_string(c)
                            + " channels along axis " + std::to_string(axis));
    }
}

/// Checks a runtime scale / zero-point tensor's element count against the qtype.
void check_param_tensor(const op &o, size_t port, const char *what, const std::string &qtype,
        int64_t channels, int64_t axis) {
    const logical_tensor &p = in(o, port);
    if (!p.has_known_shape()) return;
    if (p.get_ndims() > 1)
        fail(o, status::invalid_graph_op,
                "input " + std::to_string(port) + " (" + what + ") must be 0-D or 1-D, got "
                        + dims_to_string(p.get_dims()));
    const int64_t n = p.get_element_num();
    if (qtype == "per_tensor" && n != 1)
        fail(o, status::invalid_graph_op,
                "qtype per_tensor needs 1 value in input " + std::to_string(port) + " ("
                        + what + "), got " + std::to_string(n));
    if (qtype == "per_channel" && channels >= 0 && n != channels)
        fail(o, status::invalid_graph_op,
                "input " + std::to_string(port) + " (" + what + ") has " + std::to_string(n)
                        + " values but input 0 (src) has " + std::to_string(channels)
                        + " channels along axis " + std::to_string(axis));
}

// oneDNN DynamicQuantize / DynamicDequantize: scales and zero points are input tensors.
void dynamic_rules(const op &o) {
    const std::string qtype = attr_string(o, "qtype", "per_tensor");
    const logical_tensor &t = data_tensor(o);
    int64_t channels = -1, axis = -1;
    if (qtype == "per_channel" && t.has_known_shape()) {
        axis = checked_axis(o, attr_s64(o, "axis", 1), t, "input 0 (src)");
        channels = t.get_dims()[axis];
    }
    if (qtype == "per_group") return; // unimplemented; is_implemented says so
    check_param_tensor(o, 1, "scales", qtype, channels, axis);
    if (has_in(o, 2)) check_param_tensor(o, 2, "zps", qtype, channels, axis);
}

// ONNX QuantizeLinear / DequantizeLinear: a 0-D or 1-element scale is per-tensor, a 1-D
// scale of n > 1 values is per-axis.
void linear_rules(const op &o) {
    const bool quantize = o.get_kind() == op::kind::QuantizeLinear;
    const logical_tensor &x = in(o, 0), &scale = in(o, 1);
    const std::string scale_port = quantize ? "input 1 (y_scale)" : "input 1 (x_scale)";
    const std::string zp_port = quantize ? "input 2 (y_zero_point)" : "input 2 (x_zero_point)";
    if (has_in(o, 2)) {
        // Same values, not the same shape: ONNX's own tests pair a 0-D scale with a [1] zp.
        const logical_tensor &zp = in(o, 2);
        if (scale.has_known_shape() && zp.has_known_shape()
                && scale.get_element_num() != zp.get_element_num())
            fail(o, status::invalid_graph_op,
                    zp_port + " has shape " + dims_to_string(zp.get_dims())
                            + " but " + scale_port + " has " + dims_to_string(scale.get_dims())
                            + ": they must hold the same number of values");
        const data_type want = quantize ? out(o, 0).get_data_type() : x.get_data_type();
        if (zp.get_data_type() != want)
            fail(o, status::invalid_data_type,
                    zp_port + " is " + to_string(zp.get_data_type())
                            + " but must match the quantized type " + to_string(want));
    }
    // Without a zero point the declared output type plays the role of opset 21's
    // output_dtype (u8 when an ONNX model leaves both out); port types are checked above.
    if (attr_s64(o, "block_size", 0) != 0) return; // blocked: unimplemented, not checked
    for (size_t port = 1; port < o.get_input_logical_tensors().size(); ++port) {
        const logical_tensor &t = in(o, port);
        if (t.has_known_shape() && t.get_ndims() > 1)
            fail(o, status::invalid_graph_op,
                    (port == 1 ? scale_port : zp_port)
                            + " must be 0-D or 1-D without 'block_size', got "
                            + dims_to_string(t.get_dims()));
    }
    if (!scale.has_known_shape()) return;
    const int64_t n = scale.get_element_num();
    if (scale.get_ndims() == 1 && n != 1 && x.has_known_shape()) {
        const int64_t axis = checked_axis(o, attr_s64(o, "axis", 1), x, "input 0 (x)");
        if (x.get_dims()[axis] != n)
            fail(o, status::invalid_graph_op,
                    scale_port + " has " + std::to_string(n) + " values but input 0 (x) has "
                            + std::to_string(x.get_dims()[axis]) + " along axis "
                            + std::to_string(axis));
    }
}

void no_rules(const op &) {}

const attr_def a_qtype {"qtype", string, false}, a_axis {"axis", s64, false},
        a_scales {"scales", f32s, true}, a_zps {"zps", s64s, false},
        a_group_shape {"group_shape", s64s, false}, a_block_size {"block_size", s64, false},
        a_saturate {"saturate", s64, false}, a_output_dtype {"output_dtype", s64, false},
        a_precision {"precision", s64, false};

const schema *find_schema(op::kind k) {
    static const schema quantize {{{"src", false, float_types, float_types}},
            {{"dst", false, {dt::u8, dt::s8, dt::f8_e4m3, dt::f8_e5m2}, int8_types}},
            {a_qtype, a_axis, a_scales, a_zps, a_group_shape}, static_rules};
    static const schema dequantize {
            {{"src", false, {dt::u8, dt::s8, dt::f8_e4m3, dt::f8_e5m2}, int8_types}},
            {{"dst", false, float_types, float_types}},
            {a_qtype, a_axis, a_scales, a_zps, a_group_shape}, static_rules};
    static const schema dyn_quantize {{{"src", false, float_types, float_types},
                                              {"scales", false, float_types, f32_only},
                                              {"zps", true, dyn_zp_spec, dyn_zp_impl}},
            {{"dst", false, {dt::u8, dt::s8, dt::s4, dt::u4}, int8_types}},
            {a_qtype, a_axis, a_group_shape}, dynamic_rules};
    static const schema dyn_dequantize {
            {{"src", false, {dt::u8, dt::s8, dt::s4, dt::u4, dt::f8_e4m3, dt::f8_e5m2},
                     int8_types},
                    {"scales", false, float_types, f32_only},
                    {"zps", true, dyn_zp_spec, dyn_zp_impl}},
            {{"dst", false, float_types, float_types}}, {a_qtype, a_axis, a_group_shape},
            dynamic_rules};
    static const schema quantize_linear {
            {{"x", false, {dt::f32, dt::s32, dt::bf16, dt::f16}, {dt::f32, dt::s32}},
                    {"y_scale", false, float_types, f32_only},
                    {"y_zero_point", true, onnx_q_types, int8_types}},
            {{"y", false, onnx_q_types, int8_types}},
            {a_axis, a_block_size, a_saturate, a_output_dtype, a_precision}, linear_rules};
    static dts deq_in = [] {
        dts t = onnx_q_types;
        t.push_back(dt::s32);
        return t;
    }();
    static const schema dequantize_linear {
            {{"x", false, deq_in, {dt::u8, dt::s8, dt::s32}},
                    {"x_scale", false, float_types, f32_only},
                    {"x_zero_point", true, deq_in, {dt::u8, dt::s8, dt::s32}}},
            {{"y", false, float_types, f32_only}}, {a_axis, a_block_size, a_output_dtype},
            linear_rules};
    static const schema dql {{{"x", false, {dt::f32}, {dt::f32}}},
            {{"y", false, {dt::u8}, {dt::u8}}, {"y_scale", false, {dt::f32}, {dt::f32}},
                    {"y_zero_point", false, {dt::u8}, {dt::u8}}},
            {}, no_rules};
    switch (k) {
        case op::kind::Quantize: return &quantize;
        case op::kind::Dequantize: return &dequantize;
        case op::kind::DynamicQuantize: return &dyn_quantize;
        case op::kind::DynamicDequantize: return &dyn_dequantize;
        case op::kind::QuantizeLinear: return &quantize_linear;
        case op::kind::DequantizeLinear: return &dequantize_linear;
        case op::kind::DynamicQuantizeLinear: return &dql;
        default: return nullptr;
    }
}

void check_ports(const op &o, const schema &s, bool input) {
    const auto &ports = input ? s.inputs : s.outputs;
    const auto &lts = input ? o.get_input_logical_tensors() : o.get_output_logical_tensors();
    size_t required = 0;
    for (const port_def &p : ports) required += p.optional ? 0 : 1;
    if (lts.size() < required || lts.size() > ports.size()) {
        const std::string range = required == ports.size()
                ? std::to_string(required)
                : std::to_string(required) + " to " + std::to_string(ports.size());
        fail(o, status::invalid_graph_op,
                "has " + std::to_string(lts.size()) + (input ? " inputs" : " outputs")
                        + ", expected " + range);
    }
    for (size_t i = 0; i < lts.size(); ++i) {
        const data_type t = lts[i].get_data_type();
        if (!contains(ports[i].spec, t))
            fail(o, status::invalid_data_type,
                    port_name(s, input, i) + ": data type " + to_string(t)
                            + " is not allowed (expected " + join_types(ports[i].spec) + ")");
        if (lts[i].has_known_shape()) {
            for (int64_t d : lts[i].get_dims())
                if (d < 0)
                    fail(o, status::invalid_shape,
                            port_name(s, input, i) + ": negative dimension "
                                    + std::to_string(d));
            if (lts[i].get_layout_type() == logical_tensor::layout_type::strided
                    && lts[i].get_strides().size() != lts[i].get_dims().size())
                fail(o, status::invalid_shape,
                        port_name(s, input, i) + ": " + std::to_string(lts[i].get_strides().size())
                                + " strides for " + std::to_string(lts[i].get_dims().size())
                                + " dims");
            try {
                lts[i].get_element_num();
            } catch (const error &e) {
                fail(o, e.status(), port_name(s, input, i) + ": " + e.what());
            }
        }
    }
}

void check_attrs(const op &o, const schema &s) {
    for (const auto &kv : o.get_attrs()) {
        const attr_def *def = nullptr;
        for (const attr_def &a : s.attrs)
            if (kv.first == a.name) def = &a;
        if (!def)
            fail(o, status::invalid_graph_op,
                    "unknown attribute '" + kv.first + "' for " + to_string(o.get_kind()));
        if (kv.second.index() != def->type)
            fail(o, status::invalid_graph_op,
                    "attribute '" + kv.first + "' must be " + attr_type_names[def->type]
                            + ", got " + attr_type_names[kv.second.index()]);
    }
    for (const attr_def &a : s.attrs)
        if (a.required && !o.has_attr(a.name))
            fail(o, status::invalid_graph_op, std::string("missing attribute '") + a.name + "'");
    if (o.has_attr("qtype")) {
        const std::string q = attr_string(o, "qtype", "");
        if (q != "per_tensor" && q != "per_channel" && q != "per_group")
            fail(o, status::invalid_graph_op,
                    "attribute 'qtype' = \"" + q
                            + "\" (expected per_tensor, per_channel or per_group)");
    }
}

/// Fills an unknown output shape from the input it mirrors.
logical_tensor infer(const logical_tensor &outp, const logical_tensor &like,
        const op &o, const std::string &port) {
    if (!like.has_known_shape()) return outp;
    if (!outp.has_known_shape()) {
        if (outp.get_layout_type() == logical_tensor::layout_type::any)
            return logical_tensor(outp.get_id(), outp.get_data_type(), like.get_dims(),
                    logical_tensor::layout_type::any, outp.get_property_type());
        try {
            return logical_tensor(outp.get_id(), outp.get_data_type(), like.get_dims(),
                    logical_tensor::layout_type::strided, outp.get_property_type());
        } catch (const error &e) { // dense strides overflow: say which op and port
            fail(o, e.status(), port + ": " + e.what());
        }
    }
    if (outp.get_dims() != like.get_dims())
        fail(o, status::invalid_shape,
                port + " has shape " + dims_to_string(outp.get_dims())
                        + " but must equal the input shape " + dims_to_string(like.get_dims()));
    return outp;
}

} // namespace

op check_op(const op &o) {
    const schema *s = find_schema(o.get_kind());
    if (!s) return o; // other oneDNN kinds: loaded and kept, never run
    check_ports(o, *s, true);
    check_ports(o, *s, false);
    check_attrs(o, *s);

    // Shape inference: y mirrors x; DynamicQuantizeLinear's scale and zero point are 0-D.
    op r(o.get_id(), o.get_kind(), o.get_input_logical_tensors(), {}, o.get_name());
    for (const auto &kv : o.get_attrs()) r.set_attr_value(kv.first, kv.second);
    const auto &outs = o.get_output_logical_tensors();
    r.add_output(infer(outs[0], in(o, 0), o, port_name(*s, false, 0)));
    const logical_tensor scalar(0, dt::f32, logical_tensor::dims {},
            logical_tensor::layout_type::strided);
    for (size_t i = 1; i < outs.size(); ++i) {
        if (!outs[i].has_known_shape()) {
            r.add_output(infer(outs[i], scalar, o, port_name(*s, false, i)));
            continue;
        }
        if (outs[i].get_element_num() != 1)
            fail(o, status::invalid_graph_op,
                    port_name(*s, false, i) + " must hold one value (a scalar), got shape "
                            + dims_to_string(outs[i].get_dims()));
        r.add_output(outs[i]);
    }
    s->rules(r);
    return r;
}

bool is_implemented(const op &o, std::string &reason) {
    const schema *s = find_schema(o.get_kind());
    if (!s) {
        reason = std::string("op kind ") + to_string(o.get_kind())
                + " is not implemented (qgraph runs quantization ops only)";
        return false;
    }
    for (int dir = 0; dir < 2; ++dir) {
        const bool input = dir == 0;
        const auto &ports = input ? s->inputs : s->outputs;
        const auto &lts = input ? o.get_input_logical_tensors() : o.get_output_logical_tensors();
        for (size_t i = 0; i < lts.size(); ++i)
            if (!contains(ports[i].impl, lts[i].get_data_type())) {
                reason = op_desc(o) + ": " + port_name(*s, input, i) + " of type "
                        + to_string(lts[i].get_data_type()) + " is not implemented (only "
                        + join_types(ports[i].impl) + ")";
                return false;
            }
    }
    if (attr_string(o, "qtype", "per_tensor") == "per_group") {
        reason = op_desc(o) + ": qtype per_group is not implemented";
        return false;
    }
    for (const char *a : {"block_size", "output_dtype", "precision"})
        if (attr_s64(o, a, 0) != 0) {
            reason = op_desc(o) + ": attribute '" + a + "' is not implemented";
            return false;
        }
    return true;
}

} // namespace impl
} // namespace qgraph
