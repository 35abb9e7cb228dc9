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

/// A port: the types the op specification allows, and those of them qgraph does not run.
struct port_def {
    const char *name;
    bool optional;
    dts spec;
    dts not_implemented;
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
    /// Output 0's shape, checking the attributes that give it; false while input 0's shape is
    /// unknown. Null: output 0 has input 0's shape.
    bool (*shape)(const op &, std::vector<int64_t> &dims) = nullptr;
    /// How a mismatch message names the shape output 0 must have.
    const char *shape_from = "the input shape";
};

const dts float_types {dt::f32, dt::bf16, dt::f16};
const dts dyn_zp_types {dt::u8, dt::s8, dt::s32, dt::s4, dt::u4};
const dts grouped_src_types {dt::u8, dt::s8, dt::s4, dt::u4};

// ONNX QuantizeLinear (QL) / DequantizeLinear (DQL): what each opset admits, from the
// operator schemas in onnx/onnx onnx/defs/quantization/defs.cc and old.cc (ONNX 1.19):
//   10  QL x f32 or s32, y_scale f32, y / y_zero_point u8 or s8, per-tensor only;
//       DQL x / x_zero_point u8, s8 or s32, x_scale f32, y f32.
//   13  axis: per-axis 1-D scales.
//   19  f16 and bf16 x (QL) and scales; float8 e4m3fn, e4m3fnuz, e5m2, e5m2fnuz; saturate
//       (QL); DQL's y takes x_scale's type. QL 19 and 21 give y_scale x's type constraint
//       (T1: f32, f16, bf16, s32), so x and y_scale have one type there.
//   21  block_size; int16, uint16, int4, uint4; output_dtype (QL).
//   23  float4e2m1; precision (QL); output_dtype (DQL); QL's y_scale gets a constraint of
//       its own (x and y_scale may differ).
//   24  float8e8m0 scales.
//   25  int2, uint2.
// The `opset` attribute (a qgraph extension, default the newest) picks the row set.
constexpr int64_t onnx_oldest_opset = 10, onnx_newest_opset = 25;

/// What a type is on a QL / DQL port: the quantized side (QL y and zero point, DQL x and
/// zero point), the float side (QL x, DQL y) or the scale.
enum class linear_role { quantized, wide, scale };

/// The first opset admitting `t` in `role`, for QL and for DQL; 0: never.
struct linear_type_row {
    linear_role role;
    data_type t;
    int64_t ql_since, dql_since;
};
constexpr linear_type_row linear_type_rows[] = {
        {linear_role::quantized, dt::u8, 10, 10},
        {linear_role::quantized, dt::s8, 10, 10},
        {linear_role::quantized, dt::s32, 0, 10},
        {linear_role::quantized, dt::f8_e4m3, 19, 19},
        {linear_role::quantized, dt::f8_e4m3fnuz, 19, 19},
        {linear_role::quantized, dt::f8_e5m2, 19, 19},
        {linear_role::quantized, dt::f8_e5m2fnuz, 19, 19},
        {linear_role::quantized, dt::s16, 21, 21},
        {linear_role::quantized, dt::u16, 21, 21},
        {linear_role::quantized, dt::s4, 21, 21},
        {linear_role::quantized, dt::u4, 21, 21},
        {linear_role::quantized, dt::f4_e2m1, 23, 23},
        {linear_role::quantized, dt::s2, 25, 25},
        {linear_role::quantized, dt::u2, 25, 25},
        {linear_role::wide, dt::f32, 10, 10},
        {linear_role::wide, dt::s32, 10, 0},
        {linear_role::wide, dt::f16, 19, 19},
        {linear_role::wide, dt::bf16, 19, 19},
        {linear_role::scale, dt::f32, 10, 10},
        {linear_role::scale, dt::f16, 19, 19},
        {linear_role::scale, dt::bf16, 19, 19},
        {linear_role::scale, dt::s32, 19, 0},
        {linear_role::scale, dt::e8m0, 24, 24},
};

/// The first opset with attribute `name`, for QL and for DQL (0: never; such an attribute
/// is also missing from that op's schema).
struct linear_attr_row {
    const char *name;
    int64_t ql_since, dql_since;
};
constexpr linear_attr_row linear_attr_rows[] = {{"axis", 13, 13}, {"saturate", 19, 0},
        {"block_size", 21, 21}, {"output_dtype", 21, 23}, {"precision", 23, 0}};

