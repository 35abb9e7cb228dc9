// Valid by the op specifications but not implemented (static Quantize / Dequantize per_group,
// whose scales are an attribute without a shape; QuantizeLinear's integer y_scale): add_op and
// finalize accept the op, the partition reports is_supported() == false with a reason naming
// the op and what is missing, and compile throws unimplemented with that reason. (Every other
// type and granularity runs: tests/api/test_half_ops.cpp, test_schema_opsets.cpp.)

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
    std::vector<unsupported_case> v;
    op o = with_attr(valid_quantize(), "qtype", "per_group");
    o.set_attr(op::attr::group_shape, std::vector<int64_t> {1, 3});
    v.push_back({"Quantize per_group", o,
            {"Quantize 'q' (id 0)", "qtype per_group is not implemented"}});
    o = with_attr(valid_dequantize(), "qtype", "per_group");
    o.set_attr(op::attr::group_shape, std::vector<int64_t> {1, 3});
    v.push_back({"Dequantize per_group", o,
            {"Dequantize 'dq' (id 0)", "qtype per_group is not implemented"}});
    // ONNX 19 to 22 give y_scale x's type, s32 included.
    const dims d = shape23();
    op s32(0, op::kind::QuantizeLinear,
            {dense(1, dt::s32, d), dense(2, dt::s32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, d)}, "ql");
    s32.set_attr("opset", int64_t(21));
    v.push_back({"QuantizeLinear s32 scale", s32,
            {"QuantizeLinear 'ql' (id 0)", "input 1 (y_scale) of type s32 is not implemented"}});
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
    for (op::kind k : {op::kind::MatMul, op::kind::ReLU, op::kind::SoftMax,
                 op::kind::Concat, op::kind::Convolution, op::kind::Wildcard}) {
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
