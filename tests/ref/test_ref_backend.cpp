// The reference backend on canonical problems directly: what it accepts and rejects (with a
// reason), kernel names, runs with strided scale / zero-point arrays, and runtime scales of
// every scale type (f32, f16, bf16, e8m0; the op schemas take only f32 so far).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/helpers.hpp"
#include "backends/ref/ref_backend.hpp"
#include "backends/registry.hpp"
#include "common/dense_strides.hpp"
#include "passes/lowering.hpp"

namespace {

using namespace qtest;
using qgraph::impl::canonicalise;
using qgraph::impl::exec_args;
using qgraph::impl::kernel;
using qgraph::impl::lower_op;
using qgraph::impl::param_dim;
using qgraph::impl::param_source;
using qgraph::impl::q_kind;
using qgraph::impl::quant_problem;
using qgraph::impl::ref_backend;

std::unique_ptr<kernel> create(const quant_problem &p, std::string &reason) {
    return ref_backend().create(p, [] { return std::unique_ptr<kernel>(); }, reason);
}

TEST(RefBackend, IsLastInTheRegistry) {
    const auto &list = qgraph::impl::backend_list();
    ASSERT_FALSE(list.empty());
    EXPECT_EQ(list.back(), &ref_backend());
    EXPECT_STREQ(ref_backend().name(), "ref");
    EXPECT_EQ(qgraph::impl::find_backend("ref"), &ref_backend());
    EXPECT_EQ(qgraph::impl::find_backend("nope"), nullptr);
}

TEST(RefBackend, RejectsTypesItHasNoKernelFor) {
    op o(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, {4}), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, {4})}, "ql");
    quant_problem p = lower_op(o);
    std::string reason;
    EXPECT_NE(create(p, reason), nullptr);
    p.src_dt = dt::f8_e4m3;
    EXPECT_EQ(create(p, reason), nullptr);
    EXPECT_NE(reason.find("no reference kernel for"), std::string::npos) << reason;
    p.src_dt = dt::bf16; // bf16 / f16 quantize sources are implemented (an extension)
    EXPECT_NE(create(p, reason), nullptr);
    p.src_dt = dt::f32;
    p.dst_dt = dt::f8_e4m3; // float8, float4 and every integer width are quantize targets
    EXPECT_NE(create(p, reason), nullptr);
    p.dst_dt = dt::f32;
    EXPECT_EQ(create(p, reason), nullptr);
    p.dst_dt = dt::u8;
    p.div_dt = dt::s8; // the division precision is a float type
    EXPECT_EQ(create(p, reason), nullptr);
    p.div_dt = dt::f32;
    p.kind = q_kind::dequantize;
    p.src_dt = dt::u8;
    p.dst_dt = dt::f16; // and bf16 / f16 dequantize destinations
    EXPECT_NE(create(p, reason), nullptr);
    p.dst_dt = dt::s8;
    EXPECT_EQ(create(p, reason), nullptr);
}

TEST(RefBackend, RejectsMoreThanTwelveDims) {
    op o(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, {4}), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, {4})}, "ql");
    quant_problem p = lower_op(o);
    p.dims.assign(13, 1);
    p.src_strides.assign(13, 1);
    p.dst_strides.assign(13, 1);
    std::string reason;
    EXPECT_EQ(create(p, reason), nullptr);
    EXPECT_NE(reason.find("12 dimensions"), std::string::npos) << reason;
}

TEST(RefBackend, KernelNames) {
    op q(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, {4}), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, {4})}, "ql");
    op d(0, op::kind::DequantizeLinear, {dense(1, dt::s32, {4}), dense(2, dt::f32, {})},
            {dense(4, dt::f32, {4})}, "dql");
    op y(0, op::kind::DynamicQuantizeLinear, {dense(1, dt::f32, {4})},
            {dense(2, dt::u8, {4}), dense(3, dt::f32, {}), dense(4, dt::u8, {})}, "y");
    std::string reason;
    EXPECT_EQ(create(lower_op(q), reason)->name(), "ref:quantize");
    EXPECT_EQ(create(lower_op(d), reason)->name(), "ref:dequantize");
    EXPECT_EQ(create(lower_op(y), reason)->name(), "ref:dynamic_quantize_linear");
}

