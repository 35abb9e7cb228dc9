#ifndef QGRAPH_TOOLS_QBENCH_CASE_STOP_HPP
#define QGRAPH_TOOLS_QBENCH_CASE_STOP_HPP

// What both runners (correctness and performance) share: ending a case early with a state,
// mapping library errors to states, and loading a job's case (file or op shorthand, with the
// --in-shapes / --op-attrs overrides applied) up to its checked partitions.

#include <string>
#include <utility>
#include <vector>

#include "qgraph/qgraph.hpp"
#include "tools/case/case_io.hpp"
#include "tools/qbench/batch.hpp"
#include "tools/qbench/report.hpp"

namespace qgraph {
namespace qbench {

/// Ends a case early with a state; thrown and caught inside the runners only.
struct case_stop {
    state s;
    std::vector<std::string> reasons;
};

[[noreturn]] inline void stop(state s, std::string reason) {
    throw case_stop {s, {std::move(reason)}};
}

/// invalid_* statuses: INVALID_ARGUMENTS; unimplemented: UNIMPLEMENTED; the rest: FAILED.
state state_of(status st);

/// Runs `f`; a qgraph::error becomes a stop with the state of its status and the reason
/// "<what>: <status>: <message>".
template <typename F>
auto in_phase(const std::string &what, F &&f) -> decltype(f()) {
    try {
        return f();
    } catch (const error &e) {
        stop(state_of(e.status()), what + ": " + to_string(e.status()) + ": " + e.what());
    }
}

/// "partition 0 (Quantize)".
std::string describe_partition(size_t index, const partition &p);

/// The job's case: the file (or the op shorthand's one-op case) with the overrides applied.
/// Stops with INVALID_ARGUMENTS when it does not load, SKIPPED for a non-cpu engine.
tools::graph_case load_job_case(const job &j);

/// Builds the graph and partitions it; stops with INVALID_ARGUMENTS / UNIMPLEMENTED as the
/// library says, INVALID_ARGUMENTS for a tensor whose size does not fit int64 bytes,
/// UNIMPLEMENTED for an unsupported partition, FAILED when --expected-n-partitions does not
/// match.
/// `policy`: "fusion" or "debug" (knobs::policies).
std::vector<partition> checked_partitions(
        const tools::graph_case &c, const knobs &k, const std::string &policy);

/// Sets the library's thread count for one job and puts the old one back afterwards.
class thread_scope {
public:
    explicit thread_scope(int threads);
    ~thread_scope();

private:
    int before_;
    bool changed_;
};

/// Runs one job's case, body(result), with the job's thread count and verbosity, and turns
/// a stop or any exception into the result's state and reasons; times the whole of it.
/// Never throws.
case_result run_guarded(const job &j, void (*body)(const job &, case_result &));

} // namespace qbench
} // namespace qgraph

#endif
