// Per-call behaviour of the dnnl kernel: runtime scales and zero points that oneDNN cannot
// compute exactly hand the call to the fallback (the reference) and run() says so; results
// always equal the reference; the kernel keeps no state between calls and runs from several
// threads at once.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "backends/ref/ref_backend.hpp"
#include "dnnl/dnnl_test_util.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_test {
namespace {

const std::string dnnl_name = "dnnl:reorder";

// Runs `s` (with its runtime values) and returns the name of the kernel that ran, checking
// the result against the reference.
std::string ran(const spec &s) {
    std::string name;
    EXPECT_TRUE(same_as_ref(s, &name));
    return name;
}

spec runtime_quantize(std::vector<float> scales, std::vector<int64_t> dims = {257}) {
    spec s = quantize_spec(std::move(dims));
    s.scale_src = param_source::input;
    s.scales = std::move(scales);
    if (s.scales.size() > 1) s.axis = 0;
    return s;
}

TEST(DnnlRuntime, QuantizeNonPowerOfTwoScaleFallsBack) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    for (float sc : {0.3f, 3.f, 0.1f, 1.f + 0x1p-23f, 0x1p-128f, 0x1p-149f, 0.f, -0.f, nan, inf,
                 -inf}) {
        const std::string name = ran(runtime_quantize({sc}));
        EXPECT_NE(name, dnnl_name) << sc;
        EXPECT_EQ(name.rfind("ref:", 0), 0u) << name;
    }
    for (float sc : {0.5f, -4.f, 0x1p-127f, 0x1p127f})
        EXPECT_EQ(ran(runtime_quantize({sc})), dnnl_name) << sc;
}

TEST(DnnlRuntime, QuantizeOneBadChannelFallsBack) {
    std::vector<float> good(9, 0.25f);
    EXPECT_EQ(ran(runtime_quantize(good, {9, 31})), dnnl_name);
    std::vector<float> bad = good;
    bad[8] = 0.2f;
    EXPECT_NE(ran(runtime_quantize(bad, {9, 31})), dnnl_name);
    // More channels than the kernel keeps on its stack.
    std::vector<float> many(200, 2.f);
    EXPECT_EQ(ran(runtime_quantize(many, {200, 3})), dnnl_name);
    many[199] = 3.f;
    EXPECT_NE(ran(runtime_quantize(many, {200, 3})), dnnl_name);
}

TEST(DnnlRuntime, QuantizeStridedRuntimeScales) {
    spec s = runtime_quantize({0.5f, 0.25f, 8.f}, {3, 50});
    s.scale_stride = 3; // gaps hold NaN: reading them would fall back or differ
    EXPECT_EQ(ran(s), dnnl_name);
}

TEST(DnnlRuntime, QuantizeNonzeroRuntimeZeroPointFallsBack) {
    for (data_type zdt : {data_type::u8, data_type::s8, data_type::s32})
        for (int64_t zp : {0, 1, 3, -1}) {
            if (zdt == data_type::u8 && zp < 0) continue;
            spec s = quantize_spec({130});
            s.scales = {0.5f};
            s.zp_src = param_source::input;
            s.zp_dt = zdt;
            s.zps = {zp};
            const std::string name = ran(s);
            if (zp == 0)
                EXPECT_EQ(name, dnnl_name);
            else
                EXPECT_NE(name, dnnl_name) << zp;
        }
    // Per-channel zero points: all must be zero.
    spec pc = quantize_spec({4, 33});
    pc.axis = 0;
    pc.scales = {1.f, 2.f, 4.f, 8.f};
    pc.zp_src = param_source::input;
    pc.zp_dt = data_type::s8;
    pc.zp_stride = 2;
    pc.zps = {0, 0, 0, 0};
    EXPECT_EQ(ran(pc), dnnl_name);
    pc.zps = {0, 0, 0, -5};
    EXPECT_NE(ran(pc), dnnl_name);
}

TEST(DnnlRuntime, DequantizeRuntimeZeroPointNotExactFallsBack) {
    // s32 src: only zp 0 is exact.
    for (int64_t zp : {0, 1, -300}) {
        spec s = dequantize_spec(data_type::s32, {300});
        s.zp_src = param_source::input;
        s.zp_dt = data_type::s32;
        s.zps = {zp};
        const std::string name = ran(s);
        if (zp == 0)
            EXPECT_EQ(name, dnnl_name);
        else
            EXPECT_NE(name, dnnl_name);
    }
    // 8-bit src: any zp exact in f32.
    for (int64_t zp : {16777216, 16777217, -16777217, 2147483647, -2147483647 - 1}) {
        spec s = dequantize_spec(data_type::u8, {300});
        s.zp_src = param_source::input;
        s.zp_dt = data_type::s32;
        s.zps = {zp};
        const bool exact = static_cast<double>(static_cast<float>(zp)) == zp;
        EXPECT_EQ(ran(s) == dnnl_name, exact) << zp;
    }
}

