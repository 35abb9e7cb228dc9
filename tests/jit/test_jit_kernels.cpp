// Every JIT kernel against the reference, bit for bit, at each ISA level the machine has and
// at 1 and 2 threads. A level the CPU lacks is skipped and says so: its code is built and
// selected by the ISA table but cannot run here.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "backends/jit/jit_backend.hpp"
#include "backends/ref/ref_backend.hpp"
#include "common/cpu_isa.hpp"
#include "common/data_types.hpp"
#include "common/half_types.hpp"
#include "common/minifloat.hpp"
#include "qgraph/error.hpp"
#include "common/parallel.hpp"
#include "isa_level_fixture.hpp"
#include "jit_test_util.hpp"
#include "passes/lowering.hpp"

namespace {

using namespace qtest;
using qgraph::impl::cpu_isa_t;
using qgraph::impl::f32_bits;
using qgraph::impl::f32_from_bits;
using qgraph::impl::dequantize_stage;

class JitKernels : public IsaLevelTest {
protected:
    /// Runs and checks one problem; returns false (after reporting) on a mismatch.
    bool check(const quant_problem &p, uint32_t seed, const std::string &what,
            guard_side side = guard_side::end) {
        const outcome o = run_and_compare(p, seed, side);
        EXPECT_EQ(o.rejected, "") << what << " " << p.describe();
        EXPECT_EQ(o.kernel, jit_kernel_name(&p)) << what;
        EXPECT_EQ(o.mismatch, "") << what << " " << p.describe() << " seed " << seed;
        return o.mismatch.empty() && o.rejected.empty();
    }

    /// The f32 values x quantized to the float8 type dt with the static scale s and no zero
    /// point, jit against ref; returns false (after reporting) on a rejection or a mismatch.
    bool check_float8(const std::vector<float> &x, data_type dt, bool saturate, float s,
            uint32_t seed, const std::string &what = "") {
        quant_problem p = dense_problem(
                q_kind::quantize, data_type::f32, dt, {static_cast<int64_t>(x.size())});
        p.saturate = saturate;
        set_params(p, param_source::attr, param_source::none, data_type::s32, seed);
        p.scales = {s};
        const outcome o = run_and_compare(p, seed, guard_side::end, &x);
        EXPECT_EQ(o.rejected, "") << p.describe();
        EXPECT_EQ(o.ran, jit_kernel_name(&p));
        EXPECT_EQ(o.mismatch, "")
                << p.describe() << " scale " << s << " saturate " << saturate << what;
        return o.rejected.empty() && o.mismatch.empty();
    }
};

const data_type f32 = data_type::f32, s32 = data_type::s32, u8 = data_type::u8,
                s8 = data_type::s8;

/// Every 16-bit code, then `tail` more (the first ones again): scrambled (code i * 40503,
/// odd: a permutation), or in order.
std::vector<uint16_t> every_half_code(size_t tail, bool scrambled = true) {
    std::vector<uint16_t> codes(65536 + tail);
    for (size_t i = 0; i < codes.size(); ++i)
        codes[i] = static_cast<uint16_t>(scrambled ? i * 40503u : i);
    return codes;
}

/// The jit and the ref kernel of p (at the machine's ISA); null ones with `reason`.
struct kernel_pair {
    std::unique_ptr<qgraph::impl::kernel> jit, ref;
    std::string reason;
};
kernel_pair jit_and_ref(quant_problem p) {
    p.isa_cap = qgraph::impl::max_cpu_isa();
    kernel_pair k;
    k.jit = qgraph::impl::jit_backend().create(p, qgraph::impl::fallback_factory(), k.reason);
    k.ref = qgraph::impl::ref_backend().create(p, qgraph::impl::fallback_factory(), k.reason);
    return k;
}

struct param_kind {
    param_source scales;
    param_source zps;
    data_type zp_dt;
    const char *name;
};

const std::vector<param_kind> &quantize_params() {
    static const std::vector<param_kind> k {
            {param_source::attr, param_source::none, s32, "static scale, no zp"},
            {param_source::attr, param_source::attr, s32, "static scale and zp"},
            {param_source::input, param_source::none, s32, "runtime scale, no zp"},
            {param_source::input, param_source::input, u8, "runtime scale, u8 zp"},
            {param_source::input, param_source::input, s8, "runtime scale, s8 zp"},
            {param_source::input, param_source::input, s32, "runtime scale, s32 zp"},
    };
    return k;
}

TEST_P(JitKernels, QuantizePerTensorEverySize) {
    uint32_t seed = 1;
    for (data_type src : {f32, s32})
        for (data_type dst : {u8, s8})
            for (const param_kind &k : quantize_params())
                for (int64_t n : test_sizes()) {
                    quant_problem p = dense_problem(q_kind::quantize, src, dst, {n});
                    set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    const std::string what = std::string(k.name) + " n=" + std::to_string(n);
                    if (!check(p, seed, what)) return;
                    if (n <= 130 && !check(p, seed, what + " (start guard)", guard_side::start))
                        return;
                }
}

TEST_P(JitKernels, QuantizePerChannelOuterAndInner) {
    // Channel outer: rows of a run share one scale. Channel inner: the scale changes from
    // lane to lane (NHWC-like, axis last).
    uint32_t seed = 1000;
    for (data_type src : {f32, s32})
        for (data_type dst : {u8, s8})
            for (const param_kind &k : quantize_params())
                for (int64_t c : {1, 3, 16, 17, 64, 100})
                    for (int64_t l : {1, 7, 16, 33, 130, 1100})
                        for (int channel : {0, 1}) {
                            quant_problem p = dense_problem(q_kind::quantize, src, dst, {c, l},
                                    channel == 0 ? 0 : 1);
                            if (channel == 1) p = dense_problem(q_kind::quantize, src, dst, {l, c}, 1);
                            set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                            if (!check(p, seed, std::string(k.name))) return;
                        }
}

/// An x within 8 f32 steps of (k + 0.5) * s whose product by RN(1/s) rounds to another
/// integer than its quotient by s (the multiply alone gets it wrong), else that tie.
float product_misrounds(int k, float s) {
    const float tie = (static_cast<float>(k) + 0.5f) * s, y = 1.f / s;
    float x = tie;
    for (int i = 0; i < 8; ++i, x = std::nextafter(x, INFINITY)) {
        const volatile float q = x / s, p = x * y;
        if (std::nearbyint(q) != std::nearbyint(p)) return x;
    }
    return tie;
}

TEST_P(JitKernels, LaneTablesOnTheCheckedPathAtTies) {
    // Static scales along the contiguous dim, each in [2^-30, 2^30] (generic, exact
    // reciprocals, negative, both ends), and zero points passing checked_zp_fits (its limits
    // included): the lane tables take the checked path (avx2: groups of two vectors clamped
    // to one range, the zero points added before the packs), whose redo divides by the lane's
    // scale. Quotients on, and one f32 step either side of, each lane's half-integers, NaN,
    // +-Inf, +-0, huge and subnormal values; lanes of whole groups, a single vector and an
    // avx2 tail; one row to many. Rows of 256 lanes hold one tie per group of 64, in vector
    // g % 4 of group g, among quotients a quarter from every half-integer: the avx512
    // group's one test must see every vector, and its redo divide the flagged one. In every
    // third row that lane holds a special value instead (NaN, infinities, huge and tiny
    // values), the only one of its group the check may flag.
    const float pool[] = {0.023f, 0.1f, 3.7f, -0.3f, 0.5f, 1.f, 0x1p-30f, 0x1p30f, 1e-9f,
            1e9f, 0.0039215689f};
    const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.f, -0.f, 3e38f, -3e38f, 1e-40f};
    uint32_t seed = 9100;
    for (data_type dst : {u8, s8})
        for (int zp_kind : {0, 1, 2}) // none, the limits of checked_zp_fits, random
            for (int64_t c : {16, 32, 24, 100, 7, 256})
                for (int64_t l : {1, 3, 40}) {
                    quant_problem p = dense_problem(q_kind::quantize, f32, dst, {l, c}, 1);
                    set_params(p, param_source::attr,
                            zp_kind == 0 ? param_source::none : param_source::attr, s32, ++seed);
                    // Rows of 256 lanes keep to scales within a factor of 2^10 of each
                    // other: a vector divided by another lane's scale then stays below
                    // 2^17 and shows (a check that flags quotients past 2^17, as the
                    // fixed-point check does, would send every such vector to the redo when
                    // the scales span the range, and its division would hide the error).
                    for (int64_t i = 0; i < c; ++i)
                        p.scales[i] = c == 256 ? pool[(i + seed) % 6] : pool[(i + seed) % 11];
                    const int64_t lim_lo = dst == u8 ? -1 : -129, lim_hi = dst == u8 ? 256 : 128;
                    if (zp_kind == 1)
                        for (int64_t i = 0; i < c; ++i) p.zps[i] = i % 2 ? lim_hi : lim_lo;
                    if (zp_kind == 2)
                        for (int64_t i = 0; i < c; ++i)
                            p.zps[i] = lim_lo + static_cast<int64_t>((i * 37 + seed) % 258);
                    std::vector<float> x(static_cast<size_t>(l * c));
                    for (size_t e = 0; e < x.size(); ++e) {
                        const float sc = p.scales[e % static_cast<size_t>(c)];
                        const int k = static_cast<int>(e % 101) - 50; // -49.5 .. 50.5, beyond
                        const float tie = (static_cast<float>(k) + 0.5f)
                                * (e % 7 == 6 ? 6.f : 1.f) * sc;
                        if (c == 256) {
                            const int64_t lane = static_cast<int64_t>(e) % c;
                            const int64_t row = static_cast<int64_t>(e) / c;
                            const bool lone = lane % 64 == 16 * (lane / 64) + 5;
                            x[e] = !lone      ? (static_cast<float>(k) + 0.25f) * sc
                                    : row % 3 == 1 ? special[(row / 3 + lane / 64) % 9]
                                                   : product_misrounds(k, sc);
                            continue;
                        }
                        switch (e % 5) {
                            case 0: case 3: x[e] = tie; break;
                            case 1: x[e] = std::nextafter(tie, INFINITY); break;
                            case 2: x[e] = std::nextafter(tie, -INFINITY); break;
                            default: x[e] = special[e / 5 % 9]; break;
                        }
                    }
                    const outcome o = run_and_compare(p, seed, guard_side::end, &x);
                    EXPECT_EQ(o.ran, jit_kernel_name(&p)) << p.describe();
                    EXPECT_EQ(o.mismatch, "") << p.describe() << " zp kind " << zp_kind;
                    if (!o.mismatch.empty()) return;
                }
}

TEST_P(JitKernels, DequantizeEveryKind) {
    uint32_t seed = 5000;
    const std::vector<param_kind> kinds {
            {param_source::attr, param_source::none, s32, "static scale, no zp"},
            {param_source::attr, param_source::attr, s32, "static scale and zp"},
            {param_source::input, param_source::none, s32, "runtime scale, no zp"},
            {param_source::input, param_source::input, u8, "runtime u8 zp"},
            {param_source::input, param_source::input, s8, "runtime s8 zp"},
            {param_source::input, param_source::input, s32, "runtime s32 zp"},
    };
    for (data_type src : {u8, s8, s32})
        for (const param_kind &k : kinds) {
            if (src == s32 && k.zps == param_source::input) continue; // jit rejects: see below
            for (int64_t n : test_sizes()) {
                quant_problem p = dense_problem(q_kind::dequantize, src, f32, {n});
                set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                if (!check(p, seed, std::string(k.name) + " n=" + std::to_string(n))) return;
            }
            for (int64_t c : {3, 16, 17, 100})
                for (int64_t l : {1, 15, 64, 129})
                    for (int channel : {0, 1}) {
                        quant_problem p = channel == 0
                                ? dense_problem(q_kind::dequantize, src, f32, {c, l}, 0)
                                : dense_problem(q_kind::dequantize, src, f32, {l, c}, 1);
                        set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                        if (!check(p, seed, std::string(k.name) + " per channel")) return;
                    }
        }
}

TEST_P(JitKernels, ManyShortRows) {
    // Whole runs along the innermost outer dim go to the kernel in one call (the row loop):
    // per-channel scales changing from row to row (static: a table; runtime: computed a stack
    // block of 64 rows at a time), a channel fixed over the batch, lanes restarting at each
    // row, padded rows; each large enough for two threads to split it inside a run.
    uint32_t seed = 7000;
    struct layout {
        std::vector<int64_t> dims, ss, ds;
        int channel;
    };
    const std::vector<layout> layouts {
            {{9000, 9}, {9, 1}, {9, 1}, 0},
            {{3, 2000, 13}, {26000, 13, 1}, {26000, 13, 1}, 0},
            {{7, 1500, 11}, {16500, 11, 1}, {16500, 11, 1}, 1},
            {{20000, 5}, {5, 1}, {5, 1}, 1},
            {{6000, 13}, {16, 1}, {15, 1}, -1},
            {{130, 65}, {65, 1}, {65, 1}, 0},
    };
    const std::vector<param_kind> kinds {
            {param_source::attr, param_source::attr, s32, "static scale and zp"},
            {param_source::input, param_source::input, u8, "runtime scale, u8 zp"},
            {param_source::input, param_source::input, s32, "runtime scale, s32 zp"},
    };
    for (const layout &l : layouts)
        for (const param_kind &k : kinds)
            for (q_kind kind : {q_kind::quantize, q_kind::dequantize}) {
                const data_type src = kind == q_kind::dequantize ? u8 : f32;
                const data_type dst = kind == q_kind::dequantize ? f32 : u8;
                quant_problem p = dense_problem(kind, src, dst, l.dims, l.channel);
                p.src_strides = l.ss;
                p.dst_strides = l.ds;
                set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                if (!check(p, seed, std::string("rows, ") + k.name)) return;
            }
}

