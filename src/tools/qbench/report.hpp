#ifndef QGRAPH_TOOLS_QBENCH_REPORT_HPP
#define QGRAPH_TOOLS_QBENCH_REPORT_HPP

// What qbench prints: a line per case, its reasons, and the benchdnn summary line.

#include <cstddef>
#include <string>
#include <vector>

namespace qgraph {
namespace qbench {

/// benchdnn's case states (MISTRUSTED and LISTED are counted in the summary for benchdnn
/// compatibility; qbench does not produce them yet).
enum class state { passed, failed, skipped, unimplemented, invalid_arguments };

const char *to_string(state s);

struct case_result {
    qbench::state state = state::passed;
    double ms = 0; ///< wall time of the whole case (load, compile, fill, run, compare)
    /// For a non-passing case: why, first line first ("reason: " is added when printed).
    std::vector<std::string> reasons;
    /// --verbose=1 lines (backend and kernel per partition).
    std::vector<std::string> details;
};

struct summary {
    size_t tests = 0, passed = 0, skipped = 0, mistrusted = 0, unimplemented = 0,
           invalid_arguments = 0, failed = 0, listed = 0;

    void add(state s);
    /// 0 unless a case FAILED or had INVALID_ARGUMENTS (then exit_failed).
    int exit_code() const;
};

constexpr int exit_ok = 0;
constexpr int exit_failed = 1; ///< some case FAILED or had INVALID_ARGUMENTS
constexpr int exit_usage = 2; ///< bad command line or batch file; nothing ran

/// "3:FAILED (1.25 ms) __REPRO: --mode=C --backend=auto --case=x.json" then, for a
/// non-passing case, "    reason: <first reason>" and "    <further reasons>", then the
/// details; every line ends with '\n'.
std::string format_case(size_t index, const case_result &r, const std::string &repro);

/// "tests:N passed:N skipped:N mistrusted:N unimplemented:N invalid_arguments:N failed:N
/// listed:N" and '\n'.
std::string format_summary(const summary &s);

} // namespace qbench
} // namespace qgraph

#endif
