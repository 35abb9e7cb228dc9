// The golden table end to end through the public API: each row becomes one element of a 1-D
// tensor quantized per axis (axis 0), so every row carries its own scale and zero point.
// Run on the reference backend and on the default selection; both must give the table.
// (No public op writes s32, so the s32-destination rows are checked in
// test_numerics_golden.cpp only.)

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "api/helpers.hpp"
#include "ref/golden_cases.hpp"

namespace {

using namespace qtest;
using namespace golden;

const char *const backends[] = {"ref", ""};

dt dtype_of(qt t) { return t == qt::u8 ? dt::u8 : (t == qt::s8 ? dt::s8 : dt::s32); }

bool fits(int64_t v, qt t) { return v >= qmin(t) && v <= qmax(t); }

std::vector<int64_t> read_ints(const buffer &b, dt t) {
    std::vector<int64_t> v;
    if (t == dt::u8)
        for (uint8_t x : b.read<uint8_t>()) v.push_back(x);
    else if (t == dt::s8)
        for (int8_t x : b.read<int8_t>()) v.push_back(x);
    else
        for (int32_t x : b.read<int32_t>()) v.push_back(x);
    return v;
}

buffer int_buffer(const lt &desc, const std::vector<int64_t> &v) {
    buffer b(desc);
    if (desc.get_data_type() == dt::u8)
        b.fill(std::vector<uint8_t>(v.begin(), v.end()));
    else if (desc.get_data_type() == dt::s8)
        b.fill(std::vector<int8_t>(v.begin(), v.end()));
    else
        b.fill(std::vector<int32_t>(v.begin(), v.end()));
    return b;
}

struct rows {
    std::vector<float> x, s;
    std::vector<int64_t> zp, y;
    std::vector<std::string> why;
    int64_t n() const { return static_cast<int64_t>(x.size()); }
};

template <typename Pred>
rows select_quantize(qt type, Pred keep) {
    rows r;
    for (const qcase &c : quantize_cases())
        if (c.type == type && keep(c)) {
            r.x.push_back(c.x);
            r.s.push_back(c.s);
            r.zp.push_back(c.zp);
            r.y.push_back(c.y);
            r.why.push_back(c.why);
        }
    return r;
}

void expect_rows(const rows &r, const std::vector<int64_t> &got, const std::string &what) {
    ASSERT_EQ(got.size(), r.y.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_EQ(got[i], r.y[i]) << what << ": " << r.why[i] << " (x=" << r.x[i]
                                  << " s=" << r.s[i] << " zp=" << r.zp[i] << ")";
}

// QuantizeLinear: y zero point of the destination type (rows whose zp fits it).
TEST(NumericsGoldenApi, QuantizeLinearPerAxis) {
    for (qt type : {qt::u8, qt::s8}) {
        const rows r = select_quantize(type, [&](const qcase &c) { return fits(c.zp, type); });
        ASSERT_GT(r.n(), 10);
        const dt qdt = dtype_of(type);
        op o(0, op::kind::QuantizeLinear, "ql");
        o.add_inputs({dense(1, dt::f32, {r.n()}), dense(2, dt::f32, {r.n()}),
                dense(3, qdt, {r.n()})});
        o.add_output(dense(4, qdt, {r.n()}));
        o.set_attr(op::attr::axis, 0);
        for (const char *b : backends) {
            run_result res = run_op_on(b, o,
                    {make_buffer(dense(1, dt::f32, {r.n()}), r.x),
                            make_buffer(dense(2, dt::f32, {r.n()}), r.s),
                            int_buffer(dense(3, qdt, {r.n()}), r.zp)},
                    {buffer(dense(4, qdt, {r.n()}))});
            expect_rows(r, read_ints(res.outputs[0], qdt),
                    std::string("QuantizeLinear on backend '") + b + "' (" + res.kernel + ")");
        }
    }
}

// DynamicQuantize with s32 zero points: every 8-bit-destination row, the zp sum exact.
TEST(NumericsGoldenApi, DynamicQuantizeS32ZeroPoints) {
    for (qt type : {qt::u8, qt::s8}) {
        const rows r = select_quantize(type, [](const qcase &) { return true; });
        const dt qdt = dtype_of(type);
        op o(0, op::kind::DynamicQuantize, "dq");
        o.add_inputs({dense(1, dt::f32, {r.n()}), dense(2, dt::f32, {r.n()}),
                dense(3, dt::s32, {r.n()})});
        o.add_output(dense(4, qdt, {r.n()}));
        o.set_attr(op::attr::qtype, "per_channel");
        o.set_attr(op::attr::axis, 0);
        for (const char *b : backends) {
            run_result res = run_op_on(b, o,
                    {make_buffer(dense(1, dt::f32, {r.n()}), r.x),
                            make_buffer(dense(2, dt::f32, {r.n()}), r.s),
                            int_buffer(dense(3, dt::s32, {r.n()}), r.zp)},
                    {buffer(dense(4, qdt, {r.n()}))});
            expect_rows(r, read_ints(res.outputs[0], qdt),
                    std::string("DynamicQuantize on backend '") + b + "' (" + res.kernel + ")");
        }
    }
}

// oneDNN-style Quantize: static scales (finite, non-zero) and zero points as attributes.
TEST(NumericsGoldenApi, StaticQuantizePerChannel) {
    for (qt type : {qt::u8, qt::s8}) {
        const rows r = select_quantize(type, [&](const qcase &c) {
            return fits(c.zp, type) && std::isfinite(c.s) && c.s != 0.f;
        });
        const dt qdt = dtype_of(type);
        op o(0, op::kind::Quantize, "q");
        o.add_input(dense(1, dt::f32, {r.n()}));
        o.add_output(dense(2, qdt, {r.n()}));
        o.set_attr(op::attr::qtype, "per_channel");
        o.set_attr(op::attr::axis, 0);
        o.set_attr(op::attr::scales, r.s);
        o.set_attr(op::attr::zps, r.zp);
        for (const char *b : backends) {
            run_result res = run_op_on(b, o, {make_buffer(dense(1, dt::f32, {r.n()}), r.x)},
                    {buffer(dense(2, qdt, {r.n()}))});
            expect_rows(r, read_ints(res.outputs[0], qdt),
                    std::string("Quantize on backend '") + b + "' (" + res.kernel + ")");
        }
    }
}

// Per-tensor runs of single rows: the per-tensor kernels must agree with the per-axis ones.
TEST(NumericsGoldenApi, QuantizeLinearPerTensorRowByRow) {
    for (const qcase &c : quantize_cases()) {
        if (c.type == qt::s32 || !fits(c.zp, c.type)) continue;
        const dt qdt = dtype_of(c.type);
        op o(0, op::kind::QuantizeLinear, "ql");
        o.add_inputs({dense(1, dt::f32, {3}), dense(2, dt::f32, {}), dense(3, qdt, {})});
        o.add_output(dense(4, qdt, {3}));
        for (const char *b : backends) {
            run_result res = run_op_on(b, o,
                    {make_buffer(dense(1, dt::f32, {3}), std::vector<float>(3, c.x)),
                            make_buffer(dense(2, dt::f32, {}), std::vector<float> {c.s}),
                            int_buffer(dense(3, qdt, {}), {c.zp})},
                    {buffer(dense(4, qdt, {3}))});
            EXPECT_EQ(read_ints(res.outputs[0], qdt), std::vector<int64_t>(3, c.y))
                    << c.why << " on backend '" << b << "' (" << res.kernel << ")";
        }
    }
}

// QuantizeLinear with an s32 input: f32(x) first (one rounding), then the quantize rule.
TEST(NumericsGoldenApi, QuantizeLinearFromS32) {
    // x, s, zp (u8) -> y
    //  3 / 2 = 1.5 tie -> 2, +0                      = 2
    // -3 / 2 = -1.5 tie -> -2, +3                    = 1   (oneDNN's rne(1.5) would give 2)
    //  16777217 -> f32 2^24 (tie to even); / 2^24 = 1 = 1 (exact 16777217/2^24 rounds to 1 too)
    //  2147483647 -> f32 2^31; / 1 -> saturates      = 255
    //  -2147483648 / 1, +255                         = 0
    //  25165823 (1.5*2^24 - 1) -> f32: tie between 25165822 and 25165824 -> 25165824
    //     (even mantissa); / 2^24 = 1.5, tie -> 2      = 2
    //  7 / 0 = +Inf                                  = 255
    //  0 / 0 = NaN                                   = 0
    const std::vector<int32_t> x {3, -3, 16777217, 2147483647, -2147483647 - 1, 25165823, 7, 0};
    const std::vector<float> s {2.f, 2.f, 16777216.f, 1.f, 1.f, 16777216.f, 0.f, 0.f};
    const std::vector<uint8_t> zp {0, 3, 0, 0, 255, 0, 0, 9};
    const std::vector<uint8_t> want {2, 1, 1, 255, 0, 2, 255, 0};
    const int64_t n = static_cast<int64_t>(x.size());
    op o(0, op::kind::QuantizeLinear, "ql");
    o.add_inputs({dense(1, dt::s32, {n}), dense(2, dt::f32, {n}), dense(3, dt::u8, {n})});
    o.add_output(dense(4, dt::u8, {n}));
    o.set_attr(op::attr::axis, 0);
    for (const char *b : backends) {
        run_result res = run_op_on(b, o,
                {make_buffer(dense(1, dt::s32, {n}), x), make_buffer(dense(2, dt::f32, {n}), s),
                        make_buffer(dense(3, dt::u8, {n}), zp)},
                {buffer(dense(4, dt::u8, {n}))});
        EXPECT_EQ(res.outputs[0].read<uint8_t>(), want) << "backend '" << b << "'";
    }
}

struct drows {
    std::vector<int64_t> x, zp;
    std::vector<float> s, y;
    std::vector<std::string> why;
    int64_t n() const { return static_cast<int64_t>(x.size()); }
};

template <typename Pred>
drows select_dequantize(it type, Pred keep) {
    drows r;
    for (const dqcase &c : dequantize_cases())
        if (c.type == type && keep(c)) {
            r.x.push_back(c.x);
            r.zp.push_back(c.zp);
            r.s.push_back(c.s);
            r.y.push_back(c.y);
            r.why.push_back(c.why);
        }
    return r;
}

void expect_drows(const drows &r, const std::vector<float> &got, const std::string &what) {
    ASSERT_EQ(got.size(), r.y.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
        EXPECT_TRUE(same_float(got[i], r.y[i]))
                << what << ": " << r.why[i] << ": got " << got[i] << ", expected " << r.y[i];
}

dt dtype_of(it t) { return t == it::u8 ? dt::u8 : (t == it::s8 ? dt::s8 : dt::s32); }

TEST(NumericsGoldenApi, DequantizeLinearPerAxis) {
    // u8 / s8 rows whose zp fits the input type; s32 rows without a zero point.
    for (it type : {it::u8, it::s8, it::s32}) {
        const dt xdt = dtype_of(type);
        const drows r = select_dequantize(type, [&](const dqcase &c) {
            if (type == it::s32) return c.zp == 0;
            return fits(c.zp, type == it::u8 ? qt::u8 : qt::s8);
        });
        ASSERT_GT(r.n(), 1);
        op o(0, op::kind::DequantizeLinear, "dql");
        o.add_inputs({dense(1, xdt, {r.n()}), dense(2, dt::f32, {r.n()})});
        if (type != it::s32) o.add_input(dense(3, xdt, {r.n()}));
        o.add_output(dense(4, dt::f32, {r.n()}));
        o.set_attr(op::attr::axis, 0);
        std::vector<buffer> ins {int_buffer(dense(1, xdt, {r.n()}), r.x),
                make_buffer(dense(2, dt::f32, {r.n()}), r.s)};
        if (type != it::s32) ins.push_back(int_buffer(dense(3, xdt, {r.n()}), r.zp));
        for (const char *b : backends) {
            run_result res = run_op_on(b, o, ins, {buffer(dense(4, dt::f32, {r.n()}))});
            expect_drows(r, res.outputs[0].read<float>(),
                    std::string("DequantizeLinear ") + qgraph::to_string(xdt) + " on backend '"
                            + b + "' (" + res.kernel + ")");
        }
    }
}

TEST(NumericsGoldenApi, DynamicDequantizeS32ZeroPoints) {
    for (it type : {it::u8, it::s8}) {
        const dt xdt = dtype_of(type);
        const drows r = select_dequantize(type, [](const dqcase &) { return true; });
        op o(0, op::kind::DynamicDequantize, "ddq");
        o.add_inputs({dense(1, xdt, {r.n()}), dense(2, dt::f32, {r.n()}),
                dense(3, dt::s32, {r.n()})});
        o.add_output(dense(4, dt::f32, {r.n()}));
        o.set_attr(op::attr::qtype, "per_channel");
        o.set_attr(op::attr::axis, 0);
        for (const char *b : backends) {
            run_result res = run_op_on(b, o,
                    {int_buffer(dense(1, xdt, {r.n()}), r.x),
                            make_buffer(dense(2, dt::f32, {r.n()}), r.s),
                            int_buffer(dense(3, dt::s32, {r.n()}), r.zp)},
                    {buffer(dense(4, dt::f32, {r.n()}))});
            expect_drows(r, res.outputs[0].read<float>(),
                    std::string("DynamicDequantize on backend '") + b + "' (" + res.kernel + ")");
        }
    }
}

TEST(NumericsGoldenApi, StaticDequantizePerChannel) {
    for (it type : {it::u8, it::s8}) {
        const dt xdt = dtype_of(type);
        const drows r = select_dequantize(type, [&](const dqcase &c) {
            return fits(c.zp, type == it::u8 ? qt::u8 : qt::s8) && std::isfinite(c.s)
                    && c.s != 0.f;
        });
        op o(0, op::kind::Dequantize, "dq");
        o.add_input(dense(1, xdt, {r.n()}));
        o.add_output(dense(2, dt::f32, {r.n()}));
        o.set_attr(op::attr::qtype, "per_channel");
        o.set_attr(op::attr::axis, 0);
        o.set_attr(op::attr::scales, r.s);
        o.set_attr(op::attr::zps, r.zp);
        for (const char *b : backends) {
            run_result res = run_op_on(
                    b, o, {int_buffer(dense(1, xdt, {r.n()}), r.x)}, {buffer(dense(2, dt::f32, {r.n()}))});
            expect_drows(r, res.outputs[0].read<float>(),
                    std::string("Dequantize on backend '") + b + "' (" + res.kernel + ")");
        }
    }
}

TEST(NumericsGoldenApi, DynamicQuantizeLinear) {
    for (const dqlcase &c : dql_cases()) {
        const int64_t n = static_cast<int64_t>(c.x.size());
        op o(0, op::kind::DynamicQuantizeLinear, "dql");
        o.add_input(dense(1, dt::f32, {n}));
        o.add_outputs({dense(2, dt::u8, {n}), dense(3, dt::f32, {}), dense(4, dt::u8, {})});
        for (const char *b : backends) {
            run_result res = run_op_on(b, o, {make_buffer(dense(1, dt::f32, {n}), c.x)},
                    {buffer(dense(2, dt::u8, {n})), buffer(dense(3, dt::f32, {})),
                            buffer(dense(4, dt::u8, {}))});
            const std::string where = std::string(c.why) + " on backend '" + b + "'";
            std::vector<int64_t> y;
            for (uint8_t v : res.outputs[0].read<uint8_t>()) y.push_back(v);
            EXPECT_EQ(y, c.y) << where;
            const float scale = res.outputs[1].read<float>()[0];
            EXPECT_TRUE(same_float(scale, c.scale))
                    << where << ": scale " << scale << ", expected " << c.scale;
            EXPECT_EQ(res.outputs[2].read<uint8_t>()[0], c.zp) << where;
        }
    }
}

} // namespace
