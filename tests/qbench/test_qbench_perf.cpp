// --mode=P end to end (in-process, one timed round each: nothing here checks a speed), the
// CSV and text formats, exit statuses, and the parts of the timing loop that are not timing.

#include <algorithm>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "qgraph/config.hpp"
#include "tools/qbench/cache_info.hpp"
#include "tools/qbench/driver.hpp"
#include "tools/qbench/progress.hpp"
#include "tools/qbench/report.hpp"
#include "tools/qbench/roofline.hpp"
#include "tools/qbench/sweep.hpp"
#include "tools/qbench/timing.hpp"
#include "temp_files.hpp"

namespace qgraph {
namespace qbench {
namespace {

struct run_result {
    int code;
    std::string out, err;
};

run_result run(std::vector<std::string> args) {
    // One round, a tiny budget: these tests check what is printed, never how fast.
    args.insert(args.begin(), {"--mode=P", "--fix-times-per-prb=1"});
    std::ostringstream out, err;
    const int code = qbench_main(args, out, err);
    return {code, out.str(), err.str()};
}

std::vector<std::string> lines_of(const std::string &s) {
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
}

/// Splits a CSV line (fields may be quoted).
std::vector<std::string> csv_fields(const std::string &line) {
    std::vector<std::string> f(1);
    bool quoted = false;
    for (size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        if (quoted) {
            if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                f.back() += '"';
                ++i;
            } else if (ch == '"') {
                quoted = false;
            } else {
                f.back() += ch;
            }
        } else if (ch == '"') {
            quoted = true;
        } else if (ch == ',') {
            f.emplace_back();
        } else {
            f.back() += ch;
        }
    }
    return f;
}

TEST(QbenchPerf, TextLinesFollowTheBenchdnnPerfLine) {
    const run_result r = run({"--backend=auto,ref", "--op=Quantize", "64"});
    EXPECT_EQ(r.code, exit_ok) << r.out << r.err;
    const std::string problem = "--op=Quantize --qtype=per_tensor --zp=none --scale=0.5 64";
    const std::regex perf("^perf,cpu," + std::regex_replace(problem, std::regex("[.]"), "\\.")
            + ",[0-9.e+-]+,[0-9.e+-]+,[0-9.e+-]+,[0-9.]+,[0-9.]+,[0-9.]+%,([a-z:+]+),(.+)$");
    int perf_lines = 0;
    std::set<std::string> backends;
    for (const auto &l : lines_of(r.out)) {
        std::smatch m;
        if (std::regex_match(l, m, perf)) {
            ++perf_lines;
            backends.insert(m[1]);
        }
    }
    EXPECT_EQ(perf_lines, 3) << r.out; // auto, ref, roofline
    EXPECT_TRUE(backends.count("ref")) << r.out;
    EXPECT_TRUE(backends.count("roofline")) << r.out;
    EXPECT_TRUE(std::any_of(backends.begin(), backends.end(),
            [](const std::string &b) { return b.rfind("auto:", 0) == 0; }))
            << r.out;
    EXPECT_TRUE(std::regex_search(r.out,
            std::regex("\ncompile,cpu," + std::string(".*") + ",ref,[0-9.]+,[0-9.]+\n")))
            << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex("\nratio,cpu,.*,auto=1\\.00,ref=[0-9.]+,"
                                                    "roofline=[0-9.]+\n")))
            << r.out;
    EXPECT_NE(r.out.find("0:PASSED ("), std::string::npos);
    EXPECT_NE(r.out.find("tests:1 passed:1 "), std::string::npos);
}

