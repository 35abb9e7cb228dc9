#ifndef QGRAPH_LOGICAL_TENSOR_HPP
#define QGRAPH_LOGICAL_TENSOR_HPP

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "qgraph/export.hpp"

namespace qgraph {

/// Every data type a graph file may name: oneDNN's names first, then the ONNX types oneDNN
/// lacks. Knowing a type does not mean qgraph computes with it (see docs/semantics.md).
#define QGRAPH_DATA_TYPES(X) \
    X(undef) X(f32) X(bf16) X(f16) X(s32) X(s8) X(u8) X(s64) X(boolean) X(f8_e4m3) \
    X(f8_e5m2) X(s4) X(u4) X(s16) X(u16) X(s2) X(u2) X(f4_e2m1) X(f8_e4m3fnuz) \
    X(f8_e5m2fnuz) X(e8m0)

/// Describes a tensor without its data: id, element type, shape and memory layout.
/// Modelled on dnnl::graph::logical_tensor.
class QGRAPH_API logical_tensor {
public:
    using dims = std::vector<int64_t>;

#define QGRAPH_X(name) name,
    enum class data_type { QGRAPH_DATA_TYPES(QGRAPH_X) };
#undef QGRAPH_X

    /// strided: `strides` give the element distance per dimension. any: the library picks a
    /// dense layout at compile time (query it from the compiled partition).
    enum class layout_type { undef, any, strided };

    /// constant: contents never change between executions. host_scalar: a 0-D value on the host.
    enum class property_type { undef, variable, constant, host_scalar };

    /// A rank that is not known yet (shape inferred by the graph or given at compile).
    static constexpr int32_t unknown_ndims = -1;

    logical_tensor() = default;
    /// Dense row-major strides for `adims` (or `any` layout).
    logical_tensor(size_t id, data_type dtype, const dims &adims, layout_type ltype,
            property_type ptype = property_type::undef);
    /// Explicit strides, in elements.
    logical_tensor(size_t id, data_type dtype, const dims &adims, const dims &astrides,
            property_type ptype = property_type::undef);
    /// Shape not known yet: inferred by the graph or given at compile. (There is deliberately
    /// no rank-only constructor: with one, `{3}` as dims would silently mean "rank 3".)
    logical_tensor(size_t id, data_type dtype, layout_type ltype,
            property_type ptype = property_type::undef);

    size_t get_id() const { return id_; }
    data_type get_data_type() const { return dtype_; }
    layout_type get_layout_type() const { return ltype_; }
    property_type get_property_type() const { return ptype_; }
    /// unknown_ndims when the shape is not known.
    int32_t get_ndims() const { return ndims_; }
    const dims &get_dims() const { return dims_; }
    /// Empty unless the layout is strided.
    const dims &get_strides() const { return strides_; }
    bool has_known_shape() const { return ndims_ != unknown_ndims; }

    /// Elements in the tensor (1 for a 0-D tensor). Throws invalid_shape on unknown shape or
    /// int64 overflow.
    int64_t get_element_num() const;
    /// Bytes spanned by the strided layout (0 for an empty tensor). Throws like get_element_num.
    size_t get_mem_size() const;

    /// Same id, dtype, shape, layout, strides and property.
    bool is_equal(const logical_tensor &other) const;

private:
    size_t id_ = 0;
    data_type dtype_ = data_type::undef;
    int32_t ndims_ = unknown_ndims;
    dims dims_;
    dims strides_;
    layout_type ltype_ = layout_type::undef;
    property_type ptype_ = property_type::undef;
};

using data_type = logical_tensor::data_type;

/// "f32", "u8", ... as in oneDNN's graph JSON.
QGRAPH_API const char *to_string(data_type dt);
/// Inverse of to_string; throws invalid_data_type naming the unknown string.
QGRAPH_API data_type data_type_from_string(const std::string &name);
/// Bits of one element (4 for s4, 8 for u8, ...); 0 for undef.
QGRAPH_API size_t data_type_bits(data_type dt);

QGRAPH_API const char *to_string(logical_tensor::layout_type lt);
QGRAPH_API const char *to_string(logical_tensor::property_type pt);

} // namespace qgraph

#endif
