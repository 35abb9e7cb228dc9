// ONNX QuantizeLinear / DequantizeLinear per opset (the 'opset' attribute): each type and
// attribute admitted exactly from the opset that adds it; blocked scale shapes, output_dtype,
// precision, saturate; oneDNN per_group rules and float8 zero points; and end-to-end runs of
// blocked s4, f16 division and e8m0 scales against hand-computed results.

#include <gtest/gtest.h>

#include <cstring>

#include "api/valid_ops.hpp"

namespace {

using namespace qtest;

const std::string ql_desc = "QuantizeLinear 'ql' (id 0)";
const std::string dql_desc = "DequantizeLinear 'dql' (id 0)";

/// QuantizeLinear x -> y with a 0-D scale and, when `zp`, a 0-D zero point of y's type.
op ql(dt x, dt scale, dt y, bool zp = true) {
    std::vector<lt> ins {dense(1, x, shape23()), dense(2, scale, {})};
    if (zp) ins.push_back(dense(3, y, {}));
    return op(0, op::kind::QuantizeLinear, ins, {dense(4, y, shape23())}, "ql");
}

op dql(dt x, dt scale, dt y, bool zp = true) {
    std::vector<lt> ins {dense(1, x, shape23()), dense(2, scale, {})};
    if (zp) ins.push_back(dense(3, x, {}));
    return op(0, op::kind::DequantizeLinear, ins, {dense(4, y, shape23())}, "dql");
}

struct since_case {
    const char *label;
    op o; ///< valid from `since` on
    int64_t since;
    const char *what; ///< the message names this ("data type f16", "attribute 'axis'")
};

std::vector<since_case> since_cases() {
    std::vector<since_case> v;
    for (dt q : {dt::f8_e4m3, dt::f8_e4m3fnuz, dt::f8_e5m2, dt::f8_e5m2fnuz})
        v.push_back({"QL to float8", ql(dt::f32, dt::f32, q), 19, "needs opset 19"});
    for (dt q : {dt::s16, dt::u16, dt::s4, dt::u4})
        v.push_back({"QL to 16 / 4 bits", ql(dt::f32, dt::f32, q), 21, "needs opset 21"});
    v.push_back({"QL to f4_e2m1", ql(dt::f32, dt::f32, dt::f4_e2m1), 23, "needs opset 23"});
    v.push_back({"QL to s2", ql(dt::f32, dt::f32, dt::s2), 25, "needs opset 25"});
    v.push_back({"QL to u2", ql(dt::f32, dt::f32, dt::u2, false), 25, "needs opset 25"});
    v.push_back({"QL f16", ql(dt::f16, dt::f16, dt::u8), 19, "data type f16 needs opset 19"});
    v.push_back({"QL bf16", ql(dt::bf16, dt::bf16, dt::s8), 19, "data type bf16 needs opset 19"});
    // Different x and y_scale types: only once y_scale has a constraint of its own.
    v.push_back({"QL f32 x, f16 scale", ql(dt::f32, dt::f16, dt::u8), 23, "opset 23"});
    v.push_back({"QL e8m0 scale", ql(dt::f32, dt::e8m0, dt::u8), 24, "e8m0 needs opset 24"});
    for (dt q : {dt::f8_e4m3, dt::f8_e5m2fnuz})
        v.push_back({"DQL from float8", dql(q, dt::f32, dt::f32), 19, "needs opset 19"});
    for (dt q : {dt::s16, dt::u16, dt::s4, dt::u4})
        v.push_back({"DQL from 16 / 4 bits", dql(q, dt::f32, dt::f32), 21, "needs opset 21"});
    v.push_back({"DQL f4_e2m1", dql(dt::f4_e2m1, dt::f32, dt::f32), 23, "needs opset 23"});
    v.push_back({"DQL s2", dql(dt::s2, dt::f32, dt::f32), 25, "needs opset 25"});
    v.push_back({"DQL u2", dql(dt::u2, dt::f32, dt::f32, false), 25, "needs opset 25"});
    v.push_back({"DQL f16", dql(dt::u8, dt::f16, dt::f16), 19, "data type f16 needs opset 19"});
    v.push_back({"DQL bf16", dql(dt::s8, dt::bf16, dt::bf16), 19, "bf16 needs opset 19"});
    v.push_back({"DQL e8m0", with_attr(dql(dt::u8, dt::e8m0, dt::f32), "output_dtype", int64_t(1)),
            24, "e8m0 needs opset 24"});
    // Attributes.
    const op q = ql(dt::f32, dt::f32, dt::u8), d = dql(dt::u8, dt::f32, dt::f32);
    v.push_back({"QL axis", with_attr(q, "axis", int64_t(0)), 13, "attribute 'axis' needs opset 13"});
    v.push_back({"DQL axis", with_attr(d, "axis", int64_t(0)), 13, "'axis' needs opset 13"});
    v.push_back({"QL saturate", with_attr(q, "saturate", int64_t(1)), 19, "'saturate' needs opset 19"});
    v.push_back({"QL block_size", with_attr(q, "block_size", int64_t(0)), 21, "'block_size' needs"});
    v.push_back({"DQL block_size", with_attr(d, "block_size", int64_t(0)), 21, "'block_size' needs"});
    v.push_back({"QL output_dtype", with_attr(q, "output_dtype", int64_t(2)), 21,
            "'output_dtype' needs opset 21"});
    v.push_back({"DQL output_dtype", with_attr(d, "output_dtype", int64_t(1)), 23,
            "'output_dtype' needs opset 23"});
    v.push_back({"QL precision", with_attr(q, "precision", int64_t(1)), 23,
            "'precision' needs opset 23"});
    return v;
}

TEST(SchemaOpsets, EachTypeAndAttributeFromItsOpsetOn) {
    for (const since_case &c : since_cases()) {
        SCOPED_TRACE(std::string(c.label) + " since " + std::to_string(c.since));
        EXPECT_NO_THROW(add(c.o)); // the default opset is the newest
        EXPECT_NO_THROW(add(with_attr(c.o, "opset", c.since)));
        EXPECT_TRUE(partition_of(with_attr(c.o, "opset", c.since)).is_supported());
        try {
            add(with_attr(c.o, "opset", c.since - 1));
            ADD_FAILURE() << "accepted at opset " << c.since - 1;
        } catch (const qgraph::error &e) {
            const std::string msg = e.what();
            EXPECT_NE(msg.find(c.what), std::string::npos) << msg;
            EXPECT_NE(msg.find("(attribute 'opset' = " + std::to_string(c.since - 1) + ")"),
                    std::string::npos)
                    << msg;
            EXPECT_TRUE(e.status() == status::invalid_data_type
                    || e.status() == status::invalid_graph_op);
        }
    }
}

TEST(SchemaOpsets, OpsetRange) {
    const op q = ql(dt::f32, dt::f32, dt::u8);
    EXPECT_NO_THROW(add(with_attr(q, "opset", int64_t(10))));
    EXPECT_QG_ERROR(add(with_attr(q, "opset", int64_t(9))), status::invalid_graph_op, ql_desc,
            "attribute 'opset' = 9 is outside [10, 25]");
    EXPECT_QG_ERROR(add(with_attr(q, "opset", int64_t(26))), status::invalid_graph_op,
            "attribute 'opset' = 26 is outside [10, 25]");
}

TEST(SchemaOpsets, Opsets19To22GiveTheScaleTheTypeOfX) {
    const op o = with_attr(ql(dt::f16, dt::f32, dt::u8), "opset", int64_t(22));
    EXPECT_QG_ERROR(add(o), status::invalid_data_type, ql_desc,
            "input 1 (y_scale) is f32 but must have the type of input 0 (x), f16");
    EXPECT_NO_THROW(add(with_attr(o, "opset", int64_t(23))));
}

TEST(SchemaOpsets, PerAxisScalesFromOpset13) {
    op o(0, op::kind::QuantizeLinear, {dense(1, dt::f32, shape23()), dense(2, dt::f32, {3})},
            {dense(4, dt::u8, shape23())}, "ql");
    EXPECT_NO_THROW(add(with_attr(o, "opset", int64_t(13))));
    EXPECT_QG_ERROR(add(with_attr(o, "opset", int64_t(12))), status::invalid_graph_op, ql_desc,
            "input 1 (y_scale) has 3 values but opsets before 13 have one scale");
}

/// DequantizeLinear u8 x of `xd` with scale and zp of `sd`, blocked along `axis`.
op blocked_dql(const dims &xd, const dims &sd, const dims &zd, int64_t axis, int64_t block) {
    op o(0, op::kind::DequantizeLinear,
            {dense(1, dt::u8, xd), dense(2, dt::f32, sd), dense(3, dt::u8, zd)},
            {dense(4, dt::f32, xd)}, "dql");
    o.set_attr(op::attr::axis, axis);
    o.set_attr(op::attr::block_size, block);
    return o;
}

TEST(SchemaOpsets, BlockedScaleShapes) {
    EXPECT_NO_THROW(add(blocked_dql({2, 5}, {2, 3}, {2, 3}, 1, 2))); // last block of 1
    EXPECT_NO_THROW(add(blocked_dql({4, 3}, {2, 3}, {2, 3}, -2, 3))); // ceil(4 / 3) = 2
    // A single scale is per-tensor whatever block_size says.
    EXPECT_NO_THROW(add(blocked_dql({2, 5}, {1}, {1}, 1, 2)));
    EXPECT_QG_ERROR(add(blocked_dql({2, 5}, {2, 2}, {2, 2}, 1, 2)), status::invalid_graph_op,
            dql_desc, "input 1 (x_scale) has shape 2x2 but input 0 (x) 2x5 in blocks of 2 along "
            "axis 1 needs 2x3");
    EXPECT_QG_ERROR(add(blocked_dql({2, 5}, {1, 3}, {1, 3}, 1, 2)), status::invalid_graph_op,
            "has shape 1x3", "needs 2x3");
    EXPECT_QG_ERROR(add(blocked_dql({2, 5}, {6}, {6}, 1, 2)), status::invalid_graph_op,
            "has shape 6", "needs 2x3");
    EXPECT_QG_ERROR(add(blocked_dql({2, 5}, {2, 3}, {3, 2}, 1, 2)), status::invalid_graph_op,
            "input 2 (x_zero_point) has shape 3x2 but input 1 (x_scale) has 2x3");
    EXPECT_QG_ERROR(add(blocked_dql({2, 5}, {2, 3}, {2, 3}, 1, -1)), status::invalid_graph_op,
            "attribute 'block_size' = -1 must be 0 or more");
    EXPECT_QG_ERROR(add(blocked_dql({2, 5}, {2, 3}, {2, 3}, 2, 2)), status::invalid_graph_op,
            "attribute 'axis' = 2 is out of range");
}

TEST(SchemaOpsets, OutputTypes) {
    // DequantizeLinear: y is output_dtype's type, else x_scale's; e8m0 scales need output_dtype.
    EXPECT_QG_ERROR(add(dql(dt::u8, dt::f16, dt::f32)), status::invalid_data_type, dql_desc,
            "output 0 (y) is f32 but without attribute 'output_dtype' it has the type of input 1 "
            "(x_scale), f16");
    EXPECT_NO_THROW(add(with_attr(dql(dt::u8, dt::f16, dt::f32), "output_dtype", int64_t(1))));
    EXPECT_QG_ERROR(add(with_attr(dql(dt::u8, dt::f32, dt::f32), "output_dtype", int64_t(10))),
            status::invalid_data_type,
            "output 0 (y) is f32 but attribute 'output_dtype' = 10 (FLOAT16) makes it f16");
    EXPECT_QG_ERROR(add(dql(dt::u8, dt::e8m0, dt::f32)), status::invalid_graph_op, dql_desc,
            "input 1 (x_scale) is e8m0: attribute 'output_dtype' must give the output type");
    EXPECT_QG_ERROR(add(with_attr(dql(dt::u8, dt::f32, dt::f32), "output_dtype", int64_t(2))),
            status::invalid_graph_op, "attribute 'output_dtype' = 2 (UINT8) is not an output "
            "type of DequantizeLinear");
    // QuantizeLinear: y (and the zero point) have output_dtype's type.
    EXPECT_NO_THROW(add(with_attr(ql(dt::f32, dt::f32, dt::s4, false), "output_dtype", int64_t(22))));
    EXPECT_QG_ERROR(add(with_attr(ql(dt::f32, dt::f32, dt::u8, false), "output_dtype", int64_t(3))),
            status::invalid_data_type, ql_desc,
            "output 0 (y) is u8 but attribute 'output_dtype' = 3 (INT8) makes it s8");
    EXPECT_QG_ERROR(add(with_attr(ql(dt::f32, dt::f32, dt::u8), "output_dtype", int64_t(1))),
            status::invalid_graph_op, "'output_dtype' = 1 (FLOAT) is not an output type");
    EXPECT_QG_ERROR(add(with_attr(ql(dt::f32, dt::f32, dt::u8), "output_dtype", int64_t(99))),
            status::invalid_graph_op, "'output_dtype' = 99 (unknown)");
}

TEST(SchemaOpsets, PrecisionAndSaturateValues) {
    const op q = ql(dt::f32, dt::f32, dt::u8);
    for (int64_t code : {1, 10, 16}) EXPECT_NO_THROW(add(with_attr(q, "precision", code)));
    EXPECT_QG_ERROR(add(with_attr(q, "precision", int64_t(3))), status::invalid_graph_op, ql_desc,
            "attribute 'precision' = 3 (INT8) must be 1 (FLOAT), 10 (FLOAT16) or 16 (BFLOAT16)");
    EXPECT_QG_ERROR(add(with_attr(q, "precision", int64_t(-1))), status::invalid_graph_op,
            "'precision' = -1 (unknown)");
    EXPECT_QG_ERROR(add(with_attr(q, "saturate", int64_t(2))), status::invalid_graph_op,
            "attribute 'saturate' = 2 must be 0 or 1");
}

/// DynamicDequantize src (1) -> dst (4), per_group with scales and zps of `pd`.
op grouped(dt src, const dims &sd, const dims &pd, const std::vector<int64_t> &groups,
        dt scale = dt::f32, dt dst = dt::f32) {
    op o(0, op::kind::DynamicDequantize,
            {dense(1, src, sd), dense(2, scale, pd), dense(3, dt::s4, pd)}, {dense(4, dst, sd)},
            "dydq");
    o.set_attr(op::attr::qtype, "per_group");
    if (!groups.empty()) o.set_attr(op::attr::group_shape, groups);
    return o;
}

TEST(SchemaOpsets, PerGroupRules) {
    const std::string d = "DynamicDequantize 'dydq' (id 0)";
    EXPECT_NO_THROW(add(grouped(dt::s4, {2, 8, 6}, {2, 2, 3}, {1, 4, 2})));
    EXPECT_NO_THROW(add(grouped(dt::u8, {8, 6}, {8, 2}, {1, 3}, dt::bf16, dt::bf16)));
    EXPECT_QG_ERROR(add(grouped(dt::s4, {8, 6}, {8, 2}, {})), status::invalid_graph_op, d,
            "qtype per_group needs attribute 'group_shape'");
    EXPECT_QG_ERROR(add(grouped(dt::s4, {8, 6}, {8, 2}, {0, 3})), status::invalid_graph_op,
            "attribute 'group_shape'[0] = 0 must be at least 1");
    EXPECT_QG_ERROR(add(grouped(dt::s4, {8, 6}, {8, 2}, {1, 1, 3})), status::invalid_graph_op,
            "attribute 'group_shape' has 3 values but input 0 (src) has rank 2");
    EXPECT_QG_ERROR(add(grouped(dt::s4, {2, 8, 6}, {1, 8, 6}, {2, 1, 1})),
            status::invalid_graph_op, "'group_shape'[0] = 2: only the last two dims may be grouped");
    EXPECT_QG_ERROR(add(grouped(dt::s4, {8, 7}, {8, 2}, {1, 3})), status::invalid_graph_op,
            "input 0 (src) dim 1 = 7 is not a multiple of attribute 'group_shape'[1] = 3");
    EXPECT_QG_ERROR(add(grouped(dt::s4, {8, 6}, {8, 3}, {1, 3})), status::invalid_graph_op,
            "input 1 (scales) has shape 8x3 but input 0 (src) 8x6 in groups of 1x3 needs 8x2");
    EXPECT_QG_ERROR(add(grouped(dt::s4, {8, 6}, {8, 2}, {1, 3}, dt::f32, dt::f16)),
            status::invalid_data_type, "output 0 (dst) is f16 but must be the type of input 1 "
            "(scales), f32");
    EXPECT_QG_ERROR(add(grouped(dt::f8_e4m3, {8, 6}, {8, 2}, {1, 3})), status::invalid_data_type,
            "input 0 (src) of type f8_e4m3 is not allowed with qtype per_group");
}

TEST(SchemaOpsets, OneDnnFloat8TakesNoZeroPoint) {
    op o = with_output(valid_quantize(), 0, dense(2, dt::f8_e4m3, shape23()));
    EXPECT_NO_THROW(add(with_attr(o, "zps", std::vector<int64_t> {0})));
    EXPECT_QG_ERROR(add(with_attr(o, "zps", std::vector<int64_t> {3})), status::invalid_graph_op,
            "Quantize 'q' (id 0)", "attribute 'zps'[0] = 3: the float type f8_e4m3 takes no zero "
            "point");
    o = with_input(valid_dequantize(), 0, dense(1, dt::f8_e5m2, shape23()));
    EXPECT_QG_ERROR(add(with_attr(o, "zps", std::vector<int64_t> {-1})), status::invalid_graph_op,
            "the float type f8_e5m2 takes no zero point");
}

buffer raw(const lt &desc, const std::vector<unsigned char> &bytes) {
    buffer b(desc, 0);
    EXPECT_EQ(b.size(), bytes.size());
    std::memcpy(b.data(), bytes.data(), bytes.size());
    return b;
}

TEST(OnnxRun, BlockedS4DequantizeWithAnOddCount) {
    // x s4 {-8, 7, 3, -1, 5}: element 2k in the low nibble, the last byte's high nibble 0.
    // Blocks of 2 along axis 0: zp s4 {1, -2, 0}, scales {0.5, 2, -1}.
    const lt x = dense(1, dt::s4, {5}), s = dense(2, dt::f32, {3}), z = dense(3, dt::s4, {3});
    op o(0, op::kind::DequantizeLinear, {x, s, z}, {dense(4, dt::f32, {5})}, "dql");
    o.set_attr(op::attr::axis, 0);
    o.set_attr(op::attr::block_size, 2);
    const run_result r = run_op(o,
            {raw(x, {0x78, 0xF3, 0x05}), make_buffer(s, std::vector<float> {0.5f, 2.f, -1.f}),
                    raw(z, {0xE1, 0x00})},
            {buffer(dense(4, dt::f32, {5}))});
    EXPECT_EQ(r.outputs[0].read<float>(), (std::vector<float> {-4.5f, 3.f, 10.f, 2.f, -5.f}));
}

TEST(OnnxRun, F16QuantizeDividesInF16) {
    // x = {2.25, 1.1494140625} (f16 0x4080, 0x3C99), scale = f16(0.1) = 0.0999755859375
    // (0x2E66). Exact quotients 22.50549... and 11.49694...: rounded to f16 they are the ties
    // 22.5 and 11.5 (even: 22, 12); in f32 they stay off the tie (23, 11).
    const lt x = dense(1, dt::f16, {2}), s = dense(2, dt::f16, {});
    op o(0, op::kind::QuantizeLinear, {x, s}, {dense(4, dt::u8, {2})}, "ql");
    const std::vector<buffer> in {make_buffer(x, std::vector<uint16_t> {0x4080, 0x3C99}),
            make_buffer(s, std::vector<uint16_t> {0x2E66})};
    run_result r = run_op(o, in, {buffer(dense(4, dt::u8, {2}))});
    EXPECT_EQ(r.outputs[0].read<uint8_t>(), (std::vector<uint8_t> {22, 12}));
    // precision = FLOAT divides in f32.
    r = run_op(with_attr(o, "precision", int64_t(1)), in, {buffer(dense(4, dt::u8, {2}))});
    EXPECT_EQ(r.outputs[0].read<uint8_t>(), (std::vector<uint8_t> {23, 11}));
}

TEST(OnnxRun, E8m0ScaleWithOutputDtype) {
    // Scale code 130 = 2^3; y = x * 8 as f16 (output_dtype FLOAT16): 0, 80, 2040.
    const lt x = dense(1, dt::u8, {3}), s = dense(2, dt::e8m0, {});
    op o(0, op::kind::DequantizeLinear, {x, s}, {dense(4, dt::f16, {3})}, "dql");
    o.set_attr("output_dtype", int64_t(10));
    const run_result r = run_op(o,
            {make_buffer(x, std::vector<uint8_t> {0, 10, 255}),
                    make_buffer(s, std::vector<uint8_t> {130})},
            {buffer(dense(4, dt::f16, {3}))});
    EXPECT_EQ(r.outputs[0].read<uint16_t>(), (std::vector<uint16_t> {0x0000, 0x5500, 0x67F8}));
}

} // namespace
