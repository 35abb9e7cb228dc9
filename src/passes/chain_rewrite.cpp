#include "passes/chain_rewrite.hpp"

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

/// `a` then `b` as one problem, into `out`, where they compose exactly.
bool compose(const quant_problem &a, const quant_problem &b, quant_problem &out) {
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
    return false;
}

} // namespace

std::vector<chain_stage> rewrite_chain(const std::vector<quant_problem> &ops) {
    std::vector<chain_stage> stages;
    for (size_t i = 0; i < ops.size(); ++i) {
        quant_problem merged;
        if (!stages.empty() && compose(stages.back().problem, ops[i], merged)) {
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
