// The rewrite of a fused chain's problems (src/passes/chain_rewrite): which neighbouring
// problems merge into one, what the merged problem is, and which stay apart. That the merged
// problems give the chain's bits is tested end to end in tests/api/test_fused_partitions.cpp
// and, for the kernels' new stages, in tests/jit.

#include <gtest/gtest.h>

#include "api/valid_ops.hpp"
#include "backends/problem.hpp"
#include "passes/chain_rewrite.hpp"
#include "passes/lowering.hpp"

namespace {

using namespace qtest;
using qgraph::impl::chain_stage;
using qgraph::impl::common_refinement;
using qgraph::impl::fold_data_movement;
using qgraph::impl::kept_whole;
using qgraph::impl::lower_op;
using qgraph::impl::param_dim;
using qgraph::impl::param_source;
using qgraph::impl::q_kind;
using qgraph::impl::quant_problem;
using qgraph::impl::rewrite_chain;

/// Dequantize u8 -> f32 (ids 0 -> 1) over d, per-channel along axis 1.
quant_problem dequantize(const dims &d) {
    op o(0, op::kind::Dequantize, {dense(0, dt::u8, d)}, {dense(1, dt::f32, d)}, "dq");
    o.set_attr(op::attr::qtype, std::string("per_channel"));
    o.set_attr(op::attr::axis, int64_t(1));
    o.set_attr(op::attr::scales, std::vector<float>(static_cast<size_t>(d[1]), 0.5f));
    o.set_attr(op::attr::zps, std::vector<int64_t>(static_cast<size_t>(d[1]), 3));
    return lower_op(o);
}

/// Quantize f32 -> s8 (ids 0 -> 1) over d, per-channel along `axis` or per-tensor (-1).
quant_problem quantize(const dims &d, int axis) {
    const size_t ch = axis < 0 ? 1 : static_cast<size_t>(d[static_cast<size_t>(axis)]);
    op o(0, op::kind::Quantize, {dense(0, dt::f32, d)}, {dense(1, dt::s8, d)}, "q");
    o.set_attr(op::attr::qtype, std::string(axis < 0 ? "per_tensor" : "per_channel"));
    if (axis >= 0) o.set_attr(op::attr::axis, int64_t(axis));
    o.set_attr(op::attr::scales, std::vector<float>(ch, 0.25f));
    o.set_attr(op::attr::zps, std::vector<int64_t>(ch, -3));
    return lower_op(o);
}

/// Dequantize of q's result (s8, id 1 -> f32, id 2) with other parameters along `axis`.
quant_problem dequantize_of(const quant_problem &q, int axis) {
    const dims &d = q.orig_dims;
    const size_t ch = axis < 0 ? 1 : static_cast<size_t>(d[static_cast<size_t>(axis)]);
    op o(1, op::kind::Dequantize, {dense(1, dt::s8, d)}, {dense(2, dt::f32, d)}, "dq");
    o.set_attr(op::attr::qtype, std::string(axis < 0 ? "per_tensor" : "per_channel"));
    if (axis >= 0) o.set_attr(op::attr::axis, int64_t(axis));
    o.set_attr(op::attr::scales, std::vector<float>(ch, 0.3f));
    o.set_attr(op::attr::zps, std::vector<int64_t>(ch, 5));
    return lower_op(o);
}

/// TypeCast f32 (id 1, dense) -> `to` (id 2, `dst`).
quant_problem typecast(const lt &dst) {
    return lower_op(op(1, op::kind::TypeCast, {dense(1, dt::f32, dst.get_dims())}, {dst}, "tc"));
}

TEST(ChainRewrite, DequantizeThenTypeCastIsOneDequantize) {
    const dims d {2, 3, 4};
    const quant_problem dq = dequantize(d);
    const std::vector<chain_stage> s = rewrite_chain({dq, typecast(dense(2, dt::bf16, d))});
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].problem.kind, q_kind::dequantize);
    EXPECT_EQ(s[0].problem.src_dt, dt::u8);
    EXPECT_EQ(s[0].problem.dst_dt, dt::bf16);
    EXPECT_EQ(s[0].problem.dims, dq.dims);
    EXPECT_EQ(s[0].problem.scale_src, param_source::attr);
    EXPECT_EQ(s[0].problem.zps, dq.zps);
    EXPECT_EQ(s[0].problem.channel_dim(), dq.channel_dim());
    EXPECT_EQ(s[0].src_op, 0u);
    EXPECT_EQ(s[0].dst_op, 1u);
    EXPECT_EQ(s[0].params_op, 0u);
}