TEST_P(JitKernels, QuantizeCheckedPathAtItsLimits) {
    // The checked multiply (jit_division.hpp) proves rne(x * RN(1/s)) == rne(x / s) lane by
    // lane and needs qmax - 256 <= zp <= qmin + 256 for what it cannot see. Quotients packed
    // around ties, at and beyond +-255.5 and +-256.5 where that matters, with zero points at
    // and beyond those limits (which take the reciprocal path instead).
    const float scales[] = {0.023f, 0.1f, 1.f / 3, 117.f, -0.0173f};
    std::vector<float> x;
    uint32_t seed = 8000;
    for (float s : scales) {
        x.clear();
        for (int k = -700; k <= 700; ++k)
            for (float d : {0.f, 0x1p-15f, -0x1p-15f, 0x1p-14f, -0x1p-14f, 0x1p-13f, -0x1p-13f,
                         0x1p-12f, 0.25f, 0.5f})
                x.push_back((static_cast<float>(k) + 0.5f + d) * s);
        for (float q : {255.5f, 256.5f, -255.5f, -256.5f, 127.5f, -128.5f})
            for (int u = -40; u <= 40; ++u)
                x.push_back(std::nextafter(q * s, 0.f) + static_cast<float>(u) * 0x1p-20f * q * s);
        // First, a vector of lanes no tie flags: quotients past 2^17, which avx512's
        // fixed-point check flags by their conversion alone (docs/kernels.md), NaN with
        // payloads in the low bits and infinities, among quotients far from ties.
        std::vector<float> front;
        for (float q : {1.4e5f, -1.4e5f, 3e6f, -2e9f, 1e30f})
            front.push_back(q * s);
        for (uint32_t b : {0x7fc00000u, 0x7f800004u, 0xffc0fffcu, 0x7f800000u, 0xff800000u})
            front.push_back(f32_from_bits(b));
        for (int k = 0; front.size() < 16; ++k)
            front.push_back((static_cast<float>(k) + 0.25f) * s);
        x.insert(x.begin(), front.begin(), front.end());
        for (data_type dst : {u8, s8}) {
            const std::vector<int64_t> zps = dst == u8
                    ? std::vector<int64_t> {-400, -2, -1, 0, 3, 255, 256, 257, 600}
                    : std::vector<int64_t> {-500, -130, -129, -128, -1, 0, 127, 128, 129, 500};
            for (int64_t zp : zps)
                for (bool lanes : {false, true}) {
                    // Per tensor (broadcast rows, packed stores), and the same values with
                    // the channel innermost (lane tables; two channels of the same scale).
                    const int64_t n = static_cast<int64_t>(x.size());
                    quant_problem p = lanes
                            ? dense_problem(q_kind::quantize, f32, dst, {n / 2, 2}, 1)
                            : dense_problem(q_kind::quantize, f32, dst, {n});
                    p.scale_src = param_source::attr;
                    p.zp_src = param_source::attr;
                    p.scales.assign(static_cast<size_t>(p.nparams()), s);
                    p.zps.assign(static_cast<size_t>(p.nparams()), zp);
                    const outcome o = run_and_compare(p, ++seed, guard_side::end, &x);
                    EXPECT_EQ(o.rejected, "");
                    EXPECT_EQ(o.kernel, jit_kernel_name());
                    EXPECT_EQ(o.mismatch, "")
                            << "s " << s << " zp " << zp << " " << p.describe();
                    if (!o.mismatch.empty()) return;
                }
        }
    }
}

TEST_P(JitKernels, QuantizeCheckedGroupRedoesOneLane) {
    // avx2 packed groups check their vectors together (quantize_generator::check_group()):
    // one lane whose x * RN(1/s) rounds otherwise than x / s, at every position of the first
    // groups among values the multiply proves, must still be divided, whichever vector of
    // its group holds it; sizes with and without a remainder after the groups.
    const float s = 0.023f;
    const float r = 1.f / s;
    float bad = 0.f;
    for (int k = 1; k < 100000 && bad == 0.f; ++k) {
        const float x = (static_cast<float>(k) + 0.5f) * s;
        if (std::nearbyint(x * r) != std::nearbyint(x / s) && std::fabs(x / s) < 100.f)
            bad = x;
    }
    ASSERT_NE(bad, 0.f);
    uint32_t seed = 9000;
    for (int64_t n : {int64_t {64}, int64_t {67}})
        for (data_type dst : {u8, s8})
            for (int64_t pos = 0; pos < n; ++pos) {
                std::vector<float> x(static_cast<size_t>(n));
                for (int64_t i = 0; i < n; ++i)
                    x[static_cast<size_t>(i)] = (static_cast<float>(i % 50) + 0.25f) * s;
                x[static_cast<size_t>(pos)] = bad;
                quant_problem p = dense_problem(q_kind::quantize, f32, dst, {n});
                p.scale_src = param_source::attr;
                p.zp_src = param_source::attr;
                p.scales.assign(1, s);
                p.zps.assign(1, 3);
                const outcome o = run_and_compare(p, ++seed, guard_side::end, &x);
                EXPECT_EQ(o.rejected, "");
                EXPECT_EQ(o.kernel, jit_kernel_name());
                EXPECT_EQ(o.mismatch, "") << "pos " << pos << " " << p.describe();
                if (!o.mismatch.empty()) return;
            }
}

TEST_P(JitKernels, HalfTypes) {
    // bf16 / f16 quantize sources (converted exactly) and dequantize destinations (rounded
    // once to nearest even, subnormals kept, NaN quiet): every parameter kind, sizes around
    // every tile edge, per channel on an outer dim and innermost.
    const data_type bf16 = data_type::bf16, f16 = data_type::f16;
    uint32_t seed = 30000;
    std::vector<int64_t> sizes;
    for (int64_t n = 0; n <= 70; ++n) sizes.push_back(n);
    for (int64_t n : {127, 128, 129, 1025, 65537, 131135}) sizes.push_back(n);
    for (data_type h : {bf16, f16}) {
        for (data_type dst : {u8, s8})
            for (const param_kind &k : quantize_params()) {
                for (int64_t n : sizes) {
                    quant_problem p = dense_problem(q_kind::quantize, h, dst, {n});
                    set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    if (!check(p, seed, std::string(k.name) + " n=" + std::to_string(n)))
                        return;
                }
                for (int channel : {0, 1}) {
                    quant_problem p = dense_problem(q_kind::quantize, h, dst, {17, 45}, channel);
                    set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    if (!check(p, seed, std::string(k.name) + " per channel")) return;
                }
            }
        for (data_type src : {u8, s8, s32})
            for (param_source zps : {param_source::none, param_source::attr}) {
                for (int64_t n : sizes) {
                    quant_problem p = dense_problem(q_kind::dequantize, src, h, {n});
                    set_params(p, param_source::input, param_source::none, s32, ++seed);
                    if (zps == param_source::attr)
                        set_params(p, param_source::attr, zps, s32, seed);
                    if (!check(p, seed, "dequantize n=" + std::to_string(n))) return;
                }
                // Scales whose products are bf16 / f16 ties, overflow f16, or are subnormal
                // in either type; infinite ones (0 * Inf is NaN where x = zp) and NaNs with
                // payload bits in the low half (only the NaN blend of the bf16 rounding keeps
                // them NaN and their top half: rows with a finite scale go without it).
                for (float s : {1.00390625f, 1.5f, 0x1.0101p0f, 1e4f, 1e-7f, 0x1p-130f,
                             -0x1.8p-140f, 3e38f, float_of(0x7f800000u), float_of(0xff800000u),
                             float_of(0x7fc0ffffu), float_of(0xffbfffffu)})
                    for (int channel : {-1, 0, 1}) {
                        quant_problem p = dense_problem(q_kind::dequantize, src, h, {9, 37},
                                channel);
                        set_params(p, param_source::attr, zps, s32, ++seed);
                        for (float &v : p.scales) v = s;
                        if (!check(p, seed, "dequantize scale " + std::to_string(s))) return;
                    }
            }
    }
}

TEST_P(JitKernels, Int8DequantizeToHalfByTableLookup) {
    // avx512 with AVX512_VBMI looks u8 / s8 codes up in per-row byte tables of all 256
    // results, whatever s and zp are (rows of 1024 elements or more, 64 codes a vector, 256
    // a step; shorter rows and other levels take the arithmetic): rows around 1024 and the
    // 64- and 256-code steps, both guard sides; static and runtime scales of every kind with no,
    // static and runtime u8 / s8 / s32 zero points (quantize_params()); a runtime scale and zero point per row; static
    // scales whose products are bf16 / f16 ties, overflow, or are subnormal, infinite and
    // NaN ones, with zero points at the type's limits.
    const data_type bf16 = data_type::bf16, f16 = data_type::f16;
    uint32_t seed = 81000;
    for (data_type src : {u8, s8})
        for (data_type dst : {bf16, f16}) {
            for (const param_kind &k : quantize_params())
                for (int64_t n : {1023, 1024, 1025, 1087, 1088, 1089, 1279, 1280, 1281, 4096 + 63,
                             65537}) {
                    quant_problem p = dense_problem(q_kind::dequantize, src, dst, {n});
                    set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    const std::string what = std::string(k.name) + " n=" + std::to_string(n);
                    if (!check(p, seed, what)) return;
                    if (n == 1089 && !check(p, seed, what + " (start guard)", guard_side::start))
                        return;
                }
            quant_problem rows = dense_problem(q_kind::dequantize, src, dst, {48, 1300}, 0);
            set_params(rows, param_source::input, param_source::input, src, ++seed);
            if (!check(rows, seed, "runtime scale and zp per row")) return;
            const qgraph::impl::q_range q = qgraph::impl::range_of(src);
            for (float s : {1.00390625f, 0x1.0101p0f, 1e4f, 1e-7f, 0x1p-130f, -0x1.8p-140f,
                         3e38f, float_of(0x7f800000u), float_of(0xff800000u),
                         float_of(0x7fc0ffffu), 0.f})
                for (int64_t zp : {int64_t(0), q.lo, q.hi}) {
                    quant_problem p = dense_problem(q_kind::dequantize, src, dst, {4096 + 63});
                    set_params(p, param_source::attr, param_source::attr, s32, ++seed);
                    p.scales = {s};
                    p.zps = {zp};
                    if (!check(p, seed, "scale " + std::to_string(s) + " zp " + std::to_string(zp)))
                        return;
                }
        }
}

TEST_P(JitKernels, DequantizeToBf16InPairs) {
    // avx2 rows of 8- and 16-bit x into bf16 with a finite broadcast scale go 16 codes a step, as
    // even and odd halves rounded by a float split, when |s| is in [2^-126, 2^80); the last
    // n % 16 codes and other scales take the vector loop. Rows around the 16- and 32-code
    // steps, both guard sides, no / static / runtime zero points at the type's limits;
    // scales at both ends of that range and just outside, negative ones, and scales whose
    // products are bf16 ties (1 + 2^-8: x = 1 is halfway between two bf16 codes).
    const data_type bf16 = data_type::bf16;
    uint32_t seed = 82000;
    const float below_min = std::nextafter(0x1p-126f, 0.f);
    const float below_max = std::nextafter(0x1p80f, 0.f);
    for (data_type src : {u8, s8, data_type::u16, data_type::s16}) {
        const qgraph::impl::q_range q = qgraph::impl::range_of(src);
        const std::vector<param_kind> kinds {
                {param_source::attr, param_source::none, s32, "static scale, no zp"},
                {param_source::attr, param_source::attr, s32, "static scale and zp"},
                {param_source::input, param_source::none, s32, "runtime scale, no zp"},
                {param_source::input, param_source::input, src, "runtime scale and zp"},
        };
        for (const param_kind &k : kinds)
            for (int64_t n : {1, 15, 16, 17, 31, 32, 33, 47, 48, 49, 63, 64, 65, 1000, 3136}) {
                quant_problem p = dense_problem(q_kind::dequantize, src, bf16, {n});
                set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                const std::string what = std::string(k.name) + " n=" + std::to_string(n);
                if (!check(p, seed, what)) return;
                if (n == 49 && !check(p, seed, what + " (start guard)", guard_side::start))
                    return;
            }
        for (float s : {0x1p-126f, below_min, -0x1p-126f, below_max, 0x1p80f, -below_max,
                     1.00390625f, -1.00390625f, 0x1.0101p0f, 0.023f, -3e-5f, 1e20f})
            for (int64_t zp : {int64_t(0), q.lo, q.hi, int64_t(1)})
                for (int channel : {-1, 0}) {
                    quant_problem p = dense_problem(q_kind::dequantize, src, bf16, {5, 67},
                            channel);
                    set_params(p, param_source::attr, param_source::attr, s32, ++seed);
                    for (float &v : p.scales) v = s;
                    p.zps.assign(p.zps.size(), zp);
                    const std::string what = "scale " + std::to_string(s) + " zp "
                            + std::to_string(zp) + " channel " + std::to_string(channel);
                    if (!check(p, seed, what)) return;
                }
    }
}

