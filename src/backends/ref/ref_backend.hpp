#ifndef QGRAPH_BACKENDS_REF_REF_BACKEND_HPP
#define QGRAPH_BACKENDS_REF_REF_BACKEND_HPP

#include "backends/backend.hpp"

namespace qgraph {
namespace impl {

/// Scalar reference: every problem, exactly NUMERICS.md. The oracle and the last resort.
const backend &ref_backend();

} // namespace impl
} // namespace qgraph

#endif