// One kernel, calls that alternate between dnnl and the fallback: nothing carries over.
TEST(DnnlRuntime, NoStateBetweenCalls) {
    const spec s = runtime_quantize({1.f}, {1000});
    const quant_problem prb = make_problem(s);
    std::string reason;
    const auto dk = create_dnnl(prb, reason);
    ASSERT_TRUE(dk) << reason;
    const auto rk = ref_backend().create(prb, {}, reason);
    const auto in = make_f32_inputs(s, [](int64_t i) { return quantize_input(i, 0.5f); });
    const std::pair<float, bool> calls[] = {{0.5f, true}, {0.3f, false}, {0.5f, true},
            {3.f, false}, {2.f, true}, {2.f, true}}; // (scale, oneDNN runs it)
    for (const auto &call : calls) {
        float sc = call.first;
        std::vector<uint8_t> got(1000, 1), want(1000, 2);
        exec_args a;
        a.src = in.src.data();
        a.scales = &sc;
        a.dst = got.data();
        const kernel &k = dk->run(a);
        EXPECT_EQ(&k == dk.get(), call.second) << sc;
        a.dst = want.data();
        rk->run(a);
        EXPECT_EQ(got, want) << sc;
    }
}

TEST(DnnlRuntime, ConcurrentRuns) {
    const spec s = runtime_quantize({1.f}, {1 << 16});
    const quant_problem prb = make_problem(s);
    std::string reason;
    const auto dk = create_dnnl(prb, reason);
    ASSERT_TRUE(dk) << reason;
    const auto rk = ref_backend().create(prb, {}, reason);
    const auto in = make_f32_inputs(s, [](int64_t i) { return quantize_input(i, 0.125f); });

    // Even threads use an exact scale (oneDNN), odd ones a scale that falls back.
    constexpr int n_threads = 8;
    std::vector<std::vector<uint8_t>> got(n_threads, std::vector<uint8_t>(1 << 16));
    std::vector<const kernel *> which(n_threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < n_threads; ++t)
        pool.emplace_back([&, t] {
            const float sc = t % 2 ? 0.1f : 0.125f;
            for (int rep = 0; rep < 20; ++rep) {
                exec_args a;
                a.src = in.src.data();
                a.scales = &sc;
                a.dst = got[t].data();
                which[t] = &dk->run(a);
            }
        });
    for (auto &th : pool) th.join();
    for (int t = 0; t < n_threads; ++t) {
        const float sc = t % 2 ? 0.1f : 0.125f;
        std::vector<uint8_t> want(1 << 16);
        exec_args a;
        a.src = in.src.data();
        a.scales = &sc;
        a.dst = want.data();
        rk->run(a);
        EXPECT_EQ(got[t], want) << "thread " << t;
        EXPECT_EQ(which[t] == dk.get(), t % 2 == 0) << "thread " << t;
    }
}

TEST(DnnlRuntime, NullPointersAreInvalidArguments) {
    spec s = runtime_quantize({0.5f}, {16});
    s.zp_src = param_source::input;
    s.zp_dt = data_type::u8;
    s.zps = {0};
    std::string reason;
    const auto dk = create_dnnl(make_problem(s), reason);
    ASSERT_TRUE(dk) << reason;
    const auto in = make_f32_inputs(s, [](int64_t) { return 1.f; });
    std::vector<uint8_t> dst(16);
    const exec_args good {in.src.data(), dst.data(), in.scales.data(), in.zps.data()};
    EXPECT_EQ(&dk->run(good), dk.get());
    for (int missing = 0; missing < 4; ++missing) {
        exec_args a = good;
        if (missing == 0) a.src = nullptr;
        if (missing == 1) a.dst = nullptr;
        if (missing == 2) a.scales = nullptr;
        if (missing == 3) a.zps = nullptr;
        try {
            dk->run(a);
            ADD_FAILURE() << "no error with pointer " << missing << " null";
        } catch (const error &e) {
            EXPECT_EQ(e.status(), status::invalid_arguments);
        }
    }
}

} // namespace
} // namespace dnnl_test
} // namespace impl
} // namespace qgraph
