#ifndef QGRAPH_VERSION_HPP
#define QGRAPH_VERSION_HPP

#include "qgraph/export.hpp"

namespace qgraph {

/// What this build of qgraph is and what it runs on, like oneDNN's dnnl_version(). The
/// strings are static (never freed).
struct version_t {
    int major;
    int minor;
    int patch;
    /// The git commit the library was built from (short hash), "unknown" outside a git
    /// checkout.
    const char *hash;
    /// The CPU threading runtime ("tbb").
    const char *cpu_runtime;
    /// The ISA JIT kernels are generated for now: get_effective_cpu_isa() at the time of the
    /// call (it follows set_max_cpu_isa).
    const char *cpu_isa;
};

QGRAPH_API version_t version();

} // namespace qgraph

#endif
