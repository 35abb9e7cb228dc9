#ifndef QGRAPH_TOOLS_QBENCH_DRIVER_HPP
#define QGRAPH_TOOLS_QBENCH_DRIVER_HPP

// qbench's main(), callable in-process: reads the arguments, runs every case, prints the case
// lines and the summary on `out`, usage errors on `err`, and returns the exit status
// (report.hpp: exit_ok, exit_failed, exit_usage).

#include <ostream>
#include <string>
#include <vector>

namespace qgraph {
namespace qbench {

/// `args` without the program name.
int qbench_main(const std::vector<std::string> &args, std::ostream &out, std::ostream &err);

} // namespace qbench
} // namespace qgraph

#endif
