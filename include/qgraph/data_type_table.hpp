#ifndef QGRAPH_DATA_TYPE_TABLE_HPP
#define QGRAPH_DATA_TYPE_TABLE_HPP

// The facts about every data_type in one constexpr table: storage, integer range, float format
// and names. Every layer reads it (the library, the case tools, qbench) instead of keeping its
// own switch, so a type is described once. It is public because the tools sit on the public API
// only, and because an integrator filling or reading tensors needs the same facts.

#include <cstddef>
#include <cstdint>

#include "qgraph/logical_tensor.hpp"

namespace qgraph {

/// What the bits of an element stand for.
enum class type_class {
    none, ///< undef
    integer, ///< two's complement (signed) or plain binary
    boolean, ///< one byte, 0 or 1
    floating, ///< sign (if any), exponent, mantissa: see float_style
};

/// Which codes of a float format are NaN and Inf, and whether it has -0. Everything else is
/// sign x 2^(e - bias) x 1.m (e > 0) or sign x 2^(1 - bias) x 0.m (e == 0, subnormal).
enum class float_style {
    none, ///< not a float type
    ieee, ///< exponent all ones: Inf (mantissa 0) or NaN; -0 exists (f32, bf16, f16, f8_e5m2)
    fn, ///< no Inf; exponent and mantissa all ones is NaN (f8_e4m3 = ONNX float8e4m3fn)
    fnuz, ///< no Inf, no -0: the sign bit alone (0x80) is the one NaN
    e8m0, ///< exponent only, no sign, no zero: 2^(c - 127), 0xFF is NaN
    finite, ///< no Inf, no NaN; -0 exists (f4_e2m1)
};

/// One row of the table. Columns that do not apply to a type are 0.
struct data_type_facts {
    /// The row's own type: the table is indexed by the enum, and this checks the order.
    data_type dt;
    /// qgraph's name (to_string, graph files); oneDNN's name wherever oneDNN has the type.
    const char *name;
    /// ONNX TensorProto.DataType name, for tools that translate ONNX models and cases.
    const char *onnx_name;
    /// Storage bits of one element: sizes and addresses of tensors.
    int bits;
    /// Elements sharing one byte: 8 / bits for sub-byte types, which are packed low bits first
    /// (element k in bits (k % per_byte) * bits and up); 1 for the others.
    int per_byte;
    /// How to read the bits: integer ranges and float formats below apply to one class each.
    type_class cls;
    /// Has a sign bit (two's complement for integers); e8m0 and the u* types have none.
    bool is_signed;
    /// integer and boolean: the inclusive range, the bounds quantization saturates to.
    int64_t lo, hi;
    /// floating: exponent and mantissa field widths and the exponent bias, enough to decode
    /// every code together with `style`.
    int exp_bits, man_bits, bias;
    float_style style;
    /// floating: the largest finite value, the saturation bound of float outputs.
    double max;
};

namespace detail {
constexpr data_type_facts int_row(data_type dt, const char *name, const char *onnx, int bits,
        bool is_signed, int64_t lo, int64_t hi) {
    return {dt, name, onnx, bits, bits < 8 ? 8 / bits : 1, type_class::integer, is_signed, lo,
            hi, 0, 0, 0, float_style::none, 0};
}
constexpr data_type_facts float_row(data_type dt, const char *name, const char *onnx, int bits,
        int exp_bits, int man_bits, int bias, float_style style, double max) {
    return {dt, name, onnx, bits, bits < 8 ? 8 / bits : 1, type_class::floating,
            style != float_style::e8m0, 0, 0, exp_bits, man_bits, bias, style, max};
}
} // namespace detail

/// One row per data_type, in enum order (checked below).
inline constexpr data_type_facts data_type_table[] = {
        {data_type::undef, "undef", "UNDEFINED", 0, 1, type_class::none, false, 0, 0, 0, 0, 0,
                float_style::none, 0},
        detail::float_row(data_type::f32, "f32", "FLOAT", 32, 8, 23, 127, float_style::ieee,
                0x1.fffffep127),
        detail::float_row(data_type::bf16, "bf16", "BFLOAT16", 16, 8, 7, 127, float_style::ieee,
                0x1.fep127),
        detail::float_row(data_type::f16, "f16", "FLOAT16", 16, 5, 10, 15, float_style::ieee,
                65504),
        detail::int_row(data_type::s32, "s32", "INT32", 32, true, INT32_MIN, INT32_MAX),
        detail::int_row(data_type::s8, "s8", "INT8", 8, true, -128, 127),
        detail::int_row(data_type::u8, "u8", "UINT8", 8, false, 0, 255),
        detail::int_row(data_type::s64, "s64", "INT64", 64, true, INT64_MIN, INT64_MAX),
        {data_type::boolean, "boolean", "BOOL", 8, 1, type_class::boolean, false, 0, 1, 0, 0, 0,
                float_style::none, 0},
        detail::float_row(data_type::f8_e4m3, "f8_e4m3", "FLOAT8E4M3FN", 8, 4, 3, 7,
                float_style::fn, 448),
        detail::float_row(data_type::f8_e5m2, "f8_e5m2", "FLOAT8E5M2", 8, 5, 2, 15,
                float_style::ieee, 57344),
        detail::int_row(data_type::s4, "s4", "INT4", 4, true, -8, 7),
        detail::int_row(data_type::u4, "u4", "UINT4", 4, false, 0, 15),
        detail::int_row(data_type::s16, "s16", "INT16", 16, true, -32768, 32767),
        detail::int_row(data_type::u16, "u16", "UINT16", 16, false, 0, 65535),
        detail::int_row(data_type::s2, "s2", "INT2", 2, true, -2, 1),
        detail::int_row(data_type::u2, "u2", "UINT2", 2, false, 0, 3),
        detail::float_row(data_type::f4_e2m1, "f4_e2m1", "FLOAT4E2M1", 4, 2, 1, 1,
                float_style::finite, 6),
        detail::float_row(data_type::f8_e4m3fnuz, "f8_e4m3fnuz", "FLOAT8E4M3FNUZ", 8, 4, 3, 8,
                float_style::fnuz, 240),
        detail::float_row(data_type::f8_e5m2fnuz, "f8_e5m2fnuz", "FLOAT8E5M2FNUZ", 8, 5, 2, 16,
                float_style::fnuz, 57344),
        detail::float_row(data_type::e8m0, "e8m0", "FLOAT8E8M0", 8, 8, 0, 127,
                float_style::e8m0, 0x1p127),
};

namespace detail {
#define QGRAPH_X(name) #name,
constexpr const char *enum_names[] = {QGRAPH_DATA_TYPES(QGRAPH_X)};
#undef QGRAPH_X
constexpr size_t data_type_count = sizeof(enum_names) / sizeof(enum_names[0]);
constexpr bool same_text(const char *a, const char *b) {
    while (*a && *a == *b) ++a, ++b;
    return *a == *b;
}
/// Row i is the type whose enum value is i, and its name is the enumerator's spelling.
constexpr bool rows_match_enum() {
    for (size_t i = 0; i < data_type_count; ++i)
        if (static_cast<size_t>(data_type_table[i].dt) != i
                || !same_text(data_type_table[i].name, enum_names[i]))
            return false;
    return true;
}
static_assert(sizeof(data_type_table) / sizeof(data_type_table[0]) == data_type_count,
        "data_type_table needs one row per data_type");
static_assert(rows_match_enum(), "data_type_table rows must follow the enum, names included");
} // namespace detail

/// The row of `dt`. `dt` must be one of the enum's values.
constexpr const data_type_facts &facts_of(data_type dt) {
    return data_type_table[static_cast<size_t>(dt)];
}

} // namespace qgraph

#endif
