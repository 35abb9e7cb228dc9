// add_op schema checks shared by all seven quantization ops: port counts, port data types,
// shapes (output mismatch, negative dims, stride counts). Each error names the op
// ("Kind 'name' (id 0)") and the port.

#include <gtest/gtest.h>

#include "api/valid_ops.hpp"

namespace {

using namespace qtest;

struct op_ports {
    const char *label;
    op (*make)();
    std::string desc; ///< how messages name the op
    const char *inputs_expected; ///< "expected ..." of the input count message
    const char *outputs_expected;
    const char *in0; ///< name of input 0 in messages
    dt bad_in0; ///< a type input 0 does not allow
    const char *out0;
    dt bad_out0;
};

const std::vector<op_ports> &all_ops() {
    static const std::vector<op_ports> v = {
            {"Quantize", valid_quantize, "Quantize 'q' (id 0)", "expected 1", "expected 1",
                    "input 0 (src)", dt::s8, "output 0 (dst)", dt::f32},
            {"Dequantize", valid_dequantize, "Dequantize 'dq' (id 0)", "expected 1",
                    "expected 1", "input 0 (src)", dt::f32, "output 0 (dst)", dt::u8},
            {"DynamicQuantize", valid_dynamic_quantize, "DynamicQuantize 'dyq' (id 0)",
                    "expected 2 to 3", "expected 1", "input 0 (src)", dt::s8, "output 0 (dst)",
                    dt::f32},
            {"DynamicDequantize", valid_dynamic_dequantize, "DynamicDequantize 'dydq' (id 0)",
                    "expected 2 to 3", "expected 1", "input 0 (src)", dt::f32, "output 0 (dst)",
                    dt::s8},
            {"QuantizeLinear", valid_quantize_linear, "QuantizeLinear 'ql' (id 0)",
                    "expected 2 to 3", "expected 1", "input 0 (x)", dt::u8, "output 0 (y)",
                    dt::f32},
            {"DequantizeLinear", valid_dequantize_linear, "DequantizeLinear 'dql' (id 0)",
                    "expected 2 to 3", "expected 1", "input 0 (x)", dt::f32, "output 0 (y)",
                    dt::u8},
            {"DynamicQuantizeLinear", valid_dynamic_quantize_linear,
                    "DynamicQuantizeLinear 'dyql' (id 0)", "expected 1", "expected 3",
                    "input 0 (x)", dt::u8, "output 0 (y)", dt::f32},
    };
    return v;
}

TEST(SchemaPorts, ValidOpsAreAcceptedAndSupported) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        qgraph::partition part = partition_of(p.make());
        EXPECT_TRUE(part.is_supported()) << part.get_unsupported_reason();
        EXPECT_EQ(part.get_unsupported_reason(), "");
    }
}

TEST(SchemaPorts, NoInputs) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        EXPECT_QG_ERROR(add(with_inputs(p.make(), {})), status::invalid_graph_op, p.desc,
                "has 0 inputs", p.inputs_expected);
    }
}

TEST(SchemaPorts, TooManyInputs) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        op o = p.make();
        std::vector<lt> ins = o.get_input_logical_tensors();
        // One more than the schema allows (the optional zero point included).
        const size_t max = std::string(p.inputs_expected) == "expected 1" ? 1 : 3;
        while (ins.size() <= max) ins.push_back(dense(90 + ins.size(), dt::f32, {}));
        EXPECT_QG_ERROR(add(with_inputs(o, ins)), status::invalid_graph_op, p.desc,
                "has " + std::to_string(max + 1) + " inputs", p.inputs_expected);
    }
}

TEST(SchemaPorts, RequiredInputMissing) {
    // The two-to-three-input ops with only x: the scale is required.
    for (const op_ports &p : all_ops()) {
        if (std::string(p.inputs_expected) != "expected 2 to 3") continue;
        SCOPED_TRACE(p.label);
        op o = p.make();
        EXPECT_QG_ERROR(add(with_inputs(o, {o.get_input_logical_tensors()[0]})),
                status::invalid_graph_op, p.desc, "has 1 inputs", "expected 2 to 3");
    }
}