TEST(QbenchPerf, RooflineOffTimesTheBackendsAlone) {
    const run_result r = run({"--backend=auto,ref", "--roofline=off", "--op=Quantize", "64"});
    EXPECT_EQ(r.code, exit_ok) << r.out << r.err;
    int perf_lines = 0;
    for (const auto &l : lines_of(r.out))
        if (l.rfind("perf,cpu,", 0) == 0) {
            ++perf_lines;
            EXPECT_EQ(l.find(",roofline,"), std::string::npos) << l;
            EXPECT_NE(l.find(",0.0%,"), std::string::npos) << "no roofline, no ratio: " << l;
        }
    EXPECT_EQ(perf_lines, 2) << r.out; // auto, ref
    EXPECT_FALSE(std::regex_search(r.out, std::regex(",roofline=[0-9]"))) << r.out;
    EXPECT_NE(r.out.find("__REPRO: --mode=P --backend=auto,ref --fix-times-per-prb=1 --roofline=off"),
            std::string::npos)
            << r.out;

    const run_result bad = run({"--roofline=sometimes", "--op=Quantize", "64"});
    EXPECT_NE(bad.code, exit_ok);
    EXPECT_NE(bad.err.find("--roofline"), std::string::npos) << bad.err;
}

TEST(QbenchPerf, CsvHasAHeaderAndOneRowPerBackend) {
    const run_result r = run({"--perf-template=csv", "--backend=ref,onednn", "--op=Quantize",
            "--op=Dequantize", "--qtype=per_channel", "--zp=u8", "4x3", "--reset", "--mode=P",
            "--fix-times-per-prb=1", "--perf-template=csv", "--backend=ref", "16"});
    EXPECT_EQ(r.code, exit_ok) << r.out << r.err;
    const auto lines = lines_of(r.out);
    ASSERT_EQ(lines.size(), 1u + 3 + 2) << r.out; // header; ref, onednn, roofline; ref, roofline
    const auto header = csv_fields(lines[0]);
    EXPECT_EQ(lines[0] + "\n", perf_csv_header());
    EXPECT_EQ(header[0], "problem");
    EXPECT_EQ(header[5], "median_ms");
    for (size_t i = 1; i < lines.size(); ++i)
        EXPECT_EQ(csv_fields(lines[i]).size(), header.size()) << lines[i];
    const auto ref = csv_fields(lines[1]);
    EXPECT_EQ(ref[0], "--op=Dequantize --qtype=per_channel --axis=1 --zp=u8 --scale=0.5 4x3");
    EXPECT_EQ(ref[1], "ref");
    EXPECT_EQ(ref[2], "ref:dequantize");
    EXPECT_GT(std::stod(ref[5]), 0.0);
    EXPECT_EQ(ref[9], "1.0000"); // the ratio of the first backend to itself
    EXPECT_EQ(ref[12], "1"); // one round
    // oneDNN 2.6's reorder has no per-channel zero points: a row that says why.
    const auto onednn = csv_fields(lines[2]);
    EXPECT_EQ(onednn[1], "onednn");
    EXPECT_NE(onednn[13].find("unimplemented"), std::string::npos) << lines[2];
    EXPECT_EQ(csv_fields(lines[3])[1], "roofline");
    // Case lines and the summary go to stderr, so stdout stays a CSV file.
    EXPECT_NE(r.err.find("0:PASSED"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("tests:2 passed:2"), std::string::npos) << r.err;
}

TEST(QbenchPerf, OnednnBaselineRunsAndItsMismatchesAreOnlyInformation) {
    // Odd zero points with ties: oneDNN adds zp before rounding, qgraph after (NUMERICS.md).
    const run_result r = run({"--backend=ref,onednn", "--op=Quantize", "--zp=u8", "--scale=1",
            "1024", "--op=DynamicQuantizeLinear", "1x8x8"});
    EXPECT_EQ(r.code, exit_ok) << r.out << r.err;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(",onednn,onednn:reorder\\(")))
            << r.out;
    EXPECT_TRUE(std::regex_search(r.out, std::regex(",onednn,onednn:reduction\\(")))
            << r.out;
    EXPECT_NE(r.out.find("0:PASSED"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1:PASSED"), std::string::npos) << r.out;
}

TEST(QbenchPerf, PolicyListRunsEachBackendUnderEachPolicy) {
    // Dequantize -> Quantize: one fused partition under fusion, two under debug.
    qbench_test::temp_files t;
    const std::string chain = t.write("chain.json", R"({"version": "0.1.0", "graph": [
 {"id": 0, "name": "dq", "kind": "Dequantize",
  "attrs": {"scales": {"type": "f32[]", "value": [0.5]},
            "zps": {"type": "s64[]", "value": [3]}},
  "inputs": [{"id": 0, "dtype": "u8", "shape": [4, 96], "stride": [96, 1],
              "layout_type": "strided"}],
  "outputs": [{"id": 1, "dtype": "f32", "shape": [4, 96], "layout_type": "any"}]},
 {"id": 1, "name": "q", "kind": "Quantize",
  "attrs": {"scales": {"type": "f32[]", "value": [0.25]},
            "zps": {"type": "s64[]", "value": [-1]}},
  "inputs": [{"id": 1, "dtype": "f32", "shape": [4, 96], "layout_type": "any"}],
  "outputs": [{"id": 2, "dtype": "s8", "shape": [4, 96], "stride": [96, 1],
               "layout_type": "strided"}]}]})");
    const run_result r = run({"--backend=ref,auto", "--policy=fusion,debug", "--case=" + chain});
    EXPECT_EQ(r.code, exit_ok) << r.out << r.err;
    for (const char *entry : {",ref/fusion,", ",ref/debug,", ",auto/fusion", ",auto/debug"})
        EXPECT_NE(r.out.find(entry), std::string::npos) << entry << "\n" << r.out;
    EXPECT_TRUE(std::regex_search(r.out,
            std::regex("ratio,cpu,.*,ref/fusion=1.00,ref/debug=[0-9.]+,auto/fusion=")))
            << r.out;
    EXPECT_NE(r.out.find("--policy=fusion,debug"), std::string::npos) << r.out; // the repro
}