TEST(ChainRewrite, MergedProblemWritesTheTypeCastsLayout) {
    // TypeCast's dst in NHWC memory: the dequantize writes there directly.
    const dims d {2, 3, 4, 5};
    const std::vector<chain_stage> s = rewrite_chain(
            {dequantize(d), typecast(strided(2, dt::f16, d, {60, 1, 15, 3}))});
    ASSERT_EQ(s.size(), 1u);
    EXPECT_EQ(s[0].problem.dst_dt, dt::f16);
    EXPECT_EQ(s[0].problem.orig_dst_strides, (dims {60, 1, 15, 3}));
    EXPECT_EQ(s[0].problem.orig_src_strides, (dims {60, 20, 5, 1}));
    EXPECT_EQ(s[0].problem.dims, (dims {2, 3, 20})); // H and W merge in both layouts
    EXPECT_EQ(s[0].problem.dst_strides, (dims {60, 1, 3}));
}

TEST(ChainRewrite, TypeCastThenQuantizeIsOneQuantizeOfTheRoundedSource) {
    // TypeCast f32 (id 0, NHWC memory) -> bf16 (id 1) -> QuantizeLinear u8 with the scales
    // and zero point of op 1, per-channel along axis 1.
    const dims d {2, 3, 4, 5};
    const lt x = strided(0, dt::f32, d, {60, 1, 15, 3}), mid = dense(1, dt::bf16, d);
    const quant_problem cast = lower_op(op(0, op::kind::TypeCast, {x}, {mid}, "tc"));
    op ql(1, op::kind::QuantizeLinear,
            {mid, dense(2, dt::f32, {3}), dense(3, dt::u8, {3})}, {dense(4, dt::u8, d)}, "ql");
    ql.set_attr(op::attr::axis, int64_t(1));
    const quant_problem q = lower_op(ql);
    const std::vector<chain_stage> s = rewrite_chain({cast, q});
    ASSERT_EQ(s.size(), 1u);
    const quant_problem &m = s[0].problem;
    EXPECT_EQ(m.kind, q_kind::quantize);
    EXPECT_EQ(m.src_dt, dt::f32);
    EXPECT_EQ(m.src_round_dt, dt::bf16);
    EXPECT_EQ(m.dst_dt, dt::u8);
    EXPECT_EQ(m.orig_src_strides, (dims {60, 1, 15, 3}));
    EXPECT_EQ(m.orig_dst_strides, q.orig_dst_strides);
    EXPECT_EQ(m.scale_src, param_source::input);
    EXPECT_EQ(m.zp_src, param_source::input);
    EXPECT_EQ(m.orig_axis(), 1);
    EXPECT_EQ(m.div_dt, q.div_dt);
    EXPECT_EQ(m.describe().find("QuantizeLinear f32(bf16):u8 per_channel(axis 1)"), 0u)
            << m.describe();
    EXPECT_EQ(s[0].src_op, 0u);
    EXPECT_EQ(s[0].dst_op, 1u);
    EXPECT_EQ(s[0].params_op, 1u); // the quantize's parameters, not the TypeCast's (none)
}

TEST(ChainRewrite, OtherChainsStayApart) {
    const dims d {2, 3, 4};
    // The dequantize rounds to bf16 first: widening that back is a second step.
    quant_problem to_bf16 = dequantize(d);
    to_bf16.dst_dt = dt::bf16;
    const quant_problem widen = lower_op(op(1, op::kind::TypeCast, {dense(1, dt::bf16, d)},
            {dense(2, dt::f32, d)}, "tc"));
    EXPECT_EQ(rewrite_chain({to_bf16, widen}).size(), 2u);
    // A transpose reads the intermediate out of order.
    op t(1, op::kind::StaticTranspose, {dense(1, dt::f32, d)}, {dense(2, dt::f32, {4, 3, 2})},
            "t");
    t.set_attr("order", std::vector<int64_t> {2, 1, 0});
    EXPECT_EQ(rewrite_chain({dequantize(d), lower_op(t)}).size(), 2u);
    // Quantize -> dequantize with parameters on another map stays two stages, each with its
    // own tensors.
    const quant_problem q = quantize(d, 1);
    const std::vector<chain_stage> s = rewrite_chain({q, dequantize_of(q, -1)});
    ASSERT_EQ(s.size(), 2u);
    EXPECT_EQ(s[0].dst_op, 0u);
    EXPECT_EQ(s[1].src_op, 1u);
    EXPECT_EQ(s[1].params_op, 1u);
    // So does one with runtime parameters: QuantizeLinear -> DequantizeLinear.
    const lt mid = dense(1, dt::u8, d), sc = dense(10, dt::f32, {}), zp = dense(11, dt::u8, {});
    const quant_problem ql = lower_op(
            op(0, op::kind::QuantizeLinear, {dense(0, dt::f32, d), sc, zp}, {mid}, "ql"));
    const quant_problem dql = lower_op(
            op(1, op::kind::DequantizeLinear, {mid, sc, zp}, {dense(2, dt::f32, d)}, "dql"));
    EXPECT_EQ(rewrite_chain({ql, dql}).size(), 2u);
}

