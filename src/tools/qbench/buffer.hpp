#ifndef QGRAPH_TOOLS_QBENCH_BUFFER_HPP
#define QGRAPH_TOOLS_QBENCH_BUFFER_HPP

// Memory for one logical tensor, and moving values between the logical row-major order that
// case files (and the fill) use and the tensor's strided layout.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace qbench {

/// Offsets (in elements) of every element of `lt` in row-major order of its logical shape:
/// offsets[i] = sum(index_d(i) * stride_d). A 0-D tensor has one element at 0; an empty one
/// none. Throws qgraph::error(invalid_shape) if `lt` has no known shape or strides.
std::vector<int64_t> element_offsets(const logical_tensor &lt);

/// The multi-index of row-major element `i` of `dims`, as "(0,2,1)" ("()" for 0-D).
std::string index_string(const logical_tensor::dims &dims, int64_t i);

/// Bytes every byte of every element of the layout touches (max offset + 1 elements).
size_t span_bytes(const logical_tensor &lt, const std::vector<int64_t> &offsets);

/// A 64-byte aligned allocation of at least max(lt.get_mem_size(), the layout's span) bytes
/// (never less than 64, so even an empty tensor gets a non-null handle), filled with `poison`.
class buffer {
public:
    static constexpr size_t alignment = 64;

    buffer(const logical_tensor &lt, uint8_t poison);

    void *data() const { return data_.get(); }
    size_t size() const { return size_; }
    const logical_tensor &desc() const { return lt_; }
    const std::vector<int64_t> &offsets() const { return offsets_; }

    /// Writes row-major `bits` (one per element) through the strides.
    void scatter(const std::vector<uint64_t> &bits);
    /// Reads the elements in row-major order.
    std::vector<uint64_t> gather() const;

    /// The first byte that no element covers and that no longer holds the poison, or -1.
    /// Finds writes into the gaps of a strided layout or past its last element.
    int64_t first_clobbered_gap() const;

private:
    struct free_deleter {
        void operator()(void *p) const;
    };

    logical_tensor lt_;
    std::vector<int64_t> offsets_;
    size_t size_ = 0;
    uint8_t poison_ = 0;
    std::unique_ptr<uint8_t, free_deleter> data_;
};

} // namespace qbench
} // namespace qgraph

#endif
