// Names of the public enums, as oneDNN's graph JSON spells them.

#include <cstring>
#include <string>

#include "qgraph/data_type_table.hpp"
#include "qgraph/engine.hpp"
#include "qgraph/error.hpp"
#include "qgraph/logical_tensor.hpp"
#include "qgraph/op.hpp"

namespace qgraph {
namespace {

#define QGRAPH_X(name) #name,
const char *const op_kind_names[] = {QGRAPH_OP_KINDS(QGRAPH_X)};
#undef QGRAPH_X

template <size_t N>
int find_name(const char *const (&names)[N], const std::string &name) {
    for (size_t i = 0; i < N; ++i)
        if (name == names[i]) return static_cast<int>(i);
    return -1;
}

} // namespace

const char *to_string(data_type dt) { return facts_of(dt).name; }

data_type data_type_from_string(const std::string &name) {
    for (const data_type_facts &f : data_type_table)
        // "undef" is not a type a file may name
        if (f.dt != data_type::undef && name == f.name) return f.dt;
    throw error(status::invalid_data_type, "unknown data type \"" + name + "\"");
}

size_t data_type_bits(data_type dt) { return static_cast<size_t>(facts_of(dt).bits); }

const char *to_string(logical_tensor::layout_type lt) {
    switch (lt) {
        case logical_tensor::layout_type::undef: return "undef";
        case logical_tensor::layout_type::any: return "any";
        case logical_tensor::layout_type::strided: return "strided";
    }
    return "?";
}

const char *to_string(logical_tensor::property_type pt) {
    switch (pt) {
        case logical_tensor::property_type::undef: return "undef";
        case logical_tensor::property_type::variable: return "variable";
        case logical_tensor::property_type::constant: return "constant";
        case logical_tensor::property_type::host_scalar: return "host_scalar";
    }
    return "?";
}

const char *to_string(op::kind k) { return op_kind_names[static_cast<int>(k)]; }

op::kind op_kind_from_string(const std::string &name) {
    const int i = find_name(op_kind_names, name);
    if (i < 0)
        throw error(status::invalid_arguments,
                "unknown op kind \"" + name + "\" (not a oneDNN Graph op kind)");
    return static_cast<op::kind>(i);
}

bool is_quantization_op(op::kind k) {
    return static_cast<int>(k) <= static_cast<int>(op::kind::DynamicQuantizeLinear);
}

const char *to_string(engine::kind k) {
    switch (k) {
        case engine::kind::any: return "any";
        case engine::kind::cpu: return "cpu";
        case engine::kind::gpu: return "gpu";
    }
    return "?";
}

const char *to_string(fpmath_mode m) {
    switch (m) {
        case fpmath_mode::strict: return "strict";
        case fpmath_mode::bf16: return "bf16";
        case fpmath_mode::f16: return "f16";
        case fpmath_mode::tf32: return "tf32";
        case fpmath_mode::any: return "any";
    }
    return "?";
}

fpmath_mode fpmath_mode_from_string(const char *name) {
    for (fpmath_mode m : {fpmath_mode::strict, fpmath_mode::bf16, fpmath_mode::f16,
                 fpmath_mode::tf32, fpmath_mode::any})
        if (std::strcmp(name, to_string(m)) == 0) return m;
    throw error(status::invalid_arguments,
            std::string("unknown fpmath_mode \"") + name
                    + "\" (expected strict, bf16, f16, tf32 or any)");
}

engine::engine(kind akind, size_t index) : kind_(akind), index_(index) {
    if (akind != kind::cpu || index != 0)
        throw error(status::unimplemented,
                std::string("engine: qgraph runs on the CPU only (kind cpu, index 0), got ")
                        + to_string(akind) + " " + std::to_string(index));
}

} // namespace qgraph