/// Every type of `role` some opset admits: the schema's port lists.
dts linear_types(bool quantize, linear_role role) {
    dts v;
    for (const linear_type_row &r : linear_type_rows)
        if (r.role == role && (quantize ? r.ql_since : r.dql_since) != 0) v.push_back(r.t);
    return v;
}

int64_t linear_type_since(bool quantize, linear_role role, data_type t) {
    for (const linear_type_row &r : linear_type_rows)
        if (r.role == role && r.t == t) return quantize ? r.ql_since : r.dql_since;
    return 0;
}

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
    // NUMERICS.md: a float8 quantized type takes no zero point (0 is the same as none).
    if (is_minifloat(qdt))
        for (size_t i = 0; i < zps.size(); ++i)
            if (zps[i] != 0)
                fail(o, status::invalid_graph_op,
                        "attribute 'zps'[" + std::to_string(i) + "] = " + std::to_string(zps[i])
                                + ": the float type " + to_string(qdt)
                                + " takes no zero point (only 0)");
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

/// per_group: group_shape has one size >= 1 per src dim, only the last two dims grouped, and
/// every src dim is its scale (and zp) dim times the group size: no partial groups.
void group_rules(const op &o) {
    if (!o.has_attr("group_shape"))
        fail(o, status::invalid_graph_op, "qtype per_group needs attribute 'group_shape'");
    const std::vector<int64_t> groups = attr_s64s(o, "group_shape");
    for (size_t i = 0; i < groups.size(); ++i)
        if (groups[i] < 1)
            fail(o, status::invalid_graph_op,
                    "attribute 'group_shape'[" + std::to_string(i) + "] = "
                            + std::to_string(groups[i]) + " must be at least 1");
    const logical_tensor &src = in(o, 0);
    if (!src.has_known_shape()) return;
    const size_t rank = src.get_dims().size();
    if (groups.size() != rank)
        fail(o, status::invalid_graph_op,
                "attribute 'group_shape' has " + std::to_string(groups.size())
                        + " values but input 0 (src) has rank " + std::to_string(rank));
    for (size_t i = 0; i + 2 < rank; ++i)
        if (groups[i] != 1)
            fail(o, status::invalid_graph_op,
                    "attribute 'group_shape'[" + std::to_string(i) + "] = "
                            + std::to_string(groups[i])
                            + ": only the last two dims may be grouped");
    std::vector<int64_t> want(rank);
    for (size_t i = 0; i < rank; ++i) {
        if (src.get_dims()[i] % groups[i] != 0)
            fail(o, status::invalid_graph_op,
                    "input 0 (src) dim " + std::to_string(i) + " = "
                            + std::to_string(src.get_dims()[i])
                            + " is not a multiple of attribute 'group_shape'["
                            + std::to_string(i) + "] = " + std::to_string(groups[i])
                            + " (no partial groups)");
        want[i] = src.get_dims()[i] / groups[i];
    }
    for (size_t port = 1; port < o.get_input_logical_tensors().size(); ++port) {
        const logical_tensor &p = in(o, port);
        if (p.has_known_shape() && p.get_dims() != want)
            fail(o, status::invalid_graph_op,
                    "input " + std::to_string(port) + (port == 1 ? " (scales)" : " (zps)")
                            + " has shape " + dims_to_string(p.get_dims()) + " but input 0 (src) "
                            + dims_to_string(src.get_dims()) + " in groups of "
                            + dims_to_string(groups) + " needs " + dims_to_string(want));
    }
}

