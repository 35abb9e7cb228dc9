// Bit-exact comparison and its mismatch report.

#include <gtest/gtest.h>

#include "tools/qbench/compare.hpp"

namespace qgraph {
namespace qbench {
namespace {

TEST(QbenchCompare, NanMatchesAnyNanButZerosDifferBySign) {
    EXPECT_TRUE(same_bits(data_type::f32, 0x7fc00000, 0xffc00001)); // two NaNs
    EXPECT_FALSE(same_bits(data_type::f32, 0x00000000, 0x80000000)); // +0 vs -0
    EXPECT_FALSE(same_bits(data_type::f32, 0x7f800000, 0x7fc00000)); // Inf vs NaN
    EXPECT_TRUE(same_bits(data_type::f16, 0x7e00, 0x7c01));
    EXPECT_TRUE(same_bits(data_type::f8_e4m3, 0x7f, 0xff));
    EXPECT_FALSE(same_bits(data_type::u8, 0xff, 0x7f));
    EXPECT_FALSE(same_bits(data_type::f8_e4m3, 0x7e, 0x7f)); // 448 vs NaN
}

TEST(QbenchCompare, CountsEveryMismatchAndKeepsTheFirstFew) {
    std::vector<uint64_t> got(100, 7), want(100, 7);
    for (size_t i = 10; i < 40; ++i) want[i] = 8;
    const compare_result r = compare_bits(data_type::u8, got, want, 5);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.total, 100);
    EXPECT_EQ(r.mismatches, 30);
    ASSERT_EQ(r.first.size(), 5u);
    EXPECT_EQ(r.first[0].index, 10);
    EXPECT_EQ(r.first[4].index, 14);
    EXPECT_TRUE(compare_bits(data_type::u8, got, got).ok());
}

TEST(QbenchCompare, ReportNamesIndicesValuesAndBits) {
    const logical_tensor lt(3, data_type::f32, {2, 3}, logical_tensor::layout_type::strided);
    std::vector<uint64_t> got = {0x3f800000, 0x3fc00000, 0x00000000, 0, 0, 0};
    std::vector<uint64_t> want = {0x3f800000, 0x3fa00000, 0x80000000, 0, 0, 0};
    const auto lines = describe_mismatches(compare_bits(data_type::f32, got, want, 1), lt,
            "expected");
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0], "output 3 (f32 2x3): 2 of 6 elements differ from expected");
    EXPECT_EQ(lines[1],
            "mismatch: output 3 [1] (0,1): got 1.5 (0x3fc00000), expected 1.25 (0x3fa00000)");
    EXPECT_EQ(lines[2], "mismatch: output 3: 1 more not shown");
}

TEST(QbenchCompare, ReportForIntegersAndScalars) {
    const logical_tensor lt(7, data_type::s8, std::vector<int64_t> {},
            logical_tensor::layout_type::strided);
    const auto lines = describe_mismatches(
            compare_bits(data_type::s8, {0x80}, {0x7f}), lt, "ref");
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "output 7 (s8 scalar): 1 of 1 elements differ from ref");
    EXPECT_EQ(lines[1], "mismatch: output 7 [0] (): got -128, ref 127");
}

} // namespace
} // namespace qbench
} // namespace qgraph
