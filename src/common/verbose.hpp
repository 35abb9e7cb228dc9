#ifndef QGRAPH_COMMON_VERBOSE_HPP
#define QGRAPH_COMMON_VERBOSE_HPP

// QGRAPH_VERBOSE: 1 prints a line per compile and execute, 2 adds backend rejections.
// Lines go to stdout, like ONEDNN_VERBOSE, prefixed "qgraph_verbose,".

#include <chrono>
#include <string>

namespace qgraph {
namespace impl {

int verbose_level();
/// Prints "qgraph_verbose,<line>\n" atomically with respect to other verbose lines.
void verbose_print(const std::string &line);

/// Monotonic time in milliseconds.
inline double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

} // namespace impl
} // namespace qgraph

#endif
