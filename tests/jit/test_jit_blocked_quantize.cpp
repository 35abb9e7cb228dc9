// Blocked QuantizeLinear (ONNX block_size) on the JIT quantize kernel: blocks that tile their
// dim run as rows of one parameter entry each (split_full_groups, backends/problem.hpp); a
// partial last block is split off and runs as a second jit kernel (split_last_group,
// backends/last_group_split.hpp). The same for blocked DequantizeLinear from the sources the
// grouped kernel does not read (s16, u16, float8). Through the public API with the jit backend
// forced, against ref bit for bit, at every ISA level and 1 and 2 threads; blocks on an outer
// axis (parameters then vary along the contiguous dim too) stay on ref with a reason.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

float f32_from_bits(uint32_t b) {
    float f;
    std::memcpy(&f, &b, sizeof f);
    return f;
}

struct blocked_case {
    dims x;
    int64_t axis, block; ///< block 0: per channel along axis
    dt y;
    bool zp;
    dims dst_strides = {}; ///< empty: dense
};

std::string show(const dims &d) {
    std::string s;
    for (int64_t v : d) s += (s.empty() ? "" : "x") + std::to_string(v);
    return s;
}

size_t axis_of(const blocked_case &c) {
    return static_cast<size_t>(c.axis < 0 ? c.axis + int64_t(c.x.size()) : c.axis);
}

/// Scale/zero-point shape: x's, with ceil(D / block) along the axis (per channel: D along the
/// axis, 1-D).
dims param_dims(const blocked_case &c) {
    dims d = c.x;
    const size_t axis = axis_of(c);
    if (c.block == 0) return {d[axis]};
    d[axis] = (d[axis] + c.block - 1) / c.block;
    return d;
}

/// The parameter index of element e (row-major in x).
int64_t param_index(const blocked_case &c, int64_t e) {
    const size_t axis = axis_of(c);
    int64_t inner = 1;
    for (size_t k = axis + 1; k < c.x.size(); ++k) inner *= c.x[k];
    const int64_t along = e / inner % c.x[axis], outer = e / inner / c.x[axis];
    if (c.block == 0) return along;
    const int64_t nb = (c.x[axis] + c.block - 1) / c.block;
    return (outer * nb + along / c.block) * inner + e % inner;
}

op blocked_op(const blocked_case &c) {
    std::vector<lt> in {dense(0, dt::f32, c.x), dense(1, dt::f32, param_dims(c))};
    if (c.zp) in.push_back(dense(2, c.y, param_dims(c)));
    const lt out = c.dst_strides.empty() ? dense(3, c.y, c.x) : strided(3, c.y, c.x, c.dst_strides);
    op o(0, op::kind::QuantizeLinear, in, {out}, "blocked");
    o.set_attr<int64_t>("axis", c.axis);
    if (c.block > 0) o.set_attr<int64_t>("block_size", c.block);
    return o;
}

/// Inputs: values with .5 ties at the scales below, NaN, +-Inf, huge; scales with powers of
/// two and generic ones; zero points over the type's range, the limits included.
std::vector<buffer> inputs(const blocked_case &c, uint32_t seed) {
    std::mt19937 g(seed);
    const op o = blocked_op(c);
    const auto &lts = o.get_input_logical_tensors();
    std::vector<float> x(static_cast<size_t>(nelems(c.x)));
    for (float &v : x) {
        const float special[] = {NAN, INFINITY, -INFINITY, 1e20f, -1e20f, 0.f, -0.f};
        v = g() % 16 == 0 ? special[g() % 7] : (static_cast<int>(g() % 1024) - 512) * 0.25f;
    }
    std::vector<float> s(static_cast<size_t>(nelems(param_dims(c))));
    for (float &v : s) {
        const float pool[] = {0.5f, 0.25f, 1.f, 0.023f, 3.7f, 0.1f};
        v = pool[g() % 6];
    }
    std::vector<buffer> b {make_buffer(lts[0], x), make_buffer(lts[1], s)};
    if (c.zp) {
        const bool u8 = c.y == dt::u8;
        std::vector<int8_t> z(s.size());
        for (int8_t &v : z) {
            const int pick = static_cast<int>(g() % 4);
            v = static_cast<int8_t>(pick == 0 ? (u8 ? 0 : -128) : pick == 1 ? (u8 ? -1 : 127)
                                                                            : g() % 256);
        }
        b.push_back(make_buffer(lts[2], z));
    }
    return b;
}

