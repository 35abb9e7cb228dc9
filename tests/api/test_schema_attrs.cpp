// add_op attribute rules of the oneDNN-style ops (Quantize, Dequantize: static scales and zero
// points; DynamicQuantize, DynamicDequantize: scale / zero-point tensors): required, types,
// unknown names, qtype values, axis range, counts, zero-point ranges, static scale values.

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "api/valid_ops.hpp"

namespace {

using namespace qtest;

const std::string q_desc = "Quantize 'q' (id 0)";
const std::string dq_desc = "Dequantize 'dq' (id 0)";
const std::string dyq_desc = "DynamicQuantize 'dyq' (id 0)";
const std::string dydq_desc = "DynamicDequantize 'dydq' (id 0)";

/// Quantize (or Dequantize) per_channel over a 2x3x4x5 tensor.
op static_per_channel(op::kind k, int64_t axis, size_t nscales) {
    const dims d {2, 3, 4, 5};
    const bool q = k == op::kind::Quantize;
    op o(0, k, {dense(1, q ? dt::f32 : dt::u8, d)}, {dense(2, q ? dt::u8 : dt::f32, d)},
            q ? "q" : "dq");
    o.set_attr(op::attr::qtype, "per_channel");
    o.set_attr(op::attr::axis, axis);
    o.set_attr(op::attr::scales, std::vector<float>(nscales, 0.25f));
    return o;
}

TEST(SchemaAttrs, QuantizeWithoutScales) {
    EXPECT_QG_ERROR(add(without_attr(valid_quantize(), "scales")), status::invalid_graph_op,
            q_desc, "missing attribute 'scales'");
    EXPECT_QG_ERROR(add(without_attr(valid_dequantize(), "scales")), status::invalid_graph_op,
            dq_desc, "missing attribute 'scales'");
}

TEST(SchemaAttrs, OptionalAttributesHaveDefaults) {
    // Without qtype (per_tensor), axis (1) and zps (0) the op is valid.
    op o(0, op::kind::Quantize, {dense(1, dt::f32, shape23())}, {dense(2, dt::u8, shape23())},
            "q");
    o.set_attr(op::attr::scales, std::vector<float> {0.5f});
    EXPECT_NO_THROW(add(o));
}

TEST(SchemaAttrs, WrongAttributeType) {
    EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "axis", 1.0f)), status::invalid_graph_op,
            q_desc, "attribute 'axis' must be s64, got f32");
    EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "scales", 0.5f)), status::invalid_graph_op,
            q_desc, "attribute 'scales' must be f32[], got f32");
    EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "scales", std::vector<int64_t> {1})),
            status::invalid_graph_op, q_desc, "attribute 'scales' must be f32[], got s64[]");
    EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "zps", std::vector<float> {1.f})),
            status::invalid_graph_op, q_desc, "attribute 'zps' must be s64[], got f32[]");
    EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "qtype", int64_t(0))),
            status::invalid_graph_op, q_desc, "attribute 'qtype' must be string, got s64");
    EXPECT_QG_ERROR(add(with_attr(valid_dynamic_quantize(), "axis", true)),
            status::invalid_graph_op, dyq_desc, "attribute 'axis' must be s64, got bool");
    EXPECT_QG_ERROR(add(with_attr(valid_dynamic_dequantize(), "axis", 1.0)),
            status::invalid_graph_op, dydq_desc, "attribute 'axis' must be s64, got f32");
}

TEST(SchemaAttrs, UnknownAttribute) {
    EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "foo", int64_t(1))),
            status::invalid_graph_op, q_desc, "unknown attribute 'foo' for Quantize");
    EXPECT_QG_ERROR(add(with_attr(valid_dequantize(), "block_size", int64_t(2))),
            status::invalid_graph_op, dq_desc, "unknown attribute 'block_size'");
    // Dynamic ops take scales and zero points as tensors, not attributes.
    EXPECT_QG_ERROR(add(with_attr(valid_dynamic_quantize(), "scales", std::vector<float> {1})),
            status::invalid_graph_op, dyq_desc, "unknown attribute 'scales' for DynamicQuantize");
    EXPECT_QG_ERROR(add(with_attr(valid_dynamic_dequantize(), "zps", std::vector<int64_t> {1})),
            status::invalid_graph_op, dydq_desc, "unknown attribute 'zps'");
}

