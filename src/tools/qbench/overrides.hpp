#ifndef QGRAPH_TOOLS_QBENCH_OVERRIDES_HPP
#define QGRAPH_TOOLS_QBENCH_OVERRIDES_HPP

// benchdnn's graph knobs that rewrite a case before it runs:
//   --in-shapes=ID:AxBxC[+ID:...]      a new shape (dense strides) for logical tensor ID
//   --op-attrs=OPID:NAME:VALUE[*...]   a new value for attribute NAME of op OPID
// and the problem shapes of the op shorthand ("1x64x56x56").

#include <cstddef>
#include <string>
#include <vector>

#include "qgraph/logical_tensor.hpp"
#include "tools/case/case_io.hpp"

namespace qgraph {
namespace qbench {

/// "1x64x56x56" -> {1, 64, 56, 56}; "scalar" -> {} (0-D). Dims are non-negative integers.
/// Throws usage_error naming `what` for anything else.
logical_tensor::dims parse_shape(const std::string &text, const std::string &what);
/// "1x64x56x56"; "scalar" for 0-D.
std::string shape_string(const logical_tensor::dims &dims);

struct shape_override {
    size_t id;
    logical_tensor::dims dims;
};
struct attr_override {
    size_t op_id;
    std::string name;
    std::string value; ///< as written; typed when applied (vector elements separated by 'x')
};

/// Throw usage_error for a malformed value ("" gives an empty list).
std::vector<shape_override> parse_in_shapes(const std::string &text);
std::vector<attr_override> parse_op_attrs(const std::string &text);

/// Applies both to the case. Every logical tensor with an overridden id gets the new shape
/// with dense strides; then, so that the graph infers them again, every tensor an op produces
/// loses its shape (outputs keep their layout kind). An id or op id the case lacks, or a value
/// that does not fit the attribute's type, throws qgraph::error(invalid_arguments).
void apply_overrides(tools::graph_case &c, const std::string &in_shapes,
        const std::string &op_attrs);

} // namespace qbench
} // namespace qgraph

#endif
