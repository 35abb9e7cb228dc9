#include "tools/qbench/overrides.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "qgraph/qgraph.hpp"
#include "tools/qbench/options.hpp"

namespace qgraph {
namespace qbench {

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (true) {
        const size_t at = s.find(sep, start);
        parts.push_back(s.substr(start, at == std::string::npos ? std::string::npos : at - start));
        if (at == std::string::npos) return parts;
        start = at + 1;
    }
}

bool parse_i64(const std::string &s, int64_t &v) {
    if (s.empty()) return false;
    errno = 0;
    char *end = nullptr;
    const long long x = std::strtoll(s.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE) return false;
    v = x;
    return true;
}

bool parse_f32(const std::string &s, float &v) {
    if (s.empty()) return false;
    char *end = nullptr;
    const double x = std::strtod(s.c_str(), &end);
    if (*end != '\0') return false;
    v = static_cast<float>(x);
    return true;
}

bool parse_id(const std::string &s, size_t &id) {
    int64_t v = 0;
    if (!parse_i64(s, v) || v < 0 || s[0] == '+') return false;
    id = static_cast<size_t>(v);
    return true;
}

[[noreturn]] void bad_attr(const attr_override &a, const std::string &why) {
    throw error(status::invalid_arguments,
            "--op-attrs: op " + std::to_string(a.op_id) + " attribute '" + a.name + "' = '"
                    + a.value + "': " + why);
}

/// The attribute value for `a`, typed like `like` (the op's current value or, for an
/// attribute the op does not have, the type qgraph's schemas use for that name).
op::attr_value typed_value(const attr_override &a, const op::attr_value &like) {
    const std::string &v = a.value;
    if (std::holds_alternative<int64_t>(like)) {
        int64_t x = 0;
        if (!parse_i64(v, x)) bad_attr(a, "expected an integer");
        return x;
    }
    if (std::holds_alternative<float>(like)) {
        float x = 0;
        if (!parse_f32(v, x)) bad_attr(a, "expected a number");
        return x;
    }
    if (std::holds_alternative<bool>(like)) {
        if (v == "true" || v == "1") return true;
        if (v == "false" || v == "0") return false;
        bad_attr(a, "expected true or false");
    }
    if (std::holds_alternative<std::string>(like)) return v;
    if (std::holds_alternative<std::vector<int64_t>>(like)) {
        std::vector<int64_t> xs;
        if (!v.empty())
            for (const auto &p : split(v, 'x')) {
                int64_t x = 0;
                if (!parse_i64(p, x)) bad_attr(a, "expected integers separated by 'x'");
                xs.push_back(x);
            }
        return xs;
    }
    std::vector<float> xs;
    if (!v.empty())
        for (const auto &p : split(v, 'x')) {
            float x = 0;
            if (!parse_f32(p, x)) bad_attr(a, "expected numbers separated by 'x'");
            xs.push_back(x);
        }
    return xs;
}

/// The type an attribute gets when the op does not have it yet: the schema's for the names
/// qgraph knows, else guessed from the text (integer, number, boolean, string).
op::attr_value default_like(const attr_override &a) {
    if (a.name == "axis" || a.name == "block_size") return int64_t(0);
    if (a.name == "qtype") return std::string();
    if (a.name == "scales") return std::vector<float>();
    if (a.name == "zps" || a.name == "group_shape") return std::vector<int64_t>();
    if (a.name == "saturate") return false;
    int64_t i = 0;
    float f = 0;
    if (parse_i64(a.value, i)) return int64_t(0);
    if (parse_f32(a.value, f)) return 0.f;
    if (a.value == "true" || a.value == "false") return false;
    return std::string();
}

logical_tensor reshaped(const logical_tensor &lt, const logical_tensor::dims &dims) {
    return logical_tensor(lt.get_id(), lt.get_data_type(), dims,
            logical_tensor::layout_type::strided, lt.get_property_type());
}

/// The tensor without its shape, so that add_op / finalize infer it again.
logical_tensor shapeless(const logical_tensor &lt) {
    const auto layout = lt.get_layout_type() == logical_tensor::layout_type::any
            ? logical_tensor::layout_type::any
            : logical_tensor::layout_type::strided;
    return logical_tensor(lt.get_id(), lt.get_data_type(), layout, lt.get_property_type());
}

} // namespace

logical_tensor::dims parse_shape(const std::string &text, const std::string &what) {
    if (text == "scalar") return {};
    logical_tensor::dims dims;
    for (const auto &p : split(text, 'x')) {
        int64_t d = 0;
        if (p.empty() || p[0] == '+' || p[0] == '-' || !parse_i64(p, d))
            throw usage_error("bad shape '" + text + "' for " + what
                    + ": expected dims separated by 'x' (e.g. 1x64x56x56) or 'scalar'");
        dims.push_back(d);
    }
    return dims;
}

