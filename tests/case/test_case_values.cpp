// What the reader keeps and what the writer prints: 0-D tensors, missing attrs, integers as
// floats, bool as 0/1, layouts without strides, data values (nan/inf, exact floats), and the
// round trip of cases built through the API.

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <regex>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "case/case_compare.hpp"

namespace qgraph {
namespace tools {
namespace test {
namespace {

using json = nlohmann::json;
using lt_t = logical_tensor;

graph_case round_trip(const graph_case &c) {
    return parse_case(write_case(c), "written");
}

const char *const one_op_text = R"({
  "graph": [
    {"id": 7, "kind": "QuantizeLinear",
     "inputs": [
       {"id": 0, "dtype": "f32", "shape": [3], "stride": [1], "layout_type": "strided"},
       {"id": 1, "dtype": "f32", "shape": [], "stride": [], "layout_type": "strided", "property_type": "constant"},
       {"id": 2, "dtype": "u8", "shape": [], "layout_type": "strided", "stride": []}],
     "outputs": [
       {"id": 3, "dtype": "u8", "shape": [3], "stride": [], "layout_type": "any", "property_type": "variable"}]}
  ],
  "data": {"inputs": {"0": [1.5, "-inf", "nan"], "1": [2], "2": [128]},
           "expected": {"3": [129, 0, 0]}}
})";

TEST(case_values, minimal_file_defaults) {
    const graph_case c = parse_case(one_op_text, "min.json");
    EXPECT_EQ(c.version, "0.1.0");
    EXPECT_EQ(c.engine_kind, engine::kind::cpu);
    EXPECT_EQ(c.fpmath, fpmath_mode::strict);
    EXPECT_EQ(c.fpmath_apply_to_int, "");
    EXPECT_TRUE(c.input_ports.empty());
    ASSERT_EQ(c.ops.size(), 1u);
    const op &o = c.ops[0];
    EXPECT_EQ(o.get_id(), 7u);
    EXPECT_EQ(o.get_kind(), op::kind::QuantizeLinear);
    EXPECT_EQ(o.get_name(), ""); // "name" missing
    EXPECT_TRUE(o.get_attrs().empty()); // "attrs" missing
    EXPECT_EQ(o.get_input_logical_tensors()[0].get_property_type(), lt_t::property_type::undef);
    EXPECT_EQ(o.get_input_logical_tensors()[1].get_property_type(),
            lt_t::property_type::constant);
    EXPECT_EQ(c.graph_inputs(), (std::vector<size_t> {0, 1, 2}));
    EXPECT_EQ(c.graph_outputs(), (std::vector<size_t> {3}));
    EXPECT_EQ(round_trip(c).ops[0].get_attrs().size(), 0u);
    EXPECT_EQ(case_difference(c, round_trip(c)), "");
}

TEST(case_values, zero_d_tensors) {
    const graph_case c = parse_case(one_op_text, "min.json");
    const lt_t s = c.find_logical_tensor(1);
    EXPECT_EQ(s.get_ndims(), 0);
    EXPECT_TRUE(s.has_known_shape());
    EXPECT_TRUE(s.get_dims().empty());
    EXPECT_TRUE(s.get_strides().empty());
    EXPECT_EQ(s.get_element_num(), 1);
    EXPECT_EQ(c.inputs.at(1), tensor_values {2.0});
    EXPECT_EQ(c.inputs.at(2), tensor_values {128.0});
    const std::string text = write_case(c);
    EXPECT_NE(text.find("\"shape\": [], \"stride\": []"), std::string::npos) << text;
    EXPECT_EQ(round_trip(c).find_logical_tensor(2).get_ndims(), 0);
    // A 0-D tensor holds one value: [] is a length error.
    std::string bad = one_op_text;
    bad.replace(bad.find("\"1\": [2]"), 8, "\"1\": []");
    EXPECT_TRUE(throws_error([&] { parse_case(bad, "b.json"); }, status::invalid_arguments,
            {"b.json: data.inputs[\"1\"]: 0 values for 1 elements (shape [])"}));
}

TEST(case_values, empty_tensor_takes_empty_array) {
    std::string text = one_op_text;
    text.replace(text.find("\"shape\": [3], \"stride\": [1]"), 27, "\"shape\": [0, 3], \"stride\": [3, 1]");
    text.replace(text.find("\"0\": [1.5, \"-inf\", \"nan\"]"), 25, "\"0\": []");
    const graph_case c = parse_case(text, "e.json");
    EXPECT_TRUE(c.inputs.at(0).empty());
    EXPECT_EQ(case_difference(c, round_trip(c)), "");
}

TEST(case_values, layouts_without_strides) {
    const graph_case c = parse_case(one_op_text, "min.json");
    const lt_t out = c.find_logical_tensor(3);
    EXPECT_EQ(out.get_layout_type(), lt_t::layout_type::any);
    EXPECT_TRUE(out.get_strides().empty());
    // oneDNN writes [INT64_MIN] as the stride of `any` / `undef` layouts; missing is fine too.
    json j = json::parse(one_op_text);
    j["graph"][0]["outputs"][0]["stride"] = {INT64_MIN};
    j["graph"][0]["inputs"][0]["layout_type"] = "undef";
    j["graph"][0]["inputs"][0]["stride"] = {INT64_MIN};
    j["graph"][0]["inputs"][2]["layout_type"] = "any";
    j["graph"][0]["inputs"][2].erase("stride");
    const graph_case d = parse_case(j.dump(), "l.json");
    EXPECT_TRUE(d.find_logical_tensor(3).get_strides().empty());
    EXPECT_EQ(d.find_logical_tensor(0).get_layout_type(), lt_t::layout_type::undef);
    EXPECT_TRUE(d.find_logical_tensor(0).get_strides().empty());
    EXPECT_EQ(d.find_logical_tensor(0).get_dims(), (lt_t::dims {3}));
    EXPECT_EQ(case_difference(d, round_trip(d)), "");
    // Even ignored strides must be integers.
    j["graph"][0]["outputs"][0]["stride"] = {"x"};
    EXPECT_TRUE(throws_error([&] { parse_case(j.dump(), "l.json"); }, status::invalid_arguments,
            {"l.json: graph[0].outputs[0].stride[0]: expected an integer"}));
}

const char *const attrs_text = R"({
  "graph": [{"id": 0, "name": "n", "kind": "Quantize",
    "attrs": {
      "scales": {"type": "f32[]", "value": [1, 0.1, -0.0, 1e-45, 3.4028234663852886e38, "nan", "-inf"]},
      "zps": {"type": "s64[]", "value": [-9223372036854775808, 9223372036854775807, 0]},
      "axis": {"type": "s64", "value": -1},
      "eps": {"type": "f32", "value": 0},
      "alpha": {"type": "f32", "value": 1e-05},
      "keep_dims": {"type": "bool", "value": 1},
      "special_zero": {"type": "bool", "value": false},
      "transpose_a": {"type": "bool", "value": true},
      "qtype": {"type": "string", "value": "per_channel"},
      "made_up": {"type": "string", "value": "tab\tquote\"unicode\u00e9"},
      "empty_list": {"type": "s64[]", "value": []}
    },
    "inputs": [{"id": 0, "dtype": "f32", "shape": [7], "stride": [1], "layout_type": "strided"}],
    "outputs": [{"id": 1, "dtype": "s8", "shape": [7], "stride": [1], "layout_type": "strided"}]}]
})";

