// write_case: a graph_case to case-file text. Deterministic: attributes in name order, data in
// id order; every float is printed so that reading it back gives the same bits.

#include <cmath>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "tools/case/case_io.hpp"
#include "tools/case/value_rules.hpp"

namespace qgraph {
namespace tools {

namespace {

// ordered_json keeps insertion order: "type" before "value" (benchdnn's reader needs that).
using ojson = nlohmann::ordered_json;
using detail::value_domain;

ojson non_finite(double v) {
    return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
}

// A float attribute: the shortest decimal that reads back (as double, then float) to `v`.
ojson f32_json(float v) {
    if (!std::isfinite(v)) return non_finite(v);
    return std::strtod(detail::shortest_f32_text(v).c_str(), nullptr);
}

ojson attr_json(const op::attr_value &value) {
    ojson a = ojson::object();
    struct visitor {
        ojson &a;
        void operator()(int64_t v) const { a["type"] = "s64", a["value"] = v; }
        void operator()(float v) const { a["type"] = "f32", a["value"] = f32_json(v); }
        // oneDNN writes (and benchdnn reads) bool attributes as 0 / 1.
        void operator()(bool v) const { a["type"] = "bool", a["value"] = v ? 1 : 0; }
        void operator()(const std::string &v) const { a["type"] = "string", a["value"] = v; }
        void operator()(const std::vector<int64_t> &v) const {
            a["type"] = "s64[]";
            a["value"] = ojson::array();
            for (int64_t x : v) a["value"].push_back(x);
        }
        void operator()(const std::vector<float> &v) const {
            a["type"] = "f32[]";
            a["value"] = ojson::array();
            for (float x : v) a["value"].push_back(f32_json(x));
        }
    };
    std::visit(visitor {a}, value);
    return a;
}

ojson lt_json(const logical_tensor &lt) {
    if (!lt.has_known_shape())
        throw error(status::invalid_arguments,
                "write_case: logical tensor " + std::to_string(lt.get_id())
                        + " has no known shape; a case file needs one");
    ojson j = ojson::object();
    j["id"] = lt.get_id();
    j["dtype"] = to_string(lt.get_data_type());
    j["shape"] = ojson::array();
    for (int64_t d : lt.get_dims()) j["shape"].push_back(d);
    j["stride"] = ojson::array(); // empty unless strided (allowed for any / undef)
    for (int64_t s : lt.get_strides()) j["stride"].push_back(s);
    j["layout_type"] = to_string(lt.get_layout_type());
    j["property_type"] = to_string(lt.get_property_type());
    return j;
}

ojson op_json(const op &o) {
    ojson j = ojson::object();
    j["id"] = o.get_id();
    j["name"] = o.get_name();
    j["kind"] = to_string(o.get_kind());
    j["attrs"] = ojson::object();
    for (const auto &a : o.get_attrs()) j["attrs"][a.first] = attr_json(a.second);
    j["inputs"] = ojson::array();
    for (const auto &lt : o.get_input_logical_tensors()) j["inputs"].push_back(lt_json(lt));
    j["outputs"] = ojson::array();
    for (const auto &lt : o.get_output_logical_tensors()) j["outputs"].push_back(lt_json(lt));
    return j;
}

ojson values_json(const graph_case &c, size_t id, const tensor_values &values) {
    // Integer types print as JSON integers; floats as the shortest text that reads back to
    // the same double. A tensor no op declares is written as floats (the reader rejects it).
    bool integer = false;
    try {
        integer = detail::domain_of(c.find_logical_tensor(id).get_data_type()).k
                == value_domain::kind::integer;
    } catch (const error &) {}
    ojson a = ojson::array();
    for (double v : values) {
        if (!std::isfinite(v))
            a.push_back(non_finite(v));
        else if (integer && std::nearbyint(v) == v && v >= -0x1p63 && v < 0x1p63)
            a.push_back(static_cast<int64_t>(v));
        else
            a.push_back(v);
    }
    return a;
}

ojson ids_json(const std::vector<size_t> &ids) {
    ojson a = ojson::array();
    for (size_t id : ids) a.push_back(id);
    return a;
}

// ---- pretty printing: nested structure on separate lines, leaf data inline ----------------

bool is_scalar(const ojson &j) { return !j.is_object() && !j.is_array(); }

bool is_scalar_array(const ojson &j) {
    if (!j.is_array()) return false;
    for (const auto &e : j)
        if (!is_scalar(e)) return false;
    return true;
}

// An object of scalars and scalar arrays (a logical tensor, an attribute).
bool is_flat_object(const ojson &j) {
    if (!j.is_object()) return false;
    for (const auto &e : j)
        if (!is_scalar(e) && !is_scalar_array(e)) return false;
    return true;
}

std::string scalar_text(const ojson &j) {
    return j.dump(-1, ' ', false, ojson::error_handler_t::strict);
}

std::string inline_text(const ojson &j) {
    if (is_scalar(j)) return scalar_text(j);
    std::string s;
    if (j.is_array()) {
        s = "[";
        bool first = true;
        for (const auto &e : j) {
            s += (first ? "" : ", ") + inline_text(e);
            first = false;
        }
        return s + "]";
    }
    s = "{";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
        s += (first ? "" : ", ") + scalar_text(it.key()) + ": " + inline_text(it.value());
        first = false;
    }
    return s + "}";
}

constexpr size_t max_inline_object = 160;

void pretty(const ojson &j, int depth, std::string &out) {
    if (is_scalar(j) || is_scalar_array(j) || j.empty()) {
        out += inline_text(j);
        return;
    }
    if (is_flat_object(j)) {
        const std::string s = inline_text(j);
        if (s.size() <= max_inline_object) {
            out += s;
            return;
        }
    }
    const std::string pad(2 * (depth + 1), ' ');
    out += j.is_array() ? "[\n" : "{\n";
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
        out += first ? "" : ",\n";
        out += pad;
        if (j.is_object()) out += scalar_text(it.key()) + ": ";
        pretty(it.value(), depth + 1, out);
        first = false;
    }
    out += "\n" + std::string(2 * depth, ' ') + (j.is_array() ? "]" : "}");
}

} // namespace

std::string write_case(const graph_case &c) {
    ojson root = ojson::object();
    root["version"] = c.version;
    root["engine_kind"] = to_string(c.engine_kind);
    root["fpmath_mode"] = to_string(c.fpmath);
    if (!c.fpmath_apply_to_int.empty())
        root["fpmath_mode_apply_to_int"] = c.fpmath_apply_to_int;
    if (!c.input_ports.empty()) root["input_ports"] = ids_json(c.input_ports);
    if (!c.output_ports.empty()) root["output_ports"] = ids_json(c.output_ports);
    root["graph"] = ojson::array();
    for (const op &o : c.ops) root["graph"].push_back(op_json(o));
    if (c.has_data) {
        ojson &data = root["data"] = ojson::object();
        data["inputs"] = ojson::object();
        for (const auto &kv : c.inputs)
            data["inputs"][std::to_string(kv.first)] = values_json(c, kv.first, kv.second);
        data["expected"] = ojson::object();
        for (const auto &kv : c.expected)
            data["expected"][std::to_string(kv.first)] = values_json(c, kv.first, kv.second);
    }
    std::string out;
    try {
        pretty(root, 0, out);
    } catch (const ojson::exception &e) { // a name that is not valid UTF-8
        throw error(status::invalid_arguments, std::string("write_case: ") + e.what());
    }
    return out + "\n";
}

} // namespace tools
} // namespace qgraph
