#ifndef QGRAPH_TESTS_COMMON_DENSE_STRIDES_HPP
#define QGRAPH_TESTS_COMMON_DENSE_STRIDES_HPP

// Row-major dense strides, in elements, for the tests that build layouts and problems by hand.

#include <cstdint>
#include <vector>

namespace qtest {

/// The strides of a dense row-major tensor of shape `d` (the last dim contiguous).
inline std::vector<int64_t> dense_strides(const std::vector<int64_t> &d) {
    std::vector<int64_t> s(d.size(), 1);
    for (size_t i = d.size(); i-- > 1;) s[i - 1] = s[i] * d[i];
    return s;
}

} // namespace qtest

#endif
