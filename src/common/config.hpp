#ifndef QGRAPH_COMMON_CONFIG_HPP
#define QGRAPH_COMMON_CONFIG_HPP

#include <string>

namespace qgraph {
namespace impl {

/// The backend every compile must use ("" = the best that accepts). Starts as QGRAPH_BACKEND;
/// validated by whoever reads it against the backend list.
std::string forced_backend();
void set_forced_backend(const std::string &name);

} // namespace impl
} // namespace qgraph

#endif
