// --mode=P: one problem timed on every backend of the list, side by side (runner.hpp).

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <new>
#include <set>

#include "qgraph/qgraph.hpp"
#include "tools/qbench/cache_info.hpp"
#include "tools/qbench/case_stop.hpp"
#include "tools/qbench/codec.hpp"
#include "tools/qbench/fill.hpp"
#include "tools/qbench/onednn_baseline.hpp"
#include "tools/qbench/perf_buffer.hpp"
#include "tools/qbench/roofline.hpp"
#include "tools/qbench/runner.hpp"
#include "tools/qbench/timing.hpp"

namespace qgraph {
namespace qbench {

namespace {

/// Filled inputs repeat a pattern of at most this many values: the fill's special values and
/// random grid, without generating (as doubles) every element of a 256M-element tensor.
constexpr int64_t pattern_len = 1 << 16;

using buffer_ptr = std::shared_ptr<perf_buffer>;

/// One backend's compiled graph, with its own intermediate and output buffers and the shared
/// input buffers, ready to execute as often as the timing loop wants.
struct graph_run {
    std::string backend; ///< "" = auto
    const std::vector<partition> *parts = nullptr; ///< of the policy it runs under
    std::vector<compiled_partition> cps;
    std::vector<std::vector<logical_tensor>> compile_ins, compile_outs; ///< as compiled
    std::map<size_t, logical_tensor> layouts;
    std::map<size_t, buffer_ptr> bufs;
    std::vector<std::vector<tensor>> ins, outs;
    engine eng {engine::kind::cpu, 0};
    stream strm {eng};

    void run() {
        for (size_t i = 0; i < cps.size(); ++i) cps[i].execute(strm, ins[i], outs[i]);
        strm.wait();
    }

    std::string chosen() const {
        std::set<std::string> seen;
        std::string s;
        for (const auto &cp : cps)
            if (seen.insert(cp.get_backend_name()).second)
                s += (s.empty() ? "" : "+") + cp.get_backend_name();
        return s;
    }
    std::string kernel() const {
        std::string s;
        for (const auto &cp : cps) s += (s.empty() ? "" : "+") + cp.get_kernel_name();
        return s;
    }
};

class perf_case {
public:
    explicit perf_case(const job &j) : job_(j), k_(j.settings) {}

