#ifndef QGRAPH_CONFIG_HPP
#define QGRAPH_CONFIG_HPP

#include <string>
#include <vector>

#include "qgraph/export.hpp"

namespace qgraph {

/// Backends in priority order, best first ("dnnl", "ref").
QGRAPH_API std::vector<std::string> get_backend_names();

/// Forces one backend for every later compile ("" = pick the best that accepts). Initialised
/// from QGRAPH_BACKEND. Throws invalid_arguments for an unknown name.
QGRAPH_API void set_backend(const std::string &name);
QGRAPH_API std::string get_backend();

/// 0 silent, 1 a line per compile and execute, 2 adds why each backend was rejected.
/// Initialised from QGRAPH_VERBOSE.
QGRAPH_API void set_verbose(int level);
QGRAPH_API int get_verbose();

} // namespace qgraph

#endif