TEST(QbenchPerf, OnednnBaselineRefusesBlockedScales) {
    // It used to run a per-channel reorder on the first channels' scales (another problem,
    // timed beside qgraph's and reported only as "inexact").
    const run_result r = run({"--backend=ref,onednn", "--op=DequantizeLinear", "--sdt=s8",
            "--group=1x32", "4x64"});
    EXPECT_EQ(r.code, exit_ok) << r.out;
    EXPECT_NE(r.out.find("onednn: unimplemented: oneDNN 2.6 reorders have no blocked or grouped "
                         "scales"),
            std::string::npos)
            << r.out;
    EXPECT_EQ(r.out.find(",onednn,onednn:"), std::string::npos) << r.out;
}

TEST(QbenchPerf, ExitStatuses) {
    // A partition count that does not match fails the case.
    EXPECT_EQ(run({"--expected-n-partitions=2", "64"}).code, exit_failed);
    // Every backend rejecting the problem is UNIMPLEMENTED, which does not fail the run.
    const run_result u = run({"--backend=onednn", "--op=Dequantize", "--qtype=per_channel",
            "--zp=u8", "4x4"});
    EXPECT_EQ(u.code, exit_ok) << u.out;
    EXPECT_NE(u.out.find("0:UNIMPLEMENTED"), std::string::npos) << u.out;
    EXPECT_NE(u.out.find("    reason: onednn: unimplemented"), std::string::npos) << u.out;
    // The schema rejects the op: INVALID_ARGUMENTS.
    const run_result i = run({"--op=Quantize", "--ddt=f32", "64"});
    EXPECT_EQ(i.code, exit_failed) << i.out;
    EXPECT_NE(i.out.find("0:INVALID_ARGUMENTS"), std::string::npos) << i.out;
    // Usage errors: one line, nothing run.
    for (const std::vector<std::string> &args : std::vector<std::vector<std::string>> {
                 {"--backend=jit-not-here", "64"}, {"1x2x"}, {"--threads=-1", "64"},
                 {"--bogus-knob=1", "64"}, {"--case=/nonexistent/case.json"}}) {
        const run_result e = run(args);
        EXPECT_EQ(e.code, exit_usage) << args[0];
        EXPECT_EQ(e.out, "") << args[0];
        EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
        EXPECT_EQ(e.err.rfind("qbench: ", 0), 0u) << e.err;
    }
}