    void run(case_result &r) {
        c_ = load_job_case(job_);
        for (const std::string &pol : k_.policies)
            parts_[pol] = checked_partitions(c_, k_, pol);
        r.perf.problem = problem_args(job_);

        // The oracle first: its layouts fix the input buffers everyone shares. It runs under
        // the first policy, so the traffic (and the roofline) counts that policy's ports:
        // under fusion, the outer tensors of each chain.
        std::unique_ptr<graph_run> ref
                = compile_graph("ref", parts_.at(k_.policies.front()), r, /*required=*/true);
        fill_inputs(*ref);
        allocate_outputs(*ref, 0xa5);
        in_phase("execute on ref", [&] { ref->run(); });
        count_traffic(*ref, r.perf);

        std::vector<std::unique_ptr<graph_run>> runs; // index = entry index (may be null)
        std::vector<std::unique_ptr<onednn_baseline>> baselines;
        std::vector<std::string> failures;
        for (const std::string &b : k_.backends) {
            for (const std::string &pol : k_.policies) {
                // The onednn baseline has no partitions: it runs once, whatever the policies.
                if (b == onednn_baseline_name && pol != k_.policies.front()) continue;
                perf_entry e;
                e.backend = backend_arg(b);
                if (k_.policies.size() > 1 && b != onednn_baseline_name) e.backend += "/" + pol;
                std::unique_ptr<graph_run> gr;
                std::unique_ptr<onednn_baseline> base;
                if (b == onednn_baseline_name) {
                    base = make_baseline(*ref, e);
                } else {
                    gr = compile_or_note(b, parts_.at(pol), r, e);
                    if (gr) {
                        allocate_outputs(*gr, 0x5a);
                        in_phase("execute on " + e.backend, [&] { gr->run(); });
                        const std::vector<std::string> diffs
                                = compare_with(*ref, gr->bufs, e.backend);
                        if (diffs.empty()) {
                            e.ran = true;
                            time_compile(*gr, e);
                        } else {
                            e.note = "wrong results: not timed";
                            failures.insert(failures.end(), diffs.begin(), diffs.end());
                            gr.reset();
                        }
                    }
                }
                r.perf.entries.push_back(e);
                runs.push_back(std::move(gr));
                baselines.push_back(std::move(base));
            }
        }

        bool any_ran = false;
        for (const auto &e : r.perf.entries) any_ran = any_ran || e.ran;
        if (any_ran) time_all(r.perf, runs, baselines);
        if (!failures.empty()) throw case_stop {state::failed, failures};
        if (!any_ran) {
            std::vector<std::string> why;
            for (const auto &e : r.perf.entries) why.push_back(e.backend + ": " + e.note);
            throw case_stop {state::unimplemented, why};
        }
    }

private:
    /// Compiles every partition on `backend`; a rejection (unimplemented) is a note on `e`
    /// and nullptr, unless `required`.
    std::unique_ptr<graph_run> compile_graph(const std::string &backend,
            const std::vector<partition> &parts, case_result &r, bool required,
            perf_entry *e = nullptr) {
        auto gr = std::make_unique<graph_run>();
        gr->backend = backend;
        gr->parts = &parts;
        in_phase("set_backend(" + backend_arg(backend) + ")", [&] { set_backend(backend); });
        for (size_t i = 0; i < parts.size(); ++i) {
            const partition &p = parts[i];
            const std::string name = describe_partition(i, p);
            std::vector<logical_tensor> ins = p.get_input_ports();
            for (auto &lt : ins) {
                auto it = gr->layouts.find(lt.get_id());
                if (it != gr->layouts.end()) lt = it->second;
            }
            const std::vector<logical_tensor> outs = p.get_output_ports();
            compiled_partition cp = [&] {
                try {
                    return p.compile(ins, outs, gr->eng);
                } catch (const error &err) {
                    if (required || err.status() != status::unimplemented || !e)
                        stop(state_of(err.status()),
                                "compile " + name + " on " + backend_arg(backend) + ": "
                                        + to_string(err.status()) + ": " + err.what());
                    throw;
                }
            }();
            if (!backend.empty() && cp.get_backend_name() != backend)
                stop(state::failed,
                        name + ": the backend was forced to " + backend
                                + " but the partition was compiled by " + cp.get_backend_name());
            if (k_.verbose >= 1)
                r.details.push_back(backend_arg(backend) + ": " + name + ": backend="
                        + cp.get_backend_name() + " kernel=" + cp.get_kernel_name());
            for (const auto &lt : cp.get_input_logical_tensors()) gr->layouts.emplace(lt.get_id(), lt);
            for (const auto &lt : cp.get_output_logical_tensors())
                gr->layouts[lt.get_id()] = in_phase("query_logical_tensor on " + name,
                        [&] { return cp.query_logical_tensor(lt.get_id()); });
            gr->compile_ins.push_back(ins);
            gr->compile_outs.push_back(outs);
            gr->cps.push_back(std::move(cp));
        }
        return gr;
    }

    std::unique_ptr<graph_run> compile_or_note(const std::string &backend,
            const std::vector<partition> &parts, case_result &r, perf_entry &e) {
        try {
            return compile_graph(backend, parts, r, false, &e);
        } catch (const error &err) {
            e.note = std::string(to_string(err.status())) + ": " + err.what();
            return nullptr;
        }
    }

    /// Graph inputs: the case's values where it has them (data, or the shorthand's scales and
    /// zero points), else the fill pattern, tiled.
    void fill_inputs(graph_run &gr) {
        for (size_t id : c_.graph_inputs()) {
            auto it = gr.layouts.find(id);
            if (it == gr.layouts.end()) continue; // read by no partition
            const logical_tensor &lt = it->second;
            const int64_t n = lt.get_element_num();
            tools::tensor_values values;
            const bool given = c_.inputs.count(id) != 0;
            if (given)
                values = c_.inputs.at(id);
            else
                values = fill_values(input_role(c_, id), lt.get_data_type(),
                        std::min(n, pattern_len), k_.seed, id, k_.fill);
            if (given && static_cast<int64_t>(values.size()) != n)
                stop(state::invalid_arguments,
                        "data.inputs[" + std::to_string(id) + "] has "
                                + std::to_string(values.size()) + " values, but the tensor has "
                                + std::to_string(n) + " elements");
            std::vector<uint64_t> bits(values.size());
            std::string why;
            for (size_t i = 0; i < values.size(); ++i)
                if (!encode(lt.get_data_type(), values[i], bits[i], why))
                    stop(state::invalid_arguments,
                            "input " + std::to_string(id) + " value " + std::to_string(values[i])
                                    + " cannot be stored as " + to_string(lt.get_data_type())
                                    + ": " + why);
            auto buf = std::make_shared<perf_buffer>(lt, 0);
            buf->fill_tiled(bits);
            inputs_[id] = buf;
        }
    }