std::string shape_string(const logical_tensor::dims &dims) {
    if (dims.empty()) return "scalar";
    std::string s;
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? "x" : "") + std::to_string(dims[i]);
    return s;
}

std::vector<shape_override> parse_in_shapes(const std::string &text) {
    std::vector<shape_override> out;
    if (text.empty()) return out;
    for (const auto &item : split(text, '+')) {
        const size_t colon = item.find(':');
        size_t id = 0;
        if (colon == std::string::npos || !parse_id(item.substr(0, colon), id))
            throw usage_error("bad value '" + text + "' for --in-shapes: expected "
                    "ID:AxBxC[+ID:AxBxC...] (e.g. 0:1x64x56x56)");
        out.push_back({id, parse_shape(item.substr(colon + 1), "--in-shapes")});
    }
    return out;
}

std::vector<attr_override> parse_op_attrs(const std::string &text) {
    std::vector<attr_override> out;
    if (text.empty()) return out;
    for (const auto &item : split(text, '*')) {
        const size_t c1 = item.find(':');
        const size_t c2 = c1 == std::string::npos ? c1 : item.find(':', c1 + 1);
        size_t id = 0;
        if (c2 == std::string::npos || !parse_id(item.substr(0, c1), id) || c2 == c1 + 1)
            throw usage_error("bad value '" + text + "' for --op-attrs: expected "
                    "OPID:NAME:VALUE[*OPID:NAME:VALUE...] (e.g. 0:axis:2 or 0:scales:0.5x0.25)");
        out.push_back({id, item.substr(c1 + 1, c2 - c1 - 1), item.substr(c2 + 1)});
    }
    return out;
}

void apply_overrides(tools::graph_case &c, const std::string &in_shapes,
        const std::string &op_attrs) {
    const std::vector<shape_override> shapes = parse_in_shapes(in_shapes);
    const std::vector<attr_override> attrs = parse_op_attrs(op_attrs);
    if (shapes.empty() && attrs.empty()) return;

    std::map<size_t, logical_tensor::dims> new_dims;
    for (const auto &s : shapes) new_dims[s.id] = s.dims;
    std::set<size_t> produced;
    for (const auto &o : c.ops)
        for (const auto &lt : o.get_output_logical_tensors()) produced.insert(lt.get_id());
    std::set<size_t> seen_ids, seen_ops;

    auto rewrite = [&](const logical_tensor &lt) {
        seen_ids.insert(lt.get_id());
        auto it = new_dims.find(lt.get_id());
        if (it != new_dims.end()) {
            const logical_tensor r = reshaped(lt, it->second);
            // The size must fit, as a case file's shape must (else a buffer of it would be
            // asked for later and fail with a std::vector exception).
            try {
                r.get_mem_size();
            } catch (const error &e) {
                throw error(status::invalid_arguments,
                        "--in-shapes: tensor " + std::to_string(lt.get_id()) + " ("
                                + to_string(lt.get_data_type()) + ") of shape "
                                + shape_string(it->second) + ": " + e.what());
            }
            return r;
        }
        // A changed input changes what the ops produce: let the graph infer it again.
        if (!new_dims.empty() && produced.count(lt.get_id())) return shapeless(lt);
        return lt;
    };
    for (auto &o : c.ops) {
        std::vector<logical_tensor> ins, outs;
        for (const auto &lt : o.get_input_logical_tensors()) ins.push_back(rewrite(lt));
        for (const auto &lt : o.get_output_logical_tensors()) outs.push_back(rewrite(lt));
        op n(o.get_id(), o.get_kind(), ins, outs, o.get_name());
        std::map<std::string, op::attr_value> values = o.get_attrs();
        for (const auto &a : attrs) {
            if (a.op_id != o.get_id()) continue;
            seen_ops.insert(a.op_id);
            auto it = values.find(a.name);
            values[a.name] = typed_value(a, it != values.end() ? it->second : default_like(a));
        }
        for (const auto &kv : values) n.set_attr_value(kv.first, kv.second);
        o = n;
    }
    for (const auto &s : shapes)
        if (!seen_ids.count(s.id))
            throw error(status::invalid_arguments,
                    "--in-shapes: the case has no logical tensor with id "
                            + std::to_string(s.id));
    for (const auto &a : attrs)
        if (!seen_ops.count(a.op_id))
            throw error(status::invalid_arguments,
                    "--op-attrs: the case has no op with id " + std::to_string(a.op_id));
}

} // namespace qbench
} // namespace qgraph
