#include "common/thread_count.hpp"

#include <algorithm>
#include <cmath>

namespace qgraph {
namespace impl {

double modelled_ns(int n, int64_t bytes, const thread_cost &c) {
    const double work = static_cast<double>(bytes) * c.ns_per_byte;
    if (n <= 1) return work;
    return work / n + c.fixed_ns + c.per_doubling_ns * std::log2(static_cast<double>(n));
}

int threads_for(int max_threads, int64_t bytes, const thread_cost &c) {
    if (max_threads <= 1 || bytes <= 0) return 1;
    // For n >= 2, T falls while n < W ln2 / per_doubling_ns and rises after it, so the best
    // count of at least 2 is one of the two integers around that point (clamped to
    // [2, max_threads]); the answer is that or 1, whichever T says, the smaller on a tie.
    const double work = static_cast<double>(bytes) * c.ns_per_byte;
    const double turn = work * std::log(2.0) / c.per_doubling_ns;
    const double hi = std::min<double>(max_threads, std::max(2.0, std::ceil(turn)));
    const double lo = std::min<double>(max_threads, std::max(2.0, std::floor(turn)));
    int best = 1;
    for (int n : {static_cast<int>(lo), static_cast<int>(hi)})
        if (modelled_ns(n, bytes, c) < modelled_ns(best, bytes, c)) best = n;
    return best;
}

} // namespace impl
} // namespace qgraph
