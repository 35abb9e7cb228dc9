#ifndef QGRAPH_BACKENDS_DNNL_DNNL_BACKEND_HPP
#define QGRAPH_BACKENDS_DNNL_DNNL_BACKEND_HPP

#include "backends/backend.hpp"

namespace qgraph {
namespace impl {

/// One oneDNN reorder with output scales and zero points, used only where it is bit-exact.
const backend &dnnl_backend();

} // namespace impl
} // namespace qgraph

#endif
