// The golden table against the numerics header itself (src/common/q10n.hpp).

#include <gtest/gtest.h>

#include <cstring>

#include "common/q10n.hpp"
#include "ref/golden_cases.hpp"

namespace {

using namespace golden;
using qgraph::impl::q_range;

q_range range(qt t) { return {qmin(t), qmax(t)}; }

bool same_bits(float a, float b) {
    if (a != a && b != b) return true; // any NaN matches any NaN
    uint32_t ua, ub;
    std::memcpy(&ua, &a, 4);
    std::memcpy(&ub, &b, 4);
    return ua == ub;
}

TEST(NumericsGolden, QuantizeValue) {
    for (const qcase &c : quantize_cases())
        EXPECT_EQ(qgraph::impl::quantize_value(c.x, c.s, c.zp, range(c.type)), c.y)
                << c.why << " (x=" << c.x << " s=" << c.s << " zp=" << c.zp << ")";
}

TEST(NumericsGolden, DequantizeValue) {
    for (const dqcase &c : dequantize_cases()) {
        const float y = qgraph::impl::dequantize_value(c.x, c.zp, c.s);
        EXPECT_TRUE(same_bits(y, c.y)) << c.why << ": got " << y << ", expected " << c.y;
    }
}

qgraph::impl::min_max min_max_of(const std::vector<float> &x) {
    qgraph::impl::min_max mm;
    for (float v : x) mm.add(v);
    return mm;
}

TEST(NumericsGolden, DynamicQuantizeLinearParamsAndValues) {
    for (const dqlcase &c : dql_cases()) {
        const qgraph::impl::dql_params p = qgraph::impl::dynamic_qlinear_params(min_max_of(c.x));
        EXPECT_TRUE(same_bits(p.scale, c.scale))
                << c.why << ": scale " << p.scale << ", expected " << c.scale;
        EXPECT_EQ(p.zp, c.zp) << c.why;
        for (size_t i = 0; i < c.x.size(); ++i)
            EXPECT_EQ(qgraph::impl::quantize_value(c.x[i], p.scale, p.zp, {0, 255}), c.y[i])
                    << c.why << " element " << i;
    }
}

TEST(NumericsGolden, ScaleBitsOfTheOnnxExamples) {
    // Derived in golden_cases.hpp: f32(5/255) = 0x3CA0A0A1, f32(4/255) = 0x3C808081.
    uint32_t b5, b4;
    const float s5 = 5.f / 255.f, s4 = 4.f / 255.f;
    std::memcpy(&b5, &s5, 4);
    std::memcpy(&b4, &s4, 4);
    EXPECT_EQ(b5, 0x3CA0A0A1u);
    EXPECT_EQ(b4, 0x3C808081u);
}

TEST(NumericsGolden, MinMaxMergeEqualsOnePass) {
    // Splitting the input anywhere and merging the halves gives the same parameters.
    for (const dqlcase &c : dql_cases()) {
        const qgraph::impl::dql_params whole
                = qgraph::impl::dynamic_qlinear_params(min_max_of(c.x));
        for (size_t cut = 0; cut <= c.x.size(); ++cut) {
            qgraph::impl::min_max a = min_max_of({c.x.begin(), c.x.begin() + cut});
            a.merge(min_max_of({c.x.begin() + cut, c.x.end()}));
            const qgraph::impl::dql_params p = qgraph::impl::dynamic_qlinear_params(a);
            EXPECT_TRUE(same_bits(p.scale, whole.scale)) << c.why << " cut " << cut;
            EXPECT_EQ(p.zp, whole.zp) << c.why << " cut " << cut;
        }
    }
}

TEST(NumericsGolden, RneIsTiesToEven) {
    // rne(k + 0.5) is the even one of k, k+1.
    EXPECT_EQ(qgraph::impl::rne(0.5f), 0.f);
    EXPECT_EQ(qgraph::impl::rne(1.5f), 2.f);
    EXPECT_EQ(qgraph::impl::rne(2.5f), 2.f);
    EXPECT_EQ(qgraph::impl::rne(-2.5f), -2.f);
    EXPECT_EQ(qgraph::impl::rne(8388607.5f), 8388608.f); // 2^23 - 0.5: tie -> 2^23 (even)
    EXPECT_EQ(qgraph::impl::rne(-0.4f), 0.f);
}

} // namespace
