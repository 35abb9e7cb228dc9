// qgraph::version(). The numbers come from the CMake project version (compile definitions on
// this file only); the git hash from git_hash.cpp, which the build regenerates and which is
// the only file that changes when only the commit does (src/CMakeLists.txt).

#include "qgraph/version.hpp"

#include "common/cpu_isa.hpp"
#include "common/parallel.hpp"

#if !defined(QGRAPH_VERSION_MAJOR) || !defined(QGRAPH_VERSION_MINOR) \
        || !defined(QGRAPH_VERSION_PATCH)
#error "src/CMakeLists.txt defines QGRAPH_VERSION_MAJOR/MINOR/PATCH for this file"
#endif

namespace qgraph {
namespace impl {
extern const char *const git_hash; // git_hash.cpp, generated
} // namespace impl

version_t version() {
    return {QGRAPH_VERSION_MAJOR, QGRAPH_VERSION_MINOR, QGRAPH_VERSION_PATCH, impl::git_hash,
            impl::cpu_runtime_name(), impl::isa_name(impl::effective_cpu_isa(impl::max_cpu_isa()))};
}

} // namespace qgraph
