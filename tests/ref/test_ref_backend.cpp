// The reference backend on canonical problems directly: what it accepts and rejects (with a
// reason), kernel names, and runs with strided scale / zero-point arrays.

#include <gtest/gtest.h>

#include <cmath>

#include "api/helpers.hpp"
#include "backends/ref/ref_backend.hpp"
#include "backends/registry.hpp"
#include "passes/lowering.hpp"

namespace {

using namespace qtest;
using qgraph::impl::exec_args;
using qgraph::impl::kernel;
using qgraph::impl::lower_op;
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
    p.dst_dt = dt::f8_e4m3;
    EXPECT_EQ(create(p, reason), nullptr);
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

} // namespace
