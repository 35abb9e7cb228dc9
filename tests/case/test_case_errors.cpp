// Every format rule: the status, the source, the JSON path and the rule in the message.

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "case/case_compare.hpp"

namespace qgraph {
namespace tools {
namespace test {
namespace {

using json = nlohmann::json;

json lt(size_t id, const char *dt, std::vector<int64_t> shape, std::vector<int64_t> stride) {
    return {{"id", id}, {"dtype", dt}, {"shape", shape}, {"stride", stride},
            {"layout_type", "strided"}, {"property_type", "variable"}};
}

json q_attrs() {
    return {{"qtype", {{"type", "string"}, {"value", "per_tensor"}}},
            {"axis", {{"type", "s64"}, {"value", 1}}},
            {"scales", {{"type", "f32[]"}, {"value", {0.5}}}},
            {"zps", {{"type", "s64[]"}, {"value", {2}}}}};
}

// Quantize 0 -> 1, Dequantize 1 -> 2, with data.
json base() {
    json j = {{"version", "0.1.0"}, {"engine_kind", "cpu"}, {"fpmath_mode", "strict"}};
    j["graph"] = json::array();
    j["graph"].push_back({{"id", 0}, {"name", "q"}, {"kind", "Quantize"}, {"attrs", q_attrs()},
            {"inputs", {lt(0, "f32", {2, 3}, {3, 1})}},
            {"outputs", {lt(1, "u8", {2, 3}, {3, 1})}}});
    j["graph"].push_back({{"id", 1}, {"name", "dq"}, {"kind", "Dequantize"},
            {"attrs", q_attrs()}, {"inputs", {lt(1, "u8", {2, 3}, {3, 1})}},
            {"outputs", {lt(2, "f32", {2, 3}, {3, 1})}}});
    j["data"] = {{"inputs", {{"0", {0.0, 0.5, 1.0, -1.0, 100.0, "nan"}}}},
            {"expected", {{"2", {1.0, 1.5, 2.0, 0.0, 51.0, 0.0}}}}};
    return j;
}

graph_case parse(const json &j) { return parse_case(j.dump(1), "case.json"); }

// Expects parse(base() changed by `edit`) to fail with `st` and every fragment; the source name
// is always one of them.
::testing::AssertionResult rejects(const std::function<void(json &)> &edit, status st,
        std::initializer_list<std::string> fragments) {
    json j = base();
    edit(j);
    const auto r = throws_error([&] { parse(j); }, st, fragments);
    if (!r) return r;
    return throws_error([&] { parse(j); }, st, {"case.json: "});
}

#define EXPECT_REJECTS(edit, st, ...) \
    EXPECT_TRUE(rejects([&](json & j) { edit; }, status::st, {__VA_ARGS__}))

TEST(case_errors, base_case_is_valid) {
    const graph_case c = parse(base());
    EXPECT_EQ(c.ops.size(), 2u);
    EXPECT_EQ(c.inputs.at(0).size(), 6u);
}

TEST(case_errors, json_syntax_error_has_line_and_column) {
    const std::string text = "{\n  \"version\": \"0.1.0\",\n  \"graph\": [ x ]\n}\n";
    //                          line 3, column 14 is the 'x'
    EXPECT_TRUE(throws_error([&] { parse_case(text, "bad.json"); }, status::invalid_arguments,
            {"bad.json:3:14: JSON syntax error: "}));
    EXPECT_TRUE(throws_error([&] { parse_case("{\"graph\": [1, 2,", "t.json"); },
            status::invalid_arguments, {"t.json:1:17: JSON syntax error: "}));
    EXPECT_TRUE(throws_error([&] { parse_case("", "empty.json"); }, status::invalid_arguments,
            {"empty.json:1:1: JSON syntax error"}));
    // A second line after a CRLF-free multi-line prefix, error at column 5.
    EXPECT_TRUE(throws_error([&] { parse_case("{}\n\n\n  } ", "x.json"); },
            status::invalid_arguments, {"x.json:4:3: JSON syntax error"}));
}

TEST(case_errors, json_duplicate_key) {
    EXPECT_TRUE(throws_error(
            [] { parse_case("{\"graph\": [], \"graph\": []}", "d.json"); },
            status::invalid_arguments, {"d.json: ", "duplicate key \"graph\""}));
}

TEST(case_errors, top_level) {
    EXPECT_TRUE(throws_error([] { parse_case("[]", "a.json"); }, status::invalid_arguments,
            {"a.json: ", "top level must be an object"}));
    EXPECT_REJECTS(j.erase("graph"), invalid_arguments, "missing key \"graph\"");
    EXPECT_REJECTS(j["graph"] = json::array(), invalid_arguments,
            "graph: must be a non-empty array");
    EXPECT_REJECTS(j["graph"] = json::object(), invalid_arguments,
            "graph: must be a non-empty array");
    EXPECT_REJECTS(j["version"] = 3, invalid_arguments, "version: expected a string");
    EXPECT_REJECTS(j["engine_kind"] = "tpu", invalid_arguments, "engine_kind: ",
            "unknown engine kind \"tpu\"");
    EXPECT_REJECTS(j["fpmath_mode"] = "fast", invalid_arguments, "fpmath_mode: ", "\"fast\"");
    EXPECT_REJECTS(j["fpmath_mode_apply_to_int"] = true, invalid_arguments,
            "fpmath_mode_apply_to_int: expected a string");
    EXPECT_REJECTS(j["fpmath_mode_apply_to_int"] = "yes", invalid_arguments,
            "fpmath_mode_apply_to_int: expected \"true\" or \"false\"");
}

TEST(case_errors, op_keys) {
    EXPECT_REJECTS(j["graph"][1].erase("id"), invalid_arguments,
            "graph[1]: missing key \"id\"");
    EXPECT_REJECTS(j["graph"][0].erase("kind"), invalid_arguments,
            "graph[0]: missing key \"kind\"");
    EXPECT_REJECTS(j["graph"][0].erase("inputs"), invalid_arguments,
            "graph[0]: missing key \"inputs\"");
    EXPECT_REJECTS(j["graph"][1].erase("outputs"), invalid_arguments,
            "graph[1]: missing key \"outputs\"");
    EXPECT_REJECTS(j["graph"][0] = 5, invalid_arguments, "graph[0]: expected an object");
    EXPECT_REJECTS(j["graph"][0]["name"] = 5, invalid_arguments,
            "graph[0].name: expected a string");
    EXPECT_REJECTS(j["graph"][0]["inputs"] = json::object(), invalid_arguments,
            "graph[0].inputs: expected an array");
    EXPECT_REJECTS(j["graph"][0]["kind"] = "Quantise", invalid_arguments,
            "graph[0].kind: unknown op kind \"Quantise\"");
    EXPECT_REJECTS(j["graph"][0]["attrs"] = json::array(), invalid_arguments,
            "graph[0].attrs: expected an object");
}

TEST(case_errors, ids) {
    EXPECT_REJECTS(j["graph"][1]["id"] = 0, invalid_graph,
            "graph[1].id: duplicate op id 0 (also graph[0])");
    EXPECT_REJECTS(j["graph"][1]["id"] = 1.5, invalid_arguments,
            "graph[1].id: expected an integer id, got the floating-point number 1.5");
    EXPECT_REJECTS(j["graph"][1]["id"] = 1.0, invalid_arguments, "graph[1].id: expected an integer id");
    EXPECT_REJECTS(j["graph"][1]["id"] = -1, invalid_arguments, "graph[1].id: negative id -1");
    EXPECT_REJECTS(j["graph"][1]["id"] = "1", invalid_arguments,
            "graph[1].id: expected an integer id, got string \"1\"");
    EXPECT_REJECTS(j["graph"][0]["inputs"][0]["id"] = "0", invalid_arguments,
            "graph[0].inputs[0].id: expected an integer id");
}

TEST(case_errors, huge_integers) {
    // Beyond uint64: nlohmann reads a double; beyond int64: an unsigned. Both are refused.
    const std::string text = base().dump();
    auto with = [&](const std::string &from, const std::string &to) {
        std::string t = text;
        const size_t at = t.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return t.replace(at, from.size(), to);
    };
    EXPECT_TRUE(throws_error(
            [&] { parse_case(with("\"shape\":[2,3]", "\"shape\":[99999999999999999999999,3]"), "h.json"); },
            status::invalid_arguments,
            {"h.json: graph[0].inputs[0].shape[0]: integer ", "e+22 is out of the int64 range"}));
    EXPECT_TRUE(throws_error(
            [&] { parse_case(with("\"shape\":[2,3]", "\"shape\":[9223372036854775808,3]"), "h.json"); },
            status::invalid_arguments,
            {"graph[0].inputs[0].shape[0]: integer 9223372036854775808 is out of the int64 range"}));
    EXPECT_TRUE(throws_error(
            [&] { parse_case(with("\"value\":1", "\"value\":-9223372036854775809"), "h.json"); },
            status::invalid_arguments, {"graph[0].attrs.axis.value: integer", "int64 range"}));
    EXPECT_TRUE(throws_error(
            [&] { parse_case(with("\"id\":0", "\"id\":18446744073709551616"), "h.json"); },
            status::invalid_arguments, {"graph[0].id: id", "out of the uint64 range"}));
    // The largest ids and dims are fine.
    EXPECT_NO_THROW(parse_case(with("\"id\":0,\"inputs\"", "\"id\":18446744073709551615,\"inputs\""), "h.json"));
    const graph_case c = parse_case(
            with("\"value\":1", "\"value\":-9223372036854775808"), "h.json");
    EXPECT_EQ(std::get<int64_t>(c.ops[0].get_attrs().at("axis")), INT64_MIN);
    // A number too large for a double is a JSON error, not a crash.
    EXPECT_TRUE(throws_error([&] { parse_case("{\n  \"graph\": [1e400]}", "h.json"); },
            status::invalid_arguments, {"h.json:2:13: JSON syntax error: ", "1e400"}));
}

TEST(case_errors, logical_tensor_keys) {
    EXPECT_REJECTS(j["graph"][1]["inputs"][0].erase("dtype"), invalid_arguments,
            "graph[1].inputs[0]: missing key \"dtype\"");
    EXPECT_REJECTS(j["graph"][1]["outputs"][0].erase("shape"), invalid_arguments,
            "graph[1].outputs[0]: missing key \"shape\"");
    EXPECT_REJECTS(j["graph"][1]["outputs"][0].erase("layout_type"), invalid_arguments,
            "graph[1].outputs[0]: missing key \"layout_type\"");
    EXPECT_REJECTS(j["graph"][0]["inputs"][0].erase("stride"), invalid_arguments,
            "graph[0].inputs[0]: missing key \"stride\"");
    EXPECT_REJECTS(j["graph"][0]["inputs"][0] = json::array(), invalid_arguments,
            "graph[0].inputs[0]: expected an object");
}

TEST(case_errors, dtype) {
    EXPECT_REJECTS(j["graph"][1]["outputs"][0]["dtype"] = "f33", invalid_data_type,
            "graph[1].outputs[0].dtype: unknown data type \"f33\"");
    EXPECT_REJECTS(j["graph"][0]["inputs"][0]["dtype"] = "undef", invalid_data_type,
            "graph[0].inputs[0].dtype: unknown data type \"undef\"");
    EXPECT_REJECTS(j["graph"][0]["inputs"][0]["dtype"] = 1, invalid_arguments,
            "graph[0].inputs[0].dtype: expected a string");
}

TEST(case_errors, shape_and_strides) {
    EXPECT_REJECTS((j["graph"][0]["inputs"][0]["shape"] = {2, 3, -4},
                           j["graph"][0]["inputs"][0]["stride"] = {3, 1, 1}),
            invalid_shape, "graph[0].inputs[0].shape[2]: negative dimension -4");
    EXPECT_REJECTS((j["graph"][0]["inputs"][0]["shape"] = {"2", 3}), invalid_arguments,
            "graph[0].inputs[0].shape[0]: expected an integer, got string \"2\"");
    EXPECT_REJECTS((j["graph"][0]["inputs"][0]["shape"] = {2.0, 3}), invalid_arguments,
            "graph[0].inputs[0].shape[0]: expected an integer, got the floating-point number 2.0");
    EXPECT_REJECTS(j["graph"][0]["inputs"][0]["shape"] = 6, invalid_arguments,
            "graph[0].inputs[0].shape: expected an array");
    EXPECT_REJECTS((j["graph"][0]["outputs"][0]["stride"] = {1}), invalid_shape,
            "graph[0].outputs[0].stride: 1 strides for a 2-D shape [2, 3]");
    EXPECT_REJECTS((j["graph"][0]["outputs"][0]["stride"] = {3, 1.5}), invalid_arguments,
            "graph[0].outputs[0].stride[1]: expected an integer");
    // Element count or span beyond int64: logical_tensor's own check, with the path added.
    EXPECT_REJECTS((j["graph"][0]["inputs"][0]["shape"] = {4294967296, 4294967296},
                           j["graph"][0]["inputs"][0]["stride"] = {4294967296, 1}),
            invalid_shape, "case.json: graph[0].inputs[0]: ", "overflows int64");
    EXPECT_REJECTS((j["graph"][0]["inputs"][0]["layout_type"] = "any",
                           j["graph"][0]["inputs"][0]["shape"] = {4294967296, 4294967296}),
            invalid_shape, "case.json: graph[0].inputs[0]: ", "overflows int64");
    EXPECT_REJECTS((j["graph"][0]["inputs"][0]["stride"] = {INT64_MAX, 1}), invalid_shape,
            "case.json: graph[0].inputs[0]: ", "overflows int64");
}

TEST(case_errors, layout_and_property) {
    EXPECT_REJECTS(j["graph"][0]["inputs"][0]["layout_type"] = "blocked", invalid_arguments,
            "graph[0].inputs[0].layout_type: unknown layout type \"blocked\"");
    EXPECT_REJECTS(j["graph"][0]["inputs"][0]["property_type"] = "const", invalid_arguments,
            "graph[0].inputs[0].property_type: unknown property type \"const\"");
    EXPECT_REJECTS(j["graph"][0]["inputs"][0]["property_type"] = 1, invalid_arguments,
            "graph[0].inputs[0].property_type: expected a string");
}

TEST(case_errors, attributes) {
    auto &&attr = [](json &j, const char *name) -> json & {
        return j["graph"][0]["attrs"][name];
    };
    EXPECT_REJECTS(attr(j, "axis")["type"] = "i32", invalid_arguments,
            "graph[0].attrs.axis.type: unknown attribute type \"i32\"");
    EXPECT_REJECTS(attr(j, "axis").erase("type"), invalid_arguments,
            "graph[0].attrs.axis: missing key \"type\"");
    EXPECT_REJECTS(attr(j, "axis").erase("value"), invalid_arguments,
            "graph[0].attrs.axis: missing key \"value\"");
    EXPECT_REJECTS(attr(j, "axis") = 1, invalid_arguments,
            "graph[0].attrs.axis: expected an object");
    EXPECT_REJECTS(attr(j, "axis")["value"] = "1", invalid_arguments,
            "graph[0].attrs.axis.value: expected an integer, got string \"1\"");
    EXPECT_REJECTS(attr(j, "axis")["value"] = 1.5, invalid_arguments,
            "graph[0].attrs.axis.value: expected an integer");
    EXPECT_REJECTS(attr(j, "zps")["value"] = 2, invalid_arguments,
            "graph[0].attrs.zps.value: expected an array");
    EXPECT_REJECTS((attr(j, "zps")["value"] = {2, 0.5}), invalid_arguments,
            "graph[0].attrs.zps.value[1]: expected an integer");
    EXPECT_REJECTS((attr(j, "scales")["value"] = {"a"}), invalid_arguments,
            "graph[0].attrs.scales.value[0]: expected a number or \"nan\"");
    EXPECT_REJECTS((attr(j, "scales")["value"] = {nullptr}), invalid_arguments,
            "graph[0].attrs.scales.value[0]: expected a number");
    EXPECT_REJECTS((attr(j, "scales")["value"] = {1e39}), invalid_arguments,
            "graph[0].attrs.scales.value[0]: value 1e+39 overflows f32");
    EXPECT_REJECTS(attr(j, "qtype")["value"] = 5, invalid_arguments,
            "graph[0].attrs.qtype.value: expected a string");
    EXPECT_REJECTS((attr(j, "flag") = {{"type", "bool"}, {"value", 2}}), invalid_arguments,
            "graph[0].attrs.flag.value: expected true, false, 0 or 1");
    EXPECT_REJECTS((attr(j, "flag") = {{"type", "bool"}, {"value", "true"}}), invalid_arguments,
            "graph[0].attrs.flag.value: expected true, false, 0 or 1");
    EXPECT_REJECTS((attr(j, "eps") = {{"type", "f32"}, {"value", {1}}}), invalid_arguments,
            "graph[0].attrs.eps.value: expected a number");
}

TEST(case_errors, inconsistent_logical_tensors) {
    EXPECT_REJECTS(j["graph"][1]["inputs"][0]["dtype"] = "s8", invalid_graph,
            "graph[1].inputs[0]: logical tensor 1 has dtype s8 here but u8 at graph[0].outputs[0]");
    EXPECT_REJECTS((j["graph"][1]["inputs"][0]["shape"] = {3, 2},
                           j["graph"][1]["inputs"][0]["stride"] = {2, 1}),
            invalid_graph,
            "graph[1].inputs[0]: logical tensor 1 has shape [3, 2] here but [2, 3] at "
            "graph[0].outputs[0]");
    EXPECT_REJECTS((j["graph"][1]["inputs"][0]["stride"] = {1, 2}), invalid_graph,
            "graph[1].inputs[0]: logical tensor 1 has strides [1, 2] here but [3, 1]");
    // The same tensor twice in one op, inconsistently.
    EXPECT_REJECTS(j["graph"][0]["outputs"][0]["id"] = 0, invalid_graph,
            "graph[0].outputs[0]: logical tensor 0 has dtype u8 here but f32 at graph[0].inputs[0]");
}

TEST(case_errors, dangling_ports) {
    EXPECT_REJECTS((j["input_ports"] = {0, 7}), invalid_graph,
            "input_ports[1]: logical tensor 7 is not used by any op");
    EXPECT_REJECTS((j["output_ports"] = {9}), invalid_graph,
            "output_ports[0]: logical tensor 9 is not used by any op");
    EXPECT_REJECTS((j["output_ports"] = {-2}), invalid_arguments, "output_ports[0]: negative id");
    EXPECT_REJECTS(j["input_ports"] = 0, invalid_arguments, "input_ports: expected an array");
    // A graph input is the caller's: no op may write it (execute would overwrite it).
    EXPECT_REJECTS((j["input_ports"] = {0, 1}), invalid_graph,
            "input_ports[1]: logical tensor 1 is an output of op 0 (graph[0], Quantize): a "
            "graph input cannot be written by an op");
    EXPECT_REJECTS((j["input_ports"] = {2}), invalid_graph,
            "input_ports[0]: logical tensor 2 is an output of op 1 (graph[1], Dequantize)");
    // A graph output is written by an op: the source of the chain is not one.
    EXPECT_REJECTS((j["output_ports"] = {2, 0}), invalid_graph,
            "output_ports[1]: logical tensor 0 is not an output of any op: a graph output must "
            "be written by an op");
}

TEST(case_errors, data_section) {
    EXPECT_REJECTS(j["data"] = json::array(), invalid_arguments, "data: expected an object");
    EXPECT_REJECTS(j["data"]["expect"] = json::object(), invalid_arguments,
            "data: unknown key \"expect\"");
    EXPECT_REJECTS(j["data"]["inputs"] = json::array(), invalid_arguments,
            "data.inputs: expected an object");
    EXPECT_REJECTS(j["data"]["inputs"]["x"] = json::array(), invalid_arguments,
            "data.inputs: key \"x\" is not a logical tensor id");
    EXPECT_REJECTS(j["data"]["inputs"]["-1"] = json::array(), invalid_arguments,
            "data.inputs: key \"-1\" is not a logical tensor id");
    EXPECT_REJECTS(j["data"]["inputs"]["99999999999999999999"] = json::array(),
            invalid_arguments, "data.inputs: key \"99999999999999999999\" is not a logical");
    EXPECT_REJECTS(j["data"]["inputs"]["2"] = json::array(), invalid_arguments,
            "data.inputs[\"2\"]: logical tensor 2 is not a graph input (graph inputs: 0)");
    EXPECT_REJECTS(j["data"]["inputs"]["1"] = json::array(), invalid_arguments,
            "data.inputs[\"1\"]: logical tensor 1 is not a graph input");
    EXPECT_REJECTS(j["data"]["expected"]["0"] = json::array(), invalid_arguments,
            "data.expected[\"0\"]: logical tensor 0 is not a graph output (graph outputs: 2)");
    EXPECT_REJECTS(j["data"]["expected"]["7"] = json::array(), invalid_arguments,
            "data.expected[\"7\"]: logical tensor 7 is not a graph output");
    // With explicit ports, those decide (an op's output may be a graph output too).
    EXPECT_REJECTS((j["input_ports"] = {0}, j["output_ports"] = {1}), invalid_arguments,
            "data.expected[\"2\"]: logical tensor 2 is not a graph output (graph outputs: 1)");
    EXPECT_REJECTS(j["data"]["inputs"]["0"] = 1.0, invalid_arguments,
            "data.inputs[\"0\"]: expected an array");
}

TEST(case_errors, data_lengths) {
    EXPECT_REJECTS((j["data"]["inputs"]["0"] = {1, 2, 3, 4, 5}), invalid_arguments,
            "data.inputs[\"0\"]: 5 values for 6 elements (shape [2, 3])");
    EXPECT_REJECTS(j["data"]["expected"]["2"].push_back(1.0), invalid_arguments,
            "data.expected[\"2\"]: 7 values for 6 elements");
    EXPECT_REJECTS(j["data"]["expected"]["2"] = json::array(), invalid_arguments,
            "data.expected[\"2\"]: 0 values for 6 elements");
}

TEST(case_errors, data_values) {
    auto &&in = [](json &j) -> json & { return j["data"]["inputs"]["0"]; };
    auto &&out = [](json &j) -> json & { return j["data"]["expected"]["2"]; };
    EXPECT_REJECTS(in(j)[3] = "abc", invalid_arguments,
            "data.inputs[\"0\"][3]: expected a number or \"nan\", \"inf\", \"-inf\", got string \"abc\"");
    EXPECT_REJECTS(in(j)[0] = "NaN", invalid_arguments, "data.inputs[\"0\"][0]: expected a number");
    EXPECT_REJECTS(in(j)[1] = nullptr, invalid_arguments,
            "data.inputs[\"0\"][1]: expected a number or \"nan\", \"inf\", \"-inf\", got null");
    EXPECT_REJECTS(in(j)[2] = true, invalid_arguments, "data.inputs[\"0\"][2]: expected a number");
    EXPECT_REJECTS(out(j)[5] = json::array({1}), invalid_arguments,
            "data.expected[\"2\"][5]: expected a number");
    EXPECT_REJECTS(in(j)[0] = 1e39, invalid_arguments,
            "data.inputs[\"0\"][0]: value 1e+39 is out of the range of f32");
}

// A one-op case whose input is of type `dt`, for integer range checks.
json typed_input(const char *dt, json values) {
    json j = base();
    j["graph"].erase(1);
    j["graph"][0]["kind"] = "Dequantize";
    j["graph"][0]["inputs"][0]["dtype"] = dt;
    j["graph"][0]["outputs"][0]["dtype"] = "f32";
    j["data"] = {{"inputs", {{"0", values}}}};
    return j;
}

TEST(case_errors, integer_data_values) {
    struct bad {
        const char *dt;
        json value;
        const char *fragment;
    };
    const bad cases[] = {
            {"u8", 256, "value 256 is out of the range of u8 [0, 255]"},
            {"u8", -1, "value -1 is out of the range of u8 [0, 255]"},
            {"s8", -129, "value -129 is out of the range of s8 [-128, 127]"},
            {"s8", 128, "out of the range of s8"},
            {"u4", 16, "out of the range of u4 [0, 15]"},
            {"s4", -9, "out of the range of s4 [-8, 7]"},
            {"u2", 4, "out of the range of u2 [0, 3]"},
            {"s2", 2, "out of the range of s2 [-2, 1]"},
            {"s16", 32768, "out of the range of s16"},
            {"u16", 65536, "out of the range of u16"},
            {"s32", 2147483648LL, "out of the range of s32"},
            {"boolean", 2, "out of the range of boolean [0, 1]"},
            {"u8", 1.5, "value 1.5 is not an integer (data type u8)"},
            {"s32", 1e10, "out of the range of s32"},
            {"u8", "nan", "string \"nan\" is not a value of u8"},
            {"s8", "-inf", "is not a value of s8"},
            {"u8", "5", "is not a value of u8"},
            {"s64", 9007199254740993LL, "s64 value 9007199254740993 is not exactly representable"},
            {"s64", 9223372036854775808ULL, "out of the range of s64"},
    };
    for (const bad &b : cases) {
        SCOPED_TRACE(std::string(b.dt) + " " + b.value.dump());
        json values = {0, 1, 0, 1, 0, 1};
        values[4] = b.value;
        EXPECT_TRUE(throws_error([&] { parse(typed_input(b.dt, values)); },
                status::invalid_arguments, {"case.json: data.inputs[\"0\"][4]: ", b.fragment}));
    }
}

TEST(case_errors, float_data_ranges) {
    struct bad {
        const char *dt;
        json value;
        const char *fragment;
    };
    const bad cases[] = {
            {"f16", 65520.0, "out of the range of f16 (largest finite 65504.0)"},
            {"f16", -1e6, "out of the range of f16"},
            {"bf16", 3.4e38, "out of the range of bf16"},
            {"f8_e4m3", 464.0, "out of the range of f8_e4m3"},
            {"f8_e4m3", "inf", "f8_e4m3 has no infinity"},
            {"f8_e5m2", 61440.0, "out of the range of f8_e5m2"},
            {"f4_e2m1", 7.0, "out of the range of f4_e2m1"},
            {"f4_e2m1", "nan", "f4_e2m1 has no NaN"},
            {"f8_e4m3fnuz", "-inf", "f8_e4m3fnuz has no infinity"},
    };
    for (const bad &b : cases) {
        SCOPED_TRACE(std::string(b.dt) + " " + b.value.dump());
        json values = {0, 1, 0, 1, 0, 1};
        values[2] = b.value;
        EXPECT_TRUE(throws_error([&] { parse(typed_input(b.dt, values)); },
                status::invalid_arguments, {"case.json: data.inputs[\"0\"][2]: ", b.fragment}));
    }
    // Just below the thresholds: rounds to the largest finite value.
    EXPECT_NO_THROW(parse(typed_input("f16", {65519.0, 0, 0, 0, 0, 0})));
    EXPECT_NO_THROW(parse(typed_input("f8_e4m3", {448.0, -463.0, "nan", 0, 0, 0})));
    EXPECT_NO_THROW(parse(typed_input("f32", {3.40282347e+38, "inf", "-inf", "nan", 0, 0})));
}

TEST(case_errors, load_case_file) {
    EXPECT_TRUE(throws_error([] { load_case_file("/nonexistent/dir/x.json"); },
            status::invalid_arguments, {"/nonexistent/dir/x.json: cannot open"}));
    EXPECT_TRUE(throws_error([] { load_case_file(shared_dir()); }, status::invalid_arguments,
            {shared_dir() + ": is a directory"}));
    // A file's syntax error names the file.
    const std::string path = (std::filesystem::temp_directory_path()
            / ("qgraph_case_bad_" + std::to_string(::getpid()) + ".json")).string();
    {
        std::ofstream f(path);
        f << "{\n\"graph\": [}\n";
    }
    EXPECT_TRUE(throws_error([&] { load_case_file(path); }, status::invalid_arguments,
            {path + ":2:11: JSON syntax error"}));
    std::remove(path.c_str());
}

TEST(case_errors, case_file_must_be_a_readable_regular_file_within_the_limit) {
    const std::string dir = (std::filesystem::temp_directory_path()
            / ("qgraph_case_files_" + std::to_string(::getpid()))).string();
    std::filesystem::create_directories(dir);
    // A FIFO is refused without waiting for a writer (the test would hang otherwise).
    const std::string fifo = dir + "/fifo.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_TRUE(throws_error([&] { load_case_file(fifo); }, status::invalid_arguments,
            {fifo + ": is not a regular file (a FIFO)"}));
    EXPECT_TRUE(throws_error([] { load_case_file("/dev/null"); }, status::invalid_arguments,
            {"/dev/null: is not a regular file (a character device)"}));
    // A regular file whose read fails: a clear error, not a stream exception.
    EXPECT_TRUE(throws_error([] { load_case_file("/proc/self/mem"); },
            status::invalid_arguments, {"/proc/self/mem: cannot read: "}));
    // Too large: by its size (a sparse file, nothing written), or while reading a file that
    // says it is empty, as /proc files do.
    const std::string huge = dir + "/huge.json";
    std::ofstream(huge).close();
    std::filesystem::resize_file(huge, max_case_file_bytes + 1);
    EXPECT_TRUE(throws_error([&] { load_case_file(huge); }, status::invalid_arguments,
            {huge + ": is " + std::to_string(max_case_file_bytes + 1)
                    + " bytes, larger than the limit of " + std::to_string(max_case_file_bytes)
                    + " bytes"}));
    EXPECT_TRUE(throws_error([] { read_text_file("/proc/self/status", 16); },
            status::invalid_arguments,
            {"/proc/self/status: is larger than the limit of 16 bytes"}));
    EXPECT_EQ(read_text_file("/proc/self/status").rfind("Name:", 0), 0u);
    std::filesystem::remove_all(dir);
}

// Truncated and corrupted files: a qgraph::error or a valid case, never another exception or a
// crash (run under the sanitizers to see memory errors).
TEST(case_errors, malformed_input_never_escapes) {
    const std::string text = base().dump(1);
    size_t errors = 0, parsed = 0;
    auto attempt = [&](const std::string &t) {
        try {
            parse_case(t, "m.json");
            ++parsed;
        } catch (const error &e) {
            ++errors;
            EXPECT_EQ(std::string(e.what()).rfind("m.json", 0), 0u) << e.what();
        } catch (const std::exception &e) {
            ADD_FAILURE() << "non-qgraph exception: " << e.what() << "\n" << t;
        }
    };
    for (size_t n = 0; n < text.size(); ++n) attempt(text.substr(0, n));
    std::mt19937 gen(2024);
    const std::string alphabet = "{}[]\",:-+.0123456789eE \n\tnulltruefalse\\\x01\xff";
    for (int i = 0; i < 3000; ++i) {
        std::string t = text;
        for (int k = 0; k < 1 + static_cast<int>(gen() % 3); ++k)
            t[gen() % t.size()] = alphabet[gen() % alphabet.size()];
        attempt(t);
    }
    EXPECT_GT(errors, text.size()); // every strict prefix is invalid
    EXPECT_GT(parsed, 0u); // some mutations (e.g. inside data values) stay valid
}

} // namespace
} // namespace test
} // namespace tools
} // namespace qgraph
