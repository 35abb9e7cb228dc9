#include "qgraph/partition.hpp"

#include <algorithm>
#include <atomic>
#include <map>

#include "backends/registry.hpp"
#include "common/op_attrs.hpp"
#include "common/utils.hpp"
#include "common/verbose.hpp"
#include "interface/op_schema.hpp"
#include "interface/compiled_partition_cache.hpp"
#include "interface/config.hpp"
#include "interface/fused_chain.hpp"
#include "interface/partition_impl.hpp"
#include "interface/runtime_lookup.hpp"
#include "passes/chain_rewrite.hpp"
#include "passes/chain_tables.hpp"
#include "passes/lowering.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {
namespace {

using layout = logical_tensor::layout_type;

/// Whether two distinct indices of a strided layout can share an element offset.
enum class aliasing { no, yes, unknown };

/// Element spans up to which the exact search below runs: its bitset takes span / 8 bytes
/// (2 MiB) and it visits at most span elements (pigeonhole), a few milliseconds at most.
constexpr int64_t kMaxSearchedSpan = int64_t(1) << 24;

/// Exact answer for every layout whose interleaved part spans at most kMaxSearchedSpan
/// elements, `unknown` beyond. Dims that step over everything the others reach cannot
/// collide (a collision would need |d_k| * s_k <= sum of the others' (n_i - 1) * s_i), so
/// they are peeled off first: every nested layout, transposed or padded, is decided there.
/// What remains interleaves ([2,2] with strides [3,2]: offsets 0, 2, 3, 5) and is searched.
/// Strides are non-negative and the span fits int64: get_mem_size() succeeded.
aliasing element_aliasing(const logical_tensor &t) {
    std::vector<std::pair<int64_t, int64_t>> sd; // (stride, dim) of the dims above 1
    for (size_t i = 0; i < t.get_dims().size(); ++i) {
        if (t.get_dims()[i] == 0) return aliasing::no; // empty: nothing to alias
        if (t.get_dims()[i] > 1) sd.emplace_back(t.get_strides()[i], t.get_dims()[i]);
    }
    std::sort(sd.begin(), sd.end());
    if (!sd.empty() && sd.front().first == 0) return aliasing::yes;
    int64_t extent = 0; // largest offset
    for (const auto &p : sd) extent += (p.second - 1) * p.first;
    while (!sd.empty() && sd.back().first > extent - (sd.back().second - 1) * sd.back().first) {
        extent -= (sd.back().second - 1) * sd.back().first;
        sd.pop_back();
    }
    if (sd.empty()) return aliasing::no;
    int64_t n = 1; // elements of the interleaved dims; more than extent + 1 must collide
    for (const auto &p : sd)
        if (__builtin_mul_overflow(n, p.second, &n) || n > extent + 1) return aliasing::yes;
    if (extent >= kMaxSearchedSpan) return aliasing::unknown;
    std::vector<uint64_t> seen(static_cast<size_t>(extent / 64 + 1), 0);
    std::vector<int64_t> idx(sd.size(), 0);
    int64_t off = 0;
    for (int64_t e = 0; e < n; ++e) {
        uint64_t &word = seen[static_cast<size_t>(off / 64)];
        const uint64_t bit = uint64_t(1) << (off % 64);
        if (word & bit) return aliasing::yes;
        word |= bit;
        for (size_t k = 0; k < sd.size(); ++k) { // odometer, smallest stride fastest
            off += sd[k].first;
            if (++idx[k] < sd[k].second) break;
            off -= sd[k].first * sd[k].second;
            idx[k] = 0;
        }
    }
    return aliasing::no;
}

/// The compiled logical tensor for one port: the caller's, checked against the graph's
/// declaration, with `any` resolved to dense strides.
logical_tensor bind_port(const logical_tensor &port, const logical_tensor &given,
        const std::string &where, const std::string &what, bool input) {
    if (given.get_data_type() != port.get_data_type())
        throw error(status::invalid_arguments,
                where + ": " + what + " is " + to_string(given.get_data_type())
                        + " but the graph declares " + to_string(port.get_data_type()));
    const logical_tensor &shape_src = given.has_known_shape() ? given : port;
    if (!shape_src.has_known_shape())
        throw error(status::invalid_shape, where + ": " + what + " has no shape");
    if (given.has_known_shape() && port.has_known_shape()
            && given.get_dims() != port.get_dims())
        throw error(status::invalid_shape,
                where + ": " + what + " has shape " + dims_to_string(given.get_dims())
                        + " but the graph declares " + dims_to_string(port.get_dims()));
    if (given.get_layout_type() == layout::strided && given.has_known_shape())
        return given;
    if (input && given.get_layout_type() != layout::strided)
        throw error(status::invalid_arguments,
                where + ": " + what + " must have a strided layout (layout "
                        + to_string(given.get_layout_type()) + " is for outputs)");
    // Layout any, or strided without a shape: dense row-major.
    try {
        return logical_tensor(given.get_id(), given.get_data_type(), shape_src.get_dims(),
                layout::strided, given.get_property_type());
    } catch (const error &e) { // dense strides overflow: say which op and port
        throw error(e.status(), where + ": " + what + ": " + e.what());
    }
}

/// Matches the caller's logical tensors to `ports` by id: `bound` gets the compiled tensor
/// of each given one, `pos` the position in `given` of each port.
void bind_all(const std::string &where, const std::vector<logical_tensor> &ports,
        const std::vector<logical_tensor> &given, bool input, std::vector<logical_tensor> &bound,
        std::vector<int> &pos) {
    const char *dir = input ? "input" : "output";
    bound.assign(given.size(), logical_tensor());
    std::vector<bool> used(given.size(), false);
    for (size_t p = 0; p < ports.size(); ++p) {
        const std::string what = std::string(dir) + " logical tensor "
                + std::to_string(ports[p].get_id()) + " (port " + std::to_string(p) + ")";
        int found = -1;
        for (size_t g = 0; g < given.size(); ++g)
            if (given[g].get_id() == ports[p].get_id()) {
                if (found >= 0)
                    throw error(status::invalid_arguments,
                            where + ": " + what + " is given twice");
                found = static_cast<int>(g);
            }
        if (found < 0)
            throw error(status::invalid_arguments, where + ": " + what + " is missing");
        // A tensor on several ports of the op (x also as x_zero_point) is one logical
        // tensor, as in oneDNN: given and bound once, read through each of its ports.
        if (!used[found]) bound[found] = bind_port(ports[p], given[found], where, what, input);
        used[found] = true;
        pos.push_back(found);
    }
    for (size_t g = 0; g < given.size(); ++g)
        if (!used[g])
            throw error(status::invalid_arguments,
                    where + ": " + dir + " logical tensor "
                            + std::to_string(given[g].get_id())
                            + " is not a port of this partition");
}

/// Verbose level 2: one dispatch line per backend passed over, with its whole reason.
void print_rejections(const compiled_partition_impl &cp, const std::vector<rejection> &rejected) {
    if (verbose_level() < 2) return;
    for (const rejection &r : rejected)
        verbose_print(cp.verbose_head("dispatch") + ",backend:" + r.backend
                + ",rejected:" + verbose_field(r.reason));
}

/// Kernel k, which runs problem prb, into cp with its names.
void take_kernel(compiled_partition_impl &cp, std::shared_ptr<const kernel> k,
        const quant_problem &prb) {
    cp.k = std::move(k);
    cp.description = prb.describe();
    cp.kernel_name = cp.k->name();
    cp.backend_name = cp.k->backend();
}

/// The kernel of one problem (a single op's, or a fused chain's that rewrote to one), its
/// description and kernel name, into cp.
void dispatch(compiled_partition_impl &cp, const quant_problem &prb,
        const std::vector<const backend *> &candidates, std::vector<rejection> &rejected,
        const std::string &where) {
    cp.description = prb.describe();
    std::shared_ptr<const kernel> k = select_kernel(prb, candidates, rejected);
    print_rejections(cp, rejected);
    if (!k) {
        std::string why;
        for (const rejection &r : rejected) why += "; " + r.backend + ": " + r.reason;
        throw error(status::unimplemented,
                where + ": no backend accepts " + cp.description + why);
    }
    take_kernel(cp, std::move(k), prb);
}

/// The kernel of a problem that only pays as generated code (a chain's table lookup or
/// fake-quantize), or null: the reference backend is taken only when it is the one candidate
/// (forced), its scalar loop being slower than the chain's own jit kernels in chain_runner.
/// The reasons of the backends passed over go into rejected, prefixed with `what`.
std::shared_ptr<const kernel> select_generated(const quant_problem &prb,
        const std::vector<const backend *> &candidates, std::vector<rejection> &rejected,
        const std::string &what) {
    std::vector<const backend *> coders;
    for (const backend *b : candidates)
        if (b != find_backend("ref") || candidates.size() == 1) coders.push_back(b);
    std::vector<rejection> own;
    std::shared_ptr<const kernel> k = select_kernel(prb, coders, own);
    for (rejection &r : own) rejected.push_back({r.backend, what + ": " + r.reason});
    return k;
}

/// A single op's kernel, its arguments and in-place pair, into cp.
void compile_op(compiled_partition_impl &cp, const op &concrete_op,
        const std::vector<int> &in_pos, const std::vector<int> &out_pos,
        const compile_settings &settings, const std::vector<const backend *> &candidates,
        std::vector<rejection> &rejected, const std::string &where) {
    cp.args.src = in_pos[0];
    if (in_pos.size() > 1) cp.args.scales = in_pos[1];
    if (in_pos.size() > 2) cp.args.zps = in_pos[2];
    cp.args.dst = out_pos[0];
    if (out_pos.size() > 1) cp.args.out_scale = out_pos[1];
    if (out_pos.size() > 2) cp.args.out_zp = out_pos[2];

    quant_problem prb = lower_op(concrete_op);
    prb.isa_cap = settings.isa_cap;
    dispatch(cp, prb, candidates, rejected, where);
    // In place (docs/api.md): dst over src when each element of one sits at the bytes of the
    // same element of the other, the kernel reads each element before writing it, and src
    // is not also read through another port (x as x_zero_point would be overwritten).
    const logical_tensor &src = cp.inputs[cp.args.src], &dst = cp.outputs[cp.args.dst];
    if (data_type_bits(src.get_data_type()) == data_type_bits(dst.get_data_type())
            && src.get_strides() == dst.get_strides()
            && std::count(in_pos.begin(), in_pos.end(), cp.args.src) == 1
            && cp.k->in_place_safe())
        cp.in_place = {cp.args.src, cp.args.dst};
}

/// A chain that is one table lookup (passes/chain_tables.hpp), into cp as a single kernel
/// of generated code (select_generated: under automatic selection a lookup nothing else
/// accepts, channel innermost or no AVX2, stays a chain). Where a parameter is a tensor read
/// at execute, the backend that takes the lookup over placeholder tables makes its kernels
/// at execute, over the tables of the values bound (interface/runtime_lookup.hpp). False
/// leaves cp as it was.
bool compile_lookup(compiled_partition_impl &cp, const std::vector<quant_problem> &problems,
        const std::vector<arg_positions> &args, const std::vector<const backend *> &candidates,
        std::vector<rejection> &rejected) {
    chain_lookup plan;
    if (!plan_chain_lookup(problems, plan)) return false;
    const bool at_execute = plan.runtime_params();
    quant_problem lookup = plan.lookup;
    lookup.tables = at_execute ? std::vector<uint8_t>(static_cast<size_t>(plan.dq_tables.nelems))
                               : build_lookup_tables(plan, exec_args(), exec_args(),
                                       current_parallel_ctx());
    std::shared_ptr<const kernel> k = select_generated(lookup, candidates, rejected, "lookup");
    if (!k) return false;
    take_kernel(cp, std::move(k), lookup);
    cp.args.src = args.front().src;
    cp.args.dst = args.back().dst;
    // In place as for a single op (compile_op): the same strides on both sides of one byte.
    if (cp.inputs[cp.args.src].get_strides() == cp.outputs[cp.args.dst].get_strides()
            && cp.k->in_place_safe())
        cp.in_place = {cp.args.src, cp.args.dst};
    if (at_execute) {
        cp.lookup = std::make_shared<const runtime_lookup>(std::move(plan), args.front(),
                args.back(), cp.input_bytes, find_backend(cp.backend_name));
        cp.k = nullptr;
    }
    return true;
}

/// A fused chain rewritten to one fake-quantize problem (quant_problem::dequantize_after), into
/// cp as a single kernel of generated code (select_generated: a problem that no generated code
/// takes, the channel innermost, 16-bit types or no AVX2, stays a chain). False leaves cp as
/// it was.
bool compile_fake_quantize(compiled_partition_impl &cp, const chain_stage &stage,
        const std::vector<arg_positions> &args, const std::vector<const backend *> &candidates,
        std::vector<rejection> &rejected) {
    std::shared_ptr<const kernel> k
            = select_generated(stage.problem, candidates, rejected, "fake-quantize");
    if (!k) return false;
    take_kernel(cp, std::move(k), stage.problem);
    cp.args = args[stage.params_op];
    cp.args.src = args[stage.src_op].src;
    cp.args.dst = args[stage.dst_op].dst;
    return true;
}

/// A fused chain: each op with concrete tensors (the intermediates dense), lowered; one table
/// lookup (compile_lookup), else rewritten (passes/chain_rewrite.hpp): one fake-quantize
/// kernel of generated code (compile_fake_quantize), one problem's kernel, or the
/// chain_runner that runs the stages block by block, into cp.
void compile_chain(compiled_partition_impl &cp, const std::vector<op> &ops,
        const compile_settings &settings, const std::vector<const backend *> &candidates,
        std::vector<rejection> &rejected, const std::string &where) {
    const auto position = [](const std::vector<logical_tensor> &v, size_t id) {
        for (size_t i = 0; i < v.size(); ++i)
            if (v[i].get_id() == id) return static_cast<int>(i);
        return -1;
    };
    // An intermediate is dense in the shape its producer infers (a StaticTranspose permutes
    // it); whatever layout the graph declared for it, it never reaches memory.
    std::map<size_t, logical_tensor> mids;
    const auto concrete_input = [&](const logical_tensor &t) {
        const int at = position(cp.inputs, t.get_id());
        return at >= 0 ? cp.inputs[at] : mids.at(t.get_id());
    };
    const auto concrete_output = [&](const logical_tensor &t) {
        const int at = position(cp.outputs, t.get_id());
        if (at >= 0) return cp.outputs[at];
        return logical_tensor(t.get_id(), t.get_data_type(), logical_tensor::layout_type::strided,
                t.get_property_type());
    };
    std::vector<quant_problem> problems;
    std::vector<arg_positions> args;
    for (const op &o : ops) {
        op concrete(o.get_id(), o.get_kind(), o.get_name());
        for (const logical_tensor &t : o.get_input_logical_tensors())
            concrete.add_input(concrete_input(t));
        for (const logical_tensor &t : o.get_output_logical_tensors())
            concrete.add_output(concrete_output(t));
        for (const auto &kv : o.get_attrs()) concrete.set_attr_value(kv.first, kv.second);
        concrete = check_op(concrete);
        for (const logical_tensor &t : concrete.get_output_logical_tensors())
            if (position(cp.outputs, t.get_id()) < 0) mids.emplace(t.get_id(), t);
        const auto &ins = o.get_input_logical_tensors();
        arg_positions a;
        a.src = position(cp.inputs, ins[0].get_id());
        if (ins.size() > 1) a.scales = position(cp.inputs, ins[1].get_id());
        if (ins.size() > 2) a.zps = position(cp.inputs, ins[2].get_id());
        a.dst = position(cp.outputs, o.get_output_logical_tensors()[0].get_id());
        args.push_back(a);
        problems.push_back(lower_op(concrete));
        problems.back().isa_cap = settings.isa_cap;
    }
    // Reorder / StaticTranspose / StaticReshape: folded into the outer tensors' strides.
    std::vector<arg_positions> kept_args;
    for (size_t i : fold_data_movement(problems)) kept_args.push_back(args[i]);
    args = std::move(kept_args);
    for (const quant_problem &p : problems)
        if (p.orig_dims != problems[0].orig_dims)
            throw error(status::unimplemented,
                    where + ": " + p.op_name + " over " + dims_to_string(p.orig_dims)
                            + " cannot share the blocks of " + problems[0].op_name + " over "
                            + dims_to_string(problems[0].orig_dims)
                            + " (a data movement that does not fold into the outer"
                              " tensors' strides)");
    if (compile_lookup(cp, problems, args, candidates, rejected))
        return print_rejections(cp, rejected);
    std::vector<chain_stage> stages = rewrite_chain(problems);
    if (stages.size() == 1 && stages[0].problem.fake_quantize()) {
        if (compile_fake_quantize(cp, stages[0], args, candidates, rejected))
            return print_rejections(cp, rejected);
        stages = rewrite_chain(problems, /*fake_quantize=*/false);
    }
    std::vector<quant_problem> stage_problems;
    std::vector<arg_positions> stage_args;
    for (const chain_stage &st : stages) {
        stage_problems.push_back(st.problem);
        arg_positions a = args[st.params_op];
        a.src = args[st.src_op].src;
        a.dst = args[st.dst_op].dst;
        stage_args.push_back(a);
    }
    if (stages.size() == 1) { // one problem: run as a single op is (no in-place offer)
        cp.args = stage_args[0];
        dispatch(cp, stage_problems[0], candidates, rejected, where);
        return;
    }
    try {
        cp.chain = std::make_shared<const chain_runner>(
                stage_problems, stage_args, candidates, rejected);
    } catch (const error &e) {
        throw error(e.status(), where + ": " + e.what());
    }
    cp.description = cp.chain->describe();
    cp.kernel_name = cp.chain->kernel_names();
    cp.backend_name = cp.chain->backend_names();
    print_rejections(cp, rejected);
}

} // namespace

