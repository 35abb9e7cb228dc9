#ifndef QGRAPH_TOOLS_QBENCH_SWEEP_HPP
#define QGRAPH_TOOLS_QBENCH_SWEEP_HPP

// --sweep=MIN:MAX[:FACTOR]: the op shorthand timed on 1-D sources of MIN, MIN*FACTOR, ... up
// to MAX elements (FACTOR 4 by default), every backend of the list and the roofline at each
// size. Writes PREFIX.csv (one row per size and contender), PREFIX.gp (a gnuplot script: Gelem/s
// and GB/s against size, the L1/L2/L3 sizes marked) and, when gnuplot is installed,
// PREFIX.svg.

#include <ostream>
#include <string>
#include <vector>

#include "tools/qbench/batch.hpp"
#include "tools/qbench/cache_info.hpp"
#include "tools/qbench/report.hpp"

namespace qgraph {
namespace qbench {

/// The sizes a sweep runs.
std::vector<int64_t> sweep_sizes(int64_t lo, int64_t hi, int64_t factor);

/// Runs the sweep, printing each size's perf lines on `out`; the case result names the files
/// written (details) and fails if any size failed.
case_result run_sweep(const job &j, std::ostream &out);

struct sweep_point {
    int64_t elems;
    perf_result perf;
};

/// The CSV: "elements,bytes,backend,median_ms,gb_per_s,gelem_per_s" and a row per contender.
std::string sweep_csv(const std::vector<sweep_point> &points);
/// The gnuplot script that draws `csv_path` into `svg_path`.
std::string sweep_gnuplot(const std::vector<sweep_point> &points, const std::string &csv_path,
        const std::string &svg_path, const std::string &title, const cache_sizes &caches);

} // namespace qbench
} // namespace qgraph

#endif
