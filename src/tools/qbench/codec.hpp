#ifndef QGRAPH_TOOLS_QBENCH_CODEC_HPP
#define QGRAPH_TOOLS_QBENCH_CODEC_HPP

// Values <-> stored bits for every data type a case may name, so that qbench can fill, read
// and compare tensors of any type without the library's internals. One element is held as its
// raw bit pattern in a uint64_t (low bits; sub-byte types in the low 4 or 2 bits).

#include <cstdint>
#include <string>

#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace qbench {

/// Bits of one stored element (the same as qgraph::data_type_bits); 0 for undef.
int type_bits(data_type dt);
bool is_float_type(data_type dt); ///< f32, bf16, f16, the float8 types, f4_e2m1, e8m0
bool is_int_type(data_type dt); ///< s64, s32, s16, u16, s8, u8, s4, u4, s2, u2, boolean

/// Range of an integer type, or the finite range of a float type (lowest is -max except for
/// e8m0, which has no sign). {0, 0} for undef.
double type_max(data_type dt);
double type_lowest(data_type dt);

/// Rounds `v` to the type and returns its bits: floats round to nearest even (a value past
/// the largest finite one gives Inf where the type has Inf, else the largest finite value;
/// NaN gives the type's canonical NaN, or an error for a type without NaN); integers must be
/// whole numbers in range. Returns false with `why` set when the value cannot be stored.
bool encode(data_type dt, double v, uint64_t &bits, std::string &why);
/// The value the bits denote (exact in a double for every type but s64 beyond 2^53).
double decode(data_type dt, uint64_t bits);
bool is_nan(data_type dt, uint64_t bits);

/// Element `i` (in elements, not bytes) of a tensor at `base`; sub-byte types are packed
/// low bits first, as oneDNN packs s4/u4.
uint64_t load_bits(const void *base, data_type dt, int64_t i);
void store_bits(void *base, data_type dt, int64_t i, uint64_t bits);

/// "3" for integers; "1.5 (0x3fc00000)" for floats: the value and its bits in hex.
std::string format_value(data_type dt, uint64_t bits);

} // namespace qbench
} // namespace qgraph

#endif
