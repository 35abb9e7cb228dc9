// Lowering to the canonical problem (src/passes/lowering): size-1 dims dropped, neighbours
// contiguous in both src and dst merged, the channel dim never merged, a size-1 channel dim
// made per-tensor, parameter sources and strides. Expected values worked out by hand from
// the rules in lowering.hpp / problem.hpp.

#include <gtest/gtest.h>

#include "api/valid_ops.hpp"
#include "backends/problem.hpp"
#include "common/dense_strides.hpp"
#include "passes/lowering.hpp"

namespace {

using namespace qtest;
using qgraph::impl::canonicalise;
using qgraph::impl::lower_op;
using qgraph::impl::param_dim;
using qgraph::impl::param_source;
using qgraph::impl::q_kind;
using qgraph::impl::quant_problem;

/// QuantizeLinear x (f32, given strides) -> y (u8, given strides), per-axis when axis >= -rank.
op qlinear(const dims &d, const dims &xs, const dims &ys, int64_t nscales = 1, int64_t axis = 1,
        const dims &scale_strides = {}) {
    const dims sd = nscales > 1 ? dims {nscales} : dims {};
    const lt scale = scale_strides.empty() ? dense(2, dt::f32, sd)
                                           : strided(2, dt::f32, sd, scale_strides);
    op o(0, op::kind::QuantizeLinear,
            {xs.empty() ? dense(1, dt::f32, d) : strided(1, dt::f32, d, xs), scale,
                    dense(3, dt::u8, sd)},
            {ys.empty() ? dense(4, dt::u8, d) : strided(4, dt::u8, d, ys)}, "ql");
    o.set_attr(op::attr::axis, axis);
    return o;
}

TEST(Lowering, DenseMergesToOneDim) {
    const quant_problem p = lower_op(qlinear({2, 3, 4, 5}, {}, {}));
    EXPECT_EQ(p.kind, q_kind::quantize);
    EXPECT_EQ(p.dims, (dims {120}));
    EXPECT_EQ(p.src_strides, (dims {1}));
    EXPECT_EQ(p.dst_strides, (dims {1}));
    EXPECT_EQ(p.channel_dim(), -1);
    EXPECT_EQ(p.nparams(), 1);
    EXPECT_EQ(p.nelems, 120);
    EXPECT_EQ(p.orig_dims, (dims {2, 3, 4, 5}));
    EXPECT_EQ(p.orig_axis(), -1);
    EXPECT_EQ(p.scale_src, param_source::input);
    EXPECT_EQ(p.zp_src, param_source::input);
    EXPECT_EQ(p.zp_dt, dt::u8);
}

TEST(Lowering, ChannelDimIsNeverMerged) {
    // axis 1 of 2x3x4x5: 2 | 3 (channel) | 4*5 merged -> {2, 3, 20}, strides {60, 20, 1}.
    quant_problem p = lower_op(qlinear({2, 3, 4, 5}, {}, {}, 3, 1));
    EXPECT_EQ(p.dims, (dims {2, 3, 20}));
    EXPECT_EQ(p.src_strides, (dims {60, 20, 1}));
    EXPECT_EQ(p.channel_dim(), 1);
    EXPECT_EQ(p.nparams(), 3);
    EXPECT_EQ(p.orig_axis(), 1);
    // axis 0: 2 (channel) | 3*4*5 -> {2, 60}.
    p = lower_op(qlinear({2, 3, 4, 5}, {}, {}, 2, 0));
    EXPECT_EQ(p.dims, (dims {2, 60}));
    EXPECT_EQ(p.src_strides, (dims {60, 1}));
    EXPECT_EQ(p.channel_dim(), 0);
    // axis 3 and -1: 2*3*4 merged | 5 (channel) -> {24, 5}, strides {5, 1}.
    for (int64_t axis : {3, -1}) {
        p = lower_op(qlinear({2, 3, 4, 5}, {}, {}, 5, axis));
        EXPECT_EQ(p.dims, (dims {24, 5}));
        EXPECT_EQ(p.src_strides, (dims {5, 1}));
        EXPECT_EQ(p.channel_dim(), 1);
        EXPECT_EQ(p.orig_axis(), 3);
        EXPECT_EQ(p.nparams(), 5);
    }
}

TEST(Lowering, SizeOneDimsAreDropped) {
    const quant_problem p = lower_op(qlinear({1, 3, 1, 4}, {}, {}));
    EXPECT_EQ(p.dims, (dims {12}));
    // Channel axis of size 1: per-tensor.
    op dyn(0, op::kind::DynamicQuantize,
            {dense(1, dt::f32, {2, 1, 3}), dense(2, dt::f32, {1}), dense(3, dt::u8, {1})},
            {dense(4, dt::u8, {2, 1, 3})}, "dyq");
    dyn.set_attr(op::attr::qtype, "per_channel");
    dyn.set_attr(op::attr::axis, 1);
    const quant_problem q = lower_op(dyn);
    EXPECT_EQ(q.channel_dim(), -1);
    EXPECT_EQ(q.orig_axis(), -1);
    EXPECT_EQ(q.nparams(), 1);
    EXPECT_EQ(q.dims, (dims {6}));
    // All dims 1 (and 0-D): no dims left, one element.
    const quant_problem r = lower_op(qlinear({1, 1}, {}, {}));
    EXPECT_TRUE(r.dims.empty());
    EXPECT_EQ(r.nelems, 1);
    const quant_problem z = lower_op(qlinear({}, {}, {}));
    EXPECT_TRUE(z.dims.empty());
    EXPECT_EQ(z.nelems, 1);
}

TEST(Lowering, MergingNeedsBothSrcAndDstContiguous) {
    // Transposed src (strides {1, 2}) and dense dst: nothing merges.
    quant_problem p = lower_op(qlinear({2, 3}, {1, 2}, {}));
    EXPECT_EQ(p.dims, (dims {2, 3}));
    EXPECT_EQ(p.src_strides, (dims {1, 2}));
    EXPECT_EQ(p.dst_strides, (dims {3, 1}));
    // Padded src rows (stride 8 for 5 columns): the two dims stay apart.
    p = lower_op(qlinear({4, 5}, {8, 1}, {}));
    EXPECT_EQ(p.dims, (dims {4, 5}));
    // Same padding on both sides of a 3-D tensor: the outer two merge (8*4 = 32), the
    // padded inner one does not: {3*4, 5}, src {8, 1}.
    p = lower_op(qlinear({3, 4, 5}, {32, 8, 1}, {32, 8, 1}));
    EXPECT_EQ(p.dims, (dims {12, 5}));
    EXPECT_EQ(p.src_strides, (dims {8, 1}));
    EXPECT_EQ(p.dst_strides, (dims {8, 1}));
    // Broadcast src (all strides 0) with dense dst: merges to one dim of stride 0.
    p = lower_op(qlinear({2, 3}, {0, 0}, {}));
    EXPECT_EQ(p.dims, (dims {6}));
    EXPECT_EQ(p.src_strides, (dims {0}));
    EXPECT_EQ(p.dst_strides, (dims {1}));
}

TEST(Lowering, EmptyTensor) {
    const quant_problem p = lower_op(qlinear({2, 0, 3}, {}, {}));
    EXPECT_EQ(p.nelems, 0);
    EXPECT_EQ(p.dims, (dims {0}));
    EXPECT_EQ(p.channel_dim(), -1);
}

TEST(Lowering, ParameterStrides) {
    const quant_problem p = lower_op(qlinear({2, 3}, {}, {}, 3, 1, {4}));
    EXPECT_EQ(p.scale_stride(), 4);
    EXPECT_EQ(p.zp_stride(), 1);
}

TEST(Lowering, StaticParameters) {
    op q(0, op::kind::Quantize, {dense(1, dt::f32, {2, 3})}, {dense(2, dt::s8, {2, 3})}, "q");
    q.set_attr(op::attr::qtype, "per_channel");
    q.set_attr(op::attr::axis, -1);
    q.set_attr(op::attr::scales, std::vector<float> {0.5f, 1.f, 2.f});
    q.set_attr(op::attr::zps, std::vector<int64_t> {0, 0, 0});
    quant_problem p = lower_op(q);
    EXPECT_EQ(p.scale_src, param_source::attr);
    EXPECT_EQ(p.scales, (std::vector<float> {0.5f, 1.f, 2.f}));
    EXPECT_EQ(p.zp_src, param_source::none); // all-zero zero points: none
    EXPECT_EQ(p.orig_axis(), 1);
    EXPECT_EQ(p.channel_dim(), 1);
    q.set_attr(op::attr::zps, std::vector<int64_t> {0, -3, 0});
    p = lower_op(q);
    EXPECT_EQ(p.zp_src, param_source::attr);
    EXPECT_EQ(p.zps, (std::vector<int64_t> {0, -3, 0}));
    // per_tensor ignores the axis.
    q.set_attr(op::attr::qtype, "per_tensor");
    q.set_attr(op::attr::scales, std::vector<float> {0.5f});
    q.set_attr(op::attr::zps, std::vector<int64_t> {4});
    p = lower_op(q);
    EXPECT_EQ(p.channel_dim(), -1);
    EXPECT_EQ(p.dims, (dims {6}));
}

/// A dense f32 -> u8 problem over `d` with the parameter map `map` (one entry per dim),
/// canonicalised as lowering does.
quant_problem mapped(const dims &d, const std::vector<param_dim> &map) {
    quant_problem p;
    p.op_name = "Test";
    p.src_dt = dt::f32;
    p.dst_dt = dt::u8;
    p.orig_dims = d;
    p.orig_src_strides = p.orig_dst_strides = qtest::dense_strides(d);
    p.orig_params = map;
    p.nelems = nelems(d);
    canonicalise(p);
    return p;
}

TEST(Lowering, BlockedDimIsNeverMerged) {
    // Blocks of 3 along dim 2 of 2x3x8x4x5: 2*3 merged | 8 (blocked) | 4*5 merged.
    const param_dim none {}, blocked {3, 1, 1};
    const quant_problem p = mapped({2, 3, 8, 4, 5}, {none, none, blocked, none, none});
    EXPECT_EQ(p.dims, (dims {6, 8, 20}));
    EXPECT_EQ(p.src_strides, (dims {160, 20, 1}));
    ASSERT_EQ(p.params.size(), 3u);
    EXPECT_FALSE(p.params[0].varies());
    EXPECT_EQ(p.params[1].group, 3);
    EXPECT_FALSE(p.params[2].varies());
    // ceil(8 / 3) = 3 blocks, the last one of 2 elements.
    EXPECT_EQ(p.param_shape(), (dims {1, 3, 1}));
    EXPECT_EQ(p.nparams(), 3);
    EXPECT_FALSE(p.per_tensor());
    EXPECT_FALSE(p.per_channel());
    EXPECT_EQ(p.channel_dim(), -1);
    EXPECT_EQ(p.orig_axis(), -1);
    EXPECT_EQ(p.describe(), "Test f32:u8 groups(0x0x3x0x0) 2x3x8x4x5 scales:attr zp:none");
}

TEST(Lowering, OnnxBlockedVariesAlongEveryDim) {
    // ONNX block_size 4 on axis 1 of 3x10: the scale is 3x3 (strides 7, 2 here), so dim 0
    // varies per element and dim 1 per block; nothing merges and the strides stay.
    const quant_problem p = mapped({3, 10}, {param_dim {1, 7, 3}, param_dim {4, 2, 1}});
    EXPECT_EQ(p.dims, (dims {3, 10}));
    EXPECT_EQ(p.param_shape(), (dims {3, 3}));
    EXPECT_EQ(p.nparams(), 9);
    EXPECT_EQ(p.channel_dim(), -1);
    const int64_t idx[2] = {2, 9}; // row 2, block 2
    EXPECT_EQ(p.scale_offset(idx), 2 * 7 + 2 * 2);
    EXPECT_EQ(p.zp_offset(idx), 2 * 3 + 2 * 1);
}

TEST(Lowering, GroupedOnTheLastTwoDims) {
    // oneDNN per_group: groups 4x3 on the last two dims of 2x8x12, scales 2x2x4 dense.
    const quant_problem p
            = mapped({2, 8, 12}, {param_dim {1, 8, 8}, param_dim {4, 4, 4}, param_dim {3, 1, 1}});
    EXPECT_EQ(p.dims, (dims {2, 8, 12}));
    EXPECT_EQ(p.param_shape(), (dims {2, 2, 4}));
    EXPECT_EQ(p.nparams(), 16);
    EXPECT_FALSE(p.per_channel());
    const int64_t idx[3] = {1, 7, 5}; // entry (1, 1, 1)
    EXPECT_EQ(p.scale_offset(idx), 8 + 4 + 1);
}

TEST(Lowering, OneParameterEntryAlongADimDoesNotVary) {
    // One block covering the dim (4 of 4), and a channel dim of size 1: both per-tensor, so
    // everything merges and the orig map says so too.
    quant_problem p = mapped({2, 3, 4}, {param_dim {}, param_dim {}, param_dim {4, 1, 1}});
    EXPECT_EQ(p.dims, (dims {24}));
    EXPECT_TRUE(p.per_tensor());
    EXPECT_FALSE(p.orig_params[2].varies());
    EXPECT_EQ(p.nparams(), 1);
    p = mapped({2, 1, 4}, {param_dim {}, param_dim {1, 1, 1}, param_dim {}});
    EXPECT_EQ(p.dims, (dims {8}));
    EXPECT_TRUE(p.per_tensor());
    EXPECT_EQ(p.describe(), "Test f32:u8 per_tensor 2x1x4 scales:attr zp:none");
    // Group 1 on one dim alone is per-channel; with blocks along another dim it is not.
    p = mapped({5, 6}, {param_dim {1, 1, 1}, param_dim {}});
    EXPECT_EQ(p.channel_dim(), 0);
    EXPECT_EQ(p.orig_axis(), 0);
    p = mapped({5, 6}, {param_dim {1, 2, 2}, param_dim {2, 1, 1}});
    EXPECT_EQ(p.dims, (dims {5, 6}));
    EXPECT_EQ(p.channel_dim(), -1);
    EXPECT_EQ(p.scale_stride(), 1);
}

TEST(Lowering, KindsAndDescriptions) {
    EXPECT_EQ(lower_op(qlinear({2, 3}, {}, {}, 3, 1)).describe(),
            "QuantizeLinear f32:u8 per_channel(axis 1) 2x3 scales:input zp:input:u8");
    op dq(0, op::kind::Dequantize, {dense(1, dt::u8, {4})}, {dense(2, dt::f32, {4})}, "dq");
    dq.set_attr(op::attr::scales, std::vector<float> {2.f});
    const quant_problem d = lower_op(dq);
    EXPECT_EQ(d.kind, q_kind::dequantize);
    EXPECT_EQ(d.describe(), "Dequantize u8:f32 per_tensor 4 scales:attr zp:none");
    op y(0, op::kind::DynamicQuantizeLinear, {dense(1, dt::f32, {})},
            {dense(2, dt::u8, {}), dense(3, dt::f32, {}), dense(4, dt::u8, {})}, "y");
    const quant_problem yp = lower_op(y);
    EXPECT_EQ(yp.kind, q_kind::dynamic_quantize_linear);
    EXPECT_EQ(yp.scale_src, param_source::none);
    EXPECT_EQ(yp.describe(), "DynamicQuantizeLinear f32:u8 per_tensor scalar scales:none zp:none");
    op dd(0, op::kind::DynamicDequantize,
            {dense(1, dt::s8, {2, 3}), dense(2, dt::f32, {2}), dense(3, dt::s32, {2})},
            {dense(4, dt::f32, {2, 3})}, "dd");
    dd.set_attr(op::attr::qtype, "per_channel");
    dd.set_attr(op::attr::axis, 0);
    EXPECT_EQ(lower_op(dd).describe(),
            "DynamicDequantize s8:f32 per_channel(axis 0) 2x3 scales:input zp:input:s32");
}

TEST(Lowering, OnnxBlockedFromTheTensors) {
    // DequantizeLinear s4 2x5, blocks of 2 along axis 1: scale and zp 2x3 (zp strides 4, 1),
    // the last block of 1; dim 0 per element (group 1), dim 1 per block.
    op o(0, op::kind::DequantizeLinear,
            {dense(1, dt::s4, {2, 5}), dense(2, dt::f32, {2, 3}),
                    strided(3, dt::s4, {2, 3}, {4, 1})},
            {dense(4, dt::f32, {2, 5})}, "dql");
    o.set_attr(op::attr::axis, 1);
    o.set_attr(op::attr::block_size, 2);
    const quant_problem p = lower_op(o);
    ASSERT_EQ(p.orig_params.size(), 2u);
    EXPECT_EQ(p.orig_params[0].group, 1);
    EXPECT_EQ(p.orig_params[0].scale_stride, 3);
    EXPECT_EQ(p.orig_params[0].zp_stride, 4);
    EXPECT_EQ(p.orig_params[1].group, 2);
    EXPECT_EQ(p.orig_params[1].scale_stride, 1);
    EXPECT_EQ(p.orig_params[1].zp_stride, 1);
    EXPECT_EQ(p.param_shape(), (dims {2, 3}));
    const int64_t idx[2] = {1, 4}; // row 1, block 2 (the partial one)
    EXPECT_EQ(p.scale_offset(idx), 3 + 2);
    EXPECT_EQ(p.zp_offset(idx), 4 + 2);
    // One scale is per-tensor whatever block_size says.
    op one(0, op::kind::DequantizeLinear,
            {dense(1, dt::s4, {2, 5}), dense(2, dt::f32, {1, 1})}, {dense(4, dt::f32, {2, 5})},
            "dql");
    one.set_attr(op::attr::block_size, 2);
    EXPECT_TRUE(lower_op(one).per_tensor());
}

TEST(Lowering, PerGroupFromTheTensors) {
    // DynamicDequantize u4 1x4x6 in groups 1x2x3: scales 1x2x2 dense, dim 0 of size 1 drops.
    op o(0, op::kind::DynamicDequantize,
            {dense(1, dt::u4, {1, 4, 6}), dense(2, dt::f16, {1, 2, 2})},
            {dense(4, dt::f16, {1, 4, 6})}, "dydq");
    o.set_attr(op::attr::qtype, "per_group");
    o.set_attr(op::attr::group_shape, std::vector<int64_t> {1, 2, 3});
    const quant_problem p = lower_op(o);
    EXPECT_EQ(p.scale_dt, dt::f16);
    EXPECT_FALSE(p.orig_params[0].varies());
    EXPECT_EQ(p.orig_params[1].group, 2);
    EXPECT_EQ(p.orig_params[1].scale_stride, 2);
    EXPECT_EQ(p.orig_params[2].group, 3);
    EXPECT_EQ(p.orig_params[2].scale_stride, 1);
    EXPECT_EQ(p.dims, (dims {4, 6}));
    EXPECT_EQ(p.param_shape(), (dims {2, 2}));
    EXPECT_EQ(p.zp_src, param_source::none);
}

TEST(Lowering, DivisionPrecisionAndSaturate) {
    auto q = [](dt x, dt s, dt y) {
        return op(0, op::kind::QuantizeLinear, {dense(1, x, {4}), dense(2, s, {})},
                {dense(4, y, {4})}, "ql");
    };
    EXPECT_EQ(lower_op(q(dt::f16, dt::f16, dt::u8)).div_dt, dt::f16);
    EXPECT_EQ(lower_op(q(dt::bf16, dt::bf16, dt::u8)).div_dt, dt::bf16);
    EXPECT_EQ(lower_op(q(dt::f32, dt::f16, dt::u8)).div_dt, dt::f32);
    EXPECT_EQ(lower_op(q(dt::f16, dt::bf16, dt::u8)).div_dt, dt::f32);
    EXPECT_EQ(lower_op(with_attr(q(dt::f16, dt::f16, dt::u8), "precision", 1)).div_dt, dt::f32);
    EXPECT_EQ(lower_op(with_attr(q(dt::f32, dt::f32, dt::u8), "precision", 16)).div_dt, dt::bf16);
    EXPECT_TRUE(lower_op(q(dt::f32, dt::f32, dt::f8_e4m3)).saturate);
    EXPECT_FALSE(lower_op(with_attr(q(dt::f32, dt::f32, dt::f8_e5m2), "saturate", 0)).saturate);
    // Not a float8 output: saturate does not apply.
    EXPECT_TRUE(lower_op(with_attr(q(dt::f32, dt::f32, dt::u8), "saturate", 0)).saturate);
    // oneDNN Quantize to f8 never saturates.
    op st(0, op::kind::Quantize, {dense(1, dt::f32, {4})}, {dense(2, dt::f8_e4m3, {4})}, "q");
    st.set_attr(op::attr::scales, std::vector<float> {1.f});
    EXPECT_FALSE(lower_op(st).saturate);
}

TEST(Lowering, DataMovementIsAConvertOverDstIndexSpace) {
    // A transpose reads src through its strides permuted: dst dim i steps src dim order[i].
    op t(0, op::kind::StaticTranspose, {dense(1, dt::f32, {2, 3, 5})},
            {dense(2, dt::f32, {5, 2, 3})}, "t");
    t.set_attr("order", std::vector<int64_t> {-1, 0, 1});
    quant_problem p = lower_op(t);
    EXPECT_EQ(p.kind, q_kind::convert);
    EXPECT_EQ(p.scale_src, param_source::none);
    EXPECT_EQ(p.zp_src, param_source::none);
    EXPECT_EQ(p.orig_src_strides, (dims {1, 15, 5}));
    // dst dims 0 and 1 are not contiguous in src; 1 and 2 are (2 x 3 at strides 15, 5) and
    // in dst: they merge.
    EXPECT_EQ(p.dims, (dims {5, 6}));
    EXPECT_EQ(p.src_strides, (dims {1, 5}));
    EXPECT_EQ(p.dst_strides, (dims {6, 1}));
    EXPECT_EQ(p.describe(), "StaticTranspose f32:f32 5x2x3");

    // A reshape of a dense src into a dense dst is one dense run.
    op r(0, op::kind::StaticReshape, {dense(1, dt::bf16, {4, 6})},
            {dense(2, dt::bf16, {2, 3, 4})}, "r");
    r.set_attr("shape", std::vector<int64_t> {2, 3, 4});
    r.set_attr("special_zero", false);
    p = lower_op(r);
    EXPECT_EQ(p.dims, (dims {24}));
    EXPECT_EQ(p.src_strides, (dims {1}));
    EXPECT_EQ(p.dst_strides, (dims {1}));

    op c(0, op::kind::TypeCast, {strided(1, dt::f32, {2, 3}, {1, 2})},
            {dense(2, dt::f16, {2, 3})}, "c");
    p = lower_op(c);
    EXPECT_EQ(p.kind, q_kind::convert);
    EXPECT_EQ(p.src_strides, (dims {1, 2}));
    EXPECT_EQ(p.dst_strides, (dims {3, 1}));
    EXPECT_EQ(p.describe(), "TypeCast f32:f16 2x3");
}

} // namespace
