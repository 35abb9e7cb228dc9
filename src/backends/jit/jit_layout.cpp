#include "backends/jit/jit_layout.hpp"

namespace qgraph {
namespace impl {
namespace jit {

bool run_layout::init(const quant_problem &p, std::string &reason) {
    const int nd = static_cast<int>(p.dims.size());
    if (nd == 0) return true; // one element
    if (p.src_strides[nd - 1] != 1 || p.dst_strides[nd - 1] != 1) {
        reason = "the innermost dim has src stride " + std::to_string(p.src_strides[nd - 1])
                + " and dst stride " + std::to_string(p.dst_strides[nd - 1])
                + "; jit kernels need a contiguous inner run";
        return false;
    }
    if (nd - 1 > max_outer) {
        reason = "more than " + std::to_string(max_outer + 1) + " dims after merging";
        return false;
    }
    inner = p.dims[nd - 1];
    nouter = nd - 1;
    for (int d = 0; d < nouter; ++d) {
        dims[d] = p.dims[d];
        src_strides[d] = p.src_strides[d];
        dst_strides[d] = p.dst_strides[d];
        rows *= p.dims[d];
    }
    if (p.per_channel()) {
        channel_inner = p.channel_dim == nd - 1;
        channel_outer = channel_inner ? -1 : p.channel_dim;
    }
    return true;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
