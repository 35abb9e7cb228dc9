// common/half_types: bf16 / f16 <-> f32, bit for bit.
// - Hand-computed bits for the special values (zeros, Inf, NaN payloads, the f16 overflow
//   threshold 65520, subnormal edges, ties), checked against the code and against its oracle.
// - f32 -> f16 against F16C's vcvtps2ph on every 4099th bit pattern plus the specials;
//   f16 -> f32 against vcvtph2ps on all 65536 inputs (skipped without F16C), and its loop
//   form against the scalar one on all of them. All 2^32 f32
//   inputs: test_half_types_exhaustive (label exhaustive).
// - f32 -> bf16 against the independent model in half_oracles.hpp on the same sample; the
//   NaN rule and normal rounding against vcvtneps2bf16 where the CPU has it.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/half_types.hpp"
#include "ref/half_oracles.hpp"

namespace {

using qgraph::impl::bf16_to_f32;
using qgraph::impl::f16_to_f32;
using qgraph::impl::f32_to_bf16;
using qgraph::impl::f32_to_f16;
using qtest::f32_bits;
using qtest::f32_of;

struct to_half_case {
    uint32_t f32; ///< input bits
    uint16_t want; ///< expected output bits
};

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof(buf), "0x%08x", v);
    return buf;
}

// f32 -> f16, worked out by hand (f16: 5 exponent bits, bias 15, 10 mantissa bits).
const std::vector<to_half_case> f16_cases = {
        {0x00000000, 0x0000}, {0x80000000, 0x8000}, // +-0
        {0x7f800000, 0x7c00}, {0xff800000, 0xfc00}, // +-Inf
        {0x7fc00000, 0x7e00}, {0xffc00000, 0xfe00}, // quiet NaNs
        {0x7f800001, 0x7e00}, // signalling, payload only in the dropped low bits: still NaN
        {0x7fa00000, 0x7f00}, // signalling, payload bit 21 -> f16 bit 8, quiet bit set
        {0xff802000, 0xfe01}, // signalling, lowest kept payload bit (f32 bit 13)
        {0x7fffffff, 0x7fff}, // all payload bits
        {0x3f800000, 0x3c00}, // 1
        {0xc0200000, 0xc100}, // -2.5
        {0x3eaaaaab, 0x3555}, // 1/3
        {0x477fe000, 0x7bff}, // 65504, the largest f16
        {0x477fefff, 0x7bff}, // 65519.996..., the largest f32 below 65520
        {0x477ff000, 0x7c00}, // 65520: tie between 65504 (odd mantissa) and 2^16 -> Inf
        {0xc77ff000, 0xfc00}, // -65520
        {0x47800000, 0x7c00}, // 65536
        {0x7f7fffff, 0x7c00}, // FLT_MAX
        {0x38800000, 0x0400}, // 2^-14, the smallest normal f16
        {0x387fffff, 0x0400}, // just below 2^-14: rounds up to it
        {0x387fc000, 0x03ff}, // 1023 * 2^-24, the largest subnormal f16
        {0x33800000, 0x0001}, // 2^-24, the smallest subnormal f16
        {0x33000000, 0x0000}, // 2^-25: tie between 0 and 2^-24 -> 0 (even)
        {0x33000001, 0x0001}, // just above 2^-25
        {0x32ffffff, 0x0000}, // just below 2^-25
        {0xb3000001, 0x8001}, // -(just above 2^-25)
        {0x33c00000, 0x0002}, // 1.5 * 2^-24: tie -> 2 (even)
        {0x34200000, 0x0002}, // 2.5 * 2^-24: tie -> 2 (even)
        {0x3f801000, 0x3c00}, // 1 + 2^-11: tie -> 1 (even)
        {0x3f803000, 0x3c02}, // 1 + 3 * 2^-11: tie -> 1 + 2^-9 (even)
        {0x3f801001, 0x3c01}, // 1 + 2^-11 + 2^-23: above the tie
        {0x45001000, 0x6800}, // 2049: tie between 2048 and 2050 -> 2048
        {0x45003000, 0x6802}, // 2051: tie -> 2052
        {0x00000001, 0x0000}, {0x807fffff, 0x8000}, // f32 subnormals: far below 2^-25
};

