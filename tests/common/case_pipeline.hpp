#ifndef QGRAPH_TESTS_COMMON_CASE_PIPELINE_HPP
#define QGRAPH_TESTS_COMMON_CASE_PIPELINE_HPP

// A graph-case file's whole way through qgraph, as an embedding framework would drive it:
// bytes -> parse_case -> build_graph -> get_partitions -> compile every supported partition
// for its declared ports -> execute on buffers of the compiled sizes. Used by the hostile-input
// matrix (tests/reliability) and the case-loader fuzzer (tests/fuzz), which both need "the
// first qgraph::error, or success" and nothing else to go wrong on the way.
//
// Execution is capped (`limits`) so that a tiny file declaring a 2^40-element tensor costs
// nothing: compile must not allocate per element, so it still runs; execute is skipped.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "qgraph/qgraph.hpp"
#include "tools/case/case_io.hpp"

namespace qtest {

struct pipeline_limits {
    size_t max_exec_bytes = size_t(1) << 22; ///< all buffers of one partition together
    size_t max_partitions = 64; ///< compile at most this many (fuzzing keeps inputs small)
};

struct pipeline_report {
    size_t partitions = 0; ///< from get_partitions
    size_t compiled = 0;
    size_t executed = 0;
    size_t skipped_large = 0; ///< compiled, not executed: over max_exec_bytes
};

/// Runs the pipeline; every failure surfaces as the qgraph::error the library (or the loader)
/// threw. Input buffers hold bytes derived from `seed` (any bit pattern: NaN, Inf, zero
/// scales) since robustness, not numerics, is under test here.
inline pipeline_report run_case_pipeline(const std::string &text, const std::string &source,
        const pipeline_limits &lim = {}, uint32_t seed = 1) {
    using namespace qgraph;
    pipeline_report r;
    const tools::graph_case c = tools::parse_case(text, source);
    graph g = tools::build_graph(c);
    const std::vector<partition> parts = g.get_partitions();
    r.partitions = parts.size();
    const engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    for (const partition &p : parts) {
        if (!p.is_supported()) continue;
        if (r.compiled >= lim.max_partitions) break;
        const compiled_partition cp = p.compile(p.get_input_ports(), p.get_output_ports(), eng);
        ++r.compiled;

        size_t total = 0;
        bool too_large = false;
        for (const auto *list : {&cp.get_input_logical_tensors(), &cp.get_output_logical_tensors()})
            for (const logical_tensor &t : *list) {
                const size_t b = cp.query_logical_tensor(t.get_id()).get_mem_size();
                if (b > lim.max_exec_bytes || total + b > lim.max_exec_bytes) too_large = true;
                total += too_large ? 0 : b;
            }
        if (too_large) {
            ++r.skipped_large;
            continue;
        }
        // One allocation per tensor, sized exactly (no slack: ASan sees any over-run).
        std::vector<std::vector<unsigned char>> store;
        store.reserve(cp.get_input_logical_tensors().size()
                + cp.get_output_logical_tensors().size());
        std::vector<tensor> ins, outs;
        uint32_t x = seed * 2654435761u + 1u;
        for (const logical_tensor &t : cp.get_input_logical_tensors()) {
            const logical_tensor ct = cp.query_logical_tensor(t.get_id());
            store.emplace_back(ct.get_mem_size());
            for (unsigned char &b : store.back()) {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                b = static_cast<unsigned char>(x >> 24);
            }
            ins.emplace_back(ct, eng, store.back().empty() ? nullptr : store.back().data());
        }
        for (const logical_tensor &t : cp.get_output_logical_tensors()) {
            const logical_tensor ct = cp.query_logical_tensor(t.get_id());
            store.emplace_back(ct.get_mem_size());
            outs.emplace_back(ct, eng, store.back().empty() ? nullptr : store.back().data());
        }
        cp.execute(strm, ins, outs);
        ++r.executed;
    }
    return r;
}

} // namespace qtest

#endif
