#ifndef QGRAPH_TOOLS_QBENCH_PROGRESS_HPP
#define QGRAPH_TOOLS_QBENCH_PROGRESS_HPP

// The progress line of long runs: "[12/240] Quantize f32:u8 per_channel 1x64x56x56 ...",
// rewritten in place on stderr, and only when stderr is a terminal (a log file or a pipe gets
// nothing, so output stays diffable).

#include <cstddef>
#include <ostream>
#include <string>

namespace qgraph {
namespace qbench {

/// "\r[12/240] TITLE ...\033[K": carriage return, text, clear to the end of the line.
std::string progress_line(size_t done, size_t total, const std::string &title);
/// Clears the line again.
std::string progress_clear();

/// Whether the process's stderr is a terminal.
bool stderr_is_terminal();

} // namespace qbench
} // namespace qgraph

#endif
