#include "tools/qbench/sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>

#include "qgraph/config.hpp"
#include "tools/qbench/runner.hpp"

namespace qgraph {
namespace qbench {

namespace {

std::string fmt(const char *f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), f, v);
    return buf;
}

bool write_file(const std::string &path, const std::string &text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    return static_cast<bool>(f);
}

std::string human_bytes(size_t b) {
    if (b >= (size_t(1) << 20) && b % (size_t(1) << 20) == 0)
        return std::to_string(b >> 20) + " MiB";
    return std::to_string(b >> 10) + " KiB";
}

/// A gnuplot string: single quotes, a quote inside doubled (paths are the user's).
std::string gp_quote(const std::string &text) {
    std::string s = "'";
    for (char ch : text) s += ch == '\'' ? std::string("''") : std::string(1, ch);
    return s + "'";
}

/// A shell word: single quotes, a quote inside written as '\''.
std::string sh_quote(const std::string &text) {
    std::string s = "'";
    for (char ch : text) s += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return s + "'";
}

} // namespace

std::vector<int64_t> sweep_sizes(int64_t lo, int64_t hi, int64_t factor) {
    std::vector<int64_t> sizes;
    if (factor < 2) factor = 2;
    for (int64_t n = lo; n <= hi; n *= factor) {
        sizes.push_back(n);
        if (n > hi / factor) break;
    }
    return sizes;
}

std::string sweep_csv(const std::vector<sweep_point> &points) {
    std::string s = "elements,bytes,backend,median_ms,gb_per_s,gelem_per_s\n";
    for (const auto &pt : points)
        for (const auto &e : pt.perf.entries) {
            if (!e.ran || e.t.median_ms <= 0) continue;
            const double sec = e.t.median_ms * 1e-3;
            s += std::to_string(pt.elems) + "," + fmt("%.0f", pt.perf.bytes) + ","
                    + entry_backend(e) + "," + fmt("%.6g", e.t.median_ms) + ","
                    + fmt("%.4f", pt.perf.bytes / sec / 1e9) + ","
                    + fmt("%.4f", pt.perf.elems / sec / 1e9) + "\n";
        }
    return s;
}