/// f32 sources of a quantize that rounds them to `h` (bf16 / f16) first: values whose bits
/// dropped by that rounding are exactly half (ties) or one off; NaNs whose payload lies only
/// in the dropped bits (a rounding that ignores NaN makes them Inf); +-Inf; values rounding
/// past f16's largest; f32 subnormals (bf16 keeps and rounds them); quotient ties of `s`
/// and plain values.
std::vector<float> rounded_sources(int64_t n, data_type h, float s, uint32_t seed) {
    std::mt19937 g(seed);
    const uint32_t drop = h == data_type::bf16 ? 16 : 13;
    const uint32_t half = 1u << (drop - 1), mask = (1u << drop) - 1;
    std::uniform_real_distribution<float> wide(-1000.f, 1000.f);
    std::vector<float> v(static_cast<size_t>(n));
    for (float &x : v) {
        const uint32_t sign = g() % 2 ? 0x80000000u : 0u;
        uint32_t b = bits_of(wide(g));
        switch (g() % 12) {
            case 0: b = (b & ~mask) | half; break;
            case 1: b = (b & ~mask) | (half - 1); break;
            case 2: b = (b & ~mask) | (half + 1); break;
            case 3: b = sign | 0x7f800001u; break;
            case 4: b = sign | 0x7fc00000u | (g() & mask); break;
            case 5: b = sign | 0x7f800000u; break;
            case 6: b = sign | (g() % 2 ? 0x477ff000u : 0x477fefffu); break; // 65520, below
            case 7: b = sign | (g() & 0x007fffffu); break;
            case 8: b = bits_of((static_cast<float>(static_cast<int>(g() % 600) - 300) + 0.5f) * s);
                break;
            default: break;
        }
        std::memcpy(&x, &b, sizeof(b));
    }
    return v;
}

TEST_P(JitKernels, QuantizeRoundedSource) {
    // quant_problem::src_round_dt (a TypeCast -> Quantize chain as one problem): the load
    // stage rounds each f32 to bf16 / f16 and widens it back before the division. Every
    // parameter kind, sizes around every tile edge and packed group, per channel outer and
    // innermost, against the guards at both ends.
    uint32_t seed = 35000;
    std::vector<int64_t> sizes;
    for (int64_t n = 0; n <= 70; ++n) sizes.push_back(n);
    for (int64_t n : {127, 128, 129, 1025, 65537}) sizes.push_back(n);
    for (data_type h : {data_type::bf16, data_type::f16})
        for (data_type dst : {u8, s8})
            for (const param_kind &k : quantize_params()) {
                std::vector<quant_problem> ps;
                for (int64_t n : sizes) ps.push_back(dense_problem(q_kind::quantize, f32, dst, {n}));
                for (int channel : {0, 1})
                    ps.push_back(dense_problem(q_kind::quantize, f32, dst, {17, 45}, channel));
                for (quant_problem &p : ps) {
                    p.src_round_dt = h;
                    set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    const float s = p.scales.empty() ? 0.05f : p.scales[0];
                    const std::vector<float> x = rounded_sources(p.nelems, h, s, seed);
                    for (guard_side side : {guard_side::end, guard_side::start}) {
                        const outcome o = run_and_compare(p, seed, side, &x);
                        EXPECT_EQ(o.rejected, "") << p.describe();
                        EXPECT_EQ(o.kernel, jit_kernel_name(&p)) << p.describe();
                        EXPECT_EQ(o.mismatch, "") << k.name << " " << p.describe();
                        if (!o.mismatch.empty()) return;
                    }
                }
            }
}

TEST_P(JitKernels, QuantizeRoundedSourceSubnormals) {
    // The bf16 rounding of the load stage takes vcvtneps2bf16, which flushes subnormal inputs,
    // only for vectors without a subnormal lane (avx512_core_bf16). With the scale 2^-126 a
    // subnormal x of mantissa b quantizes to rne(bf16(b) / 2^23): a flushed lane would give 0
    // where b rounds to 0.75 and above gives 1. Vectors all normal, with one subnormal lane
    // at each position, and all subnormal.
    std::mt19937 g(37000);
    std::vector<float> x;
    const auto push = [&](uint32_t b) {
        float f;
        std::memcpy(&f, &b, sizeof(f));
        x.push_back(f);
    };
    const auto subnormal = [&] { return (g() % 2 ? 0x80000000u : 0u) | (0x5f0000u + g() % 0x200000u); };
    const auto normal = [&] { return (g() % 2 ? 0x80000000u : 0u) | (0x00800000u + g() % 0x01000000u); };
    for (int v = 0; v < 4; ++v)
        for (int i = 0; i < 16; ++i) push(normal());
    for (int lane = 0; lane < 16; ++lane)
        for (int i = 0; i < 16; ++i) push(i == lane ? subnormal() : normal());
    for (int i = 0; i < 16 * 4 + 5; ++i) push(subnormal());
    const int64_t n = static_cast<int64_t>(x.size());
    for (data_type dst : {u8, s8}) {
        quant_problem p = dense_problem(q_kind::quantize, f32, dst, {n});
        p.src_round_dt = data_type::bf16;
        set_params(p, param_source::attr, param_source::none, s32, 37001);
        p.scales[0] = 0x1p-126f;
        for (guard_side side : {guard_side::end, guard_side::start}) {
            const outcome o = run_and_compare(p, 37002, side, &x);
            EXPECT_EQ(o.kernel, jit_kernel_name(&p)) << p.describe();
            EXPECT_EQ(o.mismatch, "") << p.describe();
        }
    }
}

/// p (a static quantize to u8 / s8) followed by a dequantize of its result to `to`, as the
/// chain rewrite builds it: the dequantize's scales differ from the quantize's (folding them
/// would show), its zero points cycle through the quantized type's limits and its middle.
quant_problem with_dequantize(quant_problem p, data_type to = data_type::f32) {
    const qgraph::impl::q_range q = qgraph::impl::range_of(p.dst_dt);
    dequantize_stage &dq = p.dequantize_after;
    dq.q_dt = p.dst_dt;
    for (size_t c = 0; c < p.scales.size(); ++c) {
        dq.scales.push_back(p.scales[c] * 1.37f);
        const int64_t limits[] = {q.lo, q.hi, (q.lo + q.hi) / 2 + 1};
        dq.zps.push_back(limits[c % 3]);
    }
    p.dst_dt = to;
    p.op_name = "Quantize+Dequantize";
    return p;
}

TEST_P(JitKernels, QuantizeWithDequantizeStage) {
    // quant_problem::dequantize_after (a Quantize -> Dequantize chain as one problem): the
    // output stage after every division path (the pools' scales), f32 / bf16 / f16 / s32
    // sources, f32 and f16 results (the pools' scales overflow f16 too), sizes around every
    // tile edge, per tensor and per channel on an outer dim, against the guards at both ends.
    uint32_t seed = 37000;
    std::vector<int64_t> sizes;
    for (int64_t n = 0; n <= 70; ++n) sizes.push_back(n);
    for (int64_t n : {127, 128, 129, 1025, 65537}) sizes.push_back(n);
    for (data_type src : {f32, data_type::bf16, data_type::f16, s32})
        for (data_type qdt : {u8, s8})
            for (param_source zps : {param_source::none, param_source::attr})
                for (data_type to : {f32, data_type::f16}) {
                    std::vector<quant_problem> ps;
                    for (int64_t n : sizes)
                        ps.push_back(dense_problem(q_kind::quantize, src, qdt, {n}));
                    for (int64_t c : {1, 3, 17, 64})
                        ps.push_back(dense_problem(q_kind::quantize, src, qdt, {c, 45}, 0));
                    for (quant_problem &p : ps) {
                        set_params(p, param_source::attr, zps, s32, ++seed);
                        p = with_dequantize(p, to);
                        for (guard_side side : {guard_side::end, guard_side::start})
                            if (!check(p, seed, "dequantize stage", side)) return;
                    }
                }
}

TEST_P(JitKernels, QuantizeWithDequantizeStageItCannotTake) {
    // Parameters along the inner run, 16-bit quantized types, bf16 results: rejected with
    // a reason (the partition then runs the two ops), never run wrongly.
    uint32_t seed = 38000;
    std::vector<quant_problem> ps;
    ps.push_back(dense_problem(q_kind::quantize, f32, u8, {17, 45}, 1));
    ps.push_back(dense_problem(q_kind::quantize, f32, data_type::s16, {100}));
    ps.push_back(dense_problem(q_kind::quantize, f32, u8, {100}));
    for (quant_problem &p : ps) {
        set_params(p, param_source::attr, param_source::attr, s32, ++seed);
        p = with_dequantize(p);
    }
    ps.back().dst_dt = data_type::bf16;
    for (const quant_problem &p : ps) {
        const outcome o = run_and_compare(p, seed);
        EXPECT_NE(o.rejected.find("fake-quantize"), std::string::npos) << p.describe();
        EXPECT_EQ(o.mismatch, "") << p.describe();
    }
}

TEST_P(JitKernels, QuantizeRoundedSourceToFloat8) {
    // The load stage's rounding ahead of the float8 encode: its registers beside the
    // encode's scratch, saturating and not.
    uint32_t seed = 36000;
    for (data_type h : {data_type::bf16, data_type::f16})
        for (data_type dst : {data_type::f8_e4m3, data_type::f8_e5m2})
            for (bool saturate : {true, false})
                for (int64_t n : {1, 15, 16, 17, 63, 64, 65, 1025}) {
                    quant_problem p = dense_problem(q_kind::quantize, f32, dst, {n});
                    p.src_round_dt = h;
                    p.saturate = saturate;
                    set_params(p, param_source::attr, param_source::none, s32, ++seed);
                    const std::vector<float> x = rounded_sources(n, h, p.scales[0], seed);
                    const outcome o = run_and_compare(p, seed, guard_side::end, &x);
                    EXPECT_EQ(o.kernel, jit_kernel_name(&p)) << p.describe();
                    EXPECT_EQ(o.mismatch, "") << p.describe();
                    if (!o.mismatch.empty()) return;
                }
}

TEST_P(JitKernels, DequantizeStreamingStores) {
    // f32 destinations of 8 MiB and more are written with non-temporal stores where the
    // destination and the row stride are vector-aligned, with ordinary stores elsewhere:
    // against the guard page at the start the buffer is page-aligned, at the end it is
    // aligned only when its size is a multiple of 64 bytes.
    uint32_t seed = 40000;
    const int64_t big = int64_t(2) << 20; // 2^21 f32 = 8 MiB
    struct shape {
        std::vector<int64_t> dims;
        int channel;
    };
    const std::vector<shape> shapes {
            {{big + 37}, -1}, // tail, and misaligned at the end guard
            {{64, big / 64}, 0}, // aligned rows, per channel
            {{64, big / 64 + 3}, 0}, // rows 12 bytes off alignment: ordinary stores
            {{big / 64, 64}, 1}, // channel innermost
    };
    // e4m3 sources: with AVX512_VBMI, rows of 1024 codes and more look them up in byte
    // planes and stream those results.
    for (data_type src : {u8, data_type::f8_e4m3})
        for (const shape &sh : shapes)
            for (param_source scales : {param_source::attr, param_source::input})
                for (guard_side side : {guard_side::start, guard_side::end}) {
                    quant_problem p = dense_problem(q_kind::dequantize, src, f32, sh.dims, sh.channel);
                    const param_source zps = src != u8 ? param_source::none
                            : scales == param_source::attr ? param_source::attr
                                                           : param_source::input;
                    set_params(p, scales, zps, u8, ++seed);
                    if (!check(p, seed, "streaming", side)) return;
                }
}

TEST_P(JitKernels, QuantizeStreamingStores) {
    // 1-byte destinations of 8 MiB and more are written with non-temporal stores where the
    // destination and the row stride are aligned to the widest of them (avx512: 64 bytes,
    // the packed groups of the checked path; avx2: 16, or 32 for 16-bit sources), with
    // ordinary stores elsewhere.
    // Against the start guard the buffers are page-aligned; against the end guard a size
    // that is not a multiple of 64 leaves dst misaligned. Per tensor, the scale picks the
    // path: 0.05 the checked one (packed groups), 0.5 the multiply and 3 the reciprocal or
    // divide path (one vector at a time); per channel, the pools' scales.
    uint32_t seed = 41000;
    const int64_t big = int64_t(8) << 20; // 8 MiB of u8
    struct shape {
        std::vector<int64_t> dims;
        int channel;
        data_type dst;
        param_source scales;
        float s;
        guard_side side;
        data_type src = f32;
    };
    const param_source attr = param_source::attr, input = param_source::input;
    const guard_side start = guard_side::start, end = guard_side::end;
    const std::vector<shape> shapes {
            {{big + 37}, -1, u8, attr, 0.05f, start}, // streaming body, ordinary tail
            {{big + 37}, -1, u8, attr, 0.5f, start},
            {{big + 37}, -1, u8, attr, 3.f, start},
            {{big + 37}, -1, u8, attr, 0.05f, end}, // dst 27 bytes off 64: ordinary stores
            {{big + 37}, -1, s8, input, 0.05f, start},
            {{64, big / 64}, 0, u8, input, 0, start}, // rows with their own runtime scales
            // Rows 3 bytes off: ordinary stores, but for one-row pieces that start aligned.
            {{64, big / 64 + 3}, 0, u8, attr, 0, start},
            {{big / 64, 64}, 1, s8, attr, 0, start}, // channel innermost: lane tables
            {{big + 16}, -1, data_type::f8_e4m3, attr, 0.5f, start}, // float8 codes
            // 16-bit sources: avx2's groups of four vectors store 32 bytes, so dst 16
            // bytes off 32 (at the end guard) takes ordinary stores.
            {{big + 37}, -1, u8, attr, 0.023f, start, data_type::f16}, // proven
            {{big + 37}, -1, s8, attr, 0.5f, start, data_type::bf16}, // multiply
            {{big + 16}, -1, u8, attr, 0.023f, end, data_type::bf16},
            // bf16 into e4m3 by byte planes (avx512 with AVX512_VBMI), 64 bytes a step:
            // the driver's table (0.023) and a power of two (0.5); dst 48 bytes off 64.
            {{big + 37}, -1, data_type::f8_e4m3, attr, 0.023f, start, data_type::bf16},
            {{big + 37}, -1, data_type::f8_e4m3, attr, 0.5f, start, data_type::bf16},
            {{big + 16}, -1, data_type::f8_e4m3, attr, 0.023f, end, data_type::bf16},
    };
    for (const shape &sh : shapes) {
        quant_problem p = dense_problem(q_kind::quantize, sh.src, sh.dst, sh.dims, sh.channel);
        const bool f8 = sh.dst == data_type::f8_e4m3;
        set_params(p, sh.scales, f8 ? param_source::none : sh.scales, u8, ++seed);
        if (sh.channel < 0) p.scales = {sh.s};
        if (!check(p, seed, "streaming scale " + std::to_string(sh.s), sh.side)) return;
    }
}