TEST(ChainRewrite, QuantizeThenDequantizeIsOneFakeQuantize) {
    const dims d {2, 3, 4};
    for (int axis : {-1, 1}) {
        const quant_problem q = quantize(d, axis);
        const quant_problem dq = dequantize_of(q, axis);
        const std::vector<chain_stage> s = rewrite_chain({q, dq});
        ASSERT_EQ(s.size(), 1u);
        const quant_problem &m = s[0].problem;
        EXPECT_EQ(m.kind, q_kind::quantize);
        EXPECT_TRUE(m.fake_quantize());
        EXPECT_EQ(m.src_dt, dt::f32);
        EXPECT_EQ(m.quantized_dt(), dt::s8);
        EXPECT_EQ(m.dst_dt, dt::f32);
        EXPECT_EQ(m.scales, q.scales);
        EXPECT_EQ(m.zps, q.zps);
        EXPECT_EQ(m.dequantize_after.scales, dq.scales);
        EXPECT_EQ(m.dequantize_after.zps, dq.zps);
        EXPECT_EQ(m.channel_dim(), q.channel_dim());
        EXPECT_EQ(m.describe().find("Quantize+Dequantize f32:s8:f32 "), 0u) << m.describe();
        EXPECT_EQ(s[0].src_op, 0u);
        EXPECT_EQ(s[0].dst_op, 1u);
        EXPECT_EQ(s[0].params_op, 0u);
        // Left apart when asked (no generated code takes the merged problem).
        EXPECT_EQ(rewrite_chain({q, dq}, /*fake_quantize=*/false).size(), 2u);
    }
}

/// StaticTranspose of a dense f32 (id 1, d) by `order` to a dense f32 (id 2).
quant_problem transpose(const dims &d, const std::vector<int64_t> &order) {
    dims e;
    for (int64_t a : order) e.push_back(d[static_cast<size_t>(a)]);
    op o(1, op::kind::StaticTranspose, {dense(1, dt::f32, d)}, {dense(2, dt::f32, e)}, "t");
    o.set_attr("order", order);
    return lower_op(o);
}

/// Quantize f32 (id 2, dense over e) -> s8 (id 3, `dst`), per-tensor.
quant_problem quantize(const lt &dst) {
    op o(2, op::kind::Quantize, {dense(2, dt::f32, dst.get_dims())}, {dst}, "q");
    o.set_attr(op::attr::scales, std::vector<float> {0.25f});
    o.set_attr(op::attr::zps, std::vector<int64_t> {0});
    return lower_op(o);
}

TEST(ChainRewrite, TransposeFoldsIntoTheDequantizesIndexSpace) {
    // NCHW 2x3x4x5 to NHWC: the Dequantize over the transposed dims reads NCHW memory
    // through permuted strides, its channel on the transposed axis 3, and writes the
    // transpose's dense result.
    const dims d {2, 3, 4, 5}, e {2, 4, 5, 3};
    std::vector<quant_problem> chain {
            dequantize(d), transpose(d, {0, 2, 3, 1}), quantize(dense(3, dt::s8, e))};
    const quant_problem q = chain[2];
    EXPECT_EQ(fold_data_movement(chain), (std::vector<size_t> {0, 2}));
    ASSERT_EQ(chain.size(), 2u);
    const quant_problem &dq = chain[0];
    EXPECT_EQ(dq.kind, q_kind::dequantize);
    EXPECT_EQ(dq.orig_dims, e);
    EXPECT_EQ(dq.orig_src_strides, (dims {60, 5, 1, 20}));
    EXPECT_EQ(dq.orig_dst_strides, (dims {60, 15, 3, 1}));
    EXPECT_EQ(dq.orig_axis(), 3);
    EXPECT_EQ(dq.orig_params[3].scale_stride, 1);
    EXPECT_EQ(chain[1].orig_dims, q.orig_dims);
}

