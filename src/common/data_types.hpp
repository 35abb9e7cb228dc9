#ifndef QGRAPH_COMMON_DATA_TYPES_HPP
#define QGRAPH_COMMON_DATA_TYPES_HPP

// What the library derives from the type table (qgraph/data_type_table.hpp): the integer
// types the kernels compute with, ranges as q_range, byte sizes; and element load/store.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/q10n.hpp"
#include "qgraph/data_type_table.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {

/// u8, s8 and s32: the integer types the JIT and oneDNN kernels read and write.
inline bool is_int8(data_type dt) { return dt == data_type::u8 || dt == data_type::s8; }
inline bool is_quant_int(data_type dt) { return is_int8(dt) || dt == data_type::s32; }

/// Every integer type a quantized tensor may have: 2 to 32 bits, signed or not.
bool is_quantized_integer(data_type dt);
/// float8 and float4 (not e8m0, a scale type only): quantize destinations, dequantize sources.
/// Inline: drivers ask per row.
inline bool is_minifloat(data_type dt) {
    const data_type_facts &f = facts_of(dt);
    return f.cls == type_class::floating && f.bits <= 8 && f.style != float_style::e8m0;
}
/// The float8 types (minifloats of one byte).
inline bool is_float8(data_type dt) { return is_minifloat(dt) && facts_of(dt).bits == 8; }
/// The 4-bit types (s4, u4, f4_e2m1): two elements a byte, element 2k in the low nibble.
inline bool four_bit(data_type dt) { return facts_of(dt).bits == 4; }
/// f32, bf16, f16: quantize sources, dequantize destinations, scales.
bool is_wide_float(data_type dt);

/// Range of an integer type, from the type table; {0, 0} for a non-integer type.
q_range range_of(data_type dt);

/// Bytes per element for the byte-addressable types (0 for sub-byte and undef).
size_t size_of(data_type dt);

/// Where element `i` (counted in elements from the base, the unit of qgraph's strides) of a
/// tensor with `bits`-bit elements lies: byte i / per_byte, bits from `shift` up, elements
/// packed low bits first (NUMERICS.md). For whole-byte types shift is 0 and byte is i * size.
struct elem_pos {
    int64_t byte;
    int shift;
};
inline elem_pos position_of(int64_t i, int bits) {
    if (bits >= 8) return {i * (bits / 8), 0};
    const int per_byte = 8 / bits;
    return {i / per_byte, static_cast<int>(i % per_byte) * bits};
}

/// The raw code of element `i`, any storage width up to 32 bits, in the low bits.
uint32_t load_code(const void *base, data_type dt, int64_t i);
/// Writes the low bits of `code` as element `i`. A sub-byte element is read-modified-written
/// in its byte: the other elements of that byte are kept, so two writers of one byte race
/// (kernels split work on byte boundaries).
void store_code(void *base, data_type dt, int64_t i, uint32_t code);
/// Zeroes the bits after element `span - 1` in its byte: the unused high bits of a sub-byte
/// tensor's last byte are written as 0 (NUMERICS.md). Nothing for whole-byte types.
void clear_tail_bits(void *base, data_type dt, int64_t span);

/// Element `i` of type T at `base`. Callers' handles need not be aligned (qgraph accepts any
/// address), and memcpy is the defined way to read a possibly misaligned T; it compiles to
/// one load.
template <typename T>
inline T load_elem(const void *base, int64_t i) {
    T v;
    std::memcpy(&v, static_cast<const char *>(base) + i * static_cast<int64_t>(sizeof(T)),
            sizeof(T));
    return v;
}

/// Writes element `i` of type T at a possibly misaligned `base`.
template <typename T>
inline void store_elem(void *base, int64_t i, T v) {
    std::memcpy(static_cast<char *>(base) + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

/// Reads element `i` (in elements from `base`) of an integer tensor of any quantized
/// integer type, sign-extended for the signed ones.
int64_t load_int(const void *base, data_type dt, int64_t i);

/// Element `i` of an f32, bf16, f16 or e8m0 tensor as f32, exactly (common/half_types.hpp).
float load_float(const void *base, data_type dt, int64_t i);
/// `v` rounded once to nearest even into element `i` of an f32, bf16 or f16 tensor.
void store_float(void *base, data_type dt, int64_t i, float v);

} // namespace impl
} // namespace qgraph

#endif
