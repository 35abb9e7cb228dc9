// The batch reader: tokens, comments, nesting, relative paths, --reset, knob persistence and
// the errors that stop qbench before anything runs.

#include <gtest/gtest.h>

#include "temp_files.hpp"
#include "tools/qbench/batch.hpp"

namespace qgraph {
namespace qbench {
namespace {

using qbench_test::temp_files;

constexpr const char *case_text = "{}"; // make_plan only checks that the file can be read

knobs plain() {
    knobs k;
    k.backends = {""};
    return k;
}

TEST(QbenchBatch, TokenizerSplitsOnWhitespaceAndDropsComments) {
    const auto t = tokenize_batch("--reset --mode=C\t--case=a.json # a comment --case=b.json\n"
                                  "\n  # whole-line comment\n--batch=x#glued comment\r\n--seed=3");
    const std::vector<std::string> want
            = {"--reset", "--mode=C", "--case=a.json", "--batch=x", "--seed=3"};
    EXPECT_EQ(t, want);
    EXPECT_TRUE(tokenize_batch("").empty());
    EXPECT_TRUE(tokenize_batch("# only a comment").empty());
}

TEST(QbenchBatch, PathsJoinToTheBatchDirectory) {
    EXPECT_EQ(join_path("a/b", "c.json"), "a/b/c.json");
    EXPECT_EQ(join_path("a/b/", "c.json"), "a/b/c.json");
    EXPECT_EQ(join_path("a/b", "/abs/c.json"), "/abs/c.json");
    EXPECT_EQ(join_path("", "c.json"), "c.json");
    EXPECT_EQ(dir_name("a/b/c"), "a/b");
    EXPECT_EQ(dir_name("c"), "");
    EXPECT_EQ(dir_name("/c"), "/");
}

TEST(QbenchBatch, CommandLineCasesKeepTheirPathAndKnobs) {
    temp_files t;
    const std::string a = t.write("a.json", case_text);
    const plan p = make_plan({"--backend=ref", "--case=" + a, "--seed=7", "--case=" + a}, plain());
    ASSERT_EQ(p.jobs.size(), 2u);
    EXPECT_EQ(p.jobs[0].case_path, a);
    EXPECT_EQ(p.jobs[0].settings.backends, std::vector<std::string>{"ref"});
    EXPECT_EQ(p.jobs[0].settings.seed, 0u);
    EXPECT_EQ(p.jobs[1].settings.backends, std::vector<std::string>{"ref"}); // knobs persist
    EXPECT_EQ(p.jobs[1].settings.seed, 7u);
    EXPECT_FALSE(p.help);
}

TEST(QbenchBatch, NestedBatchesResolvePathsRelativeToTheirOwnDirectory) {
    temp_files t;
    t.write("top/cases/one.json", case_text);
    t.write("top/sub/cases/two.json", case_text);
    t.write("top/sub/inner", "--case=cases/two.json\n");
    const std::string top = t.write("top/outer", "--case=cases/one.json\n--batch=sub/inner\n");
    const plan p = make_plan({"--batch=" + top}, plain());
    ASSERT_EQ(p.jobs.size(), 2u);
    EXPECT_EQ(p.jobs[0].case_path, t.dir() + "/top/cases/one.json");
    EXPECT_EQ(p.jobs[1].case_path, t.dir() + "/top/sub/cases/two.json");
}

TEST(QbenchBatch, KnobsPersistAcrossLinesAndOutOfNestedBatches) {
    temp_files t;
    t.write("c.json", case_text);
    t.write("inner", "--seed=5 --case=c.json\n");
    const std::string outer = t.write("outer",
            "--backend=ref\n"
            "--case=c.json\n" // ref, seed 0
            "--batch=inner\n" // ref, seed 5
            "--case=c.json\n"); // still seed 5: benchdnn knobs are not scoped
    const plan p = make_plan({"--batch=" + outer}, plain());
    ASSERT_EQ(p.jobs.size(), 3u);
    for (const auto &j : p.jobs) EXPECT_EQ(j.settings.backends, std::vector<std::string>{"ref"});
    EXPECT_EQ(p.jobs[0].settings.seed, 0u);
    EXPECT_EQ(p.jobs[1].settings.seed, 5u);
    EXPECT_EQ(p.jobs[2].settings.seed, 5u);
}

TEST(QbenchBatch, ResetRestoresTheKnobsOfTheBatchEntry) {
    temp_files t;
    t.write("c.json", case_text);
    const std::string b = t.write("b",
            "--seed=9 --verbose=1 --case=c.json\n"
            "--reset --case=c.json\n" // back to what the caller had: backend ref, seed 0
            "--reset --backend=auto --case=c.json\n");
    const plan p = make_plan({"--backend=ref", "--batch=" + b, "--reset", "--case=" + t.dir() + "/c.json"},
            plain());
    ASSERT_EQ(p.jobs.size(), 4u);
    EXPECT_EQ(p.jobs[0].settings.seed, 9u);
    EXPECT_EQ(p.jobs[0].settings.verbose, 1);
    EXPECT_EQ(p.jobs[1].settings.seed, 0u);
    EXPECT_EQ(p.jobs[1].settings.verbose, 0);
    EXPECT_EQ(p.jobs[1].settings.backends, std::vector<std::string>{"ref"}); // the caller's choice survives --reset
    EXPECT_EQ(p.jobs[2].settings.backends, std::vector<std::string>{""});
    // On the command line --reset goes back to the defaults.
    EXPECT_EQ(p.jobs[3].settings, plain());
}

TEST(QbenchBatch, HelpIsNoticedAnywhere) {
    EXPECT_TRUE(make_plan({"--help"}, plain()).help);
    EXPECT_TRUE(make_plan({"--seed=1", "-h"}, plain()).help);
}

void expect_usage_error(const std::vector<std::string> &args, const std::string &fragment) {
    try {
        make_plan(args, plain());
        ADD_FAILURE() << "no usage_error; wanted one containing: " << fragment;
    } catch (const usage_error &e) {
        EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos)
                << "message: " << e.what();
    }
}

TEST(QbenchBatch, BadArgumentsAreUsageErrors) {
    temp_files t;
    const std::string c = t.write("c.json", case_text);
    expect_usage_error({"--bogus=1"}, "unknown option '--bogus'");
    expect_usage_error({"--case=" + t.dir() + "/missing.json"}, "cannot read case file");
    expect_usage_error({"--case=" + t.dir()}, "cannot read case file"); // a directory
    expect_usage_error({"--batch=" + t.dir() + "/missing"}, "cannot read batch file");
    expect_usage_error({"--case="}, "--case needs a file name");
    expect_usage_error({"--case"}, "needs a value");
    expect_usage_error({"--mode=X"}, "bad value 'X' for --mode");
    expect_usage_error({"--seed=abc"}, "bad value 'abc' for --seed");
    expect_usage_error({"--backend=nope"}, "bad value 'nope' for --backend");
    expect_usage_error({"c.json"}, "unexpected argument 'c.json'");
    expect_usage_error({"--backend=onednn", "--case=" + c}, "use it with --mode=P");
    expect_usage_error({"1x2y3"}, "unexpected argument '1x2y3'");
    expect_usage_error({"--in-shapes=0-1x2"}, "bad value '0-1x2' for --in-shapes");
    expect_usage_error({"--in-shapes=0:1xx2"}, "bad shape '1xx2' for --in-shapes");
    expect_usage_error({"--op-attrs=0:axis"}, "bad value '0:axis' for --op-attrs");
    expect_usage_error({"--threads=1,x"}, "bad value 'x' for --threads");
    expect_usage_error({"--sweep=8"}, "expected MIN:MAX");
    expect_usage_error({"--sweep=1Q:2"}, "bad count '1Q'");
    expect_usage_error({"--max-ms-per-prb=0"}, "bad value '0' for --max-ms-per-prb");
    expect_usage_error({"--perf-template=xml"}, "bad value 'xml' for --perf-template");
    expect_usage_error({"--op=Relu"}, "bad value 'Relu' for --op");
}

TEST(QbenchBatch, OptionsThatApplyToNothingAreUsageErrors) {
    // Options apply to the cases after them; one after the last case used to be dropped
    // without a word (`--sweep=1K:4K --sweep-out=x` wrote perf_sweep.*).
    temp_files t;
    const std::string c = "--case=" + t.write("c.json", case_text);
    expect_usage_error({c, "--seed=1"}, "'--seed=1' is followed by no case");
    expect_usage_error({c, "--threads=1,2"}, "'--threads=1,2' is followed by no case");
    expect_usage_error({c, "--mode=P"}, "put it before --case, the SHAPE or --sweep");
    expect_usage_error({"64", "--backend=ref", "--reset"}, "'--backend=ref' is followed by no");
    expect_usage_error({"--sweep=1K:4K", "--sweep-out=x"}, "'--sweep-out=x' is followed by no");
    expect_usage_error({"--sweep-out=x", c}, "'--sweep-out=x' names the files of a --sweep, "
                                             "but no --sweep follows it");
    expect_usage_error({"--mode=P"}, "'--mode=P' is followed by no case");
    expect_usage_error({}, "nothing to run");
    const std::string knob_last = t.write("knob_last", c + " --seed=3\n");
    expect_usage_error({"--batch=" + knob_last}, "(in batch file " + knob_last + ")");

    // Before a case they apply, from a batch file too.
    const plan p = make_plan({"--sweep-out=x", "--sweep=1K:4K", "--batch=" + knob_last, c},
            plain());
    ASSERT_EQ(p.jobs.size(), 3u);
    EXPECT_EQ(p.jobs[0].sweep_out, "x");
    EXPECT_EQ(p.jobs[2].settings.seed, 3u);
}

TEST(QbenchBatch, ErrorsNameTheBatchFile) {
    temp_files t;
    t.write("inner", "--case=c.json --frobnicate\n");
    t.write("c.json", case_text);
    const std::string outer = t.write("outer", "--batch=inner\n");
    expect_usage_error({"--batch=" + outer}, "unknown option '--frobnicate'");
    expect_usage_error({"--batch=" + outer}, "(in batch file " + t.dir() + "/inner)");
}

TEST(QbenchBatch, RecursiveBatchesStop) {
    temp_files t;
    const std::string self = t.write("self", "--batch=self\n");
    expect_usage_error({"--batch=" + self}, "nest deeper than");
}

} // namespace
} // namespace qbench
} // namespace qgraph
