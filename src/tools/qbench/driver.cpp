#include "tools/qbench/driver.hpp"

#include "qgraph/config.hpp"
#include "qgraph/error.hpp"
#include "tools/qbench/batch.hpp"
#include "tools/qbench/options.hpp"
#include "tools/qbench/report.hpp"
#include "tools/qbench/runner.hpp"

namespace qgraph {
namespace qbench {

int qbench_main(const std::vector<std::string> &args, std::ostream &out, std::ostream &err) {
    plan p;
    try {
        if (args.empty())
            throw usage_error("nothing to run: give --case=FILE or --batch=FILE (see --help)");
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

    // Cases set the library's backend; leave it as it was (qbench_main may run in a test).
    const std::string backend_before = get_backend();
    summary s;
    for (size_t i = 0; i < p.jobs.size(); ++i) {
        const job &j = p.jobs[i];
        const case_result r = run_case(j);
        s.add(r.state);
        out << format_case(i, r, repro_args(j.settings, j.case_path)) << std::flush;
    }
    set_backend(backend_before);
    out << format_summary(s) << std::flush;
    return s.exit_code();
}

} // namespace qbench
} // namespace qgraph
