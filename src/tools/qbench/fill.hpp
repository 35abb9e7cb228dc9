#ifndef QGRAPH_TOOLS_QBENCH_FILL_HPP
#define QGRAPH_TOOLS_QBENCH_FILL_HPP

// Input values for cases without "data", filled the benchdnn way: a few special values first,
// then seeded pseudo-random values chosen for what the tensor feeds (docs/cli.md, "Filling").
// Deterministic: the same (seed, tensor id, role, type, size) always gives the same values,
// on every platform (std::mt19937_64 is fully specified; no std::*_distribution is used).

#include <cstddef>
#include <cstdint>

#include "tools/case/case_io.hpp"
#include "tools/qbench/options.hpp"

namespace qgraph {
namespace qbench {

enum class fill_role {
    data, ///< anything else: integers over their whole range, floats on a 0.25 grid in [-16, 16]
    quant_src, ///< float input 0 of Quantize / DynamicQuantize / QuantizeLinear
    dql_src, ///< input 0 of DynamicQuantizeLinear
    scale, ///< input 1 of DynamicQuantize / DynamicDequantize / QuantizeLinear / DequantizeLinear
    zero_point, ///< input 2 of those four ops
};

const char *to_string(fill_role r);

/// What graph input `id` feeds, from the first op that reads it as a scale or zero point, else
/// as the source of a quantizing op, else data.
fill_role input_role(const tools::graph_case &c, size_t id);

/// `n` values for a tensor of type `dt`. Every value is representable in `dt` (floats may be
/// rounded to it by the codec) and in range:
/// - quant_src: max, lowest, 0, .25, .5, 1, 1.5, 2, 16, 64, -.5, 2.5, -2.5, -0, +-Inf, NaN,
///   then values on a 0.25 grid, half in [-32, 32] (ties) and half in [-1024, 1024]
///   (saturation);
/// - dql_src: 0, .25, .5, 1, 1.5, 2, 16, 64, then a 0.25 grid in [-64, 64];
/// - scale: positive, from {0.25, 0.5, 1, 2, 4, 0.125, 0.1, 3, 0.3, 1.5, 0.7, 10};
/// - zero_point: small integers in [-16, 15] clipped to the type's range;
/// - data: integers: max, lowest, 0, 1, 2, 16, 64, -1 (those in range), then uniform over the
///   type's range (s64: |v| < 2^53); floats: 0, .25, .5, 1, 1.5, 2, 16, 64, then a 0.25 grid in
///   [-16, 16]; boolean: 0 and 1.
/// With fill_dist::normal the grid values of the three float roles are replaced by the sum of
/// 12 uniform values in [0, 1) less 6 (mean 0, variance 1, within (-6, 6)), each in units of
/// 2^-32, so that every platform computes the same values exactly.
tools::tensor_values fill_values(fill_role role, data_type dt, int64_t n, uint64_t seed,
        size_t tensor_id, fill_dist dist = fill_dist::grid);

} // namespace qbench
} // namespace qgraph

#endif