TEST(SchemaAttrs, QtypeMustBeOneOfThree) {
    for (const char *bad : {"per_row", "", "PER_TENSOR", "per_axis"}) {
        SCOPED_TRACE(bad);
        const std::string frag = std::string("attribute 'qtype' = \"") + bad + "\"";
        EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "qtype", bad)), status::invalid_graph_op,
                q_desc, frag, "per_tensor, per_channel or per_group");
        EXPECT_QG_ERROR(add(with_attr(valid_dynamic_quantize(), "qtype", bad)),
                status::invalid_graph_op, dyq_desc, frag);
    }
}

TEST(SchemaAttrs, StaticAxisRange) {
    // Rank 4: axis in [-4, 3].
    for (op::kind k : {op::kind::Quantize, op::kind::Dequantize}) {
        const std::string desc = k == op::kind::Quantize ? q_desc : dq_desc;
        EXPECT_QG_ERROR(add(static_per_channel(k, 4, 2)), status::invalid_graph_op, desc,
                "attribute 'axis' = 4 is out of range [-4, 3]", "rank 4");
        EXPECT_QG_ERROR(add(static_per_channel(k, -5, 2)), status::invalid_graph_op, desc,
                "attribute 'axis' = -5 is out of range [-4, 3]");
        // In range: -4 is axis 0 (2 channels), -1 is axis 3 (5 channels), 3 likewise.
        EXPECT_NO_THROW(add(static_per_channel(k, -4, 2)));
        EXPECT_NO_THROW(add(static_per_channel(k, -1, 5)));
        EXPECT_NO_THROW(add(static_per_channel(k, 3, 5)));
        EXPECT_NO_THROW(add(static_per_channel(k, 0, 2)));
    }
}

TEST(SchemaAttrs, StaticScaleCountVsChannels) {
    // axis 1 of 2x3x4x5 has 3 channels.
    EXPECT_QG_ERROR(add(static_per_channel(op::kind::Quantize, 1, 2)), status::invalid_graph_op,
            q_desc, "attribute 'scales' has 2 values", "3 channels along axis 1");
    // A negative axis is reported normalised: -2 is axis 2 (4 channels).
    EXPECT_QG_ERROR(add(static_per_channel(op::kind::Dequantize, -2, 3)),
            status::invalid_graph_op, dq_desc, "attribute 'scales' has 3 values",
            "4 channels along axis 2");
    EXPECT_NO_THROW(add(static_per_channel(op::kind::Quantize, -2, 4)));
    // per_tensor takes exactly one scale.
    const op no_zp = without_attr(valid_quantize(), "zps");
    EXPECT_QG_ERROR(add(with_attr(no_zp, "scales", std::vector<float> {1.f, 2.f})),
            status::invalid_graph_op, q_desc, "per_tensor needs exactly 1 scale",
            "'scales' has 2");
    EXPECT_QG_ERROR(add(with_attr(no_zp, "scales", std::vector<float> {})),
            status::invalid_graph_op, q_desc, "attribute 'scales' is empty");
}

TEST(SchemaAttrs, StaticZeroPointCountVsScales) {
    EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "zps", std::vector<int64_t> {1, 2})),
            status::invalid_graph_op, q_desc, "attribute 'zps' has 2 values but 'scales' has 1");
    op pc = static_per_channel(op::kind::Dequantize, 1, 3);
    pc.set_attr(op::attr::zps, std::vector<int64_t> {0});
    EXPECT_QG_ERROR(add(pc), status::invalid_graph_op, dq_desc,
            "attribute 'zps' has 1 values but 'scales' has 3");
    pc.set_attr(op::attr::zps, std::vector<int64_t> {0, 1, 2});
    EXPECT_NO_THROW(add(pc));
    // An empty zps is "no zero point".
    EXPECT_NO_THROW(add(with_attr(valid_quantize(), "zps", std::vector<int64_t> {})));
}

