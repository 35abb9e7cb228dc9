// qbench end to end, in-process: states, reasons, summary line and exit status.

#include <algorithm>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "qgraph/config.hpp"
#include "temp_files.hpp"
#include "tools/qbench/driver.hpp"
#include "tools/qbench/report.hpp"

namespace qgraph {
namespace qbench {
namespace {

using qbench_test::temp_files;

struct run_result {
    int code;
    std::string out, err;
};

run_result run(const std::vector<std::string> &args) {
    std::ostringstream out, err;
    const int code = qbench_main(args, out, err);
    return {code, out.str(), err.str()};
}

std::string lt(int id, const char *dt, const char *shape, const char *stride) {
    return std::string(R"({"id": )") + std::to_string(id) + R"(, "dtype": ")" + dt
            + R"(", "shape": )" + shape + R"(, "stride": )" + stride
            + R"(, "layout_type": "strided", "property_type": "undef"})";
}

/// QuantizeLinear y(u8) = saturate(rne(x / 2) + 3) over 4 elements, with the given data.
std::string quantize_linear_case(const std::string &data) {
    return R"({"version": "0.1.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
      {"id": 0, "name": "q", "kind": "QuantizeLinear", "attrs": {},
       "inputs": [)" + lt(0, "f32", "[4]", "[1]") + ", " + lt(1, "f32", "[]", "[]") + ", "
            + lt(2, "u8", "[]", "[]") + R"(],
       "outputs": [)" + lt(3, "u8", "[4]", "[1]") + "]}]"
            + (data.empty() ? "" : ", \"data\": " + data) + "}";
}

const char *good_data
        = R"({"inputs": {"0": [1.0, 3.0, -1.0, "nan"], "1": [2.0], "2": [3]},
              "expected": {"3": [3, 5, 3, 0]}})";
const char *bad_data
        = R"({"inputs": {"0": [1.0, 3.0, -1.0, "nan"], "1": [2.0], "2": [3]},
              "expected": {"3": [4, 5, 2, 0]}})";

const char *softmax_case = R"({"version": "0.1.0", "engine_kind": "cpu", "fpmath_mode": "strict",
  "graph": [{"id": 0, "name": "s", "kind": "SoftMax", "attrs": {},
    "inputs": [{"id": 0, "dtype": "f32", "shape": [2, 3], "stride": [3, 1], "layout_type": "strided", "property_type": "undef"}],
    "outputs": [{"id": 1, "dtype": "f32", "shape": [2, 3], "stride": [1, 2], "layout_type": "strided", "property_type": "undef"}]}]})";

TEST(QbenchDriver, DataCasePasses) {
    temp_files t;
    const std::string c = t.write("ok.json", quantize_linear_case(good_data));
    const run_result r = run({"--case=" + c});
    EXPECT_EQ(r.code, exit_ok) << r.out;
    EXPECT_TRUE(std::regex_search(r.out,
            std::regex("^0:PASSED \\([0-9]+\\.[0-9][0-9] ms\\) __REPRO: --mode=C --backend=[a-z]+ "
                       "--case=" + c + "\n")))
            << r.out;
    EXPECT_NE(r.out.find("tests:1 passed:1 skipped:0 mistrusted:0 unimplemented:0 "
                         "invalid_arguments:0 failed:0 listed:0\n"),
            std::string::npos);
    EXPECT_EQ(r.err, "");
}

TEST(QbenchDriver, MismatchFailsWithTheFirstDifferences) {
    temp_files t;
    const std::string c = t.write("bad.json", quantize_linear_case(bad_data));
    const run_result r = run({"--backend=ref", "--case=" + c});
    EXPECT_EQ(r.code, exit_failed);
    EXPECT_NE(r.out.find("0:FAILED ("), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("    reason: output 3 (u8 4): 2 of 4 elements differ from expected\n"),
            std::string::npos)
            << r.out;
    EXPECT_NE(r.out.find("    mismatch: output 3 [0] (0): got 3, expected 4\n"), std::string::npos)
            << r.out;
    EXPECT_NE(r.out.find("    mismatch: output 3 [2] (2): got 3, expected 2\n"), std::string::npos)
            << r.out;
    EXPECT_NE(r.out.find("failed:1"), std::string::npos);
}

