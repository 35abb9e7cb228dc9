// Valid by the op specifications but not implemented (f8 / s4 / u4 / s16 types, bf16 / f16
// in the ONNX ops and as scales, per_group, block_size, output_dtype): add_op and finalize
// accept the op, the partition reports is_supported() == false with a reason naming the op
// and what is missing, and compile throws unimplemented with that reason. (bf16 / f16 sources
// of Quantize / DynamicQuantize and destinations of Dequantize / DynamicDequantize are
// implemented: tests/api/test_half_ops.cpp.)

#include <gtest/gtest.h>

#include "api/valid_ops.hpp"

namespace {

using namespace qtest;

struct unsupported_case {
    const char *label;
    op o;
    std::vector<std::string> reason; ///< fragments of get_unsupported_reason()
};

std::vector<unsupported_case> cases() {
    const dims d = shape23();
    std::vector<unsupported_case> v;
    {
        op o = with_output(valid_quantize(), 0, dense(2, dt::f8_e4m3, d));
        v.push_back({"Quantize to f8_e4m3", o,
                {"Quantize 'q' (id 0)", "output 0 (dst) of type f8_e4m3 is not implemented"}});
        o = with_output(valid_quantize(), 0, dense(2, dt::f8_e5m2, d));
        v.push_back({"Quantize to f8_e5m2", o, {"output 0 (dst) of type f8_e5m2"}});
        // bf16 src with an f8 dst: the dst is what is missing.
        o = with_input(o, 0, dense(1, dt::bf16, d));
        v.push_back({"Quantize bf16 to f8_e5m2", o,
                {"output 0 (dst) of type f8_e5m2 is not implemented", "only u8 or s8"}});
    }
    {
        op o = with_input(valid_dequantize(), 0, dense(1, dt::f8_e4m3, d));
        v.push_back({"Dequantize from f8_e4m3", o,
                {"Dequantize 'dq' (id 0)", "input 0 (src) of type f8_e4m3"}});
        o = with_output(o, 0, dense(2, dt::bf16, d));
        v.push_back({"Dequantize from f8_e4m3 to bf16", o, {"input 0 (src) of type f8_e4m3"}});
    }
    {
        op o = with_output(valid_dynamic_quantize(), 0, dense(4, dt::s4, d));
        v.push_back({"DynamicQuantize to s4", o,
                {"DynamicQuantize 'dyq' (id 0)", "output 0 (dst) of type s4"}});
        o = with_input(valid_dynamic_quantize(), 2, dense(3, dt::u4, {1}));
        v.push_back({"DynamicQuantize u4 zero point", o, {"input 2 (zps) of type u4"}});
        o = with_input(valid_dynamic_dequantize(), 0, dense(1, dt::u4, d));
        v.push_back({"DynamicDequantize from u4", o,
                {"DynamicDequantize 'dydq' (id 0)", "input 0 (src) of type u4"}});
        // Scales stay f32-only, whatever the src / dst types.
        o = with_input(valid_dynamic_dequantize(), 1, dense(2, dt::f16, {1}));
        v.push_back({"DynamicDequantize f16 scales", o,
                {"input 1 (scales) of type f16 is not implemented", "only f32"}});
        o = with_output(o, 0, dense(4, dt::bf16, d));
        v.push_back({"DynamicDequantize f16 scales to bf16", o, {"input 1 (scales) of type f16"}});
        o = with_input(valid_dynamic_quantize(), 1, dense(2, dt::bf16, {1}));
        o = with_input(o, 0, dense(1, dt::bf16, d));
        v.push_back({"DynamicQuantize bf16 scales", o,
                {"DynamicQuantize 'dyq' (id 0)", "input 1 (scales) of type bf16"}});
        o = with_input(valid_dynamic_quantize(), 0, dense(1, dt::f16, d));
        o = with_output(o, 0, dense(4, dt::u4, d));
        v.push_back({"DynamicQuantize f16 to u4", o, {"output 0 (dst) of type u4"}});
    }
    {
        op o = with_attr(valid_quantize(), "qtype", "per_group");
        o.set_attr(op::attr::group_shape, std::vector<int64_t> {1, 3});
        v.push_back({"Quantize per_group", o,
                {"Quantize 'q' (id 0)", "qtype per_group is not implemented"}});
        op dyn = with_attr(valid_dynamic_quantize(), "qtype", "per_group");
        dyn = with_input(dyn, 1, dense(2, dt::f32, {2, 1}));
        dyn = with_input(dyn, 2, dense(3, dt::u8, {2, 1}));
        dyn.set_attr(op::attr::group_shape, std::vector<int64_t> {1, 3});
        v.push_back({"DynamicQuantize per_group", dyn, {"qtype per_group is not implemented"}});
    }
    {
        // Blocked ONNX quantization: scale 2x... with block_size along axis 1.
        op o(0, op::kind::QuantizeLinear,
                {dense(1, dt::f32, {2, 4}), dense(2, dt::f32, {2, 2}), dense(3, dt::u8, {2, 2})},
                {dense(4, dt::u8, {2, 4})}, "ql");
        o.set_attr(op::attr::axis, 1);
        o.set_attr(op::attr::block_size, 2);
        v.push_back({"QuantizeLinear block_size", o,
                {"QuantizeLinear 'ql' (id 0)", "attribute 'block_size' is not implemented"}});
        op s16(0, op::kind::QuantizeLinear,
                {dense(1, dt::f32, d), dense(2, dt::f32, {}), dense(3, dt::s16, {})},
                {dense(4, dt::s16, d)}, "ql");
        v.push_back({"QuantizeLinear to s16", s16, {"s16", "is not implemented"}});
        op f8(0, op::kind::QuantizeLinear,
                {dense(1, dt::f32, d), dense(2, dt::f32, {}), dense(3, dt::f8_e4m3, {})},
                {dense(4, dt::f8_e4m3, d)}, "ql");
        v.push_back({"QuantizeLinear to f8_e4m3", f8, {"f8_e4m3", "is not implemented"}});
        op bf(0, op::kind::QuantizeLinear,
                {dense(1, dt::bf16, d), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
                {dense(4, dt::u8, d)}, "ql");
        v.push_back({"QuantizeLinear from bf16", bf,
                {"input 0 (x) of type bf16 is not implemented", "only f32 or s32"}});
        // Later opsets give the scale x's type; f32 scales with f16 x are unimplemented too.
        op hf = with_input(bf, 0, dense(1, dt::f16, d));
        v.push_back({"QuantizeLinear from f16", hf, {"input 0 (x) of type f16"}});
        hf = with_input(hf, 1, dense(2, dt::f16, {}));
        v.push_back({"QuantizeLinear f16 x and scale", hf, {"input 0 (x) of type f16"}});
        op fs = with_input(valid_quantize_linear(), 1, dense(2, dt::bf16, {}));
        v.push_back({"QuantizeLinear bf16 scale", fs, {"input 1 (y_scale) of type bf16"}});
        op od = with_attr(valid_quantize_linear(), "output_dtype", int64_t(3));
        v.push_back({"QuantizeLinear output_dtype", od,
                {"attribute 'output_dtype' is not implemented"}});
        op pr = with_attr(valid_quantize_linear(), "precision", int64_t(1));
        v.push_back({"QuantizeLinear precision", pr, {"attribute 'precision' is not implemented"}});
    }
    {
        op o = with_output(valid_dequantize_linear(), 0, dense(4, dt::f16, d));
        v.push_back({"DequantizeLinear to f16", o,
                {"DequantizeLinear 'dql' (id 0)", "output 0 (y) of type f16 is not implemented",
                        "only f32"}});
        o = with_output(valid_dequantize_linear(), 0, dense(4, dt::bf16, d));
        v.push_back({"DequantizeLinear to bf16", o, {"output 0 (y) of type bf16"}});
        o = with_input(valid_dequantize_linear(), 1, dense(2, dt::f16, {}));
        v.push_back({"DequantizeLinear f16 scale", o, {"input 1 (x_scale) of type f16"}});
        op s4(0, op::kind::DequantizeLinear,
                {dense(1, dt::s4, d), dense(2, dt::f32, {}), dense(3, dt::s4, {})},
                {dense(4, dt::f32, d)}, "dql");
        v.push_back({"DequantizeLinear from s4", s4, {"input 0 (x) of type s4"}});
        op u16(0, op::kind::DequantizeLinear, {dense(1, dt::u16, d), dense(2, dt::f32, {})},
                {dense(4, dt::f32, d)}, "dql");
        v.push_back({"DequantizeLinear from u16", u16, {"input 0 (x) of type u16"}});
    }
    return v;
}

TEST(Unsupported, AcceptedButNotSupported) {
    for (const unsupported_case &c : cases()) {
        SCOPED_TRACE(c.label);
        qgraph::graph g(qgraph::engine::kind::cpu);
        ASSERT_NO_THROW(g.add_op(c.o));
        ASSERT_NO_THROW(g.finalize());
        std::vector<qgraph::partition> parts = g.get_partitions();
        ASSERT_EQ(parts.size(), 1u);
        EXPECT_FALSE(parts[0].is_supported());
        const std::string reason = parts[0].get_unsupported_reason();
        EXPECT_FALSE(reason.empty());
        for (const std::string &f : c.reason)
            EXPECT_NE(reason.find(f), std::string::npos)
                    << "reason lacks \"" << f << "\": " << reason;
    }
}

TEST(Unsupported, CompileThrowsUnimplementedWithTheReason) {
    for (const unsupported_case &c : cases()) {
        SCOPED_TRACE(c.label);
        qgraph::partition p = partition_of(c.o);
        const std::string reason = p.get_unsupported_reason();
        EXPECT_QG_ERROR(p.compile(c.o.get_input_logical_tensors(),
                                c.o.get_output_logical_tensors(), cpu()),
                status::unimplemented, reason);
    }
}

TEST(Unsupported, NonQuantizationOpKinds) {
    // Other oneDNN kinds load; their partitions are unsupported and compile is unimplemented.
    for (op::kind k : {op::kind::MatMul, op::kind::ReLU, op::kind::TypeCast,
                 op::kind::StaticTranspose, op::kind::Convolution, op::kind::Wildcard}) {
        SCOPED_TRACE(qgraph::to_string(k));
        op o(0, k, {dense(1, dt::f32, shape23()), dense(2, dt::f32, {3, 3})},
                {dense(3, dt::f32, shape23())}, "other");
        o.set_attr("transpose_a", false); // arbitrary attributes are kept, not checked
        o.set_attr("some_list", std::vector<int64_t> {1, 2});
        qgraph::partition p = partition_of(o);
        EXPECT_FALSE(p.is_supported());
        EXPECT_NE(p.get_unsupported_reason().find(std::string("op kind ") + qgraph::to_string(k)
                          + " is not implemented"),
                std::string::npos)
                << p.get_unsupported_reason();
        EXPECT_EQ(p.get_op_kinds(), std::vector<op::kind> {k});
        EXPECT_QG_ERROR(p.compile(o.get_input_logical_tensors(), o.get_output_logical_tensors(),
                                cpu()),
                status::unimplemented, "not implemented");
    }
}

TEST(Unsupported, OtherKindsWithoutOutputsLoad) {
    // oneDNN's End has one input and no outputs; any other kind is kept unchecked as well.
    for (op::kind k : {op::kind::End, op::kind::Add}) {
        op o(0, k, {dense(1, dt::f32, {2})}, {}, "x");
        qgraph::partition p = partition_of(o);
        EXPECT_FALSE(p.is_supported());
        EXPECT_TRUE(p.get_output_ports().empty());
        EXPECT_NE(p.get_unsupported_reason().find("is not implemented"), std::string::npos);
    }
}

} // namespace
