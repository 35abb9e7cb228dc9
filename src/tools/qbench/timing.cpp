#include "tools/qbench/timing.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

namespace qgraph {
namespace qbench {

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

} // namespace

timing_stats summarize(std::vector<double> s) {
    timing_stats t;
    t.samples = s.size();
    if (s.empty()) return t;
    std::sort(s.begin(), s.end());
    t.min_ms = s.front();
    t.avg_ms = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
    const size_t n = s.size();
    t.median_ms = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    return t;
}

void measure(std::vector<contender> &cs, const timing_plan &plan) {
    const size_t n = cs.size();
    if (n == 0) return;
    std::vector<int64_t> batch(n, 1);
    // Calibrate: one run each (already warm from the correctness run) sets the batch size.
    for (size_t i = 0; i < n; ++i) {
        if (plan.flush) break; // cold: every run on its own
        const auto t0 = clock_type::now();
        cs[i].run();
        const double us = ms_since(t0) * 1e3;
        if (us < plan.min_sample_us)
            batch[i] = std::min<int64_t>(100000,
                    static_cast<int64_t>(std::ceil(plan.min_sample_us / std::max(us, 0.01))));
    }
    // Warm-up: two samples' worth each, untimed.
    for (size_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < 2 * batch[i]; ++k) cs[i].run();

    std::vector<std::vector<double>> samples(n);
    const auto start = clock_type::now();
    for (uint64_t round = 0;; ++round) {
        if (plan.fixed_rounds ? round >= plan.fixed_rounds
                              : (round >= plan.min_rounds && ms_since(start) >= plan.max_ms)
                        || round >= plan.max_rounds)
            break;
        for (size_t j = 0; j < n; ++j) {
            const size_t i = (j + round) % n; // a different contender goes first each round
            // Cold: the caches flushed. Warm: one untimed run first, so that no sample pays
            // for the cache lines the previous contender evicted (docs/performance.md,
            // "qbench's samples").
            if (plan.flush)
                plan.flush();
            else
                cs[i].run();
            const auto t0 = clock_type::now();
            for (int64_t k = 0; k < batch[i]; ++k) cs[i].run();
            samples[i].push_back(ms_since(t0) / static_cast<double>(batch[i]));
        }
    }
    for (size_t i = 0; i < n; ++i) {
        cs[i].stats = summarize(std::move(samples[i]));
        cs[i].stats.batch = batch[i];
    }
}

double median_us(const std::function<void()> &f, int reps, double budget_ms) {
    std::vector<double> s;
    const auto start = clock_type::now();
    for (int r = 0; r < reps; ++r) {
        if (r >= 3 && ms_since(start) > budget_ms) break;
        const auto t0 = clock_type::now();
        f();
        s.push_back(ms_since(t0) * 1e3);
    }
    return summarize(std::move(s)).median_ms;
}

} // namespace qbench
} // namespace qgraph
