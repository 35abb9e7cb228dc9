#include "common/data_types.hpp"

#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {

q_range range_of(data_type dt) {
    const data_type_facts &f = facts_of(dt);
    if (f.cls != type_class::integer) return {0, 0};
    return {f.lo, f.hi};
}

size_t size_of(data_type dt) {
    const size_t bits = data_type_bits(dt);
    return bits % 8 == 0 ? bits / 8 : 0;
}

} // namespace impl
} // namespace qgraph