TEST(SchemaAttrs, StaticZeroPointRange) {
    // u8 [0, 255]
    EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "zps", std::vector<int64_t> {256})),
            status::invalid_graph_op, q_desc, "attribute 'zps'[0] = 256",
            "outside the range of u8 [0, 255]");
    EXPECT_QG_ERROR(add(with_attr(valid_dequantize(), "zps", std::vector<int64_t> {-1})),
            status::invalid_graph_op, dq_desc, "attribute 'zps'[0] = -1", "u8 [0, 255]");
    EXPECT_NO_THROW(add(with_attr(valid_quantize(), "zps", std::vector<int64_t> {255})));
    EXPECT_NO_THROW(add(with_attr(valid_quantize(), "zps", std::vector<int64_t> {0})));
    // s8 [-128, 127], the second of three per-channel values out of range.
    op s8q = static_per_channel(op::kind::Quantize, 1, 3);
    s8q = with_output(s8q, 0, dense(2, dt::s8, {2, 3, 4, 5}));
    s8q.set_attr(op::attr::zps, std::vector<int64_t> {0, -129, 5});
    EXPECT_QG_ERROR(add(s8q), status::invalid_graph_op, q_desc, "attribute 'zps'[1] = -129",
            "outside the range of s8 [-128, 127]");
    s8q.set_attr(op::attr::zps, std::vector<int64_t> {-128, 127, 128});
    EXPECT_QG_ERROR(add(s8q), status::invalid_graph_op, q_desc, "attribute 'zps'[2] = 128",
            "s8 [-128, 127]");
    op s8dq = with_input(valid_dequantize(), 0, dense(1, dt::s8, shape23()));
    s8dq.set_attr(op::attr::zps, std::vector<int64_t> {-129});
    EXPECT_QG_ERROR(add(s8dq), status::invalid_graph_op, dq_desc, "attribute 'zps'[0] = -129",
            "s8 [-128, 127]");
    s8dq.set_attr(op::attr::zps, std::vector<int64_t> {-128});
    EXPECT_NO_THROW(add(s8dq));
}

TEST(SchemaAttrs, StaticScaleMustBeFiniteAndNonZero) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (float bad : {0.f, -0.f, nan, inf, -inf}) {
        SCOPED_TRACE(bad);
        EXPECT_QG_ERROR(add(with_attr(valid_quantize(), "scales", std::vector<float> {bad})),
                status::invalid_graph_op, q_desc, "attribute 'scales'[0]",
                "must be finite and non-zero");
        EXPECT_QG_ERROR(add(with_attr(valid_dequantize(), "scales", std::vector<float> {bad})),
                status::invalid_graph_op, dq_desc, "attribute 'scales'[0]",
                "must be finite and non-zero");
        op pc = static_per_channel(op::kind::Quantize, 1, 3);
        pc.set_attr(op::attr::scales, std::vector<float> {1.f, 2.f, bad});
        EXPECT_QG_ERROR(add(pc), status::invalid_graph_op, q_desc, "attribute 'scales'[2]");
    }
    // Negative and subnormal static scales are valid.
    EXPECT_NO_THROW(add(with_attr(valid_quantize(), "scales", std::vector<float> {-0.5f})));
    EXPECT_NO_THROW(add(with_attr(valid_quantize(), "scales",
            std::vector<float> {std::numeric_limits<float>::denorm_min()})));
}

