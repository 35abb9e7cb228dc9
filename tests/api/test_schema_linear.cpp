// add_op rules of the ONNX ops: QuantizeLinear, DequantizeLinear (zero-point type and shape,
// per-axis scale counts, axis range, attribute types) and DynamicQuantizeLinear.

#include <gtest/gtest.h>

#include "api/valid_ops.hpp"

namespace {

using namespace qtest;

const std::string ql_desc = "QuantizeLinear 'ql' (id 0)";
const std::string dql_desc = "DequantizeLinear 'dql' (id 0)";
const std::string dyql_desc = "DynamicQuantizeLinear 'dyql' (id 0)";

/// QuantizeLinear x:2x3 f32 with scale / zp shapes, y and zp of `q`.
op ql(const dims &sd, const dims &zd, dt q = dt::u8) {
    return op(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, shape23()), dense(2, dt::f32, sd), dense(3, q, zd)},
            {dense(4, q, shape23())}, "ql");
}

op dql(const dims &sd, const dims &zd, dt q = dt::u8) {
    return op(0, op::kind::DequantizeLinear,
            {dense(1, q, shape23()), dense(2, dt::f32, sd), dense(3, q, zd)},
            {dense(4, dt::f32, shape23())}, "dql");
}

TEST(SchemaLinear, QuantizeLinearZeroPointTypeMustMatchOutput) {
    op o = ql({}, {}, dt::u8);
    o = with_output(o, 0, dense(4, dt::s8, shape23()));
    EXPECT_QG_ERROR(add(o), status::invalid_data_type, ql_desc, "input 2",
            "zero_point) is u8 but must match the quantized type s8");
    EXPECT_NO_THROW(add(ql({}, {}, dt::s8)));
    EXPECT_NO_THROW(add(ql({}, {}, dt::u8)));
}

TEST(SchemaLinear, QuantizeLinearWithoutZeroPointTakesTheDeclaredType) {
    // Without a zero point the declared y type is the output type (opset 21's output_dtype
    // role): any quantized type, s16 included.
    op o = valid_quantize_linear();
    std::vector<lt> ins = o.get_input_logical_tensors();
    ins.pop_back();
    o = with_inputs(o, ins);
    EXPECT_NO_THROW(add(o));
    EXPECT_NO_THROW(add(with_output(o, 0, dense(4, dt::s8, shape23()))));
    EXPECT_TRUE(partition_of(with_output(o, 0, dense(4, dt::s16, shape23()))).is_supported());
    EXPECT_QG_ERROR(add(with_output(o, 0, dense(4, dt::s32, shape23()))),
            status::invalid_data_type, ql_desc, "output 0 (y)", "s32 is not allowed");
}

TEST(SchemaLinear, DequantizeLinearZeroPointTypeMustMatchInput) {
    op o = dql({}, {}, dt::u8);
    o = with_input(o, 2, dense(3, dt::s8, {}));
    EXPECT_QG_ERROR(add(o), status::invalid_data_type, dql_desc, "input 2",
            "is s8 but must match the quantized type u8");
    // s32 input with an s32 zero point is allowed by the schema.
    op s32 = op(0, op::kind::DequantizeLinear,
            {dense(1, dt::s32, shape23()), dense(2, dt::f32, {}), dense(3, dt::s32, {})},
            {dense(4, dt::f32, shape23())}, "dql");
    EXPECT_NO_THROW(add(s32));
}

