// Which problems the dnnl backend accepts, and the reason it gives for each rejection. The
// evidence that makes each rule necessary is in test_dnnl_evidence.cpp; the accepted problems
// are run bit-exactly against the reference in the other test files.

#include <cmath>
#include <cstdint>
#include <limits>

#include <gtest/gtest.h>

#include "backends/dnnl/dnnl_backend.hpp"
#include "backends/dnnl/dnnl_legality.hpp"
#include "backends/dnnl/dnnl_reorder_kernel.hpp"
#include "dnnl/dnnl_test_util.hpp"
#include "passes/lowering.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_test {
namespace {

using dnnl_impl::has_exact_reciprocal;
using dnnl_impl::is_exact_in_f32;
using dnnl_impl::is_verified_impl;

// The reason dnnl gives, failing the test if it accepts.
std::string rejection(const spec &s) {
    std::string reason;
    const auto k = create_dnnl(make_problem(s), reason);
    EXPECT_EQ(k, nullptr) << "accepted " << make_problem(s).describe();
    EXPECT_FALSE(reason.empty());
    return reason;
}

bool accepted(const spec &s) {
    std::string reason;
    const auto k = create_dnnl(make_problem(s), reason);
    EXPECT_TRUE(k) << make_problem(s).describe() << ": " << reason;
    return k != nullptr;
}

TEST(DnnlLegality, DynamicQuantizeLinearNeedsAReduction) {
    spec s = quantize_spec();
    s.kind = q_kind::dynamic_quantize_linear;
    s.scale_src = param_source::none;
    s.scales.clear();
    EXPECT_NE(rejection(s).find("needs a min/max reduction"), std::string::npos);
}

TEST(DnnlLegality, EmptyProblemGoesToRef) {
    EXPECT_NE(rejection(quantize_spec({0, 4})).find("nelems == 0"), std::string::npos);
    EXPECT_NE(rejection(dequantize_spec(data_type::s8, {3, 0})).find("nelems == 0"),
            std::string::npos);
}

TEST(DnnlLegality, SourceRoundedFirstGoesElsewhere) {
    // A TypeCast -> Quantize chain as one problem (src_round_dt): a reorder would read the
    // f32 source as it is, skipping the rounding.
    EXPECT_TRUE(accepted(quantize_spec()));
    std::string reason;
    quant_problem p = make_problem(quantize_spec());
    p.src_round_dt = data_type::bf16;
    EXPECT_EQ(create_dnnl(p, reason), nullptr);
    EXPECT_NE(reason.find("source rounded to bf16 first"), std::string::npos) << reason;
}

TEST(DnnlLegality, QuantizeToS8IsRejectedForNaN) {
    spec s = quantize_spec();
    s.dst_dt = data_type::s8;
    EXPECT_NE(rejection(s).find("turns NaN into 127"), std::string::npos);
}

TEST(DnnlLegality, OtherTypesAreRejected) {
    for (auto pair : {std::make_pair(data_type::bf16, data_type::u8),
                 std::make_pair(data_type::f16, data_type::u8),
                 std::make_pair(data_type::f32, data_type::s32),
                 std::make_pair(data_type::f32, data_type::u4)}) {
        spec s = quantize_spec();
        s.src_dt = pair.first;
        s.dst_dt = pair.second;
        EXPECT_NE(rejection(s).find("only f32:u8"), std::string::npos);
    }
    for (auto pair : {std::make_pair(data_type::u8, data_type::bf16),
                 std::make_pair(data_type::s8, data_type::f16),
                 std::make_pair(data_type::u4, data_type::f32)}) {
        spec s = dequantize_spec(pair.first);
        s.dst_dt = pair.second;
        EXPECT_NE(rejection(s).find("only u8/s8/s32 to f32"), std::string::npos);
    }
}

TEST(DnnlLegality, OnlyF32ScalesAreTaken) {
    for (data_type t : {data_type::f16, data_type::bf16, data_type::e8m0}) {
        for (quant_problem p : {make_problem(quantize_spec()), make_problem(dequantize_spec())}) {
            p.scale_src = param_source::input;
            p.scale_dt = t;
            std::string reason;
            EXPECT_EQ(create_dnnl(p, reason), nullptr) << p.describe();
            EXPECT_EQ(reason, std::string("scales of type ") + to_string(t)
                            + ": only f32 scales are handled");
        }
    }
}

TEST(DnnlLegality, QuantizeStaticScaleMustHaveExactReciprocal) {
    const float bad[] = {0.3f, 3.f, 0.1f, 1.f + 0x1p-23f, std::ldexp(1.f, -128),
            std::numeric_limits<float>::denorm_min(), 0.f, -0.f,
            std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
    for (float sc : bad) {
        spec s = quantize_spec();
        s.scales = {sc};
        EXPECT_NE(rejection(s).find("not a power of two"), std::string::npos) << sc;
    }
    // One bad channel is enough.
    spec s = quantize_spec({4, 3});
    s.axis = 1;
    s.scales = {0.5f, 0.75f, 2.f};
    EXPECT_NE(rejection(s).find("not a power of two"), std::string::npos);
}

TEST(DnnlLegality, QuantizeNonzeroZeroPointIsRejected) {
    spec s = quantize_spec();
    s.zp_src = param_source::attr;
    s.zps = {2};
    EXPECT_NE(rejection(s).find("rounds x/s + zp in one step"), std::string::npos);
    spec pc = quantize_spec({2, 3});
    pc.axis = 1;
    pc.scales = {1.f, 1.f, 1.f};
    pc.zp_src = param_source::attr;
    pc.zps = {0, 1, 0};
    EXPECT_NE(rejection(pc).find("rounds x/s + zp in one step"), std::string::npos);
}

TEST(DnnlLegality, DequantizePerChannelZeroPointsAreRejected) {
    spec s = dequantize_spec(data_type::u8, {2, 3});
    s.axis = 1;
    s.scales = {0.1f, 0.2f, 0.3f};
    s.zp_src = param_source::attr;
    s.zps = {1, 2, 3};
    EXPECT_NE(rejection(s).find("per-channel zero points"), std::string::npos);
    s.zp_src = param_source::input;
    s.zp_dt = data_type::u8;
    EXPECT_NE(rejection(s).find("per-channel zero points"), std::string::npos);
}

TEST(DnnlLegality, DequantizeS32StaticZeroPointIsRejected) {
    spec s = dequantize_spec(data_type::s32);
    s.zp_src = param_source::attr;
    s.zps = {5};
    EXPECT_NE(rejection(s).find("converts x to f32 before subtracting"), std::string::npos);
}

TEST(DnnlLegality, DequantizeZeroPointNotExactInF32IsRejected) {
    for (int64_t zp : {16777217, -16777217, 1073741827, 2147483647}) {
        spec s = dequantize_spec(data_type::s8);
        s.zp_src = param_source::attr;
        s.zps = {zp};
        EXPECT_NE(rejection(s).find("not exact in f32"), std::string::npos) << zp;
    }
}

TEST(DnnlLegality, DequantizeStridedRuntimeScalesAreRejected) {
    spec s = dequantize_spec(data_type::u8, {3, 4});
    s.axis = 0;
    s.scale_src = param_source::input;
    s.scales = {0.1f, 0.2f, 0.3f};
    s.scale_stride = 2;
    EXPECT_NE(rejection(s).find("reads runtime scales densely"), std::string::npos);
    // A single runtime scale has no stride to speak of.
    spec one = dequantize_spec();
    one.scale_src = param_source::input;
    one.scale_stride = 5;
    EXPECT_TRUE(accepted(one));
}

TEST(DnnlLegality, BlockedAndGroupedMapsAreRejected) {
    // The reorder's scale mask names whole dims; blocks of 32 along a dim have no mask.
    quant_problem p = make_problem(dequantize_spec(data_type::u8, {4, 64}));
    p.orig_params[1] = param_dim {32, 1, 1};
    canonicalise(p);
    ASSERT_EQ(p.param_shape(), (std::vector<int64_t> {1, 2}));
    std::string reason;
    EXPECT_EQ(create_dnnl(p, reason), nullptr);
    EXPECT_NE(reason.find("blocked or grouped parameters"), std::string::npos) << reason;
}

TEST(DnnlLegality, StaticNaNScaleIsRejected) {
    spec s = dequantize_spec();
    s.scales = {std::numeric_limits<float>::quiet_NaN()};
    EXPECT_NE(rejection(s).find("DNNL_RUNTIME_F32_VAL"), std::string::npos);
}

TEST(DnnlLegality, TooManyDimsAreRejected) {
    // 13 dims of 2, src column-major and dst row-major: nothing merges, even canonically.
    const std::vector<int64_t> dims(13, 2);
    spec s = dequantize_spec(data_type::u8, dims);
    s.src_strides = reversed_strides(dims);
    EXPECT_NE(rejection(s).find("exceeds oneDNN's 12 dims"), std::string::npos);
    // Dense, the same 13 dims merge into one and oneDNN gets the canonical layout.
    EXPECT_TRUE(accepted(dequantize_spec(data_type::u8, dims)));
}

TEST(DnnlLegality, DimsBeyondIntAreRejected) {
    // Only legality runs here: nothing is allocated.
    spec s = dequantize_spec(data_type::u8, {int64_t {1} << 31});
    EXPECT_NE(rejection(s).find("2^31-1"), std::string::npos);
}

TEST(DnnlLegality, PerCallChecksNeedAFallbackFactory) {
    spec s = quantize_spec();
    s.scale_src = param_source::input;
    std::string reason;
    EXPECT_EQ(dnnl_backend().create(make_problem(s), {}, reason), nullptr);
    EXPECT_NE(reason.find("no fallback factory"), std::string::npos);
    // Static scales need no fallback, so no factory is fine.
    EXPECT_NE(dnnl_backend().create(make_problem(quantize_spec()), {}, reason), nullptr);
}

TEST(DnnlLegality, AcceptedProblems) {
    spec q = quantize_spec({2, 3, 4});
    q.axis = 2;
    q.scales = {0.5f, -0.25f, std::ldexp(1.f, -127), std::ldexp(1.f, 127)};
    EXPECT_TRUE(accepted(q));
    q.zp_src = param_source::attr;
    q.zps = {0, 0, 0, 0}; // zero zero points are no zero points
    EXPECT_TRUE(accepted(q));
    q.zp_src = param_source::input; // checked per call
    q.zp_dt = data_type::s32;
    q.scale_src = param_source::input;
    q.scales = {0.3f, 1.f, 1.f, 1.f}; // runtime values do not matter at create
    EXPECT_TRUE(accepted(q));

    for (data_type dt : {data_type::u8, data_type::s8, data_type::s32}) {
        spec d = dequantize_spec(dt, {5, 6});
        d.axis = 0;
        d.scales = {0.1f, -0.2f, 3e38f, 1e-40f, 1.f};
        EXPECT_TRUE(accepted(d));
        d.scale_src = param_source::input;
        EXPECT_TRUE(accepted(d));
        d.axis = -1;
        d.scales = {0.1f};
        d.zp_src = param_source::input;
        d.zp_dt = data_type::s32;
        EXPECT_TRUE(accepted(d));
    }
    spec d = dequantize_spec(data_type::u8, {});
    d.zp_src = param_source::attr;
    d.zps = {std::numeric_limits<int32_t>::min()}; // exact in f32
    EXPECT_TRUE(accepted(d));
}

TEST(DnnlLegality, KernelNameAndImplementation) {
    std::string reason;
    const auto k = create_dnnl(make_problem(quantize_spec()), reason);
    ASSERT_TRUE(k) << reason;
    EXPECT_EQ(k->name(), "dnnl:reorder");
    EXPECT_EQ(dnnl_impl::onednn_impl_name(*k), "jit:uni");
}

TEST(DnnlLegality, OnlyTheMeasuredImplementationIsTrusted) {
    EXPECT_TRUE(is_verified_impl("jit:uni"));
    for (const char *other : {"simple:any", "ref:any", "jit:blk", "jit:direct_copy", ""})
        EXPECT_FALSE(is_verified_impl(other)) << other;
}

TEST(DnnlLegality, ExactReciprocalIsExactlyThePowersOfTwoDownTo2PowMinus127) {
    for (int k = -149; k <= 127; ++k) {
        for (float sign : {1.f, -1.f}) {
            const float s = sign * std::ldexp(1.f, k);
            // Independent statement: 1/s is finite and multiplying back gives exactly 1.
            const bool expected = std::isfinite(1.f / s) && (1.f / s) * s == 1.f;
            EXPECT_EQ(has_exact_reciprocal(s), expected) << s;
            EXPECT_EQ(expected, k >= -127);
        }
    }
    for (float s : {3.f, 0.1f, 1.5f, 1.f + 0x1p-23f, 0x1.fffffep127f, 0x1.8p-140f})
        EXPECT_FALSE(has_exact_reciprocal(s)) << s;
}

TEST(DnnlLegality, ExactInF32MatchesADoubleRoundTrip) {
    for (int64_t zp : {int64_t {0}, int64_t {1}, int64_t {-128}, int64_t {255},
                 int64_t {16777216}, int64_t {16777217}, int64_t {-16777217},
                 int64_t {16777218}, int64_t {1073741824} + 64, int64_t {1073741824} + 128,
                 int64_t {2147483647}, int64_t {-2147483647} - 1, int64_t {33554435}}) {
        const bool expected
                = static_cast<double>(static_cast<float>(zp)) == static_cast<double>(zp);
        EXPECT_EQ(is_exact_in_f32(zp), expected) << zp;
    }
}

} // namespace
} // namespace dnnl_test
} // namespace impl
} // namespace qgraph
