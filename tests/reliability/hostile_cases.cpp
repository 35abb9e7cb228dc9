// The hostile-input table (hostile_cases.hpp). Most cases are one mutation of a small valid
// case (a per-tensor Quantize f32 [2,3] -> u8 with data), so each breaks exactly one rule;
// the rest are raw bytes or generated at size.

#include "reliability/hostile_cases.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace qrel {
namespace {

using json = nlohmann::ordered_json;
using qgraph::status;

json lt(uint64_t id, const std::string &dt, const std::vector<int64_t> &shape) {
    std::vector<int64_t> stride(shape.size(), 1);
    for (size_t i = shape.size(); i-- > 1;) stride[i - 1] = stride[i] * shape[i];
    return json {{"id", id}, {"dtype", dt}, {"shape", shape}, {"stride", stride},
            {"layout_type", "strided"}, {"property_type", "variable"}};
}

json quantize(uint64_t id, uint64_t in, uint64_t out, const std::vector<int64_t> &shape,
        const std::string &dst = "u8") {
    return json {{"id", id}, {"name", "q" + std::to_string(id)}, {"kind", "Quantize"},
            {"attrs",
                    {{"qtype", {{"type", "string"}, {"value", "per_tensor"}}},
                            {"scales", {{"type", "f32[]"}, {"value", {0.5}}}},
                            {"zps", {{"type", "s64[]"}, {"value", {3}}}}}},
            {"inputs", {lt(in, "f32", shape)}}, {"outputs", {lt(out, dst, shape)}}};
}

json dequantize(uint64_t id, uint64_t in, uint64_t out, const std::vector<int64_t> &shape) {
    json o = quantize(id, in, out, shape);
    o["kind"] = "Dequantize";
    o["name"] = "dq" + std::to_string(id);
    o["inputs"] = json::array({lt(in, "u8", shape)});
    o["outputs"] = json::array({lt(out, "f32", shape)});
    return o;
}

// The valid case every mutation starts from: Quantize 'q0' (id 0), tensor 0 -> tensor 1.
json base() {
    return json {{"version", "0.1.0"}, {"engine_kind", "cpu"}, {"fpmath_mode", "strict"},
            {"graph", {quantize(0, 0, 1, {2, 3})}},
            {"data",
                    {{"inputs", {{"0", {1.0, -2.5, 3.25, 0.0, 100.0, -100.0}}}},
                            {"expected", {{"1", {5, 0, 9, 3, 203, 0}}}}}}};
}

} // namespace

std::string base_text() { return base().dump(2); }

namespace {

using mutation = std::function<void(json &)>;

hostile_case mutated(std::string name, status s, std::string fragment, mutation m) {
    return {std::move(name),
            [m] {
                json j = base();
                m(j);
                return j.dump(2);
            },
            s, std::move(fragment)};
}

hostile_case raw(std::string name, status s, std::string fragment,
        std::function<std::string()> text) {
    return {std::move(name), std::move(text), s, std::move(fragment)};
}

json &op0(json &j) { return j["graph"][0]; }
json &in0(json &j) { return j["graph"][0]["inputs"][0]; }
json &out0(json &j) { return j["graph"][0]["outputs"][0]; }
json &attr(json &j, const char *name) { return j["graph"][0]["attrs"][name]; }

// n ops in one chain, Quantize and Dequantize alternating (tensor i -> tensor i + 1), small
// tensors so that the size of the graph, not of the data, is what is big.
json chain(size_t n) {
    json g = json::array();
    for (size_t i = 0; i < n; ++i)
        g.push_back(i % 2 == 0 ? quantize(i, i, i + 1, {1}) : dequantize(i, i, i + 1, {1}));
    return json {{"version", "0.1.0"}, {"graph", std::move(g)}};
}

// n independent minimal ops, written without building a DOM (10^6 ops stay cheap to make).
std::string many_ops_text(size_t n, const std::string &last_op) {
    std::string s = "{\"graph\": [\n";
    s.reserve(n * 64);
    for (size_t i = 0; i + 1 < n; ++i)
        s += "{\"id\": " + std::to_string(i) + ", \"kind\": \"Wildcard\", \"inputs\": [], "
                "\"outputs\": []},\n";
    return s + last_op + "\n]}";
}

std::string nested_arrays(size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
}

} // namespace