TEST(case_values, attributes_kept_exactly) {
    const graph_case c = parse_case(attrs_text, "a.json");
    const auto &a = c.ops[0].get_attrs();
    ASSERT_EQ(a.size(), 11u);
    const auto &scales = std::get<std::vector<float>>(a.at("scales"));
    ASSERT_EQ(scales.size(), 7u);
    EXPECT_EQ(scales[0], 1.0f); // integer written where f32 is expected
    EXPECT_EQ(scales[1], 0.1f);
    EXPECT_EQ(scales[2], 0.0f);
    EXPECT_TRUE(std::signbit(scales[2]));
    EXPECT_EQ(scales[3], std::numeric_limits<float>::denorm_min());
    EXPECT_EQ(scales[4], std::numeric_limits<float>::max());
    EXPECT_TRUE(std::isnan(scales[5]));
    EXPECT_EQ(scales[6], -std::numeric_limits<float>::infinity());
    EXPECT_EQ(std::get<std::vector<int64_t>>(a.at("zps")),
            (std::vector<int64_t> {INT64_MIN, INT64_MAX, 0}));
    EXPECT_EQ(std::get<int64_t>(a.at("axis")), -1);
    EXPECT_EQ(std::get<float>(a.at("eps")), 0.0f); // integer 0 as f32
    EXPECT_EQ(std::get<float>(a.at("alpha")), 1e-05f);
    EXPECT_EQ(std::get<bool>(a.at("keep_dims")), true); // oneDNN's 0 / 1
    EXPECT_EQ(std::get<bool>(a.at("special_zero")), false);
    EXPECT_EQ(std::get<bool>(a.at("transpose_a")), true);
    EXPECT_EQ(std::get<std::string>(a.at("made_up")), "tab\tquote\"unicode\xc3\xa9");
    EXPECT_TRUE(std::get<std::vector<int64_t>>(a.at("empty_list")).empty());

    const graph_case d = round_trip(c);
    EXPECT_EQ(case_difference(c, d), "");
    const std::string text = write_case(c);
    // benchdnn needs "type" before "value"; bool is written as oneDNN writes it.
    EXPECT_NE(text.find("\"keep_dims\": {\"type\": \"bool\", \"value\": 1}"), std::string::npos) << text;
    EXPECT_NE(text.find("\"special_zero\": {\"type\": \"bool\", \"value\": 0}"), std::string::npos);
    EXPECT_NE(text.find("\"value\": [1.0, 0.1, -0.0, 1e-45, 3.4028235e+38, \"nan\", \"-inf\"]"),
            std::string::npos)
            << text;
    EXPECT_NE(text.find("\"alpha\": {\"type\": \"f32\", \"value\": 1e-05}"), std::string::npos);
    const std::regex type_value("\\{\"type\": \"[a-z0-9\\[\\]]+\", \"value\": ");
    size_t attrs = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), type_value);
            it != std::sregex_iterator(); ++it)
        ++attrs;
    EXPECT_EQ(attrs, 11u) << text;
}