// oneDNN DynamicQuantize / DynamicDequantize: scales and zero points are input tensors.
void dynamic_rules(const op &o) {
    const std::string qtype = attr_string(o, "qtype", "per_tensor");
    const logical_tensor &t = data_tensor(o);
    if (o.get_kind() == op::kind::DynamicDequantize) {
        // NUMERICS.md: dst takes the scales' type; f32 scales may also give an f16 / bf16
        // dst (rounded once), except per_group, where the spec ties the two.
        const data_type st = in(o, 1).get_data_type(), dst = out(o, 0).get_data_type();
        if ((qtype == "per_group" || st != dt::f32) && st != dst)
            fail(o, status::invalid_data_type,
                    std::string("output 0 (dst) is ") + to_string(dst) + " but must be the type of input 1 "
                            + "(scales), " + to_string(st));
        if (qtype == "per_group" && !contains(grouped_src_types, t.get_data_type()))
            fail(o, status::invalid_data_type,
                    std::string("input 0 (src) of type ") + to_string(t.get_data_type())
                            + " is not allowed with qtype per_group (expected "
                            + join_types(grouped_src_types) + ")");
    }
    if (qtype == "per_group") return group_rules(o);
    int64_t channels = -1, axis = -1;
    if (qtype == "per_channel" && t.has_known_shape()) {
        axis = checked_axis(o, attr_s64(o, "axis", 1), t, "input 0 (src)");
        channels = t.get_dims()[axis];
    }
    check_param_tensor(o, 1, "scales", qtype, channels, axis);
    if (has_in(o, 2)) check_param_tensor(o, 2, "zps", qtype, channels, axis);
}

/// The `opset` attribute and what that opset admits: attributes and port types by the
/// rows above, and QL 19-22's single type for x and y_scale.
void linear_opset_rules(const op &o) {
    const bool quantize = o.get_kind() == op::kind::QuantizeLinear;
    const int64_t opset = attr_s64(o, "opset", onnx_newest_opset);
    if (opset < onnx_oldest_opset || opset > onnx_newest_opset)
        fail(o, status::invalid_graph_op,
                "attribute 'opset' = " + std::to_string(opset) + " is outside ["
                        + std::to_string(onnx_oldest_opset) + ", "
                        + std::to_string(onnx_newest_opset) + "]");
    const std::string in_opset = " (attribute 'opset' = " + std::to_string(opset) + ")";
    for (const linear_attr_row &r : linear_attr_rows) {
        const int64_t since = quantize ? r.ql_since : r.dql_since;
        if (o.has_attr(r.name) && opset < since)
            fail(o, status::invalid_graph_op,
                    std::string("attribute '") + r.name + "' needs opset "
                            + std::to_string(since) + " or later" + in_opset);
    }
    const linear_role q = linear_role::quantized, w = linear_role::wide;
    struct port {
        std::string name;
        const logical_tensor &t;
        linear_role role;
    };
    std::vector<port> ports {{quantize ? "input 0 (x)" : "input 0 (x)", in(o, 0), quantize ? w : q},
            {quantize ? "input 1 (y_scale)" : "input 1 (x_scale)", in(o, 1), linear_role::scale},
            {"output 0 (y)", out(o, 0), quantize ? q : w}};
    if (has_in(o, 2))
        ports.push_back({quantize ? "input 2 (y_zero_point)" : "input 2 (x_zero_point)",
                in(o, 2), q});
    for (const port &p : ports) {
        const int64_t since = linear_type_since(quantize, p.role, p.t.get_data_type());
        if (opset < since)
            fail(o, status::invalid_data_type,
                    p.name + ": data type " + to_string(p.t.get_data_type()) + " needs opset "
                            + std::to_string(since) + " or later" + in_opset);
    }
    const data_type xt = in(o, 0).get_data_type(), st = in(o, 1).get_data_type();
    if (quantize && opset >= 19 && opset < 23 && xt != st)
        fail(o, status::invalid_data_type,
                std::string("input 1 (y_scale) is ") + to_string(st) + " but must have the type of input 0 "
                        + "(x), " + to_string(xt) + ", before opset 23" + in_opset);
    const logical_tensor &scale = in(o, 1);
    if (opset < 13 && scale.has_known_shape() && scale.get_element_num() != 1)
        fail(o, status::invalid_graph_op,
                ports[1].name + " has " + std::to_string(scale.get_element_num())
                        + " values but opsets before 13 have one scale (per-tensor)" + in_opset);
}