TEST(QbenchPerf, ThreadsKnobIsAppliedAndRestored) {
    const int before = get_num_threads();
    const run_result r = run({"--threads=1", "--backend=ref", "64"});
    EXPECT_EQ(r.code, exit_ok);
    EXPECT_NE(r.out.find("perf,cpu,--threads=1 --op=Quantize"), std::string::npos) << r.out;
    EXPECT_EQ(get_num_threads(), before);
}

TEST(QbenchPerf, ScalingLineComparesThreadCountsOfOneProblem) {
    // --threads=1,2 runs the problem twice; the second run is followed by each contender's
    // speed-up, the roofline loop's included (the machine's own scaling).
    const run_result r = run({"--threads=1,2", "--backend=ref", "64", "32"});
    EXPECT_EQ(r.code, exit_ok) << r.out << r.err;
    int scaling = 0;
    for (const auto &l : lines_of(r.out)) {
        if (l.rfind("scaling,", 0) != 0) continue;
        ++scaling;
        EXPECT_TRUE(std::regex_match(l,
                std::regex("scaling,cpu,--op=Quantize --qtype=per_tensor --zp=none "
                           "--scale=0\\.5 (64|32),threads=1->2,ref=[0-9.]+,roofline=[0-9.]+")))
                << l;
    }
    EXPECT_EQ(scaling, 2) << r.out; // one per shape
    const run_result one = run({"--threads=2", "--backend=ref", "64"});
    EXPECT_EQ(one.out.find("scaling,"), std::string::npos) << one.out;
}

TEST(QbenchPerf, SummarizeGivesMinMeanAndMedian) {
    const timing_stats odd = summarize({5, 1, 3});
    EXPECT_EQ(odd.min_ms, 1);
    EXPECT_EQ(odd.median_ms, 3);
    EXPECT_EQ(odd.avg_ms, 3);
    EXPECT_EQ(odd.samples, 3u);
    const timing_stats even = summarize({4, 1, 2, 10});
    EXPECT_EQ(even.median_ms, 3);
    EXPECT_EQ(even.avg_ms, 4.25);
    EXPECT_EQ(summarize({}).samples, 0u);
}

/// Contenders "a" and "b", each recording its name in `order` when it runs.
std::vector<contender> recording_contenders(std::vector<std::string> &order) {
    return {{"a", [&order] { order.push_back("a"); }, {}},
            {"b", [&order] { order.push_back("b"); }, {}}};
}

TEST(QbenchPerf, MeasureInterleavesAndRotatesTheOrder) {
    std::vector<std::string> order;
    std::vector<contender> cs = recording_contenders(order);
    timing_plan plan;
    plan.fixed_rounds = 4;
    plan.min_sample_us = 0; // batches of one run: the order below is exact
    int flushes = 0;
    plan.flush = [&] { ++flushes; };
    measure(cs, plan);
    EXPECT_EQ(cs[0].stats.samples, 4u);
    EXPECT_EQ(cs[1].stats.samples, 4u);
    EXPECT_EQ(flushes, 8); // before every timed sample
    // Warm-up a a b b, then rounds: ab, ba, ab, ba.
    const std::vector<std::string> want {"a", "a", "b", "b", "a", "b", "b", "a", "a", "b", "b", "a"};
    EXPECT_EQ(order, want);
}

TEST(QbenchPerf, MeasureWarmsEachSampleWithARunOfItsOwn) {
    // Without a flush, every timed sample follows one untimed run of the same contender: the
    // other contender's run never comes between the warming run and the timed one.
    std::vector<std::string> order;
    std::vector<contender> cs = recording_contenders(order);
    timing_plan plan;
    plan.fixed_rounds = 2;
    plan.min_sample_us = 0; // batches of one run
    measure(cs, plan);
    EXPECT_EQ(cs[0].stats.samples, 2u);
    EXPECT_EQ(cs[1].stats.samples, 2u);
    // Calibration a b, warm-up a a b b, then rounds of (warm, timed) pairs: a a b b, b b a a.
    const std::vector<std::string> want {
            "a", "b", "a", "a", "b", "b", "a", "a", "b", "b", "b", "b", "a", "a"};
    EXPECT_EQ(order, want);
}

