#include "passes/chain_rewrite.hpp"

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

} // namespace

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
        else if (!source_dims(m, chain[i - 1].orig_dims, from))
            continue;
        for (size_t k = 0; k < i; ++k) {
            reindex(chain[k], m.orig_dims, from);
            if (k + 1 == i) chain[k].orig_dst_strides = m.orig_dst_strides;
            canonicalise(chain[k]);
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
