// Knob parsing, repro lines and --help.

#include <gtest/gtest.h>

#include "qgraph/qgraph.hpp"
#include "tools/qbench/batch.hpp"
#include "tools/qbench/options.hpp"

namespace qgraph {
namespace qbench {
namespace {

TEST(QbenchOptions, ParsesEveryKnob) {
    knobs k;
    EXPECT_TRUE(parse_knob("--mode=C", k));
    EXPECT_EQ(k.mode, mode::correctness);
    EXPECT_TRUE(parse_knob("--mode=p", k)); // parsed; make_plan refuses it for now
    EXPECT_EQ(k.mode, mode::performance);
    EXPECT_TRUE(parse_knob("--backend=ref", k));
    EXPECT_EQ(k.backends, std::vector<std::string>{"ref"});
    EXPECT_TRUE(parse_knob("--backend=auto", k));
    EXPECT_EQ(k.backends, std::vector<std::string>{""});
    EXPECT_TRUE(parse_knob("--seed=18446744073709551615", k));
    EXPECT_EQ(k.seed, 18446744073709551615ull);
    EXPECT_TRUE(parse_knob("--verbose=2", k));
    EXPECT_EQ(k.verbose, 2);
    EXPECT_FALSE(parse_knob("--case=x", k));
    EXPECT_FALSE(parse_knob("--modes=C", k));
    EXPECT_FALSE(parse_knob("--reset", k));
}

TEST(QbenchOptions, EveryLibraryBackendIsAccepted) {
    for (const auto &name : get_backend_names()) {
        knobs k;
        EXPECT_TRUE(parse_knob("--backend=" + name, k)) << name;
        EXPECT_EQ(k.backends, std::vector<std::string>{name});
    }
}

TEST(QbenchOptions, BadValuesThrow) {
    knobs k;
    for (const char *arg : {"--mode=", "--mode=Q", "--backend=", "--backend=REF", "--seed=-1",
                 "--seed=1x", "--seed=", "--seed=99999999999999999999", "--verbose=3",
                 "--verbose=-1", "--mode", "--backend", "--seed", "--verbose"})
        EXPECT_THROW(parse_knob(arg, k), usage_error) << arg;
}

TEST(QbenchOptions, ReproLineIsExplicit) {
    job j;
    j.settings.backends = {""};
    j.case_path = "a/b.json";
    EXPECT_EQ(repro_args(j), "--mode=C --backend=auto --case=a/b.json");
    j.settings.backends = {"dnnl"};
    j.settings.seed = 3;
    j.settings.verbose = 1; // not part of the repro
    j.case_path = "/x.json";
    EXPECT_EQ(repro_args(j), "--mode=C --backend=dnnl --seed=3 --case=/x.json");
}

TEST(QbenchOptions, HelpDocumentsEveryOption) {
    const std::string h = help_text();
    for (const char *opt : {"--case=FILE", "--batch=FILE", "--reset", "--mode=C", "--mode=P",
                 "--backend=LIST", "--seed=N", "--verbose=N", "--help",
                 "PASSED", "FAILED", "SKIPPED", "UNIMPLEMENTED", "INVALID_ARGUMENTS",
                 "Exit status"})
        EXPECT_NE(h.find(opt), std::string::npos) << opt;
    for (const auto &name : get_backend_names()) EXPECT_NE(h.find(name), std::string::npos);
}

} // namespace
} // namespace qbench
} // namespace qgraph
