#include "tools/qbench/case_stop.hpp"

#include <chrono>
#include <new>

#include "tools/qbench/op_case.hpp"
#include "tools/qbench/overrides.hpp"

namespace qgraph {
namespace qbench {

state state_of(status st) {
    switch (st) {
        case status::unimplemented: return state::unimplemented;
        case status::invalid_arguments:
        case status::invalid_graph:
        case status::invalid_graph_op:
        case status::invalid_shape:
        case status::invalid_data_type: return state::invalid_arguments;
        default: return state::failed;
    }
}

std::string describe_partition(size_t index, const partition &p) {
    std::string kinds;
    for (op::kind k : p.get_op_kinds())
        kinds += (kinds.empty() ? "" : "+") + std::string(to_string(k));
    return "partition " + std::to_string(index) + " (" + kinds + ")";
}

tools::graph_case load_job_case(const job &j) {
    tools::graph_case c = in_phase("load", [&] {
        return j.is_shorthand() ? make_op_case(j.settings.op, j.shape)
                                : tools::load_case_file(j.case_path);
    });
    in_phase("overrides",
            [&] { apply_overrides(c, j.settings.in_shapes, j.settings.op_attrs); });
    if (c.engine_kind != engine::kind::cpu)
        stop(state::skipped,
                std::string("engine_kind ") + to_string(c.engine_kind)
                        + " is not available: qgraph runs on cpu only");
    return c;
}

std::vector<partition> checked_partitions(
        const tools::graph_case &c, const knobs &k, const std::string &policy) {
    graph g = in_phase("build graph", [&] { return tools::build_graph(c); });
    const graph::partition_policy pol = policy == "debug" ? graph::partition_policy::debug
                                                          : graph::partition_policy::fusion;
    std::vector<partition> parts
            = in_phase("get_partitions", [&] { return g.get_partitions(pol); });
    if (k.expected_n_partitions != 0
            && parts.size() != static_cast<size_t>(k.expected_n_partitions))
        stop(state::failed,
                "expected " + std::to_string(k.expected_n_partitions) + " partitions, got "
                        + std::to_string(parts.size()));
    // Every tensor's size must fit in int64 bytes before buffers of it are made; the shapes
    // the graph inferred included (a shorthand's or --in-shapes' shape can make them huge).
    for (size_t i = 0; i < parts.size(); ++i)
        for (const auto &ports : {parts[i].get_input_ports(), parts[i].get_output_ports()})
            for (const logical_tensor &lt : ports)
                if (lt.has_known_shape())
                    in_phase(describe_partition(i, parts[i]), [&] { return lt.get_mem_size(); });
    for (size_t i = 0; i < parts.size(); ++i)
        if (!parts[i].is_supported())
            stop(state::unimplemented,
                    describe_partition(i, parts[i])
                            + " is not supported: " + parts[i].get_unsupported_reason());
    return parts;
}

thread_scope::thread_scope(int threads) : before_(get_num_threads()), changed_(threads != 0) {
    if (changed_) set_num_threads(threads);
}

thread_scope::~thread_scope() {
    if (changed_) set_num_threads(before_);
}

case_result run_guarded(const job &j, void (*body)(const job &, case_result &)) {
    const auto t0 = std::chrono::steady_clock::now();
    case_result r;
    const int verbose_before = get_verbose();
    if (j.settings.verbose >= 2) set_verbose(2);
    try {
        const thread_scope threads(j.settings.threads);
        body(j, r);
    } catch (const case_stop &s) {
        r.state = s.s;
        r.reasons = s.reasons;
    } catch (const error &e) {
        r.state = state_of(e.status());
        r.reasons = {std::string(to_string(e.status())) + ": " + e.what()};
    } catch (const std::bad_alloc &) {
        r.state = state::failed;
        r.reasons = {"out of memory"};
    } catch (const std::exception &e) {
        r.state = state::failed;
        r.reasons = {std::string("unexpected exception: ") + e.what()};
    }
    set_verbose(verbose_before);
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                   .count();
    return r;
}

} // namespace qbench
} // namespace qgraph
