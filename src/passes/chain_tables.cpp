#include "passes/chain_tables.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "backends/ref/ref_backend.hpp"
#include "common/data_types.hpp"
#include "passes/lowering.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {
namespace {

/// Tables up to this many bytes are built whatever the tensor's size: 64 channels' worth, a
/// few microseconds on ref. Beyond it they may be at most as large as the tensor, so that
/// compile stays within what one execute costs and no 256-byte table serves a channel of a
/// handful of elements.
constexpr int64_t small_tables_bytes = 64 * 256;

/// The orig dim p's parameters vary along, one entry per element; -1 when per-tensor. False
/// for a map that varies along several dims or in groups.
bool channel_of(const quant_problem &p, int &axis) {
    axis = -1;
    for (size_t d = 0; d < p.orig_params.size(); ++d) {
        if (!p.orig_params[d].varies() || p.orig_params[d].count(p.orig_dims[d]) == 1)
            continue;
        if (axis >= 0 || p.orig_params[d].group != 1) return false;
        axis = static_cast<int>(d);
    }
    return true;
}

/// op's problem over the [entries, 256] table space: dense, its parameters varying along the
/// entries (with op's own parameter strides) where op's vary along `axis`.
quant_problem over_tables(const quant_problem &op, int axis, int64_t entries) {
    quant_problem t = op;
    t.orig_dims = {entries, 256};
    t.orig_src_strides = {256, 1};
    t.orig_dst_strides = {256, 1};
    t.orig_params = {axis >= 0 ? op.orig_params[axis] : param_dim {}, param_dim {}};
    t.nelems = entries * 256;
    canonicalise(t);
    return t;
}

/// Runs p on the reference backend, the oracle the tables come from, its parameter tensors
/// (where read at execute) from `params`.
void run_on_ref(const quant_problem &p, const void *src, void *dst, const exec_args &params,
        const parallel_ctx &par) {
    std::string reason;
    const std::unique_ptr<kernel> k = ref_backend().create(p, fallback_factory(), reason);
    if (!k) throw error(status::unimplemented, p.op_name + ": " + reason);
    exec_args a = params;
    a.src = src;
    a.dst = dst;
    a.par = par;
    k->run(a);
}

} // namespace

bool chain_lookup::runtime_params() const {
    for (const quant_problem *p : {&dq_tables, &q_tables})
        if (p->scale_src == param_source::input || p->zp_src == param_source::input) return true;
    return false;
}

bool plan_chain_lookup(const std::vector<quant_problem> &chain, chain_lookup &plan) {
    if (chain.size() != 2 || chain[0].kind != q_kind::dequantize
            || chain[1].kind != q_kind::quantize)
        return false;
    const quant_problem &dq = chain[0], &q = chain[1];
    if (!is_int8(dq.src_dt) || !is_int8(q.dst_dt)) return false;
    int dq_axis, q_axis;
    if (!channel_of(dq, dq_axis) || !channel_of(q, q_axis)
            || (dq_axis >= 0 && q_axis >= 0 && dq_axis != q_axis))
        return false;
    const int axis = dq_axis >= 0 ? dq_axis : q_axis;
    const int64_t entries = axis >= 0 ? dq.orig_dims[axis] : 1;
    if (entries * 256 > std::max(small_tables_bytes, dq.nelems)) return false;

    quant_problem l;
    l.kind = q_kind::lookup;
    l.src_dt = dq.src_dt;
    l.dst_dt = q.dst_dt;
    l.op_name = dq.op_name + "+" + q.op_name;
    l.isa_cap = q.isa_cap;
    l.scale_src = param_source::attr;
    l.orig_dims = dq.orig_dims;
    l.orig_src_strides = dq.orig_src_strides;
    l.orig_dst_strides = q.orig_dst_strides;
    l.orig_params.assign(l.orig_dims.size(), param_dim {});
    if (axis >= 0) l.orig_params[axis] = param_dim {1, 1, 1}; // table entry = channel
    l.nelems = dq.nelems;
    canonicalise(l);
    plan.lookup = std::move(l);
    plan.dq_tables = over_tables(dq, dq_axis, entries);
    plan.q_tables = over_tables(q, q_axis, entries);
    return true;
}

std::vector<uint8_t> build_lookup_tables(const chain_lookup &plan, const exec_args &dq,
        const exec_args &q, const parallel_ctx &par) {
    // Every code of every entry through the two ops, the intermediate in dq's own type.
    const size_t n = static_cast<size_t>(plan.dq_tables.nelems);
    std::vector<uint8_t> codes(n);
    for (size_t i = 0; i < n; ++i) codes[i] = static_cast<uint8_t>(i % 256);
    std::vector<char> mid(n * size_of(plan.dq_tables.dst_dt));
    std::vector<uint8_t> tables(n);
    run_on_ref(plan.dq_tables, codes.data(), mid.data(), dq, par);
    run_on_ref(plan.q_tables, mid.data(), tables.data(), q, par);
    return tables;
}

} // namespace impl
} // namespace qgraph