TEST(RefBackend, StridedScaleAndZeroPointArrays) {
    // DynamicQuantize per_channel along axis 1 of 2x3, scales read every 2nd float,
    // zero points (s32) every 3rd int.
    op o(0, op::kind::DynamicQuantize,
            {dense(1, dt::f32, {2, 3}), strided(2, dt::f32, {3}, {2}),
                    strided(3, dt::s32, {3}, {3})},
            {dense(4, dt::s8, {2, 3})}, "dyq");
    o.set_attr(op::attr::qtype, "per_channel");
    o.set_attr(op::attr::axis, 1);
    const quant_problem p = lower_op(o);
    std::string reason;
    std::unique_ptr<kernel> k = create(p, reason);
    ASSERT_NE(k, nullptr) << reason;
    const float x[6] = {1.f, 1.f, 1.f, -3.f, 5.f, 200.f};
    const float scales[5] = {0.5f, NAN, 2.f, NAN, 0.25f}; // channels: 0.5, 2, 0.25
    const int32_t zps[7] = {1, 99, 99, -2, 99, 99, 100}; // channels: 1, -2, 100
    int8_t y[6] = {};
    exec_args a;
    a.src = x;
    a.dst = y;
    a.scales = scales;
    a.zps = zps;
    EXPECT_EQ(&k->run(a), k.get());
    // row 0: 1/0.5 = 2 +1 = 3; 1/2 = 0.5 -> 0, -2 = -2; 1/0.25 = 4, +100 = 104
    // row 1: -3/0.5 = -6 +1 = -5; 5/2 = 2.5 -> 2, -2 = 0; 200/0.25 = 800 +100 -> 127
    const int8_t want[6] = {3, -2, 104, -5, 0, 127};
    for (int i = 0; i < 6; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

/// Element n (row-major over `d`) as a multi-index.
dims index_of(const dims &d, int64_t n) {
    dims idx(d.size());
    for (size_t i = d.size(); i-- > 0;) {
        idx[i] = n % d[i];
        n /= d[i];
    }
    return idx;
}

/// The parameter array offset of the element at `idx`, straight from the rule in NUMERICS.md
/// ("each dim maps an element index to a parameter index: i, i / group, or 0") over the
/// user's dims, independent of canonicalisation.
int64_t param_offset(const std::vector<param_dim> &map, const dims &idx, bool zp) {
    int64_t off = 0;
    for (size_t i = 0; i < map.size(); ++i)
        if (map[i].group > 0)
            off += idx[i] / map[i].group * (zp ? map[i].zp_stride : map[i].scale_stride);
    return off;
}

/// Array length that holds every parameter entry of `map` over `d`.
int64_t param_span(const dims &d, const std::vector<param_dim> &map, bool zp) {
    int64_t span = 1;
    for (size_t i = 0; i < d.size(); ++i)
        if (map[i].group > 0)
            span += ((d[i] + map[i].group - 1) / map[i].group - 1)
                    * (zp ? map[i].zp_stride : map[i].scale_stride);
    return span;
}

/// Dequantize s8 -> f32 over dense `d` with runtime s8 zero points, through the parameter
/// map `map`, against float(x - zp) * s with s and zp picked by param_offset. The gaps of
/// strided parameter tensors hold NaN / 99, which would show in the result if read.
void check_dequantize_map(const dims &d, const std::vector<param_dim> &map) {
    SCOPED_TRACE(::testing::PrintToString(d));
    quant_problem p;
    p.kind = q_kind::dequantize;
    p.op_name = "Test";
    p.src_dt = dt::s8;
    p.dst_dt = dt::f32;
    p.orig_dims = d;
    p.orig_src_strides = p.orig_dst_strides = qtest::dense_strides(d);
    p.orig_params = map;
    p.nelems = nelems(d);
    p.scale_src = param_source::input;
    p.zp_src = param_source::input;
    p.zp_dt = dt::s8;
    canonicalise(p);
    std::string reason;
    const std::unique_ptr<kernel> k = create(p, reason);
    ASSERT_NE(k, nullptr) << reason;

    std::vector<float> scales(static_cast<size_t>(param_span(d, map, false)), NAN);
    std::vector<int8_t> zps(static_cast<size_t>(param_span(d, map, true)), 99);
    std::vector<int8_t> x(static_cast<size_t>(p.nelems));
    for (int64_t n = 0; n < p.nelems; ++n) {
        const dims idx = index_of(d, n);
        const int64_t so = param_offset(map, idx, false), zo = param_offset(map, idx, true);
        scales[so] = 0.5f + 0.125f * static_cast<float>(so % 29);
        zps[zo] = static_cast<int8_t>(zo % 11 - 5);
        x[n] = static_cast<int8_t>(n * 37 % 256 - 128);
    }
    std::vector<float> y(x.size(), -1.f);
    exec_args a;
    a.src = x.data();
    a.dst = y.data();
    a.scales = scales.data();
    a.zps = zps.data();
    k->run(a);
    for (int64_t n = 0; n < p.nelems; ++n) {
        const dims idx = index_of(d, n);
        const float s = scales[param_offset(map, idx, false)];
        const int zp = zps[param_offset(map, idx, true)];
        ASSERT_EQ(y[n], static_cast<float>(x[n] - zp) * s) << "element " << n;
    }
}

TEST(RefBackend, BlockedAlongEveryDimWithPartialLastBlock) {
    // ONNX block_size: blocks along the axis, one entry per element along the other dims.
    // 3x10, blocks of 4 along dim 1 (4, 4, 2), scales 3x3 with strides 7, 2; zps dense.
    check_dequantize_map({3, 10}, {param_dim {1, 7, 3}, param_dim {4, 2, 1}});
    // 10x6, blocks of 4 along dim 0 (4, 4, 2): scales 3x6.
    check_dequantize_map({10, 6}, {param_dim {4, 6, 6}, param_dim {1, 1, 1}});
    // 2x9x5, blocks of 2 along the middle dim (last block 1 element), dims 0 and 2 per
    // element, the scale tensor transposed (strides 1, 2, 10).
    check_dequantize_map(
            {2, 9, 5}, {param_dim {1, 1, 1}, param_dim {2, 2, 5}, param_dim {1, 10, 25}});
    // Blocks along one dim only, the others sharing them: 2x3x10, blocks of 3 on dim 2 of
    // a dim merged from 2x3 (canonical 6x10).
    check_dequantize_map({2, 3, 10}, {param_dim {}, param_dim {}, param_dim {3, 1, 1}});
    check_dequantize_map({7, 4, 5}, {param_dim {}, param_dim {3, 2, 1}, param_dim {}});
}

TEST(RefBackend, GroupedOnTwoDims) {
    // oneDNN per_group 4x3 on the last two dims of 2x8x12: scales 2x2x4 dense, zps padded.
    check_dequantize_map(
            {2, 8, 12}, {param_dim {1, 8, 12}, param_dim {4, 4, 5}, param_dim {3, 1, 1}});
    // Groups 2x5 on 6x11 (the last column's group holds 1 element).
    check_dequantize_map({6, 11}, {param_dim {2, 3, 3}, param_dim {5, 1, 1}});
}

TEST(RefBackend, BlockedQuantizeWithStaticParametersAndStridedSource) {
    // Quantize f32 -> u8 over 7x4 with a transposed source (strides 1, 7), static scales
    // and zero points: blocks of 3 along dim 0 (3, 3, 1), one entry per element of dim 1.
    quant_problem p;
    p.kind = q_kind::quantize;
    p.op_name = "Test";
    p.src_dt = dt::f32;
    p.dst_dt = dt::u8;
    p.orig_dims = {7, 4};
    p.orig_src_strides = {1, 7};
    p.orig_dst_strides = {4, 1};
    p.orig_params = {param_dim {3, 4, 4}, param_dim {1, 1, 1}};
    p.nelems = 28;
    p.scale_src = param_source::attr;
    p.zp_src = param_source::attr;
    for (int e = 0; e < 12; ++e) {
        p.scales.push_back(0.25f * static_cast<float>(e + 1));
        p.zps.push_back(10 * e);
    }
    canonicalise(p);
    std::string reason;
    const std::unique_ptr<kernel> k = create(p, reason);
    ASSERT_NE(k, nullptr) << reason;
    float x[28];
    for (int i = 0; i < 28; ++i) x[i] = static_cast<float>(i * 3 - 20);
    uint8_t y[28] = {};
    exec_args a;
    a.src = x;
    a.dst = y;
    k->run(a);
    for (int r = 0; r < 7; ++r)
        for (int c = 0; c < 4; ++c) {
            const int e = r / 3 * 4 + c;
            const float q = std::nearbyint(x[r + 7 * c] / p.scales[e]) + p.zps[e];
            const float want = std::min(255.f, std::max(0.f, q));
            EXPECT_EQ(y[r * 4 + c], static_cast<uint8_t>(want)) << r << "," << c;
        }
}

TEST(RefBackend, RejectsAParameterMapOfTheWrongRank) {
    quant_problem p = lower_op(op(0, op::kind::DynamicQuantize,
            {dense(1, dt::f32, {2, 3}), dense(2, dt::f32, {1})}, {dense(3, dt::u8, {2, 3})},
            "dyq"));
    p.params.clear();
    std::string reason;
    EXPECT_EQ(create(p, reason), nullptr);
    EXPECT_NE(reason.find("parameter map of 0 dims for 1 dims"), std::string::npos) << reason;
}

/// A per-axis DequantizeLinear (s32 -> f32) or QuantizeLinear (f32 -> s8) of n elements
/// with one scale per element, lowered with a scale tensor of type scale_dt.
quant_problem per_element_problem(bool quantize, dt scale_dt, int64_t n) {
    op o = quantize ? op(0, op::kind::QuantizeLinear,
                              {dense(1, dt::f32, {n}), dense(2, scale_dt, {n})},
                              {dense(3, dt::s8, {n})}, "ql")
                    : op(0, op::kind::DequantizeLinear,
                              {dense(1, dt::s32, {n}), dense(2, scale_dt, {n})},
                              {dense(3, dt::f32, {n})}, "dql");
    o.set_attr(op::attr::axis, 0);
    return lower_op(o);
}

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

/// Dequantizes x (s32, zp 0) with the raw scales of `p` and compares with `want` bit for bit.
template <typename S>
void expect_dequantized(const quant_problem &p, const std::vector<int32_t> &x,
        const std::vector<S> &scales, const std::vector<float> &want) {
    std::string reason;
    std::unique_ptr<kernel> k = create(p, reason);
    ASSERT_NE(k, nullptr) << reason;
    std::vector<float> y(x.size(), -1.f);
    exec_args a;
    a.src = x.data();
    a.dst = y.data();
    a.scales = scales.data();
    k->run(a);
    for (size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(want[i]))
            EXPECT_TRUE(std::isnan(y[i])) << p.describe() << " element " << i << ": " << y[i];
        else
            EXPECT_EQ(bits_of(y[i]), bits_of(want[i]))
                    << p.describe() << " element " << i << ": " << y[i] << " want " << want[i];
    }
}

TEST(RefBackend, ScaleTypeComesFromTheScaleTensor) {
    for (dt t : {dt::f32, dt::f16, dt::bf16, dt::e8m0}) {
        EXPECT_EQ(per_element_problem(false, t, 4).scale_dt, t);
        EXPECT_EQ(per_element_problem(true, t, 4).scale_dt, t);
    }
    op o(0, op::kind::Quantize, {dense(1, dt::f32, {4})}, {dense(2, dt::u8, {4})}, "q");
    o.set_attr(op::attr::scales, std::vector<float> {0.5f});
    o.set_attr(op::attr::zps, std::vector<int64_t> {0});
    EXPECT_EQ(lower_op(o).scale_dt, dt::f32); // attribute scales
}

TEST(RefBackend, RejectsScaleTypesWithoutAnExactF32Value) {
    quant_problem p = per_element_problem(false, dt::s8, 4);
    std::string reason;
    EXPECT_EQ(create(p, reason), nullptr);
    EXPECT_NE(reason.find("scales:input:s8"), std::string::npos) << reason;
}

TEST(RefBackend, F16AndBf16ScalesAreReadExactly) {
    // f16: 0x3555 = 0x1.554p-2, 0x0001 = 2^-24 (subnormal), 0x7c00 = +Inf, 0xfe00 NaN.
    expect_dequantized(per_element_problem(false, dt::f16, 4), {3, 5, 1, 1},
            std::vector<uint16_t> {0x3555, 0x0001, 0x7c00, 0xfe00},
            {0x1.ffep-1f, 0x1.4p-22f, INFINITY, NAN});
    // bf16: 0x3eab = 0x1.56p-2, 0x0001 = 2^-133 (an f32 subnormal), 0xff80 = -Inf, NaN.
    expect_dequantized(per_element_problem(false, dt::bf16, 4), {3, 1, 1, 1},
            std::vector<uint16_t> {0x3eab, 0x0001, 0xff80, 0x7fc1},
            {0x1.008p0f, 0x1p-133f, -INFINITY, NAN});
    // f32 as before.
    expect_dequantized(per_element_problem(false, dt::f32, 2), {3, -2},
            std::vector<float> {0.1f, 0x1p-149f}, {3 * 0.1f, -0x1p-148f});
}

TEST(RefBackend, E8m0ScalesAreReadExactly) {
    // 2^(c - 127): c = 0 is the f32 subnormal 2^-127, 1 the smallest normal 2^-126, 127 is
    // 1, 254 is 2^127 (x = 2 overflows to Inf); 0xff is NaN.
    expect_dequantized(per_element_problem(false, dt::e8m0, 7), {1, 3, 1, -5, 1, 2, 1},
            std::vector<uint8_t> {0, 0, 1, 127, 254, 254, 0xff},
            {0x1p-127f, 0x1.8p-126f, 0x1p-126f, -5.f, 0x1p127f, INFINITY, NAN});
    // Quantize divides by the same values: 0x1.8p-126 / 2^-127 = 3; 3 / 0.5 = 6;
    // 3 / 2 = 1.5 -> 2; 200 / 1 -> 127; a NaN scale gives NaN -> qmin.
    const quant_problem p = per_element_problem(true, dt::e8m0, 5);
    std::string reason;
    std::unique_ptr<kernel> k = create(p, reason);
    ASSERT_NE(k, nullptr) << reason;
    const float x[5] = {0x1.8p-126f, 3.f, 3.f, 200.f, 1.f};
    const uint8_t scales[5] = {0, 126, 128, 127, 0xff};
    int8_t y[5] = {};
    exec_args a;
    a.src = x;
    a.dst = y;
    a.scales = scales;
    k->run(a);
    const int8_t want[5] = {3, 6, 2, 127, -128};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

} // namespace
