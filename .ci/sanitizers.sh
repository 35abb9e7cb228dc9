#!/usr/bin/env bash
# CI stage (after ./build.sh test): the whole test suite built with AddressSanitizer +
# UndefinedBehaviorSanitizer (build-asan), then the concurrency tests with ThreadSanitizer
# (build-tsan). Any sanitizer report fails the stage: every runtime halts on the first error.
# g++ provides the runtimes (libasan, libubsan, libtsan come with it). docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-$(nproc)}
./build.sh build >/dev/null # the packages the build needs (installs what is missing)

stamp() { echo "sanitizers.sh: $* ($(date +%T))"; }

# allocator_may_return_null: a request larger than memory must reach the code that handles it
# (qbench reports "out of memory"), not stop in the sanitizer's allocator.
# detect_stack_use_after_return / check_initialization_order: the checks off by default.
export ASAN_OPTIONS=halt_on_error=1:detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
stamp "ASan+UBSan: configure and build"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQGRAPH_SANITIZE="address;undefined" >/dev/null
cmake --build build-asan -j "$JOBS" >/dev/null
stamp "ASan+UBSan: ctest"
# Excluded, each for a reason outside the code under test:
# - install_consumer builds an uninstrumented program against the installed, instrumented
#   library: a packaging check that the main build already runs;
# - label exhaustive: the 2^32-input sweeps (division in tests/jit, bf16/f16 conversions in
#   tests/ref) are numerics, run in the main build; under ASan they would take ~40 min of
#   CPU, and test_division_fast and test_half_types run the same code on samples under the
#   sanitizers;
# - label large: conformance cases with 64M-element tensors and the perf_types batch's 16M-element
#   problems, each compared against the reference backend (minutes under ASan); their ops and
#   kernels run on small tensors in tests/api and tests/jit under the sanitizers.
(cd build-asan && ctest --output-on-failure -j "$JOBS" --timeout 1800 -LE 'exhaustive|large' \
    -E '^install_consumer$')

stamp "TSan: configure and build the concurrency tests"
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DQGRAPH_SANITIZE=thread >/dev/null
cmake --build build-tsan -j "$JOBS" --target test_concurrency test_threadpool >/dev/null
stamp "TSan: test_concurrency, test_threadpool"
# No suppressions. Left out: the two tests that run qgraph inside the test's own
# tbb::parallel_for. Debian's libtbb is not instrumented, so TSan cannot see its task
# hand-offs and reports TBB's own header code (start_for, blocked_range) and the test's
# captured variables as racing; they run in the main and ASan builds instead. The OpenMP
# test stays (TSan sees libgomp's thread creation, and it is clean).
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
# Also left out: SetNumThreadsWhileOthersExecute, which switches TBB arenas under running
# executes; TSan reported TBB's own task hand-off (libtbb's memset of a task against the
# worker's read of it in TBB's header code) as a race in one of two runs. It runs in the main
# and ASan builds.
build-tsan/tests/reliability/test_concurrency --gtest_filter='-*Tbb*:*SetNumThreadsWhileOthersExecute*'
# An integrator's std::thread pool: with a pool, qgraph's regions touch no TBB, and the pool
# hands work over through a mutex TSan sees. Left out: the OpenMP pool and runtime tests.
# Debian's libgomp is not instrumented, so TSan misses the barrier that ends each region and
# reports the next execute's stack writes as racing with the last region's reads.
build-tsan/tests/reliability/test_threadpool --gtest_filter='ThreadPool.*-*OpenMP*'
stamp "done"
