#include "tools/qbench/runner.hpp"

#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <utility>
#include <vector>

#include "qgraph/qgraph.hpp"
#include "tools/case/case_io.hpp"
#include "tools/qbench/buffer.hpp"
#include "tools/qbench/case_stop.hpp"
#include "tools/qbench/codec.hpp"
#include "tools/qbench/compare.hpp"
#include "tools/qbench/fill.hpp"

namespace qgraph {
namespace qbench {

namespace {

/// Every logical tensor's buffer after one run of the whole graph.
using buffer_map = std::map<size_t, std::unique_ptr<buffer>>;

class correctness_case {
public:
    explicit correctness_case(const job &j) : job_(j) {}

    void run(case_result &r) {
        c_ = load_job_case(job_);
        parts_ = checked_partitions(c_, job_.settings, job_.settings.policies.front());
        prepare_inputs();
        if (c_.has_data)
            check_data(r);
        else
            check_against_ref(r);
    }

private:
    /// Graph input values, as bits in row-major order.
    void prepare_inputs() {
        const std::vector<size_t> ids = c_.graph_inputs();
        const std::set<size_t> id_set(ids.begin(), ids.end());
        if (c_.has_data)
            for (const auto &kv : c_.inputs)
                if (!id_set.count(kv.first))
                    stop(state::invalid_arguments,
                            "data.inputs has values for tensor " + std::to_string(kv.first)
                                    + ", which is not a graph input");
        for (size_t id : ids) {
            const logical_tensor lt = in_phase("graph input " + std::to_string(id),
                    [&] { return c_.find_logical_tensor(id); });
            const int64_t n = in_phase("graph input " + std::to_string(id),
                    [&] { return lt.get_element_num(); });
            tools::tensor_values values;
            // The op shorthand gives its scales and zero points without a data section.
            if (!c_.has_data && c_.inputs.count(id)) {
                values = c_.inputs.at(id);
            } else if (c_.has_data) {
                auto it = c_.inputs.find(id);
                if (it == c_.inputs.end())
                    stop(state::invalid_arguments,
                            "data.inputs has no values for graph input " + std::to_string(id));
                values = it->second;
            } else {
                values = fill_values(input_role(c_, id), lt.get_data_type(), n,
                        job_.settings.seed, id, job_.settings.fill);
            }
            inputs_[id] = to_bits(c_.has_data ? "data.inputs" : "fill", lt, values);
        }
    }

    /// `values` stored in `lt`'s type; a wrong count or a value the type cannot hold stops
    /// the case with INVALID_ARGUMENTS.
    static std::vector<uint64_t> to_bits(const std::string &section, const logical_tensor &lt,
            const tools::tensor_values &values) {
        const std::string where = section + "[" + std::to_string(lt.get_id()) + "]";
        const int64_t n = lt.get_element_num();
        if (static_cast<int64_t>(values.size()) != n)
            stop(state::invalid_arguments,
                    where + " has " + std::to_string(values.size()) + " values, but tensor "
                            + std::to_string(lt.get_id()) + " (" + describe_tensor(lt)
                            + ") has " + std::to_string(n) + " elements");
        std::vector<uint64_t> bits(values.size());
        std::string why;
        for (size_t i = 0; i < values.size(); ++i)
            if (!encode(lt.get_data_type(), values[i], bits[i], why))
                stop(state::invalid_arguments,
                        where + "[" + std::to_string(i) + "] = " + std::to_string(values[i])
                                + " cannot be stored as " + to_string(lt.get_data_type())
                                + ": " + why);
        return bits;
    }

