#ifndef QGRAPH_BACKENDS_REGISTRY_HPP
#define QGRAPH_BACKENDS_REGISTRY_HPP

#include <memory>
#include <string>
#include <vector>

#include "backends/backend.hpp"

namespace qgraph {
namespace impl {

/// All backends, best first; the reference backend is last.
const std::vector<const backend *> &backend_list();

/// nullptr for an unknown name.
const backend *find_backend(const std::string &name);

/// Why one backend rejected a problem.
struct rejection {
    std::string backend;
    std::string reason;
};

/// The first backend in `candidates` (best first) that accepts `prb`; each rejection is
/// appended to `rejected`. Returns nullptr if none accepts.
std::unique_ptr<kernel> select_kernel(const quant_problem &prb,
        const std::vector<const backend *> &candidates, std::vector<rejection> &rejected);

} // namespace impl
} // namespace qgraph

#endif