// f32 -> bf16 by hand (bf16: the top 16 bits of an f32).
const std::vector<to_half_case> bf16_cases = {
        {0x00000000, 0x0000}, {0x80000000, 0x8000}, {0x7f800000, 0x7f80}, {0xff800000, 0xff80},
        {0x3f800000, 0x3f80}, // 1
        {0x3f807fff, 0x3f80}, // below the tie
        {0x3f808000, 0x3f80}, // 1 + 2^-8: tie -> 1 (even)
        {0x3f808001, 0x3f81}, // above the tie
        {0x3f818000, 0x3f82}, // tie -> even
        {0xbf818000, 0xbf82},
        {0x7f7f7fff, 0x7f7f}, // below the tie at the top: the largest finite bf16
        {0x7f7f8000, 0x7f80}, // tie between the largest bf16 (odd) and 2^128 -> Inf
        {0x7f7fffff, 0x7f80}, // FLT_MAX -> Inf
        {0xff7fffff, 0xff80},
        // Subnormals are rounded like any other value, never flushed to zero.
        {0x00000001, 0x0000}, // the smallest f32
        {0x00008000, 0x0000}, // tie between 0 and 2^-133 -> 0
        {0x00008001, 0x0001},
        {0x00010000, 0x0001}, // 2^-133, the smallest subnormal bf16: exact
        {0x00018000, 0x0002}, // tie -> even
        {0x00400000, 0x0040}, // 2^-127: exact
        {0x007fffff, 0x0080}, // the largest subnormal f32 rounds up to 2^-126
        {0x807f8000, 0x8080}, // tie between -0x007f (odd) and -2^-126 -> -2^-126
        // NaN: the top half with the quiet bit (0x0040) set; sign and top payload kept.
        {0x7fc00000, 0x7fc0}, {0xffc00001, 0xffc0},
        {0x7f800001, 0x7fc0}, // signalling, payload only in the low half
        {0xff800001, 0xffc0},
        {0x7f810000, 0x7fc1}, // signalling with payload in the top half
        {0x7fbfffff, 0x7fff}, // would round up into the exponent if rounded like a number
};

TEST(HalfTypes, F32ToF16HandComputed) {
    for (const to_half_case &c : f16_cases) {
        EXPECT_EQ(f32_to_f16(f32_of(c.f32)), c.want) << hex(c.f32);
        if (qtest::have_f16c()) {
            EXPECT_EQ(qtest::f16c_from_f32(f32_of(c.f32)), c.want) << "vcvtps2ph, " << hex(c.f32);
        }
    }
}

TEST(HalfTypes, F32ToBf16HandComputed) {
    for (const to_half_case &c : bf16_cases) {
        EXPECT_EQ(f32_to_bf16(f32_of(c.f32)), c.want) << hex(c.f32);
        EXPECT_EQ(qtest::bf16_model(f32_of(c.f32)), c.want) << "model, " << hex(c.f32);
    }
}

/// Every 4099th bit pattern (4099 is prime, so every bit position varies) plus the specials.
std::vector<uint32_t> sample() {
    std::vector<uint32_t> v;
    for (uint64_t b = 0; b <= 0xffffffffu; b += 4099) v.push_back(static_cast<uint32_t>(b));
    for (const auto *cases : {&f16_cases, &bf16_cases})
        for (const to_half_case &c : *cases) v.push_back(c.f32);
    return v;
}

