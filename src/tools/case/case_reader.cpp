// parse_case: a graph case file (oneDNN graph JSON + "data") to a graph_case, with every format
// rule checked here and reported as "<source>: <JSON path>: <rule>". Op schemas, cycles and
// "produced twice" are the graph's business (build_graph).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tools/case/case_io.hpp"
#include "tools/case/value_rules.hpp"

namespace qgraph {
namespace tools {

namespace {

using json = nlohmann::json;
using detail::value_domain;
using lt_t = logical_tensor;

std::string quoted(const std::string &s) {
    return json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string dims_text(const lt_t::dims &d) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i)
        s += (i ? ", " : "") + std::to_string(d[i]);
    return s + "]";
}

// Appends j's compact JSON text to s until s holds `limit` characters. It visits only what it
// prints, so a hostile value costs nothing: json::dump() would walk all of a 10^7-element
// array, and recurse once per level of a 10^5-deep nesting until the stack overflows.
void render(const json &j, std::string &s, size_t limit) {
    if (s.size() >= limit) return;
    if (j.is_array() || j.is_object()) {
        s += j.is_array() ? '[' : '{';
        bool first = true;
        for (auto it = j.begin(); it != j.end() && s.size() < limit; ++it) {
            if (!first) s += ',';
            first = false;
            if (j.is_object())
                s += json(it.key()).dump(-1, ' ', false, json::error_handler_t::replace) + ":";
            render(it.value(), s, limit); // depth <= limit: each level adds a bracket
        }
        if (s.size() < limit) s += j.is_array() ? ']' : '}';
        return;
    }
    if (j.is_string()) {
        // Only the start of a long string matters; a cut UTF-8 sequence is replaced.
        const std::string &v = j.get_ref<const std::string &>();
        s += json(v.substr(0, limit)).dump(-1, ' ', false, json::error_handler_t::replace);
        return;
    }
    s += j.dump(-1, ' ', false, json::error_handler_t::replace); // a scalar
}

// A JSON value for an error message: short, one line.
std::string brief(const json &j) {
    std::string s;
    render(j, s, 41);
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
}

std::string describe(const json &j) {
    if (j.is_number_float()) return "the floating-point number " + brief(j);
    if (j.is_number()) return "the integer " + brief(j);
    return std::string(j.type_name()) + " " + brief(j);
}

// Line and column (1-based) of the character at byte offset `pos` (0-based).
std::pair<size_t, size_t> line_col(const std::string &text, size_t pos) {
    pos = std::min(pos, text.size());
    size_t line = 1, line_start = 0;
    for (size_t i = 0; i < pos; ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    return {line, pos - line_start + 1};
}

// Bytes outside printable ASCII as \xNN: nlohmann quotes the offending input ("last read:
// '...'"), which in a hostile file is anything, invalid UTF-8 and terminal escapes included.
std::string printable(const std::string &s) {
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char ch : s) {
        if (ch >= 0x20 && ch < 0x7F) {
            out += static_cast<char>(ch);
        } else {
            out += "\\x";
            out += hex[ch >> 4];
            out += hex[ch & 15];
        }
    }
    return out;
}

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string parse_error_reason(const std::string &what) {
    const size_t col = what.find("column ");
    if (col != std::string::npos) {
        const size_t sep = what.find(": ", col);
        if (sep != std::string::npos) return printable(what.substr(sep + 2));
    }
    const size_t br = what.find("] ");
    return printable(br == std::string::npos ? what : what.substr(br + 2));
}

class case_reader {
public:
    explicit case_reader(std::string source) : source_(std::move(source)) {}

    graph_case read(const std::string &text);

private:
    [[noreturn]] void fail(status s, const std::string &path, const std::string &rule) const {
        throw error(s, source_ + ": " + (path.empty() ? "" : path + ": ") + rule);
    }
    [[noreturn]] void fail(const std::string &path, const std::string &rule) const {
        fail(status::invalid_arguments, path, rule);
    }

    json parse_json(const std::string &text) const;

    // Typed access; `path` names `j` itself.
    const json &member(const json &obj, const char *key, const std::string &path) const;
    const json *optional_member(const json &obj, const char *key) const;
    const json &as_object(const json &j, const std::string &path) const;
    const json &as_array(const json &j, const std::string &path) const;
    std::string as_string(const json &j, const std::string &path) const;
    int64_t as_s64(const json &j, const std::string &path) const;
    size_t as_id(const json &j, const std::string &path) const;
    bool as_bool(const json &j, const std::string &path) const;
    float as_f32(const json &j, const std::string &path) const;
    std::vector<size_t> as_ids(const json &j, const std::string &path) const;

