#ifndef QGRAPH_TOOLS_QBENCH_RUNNER_HPP
#define QGRAPH_TOOLS_QBENCH_RUNNER_HPP

// Running one case: load, build the graph, partition, compile, fill or read the inputs,
// execute the partitions in order, compare the graph outputs (docs/cli.md, "Correctness").

#include "tools/qbench/batch.hpp"
#include "tools/qbench/report.hpp"

namespace qgraph {
namespace qbench {

/// Runs `j` in its mode. Never throws for anything the case or the library does: every
/// error becomes a state with a reason.
case_result run_case(const job &j);

/// --mode=C:
/// - the file does not load, or the graph rejects it (an invalid_* status): INVALID_ARGUMENTS;
/// - a partition is unsupported, or compile says unimplemented: UNIMPLEMENTED;
/// - engine_kind is not cpu: SKIPPED;
/// - a case with "data": inputs from data.inputs, run once on the chosen backend, each output
///   in data.expected compared bit for bit (outputs without expected values are compared with
///   a run on the ref backend);
/// - a case without data: inputs filled (fill.hpp), run on the ref backend and on the chosen
///   one, every graph output compared bit for bit;
/// - also FAILED: an input buffer changed, an output written outside its elements, a forced
///   backend that did not compile the partition, an execute error.
case_result run_correctness(const job &j);

/// --mode=P (docs/cli.md, "Performance mode"): the same load and partition checks; inputs
/// filled once; every backend of the list compiled (a rejection is noted, not a failure), run
/// once and compared with a ref run (a mismatch is FAILED, except for the onednn baseline,
/// whose mismatches are noted as "inexact"); compile and cache-hit times measured; then
/// execute timed, interleaved with the roofline loop. The results are in case_result::perf.
case_result run_performance(const job &j);

} // namespace qbench
} // namespace qgraph

#endif