    /// One run of every partition on `backend` ("" = auto); buffers are filled with `poison`
    /// first so that unwritten elements and stray writes show.
    buffer_map run_graph(const std::string &backend, uint8_t poison, case_result &r) {
        const std::string run_name = backend_arg(backend) + " run";
        in_phase("set_backend(" + backend_arg(backend) + ")", [&] { set_backend(backend); });
        const engine eng(engine::kind::cpu, 0);
        stream strm(eng);

        std::map<size_t, logical_tensor> layouts; // the concrete layout of every tensor
        std::vector<compiled_partition> cps;
        for (size_t i = 0; i < parts_.size(); ++i) {
            const partition &p = parts_[i];
            const std::string name = describe_partition(i, p);
            std::vector<logical_tensor> ins = p.get_input_ports();
            for (auto &lt : ins) {
                auto it = layouts.find(lt.get_id());
                if (it != layouts.end()) lt = it->second;
            }
            const std::vector<logical_tensor> outs = p.get_output_ports();
            compiled_partition cp = in_phase(
                    "compile " + name, [&] { return p.compile(ins, outs, eng); });
            if (!backend.empty() && cp.get_backend_name() != backend)
                stop(state::failed,
                        name + ": the backend was forced to " + backend
                                + " but the partition was compiled by "
                                + cp.get_backend_name());
            if (job_.settings.verbose >= 1)
                r.details.push_back(run_name + ": " + name + ": backend="
                        + cp.get_backend_name() + " kernel=" + cp.get_kernel_name());
            for (const auto &lt : cp.get_input_logical_tensors())
                layouts.emplace(lt.get_id(), lt);
            for (const auto &lt : cp.get_output_logical_tensors())
                layouts[lt.get_id()] = in_phase("query_logical_tensor on " + name,
                        [&] { return cp.query_logical_tensor(lt.get_id()); });
            cps.push_back(std::move(cp));
        }

        buffer_map bufs;
        for (const auto &kv : layouts)
            bufs[kv.first] = in_phase("buffer for tensor " + std::to_string(kv.first),
                    [&] { return std::make_unique<buffer>(kv.second, poison); });
        std::map<size_t, std::vector<uint8_t>> input_copy;
        for (const auto &kv : inputs_) {
            auto it = bufs.find(kv.first);
            if (it == bufs.end()) continue; // a graph input no partition reads
            it->second->scatter(kv.second);
            const auto *p = static_cast<const uint8_t *>(it->second->data());
            input_copy[kv.first].assign(p, p + it->second->size());
        }

        for (size_t i = 0; i < cps.size(); ++i) {
            const compiled_partition &cp = cps[i];
            std::vector<tensor> ins, outs;
            for (const auto &lt : cp.get_input_logical_tensors())
                ins.emplace_back(lt, eng, bufs.at(lt.get_id())->data());
            for (const auto &lt : cp.get_output_logical_tensors()) {
                const auto &b = bufs.at(lt.get_id());
                outs.emplace_back(b->desc(), eng, b->data());
            }
            in_phase("execute " + describe_partition(i, parts_[i]) + " on " + run_name, [&] {
                cp.execute(strm, ins, outs);
                strm.wait();
            });
        }

        for (const auto &kv : input_copy) {
            const auto &b = bufs.at(kv.first);
            if (std::memcmp(b->data(), kv.second.data(), kv.second.size()) != 0)
                stop(state::failed,
                        run_name + ": input " + std::to_string(kv.first)
                                + " was written by execute");
        }
        for (const auto &kv : bufs) {
            if (inputs_.count(kv.first)) continue;
            const int64_t at = kv.second->first_clobbered_gap();
            if (at >= 0)
                stop(state::failed,
                        run_name + ": tensor " + std::to_string(kv.first) + " ("
                                + describe_tensor(kv.second->desc())
                                + ") was written outside its elements, at byte "
                                + std::to_string(at));
        }
        return bufs;
    }

    static const buffer &output_of(const buffer_map &bufs, size_t id, const std::string &run) {
        auto it = bufs.find(id);
        if (it == bufs.end())
            stop(state::failed,
                    "graph output " + std::to_string(id) + " was produced by no partition ("
                            + run + ")");
        return *it->second;
    }

    /// Adds the mismatch report of output `id` to `failures`.
    static void compare_output(const buffer &got, const std::vector<uint64_t> &expected,
            const std::string &against, std::vector<std::string> &failures) {
        const compare_result cr
                = compare_bits(got.desc().get_data_type(), got.gather(), expected);
        if (cr.ok()) return;
        for (auto &line : describe_mismatches(cr, got.desc(), against))
            failures.push_back(std::move(line));
    }

    void check_data(case_result &r) {
        const std::vector<size_t> outputs = c_.graph_outputs();
        const buffer_map bufs = run_graph(backend(), 0x5a, r);
        std::vector<std::string> failures;
        for (const auto &kv : c_.expected) {
            auto it = bufs.find(kv.first);
            if (it == bufs.end())
                stop(state::invalid_arguments,
                        "data.expected has values for tensor " + std::to_string(kv.first)
                                + ", which no partition produces");
            compare_output(*it->second, to_bits("data.expected", it->second->desc(), kv.second),
                    "expected", failures);
        }
        std::vector<size_t> unchecked;
        for (size_t id : outputs)
            if (!c_.expected.count(id)) unchecked.push_back(id);
        if (!unchecked.empty()) {
            const buffer_map ref = run_graph("ref", 0xa5, r);
            for (size_t id : unchecked)
                compare_output(output_of(bufs, id, backend_arg(backend()) + " run"),
                        output_of(ref, id, "ref run").gather(), "ref", failures);
        }
        if (!failures.empty()) throw case_stop{state::failed, std::move(failures)};
    }

    void check_against_ref(case_result &r) {
        const buffer_map ref = run_graph("ref", 0xa5, r);
        const buffer_map got = run_graph(backend(), 0x5a, r);
        std::vector<std::string> failures;
        for (size_t id : c_.graph_outputs())
            compare_output(output_of(got, id, backend_arg(backend()) + " run"),
                    output_of(ref, id, "ref run").gather(), "ref", failures);
        if (!failures.empty()) throw case_stop{state::failed, std::move(failures)};
    }

    const std::string &backend() const { return job_.settings.backends.front(); }

    const job &job_;
    tools::graph_case c_;
    std::vector<partition> parts_;
    std::map<size_t, std::vector<uint64_t>> inputs_;
};

} // namespace

case_result run_correctness(const job &j) {
    return run_guarded(j, [](const job &jb, case_result &r) { correctness_case(jb).run(r); });
}

case_result run_case(const job &j) {
    return j.settings.mode == mode::performance ? run_performance(j) : run_correctness(j);
}

} // namespace qbench
} // namespace qgraph