TEST(SchemaLinear, ZeroPointHoldsAsManyValuesAsTheScale) {
    EXPECT_QG_ERROR(add(ql({}, {3})), status::invalid_graph_op, ql_desc, "input 2",
            "has shape 3 but input 1 (y_scale) has scalar", "the same number of values");
    EXPECT_QG_ERROR(add(ql({3}, {})), status::invalid_graph_op, ql_desc,
            "has shape scalar but input 1 (y_scale) has 3");
    EXPECT_QG_ERROR(add(dql({3}, {1})), status::invalid_graph_op, dql_desc,
            "has shape 1 but input 1 (x_scale) has 3");
    EXPECT_QG_ERROR(add(dql({3}, {2})), status::invalid_graph_op, dql_desc,
            "has shape 2 but input 1 (x_scale) has 3");
    // Same count, other shape: a 0-D scale with a [1] zero point (as in ONNX's own tests).
    EXPECT_NO_THROW(add(ql({1}, {})));
    EXPECT_NO_THROW(add(ql({}, {1})));
    EXPECT_NO_THROW(add(ql({3}, {3})));
    EXPECT_NO_THROW(add(dql({1}, {1})));
    // The zero point, like the scale, is 0-D or 1-D.
    EXPECT_QG_ERROR(add(ql({3}, {1, 3})), status::invalid_graph_op, ql_desc,
            "input 2 (y_zero_point) must be 0-D or 1-D", "1x3");
}

TEST(SchemaLinear, ScaleCountAlongAxis) {
    // Default axis 1: x is 2x3, so a 1-D scale has 1 (per-tensor) or 3 values.
    EXPECT_QG_ERROR(add(ql({2}, {2})), status::invalid_graph_op, ql_desc,
            "input 1 (y_scale) has 2 values but input 0 (x) has 3 along axis 1");
    EXPECT_QG_ERROR(add(dql({4}, {4})), status::invalid_graph_op, dql_desc,
            "input 1 (x_scale) has 4 values but input 0 (x) has 3 along axis 1");
    op a0 = with_attr(ql({3}, {3}), "axis", int64_t(0));
    EXPECT_QG_ERROR(add(a0), status::invalid_graph_op, ql_desc, "has 2 along axis 0");
    EXPECT_NO_THROW(add(with_attr(ql({2}, {2}), "axis", int64_t(0))));
    EXPECT_NO_THROW(add(with_attr(ql({2}, {2}), "axis", int64_t(-2))));
    EXPECT_NO_THROW(add(with_attr(ql({3}, {3}), "axis", int64_t(-1))));
    EXPECT_NO_THROW(add(ql({1}, {1})));
}

TEST(SchemaLinear, ScaleRankAtMostOne) {
    EXPECT_QG_ERROR(add(ql({2, 3}, {2, 3})), status::invalid_graph_op, ql_desc,
            "input 1 (y_scale) must be 0-D or 1-D", "2x3");
    EXPECT_QG_ERROR(add(dql({1, 3}, {1, 3})), status::invalid_graph_op, dql_desc,
            "input 1 (x_scale) must be 0-D or 1-D");
}

TEST(SchemaLinear, AxisRange) {
    EXPECT_QG_ERROR(add(with_attr(ql({3}, {3}), "axis", int64_t(2))), status::invalid_graph_op,
            ql_desc, "attribute 'axis' = 2 is out of range [-2, 1]", "input 0 (x) of rank 2");
    EXPECT_QG_ERROR(add(with_attr(dql({3}, {3}), "axis", int64_t(-3))),
            status::invalid_graph_op, dql_desc, "attribute 'axis' = -3 is out of range [-2, 1]");
}

TEST(SchemaLinear, AttributeTypesAndNames) {
    EXPECT_QG_ERROR(add(with_attr(ql({3}, {3}), "axis", 1.0f)), status::invalid_graph_op,
            ql_desc, "attribute 'axis' must be s64, got f32");
    EXPECT_QG_ERROR(add(with_attr(ql({}, {}), "saturate", true)), status::invalid_graph_op,
            ql_desc, "attribute 'saturate' must be s64, got bool");
    EXPECT_QG_ERROR(add(with_attr(ql({}, {}), "block_size", std::vector<int64_t> {2})),
            status::invalid_graph_op, ql_desc, "attribute 'block_size' must be s64, got s64[]");
    EXPECT_QG_ERROR(add(with_attr(ql({}, {}), "qtype", "per_tensor")), status::invalid_graph_op,
            ql_desc, "unknown attribute 'qtype' for QuantizeLinear");
    EXPECT_QG_ERROR(add(with_attr(dql({}, {}), "saturate", int64_t(1))),
            status::invalid_graph_op, dql_desc, "unknown attribute 'saturate' for DequantizeLinear");
    EXPECT_QG_ERROR(add(with_attr(dql({}, {}), "scales", std::vector<float> {1.f})),
            status::invalid_graph_op, dql_desc, "unknown attribute 'scales'");
    EXPECT_NO_THROW(add(with_attr(ql({}, {}), "saturate", int64_t(1))));
    EXPECT_NO_THROW(add(with_attr(ql({}, {}), "block_size", int64_t(0))));
}

