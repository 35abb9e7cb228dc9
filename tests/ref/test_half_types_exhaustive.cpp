// common/half_types on every one of the 2^32 f32 bit patterns (label exhaustive, a few
// seconds on 2 threads): f32_to_f16 against F16C's vcvtps2ph, f32_to_bf16 against the model
// in half_oracles.hpp. test_half_types checks a sample of the same inputs in the core suite.

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/half_types.hpp"
#include "ref/half_oracles.hpp"

namespace {

constexpr int kThreads = 2;
constexpr size_t kMaxReported = 10;

/// Calls want(x) and got(x) for every f32 bit pattern on kThreads threads (interleaved
/// blocks of 2^16); returns the number that differ and reports the first few.
template <typename Got, typename Want>
int64_t count_mismatches(Got got, Want want) {
    std::atomic<int64_t> mismatches {0};
    std::mutex m;
    std::vector<std::string> reported;
    auto work = [&](int t) {
        for (uint64_t hi = t; hi <= 0xffffu; hi += kThreads)
            for (uint32_t lo = 0; lo <= 0xffffu; ++lo) {
                const uint32_t b = static_cast<uint32_t>(hi << 16) | lo;
                const float f = qtest::f32_of(b);
                const uint16_t g = got(f), w = want(f);
                if (g == w) continue;
                if (++mismatches <= static_cast<int64_t>(kMaxReported)) {
                    char buf[80];
                    std::snprintf(buf, sizeof(buf), "0x%08x: got 0x%04x, want 0x%04x", b, g, w);
                    std::lock_guard<std::mutex> lock(m);
                    reported.push_back(buf);
                }
            }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
    for (std::thread &th : threads) th.join();
    for (const std::string &r : reported) ADD_FAILURE() << r;
    return mismatches;
}

TEST(HalfTypesExhaustive, F32ToF16MatchesF16cOnEveryInput) {
    if (!qtest::have_f16c()) GTEST_SKIP() << "the CPU has no F16C";
    // Lambdas, not function pointers, so that both sides are inlined into the loop.
    EXPECT_EQ(count_mismatches([](float f) { return qgraph::impl::f32_to_f16(f); },
                      [](float f) { return qtest::f16c_from_f32(f); }),
            0);
}

TEST(HalfTypesExhaustive, F32ToBf16MatchesTheModelOnEveryInput) {
    EXPECT_EQ(count_mismatches([](float f) { return qgraph::impl::f32_to_bf16(f); },
                      [](float f) { return qtest::bf16_model(f); }),
            0);
}

} // namespace