TEST(JitBlockedQuantize, TilingBlocksRunOnJitAndMatchRef) {
    const blocked_case cases[] = {
            {{4, 128}, 1, 32, dt::u8, true},
            {{3, 64}, 1, 16, dt::s8, true},
            {{2, 3, 96}, 2, 32, dt::u8, false},
            {{1, 64, 56, 56}, 3, 8, dt::s8, true},
            {{5, 48}, -1, 48 / 2, dt::u8, true},
            {{7, 33}, 1, 11, dt::u8, true}, // odd rows: avx2 bounces every row's tail
    };
    at_every_isa_and_thread_count([&] {
        for (const blocked_case &c : cases) {
            const op o = blocked_op(c);
            const std::vector<buffer> in = inputs(c, 7);
            const std::vector<buffer> out {buffer(o.get_output_logical_tensors()[0])};
            const run_result jit = run_op_on("jit", o, in, out);
            const run_result ref = run_op_on("ref", o, in, out);
            EXPECT_EQ(jit.backend, "jit") << show(c.x);
            EXPECT_EQ(jit.outputs[0].bytes(), ref.outputs[0].bytes()) << show(c.x);
        }
    });
}

/// Blocks along the last axis with a scale each from `scales` (cycled) and values that put
/// the quotient exactly on, and one f32 step either side of, half-integers (ties) for the
/// block's scale, besides NaN (payloads in the low bits too), +-Inf, +-0, huge, subnormal
/// values and values whose quotients leave avx512's fixed-point range (2^17) at generic
/// scales; zero points cycle over the type's limits and a middle value. Every third run of
/// 16 elements (so at every position of a group of 64 in turn) holds quotients a quarter
/// from a half-integer instead, none of which the checks flag: elsewhere every vector has
/// a lane the check sends to its redo, whose division would hide an error of the
/// multiply's result.
std::vector<buffer> edge_inputs(const blocked_case &c, const std::vector<float> &scales) {
    const op o = blocked_op(c);
    const auto &lts = o.get_input_logical_tensors();
    std::vector<float> s(static_cast<size_t>(nelems(param_dims(c))));
    for (size_t b = 0; b < s.size(); ++b) s[b] = scales[b % scales.size()];
    std::vector<float> x(static_cast<size_t>(nelems(c.x)));
    const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.f, -0.f, 3e38f, -3e38f, 1e-40f,
            f32_from_bits(0x7f800004u), f32_from_bits(0xffc0fffcu), 5e3f, -4.9e4f};
    constexpr size_t n_special = sizeof(special) / sizeof(special[0]);
    for (size_t i = 0; i < x.size(); ++i) {
        const int64_t e = static_cast<int64_t>(i);
        const float sb = s[static_cast<size_t>(param_index(c, e))];
        const int k = static_cast<int>(i % 97) - 48; // half-integers -47.5 .. 48.5, and beyond
        const float tie = (static_cast<float>(k) + 0.5f) * (i % 5 == 4 ? 5.f : 1.f) * sb;
        if (i / 16 % 3 == 1) {
            x[i] = (static_cast<float>(k) + 0.25f) * sb;
            continue;
        }
        switch (i % 4) {
            case 0: x[i] = tie; break;
            case 1: x[i] = std::nextafter(tie, INFINITY); break;
            case 2: x[i] = std::nextafter(tie, -INFINITY); break;
            default: x[i] = special[i / 4 % n_special]; break;
        }
    }
    std::vector<buffer> b {make_buffer(lts[0], x), make_buffer(lts[1], s)};
    if (c.zp) {
        const bool u8 = c.y == dt::u8;
        const int zps[] = {u8 ? 0 : -128, u8 ? 255 : 127, u8 ? 128 : 0, u8 ? 1 : -1, 37};
        std::vector<int8_t> z(s.size());
        for (size_t i = 0; i < z.size(); ++i) z[i] = static_cast<int8_t>(zps[i % 5]);
        b.push_back(make_buffer(lts[2], z));
    }
    return b;
}

