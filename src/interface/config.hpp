#ifndef QGRAPH_INTERFACE_CONFIG_HPP
#define QGRAPH_INTERFACE_CONFIG_HPP

// The settings a compile depends on. A compile reads them once, into one snapshot that it
// uses for both its cache key and its dispatch: reading a global again half-way through would
// let another thread's set_backend / set_max_cpu_isa put a kernel in the cache under a key
// that does not describe it.

#include <string>

#include "common/cpu_isa.hpp"

namespace qgraph {
namespace impl {

struct compile_settings {
    std::string backend; ///< the forced backend; "" = the best that accepts
    cpu_isa_t isa_cap = isa_all;
};

compile_settings current_compile_settings();

} // namespace impl
} // namespace qgraph

#endif
