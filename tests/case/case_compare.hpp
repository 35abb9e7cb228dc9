#ifndef QGRAPH_TESTS_CASE_CASE_COMPARE_HPP
#define QGRAPH_TESTS_CASE_CASE_COMPARE_HPP

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tools/case/case_io.hpp"

namespace qgraph {
namespace tools {
namespace test {

/// "" when the two cases are the same (ops one by one, attributes one by one with floats
/// compared bit for bit, logical tensors with is_equal, data bit for bit); else the first
/// difference.
std::string case_difference(const graph_case &a, const graph_case &b);

/// ../shared, from QGRAPH_SHARED_DIR or the build-time default.
std::string shared_dir();
/// Sorted paths of every *.json file under conformance/onnx and conformance/onednn-graph.
std::vector<std::string> conformance_files();
/// A gtest parameter name for a conformance file: "<dir>_<stem>", non-alphanumerics as '_'.
std::string conformance_test_name(const ::testing::TestParamInfo<std::string> &info);

/// Runs `fn`, expects a qgraph::error with status `st` whose message contains every fragment.
::testing::AssertionResult throws_error(const std::function<void()> &fn, status st,
        std::initializer_list<std::string> fragments);

} // namespace test
} // namespace tools
} // namespace qgraph

#endif