/// QL: saturate 0 or 1, precision a float type, output_dtype y's type. DQL: y is
/// output_dtype's type, else x_scale's (which must then not be e8m0).
void linear_type_rules(const op &o) {
    const bool quantize = o.get_kind() == op::kind::QuantizeLinear;
    const data_type yt = out(o, 0).get_data_type(), st = in(o, 1).get_data_type();
    const int64_t saturate = attr_s64(o, "saturate", 1);
    if (saturate != 0 && saturate != 1)
        fail(o, status::invalid_graph_op,
                "attribute 'saturate' = " + std::to_string(saturate) + " must be 0 or 1");
    const int64_t precision = attr_s64(o, "precision", 0);
    if (precision != 0 && !is_wide_float(onnx_data_type(precision)))
        fail(o, status::invalid_graph_op,
                "attribute 'precision' = " + onnx_code_desc(precision)
                        + " must be 1 (FLOAT), 10 (FLOAT16) or 16 (BFLOAT16)");
    const int64_t code = attr_s64(o, "output_dtype", 0);
    const data_type want = code != 0 ? onnx_data_type(code) : quantize ? yt : st;
    const dts &allowed = linear_types(quantize, quantize ? linear_role::quantized
                                                         : linear_role::wide);
    if (code != 0 && !contains(allowed, want))
        fail(o, status::invalid_graph_op,
                "attribute 'output_dtype' = " + onnx_code_desc(code)
                        + " is not an output type of " + to_string(o.get_kind()) + " (expected "
                        + join_types(allowed) + ")");
    if (code == 0 && !quantize && st == dt::e8m0)
        fail(o, status::invalid_graph_op,
                "input 1 (x_scale) is e8m0: attribute 'output_dtype' must give the output type");
    if (yt != want)
        fail(o, status::invalid_data_type,
                std::string("output 0 (y) is ") + to_string(yt) + " but "
                        + (code != 0 ? "attribute 'output_dtype' = " + onnx_code_desc(code)
                                              + " makes it " + to_string(want)
                                     : std::string("without attribute 'output_dtype' it has "
                                                           "the type of input 1 (x_scale), ")
                                               + to_string(want)));
}

/// Blocked (block_size > 0, more than one scale): scale and zero point have x's shape except
/// along axis, where they hold ceil(D / block_size) entries.
void linear_block_rules(const op &o, int64_t block, const std::string &scale_port) {
    const logical_tensor &x = in(o, 0), &scale = in(o, 1);
    const int64_t axis = checked_axis(o, attr_s64(o, "axis", 1), x, "input 0 (x)");
    std::vector<int64_t> want = x.get_dims();
    want[axis] = (want[axis] + block - 1) / block;
    if (scale.get_dims() != want)
        fail(o, status::invalid_graph_op,
                scale_port + " has shape " + dims_to_string(scale.get_dims())
                        + " but input 0 (x) " + dims_to_string(x.get_dims())
                        + " in blocks of " + std::to_string(block) + " along axis "
                        + std::to_string(axis) + " needs " + dims_to_string(want));
}

