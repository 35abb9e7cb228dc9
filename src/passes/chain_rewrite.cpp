#include "passes/chain_rewrite.hpp"

#include <algorithm>

#include "common/data_types.hpp"
#include "passes/lowering.hpp"

namespace qgraph {
namespace impl {
namespace {

bool dense_over(const std::vector<int64_t> &strides, const std::vector<int64_t> &dims) {
    if (strides.size() != dims.size()) return false;
    int64_t step = 1;
    for (size_t i = dims.size(); i-- > 0;) {
        if (dims[i] != 1 && strides[i] != step) return false;
        step *= dims[i];
    }
    return true;
}

bool same_param_map(const quant_problem &a, const quant_problem &b) {
    if (a.orig_params.size() != b.orig_params.size() || a.scales.size() != b.scales.size())
        return false;
    for (size_t i = 0; i < a.orig_params.size(); ++i)
        if (a.orig_params[i].group != b.orig_params[i].group
                || a.orig_params[i].scale_stride != b.orig_params[i].scale_stride)
            return false;
    return true;
}

/// Quantize -> dequantize of its integer result (fake-quantize), both with attribute
/// parameters on the same map: the quantize with a dequantize_stage. Exact: the stage
/// computes the quantize's integer as the quantize stores it, then the dequantize of it
/// (problem.hpp). Runtime parameters (DynamicQuantize, QuantizeLinear) stay two stages:
/// their tensors are bound to two ops' ports.
bool compose_fake_quantize(const quant_problem &a, const quant_problem &b, quant_problem &out) {
    const bool fits = a.kind == q_kind::quantize && b.kind == q_kind::dequantize
            && !a.fake_quantize() && is_quantized_integer(a.dst_dt) && b.src_dt == a.dst_dt
            && is_wide_float(b.dst_dt) && a.scale_src == param_source::attr
            && b.scale_src == param_source::attr && a.zp_src != param_source::input
            && b.zp_src != param_source::input && a.orig_dims == b.orig_dims
            && a.orig_dst_strides == b.orig_src_strides && same_param_map(a, b)
            && (b.zps.empty() || b.zps.size() == b.scales.size());
    if (!fits) return false;
    out = a;
    out.dst_dt = b.dst_dt;
    out.orig_dst_strides = b.orig_dst_strides;
    out.dequantize_after.q_dt = a.dst_dt;
    out.dequantize_after.scales = b.scales;
    if (b.zp_src == param_source::attr) out.dequantize_after.zps = b.zps;
    out.op_name = a.op_name + "+" + b.op_name;
    canonicalise(out);
    return true;
}

/// `a` then `b` as one problem, into `out`, where they compose exactly.
bool compose(const quant_problem &a, const quant_problem &b, bool fake_quantize,
        quant_problem &out) {
    // Dequantize -> convert: the convert reads the f32 result in the dequantize's own order
    // (no transpose or reshape between) and rounds it as the dequantize rounds to a bf16 /
    // f16 destination.
    const bool dequantize_convert = a.kind == q_kind::dequantize && b.kind == q_kind::convert
            && a.dst_dt == data_type::f32 && b.src_dt == data_type::f32
            && (b.dst_dt == data_type::bf16 || b.dst_dt == data_type::f16)
            && a.orig_dims == b.orig_dims && dense_over(b.orig_src_strides, b.orig_dims);
    if (dequantize_convert) {
        out = a;
        out.dst_dt = b.dst_dt;
        out.orig_dst_strides = b.orig_dst_strides;
        canonicalise(out);
        return true;
    }
    // Convert -> quantize: the convert rounds f32 to bf16 / f16 and writes it in order; the
    // quantize reads it back exactly (half_types.hpp): the quantize of the f32 source rounded
    // first, through the convert's source strides.
    const bool convert_quantize = a.kind == q_kind::convert && b.kind == q_kind::quantize
            && a.src_dt == data_type::f32
            && (a.dst_dt == data_type::bf16 || a.dst_dt == data_type::f16)
            && b.src_dt == a.dst_dt && b.src_round_dt == data_type::undef
            && a.orig_dims == b.orig_dims && dense_over(a.orig_dst_strides, a.orig_dims);
    if (convert_quantize) {
        out = b;
        out.src_dt = data_type::f32;
        out.src_round_dt = a.dst_dt;
        out.orig_src_strides = a.orig_src_strides;
        canonicalise(out);
        return true;
    }
    return fake_quantize && compose_fake_quantize(a, b, out);
}

/// For each dim of `m`'s index space, the dim of `src_dims` (dense, m's source) it walks, or
/// -1 for a size-1 dim; false when m reads its source other than through a permutation of
/// its dims (a reshape that regroups them).
bool source_dims(const quant_problem &m, const std::vector<int64_t> &src_dims,
        std::vector<int> &from) {
    std::vector<int64_t> dense(src_dims.size(), 1);
    for (size_t i = src_dims.size(); i-- > 1;) dense[i - 1] = dense[i] * src_dims[i];
    from.assign(m.orig_dims.size(), -1);
    for (size_t a = 0; a < m.orig_dims.size(); ++a) {
        if (m.orig_dims[a] == 1) continue;
        // Dense strides of dims longer than 1 are all different: one dim matches at most.
        for (size_t b = 0; b < src_dims.size(); ++b)
            if (src_dims[b] == m.orig_dims[a] && dense[b] == m.orig_src_strides[a])
                from[a] = static_cast<int>(b);
        if (from[a] < 0) return false;
    }
    return true;
}

/// `p` over the index space of `dims`, dim a of it being p's dim from[a] (-1: size 1).
void reindex(quant_problem &p, const std::vector<int64_t> &dims, const std::vector<int> &from) {
    const quant_problem was = p;
    p.orig_dims = dims;
    p.orig_src_strides.assign(dims.size(), 0);
    p.orig_dst_strides.assign(dims.size(), 0);
    p.orig_params.assign(dims.size(), param_dim {});
    for (size_t a = 0; a < dims.size(); ++a) {
        if (from[a] < 0) continue; // size 1: its index is always 0
        p.orig_src_strides[a] = was.orig_src_strides[from[a]];
        p.orig_dst_strides[a] = was.orig_dst_strides[from[a]];
        if (!was.orig_params.empty()) p.orig_params[a] = was.orig_params[from[a]];
    }
}

/// The element counts of `dims`' trailing dims, from 1 outwards, appended to `cuts`; false
/// where one overflows int64.
bool add_cut_points(const std::vector<int64_t> &dims, std::vector<int64_t> &cuts) {
    int64_t n = 1;
    cuts.push_back(n);
    for (size_t i = dims.size(); i-- > 0;) {
        if (__builtin_mul_overflow(n, dims[i], &n)) return false;
        cuts.push_back(n);
    }
    return true;
}

/// `p` over `common`, a refinement of its dims: each dim cut into the run of common's dims
/// whose product it is, the innermost of them stepping as the dim did, each one further out
/// by the product of those inside it in the run. False, p unchanged, where a dim the
/// parameters vary along would be cut in two or more (its parameter index would span dims).
bool refine(quant_problem &p, const std::vector<int64_t> &common) {
    std::vector<int64_t> src(common.size(), 0), dst(common.size(), 0);
    std::vector<param_dim> params(common.size());
    if (p.nelems != 0) { // an empty tensor has no element to place: strides 0 will do
        size_t j = common.size(); // common's dims not yet taken are those before j
        for (size_t d = p.orig_dims.size(); d-- > 0;) {
            if (p.orig_dims[d] == 1) continue;
            const size_t end = j;
            for (int64_t inner = 1; inner != p.orig_dims[d]; inner *= common[j]) {
                if (j == 0 || inner > p.orig_dims[d]) return false; // not a refinement
                --j;
                src[j] = p.orig_src_strides[d] * inner;
                dst[j] = p.orig_dst_strides[d] * inner;
            }
            const param_dim pm = p.orig_params.empty() ? param_dim {} : p.orig_params[d];
            if (pm.varies() && end - j != 1) return false;
            if (pm.varies()) params[j] = pm;
        }
        if (j != 0) return false;
    }
    p.orig_dims = common;
    p.orig_src_strides = std::move(src);
    p.orig_dst_strides = std::move(dst);
    p.orig_params = std::move(params);
    canonicalise(p);
    return true;
}

/// The reshape chain[i] folded as a view (fold_data_movement): every problem re-expressed
/// over the common refinement of its two shapes. False, chain unchanged, where it is no view
/// (an intermediate not in order) or where a problem cannot be refined.
bool fold_view(std::vector<quant_problem> &chain, size_t i) {
    const quant_problem &m = chain[i];
    const std::vector<int64_t> &before = chain[i - 1].orig_dims, &after = m.orig_dims;
    const bool in_order = dense_over(chain[i - 1].orig_dst_strides, before)
            && dense_over(m.orig_src_strides, after) && dense_over(m.orig_dst_strides, after)
            && chain[i + 1].orig_dims == after
            && dense_over(chain[i + 1].orig_src_strides, after);
    std::vector<int64_t> common;
    if (!in_order || !common_refinement(before, after, common)) return false;
    std::vector<quant_problem> out = chain;
    for (size_t k = 0; k < chain.size(); ++k)
        if (k != i && (chain[k].orig_dims != (k < i ? before : after) || !refine(out[k], common)))
            return false;
    chain = std::move(out);
    return true;
}

} // namespace

bool common_refinement(const std::vector<int64_t> &a, const std::vector<int64_t> &b,
        std::vector<int64_t> &common) {
    common.clear();
    const auto empty = [](const std::vector<int64_t> &d) {
        return std::find(d.begin(), d.end(), int64_t(0)) != d.end();
    };
    if (empty(a) || empty(b)) {
        if (!empty(a) || !empty(b)) return false;
        common = {0};
        return true;
    }
    std::vector<int64_t> cuts, cuts_b;
    if (!add_cut_points(a, cuts) || !add_cut_points(b, cuts_b) || cuts.back() != cuts_b.back())
        return false;
    cuts.insert(cuts.end(), cuts_b.begin(), cuts_b.end());
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    for (size_t i = cuts.size(); i-- > 1;) {
        if (cuts[i] % cuts[i - 1] != 0) return false;
        common.push_back(cuts[i] / cuts[i - 1]);
    }
    return true;
}

bool kept_whole(const std::vector<int64_t> &dims, size_t d, const std::vector<int64_t> &common) {
    int64_t inner = 1; // elements of the dims inside d
    for (size_t i = d + 1; i < dims.size(); ++i) inner *= dims[i];
    const int64_t outer = inner * dims[d];
    int64_t cut = 1;
    for (size_t j = common.size(); j-- > 0;) {
        cut *= common[j];
        if (cut > inner && cut < outer) return false;
    }
    return true;
}

std::vector<size_t> fold_data_movement(std::vector<quant_problem> &chain) {
    std::vector<size_t> kept(chain.size());
    for (size_t i = 0; i < kept.size(); ++i) kept[i] = i;
    for (size_t i = 1; i + 1 < chain.size(); ++i) {
        const quant_problem m = chain[i];
        if (m.kind != q_kind::convert || m.src_dt != m.dst_dt) continue;
        std::vector<int> from;
        // An empty tensor has no element to place: any index space of its size will do.
        if (m.nelems == 0)
            from.assign(m.orig_dims.size(), -1);
        if (m.nelems == 0 || source_dims(m, chain[i - 1].orig_dims, from)) {
            for (size_t k = 0; k < i; ++k) {
                reindex(chain[k], m.orig_dims, from);
                if (k + 1 == i) chain[k].orig_dst_strides = m.orig_dst_strides;
                canonicalise(chain[k]);
            }
        } else if (!fold_view(chain, i)) {
            continue;
        }
        chain.erase(chain.begin() + static_cast<std::ptrdiff_t>(i));
        kept.erase(kept.begin() + static_cast<std::ptrdiff_t>(i));
        --i;
    }
    return kept;
}

std::vector<chain_stage> rewrite_chain(const std::vector<quant_problem> &ops, bool fake_quantize) {
    std::vector<chain_stage> stages;
    for (size_t i = 0; i < ops.size(); ++i) {
        quant_problem merged;
        if (!stages.empty() && compose(stages.back().problem, ops[i], fake_quantize, merged)) {
            // A convert has no parameters: the quantize's or dequantize's are the stage's.
            chain_stage &st = stages.back();
            if (st.problem.kind == q_kind::convert) st.params_op = i;
            st.problem = std::move(merged);
            st.dst_op = i;
            continue;
        }
        stages.push_back(chain_stage {ops[i], i, i, i});
    }
    return stages;
}

} // namespace impl
} // namespace qgraph