TEST_P(JitKernels, StridedLayouts) {
    // Padded rows, a transposed outer pair, and broadcast (stride 0) source rows: the inner
    // run is contiguous, the outer loops take any stride; gaps must stay untouched.
    uint32_t seed = 9000;
    struct layout {
        std::vector<int64_t> dims, ss, ds;
        int channel;
    };
    const std::vector<layout> layouts {
            {{5, 37}, {40, 1}, {45, 1}, -1},
            {{5, 37}, {40, 1}, {37, 1}, 0},
            {{3, 4, 19}, {19, 57, 1}, {80, 20, 1}, 1},
            {{6, 33}, {0, 1}, {33, 1}, -1},
            {{4, 3, 17}, {51, 17, 1}, {3 * 17 * 2, 17 * 2, 1}, 2},
    };
    for (const layout &l : layouts)
        for (q_kind kind : {q_kind::quantize, q_kind::dequantize, q_kind::dynamic_quantize_linear}) {
            if (kind == q_kind::dynamic_quantize_linear && l.channel >= 0) continue;
            const data_type src = kind == q_kind::dequantize ? u8 : f32;
            const data_type dst = kind == q_kind::dequantize ? f32 : u8;
            quant_problem p = dense_problem(kind, src, dst, l.dims, l.channel);
            p.src_strides = l.ss;
            p.dst_strides = l.ds;
            if (kind != q_kind::dynamic_quantize_linear)
                set_params(p, param_source::attr, param_source::attr, s32, ++seed);
            if (!check(p, seed, "strided")) return;
        }
}

TEST_P(JitKernels, TransposedLayouts) {
    // src and dst contiguous along different dims (NHWC <-> NCHW): tiles of up to 64 x 256
    // through a stack buffer (jit_tiles.hpp), or for u8/s8 -> f32 dequantize tiles of whole
    // 32 x 16 blocks on avx512_core straight through the transposing code. Extents around
    // the transpose blocks and the tile edges, the channel along either contiguous dim or an
    // outer one, a padded narrow side, and both sides contiguous along a dim that is not the
    // last.
    uint32_t seed = 50000;
    const data_type bf16 = data_type::bf16, f16 = data_type::f16;
    const auto packed = strides_in_order;
    struct layout {
        std::vector<int64_t> dims;
        std::vector<int> src_order, dst_order;
        int64_t src_pad, dst_pad;
    };
    std::vector<layout> layouts;
    for (int64_t c : {3, 17, 64, 65, 300})
        for (int64_t hw : {2, 12, 16, 17, 50, 65, 130}) {
            layouts.push_back({{c, hw}, {1, 0}, {0, 1}, 0, 0}); // NHWC src -> NCHW dst
            layouts.push_back({{c, hw}, {0, 1}, {1, 0}, 0, 0}); // NCHW src -> NHWC dst
        }
    layouts.push_back({{2, 19, 33}, {0, 2, 1}, {0, 1, 2}, 0, 3});
    layouts.push_back({{2, 19, 33}, {0, 1, 2}, {0, 2, 1}, 5, 0});
    layouts.push_back({{3, 70, 300}, {2, 0, 1}, {0, 1, 2}, 0, 0}); // the batch dim innermost
    layouts.push_back({{4, 130, 300}, {0, 2, 1}, {0, 1, 2}, 0, 0}); // two threads' worth
    layouts.push_back({{40, 33}, {1, 0}, {1, 0}, 0, 0}); // contiguous along dim 0 on both
    struct kind_types {
        q_kind kind;
        data_type src, dst;
    };
    const std::vector<kind_types> kinds {{q_kind::quantize, f32, u8}, {q_kind::quantize, f32, s8},
            {q_kind::quantize, bf16, u8}, {q_kind::dequantize, u8, f32},
            {q_kind::dequantize, s8, f32}, {q_kind::dequantize, s32, f32},
            {q_kind::dequantize, u8, f16}, {q_kind::dynamic_quantize_linear, f32, u8}};
    const std::vector<param_kind> params {
            {param_source::attr, param_source::attr, s32, "static scale and zp"},
            {param_source::attr, param_source::none, s32, "static scale, no zp"},
            {param_source::input, param_source::none, s32, "runtime scale, no zp"},
            {param_source::input, param_source::input, u8, "runtime scale, u8 zp"},
            {param_source::input, param_source::input, s32, "runtime scale, s32 zp"},
    };
    for (const layout &l : layouts)
        for (const kind_types &kt : kinds)
            for (int channel = -1; channel < static_cast<int>(l.dims.size()); ++channel)
                for (const param_kind &k : params) {
                    const bool dql = kt.kind == q_kind::dynamic_quantize_linear;
                    if (dql && (channel >= 0 || &k != &params[0])) continue;
                    if (kt.src == s32 && k.zps != param_source::none) continue;
                    quant_problem p = dense_problem(kt.kind, kt.src, kt.dst, l.dims, channel);
                    p.src_strides = packed(l.dims, l.src_order, l.src_pad);
                    p.dst_strides = packed(l.dims, l.dst_order, l.dst_pad);
                    if (!dql) set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    const std::string what = std::string("transposed, ") + k.name + ", channel "
                            + std::to_string(channel);
                    if (!check(p, ++seed, what)) return;
                    if (l.dims[0] == 17 && !check(p, seed, what + " (start guard)",
                                                   guard_side::start))
                        return;
                }
}

TEST_P(JitKernels, DynamicQuantizeLinearEverySize) {
    uint32_t seed = 20000;
    for (int64_t n : test_sizes()) {
        quant_problem p = dense_problem(q_kind::dynamic_quantize_linear, f32, u8, {n});
        if (!check(p, ++seed, "n=" + std::to_string(n))) return;
    }
}

TEST_P(JitKernels, DynamicQuantizeLinearSpecialCases) {
    // All-zero, a NaN anywhere, +Inf, -Inf, both, subnormal-only, one-signed ranges: the
    // parameters and the output follow NUMERICS.md's special cases (run_and_compare checks
    // y, y_scale and y_zero_point bitwise against the reference).
    const float inf = std::numeric_limits<float>::infinity();
    for (int64_t n : {1, 5, 16, 17, 100, 70001})
        for (int pattern = 0; pattern < 8; ++pattern)
            for (int64_t at : {int64_t(0), n / 2, n - 1}) {
                std::vector<float> x(n);
                for (int64_t i = 0; i < n; ++i) x[i] = 0.37f * static_cast<float>(i % 23) - 3.f;
                switch (pattern) {
                    case 0: std::fill(x.begin(), x.end(), 0.f); break;
                    case 1: x[at] = std::nanf(""); break;
                    case 2: x[at] = inf; break;
                    case 3: x[at] = -inf; break;
                    case 4:
                        x[at] = -inf;
                        x[n - 1 - at] = inf;
                        break;
                    case 5:
                        for (int64_t i = 0; i < n; ++i) x[i] = (i % 3 - 1) * 1e-40f;
                        break;
                    case 6:
                        for (float &v : x) v = -std::fabs(v) - 1.f;
                        break;
                    case 7:
                        for (float &v : x) v = std::fabs(v) + 0.5f;
                        break;
                }
                const quant_problem p = dense_problem(q_kind::dynamic_quantize_linear, f32, u8, {n});
                const outcome o = run_and_compare(p, 1, guard_side::end, &x);
                ASSERT_EQ(o.kernel, jit_kernel_name());
                ASSERT_EQ(o.mismatch, "") << "pattern " << pattern << " n " << n << " at " << at;
            }
}

TEST_P(JitKernels, RuntimeZeroPointsBeyondTheCodeGoToRef) {
    // s32 zero points beyond +-2^23 (quantize): exact only in 64-bit arithmetic, which the
    // reference does; the jit kernel hands that call to it.
    int by_jit = 0, by_ref = 0;
    for (int trial = 0; trial < 40; ++trial) {
        quant_problem p = dense_problem(q_kind::quantize, f32, u8, {257});
        set_params(p, param_source::input, param_source::input, s32, 77 + trial);
        const outcome o = run_and_compare(p, 77 + trial);
        ASSERT_EQ(o.mismatch, "");
        ASSERT_TRUE(o.ran == jit_kernel_name() || o.ran == "ref:quantize") << o.ran;
        (o.ran == jit_kernel_name() ? by_jit : by_ref)++;
    }
    // The inputs draw both kinds of zero point (about one trial in four has big ones).
    EXPECT_GT(by_jit, 0);
    EXPECT_GT(by_ref, 0);
}

TEST_P(JitKernels, BlockedAndGroupedQuantize) {
    // The quantize code takes one parameter set per row or per lane. Blocks that tile their
    // dim (32 of 64) are rows over the block index (split_full_groups) and run here, and so
    // do groups on two dims (rows whose entries step along two outer dims); a partial last
    // block (32 of 48) is rejected with a reason: select_kernel splits it into two problems
    // (test_jit_blocked_quantize.cpp), the jit backend takes it only so. (Grouped dequantize
    // has its own kernel: test_jit_grouped.cpp.)
    using qgraph::impl::param_dim;
    quant_problem tiling = dense_problem(q_kind::quantize, f32, u8, {4, 64});
    tiling.params[1] = param_dim {32, 1, 1};
    quant_problem grouped = dense_problem(q_kind::quantize, f32, s8, {8, 64});
    grouped.params = {param_dim {4, 2, 2}, param_dim {32, 1, 1}};
    for (quant_problem *p : {&tiling, &grouped}) {
        set_params(*p, param_source::input, param_source::input, s8, 5);
        const outcome o = run_and_compare(*p, 5);
        EXPECT_NE(o.kernel, "") << o.rejected;
        EXPECT_EQ(o.mismatch, "");
    }
    quant_problem partial = dense_problem(q_kind::quantize, f32, u8, {4, 48});
    partial.params[1] = param_dim {32, 1, 1};
    set_params(partial, param_source::input, param_source::input, s8, 5);
    const outcome o = run_and_compare(partial, 5);
    EXPECT_EQ(o.kernel, "");
    EXPECT_NE(o.rejected.find("blocked or grouped parameters"), std::string::npos) << o.rejected;
    EXPECT_EQ(o.mismatch, "");
}

// The kernels read runtime scales as f32, widened exactly from f16, bf16 and e8m0 tensors
// (test_jit_half_scales.cpp, test_jit_e8m0_scales.cpp): every scale type ONNX has is taken.
TEST(JitBackend, TakesEveryScaleType) {
    using namespace qgraph::impl;
    for (dt t : {dt::f32, dt::f16, dt::bf16, dt::e8m0}) {
        const op o(0, op::kind::DequantizeLinear, {dense(1, dt::u8, {64}), dense(2, t, {})},
                {dense(3, dt::f32, {64})}, "dql");
        std::string reason;
        EXPECT_NE(jit_backend().create(lower_op(o), fallback_factory(), reason), nullptr)
                << qgraph::to_string(t) << ": " << reason;
    }
}

// The route table of jit_backend.cpp: each problem goes to the driver made for it, the
// first that takes it (a 4-bit dequantize is grouped even per tensor; the rest elementwise).
TEST(JitBackend, RoutesEachProblemToItsDriver) {
    using qgraph::impl::jit_driver_of;
    const quant_problem lut = dense_problem(q_kind::lookup, u8, s8, {64});
    const quant_problem cvt = dense_problem(q_kind::convert, f32, dt::bf16, {64});
    const quant_problem s4 = dense_problem(q_kind::dequantize, dt::s4, f32, {64});
    const quant_problem q = dense_problem(q_kind::quantize, f32, u8, {16, 64}, 1);
    const quant_problem dq = dense_problem(q_kind::dequantize, u8, f32, {16, 64});
    EXPECT_STREQ(jit_driver_of(lut), "lookup");
    EXPECT_STREQ(jit_driver_of(cvt), "convert");
    EXPECT_STREQ(jit_driver_of(s4), "grouped dequantize");
    EXPECT_STREQ(jit_driver_of(q), "elementwise");
    EXPECT_STREQ(jit_driver_of(dq), "elementwise");
}

// No op lowers to runtime scales with static zero points, and the drivers have no lane
// source for the mix: jit refuses it with a reason instead of reading a null table.
TEST(JitBackend, RejectsRuntimeScalesWithStaticZeroPoints) {
    for (int channel : {-1, 0, 1}) {
        quant_problem p = dense_problem(q_kind::quantize, f32, u8, {16, 64}, channel);
        set_params(p, param_source::input, param_source::attr, s32, 3);
        std::string reason;
        EXPECT_EQ(qgraph::impl::jit_backend().create(p, qgraph::impl::fallback_factory(), reason),
                nullptr);
        EXPECT_EQ(reason, "runtime scales with static zero points");
    }
}


