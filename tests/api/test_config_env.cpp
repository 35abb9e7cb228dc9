// QGRAPH_BACKEND and QGRAPH_VERBOSE are read from the environment on first use. This file is
// built twice (see CMakeLists.txt): with QGRAPH_TEST_ENV_BACKEND="ref" (a valid name) and
// "bogus" (an unknown one, reported when a compile reads it). The variables are set by a
// static initializer, before main and before qgraph reads them.

#include <gtest/gtest.h>

#include <cstdlib>

#include "api/valid_ops.hpp"

#if !defined(QGRAPH_TEST_ENV_BACKEND) || !defined(QGRAPH_TEST_ENV_SUITE)
#error "define QGRAPH_TEST_ENV_BACKEND and QGRAPH_TEST_ENV_SUITE (a test suite name per binary)"
#endif

namespace {

using namespace qtest;

const bool env_set = [] {
    setenv("QGRAPH_BACKEND", QGRAPH_TEST_ENV_BACKEND, 1);
    setenv("QGRAPH_VERBOSE", "2", 1);
    return true;
}();

const std::string env_backend = QGRAPH_TEST_ENV_BACKEND;

TEST(QGRAPH_TEST_ENV_SUITE, InitialisedFromTheEnvironment) {
    ASSERT_TRUE(env_set);
    EXPECT_EQ(qgraph::get_backend(), env_backend);
    EXPECT_EQ(qgraph::get_verbose(), 2);
}

TEST(QGRAPH_TEST_ENV_SUITE, CompileUsesTheEnvironmentBackend) {
    ASSERT_TRUE(env_set);
    if (qgraph::get_backend() != env_backend) GTEST_SKIP() << "changed by another test";
    const op o = valid_quantize();
    qgraph::partition p = single_partition(o);
    testing::internal::CaptureStdout();
    if (env_backend == "ref") {
        qgraph::compiled_partition cp
                = p.compile(o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
        EXPECT_EQ(cp.get_backend_name(), "ref");
    } else {
        // An unknown name from the environment is reported by the compile that reads it.
        EXPECT_QG_ERROR((p.compile(o.get_input_logical_tensors(),
                                o.get_output_logical_tensors(), cpu())),
                status::invalid_arguments, "QGRAPH_BACKEND=" + env_backend + " is not a backend",
                "ref");
    }
    const std::string out = testing::internal::GetCapturedStdout();
    if (env_backend == "ref") {
        EXPECT_NE(out.find("qgraph_verbose,compile,"), std::string::npos) << out;
        EXPECT_NE(out.find("backend:ref"), std::string::npos) << out;
    }
}

TEST(QGRAPH_TEST_ENV_SUITE, SetBackendOverridesTheEnvironment) {
    backend_guard g("");
    EXPECT_EQ(qgraph::get_backend(), "");
    const op o = valid_quantize();
    EXPECT_NO_THROW(single_partition(o).compile(
            o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu()));
}

} // namespace
