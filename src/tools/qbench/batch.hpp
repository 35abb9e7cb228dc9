#ifndef QGRAPH_TOOLS_QBENCH_BATCH_HPP
#define QGRAPH_TOOLS_QBENCH_BATCH_HPP

// The command line and batch files, turned into the list of cases to run (benchdnn style).
//
// Arguments are read left to right. Knobs (options.hpp) change the settings of every later
// case; --case=FILE adds a case with the current knobs; a SHAPE argument (1x64x56x56) adds the
// op shorthand's problem; --sweep=MIN:MAX adds a size sweep; --batch=FILE reads more
// arguments from FILE; --reset restores the knobs of the enclosing batch's start. A knob
// given a comma list adds one case per combination of the lists. The whole list is read and
// checked (options, values, files exist) before any case runs.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "qgraph/logical_tensor.hpp"
#include "tools/qbench/options.hpp"

namespace qgraph {
namespace qbench {

/// One case to run: the knobs in force at its --case and its path (relative paths in a batch
/// file are joined to the batch file's directory; on the command line they are kept as given),
/// or the op shorthand's problem on `shape`, or a size sweep.
struct job {
    knobs settings;
    std::string case_path; ///< "" for the shorthand and for a sweep
    logical_tensor::dims shape; ///< the shorthand's source shape
    int64_t sweep_min = 0, sweep_max = 0; ///< elements; nonzero for a --sweep job
    std::string sweep_out = "perf_sweep"; ///< file prefix of a sweep's outputs

    bool is_sweep() const { return sweep_max != 0; }
    bool is_shorthand() const { return case_path.empty() && !is_sweep(); }
};

/// The arguments that reproduce one job: "--mode=C --backend=auto [--seed=N] [problem knobs]
/// [performance knobs] --case=PATH" (or the shorthand's options and SHAPE, or --sweep=).
std::string repro_args(const job &j);
/// The problem alone, as printed in perf lines: the problem knobs and the case or shape.
std::string problem_args(const job &j);
/// A short text for progress lines: "Quantize f32:u8 per_channel 1x64x56x56" or the case
/// file's name.
std::string job_title(const job &j);

/// "1K" = 1024, "256M", "2G", or a plain count; throws usage_error otherwise.
int64_t parse_count(const std::string &text, const std::string &what);

struct plan {
    std::vector<job> jobs;
    bool help = false; ///< --help was given: print help_text() and run nothing
};

/// Batch files may include each other this deep (a cycle ends here with an error).
constexpr int max_batch_depth = 16;

/// Splits batch-file text into arguments: whitespace separates them, '#' starts a comment
/// that runs to the end of the line.
std::vector<std::string> tokenize_batch(const std::string &text);

/// `path` joined to `dir` unless it is absolute or `dir` is empty.
std::string join_path(const std::string &dir, const std::string &path);
/// The directory part of a path ("" for a bare file name).
std::string dir_name(const std::string &path);

/// Reads the command-line arguments (without argv[0]). Throws usage_error for an unknown
/// option, a knob with a bad value, a missing case or batch file, batches nested deeper than
/// max_batch_depth, an option that no case follows (a knob or --sweep-out after the last
/// case would apply to nothing), a --sweep-out that no --sweep follows, or no case at all
/// (unless --help was given); the message names the batch file the bad argument came from.
plan make_plan(const std::vector<std::string> &args, const knobs &defaults = default_knobs());

} // namespace qbench
} // namespace qgraph

#endif
