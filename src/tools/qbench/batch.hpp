#ifndef QGRAPH_TOOLS_QBENCH_BATCH_HPP
#define QGRAPH_TOOLS_QBENCH_BATCH_HPP

// The command line and batch files, turned into the list of cases to run (benchdnn style).
//
// Arguments are read left to right. Knobs (options.hpp) change the settings of every later
// --case; --case=FILE adds a case with the current knobs; --batch=FILE reads more arguments
// from FILE; --reset restores the knobs of the enclosing batch's start. The whole list is
// read and checked (options, values, files exist) before any case runs.

#include <string>
#include <vector>

#include "tools/qbench/options.hpp"

namespace qgraph {
namespace qbench {

/// One case to run: the knobs in force at its --case and its path (relative paths in a batch
/// file are joined to the batch file's directory; on the command line they are kept as given).
struct job {
    knobs settings;
    std::string case_path;
};

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
/// option, a knob with a bad value, a missing case or batch file, or batches nested deeper
/// than max_batch_depth; the message names the batch file the bad argument came from.
plan make_plan(const std::vector<std::string> &args, const knobs &defaults = default_knobs());

} // namespace qbench
} // namespace qgraph

#endif