namespace {

/// A rejection reason up to its first ':' or '(' ("needs avx2", "quantize to s8"), with
/// no ',' left to split a verbose line.
std::string short_reason(const std::string &reason) {
    std::string s = reason.substr(0, reason.find_first_of(":("));
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return verbose_field(s);
}

/// "op:<kind>,name:<name>" for verbose lines. A fused partition names its pattern with its
/// ops' kinds, and their names joined by '+' ("op:requantize(Dequantize+Quantize),name:dq+q"):
/// the fields of the template stay.
std::string op_fields_of(const std::vector<op> &ops, const std::string &pattern) {
    std::string kinds, names;
    for (const op &o : ops) {
        kinds += (kinds.empty() ? "" : "+") + std::string(to_string(o.get_kind()));
        names += (names.empty() ? "" : "+") + verbose_field(o.get_name());
    }
    if (!pattern.empty()) kinds = pattern + "(" + kinds + ")";
    return "op:" + kinds + ",name:" + names;
}

/// Verbose level 1: the compile line, with the backends passed over before the one chosen,
/// each with the first clause of its reason (level 2 prints the whole reasons on dispatch
/// lines), or `,cache_hit`.
void print_compile_line(const compiled_partition_impl &cp, double t0,
        const std::vector<rejection> &rejected, bool cache_hit) {
    if (verbose_level() < 1) return;
    std::string line = cp.verbose_head("compile") + ",backend:" + cp.backend_name
            + ",kernel:" + cp.kernel_name + "," + std::to_string(now_ms() - t0);
    if (cache_hit) line += ",cache_hit";
    for (size_t i = 0; i < rejected.size(); ++i)
        line += (i == 0 ? ",rejected:" : ";") + rejected[i].backend + "("
                + short_reason(rejected[i].reason) + ")";
    verbose_print(line);
}

/// The given tensors bound to the partition's ports (a single op's in its own port order),
/// their sizes, and the check that no output has elements at the same bytes.
void bind_ports(compiled_partition_impl &cp, const partition_impl &pi,
        const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs,
        const std::string &where, std::vector<int> &in_pos, std::vector<int> &out_pos) {
    const bool single = pi.ops.size() == 1;
    bind_all(where, single ? pi.ops[0].get_input_logical_tensors() : pi.inputs, inputs, true,
            cp.inputs, in_pos);
    bind_all(where, single ? pi.ops[0].get_output_logical_tensors() : pi.outputs, outputs,
            false, cp.outputs, out_pos);
    for (const logical_tensor &t : cp.inputs) cp.input_bytes.push_back(t.get_mem_size());
    for (const logical_tensor &t : cp.outputs) {
        cp.output_bytes.push_back(t.get_mem_size());
        const aliasing a = element_aliasing(t);
        const std::string what = where + ": output logical tensor " + std::to_string(t.get_id())
                + " has strides " + dims_to_string(t.get_strides()) + " for shape "
                + dims_to_string(t.get_dims());
        if (a == aliasing::yes)
            throw error(status::invalid_shape, what + " under which elements alias");
        if (a == aliasing::unknown)
            throw error(status::unimplemented,
                    what + ": its dims interleave over more than "
                            + std::to_string(kMaxSearchedSpan)
                            + " elements, too many to prove that no two elements alias");
    }
}

} // namespace