TEST_P(JitKernels, HalfSourcesEveryCode) {
    // Static scales of f16 / bf16 sources may skip the checked multiply's rounding check
    // when it passes for every 16-bit value, which the driver verifies at compile
    // (div_path::proven): every code as the source (NaN payloads, infinities and subnormals
    // among them), scales whose check passes for every code and scales for which it does not,
    // zero points at both ends of what the checked path takes, per tensor and per channel;
    // powers of two take the multiply path (exact), also in groups. Scrambled, nearly every
    // group (avx512: of 64 codes, avx2: of 32) holds a code whose product may reach 2^31
    // and takes the clamp; in order, most groups lie below the row's clamp_from and skip it
    // (quantize_params::clamp_from), the groups around it take it.
    const std::vector<uint16_t> scrambled = every_half_code(64 + 37),
                                ordered = every_half_code(64 + 37, false);
    uint32_t seed = 60000;
    for (const std::vector<uint16_t> *order : {&scrambled, &ordered})
        for (data_type h : {data_type::bf16, data_type::f16})
            for (data_type dst : {u8, s8})
                for (float s : {0.023f, 0.1f, 1.f / 3, 0.0173f, 3.7f, 117.f, 0.0039215689f, 7.f,
                             -0.37f, 1e-3f, 0.5f, -4.f})
                    for (int64_t zp : {int64_t(0), int64_t(dst == u8 ? 128 : -100)})
                        for (int channel : {-1, 0, 1}) {
                            // Channels on the outer dim are rows of their own parameters:
                            // every other one negates the scale (no clamp_from bound).
                            const std::vector<uint16_t> &codes = *order;
                            const int64_t n = static_cast<int64_t>(codes.size());
                            const std::vector<int64_t> dims = channel < 0 ? std::vector<int64_t> {n}
                                    : channel == 0 ? std::vector<int64_t> {37, n / 37}
                                                   : std::vector<int64_t> {n / 37, 37};
                            quant_problem p
                                    = dense_problem(q_kind::quantize, h, dst, dims, channel);
                            set_params(p, param_source::attr, param_source::attr, s32, ++seed);
                            for (size_t c = 0; c < p.scales.size(); ++c)
                                p.scales[c] = channel == 0 && c % 2 ? -s : s;
                            for (int64_t &z : p.zps) z = zp;
                            const outcome o = run_and_compare(p, seed, guard_side::end, nullptr,
                                    &codes);
                            ASSERT_EQ(o.rejected, "") << p.describe();
                            ASSERT_EQ(o.mismatch, "") << p.describe() << " scale " << s;
                        }
}

TEST_P(JitKernels, HalfSourcesIntoFloat8ShortEncodeProven) {
    // Static scales of f16 / bf16 sources into e4m3 / e5m2 on the checked float8 encode (no
    // power of two) skip its check where the driver proves the shorter encode of x * y8 + 0
    // for every 16-bit value (quantize_params::f8_proven): every code in order and scrambled
    // (NaN, infinities, -0, subnormals, values past the largest code among them), scales the
    // proof takes and scales it does not (0.75, 0.625, 1.5: quotients exactly on a rounding
    // edge, where rounding half up differs from the quotient's rounding to even), per tensor
    // and per channel on the outer dim (rows of two scales side by side), saturating or not.
    const std::vector<uint16_t> scrambled = every_half_code(64 + 37),
                                ordered = every_half_code(64 + 37, false);
    uint32_t seed = 61000;
    for (const std::vector<uint16_t> *order : {&scrambled, &ordered})
        for (data_type h : {data_type::bf16, data_type::f16})
            for (data_type dst : {data_type::f8_e4m3, data_type::f8_e5m2})
                for (bool saturate : {true, false})
                    for (float s : {0.023f, 0.1f, 1.f / 3, 3.7f, 117.f, 1e-3f, -0.37f, 0.7f,
                                 0.75f, 0.625f, 1.5f})
                        for (int channel : {-1, 0}) {
                            const std::vector<uint16_t> &codes = *order;
                            const int64_t n = static_cast<int64_t>(codes.size());
                            const std::vector<int64_t> dims = channel < 0
                                    ? std::vector<int64_t> {n}
                                    : std::vector<int64_t> {37, n / 37};
                            quant_problem p
                                    = dense_problem(q_kind::quantize, h, dst, dims, channel);
                            p.saturate = saturate;
                            set_params(p, param_source::attr, param_source::none, s32, ++seed);
                            for (size_t c = 0; c < p.scales.size(); ++c)
                                p.scales[c] = c % 2 ? s * 3 : s;
                            const outcome o = run_and_compare(p, seed, guard_side::end, nullptr,
                                    &codes);
                            ASSERT_EQ(o.rejected, "") << p.describe();
                            ASSERT_EQ(o.mismatch, "") << p.describe() << " scale " << s
                                                      << " saturate " << saturate;
                        }
}

TEST_P(JitKernels, HalfSourcesOneCodeAtTheBound) {
    // The proven groups skip the clamp after testing their codes against clamp_from, avx512
    // two groups (128 codes) at once by their maximum: one code at or above it, at every
    // position of an otherwise small run, must make its group clamp (else its quotient
    // converts to 0x80000000, qmin's side, where qmax is right). +Inf and the largest
    // finite code are both above every bound at these scales.
    uint32_t seed = 61000;
    for (data_type h : {data_type::bf16, data_type::f16})
        for (uint16_t big : {h == data_type::f16 ? uint16_t(0x7c00) : uint16_t(0x7f80),
                     h == data_type::f16 ? uint16_t(0x7bff) : uint16_t(0x7f7f)}) {
            const uint16_t one = h == data_type::f16 ? 0x3c00 : 0x3f80;
            const int64_t n = 2 * 128 + 37;
            for (int64_t at = 0; at < n; ++at) {
                std::vector<uint16_t> codes(static_cast<size_t>(n), one);
                codes[static_cast<size_t>(at)] = big;
                quant_problem p = dense_problem(q_kind::quantize, h, u8, {n});
                set_params(p, param_source::attr, param_source::attr, s32, ++seed);
                p.scales[0] = 0.023f;
                p.zps[0] = 3;
                const outcome o = run_and_compare(p, seed, guard_side::end, nullptr, &codes);
                ASSERT_EQ(o.rejected, "") << p.describe();
                ASSERT_EQ(o.mismatch, "") << p.describe() << " code " << big << " at " << at;
            }
        }
}

TEST_P(JitKernels, HalfSourcesRuntimeScaleProvenAtExecute) {
    // A per-tensor runtime scale of an f16 / bf16 source is proven at execute
    // (prove_at_execute) and the proof kept for the next call with the same scale and zero
    // point: one compiled kernel runs every code under a scale the proof passes, one it does
    // not (3.7 for bf16, kept from the call before would make it wrong), the first again, and
    // another zero point, each against the reference.
    using qgraph::impl::exec_args;
    const std::vector<uint16_t> codes = every_half_code(37);
    for (data_type h : {data_type::bf16, data_type::f16})
        for (data_type dst : {u8, s8}) {
            quant_problem p = dense_problem(q_kind::quantize, h, dst,
                    {static_cast<int64_t>(codes.size())});
            set_params(p, param_source::input, param_source::input, dst, 1);
            const kernel_pair k = jit_and_ref(p);
            ASSERT_TRUE(k.jit && k.ref) << k.reason;
            std::vector<uint8_t> y_jit(codes.size()), y_ref(codes.size());
            const int64_t zp_mid = dst == u8 ? 128 : 0, zp_edge = dst == u8 ? 255 : -128;
            for (const auto &call : std::vector<std::pair<float, int64_t>> {{0.023f, zp_mid},
                         {3.7f, zp_mid}, {0.023f, zp_mid}, {0.023f, zp_edge}, {-0.37f, zp_mid}}) {
                const float s = call.first;
                const uint8_t zp = static_cast<uint8_t>(call.second);
                exec_args a;
                a.src = codes.data();
                a.scales = &s;
                a.zps = &zp;
                a.dst = y_jit.data();
                k.jit->run(a);
                a.dst = y_ref.data();
                k.ref->run(a);
                ASSERT_EQ(y_jit, y_ref) << p.describe() << " scale " << s << " zp " << call.second;
            }
        }
}

TEST_P(JitKernels, RoundedSourcesIntoFloat8ShortEncodeProven) {
    // The proof covers f32 x rounded to bf16 / f16 first (a TypeCast -> Quantize chain,
    // quant_problem::src_round_dt): the load rounds, then the proven groups take the 16-bit
    // value. Every code's value, nudged up by 2^-9 of itself so that the load's rounding
    // decides (NaN and infinities as they are), through a scale the proof takes and one it
    // does not.
    for (data_type h : {data_type::bf16, data_type::f16}) {
        std::vector<float> x;
        for (uint16_t code : every_half_code(37)) {
            const float v = h == data_type::bf16 ? qgraph::impl::bf16_to_f32(code)
                                                 : qgraph::impl::f16_to_f32(code);
            x.push_back(std::isfinite(v) ? v + std::ldexp(v, -9) : v);
        }
        uint32_t seed = 63000;
        for (data_type dst : {data_type::f8_e4m3, data_type::f8_e5m2})
            for (float s : {0.023f, 0.75f}) {
                quant_problem p = dense_problem(
                        q_kind::quantize, f32, dst, {static_cast<int64_t>(x.size())});
                p.src_round_dt = h;
                set_params(p, param_source::attr, param_source::none, s32, ++seed);
                p.scales = {s};
                const outcome o = run_and_compare(p, seed, guard_side::end, &x);
                ASSERT_EQ(o.rejected, "") << p.describe();
                ASSERT_EQ(o.mismatch, "") << p.describe() << " scale " << s;
            }
    }
}

TEST_P(JitKernels, HalfSourcesIntoFloat8ProofAtRandomScales) {
    // The proof's model of the shorter encode against the kernel itself: 24 scales drawn
    // log-uniformly from [2^-12, 2^12] with either sign, every code scrambled, both types
    // into both codes, saturating or not. A scale the model wrongly proves gives a row of the
    // unchecked groups that differs from the reference.
    const std::vector<uint16_t> codes = every_half_code(64);
    std::mt19937 gen(20261129);
    std::uniform_real_distribution<float> exponent(-12.f, 12.f);
    std::vector<float> scales;
    for (int i = 0; i < 24; ++i)
        scales.push_back((i % 5 == 4 ? -1.f : 1.f) * std::exp2(exponent(gen)));
    uint32_t seed = 62000;
    for (data_type h : {data_type::bf16, data_type::f16})
        for (data_type dst : {data_type::f8_e4m3, data_type::f8_e5m2})
            for (bool saturate : {true, false})
                for (float s : scales) {
                    quant_problem p = dense_problem(
                            q_kind::quantize, h, dst, {static_cast<int64_t>(codes.size())});
                    p.saturate = saturate;
                    set_params(p, param_source::attr, param_source::none, s32, ++seed);
                    p.scales = {s};
                    const outcome o = run_and_compare(p, seed, guard_side::end, nullptr, &codes);
                    ASSERT_EQ(o.rejected, "") << p.describe();
                    ASSERT_EQ(o.mismatch, "") << p.describe() << " scale " << s
                                              << " saturate " << saturate;
                }
}

TEST_P(JitKernels, HalfSourcesIntoFloat8RuntimeScaleProvenAtExecute) {
    // A per-tensor runtime scale of an f16 / bf16 source into e4m3 / e5m2 is proven for the
    // checked encode's shorter encode at execute (prove_float8_at_execute), on its second
    // call in a row, and the proof kept for the calls with the same scale: one compiled
    // kernel runs every code under 0.023 (proven from its second call), 0.75 (not proven:
    // the kept proof would make it wrong), 0.023 again (not proven on its first call after
    // 0.75, then proven) and -0.37, each against the reference, saturating or not.
    using qgraph::impl::exec_args;
    const std::vector<uint16_t> codes = every_half_code(37);
    for (data_type h : {data_type::bf16, data_type::f16})
        for (data_type dst : {data_type::f8_e4m3, data_type::f8_e5m2})
            for (bool saturate : {true, false}) {
                quant_problem p = dense_problem(q_kind::quantize, h, dst,
                        {static_cast<int64_t>(codes.size())});
                p.saturate = saturate;
                set_params(p, param_source::input, param_source::none, s32, 1);
                const kernel_pair k = jit_and_ref(p);
                ASSERT_TRUE(k.jit && k.ref) << k.reason;
                std::vector<uint8_t> y_jit(codes.size()), y_ref(codes.size());
                for (float s : {0.023f, 0.023f, 0.023f, 0.75f, 0.75f, 0.023f, 0.023f, -0.37f,
                             -0.37f}) {
                    exec_args a;
                    a.src = codes.data();
                    a.scales = &s;
                    a.dst = y_jit.data();
                    k.jit->run(a);
                    a.dst = y_ref.data();
                    k.ref->run(a);
                    ASSERT_EQ(y_jit, y_ref) << p.describe() << " scale " << s;
                }
            }
}

