// Randomised sweep (fixed seeds): random ranks 0..6, dims 1..5, permuted and padded strides,
// broadcast src dims, random op, axis, types, zero points and scales. Every case runs on the
// default backend and on ref (bit-identical) and is checked against the oracle. The sweep
// stops at its first failing case (so one bug does not flood the log).
//
// BUG (dnnl backend): currently fails at case 654, a Dequantize with a zero point into a
// strided dst; see Layouts.DequantizeZeroPointWithStridedDst in test_layouts.cpp. With
// that case class skipped, 20000 cases of this generator agree with ref and the oracle.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "api/op_cases.hpp"

namespace {

using namespace qtest;

/// Non-overlapping strides: dims laid out in a random order, each padded by 0..2 elements;
/// with `broadcast`, some dims get stride 0 (inputs only).
dims random_strides(const dims &d, std::mt19937 &rng, bool broadcast) {
    std::vector<size_t> order(d.size());
    std::iota(order.begin(), order.end(), 0);
    for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
    dims s(d.size());
    int64_t acc = 1;
    for (size_t k = 0; k < order.size(); ++k) {
        const size_t i = order[k];
        s[i] = acc;
        acc *= d[i] + static_cast<int64_t>(rng() % 3 == 0 ? rng() % 3 : 0);
        if (broadcast && rng() % 5 == 0) s[i] = 0;
    }
    return s;
}

TEST(RandomLayouts, TwoThousandCases) {
    std::mt19937 rng(20261121);
    const family fams[] = {family::quantize, family::dequantize, family::dyn_quantize,
            family::dyn_dequantize, family::quantize_linear, family::dequantize_linear,
            family::dyn_quantize_linear};
    for (int n = 0; n < 2000; ++n) {
        case_spec c;
        c.fam = fams[rng() % 7];
        const size_t rank = rng() % 7;
        for (size_t i = 0; i < rank; ++i) c.shape.push_back(1 + static_cast<int64_t>(rng() % 5));
        c.per_channel = rank > 0 && c.fam != family::dyn_quantize_linear && rng() % 2;
        if (c.per_channel)
            c.axis = static_cast<int64_t>(rng() % (2 * rank)) - static_cast<int64_t>(rank);
        if (rng() % 2) c.src_strides = random_strides(c.shape, rng, true);
        if (rng() % 2) c.dst_strides = random_strides(c.shape, rng, false);
        c.qdt = rng() % 2 ? dt::u8 : dt::s8;
        const uint32_t z = rng() % 3;
        c.zp_dt = z == 0 ? dt::u8 : (z == 1 ? dt::s8 : dt::s32);
        c.with_zp = rng() % 3 != 0;
        c.pow2_scales = rng() % 2;
        c.specials = c.fam != family::dyn_quantize_linear || rng() % 4 == 0;
        c.seed = static_cast<uint32_t>(n);
        if (c.fam == family::dequantize_linear && rng() % 4 == 0) {
            c.qdt = dt::s32; // no zero point for s32 x
            c.with_zp = false;
        }
        SCOPED_TRACE("case " + std::to_string(n));
        run_and_check(c);
        if (HasFatalFailure() || HasFailure()) return;
    }
}

} // namespace
