#include "common/verbose.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#include "qgraph/config.hpp"

namespace qgraph {
namespace impl {
namespace {

int level_from_env() {
    const char *v = std::getenv("QGRAPH_VERBOSE");
    return v ? std::atoi(v) : 0;
}

std::atomic<int> &level() {
    static std::atomic<int> l {level_from_env()};
    return l;
}

} // namespace

int verbose_level() { return level().load(std::memory_order_relaxed); }

void verbose_print(const std::string &line) {
    static std::mutex m;
    std::lock_guard<std::mutex> lock(m);
    std::printf("qgraph_verbose,%s\n", line.c_str());
    std::fflush(stdout);
}

} // namespace impl

void set_verbose(int l) { impl::level().store(l < 0 ? 0 : l); }
int get_verbose() { return impl::verbose_level(); }

} // namespace qgraph
