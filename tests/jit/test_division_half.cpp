// Division in f16 and bf16 as the quantize kernels compute it (jit_division.hpp, "Division
// in f16 and bf16"; jit_quantize.cpp's round_quotient()): for x and s of that type, the f32
// quotient q = x * RN(1/s) (the multiply path; bf16 scales outside [2^-30, 2^30] take the
// divide path, q = RN(x / s)), rounded to the type in integers, ties away from zero: the
// bits of q plus half a unit of the last kept bit, the rest cleared. Against the quotient x / s
// computed in double and rounded to the type here, nearest even, by a rounding that shares
// nothing with the kernels' or the library's.
//
// One source, two binaries (tests/jit/CMakeLists.txt):
// - QGRAPH_DIV_HALF_EXHAUSTIVE=1 (label `exhaustive`): every pair of finite f16 values and
//   every pair of finite bf16 values with s != 0. Signs are symmetric in both roundings, so
//   x and s run over the positive values and zeros.
// - QGRAPH_DIV_HALF_EXHAUSTIVE=0 (label `core`): every x against every 61st scale.
//
// For a quotient that is normal in the type the two must be equal; where x / s rounds past
// the largest finite value, both must be beyond it (bf16: Inf; the kernels' f16 rounding,
// used for byte destinations only, gives a finite value above 65504). Below the normal
// range the two may differ, but both must lie at or below 2^-14 in magnitude, so every
// integer destination gets 0 from either.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "backends/jit/jit_division.hpp"
#include "common/half_types.hpp"
#include "common/q10n.hpp"
#include "qgraph/qgraph.hpp"

namespace {

using qgraph::data_type;

#if QGRAPH_DIV_HALF_EXHAUSTIVE
constexpr uint32_t scale_step = 1;
#else
constexpr uint32_t scale_step = 61;
#endif

/// A binary float type's rounding facts, written out here rather than read from the library.
struct half_format {
    data_type dt;
    int p; ///< significant bits
    double min_normal;
    double max_finite;
    float (*decode)(uint16_t);
};

float decode_f16(uint16_t h) { return qgraph::impl::f16_to_f32(h); }
float decode_bf16(uint16_t h) { return qgraph::impl::bf16_to_f32(h); }

const half_format f16_format {data_type::f16, 11, 0x1p-14, 65504.0, decode_f16};
const half_format bf16_format {data_type::bf16, 8, 0x1p-126, 0x1.fep127, decode_bf16};

/// The kernels' rounding of an f32 quotient to f's significand: its bits plus half a unit of
/// the last kept bit, the 24 - p low bits cleared.
double kernel_round(float q, const half_format &f) {
    const int drop = 24 - f.p;
    const uint32_t b = qgraph::impl::f32_bits(q) + (1u << (drop - 1));
    return qgraph::impl::f32_from_bits(b & ~((1u << drop) - 1));
}

/// v > 0, normal in f, rounded to p bits, nearest even (the default rounding mode of
/// nearbyint); past the largest finite value, Inf.
double round_normal(double v, const half_format &f) {
    int e = 0;
    const double m = std::frexp(v, &e); // v = m 2^e, 0.5 <= m < 1
    const double r = std::ldexp(std::nearbyint(std::ldexp(m, f.p)), e - f.p);
    return r > f.max_finite ? INFINITY : r;
}

struct tally {
    uint64_t pairs = 0, wrong = 0;
};

/// Every positive x (and 0) of f against positive scales s from `first`, every scale_step-th.
tally check_pairs(const half_format &f, uint32_t first_x, uint32_t x_step) {
    tally t;
    for (uint32_t xb = first_x; xb < 0x7fff; xb += x_step) {
        const float x = f.decode(static_cast<uint16_t>(xb));
        if (!std::isfinite(x)) continue;
        for (uint32_t sb = 1; sb < 0x7fff; sb += scale_step) {
            const float s = f.decode(static_cast<uint16_t>(sb));
            if (!std::isfinite(s)) continue;
            const qgraph::impl::jit::recip_params r = qgraph::impl::jit::make_recip(s);
            // What the kernel computes: one f32 multiply by RN(1/s), or the f32 division,
            // rounded to the type in integers.
            const float q = r.in_range ? x * r.y_hi : x / s;
            const double got = kernel_round(q, f);
            // x / s rounded to 53 bits: rounding that again to p <= 11 bits is innocuous
            // (53 >= 2p + 2 for a quotient of p-bit values).
            const double exact = static_cast<double>(x) / s;
            bool ok;
            if (exact == 0) {
                ok = got == 0;
            } else if (exact >= f.min_normal) {
                const double want = round_normal(exact, f);
                ok = want == INFINITY ? got > f.max_finite : got == want;
            } else {
                ok = got <= 0x1p-14;
            }
            ++t.pairs;
            if (!ok && ++t.wrong <= 5)
                std::printf("%s: x = %a, s = %a: got %a, exact quotient %a\n",
                        qgraph::to_string(f.dt), x, s, got, exact);
        }
    }
    return t;
}

/// check_pairs() over every x on two threads.
void expect_every_pair(const half_format &f) {
    constexpr int threads = 2;
    std::vector<tally> parts(threads);
    std::vector<std::thread> pool;
    for (int i = 0; i < threads; ++i)
        pool.emplace_back([&, i] { parts[i] = check_pairs(f, i, threads); });
    for (std::thread &th : pool) th.join();
    tally all;
    for (const tally &p : parts) {
        all.pairs += p.pairs;
        all.wrong += p.wrong;
    }
    EXPECT_GT(all.pairs, 1000000u);
    EXPECT_EQ(all.wrong, 0u) << all.wrong << " of " << all.pairs << " pairs";
}

TEST(DivisionHalf, F16KernelQuotientRoundsAsTheExactOne) { expect_every_pair(f16_format); }

TEST(DivisionHalf, Bf16KernelQuotientRoundsAsTheExactOne) { expect_every_pair(bf16_format); }

/// The oracle's own rounding, on values whose answers are known: ties to even at both
/// precisions, overflow to Inf at the f16 threshold 65520.
TEST(DivisionHalf, OracleRounding) {
    EXPECT_EQ(round_normal(1.0 + 0x1p-11, f16_format), 1.0); // tie, even below
    EXPECT_EQ(round_normal(1.0 + 3 * 0x1p-11, f16_format), 1.0 + 0x1p-9); // tie, even above
    EXPECT_EQ(round_normal(1.0 + 0x1p-11 + 0x1p-30, f16_format), 1.0 + 0x1p-10);
    EXPECT_EQ(round_normal(65519.0, f16_format), 65504.0);
    EXPECT_EQ(round_normal(65520.0, f16_format), INFINITY);
    EXPECT_EQ(round_normal(1.0 + 0x1p-8, bf16_format), 1.0);
    EXPECT_EQ(round_normal(1.0 + 3 * 0x1p-8, bf16_format), 1.0 + 0x1p-6);
}

} // namespace
