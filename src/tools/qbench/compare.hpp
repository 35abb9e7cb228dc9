#ifndef QGRAPH_TOOLS_QBENCH_COMPARE_HPP
#define QGRAPH_TOOLS_QBENCH_COMPARE_HPP

// Bit-exact comparison of an output with its expected values (NUMERICS.md: integers exactly,
// floats bitwise, NaN matches any NaN; -0 and +0 differ).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace qbench {

/// The same bits, or two NaNs of a float type (whatever their sign and payload).
bool same_bits(data_type dt, uint64_t got, uint64_t expected);

struct mismatch {
    int64_t index; ///< row-major element index in the logical shape
    uint64_t got;
    uint64_t expected;
};

struct compare_result {
    int64_t total = 0;
    int64_t mismatches = 0;
    std::vector<mismatch> first; ///< the first `max_report` mismatches
    bool ok() const { return mismatches == 0; }
};

/// Compares element by element; `got` and `expected` must have the same size.
compare_result compare_bits(data_type dt, const std::vector<uint64_t> &got,
        const std::vector<uint64_t> &expected, size_t max_report = 10);

/// "u8 1x3x3x2" (the shape "scalar" for 0-D).
std::string describe_tensor(const logical_tensor &lt);

/// Report lines for a failed comparison of output `lt`, `against` naming the expectation
/// ("expected" for data, "ref" for the reference backend):
///   "output 3 (u8 1x3x3x2): 2 of 18 elements differ from expected"
///   "mismatch: output 3 [5] (0,2,1): got 3, expected 4"
///   "mismatch: output 3 [7] (0,3,1): got 1.5 (0x3fc00000), expected 1.25 (0x3fa00000)"
///   "mismatch: output 3: 8 more not shown"
std::vector<std::string> describe_mismatches(
        const compare_result &r, const logical_tensor &lt, const std::string &against);

} // namespace qbench
} // namespace qgraph

#endif