std::string sweep_gnuplot(const std::vector<sweep_point> &points, const std::string &csv_path,
        const std::string &svg_path, const std::string &title, const cache_sizes &caches) {
    std::vector<std::string> names;
    std::set<std::string> seen;
    double bytes_per_elem = 0;
    int64_t lo = 0, hi = 0;
    for (const auto &pt : points) {
        if (bytes_per_elem == 0 && pt.perf.elems > 0)
            bytes_per_elem = pt.perf.bytes / pt.perf.elems;
        lo = lo == 0 ? pt.elems : std::min(lo, pt.elems);
        hi = std::max(hi, pt.elems);
        for (const auto &e : pt.perf.entries)
            if (e.ran && seen.insert(entry_backend(e)).second) names.push_back(entry_backend(e));
    }
    std::string s;
    s += "# qbench --sweep: Gelem/s and GB/s against the element count (log scale).\n";
    s += "# Dashed lines: where the working set (bytes read + written) fills L1d, L2, L3.\n";
    // noenhanced: titles and names are plain text ("per_tensor" is no subscript).
    s += "set terminal svg size 1000,820 dynamic noenhanced font 'sans,11' background rgb "
         "'white'\n";
    s += "set output " + gp_quote(svg_path) + "\n";
    s += "set datafile separator ','\n";
    // Each contender's rows are picked out of the CSV by turning the others' into NaN; as
    // missing data they are skipped and the line joins the contender's points (1/0 or a
    // NaN that is not "missing" would break the line at every other row).
    s += "set datafile missing NaN\n";
    s += "set logscale x 2\n";
    // The swept sizes exactly, so that the cache marks below fall inside the plot.
    if (lo > 0) s += "set xrange [" + std::to_string(lo) + ":" + std::to_string(hi) + "]\n";
    s += "set grid\n";
    s += "set key outside right top\n";
    s += "set format x '%.0s%c'\n";
    s += "set xlabel 'elements (source tensor)'\n";
    const struct {
        const char *name;
        size_t bytes;
    } levels[] = {{"L1d", caches.l1d}, {"L2", caches.l2}, {"L3", caches.l3}};
    if (bytes_per_elem > 0 && lo > 0)
        for (const auto &lv : levels) {
            const double at = static_cast<double>(lv.bytes) / bytes_per_elem;
            // A cache level the sweep does not reach is not marked: its label would sit
            // outside the plot.
            if (lv.bytes == 0 || at <= lo || at >= hi) continue;
            // In the right half (log scale) the label goes left of its line, so that it ends
            // before the plot's right edge.
            const bool right_half = at * at > static_cast<double>(lo) * static_cast<double>(hi);
            s += "set arrow from " + fmt("%.1f", at) + ", graph 0 to " + fmt("%.1f", at)
                    + ", graph 1 nohead dashtype 2 linecolor rgb 'gray40'\n";
            s += "set label '" + std::string(lv.name) + " " + human_bytes(lv.bytes) + "' at "
                    + fmt("%.1f", at) + ", graph 0.97 "
                    + (right_half ? "right offset -0.5,0" : "left offset 0.5,0")
                    + " font 'sans,9'\n";
        }
    s += "set multiplot layout 2,1 title " + gp_quote(title) + "\n";
    for (int panel = 0; panel < 2; ++panel) {
        const int col = panel == 0 ? 6 : 5;
        s += std::string("set ylabel '") + (panel == 0 ? "Gelem/s" : "GB/s (read + written)")
                + "'\n";
        s += "plot ";
        for (size_t i = 0; i < names.size(); ++i) {
            s += std::string(i ? ", \\\n     " : "") + gp_quote(csv_path)
                    + " every ::1 using 1:(strcol(3) eq " + gp_quote(names[i]) + " ? $"
                    + std::to_string(col) + " : NaN) with linespoints "
                    + (names[i] == "roofline" ? "dashtype 3 linewidth 2 " : "linewidth 2 ")
                    + "title " + gp_quote(names[i]);
        }
        s += "\n";
    }
    s += "unset multiplot\n";
    return s;
}

case_result run_sweep(const job &j, std::ostream &out) {
    case_result r;
    std::vector<sweep_point> points;
    for (int64_t n : sweep_sizes(j.sweep_min, j.sweep_max, 4)) {
        job one = j;
        one.sweep_min = one.sweep_max = 0;
        one.shape = {n};
        one.settings.mode = mode::performance;
        const case_result sub = run_performance(one);
        r.ms += sub.ms;
        if (!sub.perf.empty()) out << format_perf_text(sub.perf) << std::flush;
        if (sub.state == state::failed || sub.state == state::invalid_arguments) {
            r.state = sub.state;
            r.reasons.push_back(std::to_string(n) + " elements: " + to_string(sub.state));
            for (const auto &why : sub.reasons) r.reasons.push_back("  " + why);
            continue;
        }
        if (!sub.perf.empty()) points.push_back({n, sub.perf});
    }
    const std::string csv = j.sweep_out + ".csv", gp = j.sweep_out + ".gp",
                      svg = j.sweep_out + ".svg";
    if (!write_file(csv, sweep_csv(points))) {
        r.state = state::failed;
        r.reasons.push_back("cannot write " + csv);
        return r;
    }
    const int threads = j.settings.threads ? j.settings.threads : get_num_threads();
    const std::string title = job_title(j) + ", " + std::to_string(threads) + " thread"
            + (threads == 1 ? "" : "s");
    write_file(gp, sweep_gnuplot(points, csv, svg, title, read_cache_sizes()));
    r.details.push_back("wrote " + csv + " and " + gp);
    if (std::system("command -v gnuplot >/dev/null 2>&1") == 0) {
        if (std::system(("gnuplot " + sh_quote(gp)).c_str()) == 0)
            r.details.push_back("wrote " + svg);
        else
            r.details.push_back("gnuplot failed on " + gp);
    } else {
        r.details.push_back("gnuplot is not installed: no " + svg);
    }
    return r;
}

} // namespace qbench
} // namespace qgraph
