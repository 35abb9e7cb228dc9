// Evidence for the dnnl backend's legality rules: oneDNN 2.6's reorder called directly, showing
// where it departs from NUMERICS.md (common/q10n.hpp). If one of these starts failing, oneDNN's
// behaviour changed and the matching rule in src/backends/dnnl/dnnl_legality.cpp can be
// revisited.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "common/q10n.hpp"
#include "dnnl/dnnl_test_util.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_test {
namespace {

using mdt = dnnl::memory::data_type;

const dnnl::engine &engine() {
    static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

// One reorder call as the evidence needs it: a common scale (runtime or not), an optional
// common zero point on src or dst (always passed at run time).
struct reorder_call {
    mdt src_dt = mdt::f32, dst_dt = mdt::u8;
    dnnl::memory::dims dims, src_strides, dst_strides;
    float scale = 1.f;
    int zp_arg = 0; ///< 0, DNNL_ARG_SRC or DNNL_ARG_DST
    int32_t zp = 0;

    // Returns oneDNN's implementation name.
    std::string run(const void *src, void *dst) const {
        const dnnl::memory::desc smd(dims, src_dt, src_strides), dmd(dims, dst_dt, dst_strides);
        dnnl::primitive_attr attr;
        attr.set_output_scales(0, {scale});
        if (zp_arg) attr.set_zero_points(zp_arg, 0, {DNNL_RUNTIME_S32_VAL});
        const dnnl::reorder::primitive_desc pd(engine(), smd, engine(), dmd, attr);
        int32_t zp_val = zp;
        std::unordered_map<int, dnnl::memory> args {
                {DNNL_ARG_SRC, dnnl::memory(smd, engine(), const_cast<void *>(src))},
                {DNNL_ARG_DST, dnnl::memory(dmd, engine(), dst)}};
        if (zp_arg)
            args.emplace(DNNL_ARG_ATTR_ZERO_POINTS | zp_arg,
                    dnnl::memory({{1}, mdt::s32, {1}}, engine(), &zp_val));
        dnnl::stream strm(engine());
        dnnl::reorder(pd).execute(strm, args);
        strm.wait();
        return pd.impl_info_str();
    }
};

// Dense, strided and transposed layouts of n elements.
struct layout_case {
    dnnl::memory::dims dims, src_strides, dst_strides;
};

std::vector<layout_case> layouts(int64_t n) {
    std::vector<layout_case> v {{{n}, {1}, {1}}, {{n}, {3}, {2}}};
    if (n % 2 == 0) v.push_back({{n / 2, 2}, {1, n / 2}, {2, 1}}); // transposed
    return v;
}

int64_t span(const layout_case &l, bool src) {
    const auto &st = src ? l.src_strides : l.dst_strides;
    int64_t m = 1;
    for (size_t i = 0; i < l.dims.size(); ++i) m += (l.dims[i] - 1) * st[i];
    return m;
}

// Every logical element's (src offset, dst offset).
std::vector<std::pair<int64_t, int64_t>> offsets(const layout_case &l) {
    std::vector<std::pair<int64_t, int64_t>> v;
    const int64_t d1 = l.dims.size() > 1 ? l.dims[1] : 1;
    for (int64_t i = 0; i < l.dims[0]; ++i)
        for (int64_t j = 0; j < d1; ++j) {
            const int64_t so = i * l.src_strides[0] + (d1 > 1 ? j * l.src_strides[1] : 0);
            const int64_t dof = i * l.dst_strides[0] + (d1 > 1 ? j * l.dst_strides[1] : 0);
            v.emplace_back(so, dof);
        }
    return v;
}

float bits_to_f32(uint32_t u) {
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

// NUMERICS.md says rne(x/s) + zp; oneDNN computes rne(x*(1/s) + zp), one f32 addition first.
// y = 0.5 + 2^-24 and zp = 2: f32(y + 2) = 2.5 rounds to 2, NUMERICS.md gives 1 + 2 = 3.
TEST(DnnlEvidence, NonzeroZeroPointRoundsTheSumNotTheQuotient) {
    const float y = 0.5f + 0x1p-24f;
    const int32_t zp = 2;
    const int64_t numerics = quantize_value(y, 1.f, zp, {0, 255});
    const float onednn_formula = std::nearbyint(y + static_cast<float>(zp));
    ASSERT_NE(numerics, static_cast<int64_t>(onednn_formula)); // the two formulas differ
    for (int64_t n : {1, 64}) { // scalar tail and vector body
        const std::vector<float> src(n, y);
        std::vector<uint8_t> dst(n, 0);
        reorder_call c;
        c.dims = {n};
        c.src_strides = c.dst_strides = {1};
        c.zp_arg = DNNL_ARG_DST;
        c.zp = zp;
        c.run(src.data(), dst.data());
        for (int64_t i = 0; i < n; ++i) {
            EXPECT_EQ(dst[i], static_cast<uint8_t>(onednn_formula)) << "n " << n;
            EXPECT_NE(dst[i], numerics) << "n " << n;
        }
    }
}

// NaN must give qmin (NUMERICS.md). oneDNN 2.6 writes 127 for s8 on every shape and layout
// (large, tiny, strided, transposed), which is why f32 -> s8 is rejected. For u8 it writes 0,
// which is qmin, so f32 -> u8 stays.
TEST(DnnlEvidence, NaNGivesQmaxForS8AndQminForU8) {
    const float nans[] = {std::numeric_limits<float>::quiet_NaN(),
            -std::numeric_limits<float>::quiet_NaN(), bits_to_f32(0x7fa00001),
            bits_to_f32(0xffc12345)};
    for (mdt dt : {mdt::s8, mdt::u8}) {
        const q_range q = dt == mdt::s8 ? q_range {-128, 127} : q_range {0, 255};
        for (int64_t n : {1, 2, 3, 16, 17, 64, 1000, 100000}) {
            for (const layout_case &l : layouts(n)) {
                std::vector<float> src(span(l, true));
                for (size_t i = 0; i < src.size(); ++i) src[i] = nans[i % 4];
                std::vector<uint8_t> dst(span(l, false), 0x5a);
                reorder_call c;
                c.dst_dt = dt;
                c.dims = l.dims;
                c.src_strides = l.src_strides;
                c.dst_strides = l.dst_strides;
                EXPECT_EQ(c.run(src.data(), dst.data()), "jit:uni");
                for (const auto &o : offsets(l)) {
                    const int64_t got = dt == mdt::s8 ? static_cast<int8_t>(dst[o.second])
                                                      : dst[o.second];
                    const int64_t numerics = quantize_value(src[o.first], 1.f, 0, q);
                    ASSERT_EQ(numerics, q.lo);
                    if (dt == mdt::s8)
                        ASSERT_EQ(got, q.hi) << "s8 n " << n; // qmax, not NUMERICS.md's qmin
                    else
                        ASSERT_EQ(got, numerics) << "u8 n " << n;
                }
            }
        }
    }
}

// Dequantize with a zero point: oneDNN subtracts f32(zp) from f32(x). For 8-bit x that is
// f32(x - zp) exactly when zp is exact in f32, and not otherwise.
TEST(DnnlEvidence, DequantizeSubtractsTheZeroPointInF32) {
    std::vector<uint8_t> src(256);
    for (int i = 0; i < 256; ++i) src[i] = static_cast<uint8_t>(i);
    for (int32_t zp : {16777217, -16777217, 1073741827, 2147483647, 16777216, 16776961,
                 -2147483647 - 1, 128}) {
        const bool exact_zp = static_cast<double>(static_cast<float>(zp)) == zp;
        std::vector<float> dst(256);
        reorder_call c;
        c.src_dt = mdt::u8;
        c.dst_dt = mdt::f32;
        c.dims = {256};
        c.src_strides = c.dst_strides = {1};
        c.zp_arg = DNNL_ARG_SRC;
        c.zp = zp;
        c.run(src.data(), dst.data());
        int mismatches = 0;
        for (int x = 0; x < 256; ++x) {
            const float onednn_formula = static_cast<float>(x) - static_cast<float>(zp);
            EXPECT_EQ(std::memcmp(&dst[x], &onednn_formula, 4), 0) << "x " << x << " zp " << zp;
            const float numerics = dequantize_value(x, zp, 1.f);
            mismatches += std::memcmp(&dst[x], &numerics, 4) != 0;
        }
        if (exact_zp)
            EXPECT_EQ(mismatches, 0) << "zp " << zp;
        else
            EXPECT_GT(mismatches, 0) << "zp " << zp;
    }
}

// s32 x: oneDNN rounds f32(x) before subtracting, so even zp = 1 is inexact:
// x = 2^24 + 1, zp = 1: exact f32(2^24) = 2^24, oneDNN f32(x) - 1 = 2^24 - 1.
TEST(DnnlEvidence, S32DequantizeRoundsXBeforeTheZeroPoint) {
    const int32_t x = 16777217, zp = 1;
    float dst = 0.f;
    reorder_call c;
    c.src_dt = mdt::s32;
    c.dst_dt = mdt::f32;
    c.dims = {1};
    c.src_strides = c.dst_strides = {1};
    c.zp_arg = DNNL_ARG_SRC;
    c.zp = zp;
    c.run(&x, &dst);
    EXPECT_EQ(dst, static_cast<float>(x) - static_cast<float>(zp));
    EXPECT_NE(dst, dequantize_value(x, zp, 1.f));
}

// A static zero point of INT32_MIN is DNNL_RUNTIME_S32_VAL: oneDNN then waits for a runtime
// value and fails without one. The kernel therefore always passes zero points at run time.
TEST(DnnlEvidence, StaticIntMinZeroPointIsTheRuntimeSentinel) {
    ASSERT_EQ(std::numeric_limits<int32_t>::min(), DNNL_RUNTIME_S32_VAL);
    const dnnl::memory::desc smd({4}, mdt::u8, {1}), dmd({4}, mdt::f32, {1});
    dnnl::primitive_attr attr;
    attr.set_zero_points(DNNL_ARG_SRC, 0, {std::numeric_limits<int32_t>::min()});
    const dnnl::reorder::primitive_desc pd(engine(), smd, engine(), dmd, attr);
    uint8_t src[4] = {0, 1, 2, 3};
    float dst[4];
    dnnl::stream strm(engine());
    EXPECT_THROW(dnnl::reorder(pd).execute(strm,
                         {{DNNL_ARG_SRC, dnnl::memory(smd, engine(), src)},
                                 {DNNL_ARG_DST, dnnl::memory(dmd, engine(), dst)}}),
            dnnl::error);
}

// oneDNN multiplies by the output scale, so quantize passes 1/s. Unless s is a power of two,
// f32(1/s) is rounded and x * f32(1/s) misses x / s next to the .5 ties. Inputs: 64 floats on
// either side of every tie (k + 0.5) * s of the u8 range.
TEST(DnnlEvidence, ReciprocalMultiplyIsNotDivisionForOtherScales) {
    for (float s : {0.1f, 0.3f, 3.f, 1.7f, 1.f / 255.f}) {
        std::vector<float> src;
        for (int k = -1; k <= 256; ++k) {
            float x = (static_cast<float>(k) + 0.5f) * s;
            for (int j = 0; j < 64; ++j) x = std::nextafter(x, -1e30f);
            for (int j = 0; j < 129; ++j, x = std::nextafter(x, 1e30f)) src.push_back(x);
        }
        std::vector<uint8_t> dst(src.size());
        reorder_call c;
        c.dims = {static_cast<int64_t>(src.size())};
        c.src_strides = c.dst_strides = {1};
        c.scale = 1.f / s;
        c.run(src.data(), dst.data());
        int mismatches = 0;
        for (size_t i = 0; i < src.size(); ++i) {
            // oneDNN's formula: the NUMERICS.md rule with the division replaced by x * (1/s).
            ASSERT_EQ(dst[i], quantize_value(src[i] * (1.f / s), 1.f, 0, {0, 255})) << src[i];
            mismatches += dst[i] != quantize_value(src[i], s, 0, {0, 255});
        }
        EXPECT_GT(mismatches, 0) << "scale " << s;
    }
}

// With a power-of-two scale the reciprocal multiply is the division: largest subnormal x with
// s = 2^-127 gives x/s ~ 2 (no denormals-are-zero inside oneDNN), and 2^127 * x overflows to
// +Inf exactly when x/2^-127 does.
TEST(DnnlEvidence, PowerOfTwoScalesKeepSubnormalsAndOverflow) {
    const float s = std::ldexp(1.f, -127);
    const float xs[] = {bits_to_f32(0x007fffff), bits_to_f32(0x00400000), 1e-38f, 3e38f,
            -3e38f, std::numeric_limits<float>::denorm_min() * 3};
    std::vector<float> src;
    for (int rep = 0; rep < 16; ++rep)
        for (float x : xs) src.push_back(x);
    std::vector<uint8_t> dst(src.size());
    reorder_call c;
    c.dims = {static_cast<int64_t>(src.size())};
    c.src_strides = c.dst_strides = {1};
    c.scale = 1.f / s;
    c.run(src.data(), dst.data());
    for (size_t i = 0; i < src.size(); ++i)
        EXPECT_EQ(dst[i], quantize_value(src[i], s, 0, {0, 255})) << src[i];
}

} // namespace
} // namespace dnnl_test
} // namespace impl
} // namespace qgraph