/// Scales on the checked path (inexact reciprocals), with exact reciprocals, negative, at
/// both ends of [2^-30, 2^30] and just outside, 0, subnormal, with a subnormal reciprocal
/// (above 2^126), huge, +-Inf and NaN.
std::vector<float> edge_scales() {
    return {0.023f, 0.1f, 3.7f, -0.3f, 0.5f, 1.f, 0x1p-30f, 0x1p30f,
            std::nextafter(0x1p-30f, 0.f), std::nextafter(0x1p30f, INFINITY), 0.f, 1e-40f, 1e30f,
            INFINITY, -INFINITY, NAN, 7e-10f, 1.1e9f, 3e38f, -1.3e38f};
}

/// Each case of `cases` on jit, bit for bit as ref, with edge_inputs() of `scales`, at every
/// ISA level and 1 and 2 threads; `split`: as two kernels (a partial last block), else as one.
void expect_edges_match_ref(const std::vector<blocked_case> &cases, bool split = false,
        const std::vector<float> &scales = edge_scales()) {
    at_every_isa_and_thread_count([&] {
        for (const blocked_case &c : cases) {
            SCOPED_TRACE(show(c.x) + " axis " + std::to_string(c.axis) + " block "
                    + std::to_string(c.block) + (c.y == dt::u8 ? " u8" : " s8")
                    + (c.zp ? " zp" : "") + (c.dst_strides.empty() ? "" : " strided"));
            const op o = blocked_op(c);
            const std::vector<buffer> in = edge_inputs(c, scales);
            const std::vector<buffer> out {buffer(o.get_output_logical_tensors()[0])};
            const run_result jit = run_op_on("jit", o, in, out);
            const run_result ref = run_op_on("ref", o, in, out);
            EXPECT_EQ(jit.backend, "jit");
            EXPECT_EQ(jit.kernel.find('+') != std::string::npos, split) << jit.kernel;
            EXPECT_EQ(jit.outputs[0].bytes(), ref.outputs[0].bytes());
        }
    });
}

TEST(JitBlockedQuantize, BlockedRowsMatchRefAtTiesAndEdgeScales) {
    std::vector<blocked_case> cases;
    for (int64_t block : {16, 32, 64, 96, 128, 24, 40, 8})
        for (dt y : {dt::u8, dt::s8})
            for (bool zp : {true, false})
                cases.push_back({{3, 5 * block}, 1, block, y, zp});
    // Two threads split this one inside a block: the pieces either side are partial rows.
    cases.push_back({{45, 1040}, 1, 40, dt::u8, true});
    expect_edges_match_ref(cases);
}

TEST(JitBlockedQuantize, LongRowsLoopOverGroupsAndTakeTails) {
    // Rows of 192 and more (blocks, and per channel along an outer axis) take the blocked
    // code too where it packs them: rows from 256 on loop over their groups of 64, and
    // avx512's fixed-point rows end in a tail of 1-31 elements (one masked vector, or a
    // whole one and a masked one; 208: a whole one alone). avx2 takes rows of whole pairs
    // of vectors (8-element multiples otherwise on the broadcast code).
    std::vector<blocked_case> cases;
    for (int64_t block : {192, 196, 208, 225, 255, 256, 257, 288, 320, 784, 1000})
        for (dt y : {dt::u8, dt::s8})
            for (bool zp : {true, false})
                cases.push_back({{3, 2 * block}, 1, block, y, zp});
    // Per channel along axis 1 of NCHW (rows of H x W, 196), more rows than a chunk of 16;
    // and rows of 1040 that two threads split inside a row (the pieces either side are
    // partial rows, on the broadcast code).
    cases.push_back({{2, 20, 14, 14}, 1, 0, dt::u8, true});
    cases.push_back({{2, 20, 14, 14}, 1, 0, dt::s8, false});
    cases.push_back({{45, 1040}, 0, 0, dt::u8, true});
    cases.push_back({{45, 1040}, 0, 0, dt::s8, false});
    expect_edges_match_ref(cases);
}

