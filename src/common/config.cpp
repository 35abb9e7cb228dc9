// The backend override (QGRAPH_BACKEND / set_backend). The list of valid names lives with the
// backends; this layer only stores the choice.

#include "common/config.hpp"

#include <cstdlib>
#include <mutex>

namespace qgraph {
namespace impl {
namespace {

struct backend_choice {
    std::mutex m;
    std::string name;
    backend_choice() {
        const char *v = std::getenv("QGRAPH_BACKEND");
        if (v) name = v;
    }
};

backend_choice &choice() {
    static backend_choice c;
    return c;
}

} // namespace

std::string forced_backend() {
    backend_choice &c = choice();
    std::lock_guard<std::mutex> lock(c.m);
    return c.name;
}

void set_forced_backend(const std::string &name) {
    backend_choice &c = choice();
    std::lock_guard<std::mutex> lock(c.m);
    c.name = name;
}

} // namespace impl
} // namespace qgraph