TEST(QbenchPerf, RooflineHandlesEveryByteRatio) {
    // Sources larger, equal, smaller, not multiples, and empty: no overrun (the sanitizer
    // builds would catch one), on the threads it was given.
    for (const auto &rw : std::vector<std::pair<size_t, size_t>> {{4 * 1000, 1000 + 5},
                 {4096, 4096}, {1000, 4000}, {12544 * 64, 3137 * 64 + 5}, {0, 64}, {64, 0}}) {
        for (bool omp : {false, true}) {
            roofline r(rw.first, rw.second, 2, omp);
            r.run();
            r.execute([&r] { r.run(); });
            EXPECT_EQ(r.threads_used(), 2) << rw.first << ":" << rw.second;
        }
    }
    EXPECT_EQ(roofline(64, 64, 0, false).threads_used(), 1);
}

/// The thread count on the roofline's perf line: "...,roofline,read+write(N thr)".
int roofline_threads(const std::string &out) {
    std::smatch m;
    const std::regex line(",roofline,read\\+write\\(([0-9]+) thr\\)");
    if (!std::regex_search(out, m, line)) return -1;
    return std::stoi(m[1]);
}

TEST(QbenchPerf, RooflineRunsOnTheThreadsOfTheRun) {
    // Identical runs time the loop on the same threads as qgraph, at every size: the count
    // is not picked by timing (64 elements on 1 thread used to win against 2 threads, or
    // not, from one run to the next).
    for (int threads : {0, 1, 2}) {
        const int want = threads ? threads : get_num_threads();
        for (const char *shape : {"64", "4096"})
            for (int rep = 0; rep < 2; ++rep) {
                const run_result r = run(
                        {"--threads=" + std::to_string(threads), "--backend=ref", shape});
                EXPECT_EQ(r.code, exit_ok) << r.out << r.err;
                EXPECT_EQ(roofline_threads(r.out), want)
                        << "--threads=" << threads << " " << shape << "\n" << r.out;
            }
    }
}

TEST(QbenchPerf, CacheSizesAreOrdered) {
    const cache_sizes c = read_cache_sizes();
    if (c.l1d && c.l2) {
        EXPECT_LE(c.l1d, c.l2);
    }
    if (c.l2 && c.l3) {
        EXPECT_LE(c.l2, c.l3);
    }
    cache_flusher f(4096);
    f.flush(1);
    f.flush(2);
}

TEST(QbenchPerf, SweepSizesCsvAndPlotScript) {
    EXPECT_EQ(sweep_sizes(1024, 16384, 4), (std::vector<int64_t> {1024, 4096, 16384}));
    EXPECT_EQ(sweep_sizes(1, 10, 4), (std::vector<int64_t> {1, 4}));
    sweep_point pt;
    pt.elems = 1024;
    pt.perf.bytes = 5120;
    pt.perf.elems = 1024;
    perf_entry e;
    e.backend = "ref";
    e.ran = true;
    e.t.median_ms = 0.001;
    pt.perf.entries = {e};
    e.backend = "roofline";
    pt.perf.entries.push_back(e);
    const std::string csv = sweep_csv({pt});
    EXPECT_EQ(csv, "elements,bytes,backend,median_ms,gb_per_s,gelem_per_s\n"
                   "1024,5120,ref,0.001,5.1200,1.0240\n"
                   "1024,5120,roofline,0.001,5.1200,1.0240\n");
    // Two sizes, 1K and 16K elements of 5 bytes: L1d (32 KiB: 6553.6 elements) falls inside,
    // L2 (1 MiB) and L3 (32 MiB) beyond the last size.
    sweep_point big = pt;
    big.elems = 16384;
    big.perf.bytes = 5 * 16384;
    big.perf.elems = 16384;
    cache_sizes c;
    c.l1d = 32 << 10;
    c.l2 = 1 << 20;
    c.l3 = 32 << 20;
    const std::string gp = sweep_gnuplot({pt, big}, "s.csv", "s.svg", "t", c);
    EXPECT_NE(gp.find("set output 's.svg'"), std::string::npos);
    EXPECT_NE(gp.find("strcol(3) eq 'roofline'"), std::string::npos);
    EXPECT_NE(gp.find("strcol(3) eq 'ref'"), std::string::npos);
    EXPECT_NE(gp.find("set arrow from 6553.6,"), std::string::npos) << gp;
    EXPECT_NE(gp.find("'L1d 32 KiB'"), std::string::npos) << gp;
}

