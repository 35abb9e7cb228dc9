#include "tools/qbench/report.hpp"

#include <cstdio>

namespace qgraph {
namespace qbench {

const char *to_string(state s) {
    switch (s) {
        case state::passed: return "PASSED";
        case state::failed: return "FAILED";
        case state::skipped: return "SKIPPED";
        case state::unimplemented: return "UNIMPLEMENTED";
        case state::invalid_arguments: return "INVALID_ARGUMENTS";
    }
    return "?";
}

void summary::add(state s) {
    ++tests;
    switch (s) {
        case state::passed: ++passed; break;
        case state::failed: ++failed; break;
        case state::skipped: ++skipped; break;
        case state::unimplemented: ++unimplemented; break;
        case state::invalid_arguments: ++invalid_arguments; break;
    }
}

int summary::exit_code() const {
    return failed != 0 || invalid_arguments != 0 ? exit_failed : exit_ok;
}

std::string format_case(size_t index, const case_result &r, const std::string &repro) {
    char head[64];
    std::snprintf(head, sizeof(head), "%zu:%s (%.2f ms) __REPRO: ", index, to_string(r.state),
            r.ms);
    std::string s = head + repro + "\n";
    if (r.state != state::passed)
        for (size_t i = 0; i < r.reasons.size(); ++i)
            s += (i == 0 ? "    reason: " : "    ") + r.reasons[i] + "\n";
    for (const auto &d : r.details) s += "    " + d + "\n";
    return s;
}

std::string format_summary(const summary &s) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
            "tests:%zu passed:%zu skipped:%zu mistrusted:%zu unimplemented:%zu "
            "invalid_arguments:%zu failed:%zu listed:%zu\n",
            s.tests, s.passed, s.skipped, s.mistrusted, s.unimplemented, s.invalid_arguments,
            s.failed, s.listed);
    return buf;
}

} // namespace qbench
} // namespace qgraph
