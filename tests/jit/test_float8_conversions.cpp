// The JIT float8/float4 conversions (jit_float8_emitter.hpp, through float8_kernel.hpp)
// against common/minifloat.hpp, bit for bit, at every ISA level the machine has.
//
// One source, two binaries (tests/jit/CMakeLists.txt):
// - QGRAPH_F8_EXHAUSTIVE=1 (label `exhaustive`): encode (of x + 0.f, as the kernels run
//   it; for e4m3 / e5m2 both forms of the word encode) of every one of the 2^32 f32
//   bit patterns for each type, saturating and not, at every ISA level.
//   minifloat.hpp's encode depends only on |x|
//   and the sign and is non-decreasing in |x| (tests/ref checks it against an independent
//   model on every input), so the expected code is constant between its breakpoints, which
//   a binary search over the f32 bit patterns finds (zero apart: -0 + 0.f is +0); every
//   input is then compared with the code of its interval.
// - QGRAPH_F8_EXHAUSTIVE=0 (label `core`): every code decoded (decode(), and the f16 route
//   and avx2's 32-code decode of the dequantize kernels where they serve the type); encode
//   of the special values, every code's value, the midpoints between neighbouring values
//   and their f32 neighbours, the overflow thresholds and 2^20 random bit patterns.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/cpu_isa.hpp"
#include "common/half_types.hpp"
#include "common/minifloat.hpp"
#include "float8_kernel.hpp"
#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {
namespace jit {
namespace {

using dt = data_type;
constexpr dt kTypes[] = {
        dt::f8_e4m3, dt::f8_e4m3fnuz, dt::f8_e5m2, dt::f8_e5m2fnuz, dt::f4_e2m1};

std::vector<cpu_isa_t> isa_levels() {
    std::vector<cpu_isa_t> v;
    for (cpu_isa_t isa : {avx2, avx512_core})
        if (mayiuse(isa, isa_all)) v.push_back(isa);
    return v;
}

/// What the conversion kernel gives for x: the code of x + 0.f, as the quantize kernels
/// encode x / s + 0.f (float8_kernel.hpp).
uint32_t expected_code(dt t, float x, bool saturate) {
    return f32_to_minifloat(t, x + 0.f, saturate);
}

std::string label(dt t, bool saturate, cpu_isa_t isa, bool packs = false) {
    return std::string(to_string(t)) + (saturate ? " saturate" : " no-saturate") + " at "
            + isa_name(isa) + (packs ? " (packs, as without AVX512_VBMI)" : "");
}

/// Whether to run the encode also with the packs of a CPU without AVX512_VBMI (the word
/// encode's other store, avx512 e4m3 / e5m2); the CPU decides the first run.
std::vector<bool> pack_variants(cpu_isa_t isa, dt t) {
    if (isa == avx512_core && (t == dt::f8_e4m3 || t == dt::f8_e5m2)) return {false, true};
    return {false};
}

TEST(JitFloat8, DecodesEveryCode) {
    for (cpu_isa_t isa : isa_levels())
        for (dt t : kTypes) {
            const uint32_t ncodes = 1u << facts_of(t).bits;
            std::vector<uint32_t> codes(ncodes);
            for (uint32_t c = 0; c < ncodes; ++c) codes[c] = c;
            std::vector<float> y(ncodes);
            jit_decode_minifloat(isa, t, codes.data(), y.data(), ncodes);
            for (uint32_t c = 0; c < ncodes; ++c)
                ASSERT_EQ(f32_bits(y[c]), f32_bits(minifloat_to_f32(t, c)))
                        << to_string(t) << " code " << c << " at " << isa_name(isa);
        }
}

TEST(JitFloat8, DecodesEveryCodeThroughF16) {
    int served = 0;
    for (cpu_isa_t isa : isa_levels())
        for (dt t : kTypes) {
            const uint32_t ncodes = 1u << facts_of(t).bits;
            std::vector<uint8_t> codes(ncodes);
            for (uint32_t c = 0; c < ncodes; ++c) codes[c] = static_cast<uint8_t>(c);
            std::vector<float> y(ncodes);
            if (!jit_decode_minifloat_f16(isa, t, codes.data(), y.data(), ncodes)) continue;
            ++served;
            for (uint32_t c = 0; c < ncodes; ++c)
                ASSERT_EQ(f32_bits(y[c]), f32_bits(minifloat_to_f32(t, c)))
                        << to_string(t) << " code " << c << " at " << isa_name(isa);
        }
    EXPECT_GT(served, 0); // e5m2 at every level, so the route ran
}

TEST(JitFloat8, DecodesEveryCodeInQuads) {
    // avx2's dequantize decode, 32 codes a step: each code in every lane of the step (the
    // codes rotated by one per window of 256), and a length that leaves a tail.
    int served = 0;
    for (cpu_isa_t isa : isa_levels())
        for (dt t : kTypes) {
            std::vector<uint8_t> codes(256 * 32 + 7);
            for (size_t i = 0; i < codes.size(); ++i)
                codes[i] = static_cast<uint8_t>(i + i / 256);
            std::vector<float> y(codes.size());
            if (!jit_decode_minifloat_quads(isa, t, codes.data(), y.data(),
                        static_cast<int64_t>(codes.size())))
                continue;
            ++served;
            for (size_t i = 0; i < codes.size(); ++i)
                ASSERT_EQ(f32_bits(y[i]), f32_bits(minifloat_to_f32(t, codes[i])))
                        << to_string(t) << " code " << int(codes[i]) << " at element " << i
                        << " at " << isa_name(isa);
        }
    if (mayiuse(avx2, isa_all)) {
        EXPECT_EQ(served, 2); // e4m3 and e5m2, at avx2 only
    }
}

#if !QGRAPH_F8_EXHAUSTIVE
/// The inputs where encoding can go wrong: every value of the type, the midpoints between
/// neighbours (ties) and the f32 values around each, specials, f32 subnormals, random bits.
std::vector<float> edge_inputs(dt t) {
    std::vector<float> vals;
    const uint32_t ncodes = 1u << facts_of(t).bits;
    for (uint32_t c = 0; c < ncodes; ++c) {
        const float v = minifloat_to_f32(t, c);
        if (!std::isnan(v) && !std::isinf(v)) vals.push_back(std::fabs(v));
    }
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    std::vector<float> pts = vals;
    for (size_t i = 0; i + 1 < vals.size(); ++i)
        pts.push_back(static_cast<float>((double(vals[i]) + vals[i + 1]) / 2));
    // Past the top: the midpoint to the next binade's first value and beyond.
    const double top = vals.back(), step = top - vals[vals.size() - 2];
    for (double k : {0.5, 1.0, 1.5, 2.0, 4.0}) pts.push_back(static_cast<float>(top + k * step));
    std::vector<float> in;
    for (float p : pts)
        for (int d = -3; d <= 3; ++d) {
            const uint32_t b = f32_bits(p) + d;
            if (static_cast<int32_t>(b) >= 0) in.push_back(f32_from_bits(b));
        }
    for (uint32_t b : {0x0u, 0x1u, 0x7fffffu, 0x800000u, 0x7f7fffffu, 0x7f800000u, 0x7f800001u,
                 0x7fc00000u, 0x7fffffffu, 0x3f800000u})
        in.push_back(f32_from_bits(b));
    std::mt19937 rng(12345);
    for (int i = 0; i < (1 << 20); ++i) in.push_back(f32_from_bits(rng()));
    const size_t n = in.size();
    for (size_t i = 0; i < n; ++i) in.push_back(-in[i]);
    return in;
}

TEST(JitFloat8, EncodesEdgesAndRandomBits) {
    for (cpu_isa_t isa : isa_levels())
        for (dt t : kTypes) {
            const std::vector<float> in = edge_inputs(t);
            std::vector<uint32_t> code(in.size());
            for (bool sat : {true, false})
                for (bool packs : pack_variants(isa, t)) {
                    jit_encode_minifloat(
                            isa, t, sat, in.data(), code.data(), in.size(), packs);
                    int bad = 0;
                    for (size_t i = 0; i < in.size() && bad < 5; ++i) {
                        const uint32_t want = expected_code(t, in[i], sat);
                        if (code[i] == want) continue;
                        ++bad;
                        ADD_FAILURE() << label(t, sat, isa, packs) << ": x = " << in[i]
                                      << " (0x" << std::hex << f32_bits(in[i]) << ") gave 0x"
                                      << code[i] << ", want 0x" << want << std::dec;
                    }
                }
        }
}
#else
/// Intervals of f32 bit patterns (of |x|) on which encoding gives one code, for each sign.
struct interval {
    uint32_t first; ///< bits of the first |x| of the interval
    uint32_t pos, neg; ///< the codes of +x and -x
};

std::vector<interval> intervals(dt t, bool sat) {
    const auto enc = [&](uint32_t b) { return expected_code(t, f32_from_bits(b), sat); };
    // Zero alone: -0 + 0.f is +0, while every other negative keeps its sign.
    std::vector<interval> v {{0u, enc(0u), enc(0x80000000u)}};
    uint32_t b = 1;
    // Finite values: the next breakpoint is the first bits whose code differs.
    while (b < 0x7f800000u) {
        const uint32_t c = enc(b);
        v.push_back({b, c, enc(b | 0x80000000u)});
        uint32_t lo = b, hi = 0x7f800000u; // enc(lo) == c, the answer is in (lo, hi]
        while (hi - lo > 1) {
            const uint32_t mid = lo + (hi - lo) / 2;
            (enc(mid) == c ? lo : hi) = mid;
        }
        b = hi;
    }
    v.push_back({0x7f800000u, enc(0x7f800000u), enc(0xff800000u)}); // Inf
    v.push_back({0x7f800001u, enc(0x7fc00000u), enc(0xffc00000u)}); // NaN
    return v;
}

TEST(JitFloat8, EncodesEveryF32) {
    constexpr uint64_t block = 1u << 20;
    for (cpu_isa_t isa : isa_levels())
        for (dt t : kTypes)
            for (bool sat : {true, false})
                for (bool packs : pack_variants(isa, t)) {
                    const std::vector<interval> iv = intervals(t, sat);
                    std::atomic<uint64_t> next {0}, bad {0};
                    auto work = [&] {
                        std::vector<uint32_t> x(block); // f32 bit patterns
                        std::vector<uint32_t> code(block);
                        for (;;) {
                            const uint64_t start = next.fetch_add(block);
                            if (start >= (uint64_t(1) << 32)) return;
                            for (uint64_t i = 0; i < block; ++i)
                                x[i] = static_cast<uint32_t>(start + i);
                            jit_encode_minifloat(isa, t, sat,
                                    reinterpret_cast<const float *>(x.data()), code.data(), block,
                                    packs);
                            // The block holds one sign; walk its intervals along |x|, comparing
                            // each interval's stretch of codes with its one expected code.
                            const uint32_t mag0 = static_cast<uint32_t>(start) & 0x7fffffffu;
                            const bool neg = (start >> 31) != 0;
                            size_t k = std::upper_bound(iv.begin(), iv.end(), mag0,
                                               [](uint32_t m, const interval &e) {
                                                   return m < e.first;
                                               })
                                    - iv.begin() - 1;
                            for (uint64_t i = 0; i < block; ++k) {
                                const uint64_t end = k + 1 < iv.size()
                                        ? std::min<uint64_t>(block, iv[k + 1].first - mag0)
                                        : block;
                                const uint32_t want = neg ? iv[k].neg : iv[k].pos;
                                uint64_t wrong = 0;
                                for (uint64_t j = i; j < end; ++j) wrong += code[j] != want;
                                if (wrong)
                                    for (uint64_t j = i; j < end; ++j)
                                        if (code[j] != want && bad.fetch_add(1) < 5)
                                            ADD_FAILURE()
                                                    << label(t, sat, isa, packs) << ": bits 0x"
                                                    << std::hex << (start + j) << " gave 0x"
                                                    << code[j] << ", want 0x" << want
                                                    << std::dec;
                                i = end;
                            }
                        }
                    };
                    std::thread other(work);
                    work();
                    other.join();
                    EXPECT_EQ(bad.load(), 0u) << label(t, sat, isa, packs);
                }
}
#endif

} // namespace
} // namespace jit
} // namespace impl
} // namespace qgraph
