#ifndef QGRAPH_TOOLS_QBENCH_TIMING_HPP
#define QGRAPH_TOOLS_QBENCH_TIMING_HPP

// How --mode=P measures: every contender (each backend and the roofline) is timed in the same
// loop, one sample each per round, with the order rotated every round, so that noise (another
// process, frequency changes) hits all of them alike and ratios stay stable. A sample is the
// steady_clock time of `batch` back-to-back runs divided by `batch`, after one untimed run
// that brings the contender's own data back into the caches: small problems run in batches of
// at least ~20 us so that the clock's own cost and resolution do not count; --cold-cache
// flushes the caches before every sample instead (untimed) and uses batches of 1.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qgraph {
namespace qbench {

struct timing_stats {
    double min_ms = 0, avg_ms = 0, median_ms = 0;
    size_t samples = 0;
    int64_t batch = 1; ///< runs per sample
};

/// Statistics of samples in ms (min, mean, median: the mean of the two middle values for an
/// even count). Empty input gives zeros.
timing_stats summarize(std::vector<double> samples_ms);

struct contender {
    std::string name;
    std::function<void()> run;
    timing_stats stats; ///< the result
};

struct timing_plan {
    double max_ms = 200; ///< stop after this much wall time of timed rounds ...
    uint64_t fixed_rounds = 0; ///< ... or after exactly this many rounds when nonzero
    uint64_t min_rounds = 5;
    uint64_t max_rounds = 1000000;
    double min_sample_us = 20; ///< batch small runs up to this
    std::function<void()> flush; ///< set for --cold-cache: before every sample
};

/// Warms every contender up (a few batches), then runs rounds until the plan says stop and
/// fills each contender's stats.
void measure(std::vector<contender> &cs, const timing_plan &plan);

/// Median of `reps` timings of f() in microseconds, stopping early after `budget_ms`
/// (at least 3 timings).
double median_us(const std::function<void()> &f, int reps, double budget_ms);

} // namespace qbench
} // namespace qgraph

#endif
