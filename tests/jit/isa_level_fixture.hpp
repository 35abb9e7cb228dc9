#ifndef QGRAPH_TESTS_JIT_ISA_LEVEL_FIXTURE_HPP
#define QGRAPH_TESTS_JIT_ISA_LEVEL_FIXTURE_HPP

// A suite parameterised on (ISA cap, thread count): each test runs with the cap and the thread
// count of its parameter and gives the caller's settings back afterwards. A level the CPU
// lacks is skipped and says so: its code is built and selected by the ISA table but cannot run
// here.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "backends/problem.hpp"
#include "common/cpu_isa.hpp"
#include "common/parallel.hpp"

namespace qtest {

struct isa_level {
    qgraph::impl::cpu_isa_t isa;
    int threads;
};

/// Every level of `isas` at 1 and 2 threads.
inline std::vector<isa_level> at_one_and_two_threads(
        std::initializer_list<qgraph::impl::cpu_isa_t> isas) {
    std::vector<isa_level> v;
    for (qgraph::impl::cpu_isa_t isa : isas)
        for (int t : {1, 2}) v.push_back({isa, t});
    return v;
}

/// "avx512_core_2thr": the parameter's name in the test's name.
inline std::string isa_level_name(const testing::TestParamInfo<isa_level> &i) {
    return std::string(qgraph::impl::isa_name(i.param.isa)) + "_"
            + std::to_string(i.param.threads) + "thr";
}

class IsaLevelTest : public testing::TestWithParam<isa_level> {
protected:
    void SetUp() override {
        using namespace qgraph::impl;
        bool present = false;
        for (cpu_isa_t l : cpu_isa_levels()) present = present || l == GetParam().isa;
        if (!present)
            GTEST_SKIP() << isa_name(GetParam().isa)
                         << " is not on this CPU: built and selectable, untested here";
        old_cap_ = max_cpu_isa();
        old_threads_ = num_threads();
        set_max_cpu_isa(GetParam().isa);
        set_num_threads(GetParam().threads);
    }
    void TearDown() override {
        if (old_threads_ == 0) return; // skipped: nothing was changed
        qgraph::impl::set_max_cpu_isa(old_cap_);
        qgraph::impl::set_num_threads(old_threads_);
    }
    /// The name a jit kernel for p must report at this level: the highest level whose
    /// instructions it uses (only rounding to bf16 -- a dequantize to bf16, a quantize whose
    /// source is rounded to bf16 first -- uses more than avx512_core).
    std::string jit_kernel_name(const qgraph::impl::quant_problem *p = nullptr) const {
        using namespace qgraph::impl;
        const cpu_isa_t l = GetParam().isa;
        const bool rounds_to_bf16 = p
                && ((p->kind == q_kind::dequantize && p->dst_dt == qgraph::data_type::bf16)
                        || (p->kind == q_kind::quantize
                                && p->src_round_dt == qgraph::data_type::bf16));
        const bool bf16_insn = rounds_to_bf16 && (l & avx512_core_bf16) == avx512_core_bf16;
        return std::string("jit:")
                + isa_name(l == avx2 ? avx2 : bf16_insn ? avx512_core_bf16 : avx512_core);
    }

private:
    qgraph::impl::cpu_isa_t old_cap_ = qgraph::impl::isa_all;
    int old_threads_ = 0;
};

} // namespace qtest

#endif
