#include "common/data_types.hpp"

#include <limits>

namespace qgraph {
namespace impl {

q_range range_of(data_type dt) {
    switch (dt) {
        case data_type::u8: return {0, 255};
        case data_type::s8: return {-128, 127};
        case data_type::s32:
            return {std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::max()};
        case data_type::u16: return {0, 65535};
        case data_type::s16: return {-32768, 32767};
        case data_type::u4: return {0, 15};
        case data_type::s4: return {-8, 7};
        case data_type::u2: return {0, 3};
        case data_type::s2: return {-2, 1};
        default: return {0, 0};
    }
}

size_t size_of(data_type dt) {
    const size_t bits = data_type_bits(dt);
    return bits % 8 == 0 ? bits / 8 : 0;
}

} // namespace impl
} // namespace qgraph
