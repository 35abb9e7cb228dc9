#include "tools/qbench/driver.hpp"

#include <map>

#include "qgraph/config.hpp"
#include "qgraph/error.hpp"
#include "tools/qbench/batch.hpp"
#include "tools/qbench/options.hpp"
#include "tools/qbench/progress.hpp"
#include "tools/qbench/report.hpp"
#include "tools/qbench/runner.hpp"
#include "tools/qbench/sweep.hpp"

namespace qgraph {
namespace qbench {

int qbench_main(const std::vector<std::string> &args, std::ostream &out, std::ostream &err,
        bool progress) {
    plan p;
    try {
        if (args.empty())
            throw usage_error("nothing to run: give --case=FILE, --batch=FILE or a problem "
                    "shape (see --help)");
        p = make_plan(args);
    } catch (const usage_error &e) {
        err << "qbench: " << e.what() << "\n";
        return exit_usage;
    } catch (const error &e) {
        // The library itself failed while options were checked (e.g. get_backend_names).
        err << "qbench: " << e.what() << "\n";
        return exit_usage;
    }
    if (p.help) {
        out << help_text();
        return exit_ok;
    }

    // With a CSV on stdout, everything else goes to stderr so that `qbench ... > x.csv` works.
    bool csv = false;
    for (const auto &j : p.jobs)
        csv = csv
                || (j.settings.mode == mode::performance
                        && j.settings.perf_tmpl == perf_template::csv);
    std::ostream &lines = csv ? err : out;
    bool header_done = false;

    // Cases set the library's backend; leave it as it was (qbench_main may run in a test).
    const std::string backend_before = get_backend();
    summary s;
    std::vector<std::pair<std::string, perf_result>> table;
    // The last result of each problem (without its --threads knob) and its thread count.
    std::map<std::string, std::pair<int, perf_result>> by_threads;
    for (size_t i = 0; i < p.jobs.size(); ++i) {
        const job &j = p.jobs[i];
        if (progress) err << progress_line(i + 1, p.jobs.size(), job_title(j)) << std::flush;
        const case_result r = j.is_sweep() ? run_sweep(j, out) : run_case(j);
        if (progress) err << progress_clear() << std::flush;
        s.add(r.state);
        if (!r.perf.empty() && !j.is_sweep()) {
            if (j.settings.perf_tmpl == perf_template::csv) {
                if (!header_done) out << perf_csv_header();
                header_done = true;
                out << format_perf_csv(r.perf);
            } else {
                out << format_perf_text(r.perf);
                table.emplace_back(job_title(j), r.perf);
                job unthreaded = j;
                unthreaded.settings.threads = 0;
                const std::string key = problem_args(unthreaded);
                const int threads = j.settings.threads ? j.settings.threads : get_num_threads();
                auto seen = by_threads.find(key);
                if (seen != by_threads.end() && seen->second.first != threads)
                    out << format_scaling(
                            key, seen->second.first, seen->second.second, threads, r.perf);
                by_threads[key] = {threads, r.perf};
            }
        }
        lines << format_case(i, r, repro_args(j)) << std::flush;
        out << std::flush;
    }
    set_backend(backend_before);
    lines << format_summary(s) << std::flush;
    // A run of several problems ends with the short table people read first.
    if (table.size() > 1) out << "\n" << format_perf_table(table) << std::flush;
    return s.exit_code();
}

} // namespace qbench
} // namespace qgraph
