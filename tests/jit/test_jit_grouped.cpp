// The grouped dequantize kernel (jit_dequantize_grouped*): s4, u4, s8, u8 sources with scales
// and zero points per group of the contiguous inner dim (ONNX block_size, oneDNN per_group),
// against the reference bit for bit, at every ISA level and at 1 and 2 threads, with inputs and
// the jit's output against guard pages. Problems are built directly (orig_* then
// canonicalise), as lowering would.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "qgraph/error.hpp"
#include "common/cpu_isa.hpp"
#include "common/data_types.hpp"
#include "common/dense_strides.hpp"
#include "common/guarded_buffer.hpp"
#include "common/half_types.hpp"
#include "common/minifloat.hpp"
#include "common/parallel.hpp"
#include "isa_level_fixture.hpp"
#include "jit_test_util.hpp"
#include "passes/lowering.hpp"

namespace {

using namespace qgraph::impl;
using qgraph::data_type;
using qtest::guard_side;
using qtest::guarded_buffer;

const data_type s4 = data_type::s4, u4 = data_type::u4, s8 = data_type::s8, u8 = data_type::u8,
                s32 = data_type::s32, f32 = data_type::f32, bf16 = data_type::bf16,
                f16 = data_type::f16, f4 = data_type::f4_e2m1, e8m0 = data_type::e8m0,
                none = data_type::undef;

bool sub_byte(data_type dt) { return dt == s4 || dt == u4 || dt == f4; }

/// The bits a random zero-point byte keeps: all for integers; for float types only the sign
/// bits of its elements (+0 or -0; fnuz types have no -0, their 0x80 is NaN).
uint8_t zp_bits(data_type dt) {
    if (dt == f4) return 0x88;
    if (dt == data_type::f8_e4m3fnuz || dt == data_type::f8_e5m2fnuz) return 0;
    return is_float8(dt) ? 0x80 : 0xff;
}

/// Bytes that hold n elements of dt.
size_t bytes_of(data_type dt, int64_t n) {
    return sub_byte(dt) ? static_cast<size_t>((n + 1) / 2) : n * size_of(dt);
}

/// A dequantize of `dims` (row-major unless `src_strides` is given; dst dense) whose scales
/// and zero points (zp none: no zero point) vary in groups[d] along dim d (0: not at all),
/// with dense parameter tensors.
quant_problem grouped(data_type src, data_type dst, data_type scale, data_type zp,
        const std::vector<int64_t> &dims, const std::vector<int64_t> &groups,
        std::vector<int64_t> src_strides = {}) {
    quant_problem p;
    p.kind = q_kind::dequantize;
    p.op_name = "DequantizeLinear";
    p.src_dt = src;
    p.dst_dt = dst;
    p.orig_dims = dims;
    const size_t nd = dims.size();
    p.orig_dst_strides = qtest::dense_strides(dims);
    p.orig_src_strides = src_strides.empty() ? p.orig_dst_strides : src_strides;
    p.orig_params.assign(nd, param_dim {});
    int64_t stride = 1;
    for (size_t d = nd; d-- > 0;) {
        if (groups[d] == 0) continue;
        p.orig_params[d] = param_dim {groups[d], stride, zp == none ? 0 : stride};
        stride *= p.orig_params[d].count(dims[d]);
    }
    p.scale_src = param_source::input;
    p.scale_dt = scale;
    p.zp_src = zp == none ? param_source::none : param_source::input;
    p.zp_dt = zp;
    p.nelems = 1;
    for (int64_t d : dims) p.nelems *= d;
    canonicalise(p);
    return p;
}

int64_t span(const quant_problem &p, const std::vector<int64_t> &strides) {
    if (p.nelems == 0) return 0;
    int64_t s = 1;
    for (size_t d = 0; d < p.dims.size(); ++d) s += (p.dims[d] - 1) * strides[d];
    return s;
}

struct result {
    std::string rejected, kernel, ran, mismatch;
};

/// Random x (every bit pattern, or bytes drawn from `x_bytes` when given), scales from a
/// pool with 0, subnormal, NaN and Inf (and random bits for bf16 / f16), or scale i =
/// scale_values[i % size] (converted to the scale type) when given; zero points of every bit
/// pattern (s32: small, or with `big_zps` also beyond +-2^30, or drawn from `s32_zps` when
/// given; float types: +0 and -0, the values they may hold); runs jit and ref and compares
/// every dst byte.
result run(const quant_problem &p, uint32_t seed, guard_side side = guard_side::end,
        bool big_zps = false, const std::vector<int32_t> &s32_zps = {},
        const std::vector<float> &scale_values = {}, const std::vector<uint8_t> &x_bytes = {}) {
    std::mt19937 g(seed);
    const int64_t xs = span(p, p.src_strides), ys = span(p, p.dst_strides), np = p.nparams();
    guarded_buffer x(bytes_of(p.src_dt, xs), side);
    for (size_t i = 0; i < bytes_of(p.src_dt, xs); ++i)
        static_cast<uint8_t *>(x.data())[i] = x_bytes.empty()
                ? static_cast<uint8_t>(g())
                : x_bytes[g() % x_bytes.size()];
    guarded_buffer s(np * size_of(p.scale_dt), side);
    for (int64_t i = 0; i < np; ++i) {
        const float pool[] = {0.1f, 1.f / 3, -7.5f, 0x1p-20f, 1e-40f, 0.f, 3e38f, 0.0173f,
                std::nanf(""), std::numeric_limits<float>::infinity(), 2.f, 0.0039215689f};
        const bool given = !scale_values.empty();
        const float v = given ? scale_values[i % scale_values.size()]
                              : pool[g() % (sizeof(pool) / sizeof(pool[0]))];
        const bool raw = !given && g() % 4 == 0;
        switch (p.scale_dt) {
            case data_type::bf16:
                store_elem<uint16_t>(s.data(), i, raw ? uint16_t(g()) : f32_to_bf16(v));
                break;
            case data_type::f16:
                store_elem<uint16_t>(s.data(), i, raw ? uint16_t(g()) : f32_to_f16(v));
                break;
            case data_type::e8m0: store_elem<uint8_t>(s.data(), i, uint8_t(g())); break;
            default: store_elem<float>(s.data(), i, v); break;
        }
    }
    const bool has_zp = p.zp_src == param_source::input;
    guarded_buffer z(has_zp ? bytes_of(p.zp_dt, np) : 0, side);
    if (has_zp) {
        for (size_t i = 0; i < bytes_of(p.zp_dt, np); ++i)
            static_cast<uint8_t *>(z.data())[i] = static_cast<uint8_t>(g() & zp_bits(p.zp_dt));
        if (p.zp_dt == s32)
            for (int64_t i = 0; i < np; ++i) {
                const int32_t big[] = {1 << 30, -(1 << 30), std::numeric_limits<int32_t>::max(),
                        std::numeric_limits<int32_t>::min()};
                const int32_t v = !s32_zps.empty() ? s32_zps[g() % s32_zps.size()]
                        : big_zps && g() % 2         ? big[g() % 4]
                                                     : static_cast<int32_t>(g() % 2001) - 1000;
                store_elem<int32_t>(z.data(), i, v);
            }
    }
    const size_t ds = size_of(p.dst_dt);
    guarded_buffer yj(ys * ds, side);
    std::vector<uint8_t> yr(ys * ds, 0xa5);
    std::memset(yj.data(), 0xa5, ys * ds);

    result out;
    std::unique_ptr<kernel> jk = qtest::jit_kernel_at_level(p, out.rejected);
    if (!jk) return out;
    out.kernel = jk->name();
    exec_args a;
    a.src = x.data();
    a.scales = s.data();
    if (has_zp) a.zps = z.data();
    a.dst = yj.data();
    out.ran = jk->run(a).name();
    a.dst = yr.data();
    qtest::ref_kernel(p)->run(a);
    std::ostringstream os;
    const auto *j = static_cast<const uint8_t *>(yj.data());
    for (int64_t i = 0; i < ys && os.tellp() < 400; ++i)
        if (std::memcmp(j + i * ds, yr.data() + i * ds, ds) != 0) {
            uint32_t a32 = 0, b32 = 0;
            std::memcpy(&a32, j + i * ds, ds);
            std::memcpy(&b32, yr.data() + i * ds, ds);
            os << " [" << i << "] jit " << std::hex << a32 << " ref " << b32 << std::dec;
        }
    out.mismatch = os.str();
    return out;
}

class JitGrouped : public qtest::IsaLevelTest {
protected:
    /// The kernel name of this level for p: the grouped driver's bf16 instruction serves no
    /// float x, whose products with a normal scale may be subnormal (4-bit lanes take it per
    /// block of lanes whose scales hold no subnormal).
    std::string expected_kernel(const quant_problem &p) const {
        const bool no_insn = is_minifloat(p.src_dt);
        return no_insn ? jit_kernel_name() : jit_kernel_name(&p);
    }

