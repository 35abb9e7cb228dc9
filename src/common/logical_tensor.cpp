#include "qgraph/logical_tensor.hpp"

#include <string>

#include "common/utils.hpp"
#include "qgraph/error.hpp"

namespace qgraph {

namespace {
logical_tensor::dims dense_strides(size_t id, const logical_tensor::dims &d) {
    logical_tensor::dims s(d.size());
    int64_t stride = 1;
    for (size_t i = d.size(); i-- > 0;) {
        s[i] = stride;
        // A zero dim makes the tensor empty; keep strides of the remaining dims meaningful.
        // (The message is built only on failure: logical tensors are made on hot paths.)
        if (__builtin_mul_overflow(stride, d[i] > 0 ? d[i] : 1, &stride))
            throw error(status::invalid_shape,
                    "logical tensor " + std::to_string(id) + ": dense strides of shape "
                            + impl::dims_to_string(d) + " overflow int64");
    }
    return s;
}
} // namespace

logical_tensor::logical_tensor(size_t id, data_type dtype, const dims &adims,
        layout_type ltype, property_type ptype)
    : id_(id)
    , dtype_(dtype)
    , ndims_(static_cast<int32_t>(adims.size()))
    , dims_(adims)
    , ltype_(ltype)
    , ptype_(ptype) {
    if (ltype == layout_type::strided) strides_ = dense_strides(id, adims);
}

logical_tensor::logical_tensor(size_t id, data_type dtype, const dims &adims,
        const dims &astrides, property_type ptype)
    : id_(id)
    , dtype_(dtype)
    , ndims_(static_cast<int32_t>(adims.size()))
    , dims_(adims)
    , strides_(astrides)
    , ltype_(layout_type::strided)
    , ptype_(ptype) {}

logical_tensor::logical_tensor(
        size_t id, data_type dtype, layout_type ltype, property_type ptype)
    : id_(id), dtype_(dtype), ltype_(ltype), ptype_(ptype) {}

int64_t logical_tensor::get_element_num() const {
    const std::string what = "logical tensor " + std::to_string(id_);
    if (!has_known_shape())
        throw error(status::invalid_shape, what + ": shape is not known");
    int64_t n = 1;
    for (int64_t d : dims_) {
        if (d < 0)
            throw error(status::invalid_shape,
                    what + ": negative dimension " + std::to_string(d));
        n = impl::checked_mul(n, d, what + ": element count");
    }
    return n;
}

size_t logical_tensor::get_mem_size() const {
    const std::string what = "logical tensor " + std::to_string(id_);
    const int64_t n = get_element_num();
    if (n == 0) return 0;
    const size_t bits = data_type_bits(dtype_);
    if (ltype_ != layout_type::strided || strides_.size() != dims_.size()) {
        return static_cast<size_t>(
                impl::checked_mul(n, static_cast<int64_t>(bits), what + ": size") + 7)
                / 8;
    }
    // Span of the strided layout: offset of the last element + 1.
    int64_t last = 0;
    for (size_t i = 0; i < dims_.size(); ++i) {
        if (strides_[i] < 0)
            throw error(status::invalid_shape,
                    what + ": negative stride " + std::to_string(strides_[i]));
        last = impl::checked_add(last,
                impl::checked_mul(dims_[i] - 1, strides_[i], what + ": span"),
                what + ": span");
    }
    const int64_t span = impl::checked_add(last, 1, what + ": span");
    return static_cast<size_t>(
            (impl::checked_mul(span, static_cast<int64_t>(bits), what + ": size") + 7) / 8);
}

bool logical_tensor::is_equal(const logical_tensor &o) const {
    return id_ == o.id_ && dtype_ == o.dtype_ && ndims_ == o.ndims_ && dims_ == o.dims_
            && ltype_ == o.ltype_ && strides_ == o.strides_ && ptype_ == o.ptype_;
}

} // namespace qgraph
