#include "common/op_attrs.hpp"

#include <cstring>

#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {

std::string op_desc(const op &o) {
    std::string s = to_string(o.get_kind());
    if (!o.get_name().empty()) s += " '" + o.get_name() + "'";
    return s + " (id " + std::to_string(o.get_id()) + ")";
}

int64_t attr_s64(const op &o, const char *name, int64_t dflt) {
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? dflt : std::get<int64_t>(it->second);
}

bool attr_bool(const op &o, const char *name, bool dflt) {
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? dflt : std::get<bool>(it->second);
}

std::string attr_string(const op &o, const char *name, const std::string &dflt) {
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? dflt : std::get<std::string>(it->second);
}

const std::vector<float> &attr_f32s(const op &o, const char *name) {
    static const std::vector<float> none;
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? none : std::get<std::vector<float>>(it->second);
}

std::vector<int64_t> attr_s64s(const op &o, const char *name) {
    auto it = o.get_attrs().find(name);
    return it == o.get_attrs().end() ? std::vector<int64_t> {}
                                     : std::get<std::vector<int64_t>>(it->second);
}

namespace {

// onnx.proto's TensorProto.DataType, indexed by code (FLOAT8E8M0 = 24 since ONNX 1.18,
// UINT2 = 25 and INT2 = 26 since 1.19). The type table holds the same names (onnx_name), so a
// code maps to a qgraph type through its name and the mapping is written down only once.
const char *const onnx_code_names[] = {"UNDEFINED", "FLOAT", "UINT8", "INT8", "UINT16", "INT16",
        "INT32", "INT64", "STRING", "BOOL", "FLOAT16", "DOUBLE", "UINT32", "UINT64", "COMPLEX64",
        "COMPLEX128", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ", "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2"};
constexpr int64_t onnx_code_count = sizeof(onnx_code_names) / sizeof(onnx_code_names[0]);

} // namespace

data_type onnx_data_type(int64_t code) {
    if (code <= 0 || code >= onnx_code_count) return data_type::undef;
    for (const data_type_facts &f : data_type_table)
        if (std::strcmp(f.onnx_name, onnx_code_names[code]) == 0) return f.dt;
    return data_type::undef;
}

std::string onnx_code_desc(int64_t code) {
    const bool known = code >= 0 && code < onnx_code_count;
    return std::to_string(code) + " (" + (known ? onnx_code_names[code] : "unknown") + ")";
}

} // namespace impl
} // namespace qgraph
