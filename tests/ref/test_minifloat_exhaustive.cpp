// common/minifloat's f32 -> float8 / float4 on every one of the 2^32 f32 bit patterns, saturate
// on and off, against the model in minifloat_model.hpp (label exhaustive, 2 threads). The
// model's answer is constant between two neighbouring midpoints, so each thread walks its
// blocks of inputs in increasing magnitude, run by run between midpoints, and compares every
// input of a run with one expected code; both saturate variants share that walk (about 10 s
// per type). test_minifloat checks a sample of the same inputs in the core suite.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/minifloat.hpp"
#include "ref/minifloat_model.hpp"

namespace {

using qtest::minifloat_entry;
using qtest::minifloat_format;

constexpr int kThreads = 2;
constexpr int64_t kMaxReported = 10;

/// The model's rounding of f32 magnitudes (bits below 0x7f800000) as a step function: the
/// midpoint between entries k and k + 1, as f32 bits (exact: a midpoint has one bit more than
/// the format's values), and the codes below, at and above it.
struct steps {
    std::vector<uint32_t> mid; ///< increasing
    std::vector<minifloat_entry> entries;

    explicit steps(const minifloat_format &f) : entries(qtest::model_entries(f)) {
        for (size_t k = 0; k + 1 < entries.size(); ++k)
            mid.push_back(qtest::bits_of_f32(
                    static_cast<float>((entries[k].value + entries[k + 1].value) / 2)));
    }
};

/// Checks f32_to_minifloat(DT, x, saturate) for both saturate values on every x; returns the
/// number of mismatches and reports the first few. DT is a constant so that the type's fields
/// fold into the inlined conversion: 2^33 calls per type.
template <qgraph::data_type DT>
int64_t count_mismatches(const minifloat_format &f) {
    const steps st(f);
    const uint32_t overflow = st.entries.back().code;
    std::atomic<int64_t> mismatches {0};
    std::mutex m;
    std::vector<std::string> reported;
    auto report = [&](uint32_t b, bool sat, uint32_t got, uint32_t want) {
        if (++mismatches > kMaxReported) return;
        char buf[96];
        std::snprintf(buf, sizeof(buf), "%s saturate %d x 0x%08x: got 0x%02x, want 0x%02x",
                f.name, sat, b, got, want);
        std::lock_guard<std::mutex> lock(m);
        reported.push_back(buf);
    };
    // Checks the inputs of one sign with magnitudes [lo, hi), whose expected codes are the
    // same: a first pass that only ORs differences together (no branch, so the compiler can
    // vectorize it), and a second one to report them where there are any.
    auto check_run = [&](uint32_t sign, uint32_t lo, uint32_t hi, uint32_t want_sat,
                             uint32_t want_nosat) {
        uint32_t diff = 0;
        for (uint32_t mag = lo; mag < hi; ++mag) {
            const float x = qtest::f32_from(sign | mag);
            diff |= (qgraph::impl::f32_to_minifloat(DT, x, true) ^ want_sat)
                    | (qgraph::impl::f32_to_minifloat(DT, x, false) ^ want_nosat);
        }
        if (diff == 0) return;
        for (uint32_t mag = lo; mag < hi; ++mag) {
            const float x = qtest::f32_from(sign | mag);
            const uint32_t got_sat = qgraph::impl::f32_to_minifloat(DT, x, true);
            const uint32_t got_nosat = qgraph::impl::f32_to_minifloat(DT, x, false);
            if (got_sat != want_sat) report(sign | mag, true, got_sat, want_sat);
            if (got_nosat != want_nosat) report(sign | mag, false, got_nosat, want_nosat);
        }
    };
    auto work = [&](int t) {
        // Blocks of 2^16 inputs sharing their high half: one sign, magnitudes increasing.
        for (uint32_t hi = static_cast<uint32_t>(t); hi <= 0xffffu; hi += kThreads) {
            const uint32_t sign = hi << 16 & 0x80000000u;
            const bool neg = sign != 0;
            const uint32_t first = hi << 16 & 0x7fffffffu, end = first + 0x10000u;
            // k: the number of midpoints below the magnitude `mag` reached.
            size_t k = static_cast<size_t>(
                    std::lower_bound(st.mid.begin(), st.mid.end(), first) - st.mid.begin());
            for (uint32_t mag = first; mag < end;) {
                if (mag > 0x7f800000u) { // NaN
                    const uint32_t nan = qtest::model_nan(f, neg);
                    check_run(sign, mag, end, nan, nan);
                    break;
                }
                uint32_t code = overflow, next = mag + 1; // Inf
                if (mag < 0x7f800000u) {
                    if (k < st.mid.size() && st.mid[k] == mag) {
                        code = qtest::tie_code(st.entries, k++);
                    } else { // up to the next midpoint (or Inf) the code is the same
                        code = st.entries[k].code;
                        next = std::min(end, k < st.mid.size() ? st.mid[k] : 0x7f800000u);
                    }
                }
                check_run(sign, mag, next, qtest::model_finish(f, neg, code, overflow, true),
                        qtest::model_finish(f, neg, code, overflow, false));
                mag = next;
            }
        }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, t);
    for (std::thread &th : threads) th.join();
    for (const std::string &r : reported) ADD_FAILURE() << r;
    return mismatches;
}

int64_t count_mismatches(const minifloat_format &f) {
    using qgraph::data_type;
    switch (f.dt) {
        case data_type::f8_e4m3: return count_mismatches<data_type::f8_e4m3>(f);
        case data_type::f8_e4m3fnuz: return count_mismatches<data_type::f8_e4m3fnuz>(f);
        case data_type::f8_e5m2: return count_mismatches<data_type::f8_e5m2>(f);
        case data_type::f8_e5m2fnuz: return count_mismatches<data_type::f8_e5m2fnuz>(f);
        case data_type::f4_e2m1: return count_mismatches<data_type::f4_e2m1>(f);
        default: break;
    }
    ADD_FAILURE() << "no exhaustive check for " << f.name;
    return -1;
}

class MinifloatExhaustive : public ::testing::TestWithParam<minifloat_format> {};

TEST_P(MinifloatExhaustive, EncodesEveryF32LikeTheModel) {
    EXPECT_EQ(count_mismatches(GetParam()), 0);
}

INSTANTIATE_TEST_SUITE_P(Formats, MinifloatExhaustive,
        ::testing::ValuesIn(qtest::minifloat_formats()),
        [](const ::testing::TestParamInfo<minifloat_format> &i) {
            return std::string(i.param.name);
        });

} // namespace