TEST(SchemaLinear, DynamicQuantizeLinearTakesNoAttributes) {
    EXPECT_QG_ERROR(add(with_attr(valid_dynamic_quantize_linear(), "axis", int64_t(1))),
            status::invalid_graph_op, dyql_desc, "unknown attribute 'axis' for DynamicQuantizeLinear");
}

TEST(SchemaLinear, DynamicQuantizeLinearScaleAndZeroPointHoldOneValue) {
    const op o = valid_dynamic_quantize_linear();
    EXPECT_QG_ERROR(add(with_output(o, 1, dense(3, dt::f32, {2}))), status::invalid_graph_op,
            dyql_desc, "output 1 (y_scale) must hold one value (a scalar), got shape 2");
    EXPECT_QG_ERROR(add(with_output(o, 2, dense(4, dt::u8, {2, 2}))), status::invalid_graph_op,
            dyql_desc, "output 2 (y_zero_point) must hold one value", "2x2");
    EXPECT_QG_ERROR(add(with_output(o, 1, dense(3, dt::f32, {0}))), status::invalid_graph_op,
            dyql_desc, "output 1 (y_scale)", "got shape 0");
    // One element in any shape is fine.
    EXPECT_NO_THROW(add(with_output(o, 1, dense(3, dt::f32, {1}))));
    EXPECT_NO_THROW(add(with_output(o, 2, dense(4, dt::u8, {1, 1}))));
}

TEST(SchemaLinear, DynamicQuantizeLinearOneElementOutputsRun) {
    // y_scale [1] and y_zero_point [1, 1] are written like the 0-D ones.
    // x = {-1, 1}: lo -1, hi 1, scale = f32(2/255) = 8421505 * 2^-30 (2^31/255 = 8421504.50
    // rounds up), slightly above 2/255; 1/scale = 127.5 - 7.5e-6, which rounds in f32
    // (ulp 7.6e-6) to 127.49999237, below the tie: zp = 127;
    // y = rne(-127.49999) + 127 = 0 and rne(127.49999) + 127 = 254.
    const op o(0, op::kind::DynamicQuantizeLinear, {dense(1, dt::f32, {2})},
            {dense(2, dt::u8, {2}), dense(3, dt::f32, {1}), dense(4, dt::u8, {1, 1})}, "dyql");
    for (const char *b : {"", "ref"}) {
        run_result r = run_op_on(b, o, {make_buffer(dense(1, dt::f32, {2}), std::vector<float> {-1.f, 1.f})},
                {buffer(dense(2, dt::u8, {2})), buffer(dense(3, dt::f32, {1})),
                        buffer(dense(4, dt::u8, {1, 1}))});
        EXPECT_EQ(r.outputs[0].read<uint8_t>(), (std::vector<uint8_t> {0, 254})) << b;
        EXPECT_EQ(bits_of(r.outputs[1].read<float>()[0]), bits_of(2.f / 255.f)) << b;
        EXPECT_EQ(r.outputs[2].read<uint8_t>()[0], 127) << b;
    }
}

TEST(SchemaLinear, DynamicQuantizeLinearOutputShape) {
    const op o = valid_dynamic_quantize_linear();
    EXPECT_QG_ERROR(add(with_output(o, 0, dense(2, dt::u8, {3, 2}))), status::invalid_shape,
            dyql_desc, "output 0 (y) has shape 3x2 but must equal the input shape 2x3");
}

} // namespace