std::vector<hostile_case> hostile_cases() {
    const int64_t i64max = std::numeric_limits<int64_t>::max();
    std::vector<hostile_case> v;

    // --- JSON syntax: invalid_arguments with a line and column.
    const status ia = status::invalid_arguments;
    v.push_back(raw("empty_file", ia, "JSON syntax error", [] { return std::string(); }));
    v.push_back(raw("whitespace_only", ia, "JSON syntax error", [] { return " \n\t \n"; }));
    v.push_back(raw("truncated_half", ia, "JSON syntax error", [] {
        const std::string t = base_text();
        return t.substr(0, t.size() / 2);
    }));
    v.push_back(raw("truncated_last_brace", ia, "JSON syntax error", [] {
        const std::string t = base_text();
        return t.substr(0, t.rfind('}'));
    }));
    v.push_back(raw("binary_garbage", ia, "JSON syntax error", [] {
        std::string s;
        for (int i = 0; i < 512; ++i) s += static_cast<char>((i * 167 + 13) & 0xFF);
        return s;
    }));
    v.push_back(raw("nul_byte_in_key", ia, "JSON syntax error", [] {
        std::string t = base_text();
        t.insert(t.find("engine_kind") + 3, 1, '\0');
        return t;
    }));
    v.push_back(raw("invalid_utf8_in_name", ia, "JSON syntax error", [] {
        std::string t = base_text();
        const size_t at = t.find("\"q0\"");
        return t.replace(at + 1, 2, "\xC3\x28"); // a lead byte without its continuation
    }));
    v.push_back(raw("number_overflows_double", ia, "JSON syntax error", [] {
        std::string t = base_text();
        return t.replace(t.find("0.5"), 3, "1e400");
    }));
    v.push_back(raw("trailing_garbage", ia, "JSON syntax error",
            [] { return base_text() + "\n}}} trailing"; }));
    v.push_back(raw("two_documents", ia, "JSON syntax error",
            [] { return base_text() + base_text(); }));
    v.push_back(raw("comment", ia, "JSON syntax error",
            [] { return "// a comment\n" + base_text(); }));
    v.push_back(raw("unterminated_string", ia, "JSON syntax error",
            [] { return std::string("{\"graph\": [{\"kind\": \"Quantize"); }));
    v.push_back(raw("duplicate_top_level_key", ia, "duplicate key \"graph\"", [] {
        std::string t = base_text();
        return t.insert(t.find("\"graph\""), "\"graph\": [], ");
    }));
    v.push_back(raw("duplicate_key_in_tensor", ia, "duplicate key \"dtype\"", [] {
        std::string t = base_text();
        return t.insert(t.find("\"dtype\""), "\"dtype\": \"s8\", ");
    }));
    v.push_back(raw("top_level_array", ia, "the top level must be an object",
            [] { return std::string("[]"); }));
    v.push_back(raw("top_level_null", ia, "the top level must be an object",
            [] { return std::string("null"); }));
    v.push_back(raw("top_level_string", ia, "the top level must be an object",
            [] { return std::string("\"graph\""); }));
    // Deep nesting must not exhaust the stack anywhere: parsing, messages, destruction.
    v.push_back(raw("deeply_nested_graph", ia, "graph[0]: expected an object",
            [] { return "{\"graph\": [" + nested_arrays(200000) + "]}"; }));
    v.push_back(raw("deeply_nested_ignored_key", ia, "missing key \"graph\"",
            [] { return "{\"x\": " + nested_arrays(200000) + "}"; }));
    v.push_back(raw("deeply_nested_objects", ia, "graph[0]: missing key \"id\"", [] {
        std::string s = "{\"graph\": [{\"a\": ";
        for (int i = 0; i < 200000; ++i) s += "{\"a\": ";
        s += "1";
        for (int i = 0; i < 200000; ++i) s += "}";
        return s + "}]}";
    }));

    // --- Structure of the file: invalid_arguments naming the JSON path.
    v.push_back(mutated("missing_graph", ia, "missing key \"graph\"",
            [](json &j) { j.erase("graph"); }));
    v.push_back(mutated("graph_is_object", ia, "graph: must be a non-empty array",
            [](json &j) { j["graph"] = json::object(); }));
    v.push_back(mutated("graph_empty", ia, "graph: must be a non-empty array",
            [](json &j) { j["graph"] = json::array(); }));
    v.push_back(mutated("op_is_number", ia, "graph[0]: expected an object",
            [](json &j) { j["graph"][0] = 42; }));
    v.push_back(mutated("op_missing_id", ia, "graph[0]: missing key \"id\"",
            [](json &j) { op0(j).erase("id"); }));
    v.push_back(mutated("op_id_negative", ia, "graph[0].id: negative id -1",
            [](json &j) { op0(j)["id"] = -1; }));
    v.push_back(mutated("op_id_fraction", ia, "graph[0].id: expected an integer id",
            [](json &j) { op0(j)["id"] = 1.5; }));
    v.push_back(mutated("op_id_beyond_uint64", ia, "out of the uint64 range",
            [](json &j) { op0(j)["id"] = 1e30; }));
    v.push_back(mutated("op_id_string", ia, "graph[0].id: expected an integer id",
            [](json &j) { op0(j)["id"] = "0"; }));
    v.push_back(mutated("op_kind_unknown", ia, "unknown op kind \"Quantise\"",
            [](json &j) { op0(j)["kind"] = "Quantise"; }));
    v.push_back(mutated("op_kind_number", ia, "graph[0].kind: expected a string",
            [](json &j) { op0(j)["kind"] = 7; }));
    v.push_back(mutated("attrs_is_array", ia, "graph[0].attrs: expected an object",
            [](json &j) { op0(j)["attrs"] = json::array(); }));
    v.push_back(mutated("attr_unknown_type", ia, "unknown attribute type \"float\"",
            [](json &j) { attr(j, "scales")["type"] = "float"; }));
    v.push_back(mutated("attr_missing_value", ia, "graph[0].attrs.scales: missing key \"value\"",
            [](json &j) { attr(j, "scales").erase("value"); }));
    v.push_back(mutated("attr_value_wrong_json_type", ia, "graph[0].attrs.zps.value[0]: expected an integer",
            [](json &j) { attr(j, "zps")["value"] = json::array({"three"}); }));
    v.push_back(mutated("attr_s64_beyond_int64", ia, "is out of the int64 range",
            [](json &j) { attr(j, "zps")["value"] = json::array({9223372036854775808ull}); }));
    v.push_back(mutated("attr_f32_overflow", ia, "overflows f32",
            [](json &j) { attr(j, "scales")["value"] = json::array({1e39}); }));
    v.push_back(mutated("attr_bool_is_2", ia, "expected true, false, 0 or 1",
            [](json &j) { op0(j)["attrs"]["flag"] = {{"type", "bool"}, {"value", 2}}; }));
    v.push_back(mutated("inputs_missing", ia, "graph[0]: missing key \"inputs\"",
            [](json &j) { op0(j).erase("inputs"); }));
    v.push_back(mutated("inputs_is_object", ia, "graph[0].inputs: expected an array",
            [](json &j) { op0(j)["inputs"] = json::object(); }));
    v.push_back(mutated("tensor_missing_dtype", ia, "graph[0].inputs[0]: missing key \"dtype\"",
            [](json &j) { in0(j).erase("dtype"); }));
    v.push_back(mutated("dtype_unknown", status::invalid_data_type, "unknown data type \"f33\"",
            [](json &j) { in0(j)["dtype"] = "f33"; }));
    v.push_back(mutated("dtype_empty", status::invalid_data_type, "unknown data type \"\"",
            [](json &j) { in0(j)["dtype"] = ""; }));
    v.push_back(mutated("dtype_number", ia, "graph[0].inputs[0].dtype: expected a string",
            [](json &j) { in0(j)["dtype"] = 32; }));
    v.push_back(mutated("layout_unknown", ia, "unknown layout type \"blocked\"",
            [](json &j) { in0(j)["layout_type"] = "blocked"; }));
    v.push_back(mutated("strided_without_stride", ia, "missing key \"stride\"",
            [](json &j) { in0(j).erase("stride"); }));
    v.push_back(mutated("property_unknown", ia, "unknown property type \"volatile\"",
            [](json &j) { in0(j)["property_type"] = "volatile"; }));
    v.push_back(mutated("engine_kind_unknown", ia, "unknown engine kind \"tpu\"",
            [](json &j) { j["engine_kind"] = "tpu"; }));
    v.push_back(mutated("fpmath_mode_unknown", ia, "unknown fpmath mode \"fast\"",
            [](json &j) { j["fpmath_mode"] = "fast"; }));
    v.push_back(mutated("input_port_not_used", status::invalid_graph,
            "input_ports[0]: logical tensor 99 is not used by any op",
            [](json &j) { j["input_ports"] = json::array({99}); }));

    // --- Shapes and strides: invalid_shape, before anything is allocated.
    const status is = status::invalid_shape;
    v.push_back(mutated("negative_dim", is, "negative dimension -2", [](json &j) {
        in0(j)["shape"] = {2, -2};
    }));
    v.push_back(mutated("dim_fraction", ia, "graph[0].inputs[0].shape[1]: expected an integer",
            [](json &j) { in0(j)["shape"] = {2, 2.5}; }));
    v.push_back(mutated("dim_beyond_int64", ia, "is out of the int64 range",
            [](json &j) { in0(j)["shape"] = {2, 1e19}; }));
    v.push_back(mutated("stride_count_mismatch", is, "3 strides for a 2-D shape",
            [](json &j) { in0(j)["stride"] = {3, 1, 1}; }));
    v.push_back(mutated("element_count_overflows_int64", is, "element count", [](json &j) {
        in0(j)["shape"] = {int64_t(1) << 32, int64_t(1) << 32};
        in0(j)["stride"] = {1, 1};
    }));
    v.push_back(mutated("element_count_overflows_in_64_dims", is, "element count", [](json &j) {
        in0(j)["shape"] = std::vector<int64_t>(64, 2);
        in0(j)["stride"] = std::vector<int64_t>(64, 1);
    }));
    v.push_back(mutated("max_dim_times_two", is, "element count", [=](json &j) {
        in0(j)["shape"] = {i64max, 2};
        in0(j)["stride"] = {0, 0};
    }));
    v.push_back(mutated("stride_span_overflows", is, "span", [=](json &j) {
        in0(j)["stride"] = {i64max / 2, 1};
    }));
    v.push_back(mutated("byte_size_overflows", is, "size", [](json &j) {
        in0(j)["stride"] = {int64_t(1) << 61, 1}; // span fits int64, bytes do not
    }));
    v.push_back(mutated("negative_stride", is, "negative stride -3",
            [](json &j) { in0(j)["stride"] = {-3, 1}; }));
    v.push_back(mutated("output_stride_zero_aliases", is, "under which elements alias",
            [](json &j) { out0(j)["stride"] = {0, 1}; }));
    v.push_back(mutated("output_rows_overlap", is, "under which elements alias",
            [](json &j) { out0(j)["stride"] = {2, 1}; }));
    v.push_back(mutated("output_shape_differs", is, "must equal the input shape", [](json &j) {
        out0(j)["shape"] = {3, 2};
        out0(j)["stride"] = {2, 1};
        j.erase("data");
    }));
    // Strides pointing far outside a dense block: the library accepts them (nothing is read
    // there that the caller did not promise), but a file asking for 2^42 bytes cannot run.
    hostile_case far = mutated("strides_point_far_outside", status::success, "", [](json &j) {
        in0(j)["stride"] = {int64_t(1) << 40, 1};
        j.erase("data");
    });
    far.qbench_reason = "out of memory";
    v.push_back(far);
    hostile_case huge = mutated("tensor_larger_than_memory", status::success, "", [](json &j) {
        const std::vector<int64_t> s {int64_t(1) << 20, int64_t(1) << 20};
        op0(j) = quantize(0, 0, 1, s);
        j.erase("data");
    });
    huge.qbench_reason = "out of memory";
    v.push_back(huge);

    // --- Op rules (build_graph): the op's own status, prefixed with graph[i].
    const status go = status::invalid_graph_op;
    v.push_back(mutated("nan_static_scale", go, "a static scale must be finite and non-zero",
            [](json &j) { attr(j, "scales")["value"] = {"nan"}; }));
    v.push_back(mutated("inf_static_scale", go, "'scales'[0] = inf",
            [](json &j) { attr(j, "scales")["value"] = {"inf"}; }));
    v.push_back(mutated("minus_inf_static_scale", go, "'scales'[0] = -inf",
            [](json &j) { attr(j, "scales")["value"] = {"-inf"}; }));
    v.push_back(mutated("zero_static_scale", go, "a static scale must be finite and non-zero",
            [](json &j) { attr(j, "scales")["value"] = {0.0}; }));
    v.push_back(mutated("zp_above_u8", go, "'zps'[0] = 256 is outside the range of u8",
            [](json &j) { attr(j, "zps")["value"] = {256}; }));
    v.push_back(mutated("zp_below_s8", go, "'zps'[0] = -129 is outside the range of s8", [](json &j) {
        attr(j, "zps")["value"] = {-129};
        out0(j)["dtype"] = "s8";
        j.erase("data");
    }));
    v.push_back(mutated("zp_int64_max", go, "is outside the range of u8",
            [=](json &j) { attr(j, "zps")["value"] = {i64max}; }));
    v.push_back(mutated("two_scales_per_tensor", go, "needs exactly 1 scale",
            [](json &j) {
                attr(j, "scales")["value"] = {0.5, 0.25};
                attr(j, "zps")["value"] = {3, 3};
            }));
    v.push_back(mutated("zps_count_differs", go, "'zps' has 2 values but 'scales' has 1",
            [](json &j) { attr(j, "zps")["value"] = {1, 2}; }));
    v.push_back(mutated("axis_out_of_range", go, "attribute 'axis' = 5 is out of range", [](json &j) {
        attr(j, "qtype")["value"] = "per_channel";
        op0(j)["attrs"]["axis"] = {{"type", "s64"}, {"value", 5}};
    }));
    v.push_back(mutated("axis_int64_min", go, "is out of range", [](json &j) {
        attr(j, "qtype")["value"] = "per_channel";
        op0(j)["attrs"]["axis"] = {{"type", "s64"}, {"value", std::numeric_limits<int64_t>::min()}};
    }));
    v.push_back(mutated("per_channel_scale_count", go, "channels along axis", [](json &j) {
        attr(j, "qtype")["value"] = "per_channel";
        op0(j)["attrs"]["axis"] = {{"type", "s64"}, {"value", 1}};
    }));
    v.push_back(mutated("qtype_unknown", go, "attribute 'qtype' = \"per_row\"",
            [](json &j) { attr(j, "qtype")["value"] = "per_row"; }));
    v.push_back(mutated("attr_unknown_name", go, "unknown attribute 'scale'", [](json &j) {
        op0(j)["attrs"]["scale"] = {{"type", "f32"}, {"value", 1.0}};
    }));
    v.push_back(mutated("attr_scalar_for_vector", go, "attribute 'scales' must be f32[]",
            [](json &j) { attr(j, "scales") = {{"type", "f32"}, {"value", 0.5}}; }));
    v.push_back(mutated("scales_missing", go, "missing attribute 'scales'",
            [](json &j) { op0(j)["attrs"].erase("scales"); }));
    v.push_back(mutated("two_inputs", go, "has 2 inputs, expected 1",
            [](json &j) { op0(j)["inputs"].push_back(lt(7, "f32", {2, 3})); }));
    v.push_back(mutated("no_outputs", go, "has 0 outputs, expected 1",
            [](json &j) {
                op0(j)["outputs"] = json::array();
                j.erase("data");
            }));
    v.push_back(mutated("output_dtype_f32", status::invalid_data_type,
            "output 0 (dst): data type f32 is not allowed",
            [](json &j) { out0(j)["dtype"] = "f32"; }));
    v.push_back(mutated("input_dtype_boolean", status::invalid_data_type,
            "input 0 (src): data type boolean is not allowed", [](json &j) {
                in0(j)["dtype"] = "boolean";
                j.erase("data");
            }));
    hostile_case big_scales = {"scales_of_10M_values", [] {
                                   json j = base();
                                   attr(j, "scales")["value"] = std::vector<float>(10000000, 0.5f);
                                   return j.dump();
                               },
            go, "'scales' has 10000000"};
    big_scales.big = true;
    v.push_back(big_scales);
    hostile_case big_zps = {"zps_of_10M_values", [] {
                                json j = base();
                                attr(j, "zps")["value"] = std::vector<int64_t>(10000000, 1);
                                return j.dump();
                            },
            go, "'zps' has 10000000 values"};
    big_zps.big = true;
    v.push_back(big_zps);

    // --- Graph rules: invalid_graph.
    const status ig = status::invalid_graph;
    v.push_back(mutated("duplicate_op_ids", ig, "duplicate op id 0", [](json &j) {
        j["graph"].push_back(quantize(0, 5, 6, {2}));
    }));
    v.push_back(mutated("cycle_of_two", ig, "graph has a cycle", [](json &j) {
        j["graph"] = {dequantize(0, 1, 0, {2, 3}), quantize(1, 0, 1, {2, 3})};
        j.erase("data");
    }));
    v.push_back(mutated("self_loop", ig, "graph has a cycle", [](json &j) {
        json o = quantize(0, 0, 1, {2, 3});
        o["kind"] = "Wildcard"; // any kind may be in a graph; a cycle is the graph's concern
        o["inputs"] = json::array({lt(1, "u8", {2, 3})});
        j["graph"] = {o};
        j.erase("data");
    }));
    v.push_back(mutated("tensor_produced_twice", ig, "is produced by both", [](json &j) {
        j["graph"].push_back(quantize(1, 5, 1, {2, 3}));
        j.erase("data");
    }));
    v.push_back(mutated("tensor_dtype_disagrees", ig, "logical tensor 0 has dtype s32 here",
            [](json &j) {
                json o = quantize(1, 0, 5, {2, 3});
                o["inputs"][0]["dtype"] = "s32";
                j["graph"].push_back(o);
            }));
    v.push_back(mutated("tensor_shape_disagrees", ig, "logical tensor 0 has shape [6] here",
            [](json &j) { j["graph"].push_back(quantize(1, 0, 5, {6})); }));

    // --- The data section: invalid_arguments naming the tensor and the rule.
    v.push_back(mutated("data_too_short", ia, "data.inputs[\"0\"]: 5 values for 6 elements",
            [](json &j) { j["data"]["inputs"]["0"].erase(5); }));
    v.push_back(mutated("data_too_long", ia, "7 values for 6 elements",
            [](json &j) { j["data"]["inputs"]["0"].push_back(1.0); }));
    v.push_back(mutated("data_expected_out_of_u8", ia, "value 300 is out of the range of u8",
            [](json &j) { j["data"]["expected"]["1"][0] = 300; }));
    v.push_back(mutated("data_f32_overflow", ia, "is out of the range of f32",
            [](json &j) { j["data"]["inputs"]["0"][0] = 1e39; }));
    v.push_back(mutated("data_nan_for_u8", ia, "is not a value of u8",
            [](json &j) { j["data"]["expected"]["1"][0] = "nan"; }));
    v.push_back(mutated("data_fraction_for_u8", ia, "is not an integer",
            [](json &j) { j["data"]["expected"]["1"][0] = 2.5; }));
    v.push_back(mutated("data_unknown_section", ia, "unknown key \"outputs\"",
            [](json &j) { j["data"]["outputs"] = json::object(); }));
    v.push_back(mutated("data_key_not_an_id", ia, "key \"x\" is not a logical tensor id",
            [](json &j) { j["data"]["inputs"]["x"] = json::array(); }));
    v.push_back(mutated("data_key_is_output", ia, "logical tensor 1 is not a graph input",
            [](json &j) { j["data"]["inputs"]["1"] = {1, 2, 3, 4, 5, 6}; }));
    v.push_back(mutated("data_key_huge", ia, "is not a logical tensor id",
            [](json &j) { j["data"]["inputs"]["99999999999999999999999"] = json::array(); }));
    hostile_case big_data = {"data_of_10M_values", [] {
                                 json j = base();
                                 j["data"]["inputs"]["0"] = std::vector<double>(10000000, 1.0);
                                 return j.dump();
                             },
            ia, "10000000 values for 6 elements"};
    big_data.big = true;
    v.push_back(big_data);

    // --- Size of the graph itself.
    hostile_case million_dup = {"million_ops_duplicate_id", [] {
                                    return many_ops_text(1000000,
                                            "{\"id\": 17, \"kind\": \"Wildcard\", \"inputs\": [], "
                                            "\"outputs\": []}");
                                },
            ig, "duplicate op id 17"};
    million_dup.big = true;
    v.push_back(million_dup);
    hostile_case million_bad = {"million_ops_last_dtype_unknown", [] {
                                    return many_ops_text(1000000,
                                            "{\"id\": 999999, \"kind\": \"Wildcard\", \"inputs\": "
                                            "[{\"id\": 0, \"dtype\": \"q7\", \"shape\": [], "
                                            "\"layout_type\": \"any\"}], \"outputs\": []}");
                                },
            status::invalid_data_type, "graph[999999].inputs[0].dtype: unknown data type \"q7\""};
    million_bad.big = true;
    v.push_back(million_bad);
    hostile_case long_chain = {"chain_of_20000_ops_bad_last_zp", [] {
                                   json j = chain(20000);
                                   j["graph"][19999]["attrs"]["zps"]["value"] = {1000};
                                   return j.dump();
                               },
            go, "graph[19999]: Dequantize 'dq19999' (id 19999): attribute 'zps'[0] = 1000"};
    long_chain.big = true;
    v.push_back(long_chain);
    hostile_case long_cycle = {"cycle_of_20000_ops", [] {
                                   json j = chain(20000);
                                   // The last op writes the first op's input: one big ring.
                                   j["graph"][19999]["outputs"][0]["id"] = 0;
                                   return j.dump();
                               },
            ig, "graph: graph has a cycle through"};
    long_cycle.big = true;
    v.push_back(long_cycle);
    return v;
}

} // namespace qrel
