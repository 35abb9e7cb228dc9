// Knob parsing, repro lines and --help.

#include <gtest/gtest.h>

#include <algorithm>

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
    EXPECT_EQ(k.policies, std::vector<std::string>{"fusion"});
    EXPECT_TRUE(parse_knob("--policy=debug,fusion", k));
    EXPECT_EQ(k.policies, (std::vector<std::string>{"debug", "fusion"}));
    EXPECT_TRUE(parse_knob("--seed=18446744073709551615", k));
    EXPECT_EQ(k.seed, 18446744073709551615ull);
    EXPECT_TRUE(parse_knob("--verbose=2", k));
    EXPECT_EQ(k.verbose, 2);
    EXPECT_EQ(k.fill, fill_dist::grid);
    EXPECT_TRUE(parse_knob("--fill=normal", k));
    EXPECT_EQ(k.fill, fill_dist::normal);
    EXPECT_TRUE(parse_knob("--fill=grid", k));
    EXPECT_EQ(k.fill, fill_dist::grid);
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
                 "--verbose=-1", "--mode", "--backend", "--seed", "--verbose", "--policy=",
                 "--policy=fused", "--policy=fusion,", "--fill=", "--fill=gauss", "--fill"})
        EXPECT_THROW(parse_knob(arg, k), usage_error) << arg;
}

TEST(QbenchOptions, ParsesTheTypeAndGranularityKnobs) {
    knobs k;
    for (const char *t : {"s8", "u8", "s32", "s16", "u16", "s4", "u4", "s2", "u2", "f8_e4m3",
                 "f8_e4m3fnuz", "f8_e5m2", "f8_e5m2fnuz", "f4_e2m1", "none"}) {
        EXPECT_TRUE(parse_knob(std::string("--zp=") + t, k)) << t;
        EXPECT_EQ(k.op.zp, t);
    }
    EXPECT_TRUE(parse_knob("--group=1x128", k));
    EXPECT_EQ(k.op.group, (std::vector<int64_t> {1, 128}));
    EXPECT_TRUE(parse_knob("--group=none", k));
    EXPECT_TRUE(k.op.group.empty());
    for (const char *t : {"f32", "f16", "bf16", "e8m0"}) {
        EXPECT_TRUE(parse_knob(std::string("--scale-dt=") + t, k)) << t;
        EXPECT_EQ(k.op.scale_dt, t);
    }
    EXPECT_TRUE(parse_knob("--saturate=0", k));
    EXPECT_EQ(k.op.saturate, 0);
    EXPECT_TRUE(parse_knob("--saturate=1", k));
    EXPECT_EQ(k.op.saturate, 1);
    EXPECT_TRUE(parse_knob("--opset=21", k));
    EXPECT_EQ(k.op.opset, 21);
    for (const char *name : {"group", "scale-dt", "saturate", "opset"})
        EXPECT_TRUE(is_list_knob(name)) << name;
}

TEST(QbenchOptions, BadTypeAndGranularityValuesThrow) {
    knobs k;
    for (const char *arg : {"--zp=f32", "--zp=e8m0", "--zp=s64", "--zp=S4", "--group=128",
                 "--group=0x128", "--group=1x", "--group=x4", "--group=1x2x3", "--group=-1x4",
                 "--group=1x99999999999999999999", "--scale-dt=s8", "--scale-dt=f8_e4m3",
                 "--scale-dt=", "--saturate=2", "--saturate=true", "--opset=0", "--opset=-1",
                 "--opset=x"})
        EXPECT_THROW(parse_knob(arg, k), usage_error) << arg;
    try {
        parse_knob("--zp=s64", k);
    } catch (const usage_error &e) { // names the option, the value and what is allowed
        EXPECT_NE(std::string(e.what()).find("bad value 's64' for --zp"), std::string::npos);
        EXPECT_NE(std::string(e.what()).find("f8_e5m2fnuz"), std::string::npos);
    }
    EXPECT_EQ(k.op, op_knobs {}); // a rejected value changes nothing
}

TEST(QbenchOptions, ReproLineNamesTheTypeKnobsThatAreSet) {
    op_knobs o;
    o.op = "DequantizeLinear";
    EXPECT_EQ(op_knob_args(o),
            "--op=DequantizeLinear --qtype=per_tensor --zp=none --scale=0.5");
    o.zp = "s4";
    o.group = {1, 128};
    o.scale_dt = "bf16";
    o.opset = 23;
    o.saturate = 0;
    const std::string args = op_knob_args(o);
    EXPECT_EQ(args,
            "--op=DequantizeLinear --qtype=per_tensor --zp=s4 --scale=0.5 --group=1x128 "
            "--scale-dt=bf16 --saturate=0 --opset=23");
    // The repro parses back to the same knobs.
    knobs k;
    size_t at = 0;
    while (at < args.size()) {
        const size_t end = std::min(args.find(' ', at), args.size());
        EXPECT_TRUE(parse_knob(args.substr(at, end - at), k));
        at = end + 1;
    }
    EXPECT_EQ(k.op, o);
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
    j.settings.fill = fill_dist::normal;
    EXPECT_EQ(repro_args(j), "--mode=C --backend=dnnl --seed=3 --fill=normal --case=/x.json");
}

TEST(QbenchOptions, HelpDocumentsEveryOption) {
    const std::string h = help_text();
    for (const char *opt : {"--case=FILE", "--batch=FILE", "--reset", "--mode=C", "--mode=P",
                 "--backend=LIST", "--seed=N", "--fill=grid|normal", "--verbose=N", "--help", "--group=AxB",
                 "--scale-dt=", "--saturate=", "--opset=", "f4_e2m1",
                 "PASSED", "FAILED", "SKIPPED", "UNIMPLEMENTED", "INVALID_ARGUMENTS",
                 "Exit status"})
        EXPECT_NE(h.find(opt), std::string::npos) << opt;
    for (const auto &name : get_backend_names()) EXPECT_NE(h.find(name), std::string::npos);
}

} // namespace
} // namespace qbench
} // namespace qgraph