TEST(JitBlockedQuantize, RuntimeLaneTablesMatchRefAtTies) {
    // Scales along the contiguous dim (per channel on the last axis; blocks along an outer
    // axis, a partial last one included) serving 16 or more elements each: the driver sets up
    // their lane tables at execute (runtime_lane_tables) when every one lies in [2^-30, 2^30],
    // and the lane code takes the checked path; with edge_scales() (0, NaN, Inf, subnormal,
    // huge) the call divides instead. u8 and s8 zero points at the type's limits; lanes of
    // whole groups, single vectors and an avx2 tail; two threads split the last case inside
    // its rows.
    const std::vector<float> in_range {0.023f, 0.1f, 3.7f, -0.3f, 0.5f, 1.f, 0x1p-30f,
            0x1p30f, std::nextafter(0x1p-30f, 1.f), 1e-9f, 1e9f};
    // And scales within a factor of 161 of each other: a lane divided by another lane's
    // scale (a table pointer left behind) stays below 2^17 and shows, where with both ends
    // of the range a check that flags quotients past 2^17 (as avx512's fixed-point check
    // does) sends every such vector to its redo, whose division hides the error.
    const std::vector<float> moderate {0.023f, 0.1f, 3.7f, -0.3f, 0.5f, 1.f};
    std::vector<blocked_case> cases, partial;
    for (dt y : {dt::u8, dt::s8})
        for (bool zp : {true, false}) {
            cases.push_back({{40, 100}, -1, 0, y, zp});
            cases.push_back({{17, 16}, 1, 0, y, zp});
            cases.push_back({{16, 7}, 1, 0, y, zp});
            cases.push_back({{256, 40}, 0, 128, y, zp});
            partial.push_back({{100, 33}, 0, 32, y, zp}); // two kernels: 96 rows, then 4
        }
    cases.push_back({{45, 1040}, 1, 0, dt::u8, true});
    for (const std::vector<float> &scales : {in_range, moderate, edge_scales()}) {
        expect_edges_match_ref(cases, false, scales);
        expect_edges_match_ref(partial, true, scales);
    }
}

TEST(JitBlockedQuantize, BlockTablesOfManyRowsMatchRef) {
    // The blocked code computes the parameters of vlen rows at a time (16, avx2 8): calls of
    // many rows take whole chunks of contiguous scales and zero points as vectors, then a
    // partial one row by row; the edge scales (20, cycled) and zero points (5) fall on other
    // lanes from chunk to chunk.
    std::vector<blocked_case> cases;
    for (int64_t block : {16, 32, 64, 128, 48, 24, 8})
        for (dt y : {dt::u8, dt::s8})
            for (bool zp : {true, false})
                cases.push_back({{37, 4 * block}, 1, block, y, zp}); // 148 rows
    // Per channel over short padded rows: the channel does not change from row to row (a
    // scale step of 0), so whole chunks too go row by row.
    cases.push_back({{4, 40, 32}, 0, 0, dt::u8, true, {40 * 48, 48, 1}});
    cases.push_back({{4, 40, 32}, 0, 0, dt::s8, false, {40 * 48, 48, 1}});
    expect_edges_match_ref(cases);
}

TEST(JitBlockedQuantize, PartialLastBlockRunsAsTwoJitKernels) {
    // The whole blocks are rows of one entry each, whose entries are a row of the parameter
    // tensor apart from one row of x to the next (the tensor has a column more: the last
    // block's); the last block is per channel over x's rows.
    const std::vector<blocked_case> cases = {
            {{4, 100}, 1, 32, dt::u8, true}, // a last block of 4
            {{3, 3136}, 1, 128, dt::u8, true}, // of 64
            {{3, 3136}, 1, 128, dt::s8, false},
            {{5, 41}, 1, 8, dt::s8, true}, // of 1: its dim dropped
            {{6, 37}, 1, 16, dt::u8, false}, // of 5; odd rows
            {{2, 3, 50}, 2, 16, dt::s8, true}, // of 2, under two outer dims
            {{2, 100}, 1, 64, dt::u8, true, {128, 1}}, // padded rows of y
            {{1, 70}, 1, 32, dt::u8, true}, // one row: the parameters along one dim
            {{70}, 0, 32, dt::s8, true}, // 1-D: the last block per tensor
            {{45, 1057}, 1, 40, dt::u8, true}, // two threads split inside blocks
    };
    expect_edges_match_ref(cases, true);
}

