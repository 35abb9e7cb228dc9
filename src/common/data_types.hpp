#ifndef QGRAPH_COMMON_DATA_TYPES_HPP
#define QGRAPH_COMMON_DATA_TYPES_HPP

// What the library derives from the type table (qgraph/data_type_table.hpp): the integer
// types the kernels compute with, ranges as q_range, byte sizes; and element load/store.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "common/q10n.hpp"
#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace impl {

/// u8, s8 and s32: the integer types the quantization kernels read and write.
inline bool is_int8(data_type dt) { return dt == data_type::u8 || dt == data_type::s8; }
inline bool is_quant_int(data_type dt) { return is_int8(dt) || dt == data_type::s32; }

/// Range of an integer type, from the type table; {0, 0} for a non-integer type.
q_range range_of(data_type dt);

/// Bytes per element for the byte-addressable types (0 for sub-byte and undef).
size_t size_of(data_type dt);

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

/// Reads element `i` (in elements from `base`) of an integer tensor (u8, s8, s32).
inline int64_t load_int(const void *base, data_type dt, int64_t i) {
    switch (dt) {
        case data_type::u8: return load_elem<uint8_t>(base, i);
        case data_type::s8: return load_elem<int8_t>(base, i);
        case data_type::s32: return load_elem<int32_t>(base, i);
        default: return 0;
    }
}

} // namespace impl
} // namespace qgraph

#endif