TEST_P(JitKernels, SixteenBitQuantize) {
    // f32 / bf16 / f16 -> s16 / u16: saturation to the 16-bit range, NaN -> qmin, every
    // parameter kind (zero points of 16-bit types at runtime), sizes around every vector and
    // unroll edge, per channel on an outer dim and innermost, zero points at the type limits.
    const data_type s16 = data_type::s16, u16 = data_type::u16;
    const std::vector<param_kind> kinds {
            {param_source::attr, param_source::none, s32, "static scale, no zp"},
            {param_source::attr, param_source::attr, s32, "static scale and zp"},
            {param_source::input, param_source::none, s32, "runtime scale, no zp"},
            {param_source::input, param_source::input, s16, "runtime scale, s16 zp"},
            {param_source::input, param_source::input, u16, "runtime scale, u16 zp"},
            {param_source::input, param_source::input, s32, "runtime scale, s32 zp"},
    };
    uint32_t seed = 70000;
    std::vector<int64_t> sizes;
    for (int64_t n = 0; n <= 70; ++n) sizes.push_back(n);
    for (int64_t n : {127, 128, 129, 1025, 65537}) sizes.push_back(n);
    for (data_type src : {f32, data_type::bf16, data_type::f16})
        for (data_type dst : {s16, u16})
            for (const param_kind &k : kinds) {
                for (int64_t n : sizes) {
                    quant_problem p = dense_problem(q_kind::quantize, src, dst, {n});
                    set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    if (!check(p, seed, std::string(k.name) + " n=" + std::to_string(n))) return;
                }
                for (int channel : {0, 1}) {
                    quant_problem p = dense_problem(q_kind::quantize, src, dst, {17, 45}, channel);
                    set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    if (!check(p, seed, std::string(k.name) + " per channel")) return;
                }
            }
    // Zero points at the limits of the destination type, and scales that saturate most
    // values (1e-3) or round ties (0.5, 0.25: x / s exact).
    for (data_type src : {f32, data_type::f16})
        for (data_type dst : {s16, u16}) {
            const qgraph::impl::q_range q = qgraph::impl::range_of(dst);
            for (int64_t zp : {q.lo, q.hi, (q.lo + q.hi) / 2})
                for (float s : {1e-3f, 0.5f, 0.25f, 0.023f})
                    for (int channel : {-1, 1}) {
                        quant_problem p = dense_problem(q_kind::quantize, src, dst, {33, 67},
                                channel);
                        set_params(p, param_source::attr, param_source::attr, s32, ++seed);
                        for (float &v : p.scales) v = s;
                        for (int64_t &z : p.zps) z = zp;
                        if (!check(p, seed, "zp " + std::to_string(zp))) return;
                    }
        }
}

TEST_P(JitKernels, SixteenBitQuantizeClampSides) {
    // s16 / u16 broadcast rows store pairs of vectors with packs, whose saturation replaces
    // one clamp side: rows with s > 0 on the reciprocal path clamp x to +-s * 2^26, others
    // clamp q above (zp >= 0) or below (zp < 0) (jit_quantize_generator.hpp, word_clamp). Quotients
    // around both saturation bounds, ties, +-2^26, +-2^31, NaN, +-Inf, with zero points at
    // the type's limits and s32 ones up to +-2^23, scales on every path and of both signs,
    // per tensor (odd length, long enough to split between threads) and per channel on an
    // outer dim and innermost.
    const data_type s16 = data_type::s16, u16 = data_type::u16;
    const float inf = std::numeric_limits<float>::infinity();
    const float scales[] = {0.023f, -0.023f, 117.f, 0x1p-30f, 0x1p30f, 0.5f, -0.25f, 1e30f,
            0x1p-35f};
    uint32_t seed = 90000;
    for (data_type dst : {s16, u16}) {
        const qgraph::impl::q_range r = qgraph::impl::range_of(dst);
        const int64_t big = int64_t(1) << 23; // max_quantize_zp
        const std::vector<int64_t> zps = dst == s16
                ? std::vector<int64_t> {r.lo, r.lo + 1, -1, 0, 1, r.hi, -40000, 70000, -big, big}
                : std::vector<int64_t> {r.lo, 1, r.hi - 1, r.hi, -1, -70000, 70000, -big, big};
        for (float s : scales)
            for (int64_t zp : zps) {
                std::vector<float> x;
                for (double b : {double(r.lo - zp), double(r.hi - zp), 0x1p26, -0x1p26,
                             0x1p31, -0x1p31, 0.0, 1000.0})
                    for (double d : {-1.0, -0.5, 0.0, 0.5, 1.0}) {
                        const float v = static_cast<float>((b + d) * s);
                        x.insert(x.end(), {v, std::nextafter(v, inf), std::nextafter(v, -inf)});
                    }
                x.insert(x.end(), {std::nanf(""), -std::nanf(""), inf, -inf, 3.4e38f, -3.4e38f,
                                          0.f, -0.f, 1e-40f, -1e-45f});
                for (int k = -40; k <= 40; ++k) x.push_back((static_cast<float>(k) + 0.5f) * s);
                if (x.size() % 2 == 0) x.push_back(1.f);
                const int64_t n = static_cast<int64_t>(x.size());
                std::vector<float> longer;
                while (longer.size() < 20001) longer.insert(longer.end(), x.begin(), x.end());
                for (data_type src : {f32, data_type::f16})
                    for (int layout = 0; layout < 3; ++layout) {
                        // Per tensor; per channel with the channel outer (broadcast rows)
                        // and innermost (lane tables).
                        const int64_t nl = static_cast<int64_t>(longer.size());
                        quant_problem p = layout == 0
                                ? dense_problem(q_kind::quantize, src, dst, {nl})
                                : layout == 1
                                ? dense_problem(q_kind::quantize, src, dst, {2, n}, 0)
                                : dense_problem(q_kind::quantize, src, dst, {n, 2}, 1);
                        p.scale_src = param_source::attr;
                        p.zp_src = param_source::attr;
                        p.scales.assign(static_cast<size_t>(p.nparams()), s);
                        p.zps.assign(static_cast<size_t>(p.nparams()), zp);
                        std::vector<float> values = x;
                        if (layout == 0) values = longer;
                        if (layout != 0) values.insert(values.end(), x.begin(), x.end());
                        std::vector<uint16_t> codes; // f16: the values rounded
                        for (float v : values) codes.push_back(qgraph::impl::f32_to_f16(v));
                        const outcome o = src == f32
                                ? run_and_compare(p, ++seed, guard_side::end, &values)
                                : run_and_compare(p, ++seed, guard_side::end, nullptr, &codes);
                        EXPECT_EQ(o.rejected, "");
                        EXPECT_EQ(o.kernel, jit_kernel_name(&p));
                        EXPECT_EQ(o.mismatch, "") << "s " << s << " zp " << zp << " "
                                                  << p.describe();
                        if (!o.mismatch.empty() || !o.rejected.empty()) return;
                    }
            }
    }
}

TEST_P(JitKernels, SixteenBitDequantize) {
    // s16 / u16 -> f32 / bf16 / f16, every parameter kind (16-bit runtime zero points), zero
    // points at the type limits.
    const data_type s16 = data_type::s16, u16 = data_type::u16;
    uint32_t seed = 80000;
    std::vector<int64_t> sizes;
    for (int64_t n = 0; n <= 70; ++n) sizes.push_back(n);
    for (int64_t n : {127, 128, 129, 1025, 65537}) sizes.push_back(n);
    for (data_type src : {s16, u16})
        for (data_type dst : {f32, data_type::bf16, data_type::f16}) {
            for (param_source sc : {param_source::attr, param_source::input})
                for (param_source zps : {param_source::none, param_source::attr,
                             param_source::input}) {
                    // Static zero points come with static scales (lowering never mixes).
                    if (zps != param_source::none && zps != sc) continue;
                    for (data_type zdt : {s16, u16}) {
                        for (int64_t n : sizes) {
                            quant_problem p = dense_problem(q_kind::dequantize, src, dst, {n});
                            set_params(p, sc, zps, zdt, ++seed);
                            if (!check(p, seed, "n=" + std::to_string(n))) return;
                        }
                        for (int channel : {0, 1}) {
                            quant_problem p = dense_problem(q_kind::dequantize, src, dst,
                                    {17, 45}, channel);
                            set_params(p, sc, zps, zdt, ++seed);
                            if (!check(p, seed, "per channel")) return;
                        }
                    }
                }
            const qgraph::impl::q_range q = qgraph::impl::range_of(src);
            for (int64_t zp : {q.lo, q.hi})
                for (int channel : {-1, 1}) {
                    quant_problem p = dense_problem(q_kind::dequantize, src, dst, {33, 67},
                            channel);
                    set_params(p, param_source::attr, param_source::attr, s32, ++seed);
                    for (int64_t &z : p.zps) z = zp;
                    if (!check(p, seed, "zp " + std::to_string(zp))) return;
                }
        }
}

// float8 destinations and sources (NUMERICS.md "Float8 and float4"): y = cast(x / s + 0.f)
// with saturate on and off, y = f32(x) * s, against the reference bit for bit.

const std::vector<data_type> &float8_types() {
    static const std::vector<data_type> t {data_type::f8_e4m3, data_type::f8_e5m2,
            data_type::f8_e4m3fnuz, data_type::f8_e5m2fnuz};
    return t;
}

/// Float8 parameter kinds: static or runtime scales; no zero point, static zero points (all
/// 0) or a float8 zero-point tensor (+0, the only value the code takes itself).
std::vector<param_kind> float8_params(data_type f8) {
    return {{param_source::attr, param_source::none, s32, "static scale, no zp"},
            {param_source::attr, param_source::attr, s32, "static scale, zp 0"},
            {param_source::input, param_source::none, s32, "runtime scale, no zp"},
            {param_source::input, param_source::input, f8, "runtime scale, +0 zp"}};
}

/// f32 values at every float8 rounding edge of dt: each value, the midpoints between
/// neighbours (ties) and the floats either side of them, the overflow boundary and beyond,
/// half the smallest subnormal, f32 subnormals, zeros, Inf and NaN; both signs.
std::vector<float> float8_edges(data_type dt) {
    using qgraph::impl::minifloat_to_f32;
    std::vector<float> mags;
    for (uint32_t c = 0; c < 0x80; ++c) {
        const float v = minifloat_to_f32(dt, c);
        if (std::isfinite(v)) mags.push_back(v);
    }
    std::sort(mags.begin(), mags.end());
    std::vector<float> v;
    const float inf = std::numeric_limits<float>::infinity();
    for (size_t i = 0; i < mags.size(); ++i) {
        const float next = i + 1 < mags.size() ? mags[i + 1] : mags[i] * 2;
        const float mid = (mags[i] + next) / 2;
        for (float x : {mags[i], mid, std::nextafter(mid, 0.f), std::nextafter(mid, inf),
                     next * 4, std::nextafter(mags[i], inf)})
            v.push_back(x);
    }
    for (float x : {0.f, 1e-45f, 1e-40f, 0x1p-126f, 0x1p-149f, 3.4e38f, 65536.f, 65520.f, 61440.f,
                 57344.f, 480.f, 464.f, 240.f, 248.f, inf, std::nanf("")})
        v.push_back(x);
    const size_t n = v.size();
    for (size_t i = 0; i < n; ++i) v.push_back(-v[i]);
    return v;
}

TEST_P(JitKernels, Float8QuantizeEdgeValues) {
    // Exact ties (scales 1, 0.25, -0.5 and 3 divide the edges exactly), the floats beside
    // them, overflow with saturate on and off, NaN, Inf, -0 (-> +0), and quotients far below
    // the smallest subnormal (scale 1e30, a subnormal scale), whose sign the code keeps.
    uint32_t seed = 70000;
    for (data_type dt : float8_types())
        for (bool saturate : {true, false})
            for (float s : {1.f, 0.25f, -0.5f, 3.f, 1e30f, 1e-40f, 0x1p-140f})
                for (param_source src : {param_source::attr, param_source::input}) {
                    const std::vector<float> edges = float8_edges(dt);
                    std::vector<float> x(edges.size());
                    for (size_t i = 0; i < x.size(); ++i) x[i] = edges[i] * s;
                    quant_problem p = dense_problem(q_kind::quantize, f32, dt,
                            {static_cast<int64_t>(x.size())});
                    p.saturate = saturate;
                    set_params(p, param_source::attr, param_source::none, s32, ++seed);
                    p.scales = {s};
                    if (src == param_source::input) {
                        // A runtime scale: the test's pool decides it; x / s still lands on
                        // edges for the pool's powers of two and crosses them otherwise.
                        p.scale_src = param_source::input;
                        p.scales.clear();
                    }
                    const outcome o = run_and_compare(p, seed, guard_side::end, &x);
                    ASSERT_EQ(o.rejected, "") << p.describe();
                    EXPECT_EQ(o.ran, jit_kernel_name(&p));
                    ASSERT_EQ(o.mismatch, "")
                            << p.describe() << " scale " << s << " saturate " << saturate;
                }
}

