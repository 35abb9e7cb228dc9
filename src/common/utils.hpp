#ifndef QGRAPH_COMMON_UTILS_HPP
#define QGRAPH_COMMON_UTILS_HPP

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {

/// a * b, or invalid_shape naming `what` if it overflows int64.
inline int64_t checked_mul(int64_t a, int64_t b, const std::string &what) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        throw error(status::invalid_shape, what + " overflows int64");
    return r;
}

inline int64_t checked_add(int64_t a, int64_t b, const std::string &what) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        throw error(status::invalid_shape, what + " overflows int64");
    return r;
}

/// "1x64x56x56" (benchdnn's shape notation); "scalar" for 0-D.
inline std::string dims_to_string(const std::vector<int64_t> &d) {
    if (d.empty()) return "scalar";
    std::ostringstream os;
    for (size_t i = 0; i < d.size(); ++i) os << (i ? "x" : "") << d[i];
    return os.str();
}

} // namespace impl
} // namespace qgraph

#endif