TEST(JitBlockedQuantize, PartialLastBlockOfEveryJitDestination) {
    // Random data (no zero points: the inputs() zero points are 8-bit); s4 / u4 blocks of
    // whole vectors and an even start of the last block, so that it starts on a byte.
    const blocked_case cases[] = {
            {{4, 100}, 1, 32, dt::s16, false},
            {{4, 100}, 1, 32, dt::u16, false},
            {{4, 100}, 1, 32, dt::f8_e4m3, false},
            {{3, 70}, 1, 16, dt::f8_e5m2, false},
            {{4, 112}, 1, 48, dt::s4, false},
            {{4, 112}, 1, 48, dt::u4, false},
    };
    at_every_isa_and_thread_count([&] {
        for (const blocked_case &c : cases) {
            SCOPED_TRACE(show(c.x) + " block " + std::to_string(c.block) + " "
                    + qgraph::to_string(c.y));
            const op o = blocked_op(c);
            const std::vector<buffer> in = inputs(c, 5);
            const std::vector<buffer> out {buffer(o.get_output_logical_tensors()[0])};
            const run_result jit = run_op_on("jit", o, in, out);
            const run_result ref = run_op_on("ref", o, in, out);
            EXPECT_EQ(jit.backend, "jit");
            EXPECT_NE(jit.kernel.find('+'), std::string::npos) << jit.kernel;
            EXPECT_EQ(jit.outputs[0].bytes(), ref.outputs[0].bytes());
        }
    });
}

/// DequantizeLinear of x (of type c.y) in blocks, to f32, random codes and scales.
TEST(JitBlockedQuantize, BlockedDequantizeOfOtherSourcesRunsOnJit) {
    struct dq_case {
        blocked_case c;
        bool split;
    };
    const dq_case cases[] = {
            {{{4, 128}, 1, 32, dt::s16, false}, false},
            {{{4, 100}, 1, 32, dt::s16, false}, true},
            {{{3, 70}, 1, 16, dt::u16, false}, true},
            {{{4, 128}, 1, 32, dt::f8_e4m3, false}, false},
            // float8 blocks on the last axis: the grouped kernel, partial last block included.
            {{{4, 100}, 1, 32, dt::f8_e5m2, false}, false},
            {{{2, 3, 50}, 2, 16, dt::s16, false}, true},
            {{{64, 8}, 0, 16, dt::s16, false}, false}, // blocks on an outer axis: lanes
            {{{70, 24}, 0, 16, dt::f8_e4m3, false}, true},
    };
    at_every_isa_and_thread_count([&] {
        for (const dq_case &k : cases) {
            const blocked_case &c = k.c;
            SCOPED_TRACE(show(c.x) + " block " + std::to_string(c.block) + " "
                    + qgraph::to_string(c.y));
            const std::vector<lt> lts {dense(0, c.y, c.x), dense(1, dt::f32, param_dims(c))};
            op o(0, op::kind::DequantizeLinear, lts, {dense(3, dt::f32, c.x)}, "blocked");
            o.set_attr<int64_t>("axis", c.axis);
            o.set_attr<int64_t>("block_size", c.block);
            std::mt19937 g(11);
            std::vector<uint16_t> x(static_cast<size_t>(nelems(c.x)));
            for (uint16_t &v : x) v = static_cast<uint16_t>(g());
            std::vector<uint8_t> x8(x.begin(), x.end()); // every float8 code, NaNs included
            std::vector<float> s(static_cast<size_t>(nelems(param_dims(c))));
            for (float &v : s) v = (g() % 2 ? 0.023f : 3.7f) * (g() % 8 == 0 ? -1.f : 1.f);
            const bool wide = c.y == dt::s16 || c.y == dt::u16;
            const std::vector<buffer> in {
                    wide ? make_buffer(lts[0], x) : make_buffer(lts[0], x8),
                    make_buffer(lts[1], s)};
            const std::vector<buffer> out {buffer(o.get_output_logical_tensors()[0])};
            const run_result jit = run_op_on("jit", o, in, out);
            const run_result ref = run_op_on("ref", o, in, out);
            EXPECT_EQ(jit.backend, "jit");
            EXPECT_EQ(jit.kernel.find('+') != std::string::npos, k.split) << jit.kernel;
            EXPECT_EQ(jit.outputs[0].bytes(), ref.outputs[0].bytes());
        }
    });
}