TEST(case_values, f32_attributes_round_trip_bit_exactly) {
    std::mt19937 gen(12345);
    std::vector<float> values {0.1f, 1.0f / 3, 16777217.0f, -0.0f,
            std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
            std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
            std::nextafter(1.0f, 2.0f), 1e-38f, 65504.0f, 1e10f};
    for (int i = 0; i < 2000; ++i) {
        uint32_t bits = gen();
        float f;
        std::memcpy(&f, &bits, sizeof f);
        if (std::isfinite(f)) values.push_back(f);
    }
    graph_case c = parse_case(attrs_text, "a.json");
    op o(0, op::kind::Quantize, "n");
    o.set_attr("scales", values);
    o.set_attr("one", values[1]);
    o.add_inputs(c.ops[0].get_input_logical_tensors());
    o.add_outputs(c.ops[0].get_output_logical_tensors());
    c.ops[0] = o;
    const graph_case d = round_trip(c);
    EXPECT_EQ(case_difference(c, d), "");
    // And the comparison really looks at the bits.
    values[7] = std::nextafter(values[7], 0.0f);
    graph_case e = c;
    op o2(0, op::kind::Quantize, "n");
    o2.set_attr("scales", values);
    o2.set_attr("one", values[1]);
    o2.add_inputs(c.ops[0].get_input_logical_tensors());
    o2.add_outputs(c.ops[0].get_output_logical_tensors());
    e.ops[0] = o2;
    EXPECT_NE(case_difference(d, e), "");
}

TEST(case_values, data_values_round_trip_bit_exactly) {
    graph_case c = parse_case(one_op_text, "min.json");
    // A 1000-element f32 input with arbitrary doubles, floats, specials, and -0.
    std::mt19937_64 gen(7);
    tensor_values v;
    for (int i = 0; i < 1000; ++i) {
        double d;
        if (i % 3 == 0) {
            uint32_t bits = static_cast<uint32_t>(gen());
            float f;
            std::memcpy(&f, &bits, sizeof f);
            d = std::isfinite(f) ? f : 0.5;
        } else {
            d = std::ldexp(static_cast<double>(gen() >> 11), -static_cast<int>(gen() % 90)) - 1e3;
        }
        v.push_back(d);
    }
    v[1] = -0.0;
    v[2] = std::numeric_limits<double>::infinity();
    v[4] = -std::numeric_limits<double>::infinity();
    v[5] = std::numeric_limits<double>::quiet_NaN();
    v[7] = std::numeric_limits<double>::denorm_min();
    const op &q = c.ops[0];
    op o(q.get_id(), q.get_kind(), q.get_name());
    o.add_input(lt_t(0, data_type::f32, lt_t::dims {1000}, lt_t::layout_type::strided));
    o.add_input(q.get_input_logical_tensors()[1]);
    o.add_input(q.get_input_logical_tensors()[2]);
    o.add_output(lt_t(3, data_type::u8, lt_t::dims {1000}, lt_t::layout_type::strided));
    c.ops[0] = o;
    c.inputs[0] = v;
    c.expected[3] = tensor_values(1000, 255.0);
    c.expected[3][9] = 0.0;
    const std::string text = write_case(c);
    const graph_case d = parse_case(text, "written");
    EXPECT_EQ(case_difference(c, d), "");
    EXPECT_TRUE(std::signbit(d.inputs.at(0)[1]));
    EXPECT_TRUE(std::isnan(d.inputs.at(0)[5]));
    // Specials are strings; integer types are written as integers.
    EXPECT_NE(text.find("-0.0, \"inf\""), std::string::npos);
    EXPECT_NE(text.find("\"nan\""), std::string::npos);
    EXPECT_NE(text.find("\"3\": [255, 255, 255, 255, 255, 255, 255, 255, 255, 0, 255"),
            std::string::npos);
    // A changed bit is seen.
    graph_case e = d;
    e.inputs[0][500] = std::nextafter(e.inputs[0][500], 1e300);
    EXPECT_NE(case_difference(d, e), "");
}