TEST(HalfTypes, F32ToF16MatchesF16cOnASample) {
    if (!qtest::have_f16c()) GTEST_SKIP() << "the CPU has no F16C";
    int64_t mismatches = 0;
    for (uint32_t b : sample()) {
        const uint16_t got = f32_to_f16(f32_of(b)), want = qtest::f16c_from_f32(f32_of(b));
        if (got != want && ++mismatches <= 10)
            ADD_FAILURE() << hex(b) << ": got " << hex(got) << ", vcvtps2ph " << hex(want);
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(HalfTypes, F16ToF32MatchesF16cOnEveryInput) {
    if (!qtest::have_f16c()) GTEST_SKIP() << "the CPU has no F16C";
    int mismatches = 0;
    for (uint32_t h = 0; h <= 0xffff; ++h) {
        const uint32_t got = f32_bits(f16_to_f32(static_cast<uint16_t>(h)));
        const uint32_t want = f32_bits(qtest::f16c_to_f32(static_cast<uint16_t>(h)));
        if (got != want && ++mismatches <= 10)
            ADD_FAILURE() << hex(h) << ": got " << hex(got) << ", vcvtph2ps " << hex(want);
    }
    EXPECT_EQ(mismatches, 0);
}

TEST(HalfTypes, F16ToF32OfManyCodesMatchesOneAtATime) {
    // The loop form (runtime scale tensors) on every code, unaligned and with an odd count.
    std::vector<uint16_t> h(65536 + 3);
    for (size_t i = 0; i < h.size(); ++i) h[i] = static_cast<uint16_t>(i - 1);
    std::vector<float> f(h.size() + 1, 1.f);
    qgraph::impl::f16_to_f32(h.data() + 1, f.data() + 1, static_cast<int64_t>(h.size() - 1));
    int mismatches = 0;
    for (size_t i = 1; i < h.size(); ++i) {
        const uint32_t got = f32_bits(f[i]), want = f32_bits(f16_to_f32(h[i]));
        if (got != want && ++mismatches <= 10)
            ADD_FAILURE() << hex(h[i]) << ": got " << hex(got) << ", one at a time " << hex(want);
    }
    EXPECT_EQ(mismatches, 0);
    EXPECT_EQ(f32_bits(f[0]), f32_bits(1.f)); // nothing written before the first
}

TEST(HalfTypes, E8m0ToF32OfEveryCodeIsAPowerOfTwo) {
    // The loop form (MX scale tensors widened at execute) on every code, against ldexp:
    // 2^(c - 127), NaN for 0xff; nothing written past the count.
    std::vector<uint8_t> c(256);
    for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<uint8_t>(i);
    std::vector<float> f(c.size() + 1, 1.f);
    qgraph::impl::e8m0_to_f32(c.data(), f.data(), 256);
    for (int i = 0; i < 255; ++i)
        EXPECT_EQ(f32_bits(f[i]), f32_bits(std::ldexp(1.f, i - 127))) << "code " << i;
    EXPECT_TRUE(std::isnan(f[255]));
    EXPECT_EQ(f32_bits(f[256]), f32_bits(1.f));
}

TEST(HalfTypes, F16ToF32HandComputed) {
    const std::vector<std::pair<uint16_t, uint32_t>> cases = {
            {0x0000, 0x00000000}, {0x8000, 0x80000000}, {0x3c00, 0x3f800000},
            {0x0001, 0x33800000}, // 2^-24: f16 subnormals are f32 normals
            {0x03ff, 0x387fc000}, {0x0400, 0x38800000}, {0x7bff, 0x477fe000},
            {0x7c00, 0x7f800000}, {0xfc00, 0xff800000},
            {0x7e00, 0x7fc00000}, // quiet NaN
            {0x7c01, 0x7fc02000}, // signalling NaN: made quiet, payload kept
            {0xfdff, 0xffffe000},
    };
    for (const auto &c : cases) EXPECT_EQ(f32_bits(f16_to_f32(c.first)), c.second) << hex(c.first);
}

TEST(HalfTypes, F16RoundTripsThroughF32) {
    // Every f16 comes back unchanged, except that a signalling NaN comes back quiet.
    for (uint32_t h = 0; h <= 0xffff; ++h) {
        const bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0;
        const uint16_t want = static_cast<uint16_t>(nan ? h | 0x200u : h);
        ASSERT_EQ(f32_to_f16(f16_to_f32(static_cast<uint16_t>(h))), want) << hex(h);
    }
}

TEST(HalfTypes, F32ToBf16MatchesTheModelOnASample) {
    int64_t mismatches = 0;
    for (uint32_t b : sample()) {
        const uint16_t got = f32_to_bf16(f32_of(b)), want = qtest::bf16_model(f32_of(b));
        if (got != want && ++mismatches <= 10)
            ADD_FAILURE() << hex(b) << ": got " << hex(got) << ", model " << hex(want);
    }
    EXPECT_EQ(mismatches, 0);
}

__attribute__((target("avx512bf16,avx512vl"))) uint16_t vcvtneps2bf16(float f) {
    const __m128bh r = _mm_cvtneps_pbh(_mm_set1_ps(f));
    uint16_t h;
    std::memcpy(&h, &r, sizeof(h));
    return h;
}

TEST(HalfTypes, F32ToBf16MatchesVcvtneps2bf16OnNormalsAndNaNs) {
    // The instruction treats subnormal inputs as zero (qgraph rounds them), so those are
    // left out; everything else, NaNs included, must agree.
    if (!__builtin_cpu_supports("avx512bf16")) GTEST_SKIP() << "the CPU has no AVX512_BF16";
    int64_t checked = 0, mismatches = 0;
    for (uint32_t b : sample()) {
        if ((b & 0x7f800000u) == 0) continue;
        ++checked;
        const uint16_t got = f32_to_bf16(f32_of(b)), want = vcvtneps2bf16(f32_of(b));
        if (got != want && ++mismatches <= 10)
            ADD_FAILURE() << hex(b) << ": got " << hex(got) << ", vcvtneps2bf16 " << hex(want);
    }
    EXPECT_GT(checked, 1000000);
    EXPECT_EQ(mismatches, 0);
}

TEST(HalfTypes, Bf16ToF32IsAShift) {
    const std::vector<std::pair<uint16_t, uint32_t>> cases = {{0x0000, 0x00000000},
            {0x8000, 0x80000000}, {0x3f80, 0x3f800000}, {0xc0a0, 0xc0a00000},
            {0x0001, 0x00010000}, // subnormal, kept
            {0x7f7f, 0x7f7f0000}, {0x7f80, 0x7f800000}, {0xff80, 0xff800000},
            {0x7f81, 0x7f810000}, // a signalling NaN stays signalling (like vpslld)
            {0xffc1, 0xffc10000}};
    for (const auto &c : cases) EXPECT_EQ(f32_bits(bf16_to_f32(c.first)), c.second) << hex(c.first);
    // And f32 -> bf16 gives every bf16 back (signalling NaNs quiet).
    for (uint32_t h = 0; h <= 0xffff; ++h) {
        const bool nan = (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0;
        const uint16_t want = static_cast<uint16_t>(nan ? h | 0x40u : h);
        ASSERT_EQ(f32_to_bf16(bf16_to_f32(static_cast<uint16_t>(h))), want) << hex(h);
    }
}

} // namespace