TEST(QbenchDriver, NegativeZeroDiffersFromPositiveZero) {
    temp_files t;
    // DequantizeLinear: f32(5 - 5) * 1 = +0, but the case expects -0.
    const std::string c = t.write("zero.json",
            R"({"version": "0.1.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
      {"id": 0, "name": "dq", "kind": "DequantizeLinear", "attrs": {},
       "inputs": [)" + lt(0, "u8", "[1]", "[1]") + ", " + lt(1, "f32", "[]", "[]") + ", "
                    + lt(2, "u8", "[]", "[]") + R"(],
       "outputs": [)" + lt(3, "f32", "[1]", "[1]") + R"(]}],
      "data": {"inputs": {"0": [5], "1": [1.0], "2": [5]}, "expected": {"3": [-0.0]}}})");
    const run_result r = run({"--case=" + c});
    EXPECT_EQ(r.code, exit_failed) << r.out;
    EXPECT_NE(r.out.find("got 0 (0x00000000), expected -0 (0x80000000)"), std::string::npos)
            << r.out;
}

TEST(QbenchDriver, StridedOutputIsComparedInLogicalOrder) {
    temp_files t;
    // y is column-major: element (i, j) at i + 2 j; data stays row-major.
    const std::string c = t.write("strided.json",
            R"({"version": "0.1.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
      {"id": 0, "name": "q", "kind": "QuantizeLinear", "attrs": {},
       "inputs": [)" + lt(0, "f32", "[2, 3]", "[4, 1]") + ", " + lt(1, "f32", "[]", "[]")
                    + R"(],
       "outputs": [)" + lt(3, "u8", "[2, 3]", "[1, 2]") + R"(]}],
      "data": {"inputs": {"0": [0, 1, 2, 3, 4, 5], "1": [1.0]},
               "expected": {"3": [0, 1, 2, 3, 4, 5]}}})");
    const run_result r = run({"--case=" + c});
    EXPECT_EQ(r.code, exit_ok) << r.out;
    EXPECT_NE(r.out.find("0:PASSED"), std::string::npos) << r.out;
}

TEST(QbenchDriver, NanOutputsMatchNan) {
    temp_files t;
    const std::string c = t.write("dql.json",
            R"({"version": "0.1.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": [
      {"id": 0, "name": "dql", "kind": "DynamicQuantizeLinear", "attrs": {},
       "inputs": [)" + lt(0, "f32", "[3]", "[1]") + R"(],
       "outputs": [)" + lt(1, "u8", "[3]", "[1]") + ", " + lt(2, "f32", "[]", "[]") + ", "
                    + lt(3, "u8", "[]", "[]") + R"(]}],
      "data": {"inputs": {"0": [1.0, "nan", 2.0]},
               "expected": {"1": [0, 0, 0], "2": ["nan"], "3": [255]}}})");
    const run_result r = run({"--case=" + c});
    EXPECT_EQ(r.code, exit_ok) << r.out;
}