    /// Shares the inputs (allocating a copy if this backend compiled them differently, which
    /// qgraph does not do today) and allocates everything else; then binds the tensors.
    void allocate_outputs(graph_run &gr, uint8_t poison) {
        for (const auto &kv : gr.layouts) {
            auto in = inputs_.find(kv.first);
            if (in != inputs_.end() && in->second->desc().is_equal(kv.second)) {
                gr.bufs[kv.first] = in->second;
                continue;
            }
            if (in != inputs_.end())
                stop(state::failed,
                        "input " + std::to_string(kv.first) + " was compiled with another "
                                "layout than on ref");
            gr.bufs[kv.first] = std::make_shared<perf_buffer>(kv.second, poison);
        }
        for (const auto &cp : gr.cps) {
            std::vector<tensor> ins, outs;
            for (const auto &lt : cp.get_input_logical_tensors())
                ins.emplace_back(lt, gr.eng, gr.bufs.at(lt.get_id())->data());
            for (const auto &lt : cp.get_output_logical_tensors())
                outs.emplace_back(gr.bufs.at(lt.get_id())->desc(), gr.eng,
                        gr.bufs.at(lt.get_id())->data());
            gr.ins.push_back(std::move(ins));
            gr.outs.push_back(std::move(outs));
        }
    }

    /// Bytes read and written by one execution of every partition (their logical sizes), the
    /// elements processed (the largest tensor of each partition) and the roofline's split.
    void count_traffic(const graph_run &gr, perf_result &p) {
        read_bytes_ = write_bytes_ = 0;
        p.elems = 0;
        auto bytes = [](const logical_tensor &lt) {
            return static_cast<double>(lt.get_element_num())
                    * static_cast<double>(type_bits(lt.get_data_type())) / 8.0;
        };
        for (const auto &cp : gr.cps) {
            double most = 0;
            for (const auto &lt : cp.get_input_logical_tensors()) {
                read_bytes_ += bytes(lt);
                most = std::max(most, static_cast<double>(lt.get_element_num()));
            }
            for (const auto &lt : cp.get_output_logical_tensors()) {
                write_bytes_ += bytes(lt);
                most = std::max(most, static_cast<double>(lt.get_element_num()));
            }
            p.elems += most;
        }
        p.bytes = read_bytes_ + write_bytes_;
    }

    /// Mismatch lines of every graph output of `bufs` against ref's, for `who`.
    std::vector<std::string> compare_with(const graph_run &ref,
            const std::map<size_t, buffer_ptr> &bufs, const std::string &who,
            int64_t *count = nullptr, int64_t *total = nullptr) {
        std::vector<std::string> lines;
        for (size_t id : c_.graph_outputs()) {
            auto a = bufs.find(id);
            auto b = ref.bufs.find(id);
            if (a == bufs.end() || b == ref.bufs.end()) continue;
            const diff_summary d = compare_tensors(a->second->desc(), a->second->data(),
                    b->second->desc(), b->second->data());
            if (count) *count += d.mismatches;
            if (total) *total += d.total;
            if (d.mismatches == 0) continue;
            lines.push_back(who + " run: output " + std::to_string(id) + ": "
                    + std::to_string(d.mismatches) + " of " + std::to_string(d.total)
                    + " elements differ from ref");
            for (const auto &f : d.first) lines.push_back("mismatch: output " + std::to_string(id) + " " + f);
        }
        return lines;
    }

    std::unique_ptr<onednn_baseline> make_baseline(const graph_run &ref, perf_entry &e) {
        std::map<size_t, void *> ptrs;
        baseline_bufs_.emplace_back();
        std::map<size_t, buffer_ptr> &own = baseline_bufs_.back();
        for (const auto &kv : ref.layouts) {
            auto in = inputs_.find(kv.first);
            if (in != inputs_.end()) {
                ptrs[kv.first] = in->second->data();
            } else {
                auto buf = std::make_shared<perf_buffer>(kv.second, 0x5a);
                ptrs[kv.first] = buf->data();
                own[kv.first] = buf;
            }
        }
        std::string reason;
        std::unique_ptr<onednn_baseline> b = make_onednn_baseline(c_, ref.layouts, ptrs, reason);
        if (!b) {
            e.note = "unimplemented: " + reason;
            return nullptr;
        }
        try {
            b->run();
        } catch (const std::exception &ex) {
            e.note = std::string("unimplemented: oneDNN failed to execute: ") + ex.what();
            return nullptr;
        }
        e.ran = true;
        e.chosen = "";
        e.kernel = b->kernel();
        int64_t count = 0, total = 0;
        compare_with(ref, own, e.backend, &count, &total);
        // Information only: the integrator's code is not held to NUMERICS.md.
        if (count) e.note = "inexact: " + std::to_string(count) + " of " + std::to_string(total)
                + " elements differ from ref";
        return b;
    }