compiled_partition partition_impl::compile(const std::vector<logical_tensor> &inputs,
        const std::vector<logical_tensor> &outputs, const engine &eng) const {
    const double t0 = now_ms();
    const auto where_fn = [this] {
        std::string desc;
        for (const op &o : ops) desc += (desc.empty() ? "" : " -> ") + op_desc(o);
        return "compile(partition " + std::to_string(id) + ", " + desc + ")";
    };
    if (!supported) throw error(status::unimplemented, where_fn() + ": " + reason);
    if (eng.get_kind() != ekind)
        throw error(status::invalid_arguments, where_fn() + ": engine kind does not match");

    // The settings are read once: the key and the dispatch below both use this snapshot.
    const compile_settings settings = current_compile_settings();
    const std::string op_fields = op_fields_of(ops, pattern);

    // An identical request returns the compiled partition made the first time, or (from
    // another partition with the same op) a copy naming this partition that shares its kernel.
    const std::string key = compile_key(settings, ops, inputs, outputs);
    if (std::shared_ptr<const compiled_partition_impl> hit = cache_find(key)) {
        if (hit->partition_id != id) {
            auto mine = std::make_shared<compiled_partition_impl>(*hit);
            mine->partition_id = id;
            mine->op_fields = op_fields;
            hit = std::move(mine);
        }
        print_compile_line(*hit, t0, {}, true);
        return compiled_partition(hit);
    }
    const std::string where = where_fn();

    auto cp = std::make_shared<compiled_partition_impl>();
    cp->partition_id = id;
    cp->op_fields = op_fields;
    std::vector<int> in_pos, out_pos;
    bind_ports(*cp, *this, inputs, outputs, where, in_pos, out_pos);

    std::vector<const backend *> candidates = backend_list();
    // set_backend and QGRAPH_BACKEND only store names find_backend knows.
    if (!settings.backend.empty()) candidates = {find_backend(settings.backend)};
    std::vector<rejection> rejected;
    if (ops.size() > 1) {
        compile_chain(*cp, ops, settings, candidates, rejected, where);
    } else {
        // The op again, with concrete tensors: the shape-dependent schema rules run now.
        const op &the_op = ops[0];
        op concrete(the_op.get_id(), the_op.get_kind(), the_op.get_name());
        for (int p : in_pos) concrete.add_input(cp->inputs[p]);
        for (int p : out_pos) concrete.add_output(cp->outputs[p]);
        for (const auto &kv : the_op.get_attrs()) concrete.set_attr_value(kv.first, kv.second);
        compile_op(*cp, check_op(concrete), in_pos, out_pos, settings, candidates, rejected,
                where);
    }
    print_compile_line(*cp, t0, rejected, false);
    return compiled_partition(cache_insert(key, std::move(cp)));
}

