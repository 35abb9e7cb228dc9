// TypeCast, Reorder, StaticReshape and StaticTranspose run end to end (default selection and
// forced ref, bit-identical) against independent loops: hand-computed conversion bits and
// every 16-bit code for TypeCast; element positions computed here from the op's definition
// for the data movement; strided, odd-sized, 0-D and empty tensors; in-place offers.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "api/helpers.hpp"

namespace {

using namespace qtest;

op typecast(const lt &src, const lt &dst) {
    return op(0, op::kind::TypeCast, {src}, {dst}, "tc");
}

op reorder(const lt &src, const lt &dst) {
    return op(0, op::kind::Reorder, {src}, {dst}, "r");
}

op transpose(const lt &src, const lt &dst, const std::vector<int64_t> &order) {
    op o(0, op::kind::StaticTranspose, {src}, {dst}, "t");
    o.set_attr("order", order);
    return o;
}

op reshape(const lt &src, const lt &dst, const std::vector<int64_t> &shape, bool special_zero) {
    op o(0, op::kind::StaticReshape, {src}, {dst}, "rs");
    o.set_attr("shape", shape);
    o.set_attr("special_zero", special_zero);
    return o;
}

/// Distinct 16-bit codes in logical order (for bf16 / f16 tensors moved as bits).
std::vector<uint16_t> codes16(int64_t n) {
    std::vector<uint16_t> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(static_cast<uint16_t>(0x3c00 + 7 * i));
    return v;
}

std::vector<float> values(int64_t n) {
    std::vector<float> v;
    for (int64_t i = 0; i < n; ++i) v.push_back(0.25f * static_cast<float>(i) - 3.f);
    return v;
}

float f32_of(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

/// f16 code -> value from its fields (not through qgraph's converter).
float f16_value(uint16_t h) {
    const int sign = h >> 15, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
    float v;
    if (exp == 0x1f)
        v = man ? NAN : INFINITY;
    else if (exp == 0)
        v = std::ldexp(static_cast<float>(man), -24);
    else
        v = std::ldexp(static_cast<float>(man + 1024), exp - 25);
    return sign ? -v : v;
}

// ---- TypeCast ----

TEST(TypeCast, F32ToBf16RoundsToNearestEvenKeepsNaNAndSubnormals) {
    // input bits -> bf16 bits, worked by hand: ties go to the even mantissa, a carry reaches
    // the exponent (and Inf), NaN stays NaN (quiet), subnormals are kept, -0 stays -0.
    const std::vector<std::pair<uint32_t, uint16_t>> cases {
            {0x3f800000, 0x3f80}, // 1
            {0x3f808000, 0x3f80}, // 1 + 2^-8: tie, even is 1
            {0x3f818000, 0x3f82}, // 1 + 3 * 2^-8: tie, even is up
            {0x3f808001, 0x3f81}, // just above the tie
            {0x3f807fff, 0x3f80}, // just below
            {0x7f7fffff, 0x7f80}, // f32 max rounds to Inf
            {0xff800000, 0xff80}, // -Inf
            {0x80000000, 0x8000}, // -0
            {0x00010000, 0x0001}, // the smallest bf16 subnormal, exactly
            {0x00008000, 0x0000}, // half of it: tie to even 0
            {0x7fc00001, 0x7fc0}, // quiet NaN
            {0x7f800001, 0x7fc0}, // signalling NaN comes out quiet
    };
    std::vector<float> in;
    for (const auto &c : cases) in.push_back(f32_of(c.first));
    const lt src = dense(1, dt::f32, {static_cast<int64_t>(in.size())});
    const lt dst = dense(2, dt::bf16, src.get_dims());
    const run_result r
            = run_default_and_ref(typecast(src, dst), {make_buffer(src, in)}, {buffer(dst)});
    const std::vector<uint16_t> got = r.outputs[0].read<uint16_t>();
    for (size_t i = 0; i < cases.size(); ++i)
        EXPECT_EQ(got[i], cases[i].second) << std::hex << "input 0x" << cases[i].first;
}

TEST(TypeCast, F32ToF16RoundsToNearestEvenOverflowsToInf) {
    const std::vector<std::pair<float, uint16_t>> cases {
            {1.f, 0x3c00},
            {1.f + 0x1p-11f, 0x3c00}, // tie, even is 1
            {1.f + 3 * 0x1p-11f, 0x3c02}, // tie, even is up
            {65504.f, 0x7bff}, // f16 max
            {65519.996f, 0x7bff}, // below the midpoint to Inf
            {65520.f, 0x7c00}, // the midpoint rounds to Inf (even)
            {-1e10f, 0xfc00},
            {0x1p-24f, 0x0001}, // smallest subnormal
            {0x1p-25f, 0x0000}, // tie to even 0
            {0x1.8p-25f, 0x0001}, // above the tie
            {-0.f, 0x8000},
            {INFINITY, 0x7c00},
    };
    std::vector<float> in;
    for (const auto &c : cases) in.push_back(c.first);
    in.push_back(NAN);
    const lt src = dense(1, dt::f32, {static_cast<int64_t>(in.size())});
    const lt dst = dense(2, dt::f16, src.get_dims());
    const run_result r
            = run_default_and_ref(typecast(src, dst), {make_buffer(src, in)}, {buffer(dst)});
    const std::vector<uint16_t> got = r.outputs[0].read<uint16_t>();
    for (size_t i = 0; i < cases.size(); ++i)
        EXPECT_EQ(got[i], cases[i].second) << "input " << cases[i].first;
    EXPECT_EQ(got.back() & 0x7c00, 0x7c00);
    EXPECT_NE(got.back() & 0x3ff, 0) << "NaN must stay NaN";
}

TEST(TypeCast, EverySixteenBitCodeWidensExactly) {
    std::vector<uint16_t> all;
    for (uint32_t c = 0; c <= 0xffff; ++c) all.push_back(static_cast<uint16_t>(c));
    const lt f32 = dense(2, dt::f32, {256, 256});
    for (dt t : {dt::bf16, dt::f16}) {
        SCOPED_TRACE(qgraph::to_string(t));
        const lt src = dense(1, t, {256, 256});
        const run_result r
                = run_default_and_ref(typecast(src, f32), {make_buffer(src, all)}, {buffer(f32)});
        EXPECT_EQ(r.kernel, "ref:convert");
        const std::vector<float> got = r.outputs[0].read<float>();
        for (uint32_t c = 0; c <= 0xffff; ++c) {
            const float want
                    = t == dt::bf16 ? f32_of(c << 16) : f16_value(static_cast<uint16_t>(c));
            ASSERT_TRUE(same_float(got[c], want)) << std::hex << "code 0x" << c;
        }
    }
}

TEST(TypeCast, StridedOddAndEmptyTensors) {
    // src column-major 3x5, dst with a padded row pitch: the values follow the logical index.
    const lt src = strided(1, dt::f32, {3, 5}, {1, 3});
    const lt dst = strided(2, dt::bf16, {3, 5}, {7, 1});
    const std::vector<float> in = values(15); // exact in bf16
    const run_result r
            = run_default_and_ref(typecast(src, dst), {make_buffer(src, in)}, {buffer(dst)});
    const std::vector<uint16_t> got = r.outputs[0].read<uint16_t>();
    for (size_t i = 0; i < in.size(); ++i)
        EXPECT_EQ(f32_of(static_cast<uint32_t>(got[i]) << 16), in[i]) << i;
    // Padding bytes of dst are not written.
    const std::vector<unsigned char> bytes = r.outputs[0].bytes();
    EXPECT_EQ(bytes[2 * 5], 0xA5);
    EXPECT_EQ(bytes[2 * 6 + 1], 0xA5);

    const lt e_src = dense(1, dt::f16, {2, 0, 3}), e_dst = dense(2, dt::f32, {2, 0, 3});
    EXPECT_EQ(run_default_and_ref(typecast(e_src, e_dst), {buffer(e_src)}, {buffer(e_dst)})
                      .outputs[0]
                      .size(),
            0u);
    const lt s_src = dense(1, dt::f32, {}), s_dst = dense(2, dt::f16, {}); // 0-D
    const run_result s = run_default_and_ref(typecast(s_src, s_dst),
            {make_buffer(s_src, std::vector<float> {2.5f})}, {buffer(s_dst)});
    EXPECT_EQ(s.outputs[0].read<uint16_t>(), std::vector<uint16_t> {0x4100});
}

// ---- Reorder ----

TEST(Reorder, AnyStridesToAnyStridesCopiesTheBits) {
    struct layout_pair {
        dims shape, src_strides, dst_strides;
    };
    const std::vector<layout_pair> cases {
            {{2, 64, 3, 3}, {1, 2, 384, 128}, {576, 9, 3, 1}}, // the oneDNN conformance case
            {{3, 5, 7}, {35, 7, 1}, {1, 3, 15}}, // row-major -> column-major, odd sizes
            {{3, 5, 7}, {1, 3, 15}, {40, 8, 1}}, // column-major -> padded rows
            {{4, 6}, {0, 1}, {6, 1}}, // a broadcast src (stride 0)
            {{9}, {2}, {3}}, // strided on both sides
    };
    for (const layout_pair &c : cases) {
        SCOPED_TRACE(::testing::PrintToString(c.dst_strides));
        const lt src = strided(1, dt::f32, c.shape, c.src_strides);
        const lt dst = strided(2, dt::f32, c.shape, c.dst_strides);
        std::vector<float> in = values(nelems(c.shape));
        if (c.src_strides[0] == 0) // a broadcast dim repeats the values along it
            for (size_t i = 0; i < in.size(); ++i) in[i] = in[i % static_cast<size_t>(c.shape[1])];
        const run_result r
                = run_default_and_ref(reorder(src, dst), {make_buffer(src, in)}, {buffer(dst)});
        EXPECT_EQ(r.kernel, "ref:convert");
        EXPECT_EQ(r.outputs[0].read<float>(), in);
    }
    // bf16 / f16 are moved as bits: a signalling NaN payload and -0 survive.
    const lt src = strided(1, dt::bf16, {2, 3}, {1, 2}), dst = dense(2, dt::bf16, {2, 3});
    std::vector<uint16_t> in = codes16(6);
    in[1] = 0x7f81; // signalling NaN
    in[4] = 0x8000; // -0
    const run_result r
            = run_default_and_ref(reorder(src, dst), {make_buffer(src, in)}, {buffer(dst)});
    EXPECT_EQ(r.outputs[0].read<uint16_t>(), in);
}

// ---- StaticTranspose ----

/// dst[i0, ..., i(n-1)] = src at the index with src dim order[d] = i_d: an independent loop
/// over dst's logical index.
template <typename T>
std::vector<T> transposed(
        const std::vector<T> &src, const dims &sd, const std::vector<int64_t> &order) {
    const size_t n = sd.size();
    std::vector<int64_t> ord(order);
    for (int64_t &a : ord)
        if (a < 0) a += static_cast<int64_t>(n);
    dims dd(n);
    for (size_t d = 0; d < n; ++d) dd[d] = sd[static_cast<size_t>(ord[d])];
    std::vector<T> out;
    std::vector<int64_t> idx(n, 0);
    for (int64_t i = 0; i < nelems(dd); ++i) {
        std::vector<int64_t> sidx(n);
        for (size_t d = 0; d < n; ++d) sidx[static_cast<size_t>(ord[d])] = idx[d];
        int64_t flat = 0;
        for (size_t d = 0; d < n; ++d) flat = flat * sd[d] + sidx[d];
        out.push_back(src[static_cast<size_t>(flat)]);
        for (size_t d = n; d-- > 0;) {
            if (++idx[d] < dd[d]) break;
            idx[d] = 0;
        }
    }
    return out;
}

TEST(StaticTranspose, PermutesTheDimsNegativeAxesIncluded) {
    struct tcase {
        dims shape;
        std::vector<int64_t> order;
        dims want;
    };
    const std::vector<tcase> cases {
            {{2, 3, 5}, {2, 0, 1}, {5, 2, 3}},
            {{2, 3, 5}, {-1, 0, -2}, {5, 2, 3}},
            {{3, 7}, {1, 0}, {7, 3}},
            {{2, 3, 4, 5}, {0, 2, 1, 3}, {2, 4, 3, 5}}, // the attention head swap
            {{4, 1, 3}, {1, 2, 0}, {1, 3, 4}},
            {{6}, {-1}, {6}},
    };
    for (const tcase &c : cases) {
        SCOPED_TRACE(::testing::PrintToString(c.order));
        const lt src = dense(1, dt::f32, c.shape);
        const std::vector<float> in = values(nelems(c.shape));
        // The output shape is inferred by the graph and given dense at compile.
        const op o = transpose(src, unknown(2, dt::f32), c.order);
        const run_result r = run_default_and_ref(
                o, {make_buffer(src, in)}, {buffer(dense(2, dt::f32, c.want))});
        EXPECT_EQ(r.outputs[0].read<float>(), transposed(in, c.shape, c.order));
    }
}

TEST(StaticTranspose, StridedDstAndSixteenBitTypes) {
    // The oneDNN conformance layout in small: dst strides that put the elements back where
    // src had them.
    const lt src = dense(1, dt::f16, {2, 3, 4, 5});
    const lt dst = strided(2, dt::f16, {2, 4, 3, 5}, {60, 5, 20, 1});
    const std::vector<uint16_t> in = codes16(120);
    const op o = transpose(src, dst, {0, 2, 1, 3});
    const run_result r = run_default_and_ref(o, {make_buffer(src, in)}, {buffer(dst)});
    EXPECT_EQ(r.outputs[0].read<uint16_t>(), transposed(in, src.get_dims(), {0, 2, 1, 3}));
    EXPECT_EQ(r.outputs[0].bytes(), make_buffer(src, in).bytes()) << "same bytes as src";
}

TEST(StaticTranspose, EmptyAndZeroDimensional) {
    const lt src = dense(1, dt::bf16, {0, 3}), dst = dense(2, dt::bf16, {3, 0});
    EXPECT_EQ(run_default_and_ref(transpose(src, dst, {1, 0}), {buffer(src)}, {buffer(dst)})
                      .outputs[0]
                      .size(),
            0u);
    const lt s = dense(1, dt::f32, {}), d = dense(2, dt::f32, {});
    const run_result r = run_default_and_ref(
            transpose(s, d, {}), {make_buffer(s, std::vector<float> {7.f})}, {buffer(d)});
    EXPECT_EQ(r.outputs[0].read<float>(), std::vector<float> {7.f});
}

TEST(StaticTranspose, IsNotOfferedInPlace) {
    // src and dst have equal strides but dst's dims are src's permuted: writing dst over src
    // element by element would overwrite elements still to be read.
    const lt src = strided(1, dt::f32, {2, 3}, {3, 1});
    const lt dst = strided(2, dt::f32, {3, 2}, {3, 1});
    backend_guard g("ref");
    const qgraph::compiled_partition cp
            = single_partition(transpose(src, dst, {1, 0})).compile({src}, {dst}, cpu());
    EXPECT_TRUE(cp.get_inplace_ports().empty());
    // A Reorder between equal layouts keeps each element where it is: offered.
    const qgraph::compiled_partition same
            = single_partition(reorder(src, strided(2, dt::f32, {2, 3}, {3, 1})))
                      .compile({src}, {strided(2, dt::f32, {2, 3}, {3, 1})}, cpu());
    ASSERT_EQ(same.get_inplace_ports().size(), 1u);
    // And run over one buffer it leaves every element as it was.
    const std::vector<float> in = values(6);
    buffer b = make_buffer(src, in);
    qgraph::stream strm(cpu());
    same.execute(strm, {b.as_tensor()},
            {qgraph::tensor(strided(2, dt::f32, {2, 3}, {3, 1}), cpu(), b.data())});
    strm.wait();
    EXPECT_EQ(b.read<float>(), in);
}

// ---- StaticReshape ----

TEST(StaticReshape, KeepsTheRowMajorOrder) {
    struct rcase {
        dims shape;
        std::vector<int64_t> attr;
        bool special_zero;
        dims want;
    };
    const std::vector<rcase> cases {
            {{2, 3, 4}, {4, -1}, false, {4, 6}},
            {{2, 3, 4}, {0, 12}, true, {2, 12}},
            {{2, 3, 4}, {0, -1, 2}, true, {2, 6, 2}},
            {{5, 7}, {35}, false, {35}},
            {{35}, {1, 5, 1, 7}, false, {1, 5, 1, 7}},
            {{1}, {}, false, {}}, // to 0-D
            {{0, 4}, {0, 3, 0}, false, {0, 3, 0}}, // empty, 0 kept as 0
    };
    for (const rcase &c : cases) {
        SCOPED_TRACE(::testing::PrintToString(c.attr));
        const lt src = dense(1, dt::f32, c.shape);
        const std::vector<float> in = values(nelems(c.shape));
        const op o = reshape(src, unknown(2, dt::f32), c.attr, c.special_zero);
        const run_result r = run_default_and_ref(
                o, {make_buffer(src, in)}, {buffer(dense(2, dt::f32, c.want))});
        EXPECT_EQ(r.outputs[0].read<float>(), in);
    }
}

TEST(StaticReshape, StridedDstAndPaddedSizeOneDims) {
    // A size-1 dim's stride does not make src less dense; dst may have any strides.
    const lt src = strided(1, dt::bf16, {3, 1, 4}, {4, 99, 1});
    const lt dst = strided(2, dt::bf16, {4, 3}, {1, 4});
    const std::vector<uint16_t> in = codes16(12);
    const run_result r = run_default_and_ref(
            reshape(src, dst, {4, 3}, false), {make_buffer(src, in)}, {buffer(dst)});
    EXPECT_EQ(r.outputs[0].read<uint16_t>(), in);
}

TEST(StaticReshape, NonDenseSourceIsUnimplemented) {
    const lt src = strided(1, dt::f32, {3, 4}, {1, 3});
    const lt dst = dense(2, dt::f32, {12});
    EXPECT_QG_ERROR(single_partition(reshape(src, dst, {12}, false)).compile({src}, {dst}, cpu()),
            status::unimplemented, "StaticReshape 'rs' (id 0): input 0 (src) with strides 1x3",
            "is not dense row-major");
}

} // namespace
