#ifndef QGRAPH_TOOLS_QBENCH_DRIVER_HPP
#define QGRAPH_TOOLS_QBENCH_DRIVER_HPP

// qbench's main(), callable in-process: reads the arguments, runs every case, prints the case
// lines and the summary on `out`, usage errors on `err`, and returns the exit status
// (report.hpp: exit_ok, exit_failed, exit_usage). With --perf-template=csv, `out` gets only
// the CSV and the case lines and summary go to `err`.

#include <ostream>
#include <string>
#include <vector>

namespace qgraph {
namespace qbench {

/// `args` without the program name. `progress`: write a progress line per case to `err`
/// (main() passes whether stderr is a terminal).
int qbench_main(const std::vector<std::string> &args, std::ostream &out, std::ostream &err,
        bool progress = false);

} // namespace qbench
} // namespace qgraph

#endif
