#include "tools/qbench/report.hpp"

#include <algorithm>
#include <cstdio>

namespace qgraph {
namespace qbench {

const char *to_string(state s) {
    switch (s) {
        case state::passed: return "PASSED";
        case state::failed: return "FAILED";
        case state::skipped: return "SKIPPED";
        case state::unimplemented: return "UNIMPLEMENTED";
        case state::invalid_arguments: return "INVALID_ARGUMENTS";
    }
    return "?";
}

void summary::add(state s) {
    ++tests;
    switch (s) {
        case state::passed: ++passed; break;
        case state::failed: ++failed; break;
        case state::skipped: ++skipped; break;
        case state::unimplemented: ++unimplemented; break;
        case state::invalid_arguments: ++invalid_arguments; break;
    }
}

int summary::exit_code() const {
    return failed != 0 || invalid_arguments != 0 ? exit_failed : exit_ok;
}

std::string format_case(size_t index, const case_result &r, const std::string &repro) {
    char head[64];
    std::snprintf(head, sizeof(head), "%zu:%s (%.2f ms) __REPRO: ", index, to_string(r.state),
            r.ms);
    std::string s = head + repro + "\n";
    if (r.state != state::passed)
        for (size_t i = 0; i < r.reasons.size(); ++i)
            s += (i == 0 ? "    reason: " : "    ") + r.reasons[i] + "\n";
    for (const auto &d : r.details) s += "    " + d + "\n";
    return s;
}

namespace {

std::string fmt(const char *f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), f, v);
    return buf;
}

double gbps(const perf_result &p, const perf_entry &e) {
    return e.t.median_ms > 0 ? p.bytes / (e.t.median_ms * 1e-3) / 1e9 : 0;
}
double gelems(const perf_result &p, const perf_entry &e) {
    return e.t.median_ms > 0 ? p.elems / (e.t.median_ms * 1e-3) / 1e9 : 0;
}
double roof_pct(const perf_result &p, const perf_entry &e) {
    const perf_entry *r = p.roofline();
    return r && r->ran && e.t.median_ms > 0 ? 100.0 * r->t.median_ms / e.t.median_ms : 0;
}
/// The first backend that ran: ratios are relative to it.
const perf_entry *first_ran(const perf_result &p) {
    for (const auto &e : p.entries)
        if (e.ran && e.backend != "roofline") return &e;
    return nullptr;
}

/// A CSV field, quoted when it holds a comma, a quote or a newline.
std::string csv_field(const std::string &s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string q = "\"";
    for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

} // namespace

const perf_entry *perf_result::roofline() const {
    for (const auto &e : entries)
        if (e.backend == "roofline") return &e;
    return nullptr;
}

std::string entry_backend(const perf_entry &e) {
    if (e.backend == "auto" && !e.chosen.empty()) return "auto:" + e.chosen;
    return e.backend;
}

std::string format_perf_text(const perf_result &p) {
    std::string s;
    for (const auto &e : p.entries) {
        if (!e.ran) continue;
        s += "perf,cpu," + p.problem + "," + fmt("%.6g", e.t.min_ms) + ","
                + fmt("%.6g", e.t.avg_ms) + "," + fmt("%.6g", e.t.median_ms) + ","
                + fmt("%.2f", gbps(p, e)) + "," + fmt("%.3f", gelems(p, e)) + ","
                + fmt("%.1f%%", roof_pct(p, e)) + "," + entry_backend(e) + "," + e.kernel + "\n";
    }
    for (const auto &e : p.entries)
        if (e.compile_us >= 0)
            s += "compile,cpu," + p.problem + "," + entry_backend(e) + ","
                    + fmt("%.2f", e.compile_us) + "," + fmt("%.3f", e.cache_hit_us) + "\n";
    for (const auto &e : p.entries)
        if (!e.note.empty()) s += "    " + e.backend + ": " + e.note + "\n";
    const perf_entry *base = first_ran(p);
    if (base && base->t.median_ms > 0) {
        s += "ratio,cpu," + p.problem;
        for (const auto &e : p.entries)
            if (e.ran) s += "," + e.backend + "=" + fmt("%.2f", e.t.median_ms / base->t.median_ms);
        s += "\n";
    }
    return s;
}

std::string format_scaling(const std::string &problem, int threads0, const perf_result &at0,
        int threads1, const perf_result &at1) {
    std::string s = "scaling,cpu," + problem + ",threads=" + std::to_string(threads0) + "->"
            + std::to_string(threads1);
    for (const auto &a : at0.entries)
        for (const auto &b : at1.entries)
            if (a.backend == b.backend && a.ran && b.ran && b.t.median_ms > 0)
                s += "," + a.backend + "=" + fmt("%.2f", a.t.median_ms / b.t.median_ms);
    return s + "\n";
}

std::string format_perf_table(const std::vector<std::pair<std::string, perf_result>> &rows) {
    std::vector<std::string> cols; // contender names in first-seen order
    size_t title_w = 7;
    for (const auto &r : rows) {
        title_w = std::max(title_w, r.first.size());
        for (const auto &e : r.second.entries)
            if (std::find(cols.begin(), cols.end(), e.backend) == cols.end())
                cols.push_back(e.backend);
    }
    const int cell_w = 17;
    char buf[128];
    std::string s = "performance summary: median ms, and time / first backend's\n";
    std::snprintf(buf, sizeof(buf), "%-*s", static_cast<int>(title_w), "problem");
    s += buf;
    for (const auto &c : cols) {
        std::snprintf(buf, sizeof(buf), " %*s", cell_w, c.c_str());
        s += buf;
    }
    s += "\n";
    for (const auto &r : rows) {
        std::snprintf(buf, sizeof(buf), "%-*s", static_cast<int>(title_w), r.first.c_str());
        s += buf;
        const perf_entry *base = first_ran(r.second);
        for (const auto &c : cols) {
            std::string cell = "-";
            for (const auto &e : r.second.entries)
                if (e.backend == c && e.ran) {
                    cell = fmt("%.4g", e.t.median_ms);
                    if (base && base->t.median_ms > 0)
                        cell += " " + fmt("%.2fx", e.t.median_ms / base->t.median_ms);
                }
            std::snprintf(buf, sizeof(buf), " %*s", cell_w, cell.c_str());
            s += buf;
        }
        s += "\n";
    }
    return s;
}

std::string perf_csv_header() {
    return "problem,backend,kernel,min_ms,avg_ms,median_ms,gb_per_s,gelem_per_s,roofline_pct,"
           "ratio,compile_us,cache_hit_us,samples,note\n";
}

std::string format_perf_csv(const perf_result &p) {
    std::string s;
    const perf_entry *base = first_ran(p);
    for (const auto &e : p.entries) {
        s += csv_field(p.problem) + "," + csv_field(entry_backend(e)) + "," + csv_field(e.kernel);
        if (e.ran) {
            s += "," + fmt("%.6g", e.t.min_ms) + "," + fmt("%.6g", e.t.avg_ms) + ","
                    + fmt("%.6g", e.t.median_ms) + "," + fmt("%.3f", gbps(p, e)) + ","
                    + fmt("%.4f", gelems(p, e)) + "," + fmt("%.2f", roof_pct(p, e)) + ","
                    + (base && base->t.median_ms > 0
                                    ? fmt("%.4f", e.t.median_ms / base->t.median_ms)
                                    : std::string());
        } else {
            s += ",,,,,,,";
        }
        s += "," + (e.compile_us >= 0 ? fmt("%.3f", e.compile_us) : std::string()) + ","
                + (e.cache_hit_us >= 0 ? fmt("%.4f", e.cache_hit_us) : std::string()) + ","
                + (e.ran ? std::to_string(e.t.samples) : std::string()) + ","
                + csv_field(e.note) + "\n";
    }
    return s;
}

std::string format_summary(const summary &s) {
    char buf[256];
    std::snprintf(buf, sizeof(buf),
            "tests:%zu passed:%zu skipped:%zu mistrusted:%zu unimplemented:%zu "
            "invalid_arguments:%zu failed:%zu listed:%zu\n",
            s.tests, s.passed, s.skipped, s.mistrusted, s.unimplemented, s.invalid_arguments,
            s.failed, s.listed);
    return buf;
}

} // namespace qbench
} // namespace qgraph