    /// Median compile time with the compiled-partition cache off (code generated every
    /// time) and with it on (a cache hit), for the backend `gr` was compiled on.
    void time_compile(graph_run &gr, perf_entry &e) {
        e.chosen = gr.chosen();
        e.kernel = gr.kernel();
        set_backend(gr.backend);
        auto compile_all = [&] {
            for (size_t i = 0; i < gr.parts->size(); ++i)
                (*gr.parts)[i].compile(gr.compile_ins[i], gr.compile_outs[i], gr.eng);
        };
        const int capacity = get_compiled_partition_cache_capacity();
        const int verbose_before = get_verbose();
        set_verbose(0); // hundreds of compiles: not a verbose line each
        set_compiled_partition_cache_capacity(0);
        e.compile_us = median_us(compile_all, 30, 20);
        set_compiled_partition_cache_capacity(capacity > 0 ? capacity : 16);
        compile_all();
        e.cache_hit_us = median_us(compile_all, 200, 5);
        set_compiled_partition_cache_capacity(capacity);
        set_verbose(verbose_before);
    }

    void time_all(perf_result &p, std::vector<std::unique_ptr<graph_run>> &runs,
            std::vector<std::unique_ptr<onednn_baseline>> &baselines) {
        std::vector<contender> cs;
        std::vector<size_t> entry_of;
        for (size_t i = 0; i < p.entries.size(); ++i) {
            if (!p.entries[i].ran) continue;
            if (runs[i]) {
                graph_run *gr = runs[i].get();
                cs.push_back({p.entries[i].backend, [gr] { gr->run(); }, {}});
            } else {
                onednn_baseline *b = baselines[i].get();
                cs.push_back({p.entries[i].backend, [b] { b->run(); }, {}});
            }
            entry_of.push_back(i);
        }
        // With --roofline=off the loop has no bytes: it only lends its arena to the backends.
        roofline roof(k_.roofline ? static_cast<size_t>(read_bytes_) : 0,
                k_.roofline ? static_cast<size_t>(write_bytes_) : 0, get_num_threads(),
                get_cpu_runtime() == "omp");
        if (k_.roofline) cs.push_back({"roofline", [&roof] { roof.run(); }, {}});

        timing_plan plan;
        plan.max_ms = k_.max_ms_per_prb;
        plan.fixed_rounds = k_.fix_times_per_prb;
        std::unique_ptr<cache_flusher> flusher;
        if (k_.cold_cache) {
            flusher = std::make_unique<cache_flusher>(read_cache_sizes().l3);
            const int threads = get_num_threads();
            plan.flush = [&flusher, threads] { flusher->flush(threads); };
        }
        // The execute calls of the timing loop are not worth a verbose line each.
        const int verbose_before = get_verbose();
        set_verbose(0);
        try {
            roof.execute([&] { measure(cs, plan); });
        } catch (...) {
            set_verbose(verbose_before);
            throw;
        }
        set_verbose(verbose_before);
        for (size_t c = 0; c < entry_of.size(); ++c) p.entries[entry_of[c]].t = cs[c].stats;
        if (!k_.roofline) return;
        perf_entry re;
        re.backend = "roofline";
        re.ran = true;
        re.kernel = "read+write(" + std::to_string(roof.threads_used()) + " thr)";
        re.t = cs.back().stats;
        p.entries.push_back(re);
    }

    const job &job_;
    const knobs &k_;
    tools::graph_case c_;
    std::map<std::string, std::vector<partition>> parts_; ///< by policy
    std::map<size_t, buffer_ptr> inputs_;
    std::vector<std::map<size_t, buffer_ptr>> baseline_bufs_; ///< one map per baseline
    double read_bytes_ = 0, write_bytes_ = 0;
};

} // namespace

case_result run_performance(const job &j) {
    return run_guarded(j, [](const job &jb, case_result &r) { perf_case(jb).run(r); });
}

} // namespace qbench
} // namespace qgraph