    /// jit takes p, with the kernel name of this level, and matches ref on both guard sides
    /// (scale_values, x_bytes: as run()'s).
    void check(const quant_problem &p, uint32_t seed, const std::vector<float> &scale_values = {},
            const std::vector<uint8_t> &x_bytes = {}) {
        for (guard_side side : {guard_side::end, guard_side::start}) {
            const result r = run(p, seed, side, false, {}, scale_values, x_bytes);
            ASSERT_EQ(r.rejected, "") << p.describe();
            EXPECT_EQ(r.kernel, expected_kernel(p)) << p.describe();
            EXPECT_EQ(r.ran, r.kernel) << p.describe();
            EXPECT_EQ(r.mismatch, "") << p.describe() << " seed " << seed;
        }
    }

    /// s32 zero points at and next to +-2^30, the limits the kernel takes: p stays on the
    /// jit and matches ref.
    void check_zp_limits(const quant_problem &p, uint32_t seed) {
        const std::vector<int32_t> limits = {1 << 30, -(1 << 30), (1 << 30) - 1, -(1 << 30) + 1};
        const result r = run(p, seed, guard_side::end, false, limits);
        ASSERT_EQ(r.rejected, "") << p.describe();
        EXPECT_EQ(r.ran, r.kernel) << p.describe();
        EXPECT_EQ(r.mismatch, "") << p.describe();
    }

