#include "tools/qbench/buffer.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

#include "qgraph/error.hpp"
#include "tools/qbench/codec.hpp"

namespace qgraph {
namespace qbench {

std::vector<int64_t> element_offsets(const logical_tensor &lt) {
    const auto &dims = lt.get_dims();
    const auto &strides = lt.get_strides();
    if (!lt.has_known_shape())
        throw error(status::invalid_shape,
                "logical tensor " + std::to_string(lt.get_id()) + " has no known shape");
    if (strides.size() != dims.size())
        throw error(status::invalid_shape,
                "logical tensor " + std::to_string(lt.get_id()) + " has no strided layout");
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0)
            throw error(status::invalid_shape,
                    "logical tensor " + std::to_string(lt.get_id()) + " has a negative dim");
        n *= d;
    }
    std::vector<int64_t> offsets;
    if (n == 0) return offsets;
    offsets.reserve(static_cast<size_t>(n));
    const size_t nd = dims.size();
    std::vector<int64_t> idx(nd, 0);
    int64_t off = 0;
    for (int64_t i = 0; i < n; ++i) {
        offsets.push_back(off);
        // Odometer increment, innermost dim first.
        for (size_t d = nd; d-- > 0;) {
            if (++idx[d] < dims[d]) {
                off += strides[d];
                break;
            }
            off -= (dims[d] - 1) * strides[d];
            idx[d] = 0;
        }
    }
    return offsets;
}

std::string index_string(const logical_tensor::dims &dims, int64_t i) {
    std::vector<int64_t> idx(dims.size(), 0);
    for (size_t d = dims.size(); d-- > 0;) {
        if (dims[d] > 0) {
            idx[d] = i % dims[d];
            i /= dims[d];
        }
    }
    std::string s = "(";
    for (size_t d = 0; d < idx.size(); ++d) s += (d ? "," : "") + std::to_string(idx[d]);
    return s + ")";
}

size_t span_bytes(const logical_tensor &lt, const std::vector<int64_t> &offsets) {
    if (offsets.empty()) return 0;
    const int64_t last = *std::max_element(offsets.begin(), offsets.end());
    const int64_t bits = type_bits(lt.get_data_type());
    return static_cast<size_t>(((last + 1) * bits + 7) / 8);
}

void buffer::free_deleter::operator()(void *p) const { std::free(p); }

buffer::buffer(const logical_tensor &lt, uint8_t poison)
    : lt_(lt), offsets_(element_offsets(lt)), poison_(poison) {
    size_t need = std::max(lt.get_mem_size(), span_bytes(lt, offsets_));
    size_ = std::max<size_t>(alignment, (need + alignment - 1) / alignment * alignment);
    void *p = std::aligned_alloc(alignment, size_);
    if (!p) throw std::bad_alloc();
    data_.reset(static_cast<uint8_t *>(p));
    std::memset(p, poison_, size_);
}

void buffer::scatter(const std::vector<uint64_t> &bits) {
    const data_type dt = lt_.get_data_type();
    for (size_t i = 0; i < offsets_.size(); ++i) store_bits(data(), dt, offsets_[i], bits[i]);
}

std::vector<uint64_t> buffer::gather() const {
    const data_type dt = lt_.get_data_type();
    std::vector<uint64_t> bits(offsets_.size());
    for (size_t i = 0; i < offsets_.size(); ++i) bits[i] = load_bits(data(), dt, offsets_[i]);
    return bits;
}

int64_t buffer::first_clobbered_gap() const {
    const int64_t bits = type_bits(lt_.get_data_type());
    if (bits == 0) return -1;
    std::vector<bool> covered(size_, false);
    for (int64_t off : offsets_) {
        const int64_t first = off * bits / 8;
        const int64_t last = ((off + 1) * bits + 7) / 8;
        for (int64_t b = first; b < last; ++b) covered[static_cast<size_t>(b)] = true;
    }
    const uint8_t *p = data_.get();
    for (size_t b = 0; b < size_; ++b)
        if (!covered[b] && p[b] != poison_) return static_cast<int64_t>(b);
    return -1;
}

} // namespace qbench
} // namespace qgraph
