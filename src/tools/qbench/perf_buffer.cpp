#include "tools/qbench/perf_buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "qgraph/error.hpp"
#include "tools/qbench/codec.hpp"
#include "tools/qbench/compare.hpp"
#include "tools/qbench/layout_walk.hpp"

namespace qgraph {
namespace qbench {

void perf_buffer::free_deleter::operator()(void *p) const { std::free(p); }

perf_buffer::perf_buffer(const logical_tensor &lt, uint8_t poison) : lt_(lt) {
    const auto &dims = lt.get_dims();
    const auto &strides = lt.get_strides();
    if (!lt.has_known_shape() || strides.size() != dims.size())
        throw error(status::invalid_shape,
                "logical tensor " + std::to_string(lt.get_id()) + " has no concrete layout");
    int64_t last = 0; // offset of the last element + 1
    if (element_count(dims) > 0) {
        last = 1;
        for (size_t d = 0; d < dims.size(); ++d) last += (dims[d] - 1) * strides[d];
    }
    const size_t span = static_cast<size_t>((last * type_bits(lt.get_data_type()) + 7) / 8);
    constexpr size_t align = 64;
    const size_t need = std::max(lt.get_mem_size(), span);
    size_ = std::max<size_t>(align, (need + align - 1) / align * align);
    void *p = std::aligned_alloc(align, size_);
    if (!p) throw std::bad_alloc();
    data_.reset(static_cast<uint8_t *>(p));
    std::memset(p, poison, size_);
}

void perf_buffer::fill_tiled(const std::vector<uint64_t> &bits) {
    const int64_t n = element_count(lt_.get_dims());
    if (n == 0 || bits.empty()) return;
    const data_type dt = lt_.get_data_type();
    offset_walker w(lt_.get_dims(), lt_.get_strides());
    const size_t m = bits.size();
    size_t k = 0;
    for (int64_t i = 0; i < n; ++i, w.next()) {
        store_bits(data(), dt, w.offset(), bits[k]);
        if (++k == m) k = 0;
    }
}

diff_summary compare_tensors(const logical_tensor &a_lt, const void *a, const logical_tensor &b_lt,
        const void *b, size_t max_report) {
    diff_summary d;
    const data_type dt = a_lt.get_data_type();
    d.total = element_count(a_lt.get_dims());
    offset_walker wa(a_lt.get_dims(), a_lt.get_strides());
    offset_walker wb(b_lt.get_dims(), b_lt.get_strides());
    for (int64_t i = 0; i < d.total; ++i, wa.next(), wb.next()) {
        const uint64_t x = load_bits(a, dt, wa.offset()), y = load_bits(b, dt, wb.offset());
        if (same_bits(dt, x, y)) continue;
        if (d.first.size() < max_report)
            d.first.push_back("[" + std::to_string(i) + "] got " + format_value(dt, x)
                    + ", ref " + format_value(dt, y));
        ++d.mismatches;
    }
    return d;
}

} // namespace qbench
} // namespace qgraph