TEST(case_values, integer_data_accepts_integral_floats_and_booleans) {
    json j = json::parse(one_op_text);
    j["data"]["inputs"]["2"] = {255.0};
    j["data"]["expected"]["3"] = {0, -0.0, 2.0};
    const graph_case c = parse_case(j.dump(), "i.json");
    EXPECT_EQ(c.inputs.at(2), tensor_values {255.0});
    EXPECT_FALSE(std::signbit(c.expected.at(3)[1])); // -0 of an integer type is 0
    EXPECT_EQ(case_difference(c, round_trip(c)), "");

    j["graph"][0]["outputs"][0]["dtype"] = "boolean";
    j["data"]["expected"]["3"] = {true, false, 1};
    const graph_case b = parse_case(j.dump(), "i.json");
    EXPECT_EQ(b.expected.at(3), (tensor_values {1, 0, 1}));

    j["graph"][0]["outputs"][0]["dtype"] = "s64";
    j["data"]["expected"]["3"] = {INT64_MIN, 9007199254740992LL, -9007199254740992LL};
    const graph_case s = parse_case(j.dump(), "i.json");
    EXPECT_EQ(s.expected.at(3)[0], -0x1p63);
    EXPECT_EQ(write_case(s).find("-9.2"), std::string::npos); // written as an integer
    EXPECT_EQ(case_difference(s, round_trip(s)), "");
}

TEST(case_values, top_level_fields_round_trip) {
    json j = json::parse(one_op_text);
    j["version"] = "3.9.0";
    j["fpmath_mode"] = "bf16";
    j["fpmath_mode_apply_to_int"] = "true";
    j["input_ports"] = {2, 0, 1};
    j["output_ports"] = {3};
    const graph_case c = parse_case(j.dump(), "t.json");
    EXPECT_EQ(c.version, "3.9.0");
    EXPECT_EQ(c.fpmath, fpmath_mode::bf16);
    EXPECT_EQ(c.fpmath_apply_to_int, "true");
    EXPECT_EQ(c.graph_inputs(), (std::vector<size_t> {2, 0, 1})); // as given
    const std::string text = write_case(c);
    EXPECT_EQ(text.rfind("{\n  \"version\": \"3.9.0\",\n  \"engine_kind\": \"cpu\",\n"
                         "  \"fpmath_mode\": \"bf16\",\n  \"fpmath_mode_apply_to_int\": \"true\",\n"
                         "  \"input_ports\": [2, 0, 1],\n  \"output_ports\": [3],\n  \"graph\": [\n",
                      0),
            0u)
            << text;
    EXPECT_EQ(case_difference(c, round_trip(c)), "");
    for (const char *mode : {"strict", "f16", "tf32", "any"}) {
        j["fpmath_mode"] = mode;
        EXPECT_EQ(to_string(round_trip(parse_case(j.dump(), "t.json")).fpmath), std::string(mode));
    }
    // Without data, the writer writes no "data".
    j.erase("data");
    const graph_case n = parse_case(j.dump(), "t.json");
    EXPECT_FALSE(n.has_data);
    EXPECT_EQ(write_case(n).find("\"data\""), std::string::npos);
    EXPECT_FALSE(round_trip(n).has_data);
    // An empty data section stays a data section.
    j["data"] = json::object();
    const graph_case e = parse_case(j.dump(), "t.json");
    EXPECT_TRUE(e.has_data);
    EXPECT_TRUE(round_trip(e).has_data);
}

