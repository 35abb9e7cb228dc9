#ifndef QGRAPH_TESTS_API_ISA_THREADS_HPP
#define QGRAPH_TESTS_API_ISA_THREADS_HPP

// Runs a test body at every CPU ISA level this machine has and at 1 and 2 threads, restoring
// the caller's settings afterwards (tests must not leave them changed). The levels are the
// kernel levels (get_cpu_isa_kernel_levels()): the others generate the same code as one of
// them, which JitExecute.KernelLevelsAreTheLevelsWhoseCodeDiffers checks.

#include <gtest/gtest.h>

#include <string>

#include "qgraph/qgraph.hpp"

namespace qtest {

template <typename F>
void at_every_isa_and_thread_count(F &&f) {
    const std::string isa = qgraph::get_max_cpu_isa();
    const int threads = qgraph::get_num_threads();
    for (const std::string &level : qgraph::get_cpu_isa_kernel_levels())
        for (int n : {1, 2}) {
            SCOPED_TRACE("isa " + level + ", " + std::to_string(n) + " threads");
            qgraph::set_max_cpu_isa(level);
            qgraph::set_num_threads(n);
            f();
        }
    qgraph::set_max_cpu_isa(isa);
    qgraph::set_num_threads(threads);
}

} // namespace qtest

#endif