void partition_impl::set_ports() {
    const auto add = [](std::vector<logical_tensor> &v, const logical_tensor &t) {
        for (const logical_tensor &u : v)
            if (u.get_id() == t.get_id()) return;
        v.push_back(t);
    };
    std::vector<size_t> written; // by an op of the partition: an intermediate when read too
    for (const op &o : ops) {
        for (const logical_tensor &t : o.get_input_logical_tensors())
            if (std::find(written.begin(), written.end(), t.get_id()) == written.end())
                add(inputs, t);
        for (const logical_tensor &t : o.get_output_logical_tensors())
            written.push_back(t.get_id());
    }
    for (const logical_tensor &t : ops.back().get_output_logical_tensors()) add(outputs, t);
}

size_t next_partition_id() {
    static std::atomic<size_t> next {0};
    return next.fetch_add(1, std::memory_order_relaxed);
}

} // namespace impl

size_t partition::get_id() const { return impl_->id; }
bool partition::is_supported() const { return impl_->supported; }
const std::string &partition::get_unsupported_reason() const { return impl_->reason; }
std::vector<size_t> partition::get_ops() const {
    std::vector<size_t> ids;
    for (const op &o : impl_->ops) ids.push_back(o.get_id());
    return ids;
}
size_t partition::get_ops_num() const { return impl_->ops.size(); }
std::vector<op::kind> partition::get_op_kinds() const {
    std::vector<op::kind> kinds;
    for (const op &o : impl_->ops) kinds.push_back(o.get_kind());
    return kinds;
}
std::vector<logical_tensor> partition::get_input_ports() const { return impl_->inputs; }
std::vector<logical_tensor> partition::get_output_ports() const { return impl_->outputs; }
engine::kind partition::get_engine_kind() const { return impl_->ekind; }

compiled_partition partition::compile(const std::vector<logical_tensor> &inputs,
        const std::vector<logical_tensor> &outputs, const engine &eng) const {
    return impl_->compile(inputs, outputs, eng);
}

} // namespace qgraph