TEST(SchemaPorts, NoOutputs) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        EXPECT_QG_ERROR(add(with_outputs(p.make(), {})), status::invalid_graph_op, p.desc,
                "has 0 outputs", p.outputs_expected);
    }
}

TEST(SchemaPorts, TooManyOutputs) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        op o = p.make();
        std::vector<lt> outs = o.get_output_logical_tensors();
        const size_t n = outs.size() + 1;
        outs.push_back(dense(99, dt::u8, {}));
        EXPECT_QG_ERROR(add(with_outputs(o, outs)), status::invalid_graph_op, p.desc,
                "has " + std::to_string(n) + " outputs", p.outputs_expected);
    }
}

TEST(SchemaPorts, WrongInputDataType) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        op o = p.make();
        EXPECT_QG_ERROR(add(with_input(o, 0, dense(1, p.bad_in0, shape23()))),
                status::invalid_data_type, p.desc, p.in0,
                std::string("data type ") + qgraph::to_string(p.bad_in0) + " is not allowed");
    }
}

TEST(SchemaPorts, WrongOutputDataType) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        op o = p.make();
        const size_t id = o.get_output_logical_tensors()[0].get_id();
        EXPECT_QG_ERROR(add(with_output(o, 0, dense(id, p.bad_out0, shape23()))),
                status::invalid_data_type, p.desc, p.out0,
                std::string("data type ") + qgraph::to_string(p.bad_out0) + " is not allowed");
    }
}

TEST(SchemaPorts, UndefDataTypeIsRejected) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        EXPECT_QG_ERROR(add(with_input(p.make(), 0, dense(1, dt::undef, shape23()))),
                status::invalid_data_type, p.desc, p.in0, "undef");
    }
}

TEST(SchemaPorts, ScaleAndZeroPointDataTypes) {
    // Port 1 must be a float type (f32 / bf16 / f16), port 2 a quantized integer type.
    const struct {
        op (*make)();
        const char *desc;
        const char *scale_port;
        const char *zp_port;
    } cases[] = {
            {valid_dynamic_quantize, "DynamicQuantize 'dyq' (id 0)", "input 1 (scales)",
                    "input 2 (zps)"},
            {valid_dynamic_dequantize, "DynamicDequantize 'dydq' (id 0)", "input 1 (scales)",
                    "input 2 (zps)"},
            {valid_quantize_linear, "QuantizeLinear 'ql' (id 0)", "input 1 (y_scale)",
                    "input 2 (y_zero_point)"},
            {valid_dequantize_linear, "DequantizeLinear 'dql' (id 0)", "input 1 (x_scale)",
                    "input 2 (x_zero_point)"},
    };
    for (const auto &c : cases) {
        SCOPED_TRACE(c.desc);
        op o = c.make();
        const lt &s = o.get_input_logical_tensors()[1];
        const lt &z = o.get_input_logical_tensors()[2];
        EXPECT_QG_ERROR(add(with_input(o, 1, dense(s.get_id(), dt::s8, s.get_dims()))),
                status::invalid_data_type, c.desc, c.scale_port, "s8 is not allowed");
        EXPECT_QG_ERROR(add(with_input(o, 2, dense(z.get_id(), dt::f32, z.get_dims()))),
                status::invalid_data_type, c.desc, c.zp_port, "f32 is not allowed");
    }
}

TEST(SchemaPorts, DynamicQuantizeLinearOutputTypes) {
    const op o = valid_dynamic_quantize_linear();
    EXPECT_QG_ERROR(add(with_output(o, 1, dense(3, dt::f16, {}))), status::invalid_data_type,
            "DynamicQuantizeLinear 'dyql' (id 0)", "output 1 (y_scale)", "f16");
    EXPECT_QG_ERROR(add(with_output(o, 2, dense(4, dt::s8, {}))), status::invalid_data_type,
            "DynamicQuantizeLinear 'dyql' (id 0)", "output 2 (y_zero_point)", "s8");
    // ONNX's DynamicQuantizeLinear takes f32 only.
    EXPECT_QG_ERROR(add(with_input(o, 0, dense(1, dt::bf16, shape23()))),
            status::invalid_data_type, "DynamicQuantizeLinear 'dyql' (id 0)", "input 0 (x)",
            "bf16");
}