    op read_op(const json &j, const std::string &path);
    op::attr_value read_attr(const json &j, const std::string &path) const;
    lt_t read_lt(const json &j, const std::string &path);
    void read_data(const json &j, const std::string &path, graph_case &c) const;
    void read_data_map(const json &j, const std::string &path, const graph_case &c,
            const std::vector<size_t> &allowed, const char *role,
            std::map<size_t, tensor_values> &out) const;
    double read_value(const json &j, const std::string &path, data_type dt) const;

    std::string source_;
    struct declared {
        lt_t lt;
        std::string path;
    };
    std::map<size_t, declared> lts_; // first declaration of each logical tensor id
};

// nlohmann's DOM builder behind a SAX handler that also rejects a repeated key in any object
// (json::parse would silently keep one value). Not json::parse's callback: its parser scans
// the enclosing array at the end of every object, quadratic in the ops of a graph (minutes
// for 10^6 ops); this is linear.
class duplicate_key_checker : public json::json_sax_t {
public:
    duplicate_key_checker(json &root, std::function<void(const std::string &)> on_duplicate)
        : dom_(root), on_duplicate_(std::move(on_duplicate)) {}

    bool null() override { return dom_.null(); }
    bool boolean(bool v) override { return dom_.boolean(v); }
    bool number_integer(number_integer_t v) override { return dom_.number_integer(v); }
    bool number_unsigned(number_unsigned_t v) override { return dom_.number_unsigned(v); }
    bool number_float(number_float_t v, const string_t &s) override {
        return dom_.number_float(v, s);
    }
    bool string(string_t &v) override { return dom_.string(v); }
    bool binary(binary_t &v) override { return dom_.binary(v); }
    bool start_object(std::size_t n) override {
        keys_.emplace_back();
        return dom_.start_object(n);
    }
    bool key(string_t &k) override {
        if (!keys_.back().insert(k).second) on_duplicate_(k);
        return dom_.key(k);
    }
    bool end_object() override {
        keys_.pop_back();
        return dom_.end_object();
    }
    bool start_array(std::size_t n) override { return dom_.start_array(n); }
    bool end_array() override { return dom_.end_array(); }
    // Rethrown as their own types: parse_json reads the position from parse_error.
    bool parse_error(std::size_t, const std::string &,
            const nlohmann::detail::exception &ex) override {
        if (const auto *pe = dynamic_cast<const json::parse_error *>(&ex)) throw *pe;
        if (const auto *oe = dynamic_cast<const json::out_of_range *>(&ex)) throw *oe;
        throw json::other_error::create(501, ex.what(), nullptr);
    }

private:
    nlohmann::detail::json_sax_dom_parser<json> dom_;
    std::vector<std::set<std::string>> keys_; // keys seen in each open object
    std::function<void(const std::string &)> on_duplicate_;
};

json case_reader::parse_json(const std::string &text) const {
    json root;
    duplicate_key_checker sax(root, [this](const std::string &k) {
        fail("", "duplicate key " + quoted(k) + " in a JSON object");
    });
    try {
        json::sax_parse(text, &sax);
        return root;
    } catch (const json::parse_error &e) {
        // e.byte counts the characters read, the offending one included.
        const auto lc = line_col(text, e.byte > 0 ? e.byte - 1 : 0);
        throw error(status::invalid_arguments,
                source_ + ":" + std::to_string(lc.first) + ":" + std::to_string(lc.second)
                        + ": JSON syntax error: " + parse_error_reason(e.what()));
    } catch (const json::exception &e) {
        // A number too large for a double ("number overflow parsing '1e400'") comes without a
        // position: locate the literal it quotes.
        const std::string reason = parse_error_reason(e.what());
        const size_t q = reason.find("parsing '");
        if (q != std::string::npos) {
            const size_t start = q + 9, end = reason.find('\'', start);
            const size_t at = end == std::string::npos
                    ? std::string::npos
                    : text.find(reason.substr(start, end - start));
            if (at != std::string::npos) {
                const auto lc = line_col(text, at);
                throw error(status::invalid_arguments,
                        source_ + ":" + std::to_string(lc.first) + ":"
                                + std::to_string(lc.second) + ": JSON syntax error: " + reason);
            }
        }
        throw error(status::invalid_arguments, source_ + ": JSON syntax error: " + reason);
    }
}

const json *case_reader::optional_member(const json &obj, const char *key) const {
    const auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
}

const json &case_reader::member(const json &obj, const char *key, const std::string &path) const {
    const json *m = optional_member(obj, key);
    if (!m) fail(path, std::string("missing key ") + quoted(key));
    return *m;
}

const json &case_reader::as_object(const json &j, const std::string &path) const {
    if (!j.is_object()) fail(path, "expected an object, got " + describe(j));
    return j;
}

const json &case_reader::as_array(const json &j, const std::string &path) const {
    if (!j.is_array()) fail(path, "expected an array, got " + describe(j));
    return j;
}

std::string case_reader::as_string(const json &j, const std::string &path) const {
    if (!j.is_string()) fail(path, "expected a string, got " + describe(j));
    return j.get<std::string>();
}

int64_t case_reader::as_s64(const json &j, const std::string &path) const {
    if (j.is_number_unsigned()) {
        const uint64_t v = j.get<uint64_t>();
        if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
            fail(path, "integer " + brief(j) + " is out of the int64 range");
        return static_cast<int64_t>(v);
    }
    if (j.is_number_integer()) return j.get<int64_t>();
    if (j.is_number_float()) {
        // nlohmann reads integers beyond uint64 as doubles.
        const double v = j.get<double>();
        if (std::nearbyint(v) == v && std::fabs(v) >= 0x1p63)
            fail(path, "integer " + brief(j) + " is out of the int64 range");
        fail(path, "expected an integer, got " + describe(j));
    }
    fail(path, "expected an integer, got " + describe(j));
}

size_t case_reader::as_id(const json &j, const std::string &path) const {
    if (j.is_number_unsigned()) {
        const uint64_t v = j.get<uint64_t>();
        if (v > std::numeric_limits<size_t>::max())
            fail(path, "id " + brief(j) + " is out of range");
        return static_cast<size_t>(v);
    }
    if (j.is_number_integer()) fail(path, "negative id " + brief(j));
    if (j.is_number_float()) {
        const double v = j.get<double>();
        if (std::nearbyint(v) == v && v >= 0x1p64)
            fail(path, "id " + brief(j) + " is out of the uint64 range");
        fail(path, "expected an integer id, got " + describe(j));
    }
    fail(path, "expected an integer id, got " + describe(j));
}

bool case_reader::as_bool(const json &j, const std::string &path) const {
    if (j.is_boolean()) return j.get<bool>();
    // oneDNN writes bool attributes as 0 / 1.
    if (j.is_number_integer()) {
        if (j == 0) return false;
        if (j == 1) return true;
    }
    fail(path, "expected true, false, 0 or 1, got " + describe(j));
}

float case_reader::as_f32(const json &j, const std::string &path) const {
    double v;
    if (j.is_number()) {
        v = j.get<double>();
    } else if (j.is_string()) {
        const std::string s = j.get<std::string>();
        if (s == "nan") return std::numeric_limits<float>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<float>::infinity();
        if (s == "-inf") return -std::numeric_limits<float>::infinity();
        fail(path, "expected a number or \"nan\", \"inf\", \"-inf\", got " + describe(j));
    } else {
        fail(path, "expected a number, got " + describe(j));
    }
    if (std::fabs(v) >= detail::domain_of(data_type::f32).overflow)
        fail(path, "value " + brief(j) + " overflows f32");
    return static_cast<float>(v);
}

std::vector<size_t> case_reader::as_ids(const json &j, const std::string &path) const {
    as_array(j, path);
    std::vector<size_t> ids;
    for (size_t i = 0; i < j.size(); ++i)
        ids.push_back(as_id(j[i], path + "[" + std::to_string(i) + "]"));
    return ids;
}

op::attr_value case_reader::read_attr(const json &j, const std::string &path) const {
    as_object(j, path);
    const std::string type = as_string(member(j, "type", path), path + ".type");
    const json &v = member(j, "value", path);
    const std::string vpath = path + ".value";
    if (type == "string") return as_string(v, vpath);
    if (type == "bool") return as_bool(v, vpath);
    if (type == "s64") return as_s64(v, vpath);
    if (type == "f32") return as_f32(v, vpath);
    if (type == "s64[]") {
        as_array(v, vpath);
        std::vector<int64_t> out;
        for (size_t i = 0; i < v.size(); ++i)
            out.push_back(as_s64(v[i], vpath + "[" + std::to_string(i) + "]"));
        return out;
    }
    if (type == "f32[]") {
        as_array(v, vpath);
        std::vector<float> out;
        for (size_t i = 0; i < v.size(); ++i)
            out.push_back(as_f32(v[i], vpath + "[" + std::to_string(i) + "]"));
        return out;
    }
    fail(path + ".type",
            "unknown attribute type " + quoted(type)
                    + " (expected string, bool, s64, s64[], f32 or f32[])");
}

lt_t case_reader::read_lt(const json &j, const std::string &path) {
    as_object(j, path);
    const size_t id = as_id(member(j, "id", path), path + ".id");

    const std::string dt_name = as_string(member(j, "dtype", path), path + ".dtype");
    data_type dt;
    try {
        dt = data_type_from_string(dt_name);
    } catch (const error &e) {
        fail(e.status(), path + ".dtype", "unknown data type " + quoted(dt_name));
    }

    const json &jshape = as_array(member(j, "shape", path), path + ".shape");
    lt_t::dims shape;
    for (size_t i = 0; i < jshape.size(); ++i) {
        const std::string p = path + ".shape[" + std::to_string(i) + "]";
        const int64_t d = as_s64(jshape[i], p);
        if (d < 0) fail(status::invalid_shape, p, "negative dimension " + std::to_string(d));
        shape.push_back(d);
    }

    const std::string lname
            = as_string(member(j, "layout_type", path), path + ".layout_type");
    lt_t::layout_type ltype = lt_t::layout_type::undef;
    bool known = false;
    for (auto l : {lt_t::layout_type::strided, lt_t::layout_type::any, lt_t::layout_type::undef})
        if (lname == to_string(l)) ltype = l, known = true;
    if (!known)
        fail(path + ".layout_type",
                "unknown layout type " + quoted(lname) + " (expected strided, any or undef)");

    lt_t::property_type ptype = lt_t::property_type::undef;
    if (const json *jp = optional_member(j, "property_type")) {
        const std::string pname = as_string(*jp, path + ".property_type");
        known = false;
        for (auto p : {lt_t::property_type::undef, lt_t::property_type::variable,
                     lt_t::property_type::constant, lt_t::property_type::host_scalar})
            if (pname == to_string(p)) ptype = p, known = true;
        if (!known)
            fail(path + ".property_type",
                    "unknown property type " + quoted(pname)
                            + " (expected undef, variable, constant or host_scalar)");
    }

    // Strides: required for a strided layout; for `any` / `undef` they are ignored (oneDNN
    // writes [INT64_MIN] there), but must still be integers.
    lt_t::dims strides;
    const json *jstride = optional_member(j, "stride");
    if (jstride) {
        as_array(*jstride, path + ".stride");
        for (size_t i = 0; i < jstride->size(); ++i)
            strides.push_back(
                    as_s64((*jstride)[i], path + ".stride[" + std::to_string(i) + "]"));
    }
    if (ltype == lt_t::layout_type::strided) {
        if (!jstride) fail(path, "missing key \"stride\" (required for layout strided)");
        if (strides.size() != shape.size())
            fail(status::invalid_shape, path + ".stride",
                    std::to_string(strides.size()) + " strides for a "
                            + std::to_string(shape.size()) + "-D shape " + dims_text(shape));
    } else {
        strides.clear();
    }
    lt_t lt;
    try {
        if (ltype == lt_t::layout_type::strided) {
            lt = lt_t(id, dt, shape, strides, ptype);
            lt.get_mem_size(); // element count and span must fit int64
        } else {
            lt = lt_t(id, dt, shape, ltype, ptype);
            lt.get_element_num(); // the element count must fit int64
        }
    } catch (const error &e) { fail(e.status(), path, e.what()); }

    // Every declaration of an id must agree with the first one.
    const auto seen = lts_.find(id);
    if (seen == lts_.end()) {
        lts_.emplace(id, declared {lt, path});
    } else {
        const lt_t &first = seen->second.lt;
        const std::string where = " here but ";
        const std::string at = " at " + seen->second.path;
        const std::string what = "logical tensor " + std::to_string(id) + " has ";
        if (first.get_data_type() != dt)
            fail(status::invalid_graph, path,
                    what + "dtype " + dt_name + where + to_string(first.get_data_type()) + at);
        if (first.get_dims() != shape)
            fail(status::invalid_graph, path,
                    what + "shape " + dims_text(shape) + where + dims_text(first.get_dims())
                            + at);
        if (first.get_layout_type() == lt_t::layout_type::strided
                && ltype == lt_t::layout_type::strided && first.get_strides() != strides)
            fail(status::invalid_graph, path,
                    what + "strides " + dims_text(strides) + where
                            + dims_text(first.get_strides()) + at);
    }
    return lt;
}

op case_reader::read_op(const json &j, const std::string &path) {
    as_object(j, path);
    const size_t id = as_id(member(j, "id", path), path + ".id");
    std::string name;
    if (const json *jn = optional_member(j, "name")) name = as_string(*jn, path + ".name");
    const std::string kind_name = as_string(member(j, "kind", path), path + ".kind");
    op::kind kind;
    try {
        kind = op_kind_from_string(kind_name);
    } catch (const error &e) {
        fail(e.status(), path + ".kind", "unknown op kind " + quoted(kind_name));
    }
    op o(id, kind, name);

    if (const json *ja = optional_member(j, "attrs")) {
        as_object(*ja, path + ".attrs");
        for (auto it = ja->begin(); it != ja->end(); ++it) {
            const std::string apath = path + ".attrs." + it.key();
            const op::attr_value v = read_attr(it.value(), apath);
            try {
                o.set_attr_value(it.key(), v);
            } catch (const error &e) { fail(e.status(), apath, e.what()); }
        }
    }
    for (const char *port : {"inputs", "outputs"}) {
        const std::string ppath = path + "." + port;
        const json &jl = as_array(member(j, port, path), ppath);
        for (size_t i = 0; i < jl.size(); ++i) {
            const lt_t lt = read_lt(jl[i], ppath + "[" + std::to_string(i) + "]");
            if (port[0] == 'i')
                o.add_input(lt);
            else
                o.add_output(lt);
        }
    }
    return o;
}

double case_reader::read_value(const json &j, const std::string &path, data_type dt) const {
    const value_domain d = detail::domain_of(dt);
    const char *tname = to_string(dt);
    if (d.k == value_domain::kind::integer) {
        if (j.is_boolean() && dt == data_type::boolean) return j.get<bool>() ? 1 : 0;
        if (j.is_number_unsigned() || j.is_number_integer()) {
            const bool neg = !j.is_number_unsigned();
            const uint64_t u = neg ? 0 : j.get<uint64_t>();
            const int64_t s = neg ? j.get<int64_t>() : 0;
            if (dt == data_type::s64) {
                if (!neg && u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
                    fail(path, "value " + brief(j) + " is out of the range of s64");
                const int64_t v = neg ? s : static_cast<int64_t>(u);
                const double dv = static_cast<double>(v);
                // Values are kept as doubles: refuse what a double cannot hold exactly.
                if (dv >= 0x1p63 || static_cast<int64_t>(dv) != v)
                    fail(path, "s64 value " + brief(j) + " is not exactly representable (|v| "
                                    "beyond 2^53 with low bits set)");
                return dv;
            }
            const double dv = neg ? static_cast<double>(s) : static_cast<double>(u);
            if (dv < d.lo || dv > d.hi)
                fail(path,
                        "value " + brief(j) + " is out of the range of " + tname + " ["
                                + std::to_string(static_cast<int64_t>(d.lo)) + ", "
                                + std::to_string(static_cast<int64_t>(d.hi)) + "]");
            return dv;
        }
        if (j.is_number_float()) {
            const double v = j.get<double>();
            if (std::nearbyint(v) != v)
                fail(path, "value " + brief(j) + " is not an integer (data type " + tname + ")");
            const bool out = dt == data_type::s64 ? (v < d.lo || v >= d.hi)
                                                  : (v < d.lo || v > d.hi);
            if (out) fail(path, "value " + brief(j) + " is out of the range of " + tname);
            return v + 0.0; // -0.0 is 0 for an integer type

        }
        if (j.is_string())
            fail(path, describe(j) + " is not a value of " + tname + " (an integer type)");
        fail(path, "expected an integer, got " + describe(j));
    }
    if (d.k == value_domain::kind::floating) {
        double v;
        if (j.is_number()) {
            v = j.get<double>();
        } else if (j.is_string()) {
            const std::string s = j.get<std::string>();
            if (s == "nan")
                v = std::numeric_limits<double>::quiet_NaN();
            else if (s == "inf")
                v = std::numeric_limits<double>::infinity();
            else if (s == "-inf")
                v = -std::numeric_limits<double>::infinity();
            else
                fail(path, "expected a number or \"nan\", \"inf\", \"-inf\", got " + describe(j));
        } else {
            fail(path, "expected a number or \"nan\", \"inf\", \"-inf\", got " + describe(j));
        }
        if (std::isnan(v) && !d.has_nan) fail(path, std::string(tname) + " has no NaN");
        if (std::isinf(v) && !d.has_inf) fail(path, std::string(tname) + " has no infinity");
        if (std::isfinite(v) && d.overflow > 0 && std::fabs(v) >= d.overflow)
            fail(path,
                    "value " + brief(j) + " is out of the range of " + tname + " (largest finite "
                            + json(d.max_finite).dump() + ")");
        return v;
    }
    fail(path, std::string("data type ") + tname + " cannot carry data");
}

void case_reader::read_data_map(const json &j, const std::string &path, const graph_case &c,
        const std::vector<size_t> &allowed, const char *role,
        std::map<size_t, tensor_values> &out) const {
    as_object(j, path);
    for (auto it = j.begin(); it != j.end(); ++it) {
        const std::string &key = it.key();
        const std::string kpath = path + "[" + quoted(key) + "]";
        // A decimal logical tensor id, nothing else.
        bool ok = !key.empty() && key.size() <= 20
                && std::all_of(key.begin(), key.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        uint64_t id = 0;
        if (ok) {
            for (char ch : key) {
                const uint64_t digit = static_cast<uint64_t>(ch - '0');
                if (id > (std::numeric_limits<uint64_t>::max() - digit) / 10) ok = false;
                id = id * 10 + digit;
            }
        }
        if (!ok) fail(path, "key " + quoted(key) + " is not a logical tensor id");
        if (std::find(allowed.begin(), allowed.end(), id) == allowed.end()) {
            std::string list;
            for (size_t a : allowed) list += (list.empty() ? "" : ", ") + std::to_string(a);
            fail(kpath,
                    "logical tensor " + key + " is not a graph " + role + " (graph " + role
                            + "s: " + list + ")");
        }
        const lt_t lt = c.find_logical_tensor(id);
        const int64_t n = lt.get_element_num(); // checked when the op was read
        const json &values = as_array(it.value(), kpath);
        if (static_cast<uint64_t>(values.size()) != static_cast<uint64_t>(n))
            fail(kpath,
                    std::to_string(values.size()) + " values for " + std::to_string(n)
                            + " elements (shape " + dims_text(lt.get_dims()) + ")");
        tensor_values v;
        v.reserve(values.size());
        for (size_t i = 0; i < values.size(); ++i)
            v.push_back(read_value(
                    values[i], kpath + "[" + std::to_string(i) + "]", lt.get_data_type()));
        out.emplace(static_cast<size_t>(id), std::move(v));
    }
}

void case_reader::read_data(const json &j, const std::string &path, graph_case &c) const {
    as_object(j, path);
    for (auto it = j.begin(); it != j.end(); ++it)
        if (it.key() != "inputs" && it.key() != "expected")
            fail(path, "unknown key " + quoted(it.key()) + " (expected \"inputs\" or \"expected\")");
    c.has_data = true;
    if (const json *ji = optional_member(j, "inputs"))
        read_data_map(*ji, path + ".inputs", c, c.graph_inputs(), "input", c.inputs);
    if (const json *je = optional_member(j, "expected"))
        read_data_map(*je, path + ".expected", c, c.graph_outputs(), "output", c.expected);
}

graph_case case_reader::read(const std::string &text) {
    const json root = parse_json(text);
    if (!root.is_object()) fail("", "the top level must be an object, got " + describe(root));

    graph_case c;
    if (const json *jv = optional_member(root, "version")) c.version = as_string(*jv, "version");

    if (const json *je = optional_member(root, "engine_kind")) {
        // Real oneDNN dumps name "gpu" too: the file keeps it, build_graph reports that qgraph
        // runs on the cpu only (unimplemented).
        const std::string e = as_string(*je, "engine_kind");
        bool known = false;
        for (auto k : {engine::kind::cpu, engine::kind::gpu, engine::kind::any})
            if (e == to_string(k)) c.engine_kind = k, known = true;
        if (!known)
            fail("engine_kind", "unknown engine kind " + quoted(e) + " (expected \"cpu\")");
    }
    if (const json *jf = optional_member(root, "fpmath_mode")) {
        const std::string m = as_string(*jf, "fpmath_mode");
        try {
            c.fpmath = fpmath_mode_from_string(m.c_str());
        } catch (const error &e) {
            fail(e.status(), "fpmath_mode",
                    "unknown fpmath mode " + quoted(m) + " (expected strict, bf16, f16, tf32 or any)");
        }
    }
    if (const json *ja = optional_member(root, "fpmath_mode_apply_to_int")) {
        const std::string v = as_string(*ja, "fpmath_mode_apply_to_int");
        if (v != "true" && v != "false")
            fail("fpmath_mode_apply_to_int", "expected \"true\" or \"false\", got " + quoted(v));
        c.fpmath_apply_to_int = v;
    }
    if (const json *jp = optional_member(root, "input_ports"))
        c.input_ports = as_ids(*jp, "input_ports");
    if (const json *jp = optional_member(root, "output_ports"))
        c.output_ports = as_ids(*jp, "output_ports");

    const json &jg = member(root, "graph", "");
    if (!jg.is_array() || jg.empty()) fail("graph", "must be a non-empty array, got " + describe(jg));
    std::map<size_t, size_t> op_index; // op id -> index in "graph"
    for (size_t i = 0; i < jg.size(); ++i) {
        const std::string path = "graph[" + std::to_string(i) + "]";
        c.ops.push_back(read_op(jg[i], path));
        const auto ins = op_index.emplace(c.ops.back().get_id(), i);
        if (!ins.second)
            fail(status::invalid_graph, path + ".id",
                    "duplicate op id " + std::to_string(c.ops.back().get_id()) + " (also graph["
                            + std::to_string(ins.first->second) + "])");
    }

    for (const char *ports : {"input_ports", "output_ports"}) {
        const auto &ids = ports[0] == 'i' ? c.input_ports : c.output_ports;
        for (size_t i = 0; i < ids.size(); ++i)
            if (!lts_.count(ids[i]))
                fail(status::invalid_graph, std::string(ports) + "[" + std::to_string(i) + "]",
                        "logical tensor " + std::to_string(ids[i]) + " is not used by any op");
    }
    // A graph input is given by the caller, so no op may write it: its values would be
    // overwritten by execute (qbench would see its input change and call that FAILED).
    for (size_t i = 0; i < c.input_ports.size(); ++i)
        for (size_t k = 0; k < c.ops.size(); ++k)
            for (const auto &lt : c.ops[k].get_output_logical_tensors())
                if (lt.get_id() == c.input_ports[i])
                    fail(status::invalid_graph, "input_ports[" + std::to_string(i) + "]",
                            "logical tensor " + std::to_string(lt.get_id())
                                    + " is an output of op " + std::to_string(c.ops[k].get_id())
                                    + " (graph[" + std::to_string(k) + "], "
                                    + to_string(c.ops[k].get_kind())
                                    + "): a graph input cannot be written by an op");
    // A graph output is what an op writes: a port naming a tensor no op produces would be
    // compared against a buffer execute never fills.
    for (size_t i = 0; i < c.output_ports.size(); ++i) {
        bool produced = false;
        for (const op &o : c.ops)
            for (const auto &lt : o.get_output_logical_tensors())
                produced = produced || lt.get_id() == c.output_ports[i];
        if (!produced)
            fail(status::invalid_graph, "output_ports[" + std::to_string(i) + "]",
                    "logical tensor " + std::to_string(c.output_ports[i])
                            + " is not an output of any op: a graph output must be written by "
                              "an op");
    }

    if (const json *jd = optional_member(root, "data")) read_data(*jd, "data", c);
    return c;
}

} // namespace

graph_case parse_case(const std::string &text, const std::string &source) {
    return case_reader(source).read(text);
}

} // namespace tools
} // namespace qgraph