    /// s32 zero points beyond +-2^30 as well: that execute goes to ref, and matches it.
    void check_zps_beyond_limits(const quant_problem &p, uint32_t seed) {
        const result big = run(p, seed, guard_side::end, /*big_zps=*/true);
        EXPECT_EQ(big.ran, "ref:dequantize") << p.describe();
        EXPECT_EQ(big.mismatch, "") << p.describe();
    }
};

// Every source, destination, scale and zero-point type, on rows that are not a whole number
// of groups (partial last group), and on one odd run.
TEST_P(JitGrouped, EveryTypeCombination) {
    uint32_t seed = 1;
    for (data_type x : {s4, u4, s8, u8})
        for (data_type y : {f32, bf16, f16})
            for (data_type sc : {f32, bf16, f16})
                for (data_type zp : {none, s4, u4, s8, u8, s32})
                {
                    check(grouped(x, y, sc, zp, {3, 298}, {1, 32}), seed++);
                    check(grouped(x, y, sc, zp, {297}, {32}), seed++);
                }
}

// Group sizes 32, 64, 128 and ones that are no power of two or not a multiple of a vector,
// against row lengths around them: whole rows (one run), partial groups, single elements.
TEST_P(JitGrouped, GroupAndRowSizes) {
    uint32_t seed = 100;
    for (int64_t g : {2, 6, 32, 48, 64, 96, 128, 130})
        for (int64_t row : {1, 2, 7, 15, 16, 17, 31, 33, 63, 65, 127, 128, 129, 255, 256, 1000})
            for (data_type x : {s4, u8}) {
                check(grouped(x, bf16, f32, x, {row}, {g}), seed++);
                check(grouped(x, bf16, f32, x, {3, row + row % 2}, {1, g}), seed++);
            }
}

// Runs longer than a thread's share (the flat 64-aligned split), rows that do not continue
// one another (partial groups: the split lands inside rows), and odd rows of one group each
// (a share or a row starting on a high nibble).
TEST_P(JitGrouped, ThreadSplits) {
    check(grouped(s4, bf16, bf16, u4, {256, 4096}, {1, 128}), 7);
    check(grouped(u4, f32, f16, s8, {333, 1002}, {1, 64}), 8);
    check(grouped(u4, bf16, f32, u4, {333, 1001}, {1, 0}), 10);
    check(grouped(s4, f16, f32, none, {1, 200003}, {0, 32}), 9);
}

// Per-tensor and per-channel (outer dim) s4 / u4: one group per row, or per problem.
TEST_P(JitGrouped, PerTensorAndOuterChannel) {
    check(grouped(s4, f32, f32, s4, {1001}, {0}), 11);
    check(grouped(u4, bf16, f32, u8, {5, 77}, {1, 0}), 12);
    check(grouped(s4, f16, bf16, none, {4, 3, 9}, {0, 1, 0}), 13);
    check(grouped(s4, f32, f32, none, {1}, {0}), 14);
}

// 8-bit x in blocks on outer dims only (MatMul weights [K, N] in blocks along K): the
// elementwise driver's lanes, a row of the parameter tensors per block of rows, not the
// grouped kernel (whose lanes, groups of one along the run, are for 4-bit x); every
// destination and scale type, zero points of every 8-bit code or s32.
TEST_P(JitGrouped, EightBitBlocksOnOuterDims) {
    uint32_t seed = 40;
    for (data_type x : {s8, u8})
        for (data_type y : {f32, bf16, f16})
            for (data_type s : {f32, bf16, f16})
                for (data_type z : {none, x, s32}) {
                    check(grouped(x, y, s, z, {64, 40}, {32, 1}), ++seed);
                    check(grouped(x, y, s, z, {4, 48, 24}, {0, 16, 1}), ++seed);
                    check(grouped(x, y, s, z, {96, 17}, {32, 1}), ++seed); // avx2 tails
                }
}

// 4-bit x with a scale and zero point per element of the contiguous dim (per channel on the
// last axis; blocks on outer dims: ONNX block_size on axis 0 of MatMul weights [K, N]): the
// grouped kernel's lanes, a vector of parameters per vector of x. Every destination, scale
// and zero-point type; rows of whole vectors and with tails (avx2 bounces them, parameters
// too), blocks that do not divide K, more dims, padded rows, rows split between threads.
TEST_P(JitGrouped, FourBitLanes) {
    uint32_t seed = 1200;
    for (data_type x : {s4, u4})
        for (data_type y : {f32, bf16, f16})
            for (data_type s : {f32, bf16, f16})
                for (data_type z : {none, s4, u4, s8, u8, s32}) {
                    check(grouped(x, y, s, z, {64, 48}, {32, 1}), ++seed);
                    check(grouped(x, y, s, z, {7, 70}, {0, 1}), ++seed);
                    check(grouped(x, y, s, z, {45, 22}, {16, 1}), ++seed); // tails, partial block
                }
    for (data_type z : {none, u4, s4, s32}) {
        check(grouped(s4, bf16, bf16, z, {4, 48, 24}, {0, 16, 1}), ++seed);
        check(grouped(u4, f32, f32, z, {4, 48, 24}, {2, 16, 1}), ++seed);
        check(grouped(s4, f16, f16, z, {40, 30}, {8, 1}, {34, 1}), ++seed); // padded rows
        check(grouped(u4, bf16, f32, z, {300, 2050}, {32, 1}), ++seed); // thread splits
        check(grouped(s4, f32, bf16, z, {2, 2}, {1, 1}), ++seed);
        check(grouped(u4, f32, f32, z, {17}, {1}), ++seed); // one run
    }
    for (data_type x : {s4, u4}) {
        const quant_problem p = grouped(x, f32, f32, s32, {64, 40}, {32, 1});
        check_zp_limits(p, 53);
        check_zps_beyond_limits(p, 54);
    }
}

// oneDNN per_group with both dims grouped (4x32), and strided rows whose starts are odd
// elements (padded s4 rows).
TEST_P(JitGrouped, TwoDimGroupsAndStridedRows) {
    check(grouped(u4, bf16, bf16, u4, {16, 96}, {4, 32}), 21);
    check(grouped(s4, f32, f32, s4, {9, 64}, {1, 32}, {66, 1}), 22);
    check(grouped(s4, f32, f32, s4, {9, 63}, {1, 0}, {65, 1}), 24);
    check(grouped(s8, f16, f32, s32, {9, 64}, {1, 16}, {67, 1}), 23);
}

// Zero points at the type limits: every s4 / u4 / 8-bit code is drawn above; s32 ones at and
// beyond +-2^30 hand the call to the reference (x - zp would not fit s32).
TEST_P(JitGrouped, WideZeroPointsFallBack) {
    const quant_problem p = grouped(s4, f32, f32, s32, {4, 256}, {1, 32});
    const result r = run(p, 31, guard_side::end, /*big_zps=*/true);
    ASSERT_EQ(r.rejected, "");
    EXPECT_EQ(r.ran, "ref:dequantize");
    EXPECT_EQ(r.mismatch, "");
}

// avx512 looks 4-bit x up in per-group tables: long runs of whole groups go 16 groups at a
// time (batches with and without a subnormal scale; bf16 tables two groups per conversion),
// groups of more than 4 lookups (256) one at a time, and a row's partial last group element
// by element; every type combination, against ref (avx2 levels: the arithmetic path).
TEST_P(JitGrouped, TableBatches) {
    uint32_t seed = 400;
    for (data_type x : {s4, u4})
        for (data_type y : {f32, bf16, f16})
            for (data_type sc : {f32, bf16, f16})
                for (data_type zp : {none, s4, u4, s8, u8, s32}) {
                    for (int64_t g : {32, 64, 128, 256})
                        check(grouped(x, y, sc, zp, {5, 1024}, {1, g}), seed++);
                    check(grouped(x, y, sc, zp, {2, 33 * 32 + 16}, {1, 32}), seed++);
                }
}

// avx2 looks 4-bit x up 8 whole groups at a time (groups of 32 in pairs with their tables
// side by side, larger ones of up to 4 lookups of 32 one by one, 96 ending on a lookup of 32);
// rows of 1..9, 15, 16, 17 and 33 groups, whole or with a partial last group, one odd run of
// the same length, padded rows (a call per row); every scale, zero-point and 16-bit output
// type in turn (avx512 levels: its batches of 16).
TEST_P(JitGrouped, EightGroupBatches) {
    uint32_t seed = 900;
    const data_type scale_types[] = {f32, bf16, f16};
    const data_type zp_types[] = {none, s4, u4, s8, u8, s32};
    int i = 0;
    for (int64_t g : {32, 64, 96, 128})
        for (int64_t groups : {1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 33})
            for (int64_t tail : {int64_t(0), int64_t(2), g / 2}) {
                const data_type x = i % 2 ? u4 : s4, y = i % 5 == 4 ? f16 : bf16;
                const data_type sc = scale_types[i % 3], zp = zp_types[i % 6];
                ++i;
                const int64_t row = groups * g + tail;
                check(grouped(x, y, sc, zp, {2, row}, {1, g}), seed++);
                check(grouped(x, y, sc, zp, {row + 1}, {g}), seed++);
                check(grouped(x, y, sc, zp, {3, row}, {1, g}, {row + 6, 1}), seed++);
            }
}

/// The bf16 rounding without the NaN blend must hold for finite scales of every kind: 0, -0,
/// negative, subnormal, products that overflow or round up to Inf, ties.
const std::vector<float> &finite_scales() {
    static const std::vector<float> v {0.1f, 1.f / 3, -7.5f, 0x1p-20f, 1e-40f, -3e-39f, 0.f,
            -0.f, 3e38f, -3.3e38f, 0x1.fffffep127f, 0x1.0101p-3f, 0.0173f, 2.f, 0.0039215689f,
            1.f};
    return v;
}

/// NaNs with payload bits below the bf16 half (the f16 scale keeps 0xe000 of them): there the
/// rounding without the blend would carry into the code.
const std::vector<float> &payload_nans() {
    const auto bits = [](uint32_t b) {
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    };
    static const std::vector<float> v {bits(0x7fc0e001u), bits(0xffc0e001u), std::nanf("")};
    return v;
}

// bf16 tables of an avx2 batch whose 8 scales are neither NaN nor Inf skip the NaN blend:
// finite scales of every kind (0, -0, negative, subnormal, products that overflow or round up
// to Inf, ties), and batches with one NaN or Inf scale at each of the 8 places (those round
// with the blend; the batches after them again without), on groups of 32 (pairs) and 64.
TEST_P(JitGrouped, BatchScalesNaNAndInf) {
    const std::vector<float> &finite = finite_scales(), &nans = payload_nans();
    const float inf = std::numeric_limits<float>::infinity();
    std::mt19937 rng(77);
    uint32_t seed = 950;
    for (int64_t g : {32, 64})
        for (data_type sc : {f32, bf16, f16})
            for (data_type zp : {none, u4, s32}) {
                // 10 batches of 8: batch b < 8 has a NaN (or -Inf, or Inf) at place b.
                const float nan = nans[seed % 3];
                std::vector<float> v(80);
                for (size_t k = 0; k < v.size(); ++k)
                    v[k] = finite[rng() % finite.size()];
                for (size_t b = 0; b < 8; ++b)
                    v[8 * b + b] = b % 3 == 0 ? nan : b % 3 == 1 ? -inf : inf;
                for (data_type x : {s4, u4}) {
                    check(grouped(x, bf16, sc, zp, {4, 20 * g}, {1, g}), seed++, v);
                    // Every scale finite: all batches without the blend.
                    std::vector<float> f(v);
                    for (size_t b = 0; b < 8; ++b) f[8 * b + b] = finite[b];
                    check(grouped(x, bf16, sc, zp, {4, 20 * g}, {1, g}), seed++, f);
                }
            }
}

// avx2 lanes of 4-bit x round a lane block of 16 to bf16 without the NaN blend when none of
// its scales is NaN or Inf: finite scales of every kind (as above), blocks with one NaN or
// Inf scale at each of the 16 places, then blocks without again; per channel on the last
// axis (one parameter row for every row of a call) and in 32x1 blocks (several), rows of
// whole blocks and with a rest, padded rows.
TEST_P(JitGrouped, LaneBlockScalesNaNAndInf) {
    const std::vector<float> &finite = finite_scales(), &nans = payload_nans();
    const float inf = std::numeric_limits<float>::infinity();
    std::mt19937 rng(78);
    uint32_t seed = 990;
    for (data_type sc : {f32, bf16, f16})
        for (data_type zp : {none, u4, s8, s32})
            for (data_type x : {s4, u4}) {
                // 18 blocks of 16: block b < 16 has a NaN (or -Inf, or Inf) at place b.
                std::vector<float> v(18 * 16);
                for (float &f : v) f = finite[rng() % finite.size()];
                for (size_t b = 0; b < 16; ++b)
                    v[16 * b + b] = b % 3 == 0 ? nans[seed % 3] : b % 3 == 1 ? -inf : inf;
                check(grouped(x, bf16, sc, zp, {9, 18 * 16}, {0, 1}), seed++, v);
                check(grouped(x, bf16, sc, zp, {64, 18 * 16}, {32, 1}), seed++, v);
                check(grouped(x, bf16, sc, zp, {6, 18 * 16 - 6}, {0, 1}), seed++, v);
                check(grouped(x, bf16, sc, zp, {5, 64}, {0, 1}, {70, 1}), seed++, v);
            }
}

// avx2 lane blocks into bf16 whose 16 scales are all 0, powers of two or Inf store the
// products' top halves; other blocks round. f4_e2m1 with e8m0 scales of every code (random
// draws); f32 scales: the smallest normal power of two, 2^-126 (products down to 2^-127),
// subnormal ones (2^-133, 2^-134: products with bits below bf16's smallest subnormal),
// negative, 2^127, +-Inf, 0, NaN and non-powers of two, at an even and an odd element,
// several blocks of only powers of two among them; per channel on the last axis and
// in 32x1 blocks, rows with a rest; an s8 zero point (|x - zp| <= 143) takes them too, a u8
// one (x - zp down to -263, beyond bf16's 8 bits) keeps the rounding.
TEST_P(JitGrouped, LaneBlockTopHalves) {
    uint32_t seed = 1900;
    const float inf = std::numeric_limits<float>::infinity();
    check(grouped(f4, bf16, e8m0, none, {64, 18 * 16}, {32, 1}), ++seed);
    check(grouped(f4, bf16, e8m0, none, {9, 18 * 16 - 6}, {0, 1}), ++seed);
    for (data_type x : {f4, s4, u4})
        for (data_type zp : {none, u4, s4, s8, u8}) {
            if (x == f4 && zp != none) continue;
            const float bound = 0x1p-126f;
            // Blocks of 16: the first four of powers of two only (bound, 4, 2^127, -0.5),
            // then blocks mixing in each of the others.
            std::vector<float> v;
            for (float p : {bound, 4.f, 0x1p127f, -0.5f}) v.insert(v.end(), 16, p);
            for (float other : {bound / 2, bound / 4, 1.5f * bound, inf, -inf, -0.f, 0.1f,
                         std::nanf(""), 0x1p-149f, 0x1p-133f, 0x1p-134f})
                for (int place : {6, 11}) { // an even and an odd element
                    for (int k = 0; k < 16; ++k)
                        v.push_back(k == place ? other : k % 2 ? 2.f : bound * 2);
                }
            const int64_t n = static_cast<int64_t>(v.size());
            check(grouped(x, bf16, f32, zp, {9, n}, {0, 1}), ++seed, v);
            check(grouped(x, bf16, f32, zp, {64, n}, {32, 1}), ++seed, v);
            check(grouped(x, bf16, f32, zp, {5, n - 6}, {0, 1}), ++seed, v);
        }
}

// The tables hold f32(x - zp) * s for every x of the source type: s32 zero points at the
// limits the kernel takes (+-2^30) and next to them stay on the jit and match ref.
TEST_P(JitGrouped, TableZeroPointsAtTheLimits) {
    for (data_type x : {s4, u4})
        for (data_type y : {f32, bf16, f16})
            check_zp_limits(grouped(x, y, f32, s32, {4, 1024}, {1, 32}), 41);
}

// Groups of whole vectors of the arithmetic path (8-bit x; avx2's 4-bit x to f32) go several
// groups per step, each vector broadcasting its group's scale and zero point at a static
// offset: groups of 8 to 256 elements on rows of whole steps, of steps and a partial group,
// and of fewer elements than a step; a partial first group where two threads split a row; s32
// zero points at +-2^30.
TEST_P(JitGrouped, BlockSteps) {
    uint32_t seed = 700;
    for (data_type x : {s8, u8, u4})
        for (data_type y : {f32, bf16, f16})
            for (data_type sc : {f32, bf16, f16})
                for (data_type zp : {none, u4, s8, u8, s32})
                    for (int64_t g : {8, 16, 32, 64, 128, 256}) {
                        check(grouped(x, y, sc, zp, {3, 16 * g}, {1, g}), seed++);
                        check(grouped(x, y, sc, zp, {3, 5 * g + g / 2}, {1, g}), seed++);
                    }
    check(grouped(s8, bf16, f32, u8, {1, 256}, {0, 8}), seed++);
    check(grouped(u8, f16, f32, s8, {333, 1280}, {1, 256}), seed++);
    check(grouped(s8, bf16, bf16, u8, {333, 1280}, {1, 16}), seed++);
    for (data_type x : {s8, u8})
        for (data_type y : {f32, bf16, f16})
            check_zp_limits(grouped(x, y, f32, s32, {4, 1024}, {1, 32}), 42);
}

/// Dims {.., k, n} with x contiguous along k (strides {.., 1, k}, further dims dense over k x n)
/// and y dense: oneDNN's transposed int4 weights.
std::vector<int64_t> transposed_strides(const std::vector<int64_t> &dims) {
    const size_t nd = dims.size();
    std::vector<int64_t> st(nd);
    st[nd - 2] = 1;
    st[nd - 1] = dims[nd - 2];
    int64_t outer = dims[nd - 2] * dims[nd - 1];
    for (size_t d = nd - 2; d-- > 0;) {
        st[d] = outer;
        outer *= dims[d];
    }
    return st;
}

// x contiguous along the grouped dim, y along the next (oneDNN's int4 weights, the
// dynamicdq_s4 cases): runs go through a tile and are transposed. The conformance shape, every
// type, partial tiles along both dims, groups that do not divide a tile or span several.
TEST_P(JitGrouped, TransposedSource) {
    const std::vector<int64_t> conf = {1, 32, 128, 32};
    check(grouped(s4, bf16, bf16, s4, conf, {0, 1, 8, 1}, transposed_strides(conf)), 500);
    uint32_t seed = 501;
    for (data_type x : {s4, u4, s8, u8})
        for (data_type y : {f32, bf16, f16})
            for (data_type sc : {f32, bf16, f16})
                for (data_type zp : {none, s4, u4, s8, u8, s32}) {
                    const std::vector<int64_t> d = {3, 130, 33};
                    check(grouped(x, y, sc, zp, d, {1, 8, 1}, transposed_strides(d)), seed++);
                }
    for (int64_t g : {2, 6, 32, 96, 128, 256})
        for (std::vector<int64_t> d : {std::vector<int64_t> {2, 128, 32},
                     std::vector<int64_t> {1, 300, 65}, std::vector<int64_t> {4, 2, 1}}) {
            check(grouped(u4, f32, f16, u4, d, {0, g, 1}, transposed_strides(d)), seed++);
            check(grouped(s4, bf16, f32, s32, d, {1, g, 0}, transposed_strides(d)), seed++);
        }
}

// Transposed 4-bit x in groups of whole blocks of 8 k, a parameter per n (avx512: the columns
// code, in y's order; avx2: the tiles): every type; n a chunk of 32 and a tail of 18 (a partial
// second half), of 8 (an empty one), and past a work item (300); a last group of half a group
// (136 in 16s), k over several items of 256 (520: groups of 24 and 512 continue from one item
// into the next), padded x columns, one column; calls repeated along an outer dim (split
// between threads) with another outer dim beside it, or not (groups of 2 along it).
TEST_P(JitGrouped, TransposedColumns) {
    uint32_t seed = 800;
    for (data_type x : {s4, u4})
        for (data_type y : {f32, bf16, f16})
            for (data_type sc : {f32, bf16, f16})
                for (data_type zp : {none, s4, u4, s8, u8, s32}) {
                    const std::vector<int64_t> d = {3, 136, 50};
                    check(grouped(x, y, sc, zp, d, {1, 8, 1}, transposed_strides(d)), seed++);
                    check(grouped(x, y, sc, zp, d, {1, 16, 1}, transposed_strides(d)), seed++);
                }
    for (data_type zp : {none, u4, s32})
        for (std::vector<int64_t> d : {std::vector<int64_t> {2, 64, 300},
                     std::vector<int64_t> {1, 520, 40}, std::vector<int64_t> {2, 8, 1}}) {
            check(grouped(s4, bf16, bf16, zp, d, {1, 8, 1}, transposed_strides(d)), seed++);
            check(grouped(u4, f16, f32, zp, d, {0, 64, 1}, transposed_strides(d)), seed++);
            check(grouped(s4, bf16, f16, zp, d, {1, 24, 1}, transposed_strides(d)), seed++);
            check(grouped(u4, f32, bf16, zp, d, {1, 512, 1}, transposed_strides(d)), seed++);
            std::vector<int64_t> padded = transposed_strides(d);
            padded[2] = d[1] + 6;
            padded[0] = padded[2] * d[2];
            check(grouped(s4, f32, f16, zp, d, {1, 8, 1}, padded), seed++);
        }
    const std::vector<int64_t> d4 = {2, 5, 64, 40};
    for (data_type zp : {none, u4, s8}) {
        check(grouped(s4, bf16, f32, zp, d4, {0, 1, 8, 1}, transposed_strides(d4)), seed++);
        check(grouped(u4, f16, bf16, zp, d4, {1, 2, 8, 1}, transposed_strides(d4)), seed++);
    }
}

// The mirror: parameters constant along x's contiguous dim, in groups along y's.
TEST_P(JitGrouped, TransposedSourceGroupsAlongY) {
    const std::vector<int64_t> d = {3, 64, 96};
    check(grouped(s4, f16, f32, u4, d, {1, 0, 32}, transposed_strides(d)), 600);
    check(grouped(u8, f32, bf16, s8, d, {0, 0, 6}, transposed_strides(d)), 601);
}

// Transposed s4 with zero points at the limits: every s4 / u4 code, and s32 at and next to
// +-2^30, stays on the jit and matches ref.
TEST_P(JitGrouped, TransposedZeroPointsAtTheLimits) {
    const std::vector<int64_t> d = {2, 256, 40};
    for (data_type x : {s4, u4}) {
        const quant_problem p = grouped(x, bf16, f32, s32, d, {1, 32, 1}, transposed_strides(d));
        check_zp_limits(p, 51);
        check_zps_beyond_limits(p, 52);
    }
}

// What the grouped kernel does not take is rejected with a reason (the reference runs it).
TEST_P(JitGrouped, RejectsWithReason) {
    // Sub-byte zero points per element whose rows start inside a byte (63 per row, x's rows
    // padded to 64).
    EXPECT_NE(run(grouped(s4, f32, f32, s4, {8, 63}, {4, 1}, {64, 1}), 1)
                      .rejected.find("zero points per element whose rows start inside a byte"),
            std::string::npos);
    // An odd group of a sub-byte source would start groups inside bytes.
    EXPECT_NE(run(grouped(u4, f32, f32, none, {2, 99}, {1, 33}), 2).rejected.find("odd group"),
            std::string::npos);
    // Grouped sub-byte rows starting on a high nibble.
    EXPECT_NE(run(grouped(s4, f32, f32, none, {3, 297}, {1, 32}), 5).rejected.find("inside a byte"),
            std::string::npos);
    // Strided inner dim, x contiguous along no dim.
    EXPECT_NE(run(grouped(s8, f32, f32, none, {4, 64}, {1, 32}, {128, 2}), 3)
                      .rejected.find("strided inner dim"),
            std::string::npos);
    // Transposed x with a parameter per element of its contiguous dim.
    EXPECT_NE(run(grouped(s8, f32, f32, none, {4, 64}, {1, 32}, {1, 4}), 3)
                      .rejected.find("per element of x's contiguous dim"),
            std::string::npos);
}

// f4_e2m1 x (MX weights: e8m0 scales in blocks of 32): y = f32(x) * s, every code (random
// bytes), into every destination, with every scale type; the table path (groups, per tensor,
// per channel on an outer axis), the arithmetic one (avx2's f32 y) and lanes (blocks along
// the rows, per channel on the last axis); odd counts (a half-filled last byte), partial
// blocks, padded rows, thread splits, x transposed against y, and a zero-point tensor of
// +-0 (ONNX's x_zero_point), which the code takes as none.
TEST_P(JitGrouped, Float4) {
    uint32_t seed = 1500;
    for (data_type y : {f32, bf16, f16})
        for (data_type s : {f32, bf16, f16, e8m0}) {
            check(grouped(f4, y, s, none, {64, 96}, {1, 32}), ++seed);
            check(grouped(f4, y, s, none, {5, 100}, {1, 32}), ++seed); // partial last block
            check(grouped(f4, y, s, none, {1001}, {0}), ++seed); // per tensor, odd count
            check(grouped(f4, y, s, none, {5, 77}, {1, 0}), ++seed); // per channel, axis 0
            check(grouped(f4, y, s, none, {64, 40}, {32, 1}), ++seed); // blocks along rows
            check(grouped(f4, y, s, none, {7, 34}, {0, 1}), ++seed); // per channel, last axis
            check(grouped(f4, y, s, f4, {6, 64}, {1, 32}), ++seed);
            check(grouped(f4, y, s, f4, {64, 24}, {32, 1}), ++seed);
        }
    check(grouped(f4, bf16, e8m0, none, {9, 64}, {1, 32}, {66, 1}), ++seed); // padded rows
    check(grouped(f4, f32, f32, none, {1, 200003}, {0, 32}), ++seed); // thread splits
    check(grouped(f4, bf16, bf16, none, {300, 2050}, {32, 1}), ++seed);
    const std::vector<int64_t> d = {4, 64, 24};
    check(grouped(f4, bf16, e8m0, none, d, {0, 32, 1}, transposed_strides(d)), ++seed);
    check(grouped(f4, f16, f16, none, {1}, {0}), ++seed);
}

// float8 x in blocks along the last axis (MXFP8: e8m0 scales in blocks of 32; blocked FP8
// weights, blocks of 128): y = f32(x) * s on the arithmetic path, every code (random bytes,
// NaN and Inf codes among them), every float8 type, destination and scale type; partial
// groups, single-vector and multi-vector groups (the block steps), odd runs, padded rows,
// thread splits, 2-D groups, x transposed against y, zero-point tensors of +-0.
TEST_P(JitGrouped, Float8Blocks) {
    uint32_t seed = 1700;
    for (data_type x : {data_type::f8_e4m3, data_type::f8_e5m2, data_type::f8_e4m3fnuz,
                 data_type::f8_e5m2fnuz})
        for (data_type y : {f32, bf16, f16})
            for (data_type s : {f32, bf16, f16, e8m0}) {
                check(grouped(x, y, s, none, {3, 298}, {1, 32}), ++seed); // partial last group
                check(grouped(x, y, s, none, {297}, {32}), ++seed);
                check(grouped(x, y, s, x, {4, 256}, {1, 128}), ++seed);
                check(grouped(x, y, s, none, {5, 40}, {1, 8}), ++seed); // one vector (avx2)
            }
    const data_type e4m3 = data_type::f8_e4m3;
    check(grouped(e4m3, bf16, e8m0, none, {9, 64}, {1, 32}, {67, 1}), ++seed); // padded rows
    check(grouped(e4m3, f32, f32, none, {333, 1002}, {1, 64}), ++seed); // thread splits
    check(grouped(e4m3, f16, f32, none, {16, 96}, {4, 32}), ++seed); // 2-D groups
    const std::vector<int64_t> d = {4, 64, 24};
    check(grouped(e4m3, bf16, f32, none, d, {0, 32, 1}, transposed_strides(d)), ++seed);
}

// float8 x into bf16 without the bf16 instruction: blocks whose scales are all powers of two
// at or above 2^-126 / (x's smallest subnormal) store the top half of each product; any
// other block rounds. e8m0 scales of every code (2048 random ones: all 256 with near
// certainty, NaN among them, and the exponents below the bound, whose products of x's
// subnormals are not exact in bf16), f32 scales at and around the bound, negative, 2^127
// (products overflow to Inf), Inf (0 * Inf is NaN), 0 and non-powers of two beside powers in
// one block step.
TEST_P(JitGrouped, Float8ToBf16TopHalves) {
    uint32_t seed = 1800;
    const float inf = std::numeric_limits<float>::infinity();
    for (data_type x : {data_type::f8_e4m3, data_type::f8_e5m2, data_type::f8_e4m3fnuz,
                 data_type::f8_e5m2fnuz}) {
        check(grouped(x, bf16, e8m0, none, {256, 256}, {1, 32}), ++seed);
        const float bound = 0x1p-126f / qgraph::impl::minifloat_to_f32(x, 1);
        const std::vector<float> v {bound, bound / 2, bound * 2, -bound, bound / 4, 0x1p127f,
                -0x1p-3f, inf, -inf, 0.f, 1.f, 0.75f * bound * 2, 0.1f, 0x1p-20f, 4.f,
                std::nanf("")};
        check(grouped(x, bf16, f32, none, {64, 512}, {1, 32}), ++seed, v);
        check(grouped(x, bf16, f32, none, {64, 512}, {1, 64}), ++seed, v);
    }
}

// e4m3 / e5m2 into bf16 by words (jit_float8_bf16_words.hpp): blocks of groups of 32 to 256
// whose scales are powers of two inside the words' range take the codes straight to bf16;
// scales at and just past both ends of that range (products of the smallest subnormal that
// would be bf16 subnormals, of the largest code that would overflow), negative, 0, Inf, NaN
// and non-powers of two beside them in one block, e8m0 scales of every code; x of every
// finite code, and, in a third pass, one NaN or Inf code among them, which sends its block
// the other way. Groups of 32 to 256 (1 to 4 groups a block, up to 8 chunks), rows that end
// before a whole block, partial last groups.
TEST_P(JitGrouped, Float8ToBf16Words) {
    uint32_t seed = 1900;
    for (data_type x : {data_type::f8_e4m3, data_type::f8_e5m2}) {
        std::vector<uint8_t> finite, special;
        for (uint32_t c = 0; c < 256; ++c)
            (std::isfinite(qgraph::impl::minifloat_to_f32(x, c)) ? finite : special)
                    .push_back(static_cast<uint8_t>(c));
        const float lowest = 0x1p-126f / qgraph::impl::minifloat_to_f32(x, 1);
        const float highest
                = std::ldexp(1.f, 127 - std::ilogb(qgraph::facts_of(x).max));
        const float inf = std::numeric_limits<float>::infinity();
        const std::vector<float> in_range {lowest, highest, 1.f, 0x1p-7f, lowest * 2, 0x1p100f};
        std::vector<float> mixed = in_range;
        for (float v : {lowest / 2, highest * 2, -1.f, 0.f, inf, std::nanf(""), 0.75f, 3.f})
            mixed.push_back(v);
        for (int64_t group : {32, 64, 96, 128, 256}) {
            const int64_t cols = group * 9 + 32; // blocks, then a partial last group
            check(grouped(x, bf16, f32, none, {16, cols}, {1, group}), ++seed, in_range, finite);
            check(grouped(x, bf16, f32, none, {16, cols}, {1, group}), ++seed, mixed, finite);
            // One special code in the pool: about one group of 32 in eight holds it.
            std::vector<uint8_t> one_special = finite;
            one_special.push_back(special[seed % special.size()]);
            check(grouped(x, bf16, f32, none, {16, cols}, {1, group}), ++seed, in_range,
                    one_special);
        }
        check(grouped(x, bf16, e8m0, none, {64, 512}, {1, 32}), ++seed, {}, finite);
        check(grouped(x, bf16, bf16, none, {8, 96}, {1, 32}), ++seed, in_range, finite);
        check(grouped(x, bf16, f16, none, {8, 128}, {1, 64}), ++seed, {1.f, 0x1p-14f}, finite);
    }
}

// A float4 zero-point tensor holding a nonzero value: the execute goes to ref, which reports
// it (NUMERICS.md: a float quantized type has no zero point).
TEST_P(JitGrouped, Float4NonzeroZeroPointReported) {
    const quant_problem p = grouped(f4, f32, f32, f4, {2, 64}, {1, 32});
    std::string rejected;
    std::unique_ptr<kernel> k = qtest::jit_kernel_at_level(p, rejected);
    ASSERT_TRUE(k) << rejected;
    std::vector<uint8_t> x(64, 0x21);
    std::vector<float> s(4, 0.5f), y(128, 0.f);
    std::vector<uint8_t> z = {0x80, 0x20}; // +0, -0 | +0, +1
    exec_args a;
    a.src = x.data();
    a.scales = s.data();
    a.zps = z.data();
    a.dst = y.data();
    EXPECT_NE(k->fallback_reason(a), nullptr);
    EXPECT_THROW(k->run(a), qgraph::error);
    z[1] = 0x08; // -0, +0: the code's own run
    EXPECT_EQ(k->fallback_reason(a), nullptr);
    EXPECT_EQ(k->run(a).name(), k->name());
    EXPECT_EQ(y[0], 0.5f * 0.5f); // code 1: 0.5
    EXPECT_EQ(y[1], 1.f * 0.5f); // code 2: 1
}

INSTANTIATE_TEST_SUITE_P(Levels, JitGrouped,
        testing::ValuesIn(qtest::at_one_and_two_threads(
                {avx2, avx512_core, avx512_core_bf16})),
        qtest::isa_level_name);

} // namespace
