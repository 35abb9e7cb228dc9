#ifndef QGRAPH_TOOLS_QBENCH_PERF_BUFFER_HPP
#define QGRAPH_TOOLS_QBENCH_PERF_BUFFER_HPP

// Memory for one logical tensor in --mode=P: 64-byte aligned, sized for its layout, filled
// from a short pattern of values (tiled), compared element by element without an offset
// table. buffer.hpp does the same for --mode=C with the per-byte checks that mode needs.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qgraph/logical_tensor.hpp"

namespace qgraph {
namespace qbench {

class perf_buffer {
public:
    /// Every byte set to `poison`. Throws qgraph::error(invalid_shape) for a tensor without a
    /// concrete strided layout, std::bad_alloc when memory runs out.
    perf_buffer(const logical_tensor &lt, uint8_t poison);

    void *data() const { return data_.get(); }
    size_t size() const { return size_; }
    const logical_tensor &desc() const { return lt_; }

    /// Element i (row-major) gets bits[i % bits.size()].
    void fill_tiled(const std::vector<uint64_t> &bits);

private:
    struct free_deleter {
        void operator()(void *p) const;
    };
    logical_tensor lt_;
    size_t size_ = 0;
    std::unique_ptr<uint8_t, free_deleter> data_;
};

struct diff_summary {
    int64_t total = 0, mismatches = 0;
    std::vector<std::string> first; ///< "[i] got G, ref R" for the first few
};

/// Element-wise comparison of two tensors of the same logical shape and type (layouts may
/// differ), bit for bit with NaN equal to NaN (compare.hpp's rule).
diff_summary compare_tensors(const logical_tensor &a_lt, const void *a, const logical_tensor &b_lt,
        const void *b, size_t max_report = 5);

} // namespace qbench
} // namespace qgraph

#endif
