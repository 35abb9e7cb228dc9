#ifndef QGRAPH_TESTS_RELIABILITY_HOSTILE_CASES_HPP
#define QGRAPH_TESTS_RELIABILITY_HOSTILE_CASES_HPP

// The hostile-input matrix: malformed or adversarial graph-case files, each with the status
// and a fragment of the message qgraph must answer with. One table serves the in-process test
// (test_hostile_cases.cpp, through tests/common/case_pipeline.hpp) and the qbench runs
// (hostile_case_writer writes the files at test time, run_qbench_hostile.sh runs qbench on
// each), so big cases (10^6 ops, 10^7-value attributes) are generated, never committed.

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "qgraph/error.hpp"

namespace qrel {

struct hostile_case {
    std::string name; ///< also the file name (name.json)
    std::function<std::string()> text;
    /// What the pipeline (parse, build, compile, execute when small) ends with. success only
    /// for files the library accepts but that are too large to run: qbench must then fail
    /// while allocating, with `qbench_reason`.
    qgraph::status status;
    std::string fragment; ///< in what() (in-process) and in qbench's reason line
    std::string qbench_reason = ""; ///< when qbench's reason differs (out of memory)
    bool big = false; ///< generated text of tens of MB: the test reports its time
    /// A library bug makes one check fail: the test skips that check, naming the bug, and
    /// fails once the bug is fixed so that the mark gets removed. Empty for most cases.
    std::string known_bug = "";
};

/// The valid case the mutations start from (qbench passes it).
std::string base_text();

std::vector<hostile_case> hostile_cases();

/// GoogleTest prints a parameter by its name, not its bytes.
inline void PrintTo(const hostile_case &c, std::ostream *os) { *os << c.name; }

} // namespace qrel

#endif
