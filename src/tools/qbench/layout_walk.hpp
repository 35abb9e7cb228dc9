#ifndef QGRAPH_TOOLS_QBENCH_LAYOUT_WALK_HPP
#define QGRAPH_TOOLS_QBENCH_LAYOUT_WALK_HPP

// Visiting the elements of a strided layout in row-major order of the logical shape without
// materialising an offset table (buffer.hpp's table costs 8 bytes per element, too much for
// the hundreds of millions of elements --mode=P runs).

#include <cstdint>
#include <vector>

namespace qgraph {
namespace qbench {

/// The element offset (in elements) of row-major element 0, 1, 2, ... of dims/strides.
class offset_walker {
public:
    offset_walker(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides)
        : dims_(dims), strides_(strides), idx_(dims.size(), 0) {}

    int64_t offset() const { return off_; }

    /// Moves to the next element (odometer increment, innermost dim first).
    void next() {
        for (size_t d = dims_.size(); d-- > 0;) {
            if (++idx_[d] < dims_[d]) {
                off_ += strides_[d];
                return;
            }
            off_ -= (dims_[d] - 1) * strides_[d];
            idx_[d] = 0;
        }
    }

private:
    const std::vector<int64_t> &dims_;
    const std::vector<int64_t> &strides_;
    std::vector<int64_t> idx_;
    int64_t off_ = 0;
};

/// Elements of dims (1 for 0-D, 0 if any dim is 0).
inline int64_t element_count(const std::vector<int64_t> &dims) {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

/// Whether the layout is dense row-major (then element i is at offset i).
inline bool is_dense(const std::vector<int64_t> &dims, const std::vector<int64_t> &strides) {
    int64_t expect = 1;
    for (size_t d = dims.size(); d-- > 0;) {
        if (dims[d] != 1 && strides[d] != expect) return false;
        expect *= dims[d];
    }
    return true;
}

} // namespace qbench
} // namespace qgraph

#endif