// float8 blocked rows (MXFP8 and other float8 blocks along the last axis): a row's table
// entry multiplies where 1/s is exact and divides elsewhere; avx512 encodes pairs of vectors,
// avx2 groups of four (32 codes) then single vectors. Rows of one to four groups with and
// without vectors after them, every float8 type saturating or not, f32, bf16 and f16 x.
// Quotients on every float8 value of four mantissa bits (so the ties of e4m3's three and
// e5m2's two), one f32 step either side, across the subnormals, the normals and past the
// largest finite value, besides NaN, +-Inf, +-0 and huge values.
TEST(JitBlockedQuantize, Float8RowsOfGroupsAndVectorsMatchRef) {
    const float scales[] = {0.5f, 0x1p-10f, 4.f, 0x1p20f, 0.023f, 3.7f, -0.1f, 0.f, NAN};
    std::mt19937 g(8);
    at_every_isa_and_thread_count([&] {
        for (int64_t block : {32, 64, 128, 40, 72, 8, 16})
            for (dt y : {dt::f8_e4m3, dt::f8_e5m2, dt::f8_e4m3fnuz, dt::f8_e5m2fnuz})
                for (dt xdt : {dt::f32, dt::bf16, dt::f16})
                    for (bool saturate : {true, false}) {
                        const dims x {6, 3 * block}, sd {6, 3};
                        const std::vector<lt> ins {dense(0, xdt, x), dense(1, dt::f32, sd)};
                        op o(0, op::kind::QuantizeLinear, ins, {dense(3, y, x)}, "mx");
                        o.set_attr<int64_t>("opset", 25);
                        o.set_attr<int64_t>("axis", 1);
                        o.set_attr<int64_t>("block_size", block);
                        o.set_attr<int64_t>("saturate", saturate ? 1 : 0);
                        std::vector<float> s(18);
                        for (size_t i = 0; i < s.size(); ++i)
                            s[i] = scales[(i + static_cast<size_t>(block)) % 9];
                        std::vector<float> xf(static_cast<size_t>(nelems(x)));
                        for (size_t i = 0; i < xf.size(); ++i) {
                            const float sb = s[i / static_cast<size_t>(3 * block) * 3
                                    + i % static_cast<size_t>(3 * block)
                                            / static_cast<size_t>(block)];
                            const float q = std::ldexp(static_cast<float>(16 + g() % 16),
                                    static_cast<int>(g() % 44) - 24 - 4);
                            const float v = (g() % 2 ? -q : q) * sb;
                            const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.f,
                                    -0.f, 3e38f, 1e-40f};
                            switch (g() % 8) {
                                case 0: xf[i] = std::nextafter(v, INFINITY); break;
                                case 1: xf[i] = std::nextafter(v, -INFINITY); break;
                                case 2: xf[i] = special[g() % 8]; break;
                                default: xf[i] = v; break;
                            }
                        }
                        std::vector<buffer> in;
                        if (xdt == dt::f32) {
                            in.push_back(make_buffer(ins[0], xf));
                        } else {
                            // The bits of every 16-bit code in turn.
                            std::vector<uint16_t> xb(xf.size());
                            for (size_t i = 0; i < xb.size(); ++i)
                                xb[i] = static_cast<uint16_t>(g());
                            in.push_back(make_buffer(ins[0], xb));
                        }
                        in.push_back(make_buffer(ins[1], s));
                        SCOPED_TRACE("block " + std::to_string(block) + " "
                                + qgraph::to_string(xdt) + " -> " + qgraph::to_string(y)
                                + (saturate ? " saturate" : ""));
                        expect_jit_matches_ref(o, in);
                    }
    });
}

TEST(JitBlockedQuantize, OuterAxisBlocksRunOnJit) {
    // Blocks on an outer axis (MatMul weights [K, N] in blocks along K): each block's rows
    // read one row of the parameter tensor as lanes, starting at that row's entry.
    const std::vector<blocked_case> whole = {
            {{64, 8}, 0, 16, dt::s8, true},
            {{64, 40}, 0, 32, dt::u8, true},
            {{3, 48, 24}, 1, 8, dt::u8, false},
            {{96, 37}, 0, 32, dt::s8, true}, // odd rows: avx2 bounces their tails
    };
    expect_edges_match_ref(whole);
    // A partial last block along K: its rows' lanes start at the last row of the tensor.
    const std::vector<blocked_case> partial = {
            {{70, 8}, 0, 16, dt::s8, true},
            {{3, 50, 24}, 1, 16, dt::u8, true},
    };
    expect_edges_match_ref(partial, true);
}

TEST(JitBlockedQuantize, BlocksWithATransposingLayoutStayOnRef) {
    // y contiguous along another dim than x: the tiles take one channel, not rows of entries.
    const blocked_case c {{4, 128}, 1, 32, dt::u8, true, {1, 4}};
    expect_ref_with_reason(blocked_op(c), inputs(c, 3),
            "parameters along several dims with src and dst contiguous along different dims");
}

} // namespace
