// Comma lists (the cartesian product benchdnn runs), backend lists, problem shapes and sweeps
// in the batch reader.

#include <set>

#include <gtest/gtest.h>

#include "temp_files.hpp"
#include "tools/qbench/batch.hpp"

namespace qgraph {
namespace qbench {
namespace {

using qbench_test::temp_files;

knobs plain() {
    knobs k;
    k.backends = {""};
    return k;
}

TEST(QbenchLists, CommaListsRunEveryCombination) {
    const plan p = make_plan({"--mode=P", "--threads=1,2", "--op=Quantize,Dequantize", "8x8"},
            plain());
    ASSERT_EQ(p.jobs.size(), 4u);
    std::set<std::pair<int, std::string>> seen;
    for (const auto &j : p.jobs) {
        EXPECT_TRUE(j.is_shorthand());
        EXPECT_EQ(j.shape, (logical_tensor::dims {8, 8}));
        seen.insert({j.settings.threads, j.settings.op.op});
    }
    const std::set<std::pair<int, std::string>> want {
            {1, "Quantize"}, {1, "Dequantize"}, {2, "Quantize"}, {2, "Dequantize"}};
    EXPECT_EQ(seen, want);
}

TEST(QbenchLists, ASingleValueReplacesAList) {
    const plan p = make_plan({"--threads=1,2", "--threads=3", "4"}, plain());
    ASSERT_EQ(p.jobs.size(), 1u);
    EXPECT_EQ(p.jobs[0].settings.threads, 3);
}

TEST(QbenchLists, ResetDropsListsSetInsideTheBatch) {
    temp_files t;
    t.write("c.json", "{}");
    const std::string b = t.write("b", "--seed=1,2 --case=c.json\n--reset --case=c.json\n");
    const plan p = make_plan({"--batch=" + b}, plain());
    ASSERT_EQ(p.jobs.size(), 3u);
    EXPECT_EQ(p.jobs[0].settings.seed, 1u);
    EXPECT_EQ(p.jobs[1].settings.seed, 2u);
    EXPECT_EQ(p.jobs[2].settings.seed, 0u);
}

TEST(QbenchLists, BackendListIsSideBySideInPerformanceModeAndSplitInCorrectness) {
    const plan perf = make_plan({"--mode=P", "--backend=auto,ref,onednn", "64"}, plain());
    ASSERT_EQ(perf.jobs.size(), 1u);
    EXPECT_EQ(perf.jobs[0].settings.backends, (std::vector<std::string> {"", "ref", "onednn"}));
    const plan corr = make_plan({"--mode=C", "--backend=auto,ref", "64"}, plain());
    ASSERT_EQ(corr.jobs.size(), 2u);
    EXPECT_EQ(corr.jobs[0].settings.backends, std::vector<std::string> {""});
    EXPECT_EQ(corr.jobs[1].settings.backends, std::vector<std::string> {"ref"});
}

TEST(QbenchLists, UnknownBackendNamesTheChoices) {
    try {
        make_plan({"--mode=P", "--backend=dnnl,nosuch", "64"}, plain());
        FAIL() << "accepted";
    } catch (const usage_error &e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("'nosuch' is not a backend of this build"), std::string::npos) << m;
        EXPECT_NE(m.find("onednn"), std::string::npos) << m;
    }
}

TEST(QbenchLists, SweepsAndCounts) {
    EXPECT_EQ(parse_count("1K", "x"), 1024);
    EXPECT_EQ(parse_count("256M", "x"), 256ll << 20);
    EXPECT_EQ(parse_count("2G", "x"), 2ll << 30);
    EXPECT_EQ(parse_count("100", "x"), 100);
    for (const char *bad : {"", "K", "1T", "-1", "1.5K"})
        EXPECT_THROW(parse_count(bad, "x"), usage_error) << bad;
    const plan p = make_plan({"--mode=P", "--sweep-out=/tmp/x", "--sweep=1K:4M"}, plain());
    ASSERT_EQ(p.jobs.size(), 1u);
    EXPECT_TRUE(p.jobs[0].is_sweep());
    EXPECT_EQ(p.jobs[0].sweep_min, 1024);
    EXPECT_EQ(p.jobs[0].sweep_max, 4ll << 20);
    EXPECT_EQ(p.jobs[0].sweep_out, "/tmp/x");
    EXPECT_THROW(make_plan({"--sweep=4K:1K"}, plain()), usage_error);
}

TEST(QbenchLists, ReproAndProblemTextRoundTrip) {
    const plan p = make_plan({"--mode=P", "--backend=auto,ref", "--threads=2", "--op=Dequantize",
                                     "--qtype=per_channel", "--axis=0", "--zp=u8",
                                     "--fix-times-per-prb=3", "--cold-cache", "4x5"},
            plain());
    ASSERT_EQ(p.jobs.size(), 1u);
    const std::string repro = repro_args(p.jobs[0]);
    EXPECT_EQ(repro, "--mode=P --backend=auto,ref --fix-times-per-prb=3 --cold-cache --threads=2 "
                     "--op=Dequantize --qtype=per_channel --axis=0 --zp=u8 --scale=0.5 4x5");
    EXPECT_EQ(problem_args(p.jobs[0]),
            "--threads=2 --op=Dequantize --qtype=per_channel --axis=0 --zp=u8 --scale=0.5 4x5");
    EXPECT_EQ(job_title(p.jobs[0]), "Dequantize u8:f32 per_channel 4x5");
    // The repro line, read again, is the same job.
    std::vector<std::string> args;
    size_t start = 0;
    while (start < repro.size()) {
        const size_t sp = repro.find(' ', start);
        args.push_back(repro.substr(start, sp == std::string::npos ? sp : sp - start));
        start = sp == std::string::npos ? repro.size() : sp + 1;
    }
    const plan again = make_plan(args, plain());
    ASSERT_EQ(again.jobs.size(), 1u);
    EXPECT_EQ(again.jobs[0].settings, p.jobs[0].settings);
    EXPECT_EQ(again.jobs[0].shape, p.jobs[0].shape);
}

} // namespace
} // namespace qbench
} // namespace qgraph
