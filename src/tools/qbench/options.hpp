#ifndef QGRAPH_TOOLS_QBENCH_OPTIONS_HPP
#define QGRAPH_TOOLS_QBENCH_OPTIONS_HPP

// qbench's knobs: the options that set how the following --case runs (docs/cli.md).
// Knobs keep their value until changed or until --reset.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace qgraph {
namespace qbench {

/// A bad command line or batch file: unknown option, bad value, missing file. main() prints
/// "qbench: <what()>" on stderr and exits with exit_usage before running anything.
class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// C: correctness (run and compare). P: performance, not implemented yet; kept here so the
/// option parser, the batch files and the repro lines already know it.
enum class mode { correctness, performance };

struct knobs {
    qbench::mode mode = mode::correctness;
    /// "" = auto: the library picks the best backend that accepts each partition.
    std::string backend;
    /// Mixed into the fill's random generator; cases with "data" ignore it.
    uint64_t seed = 0;
    /// 0: one line per case; 1: adds the backend and kernel of every partition.
    int verbose = 0;

    bool operator==(const knobs &o) const {
        return mode == o.mode && backend == o.backend && seed == o.seed && verbose == o.verbose;
    }
    bool operator!=(const knobs &o) const { return !(*this == o); }
};

/// The built-in defaults; the backend starts as qgraph::get_backend() (QGRAPH_BACKEND).
knobs default_knobs();

/// If `arg` is a knob (--mode=, --backend=, --seed=, --verbose=), applies it to `k` and
/// returns true; returns false for any other argument. Throws usage_error for a knob with a
/// missing or bad value.
bool parse_knob(const std::string &arg, knobs &k);

/// "C" / "P".
const char *to_string(mode m);
/// The backend as written on a command line: the name, or "auto" for "".
std::string backend_arg(const std::string &backend);

/// The arguments that reproduce one case: "--mode=C --backend=auto [--seed=N] --case=PATH".
std::string repro_args(const knobs &k, const std::string &case_path);

/// The text --help prints.
std::string help_text();

} // namespace qbench
} // namespace qgraph

#endif
