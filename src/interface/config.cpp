#include "qgraph/config.hpp"

#include <mutex>

#include "backends/registry.hpp"
#include "common/config.hpp"
#include "common/cpu_isa.hpp"
#include "common/parallel.hpp"
#include "interface/compiled_partition_cache.hpp"
#include "interface/config.hpp"
#include "qgraph/error.hpp"

namespace qgraph {

std::vector<std::string> get_backend_names() {
    std::vector<std::string> names;
    for (const impl::backend *b : impl::backend_list()) names.emplace_back(b->name());
    return names;
}

namespace impl {
namespace {

std::string backend_names() {
    std::string s;
    for (const std::string &n : get_backend_names()) s += (s.empty() ? "" : ", ") + n;
    return s;
}

/// The backend choice (QGRAPH_BACKEND / set_backend). It lives here, not in src/common, so
/// that the environment value is checked against the backend list when it is first read.
struct backend_choice {
    std::mutex m;
    std::string name;
    backend_choice() {
        const char *v = env_value("QGRAPH_BACKEND");
        if (!v) return;
        if (find_backend(v))
            name = v;
        else
            env_warn_invalid("QGRAPH_BACKEND", v, "one of: " + backend_names(),
                    "the default (the best backend that accepts)");
    }
};

backend_choice &choice() {
    static backend_choice c;
    return c;
}

} // namespace

compile_settings current_compile_settings() {
    compile_settings s;
    {
        backend_choice &c = choice();
        std::lock_guard<std::mutex> lock(c.m);
        s.backend = c.name;
    }
    s.isa_cap = max_cpu_isa();
    return s;
}

} // namespace impl

void set_backend(const std::string &name) {
    if (!name.empty() && !impl::find_backend(name))
        throw error(status::invalid_arguments,
                "set_backend: unknown backend \"" + name + "\" (have: " + impl::backend_names()
                        + ")");
    impl::backend_choice &c = impl::choice();
    std::lock_guard<std::mutex> lock(c.m);
    c.name = name;
}

std::string get_backend() { return impl::current_compile_settings().backend; }

} // namespace qgraph

namespace qgraph {

void set_num_threads(int n) {
    if (n < 0)
        throw error(status::invalid_arguments,
                "set_num_threads: " + std::to_string(n) + " is negative (0 means the default)");
    impl::set_num_threads(n);
}

int get_num_threads() { return impl::num_threads(); }

void set_cpu_runtime(const std::string &name) {
    impl::cpu_runtime r;
    if (!impl::cpu_runtime_from_name(name, r))
        throw error(status::invalid_arguments,
                "set_cpu_runtime: unknown runtime \"" + name + "\" (have: tbb omp)");
    impl::set_cpu_runtime(r);
}

std::string get_cpu_runtime() { return impl::cpu_runtime_name(); }

void set_max_cpu_isa(const std::string &isa) {
    impl::cpu_isa_t cap;
    if (!impl::isa_from_name(isa, cap))
        throw error(status::invalid_arguments,
                "set_max_cpu_isa: unknown ISA \"" + isa + "\" (have: " + impl::isa_names()
                        + ")");
    impl::set_max_cpu_isa(cap);
}

std::string get_max_cpu_isa() { return impl::isa_name(impl::max_cpu_isa()); }

std::string get_effective_cpu_isa() {
    return impl::isa_name(impl::effective_cpu_isa(impl::max_cpu_isa()));
}

namespace {
std::vector<std::string> names_of(const std::vector<impl::cpu_isa_t> &levels) {
    std::vector<std::string> names;
    for (impl::cpu_isa_t isa : levels) names.emplace_back(impl::isa_name(isa));
    return names;
}
} // namespace

std::vector<std::string> get_cpu_isa_levels() { return names_of(impl::cpu_isa_levels()); }

std::vector<std::string> get_cpu_isa_kernel_levels() {
    return names_of(impl::kernel_isa_levels());
}

void set_compiled_partition_cache_capacity(int capacity) {
    if (capacity < 0)
        throw error(status::invalid_arguments,
                "set_compiled_partition_cache_capacity: " + std::to_string(capacity)
                        + " is negative (0 disables the cache)");
    impl::set_cache_capacity(capacity);
}

int get_compiled_partition_cache_capacity() { return impl::cache_capacity(); }
int get_compiled_partition_cache_size() { return impl::cache_size(); }

} // namespace qgraph