TEST(QbenchPerf, SweepPlotJoinsPointsInPlainTextWithMarksInside) {
    std::vector<sweep_point> pts;
    for (int64_t n : {1024, 4096, 16384}) {
        sweep_point pt;
        pt.elems = n;
        pt.perf.bytes = 5.0 * static_cast<double>(n);
        pt.perf.elems = static_cast<double>(n);
        perf_entry e;
        e.ran = true;
        e.t.median_ms = 0.001;
        for (const char *b : {"ref", "roofline"}) {
            e.backend = b;
            pt.perf.entries.push_back(e);
        }
        pts.push_back(pt);
    }
    cache_sizes c;
    c.l1d = 8 << 10; // 1638.4 elements: the left half of the range
    c.l2 = 32 << 10; // 6553.6: the right half
    c.l3 = 32 << 20; // beyond the last size
    const std::string gp = sweep_gnuplot(
            pts, "it's.csv", "s.svg", "Quantize f32:u8 per_tensor sweep 1024:16384", c);
    // Lines join each contender's points: the other contenders' rows are NaN, which "set
    // datafile missing NaN" skips; 1/0 (or NaN without it) breaks the line at every row.
    EXPECT_NE(gp.find("set datafile missing NaN\n"), std::string::npos) << gp;
    EXPECT_NE(gp.find("'it''s.csv' every ::1 using 1:(strcol(3) eq 'ref' ? $6 : NaN) with "
                      "linespoints"),
            std::string::npos)
            << gp;
    EXPECT_EQ(gp.find("1/0"), std::string::npos) << gp;
    // Plain text: no enhanced-text markup, so per_tensor keeps its underscore.
    EXPECT_NE(gp.find("set terminal svg size 1000,820 dynamic noenhanced "), std::string::npos)
            << gp;
    EXPECT_NE(gp.find("set multiplot layout 2,1 title 'Quantize f32:u8 per_tensor sweep "
                      "1024:16384'\n"),
            std::string::npos)
            << gp;
    // The x range is the swept sizes; each mark inside it, its label on the side that keeps
    // it in the plot; a level the sweep does not reach is not marked.
    EXPECT_NE(gp.find("set xrange [1024:16384]\n"), std::string::npos) << gp;
    EXPECT_NE(gp.find("set label 'L1d 8 KiB' at 1638.4, graph 0.97 left offset 0.5,0"),
            std::string::npos)
            << gp;
    EXPECT_NE(gp.find("set label 'L2 32 KiB' at 6553.6, graph 0.97 right offset -0.5,0"),
            std::string::npos)
            << gp;
    EXPECT_EQ(gp.find("set label 'L3"), std::string::npos) << gp;
    EXPECT_EQ(gp.find("6710886"), std::string::npos) << gp; // no arrow at L3 either
}

TEST(QbenchPerf, ProgressLineRewritesItself) {
    EXPECT_EQ(progress_line(12, 240, "Quantize f32:u8 per_channel 1x64x56x56"),
            "\r[12/240] Quantize f32:u8 per_channel 1x64x56x56 ...\033[K");
    EXPECT_EQ(progress_clear(), "\r\033[K");
    // In-process runs (tests, pipes) pass progress=false: nothing but the results on err.
    const run_result r = run({"--backend=ref", "64"});
    EXPECT_EQ(r.err.find('\r'), std::string::npos);
}

} // namespace
} // namespace qbench
} // namespace qgraph
