#include "backends/jit/jit_layout.hpp"

#include <vector>

#include "common/data_types.hpp"

namespace qgraph {
namespace impl {
namespace jit {

namespace {

/// The first dim of extent > 1 with stride 1, or -1.
int unit_stride_dim(const quant_problem &p, const std::vector<int64_t> &strides) {
    for (size_t d = 0; d < p.dims.size(); ++d)
        if (strides[d] == 1 && p.dims[d] > 1) return static_cast<int>(d);
    return -1;
}

/// p with its dims in `order`, the parameter map following its dims.
quant_problem permuted(const quant_problem &p, const std::vector<int> &order) {
    quant_problem q = p;
    for (size_t i = 0; i < order.size(); ++i) {
        q.dims[i] = p.dims[order[i]];
        q.src_strides[i] = p.src_strides[order[i]];
        q.dst_strides[i] = p.dst_strides[order[i]];
        q.params[i] = p.params[order[i]];
    }
    return q;
}

} // namespace

bool run_layout::init(const quant_problem &p, std::string &reason) {
    const int nd = static_cast<int>(p.dims.size());
    if (nd == 0) return true; // one element
    if (p.src_strides[nd - 1] == 1 && p.dst_strides[nd - 1] == 1) return init_runs(p, reason);
    if (!p.per_tensor() && !p.per_channel()) {
        reason = "parameters along several dims with src and dst contiguous along different "
                 "dims (the tiles take one channel)";
        return false;
    }

    // No contiguous run along the last dim: find each side's contiguous dim.
    // A convert's narrow side is its smaller type (the destination of a same-type copy).
    const bool narrow_dst = p.kind == q_kind::convert
            ? size_of(p.dst_dt) <= size_of(p.src_dt)
            : p.kind != q_kind::dequantize;
    const std::vector<int64_t> &ws = narrow_dst ? p.src_strides : p.dst_strides;
    const std::vector<int64_t> &ns = narrow_dst ? p.dst_strides : p.src_strides;
    const int k = unit_stride_dim(p, ws), t = unit_stride_dim(p, ns);
    if (k < 0 || t < 0) {
        reason = std::string("no dim of stride 1 in ") + ((k < 0) == narrow_dst ? "src" : "dst")
                + "; jit kernels need a contiguous run on each side";
        return false;
    }
    std::vector<int> order;
    for (int d = 0; d < nd; ++d)
        if (d != k && d != t) order.push_back(d);
    if (k == t) {
        // Both sides contiguous along the same dim, just not the last: move it last.
        order.push_back(k);
        return init_runs(permuted(p, order), reason);
    }
    const size_t narrow_size = size_of(narrow_dst ? p.dst_dt : p.src_dt);
    // The tiles take 1, 2 or 4-byte elements; the quantize and dequantize code only 1 or 4
    // (their 2-byte integer sides have no tile buffer path).
    if (narrow_size != 1 && narrow_size != 4 && !(narrow_size == 2 && p.kind == q_kind::convert)) {
        reason = "src and dst contiguous along different dims, with a "
                + std::to_string(narrow_size) + "-byte narrow side (tiles take 1 or 4)";
        return false;
    }
    if (nd - 2 > tile_plan::max_other) {
        reason = "more than " + std::to_string(tile_plan::max_other + 2) + " dims after merging";
        return false;
    }
    const int ch = p.channel_dim();
    tile_plan &tp = tiles;
    tp.active = true;
    tp.narrow_dst = narrow_dst;
    tp.narrow_size = static_cast<int>(narrow_size);
    tp.nk = p.dims[k];
    tp.nt = p.dims[t];
    tp.tt = std::min<int64_t>(tp.nt, 64);
    tp.tk = std::min<int64_t>(tp.nk, tile_plan::buffer_bytes / (tp.tt * tp.narrow_size));
    tp.wide_t_stride = ws[t];
    tp.narrow_k_stride = ns[k];
    tp.nother = static_cast<int>(order.size());
    for (int i = 0; i < tp.nother; ++i) {
        tp.dims[i] = p.dims[order[i]];
        tp.wide_strides[i] = ws[order[i]];
        tp.narrow_strides[i] = ns[order[i]];
        if (order[i] == ch) tp.channel_other = i;
    }
    tp.channel_k = ch == k;
    tp.channel_t = ch == t;

    // The layout of the runs the code sees: T then K last, the narrow side dense (it is the
    // tile buffer's; the walk never addresses it).
    order.push_back(t);
    order.push_back(k);
    quant_problem q = permuted(p, order);
    std::vector<int64_t> &qn = narrow_dst ? q.dst_strides : q.src_strides;
    int64_t stride = 1;
    for (int d = nd - 1; d >= 0; --d) {
        qn[d] = stride;
        stride *= q.dims[d];
    }
    return init_runs(q, reason);
}

bool run_layout::init_runs(const quant_problem &p, std::string &reason) {
    const int nd = static_cast<int>(p.dims.size());
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
    const int ch = p.channel_dim();
    if (ch >= 0) {
        channel_inner = ch == nd - 1;
        channel_outer = channel_inner ? -1 : ch;
        if (channel_outer >= 0) param_steps[ch] = 1;
        return true;
    }
    return p.per_tensor() || init_entry_rows(p, reason);
}

bool run_layout::init_entry_rows(const quant_problem &p, std::string &reason) {
    const int nd = static_cast<int>(p.dims.size());
    const std::string what = "parameters along several dims";
    if (p.scale_src != param_source::input || p.zp_src == param_source::attr
            || (p.kind != q_kind::quantize && p.kind != q_kind::dequantize)) {
        reason = what + " as attributes (the code reads them from the tensors)";
        return false;
    }
    for (int d = 0; d < nd; ++d) {
        const param_dim &pm = p.params[d];
        if (!pm.varies()) continue;
        if (pm.group != 1) {
            reason = what + " in groups of " + std::to_string(pm.group)
                    + " that do not tile their dim";
            return false;
        }
        if (p.zp_src == param_source::input && pm.zp_stride != pm.scale_stride) {
            reason = what + ", the scale and zero-point tensors laid out differently";
            return false;
        }
        if (d < nouter) param_steps[d] = pm.scale_stride;
    }
    // Along the run too (blocks on an outer axis: a row of the parameter tensor per block
    // of rows): the lanes start at the row's entry, the same for every row of a piece.
    channel_inner = p.params[nd - 1].varies();
    const bool strided = p.params[nd - 1].scale_stride != 1;
    if (channel_inner && (strided || (nouter > 0 && param_steps[nouter - 1] != 0))) {
        reason = what + ", the contiguous one among them with "
                + (strided ? "strided parameters" : "parameters that change from row to row");
        return false;
    }
    for (int d = 0; d < nouter && !channel_inner; ++d)
        if (param_steps[d] != 0) channel_outer = d;
    return true;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
