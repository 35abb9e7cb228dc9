// --in-shapes / --op-attrs and the op shorthand: parsing, and that they really change the
// problem that runs.

#include <sstream>

#include <gtest/gtest.h>

#include "qgraph/qgraph.hpp"
#include "temp_files.hpp"
#include "tools/qbench/batch.hpp"
#include "tools/qbench/case_stop.hpp"
#include "tools/qbench/driver.hpp"
#include "tools/qbench/op_case.hpp"
#include "tools/qbench/overrides.hpp"
#include "tools/qbench/report.hpp"

namespace qgraph {
namespace qbench {
namespace {

using qbench_test::temp_files;
using dims = logical_tensor::dims;

/// QuantizeLinear-free oneDNN Quantize y(u8) = rne(x / 2) over 4 elements, with data.
const char *quantize_case = R"({"version": "0.1.0", "engine_kind": "cpu", "fpmath_mode": "strict",
  "graph": [{"id": 0, "name": "q", "kind": "Quantize",
    "attrs": {"qtype": {"type": "string", "value": "per_tensor"}, "axis": {"type": "s64", "value": 1},
              "scales": {"type": "f32[]", "value": [2.0]}, "zps": {"type": "s64[]", "value": [0]}},
    "inputs": [{"id": 0, "dtype": "f32", "shape": [4], "stride": [1], "layout_type": "strided", "property_type": "undef"}],
    "outputs": [{"id": 1, "dtype": "u8", "shape": [4], "stride": [1], "layout_type": "strided", "property_type": "undef"}]}],
  "data": {"inputs": {"0": [2.0, 4.0, 6.0, 8.0]}, "expected": {"1": [1, 2, 3, 4]}}})";

TEST(QbenchOverrides, ParsesShapesAndAttributes) {
    EXPECT_EQ(parse_shape("1x64x56x56", "t"), (dims {1, 64, 56, 56}));
    EXPECT_EQ(parse_shape("7", "t"), (dims {7}));
    EXPECT_EQ(parse_shape("scalar", "t"), dims {});
    EXPECT_EQ(shape_string({2, 3}), "2x3");
    EXPECT_EQ(shape_string({}), "scalar");
    for (const char *bad : {"", "1x", "x1", "1xx2", "-1", "1x-2", "a", "1.5"})
        EXPECT_THROW(parse_shape(bad, "t"), usage_error) << bad;

    const auto s = parse_in_shapes("0:1x2+3:4");
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].id, 0u);
    EXPECT_EQ(s[0].dims, (dims {1, 2}));
    EXPECT_EQ(s[1].id, 3u);
    EXPECT_EQ(s[1].dims, (dims {4}));
    EXPECT_TRUE(parse_in_shapes("").empty());
    for (const char *bad : {"1x2", "a:1", "0:", "0:1+", "-1:2"})
        EXPECT_THROW(parse_in_shapes(bad), usage_error) << bad;

    const auto a = parse_op_attrs("0:axis:2*5:scales:0.5x0.25");
    ASSERT_EQ(a.size(), 2u);
    EXPECT_EQ(a[0].op_id, 0u);
    EXPECT_EQ(a[0].name, "axis");
    EXPECT_EQ(a[0].value, "2");
    EXPECT_EQ(a[1].op_id, 5u);
    EXPECT_EQ(a[1].value, "0.5x0.25");
    for (const char *bad : {"0:axis", "x:axis:1", "0::1", "0:axis:1*"})
        EXPECT_THROW(parse_op_attrs(bad), usage_error) << bad;
}

TEST(QbenchOverrides, InShapesChangeTheTensorAndTheInferredOutput) {
    temp_files t;
    job j;
    j.case_path = t.write("q.json", quantize_case);
    j.settings.in_shapes = "0:3x5";
    tools::graph_case c = load_job_case(j);
    const std::vector<partition> parts
            = checked_partitions(c, j.settings, j.settings.policies.front());
    ASSERT_EQ(parts.size(), 1u);
    EXPECT_EQ(parts[0].get_input_ports()[0].get_dims(), (dims {3, 5}));
    EXPECT_EQ(parts[0].get_input_ports()[0].get_strides(), (dims {5, 1}));
    EXPECT_EQ(parts[0].get_output_ports()[0].get_dims(), (dims {3, 5})); // inferred again
}

TEST(QbenchOverrides, OpAttrsChangeTheAttributeWithItsType) {
    temp_files t;
    job j;
    j.case_path = t.write("q.json", quantize_case);
    j.settings.op_attrs = "0:scales:4*0:zps:1";
    const tools::graph_case c = load_job_case(j);
    const auto &attrs = c.ops[0].get_attrs();
    EXPECT_EQ(std::get<std::vector<float>>(attrs.at("scales")), std::vector<float> {4.f});
    EXPECT_EQ(std::get<std::vector<int64_t>>(attrs.at("zps")), std::vector<int64_t> {1});
    EXPECT_EQ(std::get<std::string>(attrs.at("qtype")), "per_tensor"); // untouched
}

TEST(QbenchOverrides, UnknownIdsAndBadValuesAreInvalidArguments) {
    temp_files t;
    job j;
    j.case_path = t.write("q.json", quantize_case);
    for (const auto &[shapes, attrs] : std::vector<std::pair<std::string, std::string>> {
                 {"9:2", ""}, {"", "4:axis:1"}, {"", "0:axis:one"}, {"", "0:scales:1xq"}}) {
        j.settings.in_shapes = shapes;
        j.settings.op_attrs = attrs;
        try {
            load_job_case(j);
            ADD_FAILURE() << shapes << " " << attrs << " loaded";
        } catch (const case_stop &s) {
            EXPECT_EQ(s.s, state::invalid_arguments);
        }
    }
}

