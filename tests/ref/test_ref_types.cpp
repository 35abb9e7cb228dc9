// The reference backend on the integer widths and float types beyond 8-bit (NUMERICS.md "Wider
// and narrower integers", "Float8 and float4", "Scales and outputs"), on canonical problems
// built here, each result against a loop in the test that follows the rule directly:
// - s16 / u16 / s4 / u4 / s2 / u2 quantize (saturation, ties, NaN -> qmin, zero points at the
//   type's limits) and dequantize (x - zp exact), sub-byte elements packed by the test's own
//   code: odd counts (unused high bits of the last byte written 0, ignored on read), strided
//   destinations (the gaps keep their bits), guard pages before and after every tensor;
// - float8 / float4 quantize (saturate on and off) and dequantize against minifloat_model.hpp;
// - division in f16 / bf16, e8m0 / f16 / bf16 scales, blocked and grouped maps with s4 / u4;
// - a nonzero float8 zero point is an error at execute, +0 and -0 are not.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/ref/ref_backend.hpp"
#include "common/dense_strides.hpp"
#include "common/guarded_buffer.hpp"
#include "passes/lowering.hpp"
#include "qgraph/error.hpp"
#include "ref/half_oracles.hpp"
#include "ref/minifloat_model.hpp"

namespace {

using qgraph::data_type;
using qgraph::impl::canonicalise;
using qgraph::impl::exec_args;
using qgraph::impl::kernel;
using qgraph::impl::param_dim;
using qgraph::impl::param_source;
using qgraph::impl::q_kind;
using qgraph::impl::quant_problem;
using qtest::dense_strides;
using qtest::guard_side;
using qtest::guarded_buffer;
using dims = std::vector<int64_t>;

/// The integer types, as NUMERICS.md's table gives them.
struct int_type {
    data_type dt;
    const char *name;
    int bits;
    bool is_signed;
    int64_t lo, hi;
};
const int_type int_types[] = {
        {data_type::s16, "s16", 16, true, -32768, 32767},
        {data_type::u16, "u16", 16, false, 0, 65535},
        {data_type::s4, "s4", 4, true, -8, 7},
        {data_type::u4, "u4", 4, false, 0, 15},
        {data_type::s2, "s2", 2, true, -2, 1},
        {data_type::u2, "u2", 2, false, 0, 3},
};

// Packed elements, written out here from NUMERICS.md: element k of a sub-byte tensor in byte
// k / (8 / bits), bits (k % (8 / bits)) * bits and up; 16-bit elements little endian.
uint32_t code_at(const void *base, int bits, int64_t k) {
    const auto *b = static_cast<const uint8_t *>(base);
    if (bits == 16) return b[2 * k] | static_cast<uint32_t>(b[2 * k + 1]) << 8;
    if (bits == 8) return b[k];
    const int per = 8 / bits;
    return (b[k / per] >> (k % per * bits)) & ((1u << bits) - 1);
}
void put_code(void *base, int bits, int64_t k, uint32_t c) {
    auto *b = static_cast<uint8_t *>(base);
    if (bits == 16) {
        b[2 * k] = static_cast<uint8_t>(c);
        b[2 * k + 1] = static_cast<uint8_t>(c >> 8);
        return;
    }
    if (bits == 8) {
        b[k] = static_cast<uint8_t>(c);
        return;
    }
    const int per = 8 / bits, shift = static_cast<int>(k % per) * bits;
    const uint32_t mask = ((1u << bits) - 1) << shift;
    b[k / per] = static_cast<uint8_t>((b[k / per] & ~mask) | ((c << shift) & mask));
}
size_t bytes_for(int bits, int64_t n) { return static_cast<size_t>((n * bits + 7) / 8); }
int64_t value_of(const int_type &t, uint32_t code) {
    const int64_t v = code;
    return t.is_signed && (code >> (t.bits - 1)) ? v - (int64_t {1} << t.bits) : v;
}
uint32_t code_of(const int_type &t, int64_t v) {
    return static_cast<uint32_t>(v) & ((1u << t.bits) - 1);
}

/// saturate(rne(x / s) + zp), NaN -> lo, the sum formed exactly in double.
int64_t want_quantized(float x, float s, int64_t zp, int64_t lo, int64_t hi) {
    const float q = x / s;
    if (std::isnan(q)) return lo;
    const double r = std::nearbyint(static_cast<double>(q)) + static_cast<double>(zp);
    if (r < static_cast<double>(lo)) return lo;
    return r > static_cast<double>(hi) ? hi : static_cast<int64_t>(r);
}

quant_problem problem(q_kind kind, data_type src, data_type dst, const dims &d,
        const dims &src_strides, const dims &dst_strides, const std::vector<param_dim> &map) {
    quant_problem p;
    p.kind = kind;
    p.op_name = "Test";
    p.src_dt = src;
    p.dst_dt = dst;
    p.orig_dims = d;
    p.orig_src_strides = src_strides;
    p.orig_dst_strides = dst_strides;
    p.orig_params = map;
    p.nelems = 1;
    for (int64_t x : d) p.nelems *= x;
    canonicalise(p);
    return p;
}

/// One parameter entry per element of a 1-D tensor.
const std::vector<param_dim> per_element = {param_dim {1, 1, 1}};

std::unique_ptr<kernel> create(const quant_problem &p) {
    std::string reason;
    std::unique_ptr<kernel> k = qgraph::impl::ref_backend().create(
            p, [] { return std::unique_ptr<kernel>(); }, reason);
    EXPECT_NE(k, nullptr) << reason;
    return k;
}

uint32_t f32_bits(float f) { return qtest::f32_bits(f); }

TEST(RefTypes, IntegerQuantizeSaturatesRoundsTiesToEvenAndPacks) {
    const float inf = INFINITY;
    for (const int_type &t : int_types) {
        // Every x with every zero point: the limits, 0, and 1 where it is in range.
        const float xs[] = {-inf, -1e10f, -3.5f, -2.5f, -1.5f, -0.5f, -0.f, 0.5f, 1.5f, 2.5f,
                3.5f, static_cast<float>(t.hi) + 0.5f, static_cast<float>(t.lo) - 0.5f,
                static_cast<float>(t.hi) - 0.5f, 7.49f, 1e10f, inf, NAN, -NAN};
        std::vector<float> x, s;
        std::vector<int64_t> zp;
        for (int64_t z : {t.lo, t.hi, int64_t {0}, int64_t {1}})
            for (float v : xs) {
                x.push_back(v);
                zp.push_back(z > t.hi ? t.hi : z);
                s.push_back(x.size() % 3 == 0 ? 0.5f : 1.f);
            }
        x.push_back(2.5f); // odd count: the last byte of a sub-byte tensor is part used
        zp.push_back(t.lo);
        s.push_back(1.f);
        const int64_t n = static_cast<int64_t>(x.size());
        quant_problem p = problem(q_kind::quantize, data_type::f32, t.dt, {n}, {1}, {1},
                per_element);
        p.scales = s;
        p.zp_src = param_source::attr;
        p.zps = zp;
        std::unique_ptr<kernel> k = create(p);
        ASSERT_NE(k, nullptr);
        for (guard_side side : {guard_side::end, guard_side::start}) {
            SCOPED_TRACE(std::string(t.name) + (side == guard_side::end ? " end" : " start"));
            guarded_buffer src(x.size() * sizeof(float), side), dst(bytes_for(t.bits, n), side);
            std::memcpy(src.data(), x.data(), src.size());
            dst.fill(0xff);
            exec_args a;
            a.src = src.data();
            a.dst = dst.data();
            k->run(a);
            for (int64_t i = 0; i < n; ++i)
                EXPECT_EQ(value_of(t, code_at(dst.data(), t.bits, i)),
                        want_quantized(x[i], s[i], zp[i], t.lo, t.hi))
                        << "element " << i << " x " << x[i] << " zp " << zp[i];
            // The unused high bits of the last byte are written as 0.
            if (t.bits < 8 && n % (8 / t.bits) != 0) {
                EXPECT_EQ(dst.as<uint8_t>()[dst.size() - 1] >> (n % (8 / t.bits) * t.bits), 0);
            }
        }
    }
}

TEST(RefTypes, IntegerDequantizeIsExactAndIgnoresUnusedBits) {
    for (const int_type &t : int_types) {
        SCOPED_TRACE(t.name);
        std::vector<int64_t> xs;
        if (t.bits < 8) {
            for (int64_t v = t.lo; v <= t.hi; ++v) xs.push_back(v);
        } else {
            xs = {t.lo, t.lo + 1, t.is_signed ? -1 : 2, 0, 1, 12345, t.hi - 1, t.hi};
        }
        std::vector<int64_t> x, zp;
        std::vector<float> s;
        for (int64_t z : {t.lo, t.hi, int64_t {0}})
            for (int64_t v : xs) {
                x.push_back(v);
                zp.push_back(z);
                s.push_back(x.size() % 2 ? 0.1f : 3.f);
            }
        if (x.size() % 2 == 0) {
            x.push_back(t.hi);
            zp.push_back(t.lo);
            s.push_back(1.f);
        }
        const int64_t n = static_cast<int64_t>(x.size());
        quant_problem p = problem(q_kind::dequantize, t.dt, data_type::f32, {n}, {1}, {1},
                per_element);
        p.scale_src = param_source::input;
        p.zp_src = param_source::input;
        p.zp_dt = t.dt;
        std::unique_ptr<kernel> k = create(p);
        ASSERT_NE(k, nullptr);
        for (guard_side side : {guard_side::end, guard_side::start}) {
            guarded_buffer src(bytes_for(t.bits, n), side), zps(bytes_for(t.bits, n), side),
                    scales(s.size() * sizeof(float), side), dst(n * sizeof(float), side);
            // Unused high bits of the last bytes set: they must be ignored.
            src.fill(0xff);
            zps.fill(0xff);
            for (int64_t i = 0; i < n; ++i) {
                put_code(src.data(), t.bits, i, code_of(t, x[i]));
                put_code(zps.data(), t.bits, i, code_of(t, zp[i]));
            }
            std::memcpy(scales.data(), s.data(), scales.size());
            exec_args a;
            a.src = src.data();
            a.dst = dst.data();
            a.scales = scales.data();
            a.zps = zps.data();
            k->run(a);
            for (int64_t i = 0; i < n; ++i)
                EXPECT_EQ(dst.as<float>()[i], static_cast<float>(x[i] - zp[i]) * s[i])
                        << "element " << i << " x " << x[i] << " zp " << zp[i];
        }
    }
}

TEST(RefTypes, StridedSubByteDestinationsKeepTheGaps) {
    // 3x5 rows 7 elements apart, and 1-D every 3rd element: the elements in between belong to
    // someone else and keep their bits; only the bits after the last element are cleared.
    const struct {
        dims d, strides;
    } layouts[] = {{{3, 5}, {7, 1}}, {{9}, {3}}, {{2, 3}, {1, 5}}};
    for (const int_type &t : int_types) {
        if (t.bits >= 8) continue;
        for (const auto &l : layouts) {
            SCOPED_TRACE(std::string(t.name) + " " + ::testing::PrintToString(l.strides));
            const int64_t rows = l.d.size() == 2 ? l.d[0] : 1, cols = l.d.back();
            const int64_t rs = l.d.size() == 2 ? l.strides[0] : 0, cs = l.strides.back();
            const int64_t n = rows * cols, span = (rows - 1) * rs + (cols - 1) * cs + 1;
            std::vector<param_dim> map(l.d.size());
            quant_problem p = problem(q_kind::quantize, data_type::f32, t.dt, l.d,
                    dense_strides(l.d), l.strides, map);
            p.scales = {0.5f};
            std::unique_ptr<kernel> k = create(p);
            ASSERT_NE(k, nullptr);
            std::vector<float> x(static_cast<size_t>(n));
            for (int64_t i = 0; i < n; ++i) x[i] = static_cast<float>(i % 9) - 4.25f;
            guarded_buffer dst(bytes_for(t.bits, span));
            std::mt19937 gen(7);
            for (size_t b = 0; b < dst.size(); ++b) dst.as<uint8_t>()[b] = gen() & 0xff;
            std::vector<uint8_t> old(dst.as<uint8_t>(), dst.as<uint8_t>() + dst.size());
            std::vector<int64_t> written(static_cast<size_t>(span), -1); // source element
            for (int64_t r = 0; r < rows; ++r)
                for (int64_t c = 0; c < cols; ++c) written[r * rs + c * cs] = r * cols + c;
            exec_args a;
            a.src = x.data();
            a.dst = dst.data();
            k->run(a);
            const int per = 8 / t.bits;
            for (int64_t e = 0; e < static_cast<int64_t>(dst.size()) * per; ++e) {
                const uint32_t got = code_at(dst.data(), t.bits, e);
                if (e >= span)
                    EXPECT_EQ(got, 0u) << "unused bits after the last element, " << e;
                else if (written[e] < 0)
                    EXPECT_EQ(got, code_at(old.data(), t.bits, e)) << "gap element " << e;
                else
                    EXPECT_EQ(value_of(t, got),
                            want_quantized(x[written[e]], 0.5f, 0, t.lo, t.hi))
                            << "element " << e;
            }
        }
    }
}

TEST(RefTypes, FloatQuantizeRoundsOnceAndSaturatesAsAsked) {
    for (const qtest::minifloat_format &f : qtest::minifloat_formats()) {
        const std::vector<qtest::minifloat_entry> entries = qtest::model_entries(f);
        // Around every value and midpoint of the format (x = 2 * value with scale 2), and the
        // specials; an odd count.
        std::vector<float> x = {INFINITY, -INFINITY, NAN, -NAN, 0.f, -0.f, 1e30f, -1e-30f};
        for (size_t i = 0; i + 1 < entries.size(); ++i)
            for (double v : {entries[i].value, (entries[i].value + entries[i + 1].value) / 2}) {
                const float two_v = static_cast<float>(2 * v);
                x.push_back(two_v);
                x.push_back(-std::nextafter(two_v, INFINITY));
                x.push_back(std::nextafter(two_v, 0.f));
            }
        if (x.size() % 2 == 0) x.push_back(3.f);
        const int64_t n = static_cast<int64_t>(x.size());
        for (bool sat : {true, false}) {
            SCOPED_TRACE(std::string(f.name) + (sat ? " saturate" : " no saturate"));
            quant_problem p = problem(q_kind::quantize, data_type::f32, f.dt, {n}, {1}, {1},
                    {param_dim {}});
            p.scales = {2.f};
            p.saturate = sat;
            std::unique_ptr<kernel> k = create(p);
            ASSERT_NE(k, nullptr);
            for (guard_side side : {guard_side::end, guard_side::start}) {
                guarded_buffer src(x.size() * sizeof(float), side), dst(bytes_for(f.bits, n), side);
                std::memcpy(src.data(), x.data(), src.size());
                dst.fill(0xff);
                exec_args a;
                a.src = src.data();
                a.dst = dst.data();
                k->run(a);
                // The (absent, +0) zero point is added in f32: a -0 quotient becomes +0.
                for (int64_t i = 0; i < n; ++i)
                    EXPECT_EQ(code_at(dst.data(), f.bits, i),
                            qtest::model_encode(f, entries, x[i] / 2.f + 0.f, sat))
                            << "element " << i << " x " << x[i];
                if (f.bits < 8) {
                    EXPECT_EQ(dst.as<uint8_t>()[dst.size() - 1] >> 4, 0);
                }
            }
        }
    }
}

TEST(RefTypes, FloatDequantizeDecodesEveryCode) {
    for (const qtest::minifloat_format &f : qtest::minifloat_formats()) {
        SCOPED_TRACE(f.name);
        const int64_t codes = int64_t {1} << f.bits, n = codes + 1; // odd for float4
        quant_problem p = problem(q_kind::dequantize, f.dt, data_type::f32, {n}, {1}, {1},
                {param_dim {}});
        p.scales = {0.75f};
        std::unique_ptr<kernel> k = create(p);
        ASSERT_NE(k, nullptr);
        guarded_buffer src(bytes_for(f.bits, n)), dst(n * sizeof(float), guard_side::start);
        src.fill(0xff); // the unused high bits of float4's last byte are ignored
        for (int64_t i = 0; i < n; ++i)
            put_code(src.data(), f.bits, i, static_cast<uint32_t>(i % codes));
        exec_args a;
        a.src = src.data();
        a.dst = dst.data();
        k->run(a);
        for (int64_t i = 0; i < n; ++i) {
            const double v = qtest::model_value(f, static_cast<uint32_t>(i % codes));
            const float got = dst.as<float>()[i];
            if (std::isnan(v))
                EXPECT_TRUE(std::isnan(got)) << "code " << i % codes << ": " << got;
            else
                EXPECT_EQ(f32_bits(got), f32_bits(static_cast<float>(v) * 0.75f))
                        << "code " << i % codes << ": " << got;
        }
    }
}

/// x rounded to f16 or bf16 and back, by the oracles of half_oracles.hpp.
float rounded(float x, data_type t) {
    if (t == data_type::f16) return qtest::f16c_to_f32(qtest::f16c_from_f32(x));
    return qtest::f32_of(static_cast<uint32_t>(qtest::bf16_model(x)) << 16);
}

TEST(RefTypes, DivisionInF16AndBf16) {
    if (!qtest::have_f16c()) GTEST_SKIP() << "the CPU has no F16C (the f16 oracle)";
    // u16 output: quotients up to 65535 keep the rounding of the division visible. x and s
    // are rounded to the division type, then the quotient.
    std::vector<float> x;
    for (int i = 0; i < 301; ++i) x.push_back(1000.f + 37.3f * static_cast<float>(i));
    const float s = 0.3f;
    const int64_t n = static_cast<int64_t>(x.size());
    for (data_type div : {data_type::f16, data_type::bf16}) {
        SCOPED_TRACE(div == data_type::f16 ? "f16" : "bf16");
        quant_problem p = problem(q_kind::quantize, data_type::f32, data_type::u16, {n}, {1},
                {1}, {param_dim {}});
        p.scales = {s};
        p.div_dt = div;
        std::unique_ptr<kernel> k = create(p);
        ASSERT_NE(k, nullptr);
        std::vector<uint16_t> y(x.size());
        exec_args a;
        a.src = x.data();
        a.dst = y.data();
        k->run(a);
        int differs_from_f32 = 0;
        for (int64_t i = 0; i < n; ++i) {
            const float q = rounded(rounded(x[i], div) / rounded(s, div), div);
            const int64_t want = want_quantized(q, 1.f, 0, 0, 65535);
            EXPECT_EQ(y[i], want) << "x " << x[i];
            differs_from_f32 += want != want_quantized(x[i], s, 0, 0, 65535);
        }
        EXPECT_GT(differs_from_f32, n / 2); // the inputs do tell the precisions apart
    }
}

TEST(RefTypes, F16Bf16AndE8m0ScalesWithTheNewTypes) {
    if (!qtest::have_f16c()) GTEST_SKIP() << "the CPU has no F16C (the f16 oracle)";
    // u4 -> bf16 output with bf16 scales, s16 -> f16 output with f16 scales, s2 -> f32 with
    // e8m0 scales; one scale per element, raw scale bits given here.
    const std::vector<uint16_t> bf16_scales = {0x3eab, 0x3f80, 0x0001, 0x4000, 0xbf00};
    const std::vector<uint16_t> f16_scales = {0x3555, 0x0001, 0x3c00, 0x7bff, 0xb800};
    const std::vector<uint8_t> e8m0_scales = {0, 1, 127, 130, 254};
    struct run_case {
        data_type src, dst, scale_dt;
        const void *scales;
        int bits;
        std::vector<int64_t> x;
    };
    const run_case cases[] = {
            {data_type::u4, data_type::bf16, data_type::bf16, bf16_scales.data(), 4,
                    {15, 7, 3, 0, 9}},
            {data_type::s16, data_type::f16, data_type::f16, f16_scales.data(), 16,
                    {-32768, 32767, 3, 9, -7}},
            {data_type::s2, data_type::f32, data_type::e8m0, e8m0_scales.data(), 2,
                    {-2, 1, -1, 0, 1}},
    };
    for (const run_case &c : cases) {
        SCOPED_TRACE(static_cast<int>(c.src));
        quant_problem p = problem(q_kind::dequantize, c.src, c.dst, {5}, {1}, {1}, per_element);
        p.scale_src = param_source::input;
        p.scale_dt = c.scale_dt;
        std::unique_ptr<kernel> k = create(p);
        ASSERT_NE(k, nullptr);
        std::vector<uint8_t> src(bytes_for(c.bits, 5), 0);
        for (int i = 0; i < 5; ++i)
            put_code(src.data(), c.bits, i, static_cast<uint32_t>(c.x[i]) & ((1u << c.bits) - 1));
        std::vector<float> out(5);
        std::vector<uint16_t> out16(5);
        exec_args a;
        a.src = src.data();
        a.dst = c.dst == data_type::f32 ? static_cast<void *>(out.data()) : out16.data();
        a.scales = c.scales;
        k->run(a);
        for (int i = 0; i < 5; ++i) {
            float s;
            if (c.scale_dt == data_type::bf16)
                s = qtest::f32_of(static_cast<uint32_t>(bf16_scales[i]) << 16);
            else if (c.scale_dt == data_type::f16)
                s = qtest::f16c_to_f32(f16_scales[i]);
            else
                s = std::ldexp(1.f, e8m0_scales[i] - 127);
            const float y = static_cast<float>(c.x[i]) * s;
            if (c.dst == data_type::bf16)
                EXPECT_EQ(out16[i], qtest::bf16_model(y)) << i;
            else if (c.dst == data_type::f16)
                EXPECT_EQ(out16[i], qtest::f16c_from_f32(y)) << i;
            else
                EXPECT_EQ(f32_bits(out[i]), f32_bits(y)) << i;
        }
    }
    // Quantize f32 -> s4 dividing by f16 scales: 2^-24 (subnormal) and 65504 included.
    quant_problem p = problem(q_kind::quantize, data_type::f32, data_type::s4, {5}, {1}, {1},
            per_element);
    p.scale_src = param_source::input;
    p.scale_dt = data_type::f16;
    std::unique_ptr<kernel> k = create(p);
    ASSERT_NE(k, nullptr);
    const float x[5] = {1.f, 0x1p-22f, 2.5f, 65504.f * 3, -1e-3f};
    uint8_t y[3] = {0xff, 0xff, 0xff};
    exec_args a;
    a.src = x;
    a.dst = y;
    a.scales = f16_scales.data();
    k->run(a);
    const int_type &s4 = int_types[2];
    for (int i = 0; i < 5; ++i)
        EXPECT_EQ(value_of(s4, code_at(y, 4, i)),
                want_quantized(x[i], qtest::f16c_to_f32(f16_scales[i]), 0, -8, 7))
                << i;
    EXPECT_EQ(y[2] >> 4, 0);
}

/// Entry of the element at idx in a parameter tensor: idx / group times the stride, per dim.
int64_t param_offset(const std::vector<param_dim> &map, const dims &idx, bool zp) {
    int64_t off = 0;
    for (size_t i = 0; i < map.size(); ++i)
        if (map[i].group > 0)
            off += idx[i] / map[i].group * (zp ? map[i].zp_stride : map[i].scale_stride);
    return off;
}

/// Dequantize of 4-bit data with 4-bit zero points (packed, dense parameter tensors) over
/// the 2-D map `map`, against the rule element by element.
void check_4bit_map(const int_type &t, const dims &d, const std::vector<param_dim> &map,
        int64_t n_params) {
    SCOPED_TRACE(std::string(t.name) + " " + ::testing::PrintToString(d));
    quant_problem p = problem(q_kind::dequantize, t.dt, data_type::f32, d, dense_strides(d),
            dense_strides(d), map);
    p.scale_src = param_source::input;
    p.zp_src = param_source::input;
    p.zp_dt = t.dt;
    std::unique_ptr<kernel> k = create(p);
    ASSERT_NE(k, nullptr);
    const int64_t n = d[0] * d[1];
    guarded_buffer src(bytes_for(4, n)), zps(bytes_for(4, n_params)),
            scales(n_params * sizeof(float)), dst(n * sizeof(float));
    src.fill(0);
    zps.fill(0);
    for (int64_t e = 0; e < n_params; ++e) {
        scales.as<float>()[e] = 0.25f * static_cast<float>(e + 1);
        put_code(zps.data(), 4, e, code_of(t, t.lo + (e * 5) % (t.hi - t.lo + 1)));
    }
    for (int64_t i = 0; i < n; ++i) put_code(src.data(), 4, i, static_cast<uint32_t>(i * 7 % 16));
    exec_args a;
    a.src = src.data();
    a.dst = dst.data();
    a.scales = scales.data();
    a.zps = zps.data();
    k->run(a);
    for (int64_t r = 0; r < d[0]; ++r)
        for (int64_t c = 0; c < d[1]; ++c) {
            const int64_t i = r * d[1] + c;
            const int64_t x = value_of(t, code_at(src.data(), 4, i));
            const int64_t zp = value_of(t, code_at(zps.data(), 4, param_offset(map, {r, c}, true)));
            const float s = scales.as<float>()[param_offset(map, {r, c}, false)];
            EXPECT_EQ(dst.as<float>()[i], static_cast<float>(x - zp) * s) << r << "," << c;
        }
}

TEST(RefTypes, BlockedAndGroupedMapsWith4BitData) {
    // ONNX blocked: 3x10, blocks of 4 along dim 1 (4, 4, 2): 3x3 parameters.
    check_4bit_map(int_types[2], {3, 10}, {param_dim {1, 3, 3}, param_dim {4, 1, 1}}, 9);
    check_4bit_map(int_types[3], {3, 10}, {param_dim {1, 3, 3}, param_dim {4, 1, 1}}, 9);
    // oneDNN per_group 4x3 on 8x12: 2x4 parameters; and 2x5 groups on 6x11 (partial last).
    check_4bit_map(int_types[3], {8, 12}, {param_dim {4, 4, 4}, param_dim {3, 1, 1}}, 8);
    check_4bit_map(int_types[2], {6, 11}, {param_dim {2, 3, 3}, param_dim {5, 1, 1}}, 9);
}

/// Runs quantize f32 -> dst_dt (or dequantize dst_dt -> f32) of 3 elements with a zero-point
/// tensor of 3 float codes of dst_dt, per element.
void run_with_float_zero_points(q_kind kind, data_type t, const uint8_t (&zp)[3]) {
    quant_problem p = kind == q_kind::quantize
            ? problem(kind, data_type::f32, t, {3}, {1}, {1}, per_element)
            : problem(kind, t, data_type::f32, {3}, {1}, {1}, per_element);
    p.scales = {1.f, 2.f, 4.f};
    p.zp_src = param_source::input;
    p.zp_dt = t;
    std::unique_ptr<kernel> k = create(p);
    ASSERT_NE(k, nullptr);
    const float xf[3] = {1.f, 2.f, 3.f};
    const uint8_t xq[3] = {0x38, 0x40, 0x44};
    float yf[3] = {};
    uint8_t yq[3] = {};
    exec_args a;
    a.src = kind == q_kind::quantize ? static_cast<const void *>(xf) : xq;
    a.dst = kind == q_kind::quantize ? static_cast<void *>(yq) : yf;
    a.zps = zp;
    k->run(a);
}

TEST(RefTypes, FloatZeroPointIsAddedInF32) {
    // y = cast(x / s + zp): with zp = +-0 only the sign of a zero quotient can change:
    // -0 + +0 = +0, -0 + -0 = -0, +0 + -0 = +0, and a nonzero quotient keeps its sign.
    quant_problem p = problem(q_kind::quantize, data_type::f32, data_type::f8_e4m3, {4}, {1},
            {1}, per_element);
    p.scales = {1.f, 1.f, 1.f, 1.f};
    p.zp_src = param_source::input;
    p.zp_dt = data_type::f8_e4m3;
    std::unique_ptr<kernel> k = create(p);
    ASSERT_NE(k, nullptr);
    const float x[4] = {-0.f, -0.f, 0.f, -1e-30f};
    const uint8_t zp[4] = {0x00, 0x80, 0x80, 0x00};
    uint8_t y[4] = {0xff, 0xff, 0xff, 0xff};
    exec_args a;
    a.src = x;
    a.dst = y;
    a.zps = zp;
    k->run(a);
    EXPECT_EQ(y[0], 0x00);
    EXPECT_EQ(y[1], 0x80);
    EXPECT_EQ(y[2], 0x00);
    EXPECT_EQ(y[3], 0x80); // rounds to -0 in the type, after the addition
}

TEST(RefTypes, FloatZeroPointsMustBeZeroAtExecute) {
    const uint8_t zeros[3] = {0x00, 0x80, 0x00}; // +0, -0
    for (q_kind kind : {q_kind::quantize, q_kind::dequantize})
        for (data_type t : {data_type::f8_e4m3, data_type::f8_e5m2}) {
            EXPECT_NO_THROW(run_with_float_zero_points(kind, t, zeros));
            const uint8_t one[3] = {0x00, 0x00, 0x38}; // 1.0 in e4m3, 0.5 in e5m2
            try {
                run_with_float_zero_points(kind, t, one);
                ADD_FAILURE() << "a nonzero float zero point was accepted";
            } catch (const qgraph::error &e) {
                EXPECT_EQ(e.status(), qgraph::status::invalid_arguments);
                EXPECT_NE(std::string(e.what()).find("zero point"), std::string::npos)
                        << e.what();
            }
        }
    // 0x80 is the fnuz types' NaN, not -0: not a zero.
    const uint8_t fnuz_nan[3] = {0x00, 0x80, 0x00};
    EXPECT_THROW(run_with_float_zero_points(q_kind::quantize, data_type::f8_e4m3fnuz, fnuz_nan),
            qgraph::error);
}

} // namespace