TEST(ChainRewrite, OnlyAMovementBetweenTwoProblemsFolds) {
    // A movement at either end writes or reads a user's tensor: it stays. A TypeCast
    // changes the type: it stays.
    const dims d {2, 3, 4, 5};
    std::vector<quant_problem> chain {dequantize(d), transpose(d, {0, 2, 3, 1})};
    EXPECT_EQ(fold_data_movement(chain), (std::vector<size_t> {0, 1}));
    EXPECT_EQ(chain.size(), 2u);
    chain = {dequantize(d), typecast(dense(2, dt::bf16, d)), dequantize(d)};
    EXPECT_EQ(fold_data_movement(chain), (std::vector<size_t> {0, 1, 2}));
}

TEST(ChainRewrite, CommonRefinementOfTwoShapes) {
    dims c;
    ASSERT_TRUE(common_refinement({1, 64, 7, 7}, {1, 3136}, c));
    EXPECT_EQ(c, (dims {64, 7, 7}));
    ASSERT_TRUE(common_refinement({6, 10, 3}, {3, 2, 5, 6}, c));
    EXPECT_EQ(c, (dims {3, 2, 5, 2, 3}));
    EXPECT_FALSE(kept_whole({6, 10, 3}, 1, c)); // 10 cut into 5 x 2
    EXPECT_FALSE(kept_whole({6, 10, 3}, 0, c)); // 6 cut into 3 x 2
    EXPECT_TRUE(kept_whole({6, 10, 3}, 2, c) && kept_whole({3, 2, 5, 6}, 2, c));
    EXPECT_FALSE(common_refinement({2, 3}, {3, 2}, c)); // cut points 2 and 3
    EXPECT_FALSE(common_refinement({6, 4}, {4, 6}, c));
    EXPECT_FALSE(common_refinement({2, 3}, {7}, c)); // element counts differ
    EXPECT_FALSE(common_refinement({int64_t(1) << 40, int64_t(1) << 40}, {1}, c)); // overflow
    ASSERT_TRUE(common_refinement({0, 3}, {3, 0, 2}, c));
    EXPECT_EQ(c, (dims {0}));
    ASSERT_TRUE(common_refinement({}, {1, 1}, c)); // one element: no dim at all
    EXPECT_EQ(c, dims {});
}

TEST(ChainRewrite, ReshapeFoldsAsAView) {
    // 2x3x4x5 per channel on 3 -> 6x20 -> Quantize into a padded 6x20: both problems over the
    // refinement 2x3x4x5; the Quantize's rows cut into 4x5, each stepping as the row did.
    const dims d {2, 3, 4, 5}, e {6, 20};
    op rs(1, op::kind::StaticReshape, {dense(1, dt::f32, d)}, {dense(2, dt::f32, e)}, "rs");
    rs.set_attr("shape", std::vector<int64_t>(e));
    rs.set_attr("special_zero", false);
    std::vector<quant_problem> chain {dequantize(d), lower_op(rs),
            quantize(strided(3, dt::s8, e, {24, 1}))};
    EXPECT_EQ(fold_data_movement(chain), (std::vector<size_t> {0, 2}));
    ASSERT_EQ(chain.size(), 2u);
    EXPECT_EQ(chain[0].orig_dims, d);
    EXPECT_EQ(chain[0].orig_axis(), 1);
    EXPECT_EQ(chain[0].orig_dst_strides, (dims {60, 20, 5, 1}));
    EXPECT_EQ(chain[1].orig_dims, d);
    EXPECT_EQ(chain[1].orig_src_strides, (dims {60, 20, 5, 1}));
    EXPECT_EQ(chain[1].orig_dst_strides, (dims {72, 24, 5, 1}));
    // 2x6x10 -> 4x3x10 refines to 2x2x3x10, which cuts the Dequantize's 6 channels into
    // 2x3: the reshape stays.
    const dims f {2, 6, 10};
    op cut(1, op::kind::StaticReshape, {dense(1, dt::f32, f)}, {dense(2, dt::f32, {4, 3, 10})},
            "rs");
    cut.set_attr("shape", std::vector<int64_t> {4, 3, 10});
    cut.set_attr("special_zero", false);
    chain = {dequantize(f), lower_op(cut), quantize(dense(3, dt::s8, {4, 3, 10}))};
    EXPECT_EQ(fold_data_movement(chain), (std::vector<size_t> {0, 1, 2}));
}

} // namespace