TEST(case_values, derived_ports_and_lookup) {
    // Dequantize 5 -> 6, Quantize 6 -> 8 and 6 -> 9 (9 consumed by nothing, 8 by the third op).
    graph_case c;
    const lt_t f(6, data_type::f32, lt_t::dims {4}, lt_t::layout_type::strided);
    op a(1, op::kind::Dequantize, "a");
    a.add_input(lt_t(5, data_type::u8, lt_t::dims {4}, lt_t::layout_type::strided)).add_output(f);
    op b(2, op::kind::Quantize, "b");
    b.add_input(f).add_output(lt_t(8, data_type::u8, lt_t::dims {4}, lt_t::layout_type::strided));
    op d(3, op::kind::Dequantize, "d");
    d.add_input(lt_t(8, data_type::u8, lt_t::dims {4}, lt_t::layout_type::strided))
            .add_output(lt_t(9, data_type::f32, lt_t::dims {4}, lt_t::layout_type::strided));
    c.ops = {d, b, a}; // file order is not execution order
    EXPECT_EQ(c.graph_inputs(), (std::vector<size_t> {5}));
    EXPECT_EQ(c.graph_outputs(), (std::vector<size_t> {9}));
    EXPECT_EQ(c.find_logical_tensor(8).get_data_type(), data_type::u8);
    EXPECT_TRUE(throws_error([&] { c.find_logical_tensor(42); }, status::invalid_arguments,
            {"42"}));
    c.input_ports = {5};
    c.output_ports = {8, 9};
    EXPECT_EQ(c.graph_outputs(), (std::vector<size_t> {8, 9}));
}

TEST(case_values, api_built_case_round_trips) {
    graph_case c;
    c.version = "qgraph-test";
    op q(10, op::kind::DynamicQuantize, "dq \"quoted\"");
    q.set_attr(op::attr::qtype, std::string("per_channel"));
    q.set_attr(op::attr::axis, -2);
    q.set_attr(op::attr::group_shape, std::vector<int64_t> {1, 32});
    q.set_attr("flag", true);
    q.add_input(lt_t(0, data_type::bf16, {2, 64}, lt_t::dims {1, 2}, lt_t::property_type::variable));
    q.add_input(lt_t(1, data_type::f32, lt_t::dims {64}, lt_t::layout_type::strided,
            lt_t::property_type::constant));
    q.add_input(lt_t(2, data_type::s4, lt_t::dims {64}, lt_t::layout_type::strided,
            lt_t::property_type::host_scalar));
    q.add_output(lt_t(3, data_type::u4, {2, 64}, lt_t::layout_type::any));
    c.ops.push_back(q);
    c.has_data = true;
    c.inputs[2] = tensor_values(64, -8.0);
    c.expected[3] = tensor_values(128, 15.0);
    const std::string text = write_case(c);
    const graph_case d = parse_case(text, "api");
    EXPECT_EQ(case_difference(c, d), "") << text;
    EXPECT_EQ(write_case(d), text);
    // A logical tensor with no shape cannot be written.
    graph_case e = c;
    op r(11, op::kind::Quantize, "r");
    r.add_input(lt_t(20, data_type::f32, lt_t::layout_type::any));
    e.ops.push_back(r);
    EXPECT_TRUE(throws_error([&] { write_case(e); }, status::invalid_arguments,
            {"logical tensor 20"}));
}

TEST(case_values, comparison_sees_every_field) {
    const graph_case c = parse_case(attrs_text, "a.json");
    EXPECT_EQ(case_difference(c, c), "");
    graph_case d = c;
    d.version = "x";
    EXPECT_NE(case_difference(c, d), "");
    d = c;
    d.fpmath_apply_to_int = "false";
    EXPECT_NE(case_difference(c, d), "");
    d = c;
    d.ops[0].set_attr("axis", int64_t {0});
    EXPECT_NE(case_difference(c, d), "");
    d = c;
    d.ops[0].set_attr("eps", int64_t {0}); // same number, other type
    EXPECT_NE(case_difference(c, d), "");
    d = c;
    op o(c.ops[0].get_id(), c.ops[0].get_kind(), c.ops[0].get_name());
    for (const auto &a : c.ops[0].get_attrs()) o.set_attr_value(a.first, a.second);
    o.add_input(lt_t(0, data_type::f32, lt_t::dims {7}, lt_t::layout_type::strided,
            lt_t::property_type::constant));
    o.add_outputs(c.ops[0].get_output_logical_tensors());
    d.ops[0] = o;
    EXPECT_NE(case_difference(c, d), ""); // property type only
    d = c;
    d.has_data = true;
    EXPECT_NE(case_difference(c, d), "");
}

} // namespace
} // namespace test
} // namespace tools
} // namespace qgraph
