// The case line, the summary line and the exit status.

#include <gtest/gtest.h>

#include "tools/qbench/report.hpp"

namespace qgraph {
namespace qbench {
namespace {

TEST(QbenchReport, SummaryCountsEveryState) {
    summary s;
    for (state st : {state::passed, state::passed, state::skipped, state::unimplemented,
                 state::unimplemented, state::unimplemented, state::invalid_arguments,
                 state::failed, state::failed})
        s.add(st);
    EXPECT_EQ(format_summary(s),
            "tests:9 passed:2 skipped:1 mistrusted:0 unimplemented:3 invalid_arguments:1 "
            "failed:2 listed:0\n");
}

TEST(QbenchReport, ExitStatusFailsOnFailedOrInvalidArguments) {
    summary s;
    EXPECT_EQ(s.exit_code(), exit_ok);
    s.add(state::passed);
    s.add(state::skipped);
    s.add(state::unimplemented);
    EXPECT_EQ(s.exit_code(), exit_ok);
    summary f = s;
    f.add(state::failed);
    EXPECT_EQ(f.exit_code(), exit_failed);
    summary i = s;
    i.add(state::invalid_arguments);
    EXPECT_EQ(i.exit_code(), exit_failed);
    EXPECT_NE(exit_usage, exit_failed);
}

TEST(QbenchReport, CaseLineThenReasons) {
    case_result r;
    r.ms = 1.234;
    EXPECT_EQ(format_case(0, r, "--mode=C --backend=auto --case=a.json"),
            "0:PASSED (1.23 ms) __REPRO: --mode=C --backend=auto --case=a.json\n");
    r.state = state::unimplemented;
    r.reasons = {"partition 0 (Reorder) is not supported: no", "second"};
    r.details = {"ref run: partition 0"};
    EXPECT_EQ(format_case(12, r, "--case=b.json"),
            "12:UNIMPLEMENTED (1.23 ms) __REPRO: --case=b.json\n"
            "    reason: partition 0 (Reorder) is not supported: no\n"
            "    second\n"
            "    ref run: partition 0\n");
    EXPECT_STREQ(to_string(state::invalid_arguments), "INVALID_ARGUMENTS");
    EXPECT_STREQ(to_string(state::skipped), "SKIPPED");
    EXPECT_STREQ(to_string(state::failed), "FAILED");
}

} // namespace
} // namespace qbench
} // namespace qgraph
