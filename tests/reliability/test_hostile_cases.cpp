// The hostile-input matrix (hostile_cases.cpp) through the whole in-process pipeline (parse,
// build, partition, compile, execute when small): each case ends with the qgraph::error it
// is listed with (status and message fragment), a single-line message of bounded length,
// and nothing else: no crash, no other exception type, no sanitizer report.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>

#include "common/case_pipeline.hpp"
#include "reliability/hostile_cases.hpp"

namespace {

using qrel::hostile_case;

// Long enough for any message that names a few ops and shapes; short enough to read.
constexpr size_t kMaxMessage = 4096;

TEST(HostileCases, TableIsLargeAndWellFormed) {
    const std::vector<hostile_case> cases = qrel::hostile_cases();
    EXPECT_GE(cases.size(), 60u);
    std::set<std::string> names;
    for (const hostile_case &c : cases) {
        EXPECT_TRUE(names.insert(c.name).second) << "duplicate name " << c.name;
        if (c.status == qgraph::status::success)
            EXPECT_FALSE(c.qbench_reason.empty()) << c.name << ": qbench must still fail";
        else
            EXPECT_FALSE(c.fragment.empty()) << c.name;
        // qbench reports unimplemented as a non-failure; every hostile file must fail.
        EXPECT_NE(c.status, qgraph::status::unimplemented) << c.name;
    }
}

TEST(HostileCases, BaseCaseRuns) {
    const qtest::pipeline_report r = qtest::run_case_pipeline(qrel::base_text(), "base.json");
    EXPECT_EQ(r.partitions, 1u);
    EXPECT_EQ(r.executed, 1u);
}

class Hostile : public ::testing::TestWithParam<hostile_case> {};

TEST_P(Hostile, FailsWithTheListedError) {
    const hostile_case &c = GetParam();
    const auto t0 = std::chrono::steady_clock::now();
    const std::string text = c.text();
    if (c.name != "empty_file") {
        ASSERT_FALSE(text.empty());
    }
    EXPECT_NE(text, qrel::base_text()) << "the mutation changed nothing";

    qgraph::status got = qgraph::status::success;
    std::string message;
    qtest::pipeline_report r;
    try {
        r = qtest::run_case_pipeline(text, c.name + ".json");
    } catch (const qgraph::error &e) {
        got = e.status();
        message = e.what();
    } catch (const std::exception &e) {
        FAIL() << "not a qgraph::error: " << typeid(e).name() << ": " << e.what();
    }
    const double secs
            = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (c.big) std::printf("%s: %zu bytes, %.2f s\n", c.name.c_str(), text.size(), secs);

    EXPECT_EQ(got, c.status) << "status " << qgraph::to_string(got) << ", expected "
                             << qgraph::to_string(c.status) << "; message: "
                             << message.substr(0, 500);
    if (c.status == qgraph::status::success) {
        // Accepted but too large to run: compile must not have allocated it.
        EXPECT_EQ(r.skipped_large, 1u);
        return;
    }
    EXPECT_NE(message.find(c.fragment), std::string::npos)
            << "message: " << message.substr(0, 1000) << "\nexpected fragment: " << c.fragment;
    EXPECT_EQ(message.find('\n'), std::string::npos) << "message spans lines";
    // Hostile bytes must not reach a terminal through the message.
    size_t controls = 0;
    for (unsigned char ch : message) controls += ch < 0x20 || ch == 0x7F;
    EXPECT_EQ(controls, 0u) << "control characters in: " << message.substr(0, 300);
    // The source name leads every loader message; graph messages name the op.
    const bool bounded = message.size() <= kMaxMessage;
    if (!c.known_bug.empty()) {
        if (!bounded) GTEST_SKIP() << "known library bug: " << c.known_bug;
        FAIL() << "the known bug '" << c.known_bug << "' no longer shows: remove the mark";
    }
    EXPECT_TRUE(bounded) << message.size() << " characters: " << message.substr(0, 300)
                         << "...";
}

std::string case_name(const ::testing::TestParamInfo<hostile_case> &info) {
    return info.param.name;
}

INSTANTIATE_TEST_SUITE_P(Matrix, Hostile, ::testing::ValuesIn(qrel::hostile_cases()), case_name);

} // namespace