// ONNX QuantizeLinear / DequantizeLinear: a 1-element scale is per-tensor, a 1-D scale of
// n > 1 values is per-axis, and with block_size an N-D scale is blocked.
void linear_rules(const op &o) {
    linear_opset_rules(o);
    linear_type_rules(o);
    const bool quantize = o.get_kind() == op::kind::QuantizeLinear;
    const logical_tensor &x = in(o, 0), &scale = in(o, 1);
    const std::string scale_port = quantize ? "input 1 (y_scale)" : "input 1 (x_scale)";
    const std::string zp_port = quantize ? "input 2 (y_zero_point)" : "input 2 (x_zero_point)";
    const int64_t block = attr_s64(o, "block_size", 0);
    if (block < 0)
        fail(o, status::invalid_graph_op,
                "attribute 'block_size' = " + std::to_string(block) + " must be 0 or more");
    if (has_in(o, 2)) {
        // Same values, not the same shape: ONNX's own tests pair a 0-D scale with a [1] zp.
        const logical_tensor &zp = in(o, 2);
        if (scale.has_known_shape() && zp.has_known_shape()
                && (scale.get_element_num() != zp.get_element_num()
                        || (block > 0 && scale.get_element_num() > 1
                                && scale.get_dims() != zp.get_dims())))
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
    if (!scale.has_known_shape()) return;
    const int64_t n = scale.get_element_num();
    if (block > 0 && n > 1) {
        if (x.has_known_shape()) linear_block_rules(o, block, scale_port);
        return;
    }
    for (size_t port = 1; port < o.get_input_logical_tensors().size(); ++port) {
        const logical_tensor &t = in(o, port);
        if (t.has_known_shape() && t.get_ndims() > 1)
            fail(o, status::invalid_graph_op,
                    (port == 1 ? scale_port : zp_port)
                            + " must be 0-D or 1-D without 'block_size', got "
                            + dims_to_string(t.get_dims()));
    }
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

// The data-movement ops (oneDNN Graph TypeCast, Reorder, StaticReshape, StaticTranspose).

/// TypeCast converts between f32 and a 16-bit float, either way (the spec's pairs).
void typecast_rules(const op &o) {
    const data_type s = in(o, 0).get_data_type(), d = out(o, 0).get_data_type();
    if ((s == dt::f32) == (d == dt::f32))
        fail(o, status::invalid_data_type,
                std::string("input 0 (src) is ") + to_string(s) + " and output 0 (dst) is "
                        + to_string(d)
                        + ": TypeCast converts f32 to bf16 or f16, or bf16 or f16 to f32");
}

/// Reorder, StaticReshape and StaticTranspose move elements without converting them.
void same_type_rules(const op &o) {
    const data_type s = in(o, 0).get_data_type(), d = out(o, 0).get_data_type();
    if (s != d)
        fail(o, status::invalid_data_type,
                std::string("output 0 (dst) is ") + to_string(d)
                        + " but must be the type of input 0 (src), " + to_string(s)
                        + " (TypeCast converts types)");
}

/// StaticReshape: attribute 'shape' gives dst's dims; one -1 takes what the element count
/// leaves, and a 0 copies src's dim at that index when 'special_zero' is true (else it is 0).
bool reshape_shape(const op &o, std::vector<int64_t> &dims) {
    const std::vector<int64_t> shape = attr_s64s(o, "shape");
    const bool special_zero = attr_bool(o, "special_zero", false);
    const logical_tensor &src = in(o, 0);
    int64_t inferred = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
        const std::string at = "attribute 'shape'[" + std::to_string(i) + "] = "
                + std::to_string(shape[i]);
        if (shape[i] < -1) fail(o, status::invalid_graph_op, at + " must be -1, 0 or more");
        if (shape[i] == -1 && inferred >= 0)
            fail(o, status::invalid_graph_op,
                    at + ": 'shape'[" + std::to_string(inferred)
                            + "] is -1 already (at most one dim is inferred)");
        if (shape[i] == -1) inferred = static_cast<int64_t>(i);
        if (shape[i] == 0 && special_zero && src.has_known_shape()
                && i >= static_cast<size_t>(src.get_ndims()))
            fail(o, status::invalid_graph_op,
                    at + " with 'special_zero' copies src dim " + std::to_string(i)
                            + ", but input 0 (src) has rank " + std::to_string(src.get_ndims()));
    }
    if (!src.has_known_shape()) return false;
    const int64_t n = src.get_element_num();
    dims.assign(shape.size(), 0);
    int64_t known = 1; // elements of the dims other than the inferred one
    for (size_t i = 0; i < shape.size(); ++i) {
        if (static_cast<int64_t>(i) == inferred) continue;
        dims[i] = shape[i] == 0 && special_zero ? src.get_dims()[i] : shape[i];
        if (__builtin_mul_overflow(known, dims[i], &known))
            fail(o, status::invalid_shape,
                    "attribute 'shape' " + dims_to_string(shape) + " overflows int64 elements");
    }
    const std::string holds = "attribute 'shape' " + dims_to_string(shape) + " holds ";
    const std::string has = " elements but input 0 (src) " + dims_to_string(src.get_dims())
            + " has " + std::to_string(n);
    if (inferred >= 0) {
        if (known == 0 || n % known != 0)
            fail(o, status::invalid_graph_op,
                    holds + std::to_string(known) + " elements besides the -1, which cannot make "
                            + std::to_string(n) + " (input 0 (src) "
                            + dims_to_string(src.get_dims()) + ")");
        dims[inferred] = n / known;
    } else if (known != n) {
        fail(o, status::invalid_graph_op, holds + std::to_string(known) + has);
    }
    return true;
}

/// StaticTranspose: dst dim i is src dim order[i]; 'order' is a permutation of src's axes,
/// a negative entry counting from the last.
bool transpose_shape(const op &o, std::vector<int64_t> &dims) {
    const logical_tensor &src = in(o, 0);
    if (!src.has_known_shape()) return false;
    const std::vector<int64_t> order = attr_s64s(o, "order");
    const int64_t r = src.get_ndims();
    if (static_cast<int64_t>(order.size()) != r)
        fail(o, status::invalid_graph_op,
                "attribute 'order' has " + std::to_string(order.size())
                        + " values but input 0 (src) has rank " + std::to_string(r));
    std::vector<bool> seen(order.size(), false);
    dims.clear();
    for (size_t i = 0; i < order.size(); ++i) {
        const std::string at = "attribute 'order'[" + std::to_string(i) + "] = "
                + std::to_string(order[i]);
        if (order[i] < -r || order[i] >= r)
            fail(o, status::invalid_graph_op,
                    at + " is out of range [" + std::to_string(-r) + ", " + std::to_string(r - 1)
                            + "] for input 0 (src) of rank " + std::to_string(r));
        const int64_t a = order[i] < 0 ? order[i] + r : order[i];
        if (seen[a])
            fail(o, status::invalid_graph_op,
                    at + " names axis " + std::to_string(a)
                            + " twice: 'order' must be a permutation of input 0 (src)'s axes");
        seen[a] = true;
        dims.push_back(src.get_dims()[a]);
    }
    return true;
}

const attr_def a_qtype {"qtype", string, false}, a_axis {"axis", s64, false},
        a_scales {"scales", f32s, true}, a_zps {"zps", s64s, false},
        a_group_shape {"group_shape", s64s, false}, a_block_size {"block_size", s64, false},
        a_saturate {"saturate", s64, false}, a_output_dtype {"output_dtype", s64, false},
        a_precision {"precision", s64, false}, a_opset {"opset", s64, false},
        a_shape {"shape", s64s, true}, a_special_zero {"special_zero", boolean, true},
        a_order {"order", s64s, true};

const schema *find_schema(op::kind k) {
    const dts static_q {dt::u8, dt::s8, dt::f8_e4m3, dt::f8_e5m2};
    static const schema quantize {{{"src", false, float_types, {}}},
            {{"dst", false, static_q, {}}}, {a_qtype, a_axis, a_scales, a_zps, a_group_shape},
            static_rules};
    static const schema dequantize {{{"src", false, static_q, {}}},
            {{"dst", false, float_types, {}}}, {a_qtype, a_axis, a_scales, a_zps, a_group_shape},
            static_rules};
    static const schema dyn_quantize {
            {{"src", false, float_types, {}}, {"scales", false, float_types, {}},
                    {"zps", true, dyn_zp_types, {}}},
            {{"dst", false, {dt::u8, dt::s8, dt::s4, dt::u4}, {}}}, {a_qtype, a_axis, a_group_shape},
            dynamic_rules};
    static const schema dyn_dequantize {
            {{"src", false, {dt::u8, dt::s8, dt::s4, dt::u4, dt::f8_e4m3, dt::f8_e5m2}, {}},
                    {"scales", false, float_types, {}}, {"zps", true, dyn_zp_types, {}}},
            {{"dst", false, float_types, {}}}, {a_qtype, a_axis, a_group_shape}, dynamic_rules};
    const dts q_types = linear_types(true, linear_role::quantized);
    // An integer scale (QL 19+) has no defined meaning for the division qgraph implements.
    static const schema quantize_linear {
            {{"x", false, linear_types(true, linear_role::wide), {}},
                    {"y_scale", false, linear_types(true, linear_role::scale), {dt::s32}},
                    {"y_zero_point", true, q_types, {}}},
            {{"y", false, q_types, {}}},
            {a_axis, a_block_size, a_saturate, a_output_dtype, a_precision, a_opset},
            linear_rules};
    const dts dq_types = linear_types(false, linear_role::quantized);
    static const schema dequantize_linear {
            {{"x", false, dq_types, {}},
                    {"x_scale", false, linear_types(false, linear_role::scale), {}},
                    {"x_zero_point", true, dq_types, {}}},
            {{"y", false, linear_types(false, linear_role::wide), {}}},
            {a_axis, a_block_size, a_output_dtype, a_opset}, linear_rules};
    static const schema dql {{{"x", false, {dt::f32}, {}}},
            {{"y", false, {dt::u8}, {}}, {"y_scale", false, {dt::f32}, {}},
                    {"y_zero_point", false, {dt::u8}, {}}},
            {}, no_rules};
    static const schema typecast {{{"src", false, float_types, {}}},
            {{"dst", false, float_types, {}}}, {}, typecast_rules};
    static const schema reorder {{{"src", false, float_types, {}}},
            {{"dst", false, float_types, {}}}, {}, same_type_rules};
    static const schema reshape {{{"src", false, float_types, {}}},
            {{"dst", false, float_types, {}}}, {a_shape, a_special_zero}, same_type_rules,
            reshape_shape, "the shape attribute 'shape' gives,"};
    static const schema transpose {{{"src", false, float_types, {}}},
            {{"dst", false, float_types, {}}}, {a_order}, same_type_rules, transpose_shape,
            "input 0 (src) permuted by attribute 'order',"};
    switch (k) {
        case op::kind::Quantize: return &quantize;
        case op::kind::Dequantize: return &dequantize;
        case op::kind::DynamicQuantize: return &dyn_quantize;
        case op::kind::DynamicDequantize: return &dyn_dequantize;
        case op::kind::QuantizeLinear: return &quantize_linear;
        case op::kind::DequantizeLinear: return &dequantize_linear;
        case op::kind::DynamicQuantizeLinear: return &dql;
        case op::kind::TypeCast: return &typecast;
        case op::kind::Reorder: return &reorder;
        case op::kind::StaticReshape: return &reshape;
        case op::kind::StaticTranspose: return &transpose;
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

/// Fills an unknown output shape from `like`: the input it mirrors, or the shape the op
/// computes (`like_name` says which in the mismatch message).
logical_tensor infer(const logical_tensor &outp, const logical_tensor &like,
        const op &o, const std::string &port, const char *like_name = "the input shape") {
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
                        + " but must equal " + like_name + " " + dims_to_string(like.get_dims()));
    return outp;
}

} // namespace

op check_op(const op &o) {
    const schema *s = find_schema(o.get_kind());
    if (!s) return o; // other oneDNN kinds: loaded and kept, never run
    check_ports(o, *s, true);
    check_ports(o, *s, false);
    check_attrs(o, *s);

    // Shape inference: output 0 mirrors input 0 unless the schema computes it (StaticReshape,
    // StaticTranspose); DynamicQuantizeLinear's scale and zero point are 0-D.
    op r(o.get_id(), o.get_kind(), o.get_input_logical_tensors(), {}, o.get_name());
    for (const auto &kv : o.get_attrs()) r.set_attr_value(kv.first, kv.second);
    const auto &outs = o.get_output_logical_tensors();
    logical_tensor like = in(o, 0);
    std::vector<int64_t> dims;
    if (s->shape)
        like = s->shape(o, dims)
                ? logical_tensor(0, like.get_data_type(), dims, logical_tensor::layout_type::any)
                : logical_tensor(0, like.get_data_type(), logical_tensor::layout_type::any);
    r.add_output(infer(outs[0], like, o, port_name(*s, false, 0), s->shape_from));
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
                + " is not implemented (qgraph runs quantization and data-movement ops only)";
        return false;
    }
    for (int dir = 0; dir < 2; ++dir) {
        const bool input = dir == 0;
        const auto &ports = input ? s->inputs : s->outputs;
        const auto &lts = input ? o.get_input_logical_tensors() : o.get_output_logical_tensors();
        for (size_t i = 0; i < lts.size(); ++i)
            if (contains(ports[i].not_implemented, lts[i].get_data_type())) {
                reason = op_desc(o) + ": " + port_name(*s, input, i) + " of type "
                        + to_string(lts[i].get_data_type()) + " is not implemented";
                return false;
            }
    }
    // Static per_group scales are an attribute: a flat list with no shape to group by.
    const bool is_static = o.get_kind() == op::kind::Quantize
            || o.get_kind() == op::kind::Dequantize;
    if (is_static && attr_string(o, "qtype", "per_tensor") == "per_group") {
        reason = op_desc(o) + ": qtype per_group is not implemented";
        return false;
    }
    return true;
}

} // namespace impl
} // namespace qgraph
