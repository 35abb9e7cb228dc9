// Every conformance file: load, compare with the raw JSON, write, read back, compare.

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "case/case_compare.hpp"

namespace qgraph {
namespace tools {
namespace test {
namespace {

using json = nlohmann::json;

// Real oneDNN files that break a rule of the case format (see the report in the commit log):
// file name -> (status, message fragments).
struct rejection {
    status st;
    std::vector<std::string> fragments;
};
const std::map<std::string, rejection> &known_rejections() {
    static const std::map<std::string, rejection> r {
            // Add writes 4257 as [1,64,300,300], Multiply reads it as [1,64,1,1].
            {"int8_maxpool_add_mul_fusion.json",
                    {status::invalid_graph,
                            {"graph[4].inputs[1]: logical tensor 4257 has shape [1, 64, 1, 1] "
                             "here but [1, 64, 300, 300] at graph[3].outputs[0]"}}},
            // output_ports [5]; no op mentions 5 (the output is 4).
            {"int8_softmax_add.json",
                    {status::invalid_graph,
                            {"output_ports[0]: logical tensor 5 is not used by any op"}}},
            // input_ports lists 6, 7, 8; no op mentions them.
            {"sdpa-compressed-k-int8-gs32.json",
                    {status::invalid_graph,
                            {"input_ports[6]: logical tensor 6 is not used by any op"}}},
    };
    return r;
}

std::string file_name(const std::string &path) {
    return std::filesystem::path(path).filename().string();
}

json raw_json(const std::string &path) {
    std::ifstream in(path);
    return json::parse(in);
}

float raw_f32(const json &v) {
    if (v.is_string()) {
        const std::string s = v.get<std::string>();
        if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
        return s == "inf" ? std::numeric_limits<float>::infinity()
                          : -std::numeric_limits<float>::infinity();
    }
    return static_cast<float>(v.get<double>());
}

bool same_float(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// The loaded case says exactly what the file says (checked independently of the reader).
void expect_matches_json(const graph_case &c, const json &j) {
    ASSERT_EQ(c.ops.size(), j["graph"].size());
    EXPECT_EQ(c.version, j.value("version", std::string("0.1.0")));
    EXPECT_EQ(to_string(c.fpmath), j.value("fpmath_mode", std::string("strict")));
    EXPECT_EQ(to_string(c.engine_kind), j.value("engine_kind", std::string("cpu")));
    EXPECT_EQ(c.fpmath_apply_to_int, j.value("fpmath_mode_apply_to_int", std::string()));
    EXPECT_EQ(c.input_ports, j.value("input_ports", std::vector<size_t>()));
    EXPECT_EQ(c.output_ports, j.value("output_ports", std::vector<size_t>()));
    for (size_t i = 0; i < c.ops.size(); ++i) {
        SCOPED_TRACE("graph[" + std::to_string(i) + "]");
        const op &o = c.ops[i];
        const json &jo = j["graph"][i];
        EXPECT_EQ(o.get_id(), jo["id"].get<size_t>());
        EXPECT_EQ(to_string(o.get_kind()), jo["kind"].get<std::string>());
        EXPECT_EQ(o.get_name(), jo["name"].get<std::string>());
        const json attrs = jo.value("attrs", json::object());
        EXPECT_EQ(o.get_attrs().size(), attrs.size());
        for (auto it = attrs.begin(); it != attrs.end(); ++it) {
            SCOPED_TRACE("attribute " + it.key());
            ASSERT_TRUE(o.has_attr(it.key()));
            const op::attr_value &v = o.get_attrs().at(it.key());
            const std::string type = it.value()["type"];
            const json &jv = it.value()["value"];
            if (type == "string") {
                EXPECT_EQ(std::get<std::string>(v), jv.get<std::string>());
            } else if (type == "bool") {
                EXPECT_EQ(std::get<bool>(v), jv.is_boolean() ? jv.get<bool>() : jv != 0);
            } else if (type == "s64") {
                EXPECT_EQ(std::get<int64_t>(v), jv.get<int64_t>());
            } else if (type == "s64[]") {
                EXPECT_EQ(std::get<std::vector<int64_t>>(v), jv.get<std::vector<int64_t>>());
            } else if (type == "f32") {
                EXPECT_TRUE(same_float(std::get<float>(v), raw_f32(jv)));
            } else {
                ASSERT_EQ(type, "f32[]");
                const auto &fv = std::get<std::vector<float>>(v);
                ASSERT_EQ(fv.size(), jv.size());
                for (size_t k = 0; k < fv.size(); ++k)
                    EXPECT_TRUE(same_float(fv[k], raw_f32(jv[k])));
            }
        }
        for (const char *port : {"inputs", "outputs"}) {
            const auto &lts = port[0] == 'i' ? o.get_input_logical_tensors()
                                             : o.get_output_logical_tensors();
            ASSERT_EQ(lts.size(), jo[port].size());
            for (size_t k = 0; k < lts.size(); ++k) {
                const json &jl = jo[port][k];
                const logical_tensor &lt = lts[k];
                SCOPED_TRACE(std::string(port) + "[" + std::to_string(k) + "]");
                EXPECT_EQ(lt.get_id(), jl["id"].get<size_t>());
                EXPECT_EQ(to_string(lt.get_data_type()), jl["dtype"].get<std::string>());
                EXPECT_EQ(lt.get_dims(), jl["shape"].get<std::vector<int64_t>>());
                EXPECT_EQ(lt.get_ndims(), static_cast<int32_t>(jl["shape"].size()));
                EXPECT_EQ(to_string(lt.get_layout_type()), jl["layout_type"].get<std::string>());
                EXPECT_EQ(to_string(lt.get_property_type()),
                        jl.value("property_type", std::string("undef")));
                if (jl["layout_type"] == "strided")
                    EXPECT_EQ(lt.get_strides(), jl["stride"].get<std::vector<int64_t>>());
                else
                    EXPECT_TRUE(lt.get_strides().empty());
            }
        }
    }
    EXPECT_EQ(c.has_data, j.contains("data"));
    if (!j.contains("data")) return;
    for (const char *role : {"inputs", "expected"}) {
        const auto &m = role[0] == 'i' ? c.inputs : c.expected;
        const json jm = j["data"].value(role, json::object());
        ASSERT_EQ(m.size(), jm.size()) << role;
        for (auto it = jm.begin(); it != jm.end(); ++it) {
            const auto found = m.find(std::stoull(it.key()));
            ASSERT_NE(found, m.end()) << role << " " << it.key();
            ASSERT_EQ(found->second.size(), it.value().size());
            for (size_t k = 0; k < found->second.size(); ++k) {
                const json &jv = it.value()[k];
                const double v = found->second[k];
                if (jv.is_string())
                    EXPECT_TRUE(std::isnan(v) ? jv == "nan" : jv == (v > 0 ? "inf" : "-inf"));
                else
                    EXPECT_EQ(v, jv.get<double>()) << role << " " << it.key() << "[" << k << "]";
            }
        }
    }
}

class case_conformance : public ::testing::TestWithParam<std::string> {};

TEST_P(case_conformance, loads_and_round_trips) {
    const std::string path = GetParam();
    const auto rejected = known_rejections().find(file_name(path));
    if (rejected != known_rejections().end()) {
        try {
            load_case_file(path);
            FAIL() << "expected a rejection";
        } catch (const error &e) {
            EXPECT_EQ(e.status(), rejected->second.st) << e.what();
            EXPECT_NE(std::string(e.what()).find(path + ": "), std::string::npos) << e.what();
            for (const auto &f : rejected->second.fragments)
                EXPECT_NE(std::string(e.what()).find(f), std::string::npos) << e.what();
        }
        return;
    }
    graph_case a;
    try {
        a = load_case_file(path);
    } catch (const error &e) { FAIL() << to_string(e.status()) << ": " << e.what(); }
    expect_matches_json(a, raw_json(path));

    const std::string text = write_case(a);
    graph_case b;
    try {
        b = parse_case(text, "rewritten");
    } catch (const error &e) { FAIL() << e.what() << "\n" << text; }
    EXPECT_EQ(case_difference(a, b), "");
    EXPECT_EQ(write_case(b), text); // the writer is deterministic and stable
    // The written text is plain JSON a generic parser reads the same way.
    expect_matches_json(b, json::parse(text));
}

INSTANTIATE_TEST_SUITE_P(files, case_conformance, ::testing::ValuesIn(conformance_files()),
        conformance_test_name);

TEST(case_conformance_set, all_files_present) {
    // 30 ONNX cases and 103 oneDNN files (96 graph files + 7 more) at the time of writing.
    const auto files = conformance_files();
    EXPECT_GE(files.size(), 133u) << "conformance dir: " << shared_dir();
    for (const auto &r : known_rejections()) {
        bool found = false;
        for (const auto &f : files) found = found || file_name(f) == r.first;
        EXPECT_TRUE(found) << r.first;
    }
}

} // namespace
} // namespace test
} // namespace tools
} // namespace qgraph
