// The op shorthand's knobs of issue 12 (--zp of every quantized type, --group, --scale-dt,
// --saturate, --opset): the op the case builder makes (attributes, logical tensors, scale
// and zero-point values), its errors, and that the library runs what it builds.

#include <sstream>
#include <string>
#include <variant>

#include <gtest/gtest.h>

#include "qgraph/qgraph.hpp"
#include "tools/qbench/batch.hpp"
#include "tools/qbench/codec.hpp"
#include "tools/qbench/driver.hpp"
#include "tools/qbench/op_case.hpp"

namespace qgraph {
namespace qbench {
namespace {

using dims = logical_tensor::dims;

op_knobs knobs_of(const std::string &op) {
    op_knobs o;
    o.op = op;
    return o;
}

bool has_attr(const op &o, const std::string &name) { return o.get_attrs().count(name) != 0; }

int64_t s64_attr(const op &o, const std::string &name) {
    return std::get<int64_t>(o.get_attrs().at(name));
}

const logical_tensor &input(const tools::graph_case &c, size_t port) {
    return c.ops.at(0).get_input_logical_tensors().at(port);
}

data_type dst_type(const tools::graph_case &c) {
    return c.ops.at(0).get_output_logical_tensors().at(0).get_data_type();
}

/// The error make_op_case throws, or "" when it builds.
std::string build_error(const op_knobs &o, const dims &shape) {
    try {
        make_op_case(o, shape);
    } catch (const error &e) {
        EXPECT_EQ(e.status(), status::invalid_arguments) << e.what();
        return e.what();
    }
    return "";
}

/// The library takes the case as built (its schema and lowering accept it).
void expect_supported(const tools::graph_case &c, const std::string &what) {
    graph g = tools::build_graph(c);
    ASSERT_EQ(g.get_partitions().size(), 1u) << what;
    EXPECT_TRUE(g.get_partitions()[0].is_supported()) << what;
}

TEST(QbenchOpCase, ZeroPointsOfEveryTypeHoldValuesOfTheirType) {
    for (const char *t : {"s8", "u8", "s16", "u16", "s4", "u4", "s2", "u2"}) {
        op_knobs o = knobs_of("QuantizeLinear");
        o.zp = t;
        o.qtype = "per_channel";
        EXPECT_EQ(resolve_op_knobs(o).ddt, t); // the quantized side takes the zp's type
        const tools::graph_case c = make_op_case(o, {2, 6, 3});
        const data_type dt = data_type_from_string(t);
        EXPECT_EQ(input(c, 2).get_data_type(), dt) << t;
        EXPECT_EQ(dst_type(c), dt) << t;
        ASSERT_EQ(c.inputs.at(2).size(), 6u) << t;
        bool some_nonzero = false;
        for (double v : c.inputs.at(2)) {
            EXPECT_GE(v, type_lowest(dt)) << t;
            EXPECT_LE(v, type_max(dt)) << t;
            some_nonzero = some_nonzero || v != 0;
        }
        EXPECT_TRUE(some_nonzero) << t;
        expect_supported(c, t);
    }
    // Float zero points hold 0 (NUMERICS.md: a float quantized type takes none).
    for (const char *t : {"f8_e4m3", "f8_e4m3fnuz", "f8_e5m2", "f8_e5m2fnuz", "f4_e2m1"}) {
        op_knobs o = knobs_of("DequantizeLinear");
        o.zp = t;
        EXPECT_EQ(resolve_op_knobs(o).sdt, t);
        const tools::graph_case c = make_op_case(o, {2, 6});
        EXPECT_EQ(input(c, 0).get_data_type(), data_type_from_string(t));
        EXPECT_EQ(c.inputs.at(2), tools::tensor_values {0}) << t;
        expect_supported(c, t);
    }
    // oneDNN's dynamic ops: the zp type is the zp input's, the destination stays u8.
    op_knobs o = knobs_of("DynamicQuantize");
    o.zp = "s4";
    o.qtype = "per_channel";
    const tools::graph_case c = make_op_case(o, {2, 6});
    EXPECT_EQ(input(c, 2).get_data_type(), data_type::s4);
    EXPECT_EQ(dst_type(c), data_type::u8);
    EXPECT_EQ(c.inputs.at(2), (tools::tensor_values {-2, -1, 0, 1, 2, -2}));
}

TEST(QbenchOpCase, GroupBlocksOneAxisOfOnnxOps) {
    op_knobs o = knobs_of("DequantizeLinear");
    o.sdt = "s4";
    o.zp = "s4";
    o.group = {1, 128};
    // The last dim blocked by 128: ceil(300 / 128) = 3 scales along it.
    tools::graph_case c = make_op_case(o, {2, 300});
    EXPECT_EQ(s64_attr(c.ops[0], "axis"), 1);
    EXPECT_EQ(s64_attr(c.ops[0], "block_size"), 128);
    EXPECT_EQ(input(c, 1).get_dims(), (dims {2, 3}));
    EXPECT_EQ(input(c, 2).get_dims(), (dims {2, 3}));
    EXPECT_EQ(c.inputs.at(1).size(), 6u);
    expect_supported(c, "DequantizeLinear 1x128");
    // The second to last dim: A x 1.
    o.group = {4, 1};
    c = make_op_case(o, {2, 8, 6});
    EXPECT_EQ(s64_attr(c.ops[0], "axis"), 1);
    EXPECT_EQ(s64_attr(c.ops[0], "block_size"), 4);
    EXPECT_EQ(input(c, 1).get_dims(), (dims {2, 2, 6}));
    expect_supported(c, "DequantizeLinear 4x1");
    o.op = "QuantizeLinear";
    o.sdt = "";
    o.group = {1, 32};
    c = make_op_case(o, {64, 3136});
    EXPECT_EQ(dst_type(c), data_type::s4);
    EXPECT_EQ(input(c, 1).get_dims(), (dims {64, 98}));
    expect_supported(c, "QuantizeLinear 1x32");
    // ONNX has one block_size: two grouped dims cannot be said.
    o.group = {2, 2};
    EXPECT_NE(build_error(o, {4, 4}).find("one of the two sizes must be 1"), std::string::npos);
    o.group = {1, 2};
    EXPECT_NE(build_error(o, {4}).find("the shape has rank 1"), std::string::npos);
}

TEST(QbenchOpCase, GroupIsPerGroupOnDynamicDequantize) {
    op_knobs o = knobs_of("DynamicDequantize");
    o.sdt = "s4";
    o.zp = "s4";
    o.scale_dt = "bf16";
    o.group = {1, 64};
    const tools::graph_case c = make_op_case(o, {2, 64, 256});
    EXPECT_EQ(std::get<std::string>(c.ops[0].get_attrs().at("qtype")), "per_group");
    EXPECT_EQ(std::get<std::vector<int64_t>>(c.ops[0].get_attrs().at("group_shape")),
            (std::vector<int64_t> {1, 1, 64}));
    EXPECT_FALSE(has_attr(c.ops[0], "axis"));
    EXPECT_EQ(input(c, 1).get_dims(), (dims {2, 64, 4}));
    EXPECT_EQ(input(c, 1).get_data_type(), data_type::bf16);
    EXPECT_EQ(input(c, 2).get_dims(), (dims {2, 64, 4}));
    EXPECT_EQ(dst_type(c), data_type::bf16); // per_group ties dst to the scales' type
    expect_supported(c, "DynamicDequantize per_group");
    // Knobs that contradict or that the op has no use for are errors, not ignored.
    o.qtype = "per_channel";
    EXPECT_NE(build_error(o, {4, 64}).find("--group and --qtype=per_channel"), std::string::npos);
    op_knobs q = knobs_of("Quantize");
    q.group = {1, 32};
    EXPECT_NE(build_error(q, {4, 64}).find("--group applies to"), std::string::npos);
}

TEST(QbenchOpCase, ScaleTypeSetsTheScaleInputAndTheDequantizeOutput) {
    for (const char *t : {"f16", "bf16"}) {
        op_knobs o = knobs_of("DequantizeLinear");
        o.scale_dt = t;
        tools::graph_case c = make_op_case(o, {4, 8});
        EXPECT_EQ(input(c, 1).get_data_type(), data_type_from_string(t));
        EXPECT_EQ(dst_type(c), data_type_from_string(t)); // ONNX: y has x_scale's type
        EXPECT_FALSE(has_attr(c.ops[0], "output_dtype"));
        expect_supported(c, t);
        o.ddt = "f32"; // another output type is said by output_dtype
        c = make_op_case(o, {4, 8});
        EXPECT_EQ(s64_attr(c.ops[0], "output_dtype"), 1);
        expect_supported(c, std::string(t) + " -> f32");
    }
    // e8m0 cannot be an output: f32 by default, through output_dtype.
    op_knobs o = knobs_of("DequantizeLinear");
    o.scale_dt = "e8m0";
    tools::graph_case c = make_op_case(o, {4, 8});
    EXPECT_EQ(input(c, 1).get_data_type(), data_type::e8m0);
    EXPECT_EQ(dst_type(c), data_type::f32);
    EXPECT_EQ(s64_attr(c.ops[0], "output_dtype"), 1);
    expect_supported(c, "e8m0");
    o.ddt = "bf16";
    c = make_op_case(o, {4, 8});
    EXPECT_EQ(s64_attr(c.ops[0], "output_dtype"), 16);
    expect_supported(c, "e8m0 -> bf16");
    // A scale the type would round is refused rather than silently changed.
    o.scale = 0.3f;
    EXPECT_NE(build_error(o, {4, 8}).find("e8m0 cannot hold exactly"), std::string::npos);
    o.scale_dt = "f32";
    EXPECT_EQ(build_error(o, {4, 8}), "");
    // Static scales are f32 attributes.
    op_knobs s = knobs_of("Dequantize");
    s.scale_dt = "f16";
    EXPECT_NE(build_error(s, {4}).find("--scale-dt applies to ops with a scale input"),
            std::string::npos);
}

TEST(QbenchOpCase, SaturateAndOpsetAreOnnxAttributes) {
    op_knobs o = knobs_of("QuantizeLinear");
    o.ddt = "f8_e4m3";
    o.saturate = 0;
    o.opset = 19;
    const tools::graph_case c = make_op_case(o, {4, 8});
    EXPECT_EQ(s64_attr(c.ops[0], "saturate"), 0);
    EXPECT_EQ(s64_attr(c.ops[0], "opset"), 19);
    expect_supported(c, "QuantizeLinear f8 saturate=0 opset 19");
    o.saturate = -1;
    const tools::graph_case unset = make_op_case(o, {4, 8});
    EXPECT_FALSE(has_attr(unset.ops[0], "saturate")); // unset: the library's default
    o.ddt = "u8";
    o.saturate = 1;
    EXPECT_NE(build_error(o, {4}).find("--saturate applies to QuantizeLinear to a float8 type"),
            std::string::npos);
    op_knobs d = knobs_of("DynamicQuantize");
    d.opset = 21;
    EXPECT_NE(build_error(d, {4}).find("--opset applies to"), std::string::npos);
}

TEST(QbenchOpCase, GroupListsAreProblemsOfTheirOwnWithTheirOwnTitles) {
    knobs defaults;
    defaults.backends = {""};
    const plan p = make_plan({"--mode=P", "--op=DynamicDequantize", "--sdt=s4",
                                     "--scale-dt=bf16", "--group=1x32,1x64", "64x3136"},
            defaults);
    ASSERT_EQ(p.jobs.size(), 2u);
    // The summary table tells the two apart (it printed "per_tensor" for both).
    EXPECT_EQ(job_title(p.jobs[0]), "DynamicDequantize s4:bf16 group=1x32 64x3136");
    EXPECT_EQ(job_title(p.jobs[1]), "DynamicDequantize s4:bf16 group=1x64 64x3136");
    EXPECT_EQ(problem_args(p.jobs[1]),
            "--op=DynamicDequantize --sdt=s4 --qtype=per_tensor --zp=none --scale=0.5 "
            "--group=1x64 --scale-dt=bf16 64x3136");
}

std::string run_out(const std::vector<std::string> &args, int &code) {
    std::ostringstream out, err;
    code = qbench_main(args, out, err);
    return out.str() + err.str();
}

TEST(QbenchOpCase, TheIssueExamplesRunAgainstRef) {
    // The command issue 12 quotes failed with "bad value 's16' for --zp".
    int code = -1;
    std::string out = run_out(
            {"--mode=C", "--op=QuantizeLinear", "--ddt=s16", "--zp=s16", "2x33"}, code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find("0:PASSED"), std::string::npos) << out;
    out = run_out({"--mode=C", "--backend=auto", "--op=DequantizeLinear,DynamicDequantize",
                          "--sdt=s4,u4", "--scale-dt=bf16", "--group=1x32", "4x64"},
            code);
    EXPECT_EQ(code, 0) << out;
    EXPECT_NE(out.find("passed:4 "), std::string::npos) << out;
    // A knob the op cannot use is INVALID_ARGUMENTS with the reason.
    out = run_out({"--mode=C", "--op=Quantize", "--group=1x32", "4x64"}, code);
    EXPECT_NE(out.find("0:INVALID_ARGUMENTS"), std::string::npos) << out;
    EXPECT_NE(out.find("--group applies to"), std::string::npos) << out;
}

} // namespace
} // namespace qbench
} // namespace qgraph
