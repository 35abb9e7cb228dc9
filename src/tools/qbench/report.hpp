#ifndef QGRAPH_TOOLS_QBENCH_REPORT_HPP
#define QGRAPH_TOOLS_QBENCH_REPORT_HPP

// What qbench prints: a line per case, its reasons, and the benchdnn summary line.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tools/qbench/timing.hpp"

namespace qgraph {
namespace qbench {

/// benchdnn's case states (MISTRUSTED and LISTED are counted in the summary for benchdnn
/// compatibility; qbench does not produce them yet).
enum class state { passed, failed, skipped, unimplemented, invalid_arguments };

const char *to_string(state s);

/// One contender of a --mode=P problem: a backend of the list, or the roofline loop.
struct perf_entry {
    std::string backend; ///< as asked: "auto", "dnnl", "onednn"; "roofline" for the loop
    std::string chosen; ///< the backend(s) that compiled the partitions ("dnnl", "dnnl+ref")
    std::string kernel;
    bool ran = false; ///< false: rejected or wrong; `note` says why
    std::string note; ///< "unimplemented: ...", "inexact: 3 of 64 elements differ from ref"
    timing_stats t;
    double compile_us = -1, cache_hit_us = -1; ///< medians; -1 when not measured
};

struct perf_result {
    std::string problem; ///< problem_args(job)
    double bytes = 0; ///< read + written by one execution
    double elems = 0;
    std::vector<perf_entry> entries; ///< the backends in list order, then the roofline
    bool empty() const { return entries.empty(); }
    /// The roofline entry, or nullptr.
    const perf_entry *roofline() const;
};

struct case_result {
    qbench::state state = state::passed;
    double ms = 0; ///< wall time of the whole case (load, compile, fill, run, compare)
    /// For a non-passing case: why, first line first ("reason: " is added when printed).
    std::vector<std::string> reasons;
    /// --verbose=1 lines (backend and kernel per partition).
    std::vector<std::string> details;
    perf_result perf; ///< --mode=P only
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

/// --mode=P's lines for one problem (each ending with '\n'):
///   perf,cpu,PROBLEM,MIN_MS,AVG_MS,MEDIAN_MS,GB/s,Gelem/s,ROOFLINE%,BACKEND,KERNEL
///   compile,cpu,PROBLEM,BACKEND,FRESH_US,CACHE_HIT_US
///   "    BACKEND: NOTE" for a backend with a note
///   ratio,cpu,PROBLEM,NAME=MEDIAN/FIRST_MEDIAN,...
std::string format_perf_text(const perf_result &p);
/// When a run has the same problem at two thread counts (--threads=1,2), how each contender
/// scaled, the roofline loop included, so that a speed-up is read beside the machine's own:
///   scaling,cpu,PROBLEM,threads=T0->T1,NAME=MEDIAN_T0/MEDIAN_T1,...
/// `problem` is without the --threads knob; contenders missing from either run are left out.
std::string format_scaling(const std::string &problem, int threads0, const perf_result &at0,
        int threads1, const perf_result &at1);
/// The CSV header line and one row per contender of a problem.
std::string perf_csv_header();
std::string format_perf_csv(const perf_result &p);
/// A short table of a whole --mode=P run, one row per problem: each contender's median time
/// and its ratio to the first backend's ("0.0123 1.00x"), "-" where it did not run.
std::string format_perf_table(const std::vector<std::pair<std::string, perf_result>> &rows);
/// "auto:dnnl" for an automatic choice, else the name.
std::string entry_backend(const perf_entry &e);

/// "tests:N passed:N skipped:N mistrusted:N unimplemented:N invalid_arguments:N failed:N
/// listed:N" and '\n'.
std::string format_summary(const summary &s);

} // namespace qbench
} // namespace qgraph

#endif
