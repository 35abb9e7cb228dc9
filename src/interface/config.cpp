#include "qgraph/config.hpp"

#include "backends/registry.hpp"
#include "common/config.hpp"
#include "qgraph/error.hpp"

namespace qgraph {

std::vector<std::string> get_backend_names() {
    std::vector<std::string> names;
    for (const impl::backend *b : impl::backend_list()) names.emplace_back(b->name());
    return names;
}

void set_backend(const std::string &name) {
    if (!name.empty() && !impl::find_backend(name)) {
        std::string have;
        for (const std::string &n : get_backend_names()) have += " " + n;
        throw error(status::invalid_arguments,
                "set_backend: unknown backend \"" + name + "\" (have:" + have + ")");
    }
    impl::set_forced_backend(name);
}

std::string get_backend() { return impl::forced_backend(); }

} // namespace qgraph
