// The lookup kernel (jit_lookup*): y = table[entry][x] over 8-bit sources and destinations,
// against the reference lookup bit for bit, at every ISA level and at 1 and 2 threads, with
// the inputs and the jit's output against guard pages. The tables are random: the kernel
// moves bytes and must be exact for any table. Problems are built as passes/chain_tables
// builds them (orig_* then canonicalise).

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <xbyak/xbyak_util.h>

#include "backends/jit/jit_backend.hpp"
#include "backends/ref/ref_backend.hpp"
#include "common/cpu_isa.hpp"
#include "common/dense_strides.hpp"
#include "common/guarded_buffer.hpp"
#include "common/parallel.hpp"
#include "passes/lowering.hpp"

namespace {

using namespace qgraph::impl;
using qgraph::data_type;
using qtest::guard_side;
using qtest::guarded_buffer;

const data_type s8 = data_type::s8, u8 = data_type::u8;

/// A lookup of `dims`, src strides `src_strides` (dense when empty), dst dense, one table per
/// index of dim `axis` (-1: one table), random tables from `seed`.
quant_problem lookup(const std::vector<int64_t> &dims, int axis, uint32_t seed,
        std::vector<int64_t> src_strides = {}, data_type src = u8, data_type dst = s8) {
    quant_problem p;
    p.kind = q_kind::lookup;
    p.op_name = "Dequantize+Quantize";
    p.src_dt = src;
    p.dst_dt = dst;
    p.scale_src = param_source::attr;
    p.orig_dims = dims;
    p.orig_dst_strides = qtest::dense_strides(dims);
    p.orig_src_strides = src_strides.empty() ? p.orig_dst_strides : src_strides;
    p.orig_params.assign(dims.size(), param_dim {});
    if (axis >= 0) p.orig_params[axis] = param_dim {1, 1, 1};
    p.nelems = 1;
    for (int64_t d : dims) p.nelems *= d;
    canonicalise(p);
    std::mt19937 g(seed);
    p.tables.resize(static_cast<size_t>(axis >= 0 ? dims[axis] : 1) * 256);
    for (uint8_t &b : p.tables) b = static_cast<uint8_t>(g());
    return p;
}

int64_t span(const quant_problem &p, const std::vector<int64_t> &strides) {
    if (p.nelems == 0) return 0;
    int64_t s = 1;
    for (size_t d = 0; d < p.dims.size(); ++d) s += (p.dims[d] - 1) * strides[d];
    return s;
}

struct result {
    std::string rejected, kernel, mismatch;
};

/// Every byte value in the source (the codes in turn, then random bytes for the gaps of a
/// strided one); runs jit and ref and compares every dst byte, the gaps included.
result run(const quant_problem &p, uint32_t seed, guard_side side) {
    std::mt19937 g(seed);
    const int64_t xs = span(p, p.src_strides), ys = span(p, p.dst_strides);
    guarded_buffer x(static_cast<size_t>(xs), side);
    for (int64_t i = 0; i < xs; ++i)
        static_cast<uint8_t *>(x.data())[i] = static_cast<uint8_t>(i < 256 ? i : g());
    guarded_buffer yj(static_cast<size_t>(ys), side);
    std::vector<uint8_t> yr(static_cast<size_t>(ys), 0xa5);
    std::memset(yj.data(), 0xa5, static_cast<size_t>(ys));

    result out;
    quant_problem capped = p;
    capped.isa_cap = max_cpu_isa();
    std::unique_ptr<kernel> jk = jit_backend().create(capped, fallback_factory(), out.rejected);
    if (!jk) return out;
    out.kernel = jk->name();
    exec_args a;
    a.src = x.data();
    a.dst = yj.data();
    jk->run(a);
    std::string reason;
    a.dst = yr.data();
    ref_backend().create(p, fallback_factory(), reason)->run(a);
    std::ostringstream os;
    const auto *j = static_cast<const uint8_t *>(yj.data());
    for (int64_t i = 0; i < ys && os.tellp() < 400; ++i)
        if (j[i] != yr[static_cast<size_t>(i)])
            os << " [" << i << "] jit " << int(j[i]) << " ref " << int(yr[size_t(i)]);
    out.mismatch = os.str();
    return out;
}

struct level {
    cpu_isa_t isa;
    int threads;
};

class JitLookup : public testing::TestWithParam<level> {
protected:
    void SetUp() override {
        bool present = false;
        for (cpu_isa_t l : cpu_isa_levels()) present = present || l == GetParam().isa;
        if (!present) GTEST_SKIP() << isa_name(GetParam().isa) << " is not on this CPU";
        old_cap_ = max_cpu_isa();
        old_threads_ = num_threads();
        set_max_cpu_isa(GetParam().isa);
        set_num_threads(GetParam().threads);
    }
    void TearDown() override {
        if (old_threads_ == 0) return;
        set_max_cpu_isa(old_cap_);
        set_num_threads(old_threads_);
    }
    /// The kernel this level generates: vbmi code only under an avx512 cap on a CPU with it.
    static std::string expected_kernel() {
        const bool vbmi = GetParam().isa != avx2
                && Xbyak::util::Cpu().has(Xbyak::util::Cpu::tAVX512_VBMI);
        return vbmi ? "jit:avx512_core_vbmi:lookup" : "jit:avx2:lookup";
    }
    /// jit takes p, with this level's kernel, and matches ref on both guard sides.
    void check(const quant_problem &p, uint32_t seed) {
        for (guard_side side : {guard_side::end, guard_side::start}) {
            const result r = run(p, seed, side);
            ASSERT_EQ(r.rejected, "") << p.describe();
            EXPECT_EQ(r.kernel, expected_kernel()) << p.describe();
            EXPECT_EQ(r.mismatch, "") << p.describe() << " seed " << seed;
        }
    }

private:
    cpu_isa_t old_cap_ = isa_all;
    int old_threads_ = 0;
};

// Rows around the vector (avx2 32, vbmi 64) and unroll (4 vectors) edges, one table.
TEST_P(JitLookup, RowSizesPerTensor) {
    for (int64_t n : {1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 255, 256, 257, 300})
        for (data_type src : {u8, s8})
            for (data_type dst : {u8, s8}) check(lookup({n}, -1, 7, {}, src, dst), uint32_t(n));
}

// A table per outer channel (NCHW axis 1): rows of odd length, each with its channel's table.
TEST_P(JitLookup, PerChannelOuterRows) {
    for (int64_t n : {2, 17, 64, 65, 129, 3136}) check(lookup({2, 5, n}, 1, 3), uint32_t(n));
    check(lookup({1, 64, 56, 56}, 1, 11), 11);
    check(lookup({3, 300}, 0, 5), 5); // the channel is the row itself
}

// Rows with a gap between them in src (padded), and an empty tensor.
TEST_P(JitLookup, StridedRowsAndEmpty) {
    check(lookup({4, 3, 33}, 1, 2, {3 * 40, 40, 1}), 2);
    check(lookup({6, 129}, -1, 4, {200, 1}), 4);
    check(lookup({0, 5}, -1, 6), 6);
}

// src and dst contiguous along different dims (NHWC src, NCHW dst): tiles through the stack
// buffer and the byte transpose, per tensor and with the table per row of the tile (the
// channel contiguous in dst) or per other dim; tiles cut at odd sizes.
TEST_P(JitLookup, TransposedTiles) {
    check(lookup({64, 32}, -1, 1, {1, 64}), 1);
    check(lookup({2, 24, 5, 7}, -1, 2, {24 * 35, 1, 7 * 24, 24}), 2);
    check(lookup({3, 100, 70}, 2, 3, {7000, 1, 100}), 3); // channel = dst's run, src's T
    check(lookup({3, 100, 70}, 0, 4, {7000, 1, 100}), 4);
    check(lookup({1, 64, 56, 56}, -1, 5, {200704, 1, 3584, 64}), 5);
}

// Thread splits land inside rows: a long per-tensor run and many short channel rows.
TEST_P(JitLookup, ThreadSplits) {
    check(lookup({100003}, -1, 8), 8);
    check(lookup({3, 7, 1001}, 1, 9), 9);
}

TEST_P(JitLookup, RejectsWithReason) {
    // The table changes along the contiguous run (NHWC per-channel, or rows of one element
    // per channel): chain_runner's case.
    result r = run(lookup({4, 5, 64}, 2, 1), 1, guard_side::end);
    EXPECT_NE(r.rejected.find("channel innermost"), std::string::npos) << r.rejected;
    r = run(lookup({2, 5, 1}, 1, 1), 1, guard_side::end);
    EXPECT_NE(r.rejected.find("channel innermost"), std::string::npos) << r.rejected;
    // The table changes along src's runs of a transposing layout (NCHW per-channel read
    // from NHWC memory, the channel contiguous in src).
    r = run(lookup({2, 24, 5, 7}, 1, 1, {24 * 35, 1, 7 * 24, 24}), 1, guard_side::end);
    EXPECT_NE(r.rejected.find("channel innermost"), std::string::npos) << r.rejected;
}

INSTANTIATE_TEST_SUITE_P(Levels, JitLookup,
        testing::Values(level {avx2, 1}, level {avx2, 2}, level {avx512_core, 1},
                level {avx512_core, 2}),
        [](const testing::TestParamInfo<level> &i) {
            return std::string(isa_name(i.param.isa)) + "_" + std::to_string(i.param.threads)
                    + "thr";
        });

} // namespace