std::string run_out(const std::vector<std::string> &args, int &code) {
    std::ostringstream out, err;
    code = qbench_main(args, out, err);
    return out.str() + err.str();
}

TEST(QbenchOverrides, ShapesTooLargeForMemoryAreInvalidArgumentsWithTheReason) {
    // As in a case file, a shape whose size in bytes overflows int64 is refused, in both
    // modes, before a buffer of it is asked for (it used to be FAILED with "cannot create
    // std::vector larger than max_size()" in --mode=C).
    temp_files t;
    const std::string c = "--case=" + t.write("q.json", quantize_case);
    for (const char *mode : {"--mode=C", "--mode=P"}) {
        int code = -1;
        const std::string out = run_out({mode, "--fix-times-per-prb=1",
                "--in-shapes=0:9223372036854775807", c}, code);
        EXPECT_EQ(code, exit_failed) << out;
        EXPECT_NE(out.find("0:INVALID_ARGUMENTS"), std::string::npos) << out;
        EXPECT_NE(out.find("--in-shapes: tensor 0 (f32) of shape 9223372036854775807: logical "
                           "tensor 0: size overflows int64"),
                std::string::npos)
                << out;
        // A shorthand shape that only the inferred output makes too large: 2^59 u8 elements
        // fit, 2^59 f32 elements do not (sizes are counted in bits).
        const std::string deq = run_out({mode, "--fix-times-per-prb=1", "--op=Dequantize",
                "576460752303423488"}, code);
        EXPECT_EQ(code, exit_failed) << deq;
        EXPECT_NE(deq.find("0:INVALID_ARGUMENTS"), std::string::npos) << deq;
        EXPECT_NE(deq.find("partition 0 (Dequantize): invalid_shape: logical tensor 3: size "
                           "overflows int64"),
                std::string::npos)
                << deq;
    }
}

TEST(QbenchOverrides, AnOverriddenScaleChangesTheResult) {
    temp_files t;
    const std::string c = "--case=" + t.write("q.json", quantize_case);
    int code = -1;
    run_out({"--backend=ref", c}, code);
    EXPECT_EQ(code, exit_ok);
    // Scale 1 instead of 2: the expected values no longer hold.
    const std::string out = run_out({"--backend=ref", "--op-attrs=0:scales:1", c}, code);
    EXPECT_EQ(code, exit_failed);
    EXPECT_NE(out.find("0:FAILED"), std::string::npos) << out;
    EXPECT_NE(out.find("got 2, expected 1"), std::string::npos) << out;
}

TEST(QbenchOverrides, OpShorthandBuildsEveryOpKind) {
    struct row {
        const char *op, *qtype, *zp, *sdt, *ddt;
        size_t inputs;
    };
    const row rows[] = {
            {"Quantize", "per_tensor", "none", "f32", "u8", 1},
            {"Quantize", "per_channel", "s32", "f32", "u8", 1},
            {"Dequantize", "per_channel", "u8", "u8", "f32", 1},
            {"DynamicQuantize", "per_tensor", "s32", "f32", "u8", 3},
            {"DynamicDequantize", "per_channel", "none", "u8", "f32", 2},
            {"QuantizeLinear", "per_channel", "s8", "f32", "s8", 3},
            {"DequantizeLinear", "per_tensor", "u8", "u8", "f32", 3},
            {"DynamicQuantizeLinear", "per_tensor", "none", "f32", "u8", 1},
    };
    for (const row &r : rows) {
        op_knobs o;
        o.op = r.op;
        o.qtype = r.qtype;
        o.zp = r.zp;
        const op_knobs res = resolve_op_knobs(o);
        EXPECT_EQ(res.sdt, r.sdt) << r.op;
        EXPECT_EQ(res.ddt, r.ddt) << r.op;
        const tools::graph_case c = make_op_case(o, {2, 3, 4});
        ASSERT_EQ(c.ops.size(), 1u);
        EXPECT_EQ(to_string(c.ops[0].get_kind()), std::string(r.op));
        EXPECT_EQ(c.ops[0].get_input_logical_tensors().size(), r.inputs) << r.op;
        graph g = tools::build_graph(c); // the schema accepts it
        EXPECT_TRUE(g.get_partitions()[0].is_supported()) << r.op;
    }
    op_knobs bad;
    bad.qtype = "per_channel";
    bad.axis = 5;
    EXPECT_THROW(make_op_case(bad, {2, 3}), error);
}

TEST(QbenchOverrides, ShorthandScalesAndZeroPointsFollowTheKnobs) {
    op_knobs o;
    o.op = "DynamicQuantize";
    o.qtype = "per_channel";
    o.axis = 1;
    o.zp = "s8";
    o.scale = 0.25f;
    const tools::graph_case c = make_op_case(o, {2, 4});
    ASSERT_EQ(c.inputs.count(1), 1u);
    EXPECT_EQ(c.inputs.at(1), (tools::tensor_values {0.25, 0.5, 1.0, 2.0}));
    EXPECT_EQ(c.inputs.at(2), (tools::tensor_values {-2, -1, 0, 1}));
    EXPECT_FALSE(c.has_data);
}

} // namespace
} // namespace qbench
} // namespace qgraph
