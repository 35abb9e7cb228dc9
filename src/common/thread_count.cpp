#include "common/thread_count.hpp"

#include <algorithm>
#include <cmath>

namespace qgraph {
namespace impl {

int threads_for(int max_threads, int64_t bytes, const thread_cost &c) {
    if (max_threads <= 1 || bytes <= 0) return 1;
    // Going from n to n + 1 threads saves work / (n (n + 1)) and costs handoff_ns, so T falls
    // while n (n + 1) < work / handoff_ns: the optimum is the smallest n with
    // n (n + 1) >= ratio, n = ceil((sqrt(1 + 4 ratio) - 1) / 2), then fixed up against
    // rounding in the square root.
    const double ratio = static_cast<double>(bytes) * c.ns_per_byte / c.handoff_ns;
    if (ratio >= static_cast<double>(max_threads) * max_threads) return max_threads;
    auto worth_one_more = [ratio](double n) { return n * (n + 1) < ratio; };
    double n = std::max(1.0, std::ceil((std::sqrt(1.0 + 4.0 * ratio) - 1.0) / 2.0));
    while (n > 1 && !worth_one_more(n - 1)) n -= 1;
    while (worth_one_more(n)) n += 1;
    return static_cast<int>(std::min<double>(n, max_threads));
}

} // namespace impl
} // namespace qgraph