/// DynamicQuantize / DynamicDequantize with src 2x3 and the given scale / zp shapes.
op dynamic_op(bool quantize, const std::string &qtype, int64_t axis, const dims &sd,
        const dims &zd, dt zp_dt = dt::u8) {
    op o(0, quantize ? op::kind::DynamicQuantize : op::kind::DynamicDequantize,
            {dense(1, quantize ? dt::f32 : dt::u8, shape23()), dense(2, dt::f32, sd),
                    dense(3, zp_dt, zd)},
            {dense(4, quantize ? dt::u8 : dt::f32, shape23())}, quantize ? "dyq" : "dydq");
    o.set_attr(op::attr::qtype, qtype);
    o.set_attr(op::attr::axis, axis);
    return o;
}

TEST(SchemaAttrs, DynamicScaleTensorCounts) {
    for (bool q : {true, false}) {
        const std::string desc = q ? dyq_desc : dydq_desc;
        SCOPED_TRACE(desc);
        EXPECT_QG_ERROR(add(dynamic_op(q, "per_tensor", 1, {2}, {2})), status::invalid_graph_op,
                desc, "qtype per_tensor needs 1 value in input 1 (scales), got 2");
        EXPECT_QG_ERROR(add(dynamic_op(q, "per_tensor", 1, {}, {3})), status::invalid_graph_op,
                desc, "qtype per_tensor needs 1 value in input 2 (zps), got 3");
        EXPECT_QG_ERROR(add(dynamic_op(q, "per_channel", 1, {2}, {2})),
                status::invalid_graph_op, desc, "input 1 (scales) has 2 values",
                "3 channels along axis 1");
        EXPECT_QG_ERROR(add(dynamic_op(q, "per_channel", 1, {3}, {2})),
                status::invalid_graph_op, desc, "input 2 (zps) has 2 values",
                "3 channels along axis 1");
        EXPECT_QG_ERROR(add(dynamic_op(q, "per_channel", -2, {3}, {3})),
                status::invalid_graph_op, desc, "input 1 (scales) has 3 values",
                "2 channels along axis 0");
        EXPECT_QG_ERROR(add(dynamic_op(q, "per_channel", 1, {1, 3}, {3})),
                status::invalid_graph_op, desc, "input 1 (scales) must be 0-D or 1-D, got 1x3");
        EXPECT_NO_THROW(add(dynamic_op(q, "per_channel", 1, {3}, {3})));
        EXPECT_NO_THROW(add(dynamic_op(q, "per_channel", -1, {3}, {3})));
        EXPECT_NO_THROW(add(dynamic_op(q, "per_channel", 0, {2}, {2})));
        EXPECT_NO_THROW(add(dynamic_op(q, "per_tensor", 1, {}, {})));
        EXPECT_NO_THROW(add(dynamic_op(q, "per_tensor", 1, {1}, {1})));
    }
}

TEST(SchemaAttrs, DynamicAxisRange) {
    for (bool q : {true, false}) {
        const std::string desc = q ? dyq_desc : dydq_desc;
        EXPECT_QG_ERROR(add(dynamic_op(q, "per_channel", 2, {3}, {3})), status::invalid_graph_op,
                desc, "attribute 'axis' = 2 is out of range [-2, 1]");
        EXPECT_QG_ERROR(add(dynamic_op(q, "per_channel", -3, {3}, {3})),
                status::invalid_graph_op, desc, "attribute 'axis' = -3 is out of range [-2, 1]");
    }
}

TEST(SchemaAttrs, DynamicZeroPointTypesAreIndependentOfDst) {
    // DynamicQuantize: zp s8, u8 or s32 whatever the dst (u8 or s8) is.
    for (dt zp : {dt::u8, dt::s8, dt::s32}) {
        EXPECT_NO_THROW(add(dynamic_op(true, "per_tensor", 1, {}, {}, zp)));
        EXPECT_NO_THROW(add(dynamic_op(false, "per_tensor", 1, {}, {}, zp)));
        op s8dst = with_output(dynamic_op(true, "per_tensor", 1, {}, {}, zp), 0,
                dense(4, dt::s8, shape23()));
        EXPECT_NO_THROW(add(s8dst));
    }
}

} // namespace
