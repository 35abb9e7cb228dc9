// add_op rules of TypeCast, Reorder, StaticReshape and StaticTranspose (oneDNN Graph specs):
// the type pairs, the attributes and the output shapes they give, shape inference, and that
// each message names the op, the port or attribute and the rule.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "api/valid_ops.hpp"

namespace {

using namespace qtest;

const std::string tc_desc = "TypeCast 'tc' (id 0)";
const std::string r_desc = "Reorder 'r' (id 0)";
const std::string rs_desc = "StaticReshape 'rs' (id 0)";
const std::string t_desc = "StaticTranspose 't' (id 0)";

op typecast(dt s, dt d) {
    return op(0, op::kind::TypeCast, {dense(1, s, shape23())}, {dense(2, d, shape23())}, "tc");
}

op reshape(const dims &src, const dims &dst, const std::vector<int64_t> &shape, bool special_zero) {
    op o(0, op::kind::StaticReshape, {dense(1, dt::f32, src)}, {dense(2, dt::f32, dst)}, "rs");
    o.set_attr("shape", shape);
    o.set_attr("special_zero", special_zero);
    return o;
}

op transpose(const dims &src, const lt &dst, const std::vector<int64_t> &order) {
    op o(0, op::kind::StaticTranspose, {dense(1, dt::f32, src)}, {dst}, "t");
    o.set_attr("order", order);
    return o;
}

/// The output shape the graph infers for `o` (output given without a shape).
dims inferred(const op &o) {
    qgraph::graph g(qgraph::engine::kind::cpu);
    g.add_op(o);
    g.finalize();
    return g.get_ops().at(0).get_output_logical_tensors().at(0).get_dims();
}

TEST(SchemaDataMovement, TypeCastPairs) {
    for (dt t : {dt::bf16, dt::f16}) {
        EXPECT_NO_THROW(add(typecast(dt::f32, t)));
        EXPECT_NO_THROW(add(typecast(t, dt::f32)));
    }
    EXPECT_QG_ERROR(add(typecast(dt::bf16, dt::f16)), status::invalid_data_type, tc_desc,
            "input 0 (src) is bf16 and output 0 (dst) is f16: TypeCast converts f32 to bf16 or "
            "f16, or bf16 or f16 to f32");
    EXPECT_QG_ERROR(add(typecast(dt::f32, dt::f32)), status::invalid_data_type, tc_desc,
            "input 0 (src) is f32 and output 0 (dst) is f32");
    EXPECT_QG_ERROR(add(typecast(dt::u8, dt::f32)), status::invalid_data_type, tc_desc,
            "input 0 (src): data type u8 is not allowed (expected f32, bf16 or f16)");
    EXPECT_QG_ERROR(add(with_attr(typecast(dt::f32, dt::f16), "axis", int64_t(1))),
            status::invalid_graph_op, tc_desc, "unknown attribute 'axis' for TypeCast");
}

TEST(SchemaDataMovement, MovesKeepTheType) {
    EXPECT_QG_ERROR(add(op(0, op::kind::Reorder, {dense(1, dt::f32, shape23())},
                            {dense(2, dt::bf16, shape23())}, "r")),
            status::invalid_data_type, r_desc,
            "output 0 (dst) is bf16 but must be the type of input 0 (src), f32");
    op rs = reshape({2, 3}, {6}, {6}, false);
    EXPECT_QG_ERROR(add(with_output(rs, 0, dense(2, dt::f16, {6}))), status::invalid_data_type,
            rs_desc, "output 0 (dst) is f16 but must be the type of input 0 (src), f32");
    EXPECT_QG_ERROR(add(transpose({2, 3}, dense(2, dt::bf16, {3, 2}), {1, 0})),
            status::invalid_data_type, t_desc, "output 0 (dst) is bf16");
    EXPECT_QG_ERROR(add(op(0, op::kind::Reorder, {dense(1, dt::f32, shape23())},
                            {dense(2, dt::f32, {3, 2})}, "r")),
            status::invalid_shape, r_desc,
            "output 0 (dst) has shape 3x2 but must equal the input shape 2x3");
}

TEST(SchemaDataMovement, ReshapeShapeRules) {
    op unknown_out(0, op::kind::StaticReshape, {dense(1, dt::f32, {2, 3, 4})},
            {unknown(2, dt::f32)}, "rs");
    unknown_out.set_attr("shape", std::vector<int64_t> {4, -1});
    unknown_out.set_attr("special_zero", false);
    EXPECT_EQ(inferred(unknown_out), (dims {4, 6}));
    unknown_out.set_attr("shape", std::vector<int64_t> {0, -1, 1});
    unknown_out.set_attr("special_zero", true);
    EXPECT_EQ(inferred(unknown_out), (dims {2, 12, 1}));
    unknown_out.set_attr("special_zero", false); // then 0 is a dim of 0: 0 elements != 24
    EXPECT_QG_ERROR(add(unknown_out), status::invalid_graph_op, rs_desc,
            "attribute 'shape' 0x-1x1 holds 0 elements besides the -1, which cannot make 24");

    EXPECT_QG_ERROR(add(reshape({2, 3}, {4}, {4}, false)), status::invalid_graph_op, rs_desc,
            "attribute 'shape' 4 holds 4 elements but input 0 (src) 2x3 has 6");
    EXPECT_QG_ERROR(add(reshape({2, 3}, {6}, {-1, -1}, false)), status::invalid_graph_op, rs_desc,
            "attribute 'shape'[1] = -1: 'shape'[0] is -1 already (at most one dim is inferred)");
    EXPECT_QG_ERROR(add(reshape({2, 3}, {6}, {-2, -3}, false)), status::invalid_graph_op, rs_desc,
            "attribute 'shape'[0] = -2 must be -1, 0 or more");
    EXPECT_QG_ERROR(add(reshape({2, 3}, {6}, {4, -1}, false)), status::invalid_graph_op, rs_desc,
            "which cannot make 6");
    EXPECT_QG_ERROR(add(reshape({6}, {6, 1}, {6, 0}, true)), status::invalid_graph_op, rs_desc,
            "attribute 'shape'[1] = 0 with 'special_zero' copies src dim 1, but input 0 (src) "
            "has rank 1");
    EXPECT_QG_ERROR(add(reshape({2, 3}, {3, 2}, {6}, false)), status::invalid_shape, rs_desc,
            "output 0 (dst) has shape 3x2 but must equal the shape attribute 'shape' gives, 6");
    EXPECT_QG_ERROR(add(reshape({2, 3}, {6}, {int64_t(1) << 62, 4, -1}, false)),
            status::invalid_shape, rs_desc, "overflows int64");
    EXPECT_QG_ERROR(add(without_attr(reshape({2, 3}, {6}, {6}, false), "special_zero")),
            status::invalid_graph_op, rs_desc, "missing attribute 'special_zero'");
    EXPECT_QG_ERROR(add(with_attr(reshape({2, 3}, {6}, {6}, false), "special_zero", int64_t(0))),
            status::invalid_graph_op, rs_desc, "attribute 'special_zero' must be bool, got s64");
}

TEST(SchemaDataMovement, TransposeOrderRules) {
    EXPECT_EQ(inferred(transpose({2, 3, 5}, unknown(2, dt::f32), {2, -3, 1})), (dims {5, 2, 3}));
    EXPECT_QG_ERROR(add(transpose({2, 3}, unknown(2, dt::f32), {1, 0, 2})),
            status::invalid_graph_op, t_desc,
            "attribute 'order' has 3 values but input 0 (src) has rank 2");
    EXPECT_QG_ERROR(add(transpose({2, 3}, unknown(2, dt::f32), {0, 2})), status::invalid_graph_op,
            t_desc, "attribute 'order'[1] = 2 is out of range [-2, 1] for input 0 (src) of rank 2");
    EXPECT_QG_ERROR(add(transpose({2, 3}, unknown(2, dt::f32), {1, -1})), status::invalid_graph_op,
            t_desc,
            "attribute 'order'[1] = -1 names axis 1 twice: 'order' must be a permutation of "
            "input 0 (src)'s axes");
    EXPECT_QG_ERROR(add(transpose({2, 3}, dense(2, dt::f32, {2, 3}), {1, 0})),
            status::invalid_shape, t_desc,
            "output 0 (dst) has shape 2x3 but must equal input 0 (src) permuted by attribute "
            "'order', 3x2");
    EXPECT_QG_ERROR(add(without_attr(transpose({2, 3}, unknown(2, dt::f32), {1, 0}), "order")),
            status::invalid_graph_op, t_desc, "missing attribute 'order'");
}

TEST(SchemaDataMovement, ShapesPropagateThroughTheGraph) {
    // Reshape then transpose, the intermediate declared without a shape: finalize infers it
    // and the transpose's output from it.
    qgraph::graph g(qgraph::engine::kind::cpu);
    op rs(0, op::kind::StaticReshape, {dense(1, dt::f32, {2, 12})}, {unknown(2, dt::f32)}, "rs");
    rs.set_attr("shape", std::vector<int64_t> {2, 3, 4});
    rs.set_attr("special_zero", false);
    op t(1, op::kind::StaticTranspose, {unknown(2, dt::f32)}, {unknown(3, dt::f32)}, "t");
    t.set_attr("order", std::vector<int64_t> {2, 0, 1});
    g.add_op(rs);
    g.add_op(t);
    g.finalize();
    EXPECT_EQ(g.get_ops().at(1).get_output_logical_tensors().at(0).get_dims(), (dims {4, 2, 3}));
    for (const qgraph::partition &p : g.get_partitions()) EXPECT_TRUE(p.is_supported());
}

} // namespace