TEST_P(JitKernels, Float8QuantizeGuardedReciprocal) {
    // Scales with 2^-30 <= |s| <= 1 whose reciprocal is inexact take the guarded path
    // (jit_division.hpp): the reciprocal path on groups and vectors whose every |x| is at
    // most 2^96, vdivps on the others. x = edge * s puts the quotient within an ulp or two of
    // every float8 value and midpoint, where only the exact quotient rounds right; beside
    // them x at the guard's bound and past it, NaN, Inf, f32 subnormals and values around
    // 2^-100 (quotients of at least 2^-149 whose sign the code keeps), and zeros.
    uint32_t seed = 70300;
    const float inf = std::numeric_limits<float>::infinity();
    const std::vector<float> extra {0x1p96f, std::nextafter(0x1p96f, inf), 0x1.8p100f, inf,
            std::nanf(""), 0x1p-149f, 0x1.234p-140f, 0x1p-126f, std::nextafter(0x1p-100f, 0.f),
            0x1p-100f, 0x1.8p-100f, 0.f, -0.f};
    for (data_type dt : float8_types())
        for (bool saturate : {true, false})
            for (float s : {0.023f, 0.1f, -0.3f, 0.7f, std::nextafter(1.f, 0.f), 0x1.8p-30f}) {
                std::vector<float> x;
                for (float e : float8_edges(dt)) x.push_back(e * s);
                for (float e : extra) {
                    x.push_back(e);
                    x.push_back(-e);
                }
                if (!check_float8(x, dt, saturate, s, ++seed)) return;
            }
}

TEST_P(JitKernels, Float8QuantizeCheckedEncode) {
    // Groups of the guarded and float8_checked paths (2^-30 <= |s| <= 2^30) encode
    // x * RN(1/s) and redo a group on the exact quotient where a lane lies within a few
    // units of a rounding edge (float8_emitter::flag_near_edges()). Quotients d units from
    // every float8 value, edge and tie (float8_edges()), in groups of 64 whose every lane is
    // 8 or more units away (the short encode: truncated f16 words, rounded half up) and then
    // in groups that are not; zeros of both signs, a negative scale (-0 quotients) and
    // quotients at the smallest subnormals, each alone in a group; every f16 / bf16 code as
    // the source.
    uint32_t seed = 70400;
    const std::vector<int> far {8, 9, 12, 16, 100, 4095, 4096, 4097, 8192, 65536},
            near {0, 1, 2, 3, 4, 5, 6, 7};
    for (data_type dt : {data_type::f8_e4m3, data_type::f8_e5m2})
        for (bool saturate : {true, false})
            for (float s : {0.023f, 0.1f, -0.3f, 0.7f, std::nextafter(1.f, 0.f), 0x1.8p-30f,
                         std::nextafter(1.f, 2.f), 3.7f, -117.f, 0x1.8p29f}) {
                std::vector<float> x;
                for (const std::vector<int> *ds : {&far, &near}) {
                    for (float e : float8_edges(dt)) {
                        const float q = std::fabs(e);
                        if (!(q >= 0x1p-126f && q < 0x1p126f)) continue;
                        for (int d : *ds)
                            for (int sign : {1, -1}) {
                                const float t = f32_from_bits(f32_bits(q) + sign * d);
                                x.push_back(e < 0 ? -t * s : t * s);
                            }
                    }
                    while (x.size() % 64 != 0) x.push_back(0.f); // +0: never flagged
                }
                // The x beside edge * s whose quotient RN(x / s) lies on an edge or a unit
                // from it, where x * RN(1/s) rounds elsewhere: the lanes the check exists
                // for, each alone in a group of +0 (a flagged neighbour would send the whole
                // group to the exact encode).
                for (float e : float8_edges(dt)) {
                    if (!(e >= 0x1p-126f && e < 0x1p126f)) continue;
                    float xi = e * s;
                    for (int k = 0; k < 64; ++k) xi = std::nextafter(xi, 0.f);
                    for (int k = 0; k < 128; ++k, xi = std::nextafter(xi, 2 * xi)) {
                        const float q = xi / s, q1 = xi * (1.f / s);
                        const int64_t d = int64_t(f32_bits(std::fabs(q)))
                                - int64_t(f32_bits(std::fabs(e)));
                        if (d >= -1 && d <= 1 && q != q1)
                            for (float v : {xi, -xi}) {
                                x.push_back(v);
                                x.resize(x.size() + 63, 0.f);
                            }
                    }
                }
                // Zeros, and x whose quotient lies at or below the smallest subnormal (|s| >
                // 1: x / s may round to a zero, whose code is +0 after + 0.f).
                for (float z : {0.f, -0.f, 1.f, -1.f, 0x1p-149f, -0x1p-149f, -0x1p-148f,
                             -0x1.8p-148f, -0x1p-140f})
                    for (int k = 0; k < 64; ++k) x.push_back(k == 5 ? z : 0.f);
                if (!check_float8(x, dt, saturate, s, ++seed)) return;
            }
    const std::vector<uint16_t> codes = every_half_code(64 + 37);
    for (data_type h : {data_type::bf16, data_type::f16})
        for (data_type dt : {data_type::f8_e4m3, data_type::f8_e5m2})
            for (bool saturate : {true, false})
                for (float s : {0.023f, 0.7f, -0.3f, 0x1.8p-30f, 3.7f}) {
                    quant_problem p = dense_problem(q_kind::quantize, h, dt,
                            {static_cast<int64_t>(codes.size())});
                    p.saturate = saturate;
                    set_params(p, param_source::attr, param_source::none, s32, ++seed);
                    p.scales = {s};
                    const outcome o = run_and_compare(p, seed, guard_side::end, nullptr, &codes);
                    ASSERT_EQ(o.rejected, "") << p.describe();
                    EXPECT_EQ(o.ran, jit_kernel_name(&p));
                    ASSERT_EQ(o.mismatch, "") << p.describe() << " scale " << s;
                }
}

TEST_P(JitKernels, Float8QuantizeByOneProduct) {
    // Power-of-two scales with |s| <= 1 quantize by one FMA (x * y + 0.f rounded
    // once, float8_emitter::encode_product()); |s| >= 2 must not, as x / s may round to a
    // zero there (-2^-149 / 2 is -0, whose code is +0 after + 0.f, where one rounding of
    // -2^-150 + 0 gives -0). Overflowing quotients (e4m3's product times 2^-8 is finite),
    // f32 subnormals and zeros, in whole groups of 64 and a tail.
    uint32_t seed = 70500;
    const float big = std::numeric_limits<float>::max(),
                inf = std::numeric_limits<float>::infinity();
    const std::vector<float> vals {big, 3e38f, 1.7e38f, 0x1p-149f, 0x1p-148f, 0x3p-149f,
            0x1p-126f, 0.f, 1.f, 448.f, 464.f, 57344.f, 61440.f, inf, std::nanf("")};
    for (data_type dt : float8_types())
        for (bool saturate : {true, false})
            for (float s : {1.f, 0.5f, 0.25f, -0.5f, 2.f, 4.f, -2.f}) {
                std::vector<float> x;
                for (int i = 0; x.size() < 200; ++i)
                    for (float v : vals) x.push_back(i & 1 ? -v : v);
                if (!check_float8(x, dt, saturate, s, ++seed)) return;
            }
}

TEST_P(JitKernels, Float8QuantizeSpecialsInEveryLane) {
    // The word encode's packs put each vector's codes in place (avx2: the words of vectors 0
    // and 2 of a group joined, of 1 and 3, one lane-wise pack; avx512: one byte gather), so
    // every special value is put at every lane of a group and of the single vectors after
    // it: a row of 80 elements (avx2 two groups of 32 and two vectors of 8, avx512 a group
    // of 64 and a vector of 16) holding the specials rotated by each offset. Scales 1 (the
    // one-FMA product), 4 (a multiply by 1/4) and 3 (the division).
    uint32_t seed = 70700;
    const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
    for (data_type dt : {data_type::f8_e4m3, data_type::f8_e5m2}) {
        // NaN and Inf, overflow at and past the top tie, ties to even either way, -0 (+0
        // after + 0.f), a negative quotient far below the smallest subnormal (-0), the
        // smallest subnormal's half (a tie to 0) and just above it, ordinary values.
        const float top = dt == data_type::f8_e4m3 ? 464.f : 61440.f;
        const float sub = dt == data_type::f8_e4m3 ? 0x1p-10f : 0x1p-17f;
        const std::vector<float> specials {nan, -nan, inf, -inf, top, -top,
                std::nextafter(top, 0.f), 1.0625f, -1.1875f, 1.125f, -0.f, -1e-30f, sub,
                -std::nextafter(sub, 1.f), 0.3f, -7.7f, 0.f};
        const int k = static_cast<int>(specials.size());
        for (bool saturate : {true, false})
            for (float s : {1.f, 4.f, 3.f})
                for (int r = 0; r < k; ++r) {
                    std::vector<float> x(80);
                    for (size_t i = 0; i < x.size(); ++i) x[i] = specials[(i + r) % k] * s;
                    if (!check_float8(x, dt, saturate, s, ++seed,
                                " rotation " + std::to_string(r)))
                        return;
                }
    }
}

TEST_P(JitKernels, Float8QuantizeEverySize) {
    uint32_t seed = 71000;
    const data_type bf16 = data_type::bf16, f16 = data_type::f16;
    for (data_type src : {f32, bf16, f16})
        for (data_type dt : float8_types())
            for (bool saturate : {true, false})
                for (const param_kind &k : float8_params(dt))
                    for (int64_t n : test_sizes()) {
                        // Every size for f32 -> e4m3; the vector edges for the others.
                        if ((src != f32 || dt != data_type::f8_e4m3) && n > 40 && n != 64
                                && n != 127 && n != 129 && n != 1025 && n != 65537)
                            continue;
                        quant_problem p = dense_problem(q_kind::quantize, src, dt, {n});
                        p.saturate = saturate;
                        set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                        const std::string what = std::string(k.name) + " n=" + std::to_string(n)
                                + (saturate ? " saturate" : "");
                        if (!check(p, seed, what)) return;
                        if (n <= 40 && !check(p, seed, what + " (start guard)", guard_side::start))
                            return;
                    }
}

TEST_P(JitKernels, Float8PerChannel) {
    // Channel outer (a scale per row) and inner (lane tables for static scales, the user's
    // array for runtime ones), quantize and dequantize.
    uint32_t seed = 72000;
    for (data_type dt : float8_types())
        for (q_kind kind : {q_kind::quantize, q_kind::dequantize})
            for (const param_kind &k : float8_params(dt))
                for (int64_t c : {1, 3, 16, 17, 100})
                    for (int64_t l : {1, 7, 16, 33, 130})
                        for (int channel : {0, 1}) {
                            const data_type src = kind == q_kind::quantize ? f32 : dt;
                            const data_type dst = kind == q_kind::quantize ? dt : f32;
                            quant_problem p = channel == 0
                                    ? dense_problem(kind, src, dst, {c, l}, 0)
                                    : dense_problem(kind, src, dst, {l, c}, 1);
                            p.saturate = c % 2 == 0;
                            set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                            if (!check(p, seed, std::string(k.name) + " per channel")) return;
                        }
}

TEST_P(JitKernels, Float8BlockedRows) {
    // Runtime scales on an outer dim over short rows (MXFP8 activations: blocks of 32 with
    // e8m0 scales) take the blocked code: each row multiplies where 1/s is exact and divides
    // elsewhere; avx512 e4m3 / e5m2 rows go two vectors at a time, then a vector and a masked
    // tail. x holds every rounding edge of the type (ties, overflow, NaN, Inf, -0), rotated
    // row by row; the scales are the runtime pool's (powers of two, others, 0, subnormal,
    // NaN, Inf, negative).
    uint32_t seed = 72500;
    for (data_type dt : float8_types())
        for (bool saturate : {true, false})
            for (int64_t l : {16, 17, 32, 40, 48, 64, 96, 130}) {
                const int64_t rows = 23;
                quant_problem p = dense_problem(q_kind::quantize, f32, dt, {rows, l}, 0);
                p.saturate = saturate;
                set_params(p, param_source::input, param_source::none, s32, ++seed);
                const std::vector<float> edges = float8_edges(dt);
                std::vector<float> x(static_cast<size_t>(rows * l));
                for (size_t i = 0; i < x.size(); ++i)
                    x[i] = edges[(i * 7 + i / l * 13) % edges.size()];
                const outcome o = run_and_compare(p, seed, guard_side::end, &x);
                ASSERT_EQ(o.rejected, "") << p.describe();
                EXPECT_EQ(o.ran, jit_kernel_name(&p));
                ASSERT_EQ(o.mismatch, "") << p.describe() << " seed " << seed;
            }
}

TEST_P(JitKernels, Float8DequantizeEveryCode) {
    // Every window of 256 source elements holds every code (jit_test_util's float8 fill):
    // NaN, Inf, subnormals, both zeros; scales give subnormal and overflowing products; bf16
    // and f16 destinations round the f32 product once.
    uint32_t seed = 73000;
    for (data_type dt : float8_types())
        for (data_type dst : {f32, data_type::bf16, data_type::f16})
            for (const param_kind &k : float8_params(dt))
                for (int64_t n : test_sizes()) {
                    if (dst != f32 && n > 40 && n != 64 && n != 129 && n != 256 && n != 1025
                            && n != 65537)
                        continue;
                    quant_problem p = dense_problem(q_kind::dequantize, dt, dst, {n});
                    set_params(p, k.scales, k.zps, k.zp_dt, ++seed);
                    if (!check(p, seed, std::string(k.name) + " n=" + std::to_string(n))) return;
                }
}

TEST_P(JitKernels, Float8DequantizeToBf16AtTheSubnormalEdge) {
    // vcvtneps2bf16 flushes subnormal products: rows whose scale can give one (|s| below
    // 2^-126 over the type's smallest subnormal) must round in integers. Scales on both sides
    // of that edge for every type, per tensor and per channel on an outer dim.
    uint32_t seed = 76000;
    for (data_type dt : float8_types()) {
        const float x_min = qgraph::impl::minifloat_to_f32(dt, 1);
        const float edge = 0x1p-126f / x_min;
        for (float s : {edge, -edge, edge / 2, std::nextafter(edge, 0.f), edge * 0.75f,
                     edge * 1.5f, 0x1p-126f, 1e-40f, 0.f, 0.023f})
            for (int channel : {-1, 0}) {
                quant_problem p = channel < 0
                        ? dense_problem(q_kind::dequantize, dt, data_type::bf16, {1000})
                        : dense_problem(q_kind::dequantize, dt, data_type::bf16, {3, 300}, 0);
                set_params(p, param_source::attr, param_source::none, s32, ++seed);
                for (float &v : p.scales) v = s;
                if (!check(p, seed, "scale " + std::to_string(s))) return;
            }
    }
}