TEST(QbenchDriver, FilledCaseIsComparedWithRef) {
    temp_files t;
    const std::string c = t.write("filled.json", quantize_linear_case(""));
    const run_result r = run({"--verbose=1", "--case=" + c, "--seed=3", "--case=" + c});
    EXPECT_EQ(r.code, exit_ok) << r.out;
    EXPECT_NE(r.out.find("0:PASSED"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1:PASSED"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("--seed=3 --case="), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("    ref run: partition 0 (QuantizeLinear): backend=ref kernel="),
            std::string::npos)
            << r.out;
}

TEST(QbenchDriver, StatesForBrokenAndUnsupportedCases) {
    temp_files t;
    const std::string syntax = t.write("syntax.json", "{\"graph\": [");
    const std::string softmax = t.write("softmax.json", softmax_case);
    const std::string count = t.write("count.json",
            quantize_linear_case(R"({"inputs": {"0": [1.0], "1": [2.0], "2": [3]},
                                     "expected": {"3": [3, 5, 3, 0]}})"));
    const std::string missing = t.write("missing_input.json",
            quantize_linear_case(R"({"inputs": {"0": [1, 2, 3, 4], "1": [2.0]},
                                     "expected": {"3": [3, 5, 3, 0]}})"));
    const std::string range = t.write("range.json",
            quantize_linear_case(R"({"inputs": {"0": [1, 2, 3, 4], "1": [2.0], "2": [300]},
                                     "expected": {"3": [3, 5, 3, 0]}})"));
    const std::string ok = t.write("ok.json", quantize_linear_case(good_data));
    const run_result r = run({"--case=" + syntax, "--case=" + softmax, "--case=" + count,
            "--case=" + missing, "--case=" + range, "--case=" + ok});
    EXPECT_EQ(r.code, exit_failed);
    EXPECT_NE(r.out.find("0:INVALID_ARGUMENTS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("1:UNIMPLEMENTED"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("    reason: partition 0 (SoftMax) is not supported: "),
            std::string::npos)
            << r.out;
    EXPECT_NE(r.out.find("2:INVALID_ARGUMENTS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("    reason: load: invalid_arguments: " + count + ": "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3:INVALID_ARGUMENTS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("data.inputs has no values for graph input 2"), std::string::npos)
            << r.out;
    EXPECT_NE(r.out.find("4:INVALID_ARGUMENTS"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("5:PASSED"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("tests:6 passed:1 skipped:0 mistrusted:0 unimplemented:1 "
                         "invalid_arguments:4 failed:0 listed:0\n"),
            std::string::npos)
            << r.out;
}

TEST(QbenchDriver, UnimplementedAloneExitsZero) {
    temp_files t;
    const std::string softmax = t.write("softmax.json", softmax_case);
    const run_result r = run({"--case=" + softmax});
    EXPECT_EQ(r.code, exit_ok) << r.out;
    EXPECT_NE(r.out.find("unimplemented:1"), std::string::npos);
}

TEST(QbenchDriver, BatchRunsEveryCaseInOrder) {
    temp_files t;
    t.write("cases/ok.json", quantize_linear_case(good_data));
    t.write("cases/softmax.json", softmax_case);
    const std::string b = t.write("batch",
            "# two cases\n--case=cases/ok.json\n--backend=ref --case=cases/softmax.json\n"
            "--reset --case=cases/ok.json # default knobs again\n");
    const run_result r = run({"--batch=" + b});
    EXPECT_EQ(r.code, exit_ok) << r.out;
    EXPECT_NE(r.out.find("0:PASSED"), std::string::npos);
    EXPECT_NE(r.out.find("1:UNIMPLEMENTED (") , std::string::npos);
    EXPECT_NE(r.out.find("--backend=ref --case=" + t.dir() + "/cases/softmax.json\n"),
            std::string::npos)
            << r.out;
    EXPECT_NE(r.out.find("2:PASSED"), std::string::npos);
    EXPECT_NE(r.out.find("tests:3 passed:2 skipped:0 mistrusted:0 unimplemented:1 "
                         "invalid_arguments:0 failed:0 listed:0\n"),
            std::string::npos);
}

TEST(QbenchDriver, UsageErrorsPrintOneLineAndRunNothing) {
    temp_files t;
    const std::string ok = t.write("ok.json", quantize_linear_case(good_data));
    for (const std::vector<std::string> &args : std::vector<std::vector<std::string>> {
                 {"--case=" + ok, "--bogus"}, {"--case=" + ok, "--case=/nonexistent/x.json"},
                 {"--backend=nope", "--case=" + ok}, {"--seed=x"}, {"--mode=P", "--in-shapes=0:4x", "--case=" + ok},
                 {}}) {
        const run_result r = run(args);
        EXPECT_EQ(r.code, exit_usage);
        EXPECT_EQ(r.out, ""); // the first case did not run either
        EXPECT_EQ(r.err.rfind("qbench: ", 0), 0u) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
    EXPECT_NE(run({"--mode=P", "--in-shapes=0:4x", "--case=" + ok}).err.find("bad shape '4x'"),
            std::string::npos);
}

TEST(QbenchDriver, LeavesTheLibraryBackendAsItWas) {
    temp_files t;
    const std::string c = t.write("ok.json", quantize_linear_case(good_data));
    const std::string before = get_backend();
    EXPECT_EQ(run({"--backend=ref", "--case=" + c}).code, exit_ok);
    EXPECT_EQ(get_backend(), before);
}

TEST(QbenchDriver, HelpExitsZero) {
    const run_result r = run({"--help"});
    EXPECT_EQ(r.code, exit_ok);
    EXPECT_NE(r.out.find("Usage: qbench"), std::string::npos);
    EXPECT_EQ(r.err, "");
}

} // namespace
} // namespace qbench
} // namespace qgraph