TEST(SchemaPorts, MismatchedOutputShape) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        op o = p.make();
        const lt &y = o.get_output_logical_tensors()[0];
        EXPECT_QG_ERROR(add(with_output(o, 0, dense(y.get_id(), y.get_data_type(), {3, 2}))),
                status::invalid_shape, p.desc, p.out0, "3x2", "2x3");
    }
}

TEST(SchemaPorts, OutputRankMismatch) {
    const op o = valid_quantize();
    EXPECT_QG_ERROR(add(with_output(o, 0, dense(2, dt::u8, {6}))), status::invalid_shape,
            "Quantize 'q' (id 0)", "output 0 (dst)", "has shape 6");
}

TEST(SchemaPorts, NegativeDimension) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        op o = p.make();
        const lt &x = o.get_input_logical_tensors()[0];
        EXPECT_QG_ERROR(add(with_input(o, 0, strided(1, x.get_data_type(), {2, -3}, {3, 1}))),
                status::invalid_shape, p.desc, p.in0, "negative dimension -3");
    }
}

TEST(SchemaPorts, StrideCountMustMatchRank) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        op o = p.make();
        const lt &x = o.get_input_logical_tensors()[0];
        EXPECT_QG_ERROR(add(with_input(o, 0, strided(1, x.get_data_type(), {2, 3}, {1}))),
                status::invalid_shape, p.desc, p.in0, "1 strides for 2 dims");
    }
}

TEST(SchemaPorts, OverflowingElementCount) {
    // 2^40 * 2^40 elements overflow int64.
    const lt huge = strided(1, dt::f32, {int64_t(1) << 40, int64_t(1) << 40},
            {int64_t(1) << 40, 1});
    EXPECT_QG_ERROR(add(with_input(valid_quantize(), 0, huge)), status::invalid_shape,
            "Quantize 'q' (id 0)", "input 0 (src)", "overflows int64");
}

TEST(SchemaPorts, OptionalZeroPointMayBeOmitted) {
    // DynamicQuantize / DynamicDequantize / DequantizeLinear / QuantizeLinear (u8 output).
    for (op (*make)() : {valid_dynamic_quantize, valid_dynamic_dequantize,
                 valid_quantize_linear, valid_dequantize_linear}) {
        op o = make();
        std::vector<lt> ins = o.get_input_logical_tensors();
        ins.pop_back();
        EXPECT_NO_THROW(add(with_inputs(o, ins))) << qgraph::to_string(o.get_kind());
    }
}

TEST(SchemaPorts, UnknownOutputShapeIsInferred) {
    for (const op_ports &p : all_ops()) {
        SCOPED_TRACE(p.label);
        op o = p.make();
        std::vector<lt> outs;
        for (const lt &t : o.get_output_logical_tensors())
            outs.push_back(unknown(t.get_id(), t.get_data_type()));
        qgraph::graph g(qgraph::engine::kind::cpu);
        g.add_op(with_outputs(o, outs));
        const std::vector<lt> got = g.get_ops().at(0).get_output_logical_tensors();
        ASSERT_EQ(got.size(), outs.size());
        EXPECT_EQ(got[0].get_dims(), shape23());
        EXPECT_EQ(got[0].get_strides(), (dims {3, 1}));
        // DynamicQuantizeLinear's y_scale and y_zero_point are 0-D.
        for (size_t i = 1; i < got.size(); ++i) {
            EXPECT_TRUE(got[i].has_known_shape());
            EXPECT_EQ(got[i].get_ndims(), 0);
        }
    }
}

} // namespace