TEST_P(JitKernels, Float8DequantizeByTableLookup) {
    // avx512 looks e4m3 / e5m2 codes up in per-row tables of their bf16 / f16 results (rows
    // of 512 elements or more with a finite nonzero scale; a negative code's result is its
    // magnitude's with the sign flipped; with AVX512_VBMI the tables are byte planes, 64
    // codes a vector, 256 a step, and f32 results take them too, in rows of 1024 or more):
    // rows around 512 (f32: 1024) and around the 32- and 64-code vectors and the 128- and
    // 256-code steps, every code (each 256-element window holds all of them), both guard
    // sides; rows per channel with runtime scales of every kind (0, subnormal, huge, NaN,
    // Inf: those but the finite nonzero ones take the arithmetic loop); static scales at the
    // bf16 instruction's subnormal edge and ones whose products overflow.
    uint32_t seed = 77000;
    const data_type bf16 = data_type::bf16, f16 = data_type::f16;
    for (data_type dt : {data_type::f8_e4m3, data_type::f8_e5m2})
        for (data_type dst : {bf16, f16, f32}) {
            const int64_t r = dst == f32 ? 512 : 0;
            for (int64_t n : {511 + r, 512 + r, 513 + r, 543 + r, 544 + r, 575 + r, 576 + r,
                         577 + r, 639 + r, 640 + r, 641 + r, 767 + r, 768 + r, int64_t(4096 + 15),
                         int64_t(4096 + 31), int64_t(4096 + 63)})
                for (param_source sc : {param_source::attr, param_source::input}) {
                    quant_problem p = dense_problem(q_kind::dequantize, dt, dst, {n});
                    set_params(p, sc, param_source::none, s32, ++seed);
                    const std::string what = "n=" + std::to_string(n);
                    if (!check(p, seed, what)) return;
                    if (!check(p, seed, what + " (start guard)", guard_side::start)) return;
                }
            quant_problem rows =
                    dense_problem(q_kind::dequantize, dt, dst, {48, dst == f32 ? 1300 : 700}, 0);
            set_params(rows, param_source::input, param_source::none, s32, ++seed);
            if (!check(rows, seed, "runtime scale per row")) return;
            const float edge = 0x1p-126f / qgraph::impl::minifloat_to_f32(dt, 1);
            for (float s : {edge, -edge / 2, edge * 0.75f, 1e30f, -3e38f, 448.f}) {
                quant_problem p = dense_problem(q_kind::dequantize, dt, dst, {1000});
                set_params(p, param_source::attr, param_source::none, s32, ++seed);
                p.scales = {s};
                if (!check(p, seed, "scale " + std::to_string(s))) return;
            }
        }
}

TEST_P(JitKernels, Float8DequantizeByByteTables) {
    // avx2 looks e4m3 / e5m2 codes up in vpshufb tables of their bf16 / f16 results (rows of
    // 256 elements or more, 32 codes a step, the rest by arithmetic) where every normal code's
    // |x * s| is a normal finite destination value: rows around 256 and around the 32- and
    // 64-code steps, both guard sides, every code; scales at both ends of that range and
    // just outside (bf16: 2^-126 / x_min_normal, 2^127 / x_max; f16: 2^-14 / x_min_normal,
    // 65504 / x_max), negative ones, and runtime scales of every kind per row.
    uint32_t seed = 78000;
    for (data_type dt : {data_type::f8_e4m3, data_type::f8_e5m2})
        for (data_type dst : {data_type::bf16, data_type::f16}) {
            const bool bf16 = dst == data_type::bf16;
            const auto &f = qgraph::facts_of(dt);
            const double x_min = std::ldexp(1.0, 1 - f.bias);
            const double d_max = bf16 ? std::ldexp(1.0, 127) : 65504.0;
            const float lo = static_cast<float>(std::ldexp(1.0, bf16 ? -126 : -14) / x_min);
            float hi = static_cast<float>(d_max / f.max);
            while (static_cast<double>(hi) * f.max > d_max) hi = std::nextafter(hi, 0.f);
            const float up = std::numeric_limits<float>::infinity();
            for (float s : {lo, -lo, std::nextafter(lo, 0.f), hi, -hi, std::nextafter(hi, up),
                         lo * 0.3f, hi * 1.7f, 0.023f, -0.023f, (lo + hi) / 2, 1.f, 1.1f})
                for (int64_t n : {248, 256, 264, 280, 288, 312, 320, 328, 344, 1000, 4096 + 24}) {
                    quant_problem p = dense_problem(q_kind::dequantize, dt, dst, {n});
                    set_params(p, param_source::attr, param_source::none, s32, ++seed);
                    p.scales = {s};
                    const std::string what = "scale " + std::to_string(s) + " n=" + std::to_string(n);
                    if (!check(p, seed, what)) return;
                    if (n == 264 && !check(p, seed, what + " (start guard)", guard_side::start))
                        return;
                }
            quant_problem rows = dense_problem(q_kind::dequantize, dt, dst, {40, 320}, 0);
            set_params(rows, param_source::input, param_source::none, s32, ++seed);
            if (!check(rows, seed, "runtime scale per row")) return;
        }
}

TEST_P(JitKernels, Float8DequantizeToF16ByByteTablesBelowTheNormals) {
    // f16 rows whose |s| puts up to 16 of the lowest normal codes' products below f16's
    // smallest normal still take the byte tables on avx2 (T1 from the top 16 normal codes,
    // those low codes from T4): every normal code's threshold scale 2^-14 / x (its product
    // exactly the smallest normal) and its neighbours, negative too, on every code
    // scrambled (below the 17th's, the arithmetic); rows of large codes with one low code
    // at a step's first, middle or last place, or with none.
    const data_type f16 = data_type::f16;
    uint32_t seed = 83000;
    for (data_type dt : {data_type::f8_e4m3, data_type::f8_e5m2}) {
        const auto &f = qgraph::facts_of(dt);
        const int top = dt == data_type::f8_e4m3 ? 0x7e : 0x7b;
        const int first = 1 << f.man_bits; // the lowest normal code
        std::vector<uint16_t> every(4096 + 24);
        for (size_t i = 0; i < every.size(); ++i)
            every[i] = static_cast<uint16_t>(i * 167 % 256);
        std::vector<float> scales;
        for (int c = first; c <= top; ++c) {
            const float x = qgraph::impl::minifloat_to_f32(dt, static_cast<uint32_t>(c));
            const float t = static_cast<float>(0x1p-14 / static_cast<double>(x));
            for (float s : {t, std::nextafter(t, 0.f), std::nextafter(t, 1.f)})
                if (c % 7 == 0 || c < first + 16 || c > top - 20) {
                    scales.push_back(s);
                    scales.push_back(-s);
                } else {
                    scales.push_back(s);
                }
        }
        for (float s : {0.023f, 1e-3f, 1e-5f, 0x1p-20f, 0x1p-26f, 0x1p-27f, -0.3f})
            scales.push_back(s);
        for (float s : scales) {
            quant_problem p = dense_problem(q_kind::dequantize, dt, f16,
                    {static_cast<int64_t>(every.size())});
            set_params(p, param_source::attr, param_source::none, s32, ++seed);
            p.scales = {s};
            const outcome o = run_and_compare(p, seed, guard_side::end, nullptr, &every);
            EXPECT_EQ(o.kernel, jit_kernel_name(&p));
            EXPECT_EQ(o.mismatch, "") << p.describe() << " scale " << s;
            if (!o.mismatch.empty()) return;
        }
        // Large codes with one low code (and its negative) placed in some steps only.
        for (float s : {0.023f, 1e-3f, -2e-4f})
            for (int at : {-1, 0, 13, 31, 32, 95, 511}) {
                std::vector<uint16_t> codes(1024 + 40);
                for (size_t i = 0; i < codes.size(); ++i)
                    codes[i] = static_cast<uint16_t>(top - i % 24 + (i % 3 == 0 ? 0x80 : 0));
                if (at >= 0) {
                    codes[static_cast<size_t>(at)] = static_cast<uint16_t>(first);
                    codes[static_cast<size_t>(at) + 200] = static_cast<uint16_t>(first + 0x81);
                }
                quant_problem p = dense_problem(q_kind::dequantize, dt, f16,
                        {static_cast<int64_t>(codes.size())});
                set_params(p, param_source::attr, param_source::none, s32, ++seed);
                p.scales = {s};
                const outcome o = run_and_compare(p, seed, guard_side::end, nullptr, &codes);
                EXPECT_EQ(o.kernel, jit_kernel_name(&p));
                EXPECT_EQ(o.mismatch, "") << p.describe() << " scale " << s << " at " << at;
                if (!o.mismatch.empty()) return;
            }
    }
}

TEST_P(JitKernels, Float8StridedAndTransposedLayouts) {
    uint32_t seed = 74000;
    struct layout {
        std::vector<int64_t> dims, ss, ds;
        int channel;
    };
    const std::vector<layout> layouts {
            {{5, 37}, {40, 1}, {45, 1}, -1}, // padded rows
            {{5, 37}, {40, 1}, {37, 1}, 0},
            {{3, 4, 19}, {19, 57, 1}, {80, 20, 1}, 1}, // an outer pair transposed
            {{6, 33}, {0, 1}, {33, 1}, -1}, // a broadcast source row
            {{4, 3, 17}, {51, 17, 1}, {3 * 17 * 2, 17 * 2, 1}, 2},
            {{17, 65}, {1, 17}, {65, 1}, 0}, // NHWC -> NCHW: the tile walk
            {{64, 130}, {130, 1}, {1, 64}, 1}, // NCHW -> NHWC
    };
    for (const layout &l : layouts)
        for (data_type dt : {data_type::f8_e4m3, data_type::f8_e5m2fnuz})
            for (q_kind kind : {q_kind::quantize, q_kind::dequantize})
                for (param_source scales : {param_source::attr, param_source::input}) {
                    const data_type src = kind == q_kind::quantize ? f32 : dt;
                    const data_type dst = kind == q_kind::quantize ? dt : f32;
                    quant_problem p = dense_problem(kind, src, dst, l.dims, l.channel);
                    p.src_strides = l.ss;
                    p.dst_strides = l.ds;
                    set_params(p, scales, param_source::none, s32, ++seed);
                    if (!check(p, seed, "strided")) return;
                }
}

TEST_P(JitKernels, Float8ZeroPointTensors) {
    // A float8 zero-point tensor of +0 runs on the code; -0 (which keeps a -0 quotient) runs
    // on the reference, whose result the test compares; a nonzero value (and the fnuz NaN,
    // code 0x80) is an error that the reference reports.
    uint32_t seed = 75000;
    for (data_type dt : float8_types())
        for (q_kind kind : {q_kind::quantize, q_kind::dequantize})
            for (int channel : {-1, 1}) {
                const data_type src = kind == q_kind::quantize ? f32 : dt;
                const data_type dst = kind == q_kind::quantize ? dt : f32;
                quant_problem p = dense_problem(kind, src, dst, {9, 70}, channel);
                set_params(p, param_source::input, param_source::input, dt, ++seed);
                const size_t nz = static_cast<size_t>(p.nparams() * p.zp_stride());
                const bool fnuz = qgraph::facts_of(dt).style == qgraph::float_style::fnuz;
                std::vector<uint8_t> zps(nz, 0);
                outcome o = run_and_compare(p, seed, guard_side::end, nullptr, nullptr, &zps);
                EXPECT_EQ(o.mismatch, "") << p.describe();
                EXPECT_EQ(o.ran, jit_kernel_name(&p)) << p.describe();
                zps.back() = 0x80; // -0, or the fnuz NaN
                if (fnuz) {
                    EXPECT_THROW(run_and_compare(p, seed, guard_side::end, nullptr, nullptr, &zps),
                            qgraph::error)
                            << p.describe();
                } else {
                    o = run_and_compare(p, seed, guard_side::end, nullptr, nullptr, &zps);
                    EXPECT_EQ(o.mismatch, "") << p.describe();
                    EXPECT_EQ(o.ran, kind == q_kind::quantize ? "ref:quantize" : "ref:dequantize");
                }
                zps.back() = 0x38; // 1.0 in e4m3, 0.5 in e5m2: nonzero in every type
                try {
                    run_and_compare(p, seed, guard_side::end, nullptr, nullptr, &zps);
                    ADD_FAILURE() << "nonzero float8 zero point accepted: " << p.describe();
                } catch (const qgraph::error &e) {
                    EXPECT_EQ(e.status(), qgraph::status::invalid_arguments);
                }
            }
}

// The kernel levels (common/cpu_isa.hpp): avx512_core_bf16 adds the bf16 conversion
// instruction; vnni, fp16 and amx generate the code of the kernel level below them.
INSTANTIATE_TEST_SUITE_P(Levels, JitKernels,
        testing::ValuesIn(at_one_and_two_threads({qgraph::impl::avx2, qgraph::impl::avx512_core,
                qgraph::impl::avx512_core_bf16})),
        isa_level_name);

} // namespace
