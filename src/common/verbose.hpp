#ifndef QGRAPH_COMMON_VERBOSE_HPP
#define QGRAPH_COMMON_VERBOSE_HPP

// QGRAPH_VERBOSE / set_verbose: 1 prints a line per compile and execute, 2 adds every backend
// rejection. Lines start "qgraph_verbose," like ONEDNN_VERBOSE's and go to stdout, or to the
// callback set by set_verbose_callback. Before the first line a sink receives, a header of
// "qgraph_verbose,info," lines says what is running (version, git hash, ISA, runtime, threads).

#include <chrono>
#include <string>

namespace qgraph {
namespace impl {

int verbose_level();
/// Sends "qgraph_verbose,<line>" to the sink, atomically with respect to other verbose lines
/// (and after the header when this sink has not had it yet).
void verbose_print(const std::string &line);

/// `s` with the characters that would break a verbose line's fields (',' and line breaks)
/// replaced by ';' and ' ', for user-given text such as op names.
std::string verbose_field(const std::string &s);

/// Monotonic time in milliseconds.
inline double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

} // namespace impl
} // namespace qgraph

#endif
