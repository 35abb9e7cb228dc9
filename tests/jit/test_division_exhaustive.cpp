// The JIT kernels' division against true IEEE division (docs/kernels.md, "Exact division").
//
// One source, two binaries (tests/jit/CMakeLists.txt):
// - QGRAPH_DIV_EXHAUSTIVE=1 (ctest label `exhaustive`): every one of the 2^32 f32 bit
//   patterns, for every scale below, on 2 threads in blocks of 2^20.
// - QGRAPH_DIV_EXHAUSTIVE=0 (label `core`): 2^24 random bit patterns plus the special values
//   (zeros, infinities, NaNs, subnormals, FLT_MAX, the neighbours of +-2^64 and +-2^-100,
//   exact ties k + 0.5, quotients at the edges of the subnormal range), same scales.
//
// For each scale s and each input x the checks are:
//   a) quotient: jit_divide(isa, x, q, n, s) (the code the quantize kernels emit) equals
//      x / s bit for bit (any NaN equals any NaN), at every ISA level the machine has,
//      - on the divide path (|s| outside [2^-30, 2^30]): for every x;
//      - on the reciprocal path: for NaN x and for every x with 2^-100 <= |x| <= 2^64 whose
//        quotient x / s is normal (|x / s| >= 2^-126). Where the quotient is subnormal
//        (possible for |s| > 2^26) the reciprocal path may be 1 ulp (2^-149) off at exact
//        subnormal ties (docs/kernels.md); those x are counted, printed, and must be within
//        2^-149 of x / s. Their quantized result is exact (check c).
//      The ISA levels also agree with each other bit for bit for every x.
//   b) model: jit::recip_divide(x, s, make_recip(s)), the scalar statement of the
//      algorithm, equals the generated code for every x (all 2^32 in the exhaustive run, for
//      every scale; see kModelEveryScale below for the cost).
//   c) quantized: for every x, saturate(rne(q) + zp) computed from the JIT quotient q with
//      the kernels' rule (clamp in f32 to [qmin - zp, qmax - zp], NaN -> qmin, rne, + zp)
//      equals quantize_value(x, s, zp, range), for u8 zp 0, u8 zp 3 and s8 zp -1; and, when
//      the "jit" backend is registered, a real Quantize op compiled through the public API
//      with the JIT backend forced, at every ISA level, gives the same bytes.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "backends/jit/jit_division.hpp"
#include "common/cpu_isa.hpp"
#include "common/q10n.hpp"
#include "qgraph/qgraph.hpp"

#ifndef QGRAPH_DIV_EXHAUSTIVE
#define QGRAPH_DIV_EXHAUSTIVE 1
#endif

namespace {

using namespace qgraph::impl;

constexpr bool kExhaustive = QGRAPH_DIV_EXHAUSTIVE != 0;
constexpr int64_t kBlock = int64_t(1) << 20; // inputs per task
constexpr int kThreads = 2;
constexpr size_t kMaxReported = 6; // mismatches printed per category

uint32_t bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
float from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}
bool same(float a, float b) { return bits(a) == bits(b) || (a != a && b != b); }

// ---------------------------------------------------------------------------------------
// Scales.

struct scale_case {
    float s;
    std::string name;
};

/// The fixed scales, then random ones: log2|s| uniform in [-50, 50] (so roughly 60% fall
/// in the reciprocal range [2^-30, 2^30] and the rest use the divide path), random sign,
/// from a fixed seed.
std::vector<scale_case> scales() {
    std::vector<scale_case> v {
            {0.1f, "0.1"},
            {1.f / 3.f, "1/3"},
            {0x1p-20f, "2^-20"},
            {1e30f, "1e30"},
            {1e-40f, "1e-40 (subnormal)"},
            {1.f / 255.f, "1/255"},
            {-0.1f, "-0.1"},
            {0x1p-30f, "2^-30 (smallest reciprocal scale)"},
            {0x1.000002p-30f, "2^-30 + 1ulp"},
            {0x1.fffffep29f, "2^30 - 1ulp (largest non-power-of-two reciprocal scale)"},
            {3.f * 0x1p28f, "3*2^28 (subnormal-quotient ties)"},
    };
    std::mt19937_64 rng(0x5ca1ef00d);
    std::uniform_real_distribution<double> e(-50.0, 50.0);
    for (int i = 0; i < 8; ++i) {
        const double mag = std::exp2(e(rng));
        const bool neg = (rng() & 1) != 0;
        const float s = static_cast<float>(neg ? -mag : mag);
        char buf[64];
        std::snprintf(buf, sizeof(buf), "random %d: %a", i, static_cast<double>(s));
        v.push_back({s, buf});
    }
    return v;
}

const char *path_of(float s) { return jit::make_recip(s).fast ? "reciprocal" : "divide"; }

/// In the exhaustive run, the scalar model (check b) costs about 11 ns per call: it is
/// compiled without FMA, so each of its three std::fma calls goes through libm. Over all
/// 2^32 inputs that is ~47 core-seconds per reciprocal-path scale, more than the whole
/// budget of this test allows for 19 scales. So the exhaustive run evaluates the model on
/// all 2^32 inputs for the scales listed here, and on a stride-7 sample (every 7th bit
/// pattern, ~6e8 inputs) for the other reciprocal-path scales. The divide path's model is
/// x / s and is checked for all 2^32 inputs at every scale. The fast binary checks the model
/// on all of its inputs.
bool model_every_input(const scale_case &c) {
    return c.name == "1/3" || c.name == "3*2^28 (subnormal-quotient ties)" ||
            !jit::make_recip(c.s).fast;
}
constexpr uint64_t kModelStride = 7;

// ---------------------------------------------------------------------------------------
// Quantized types.

struct q_case {
    const char *name;
    qgraph::data_type dt;
    int64_t zp;
    q_range range;
};

const q_case kQCases[] = {
        {"u8 zp 0", qgraph::data_type::u8, 0, {0, 255}},
        {"u8 zp 3", qgraph::data_type::u8, 3, {0, 255}},
        {"s8 zp -1", qgraph::data_type::s8, -1, {-128, 127}},
};
constexpr int kNQ = 3;

/// The kernels' rule applied to a quotient: clamp in f32 to [qmin - zp, qmax - zp]
/// (NaN -> qmin), round to nearest even, add zp.
int64_t quantize_quotient(float q, int64_t zp, q_range r) {
    if (std::isnan(q)) return r.lo;
    const float lo = static_cast<float>(r.lo - zp), hi = static_cast<float>(r.hi - zp);
    q = q < lo ? lo : (q > hi ? hi : q);
    return static_cast<int64_t>(rne(q)) + zp;
}

// ---------------------------------------------------------------------------------------
// Mismatch bookkeeping.

struct tally {
    explicit tally(std::string n) : name(std::move(n)) {}
    std::string name;
    std::atomic<uint64_t> count {0};
    std::atomic<uint64_t> checked {0};
    std::mutex m;
    std::vector<std::string> first;

    void report(const std::string &what) {
        if (count.fetch_add(1) < kMaxReported) {
            std::lock_guard<std::mutex> g(m);
            first.push_back(what);
        }
    }
};

std::string fmt_float(float f) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "%a (0x%08x)", static_cast<double>(f), bits(f));
    return buf;
}

// ---------------------------------------------------------------------------------------
// The public-API part of check (c): one compiled Quantize partition per type case and ISA.

bool jit_registered() {
    const std::vector<std::string> names = qgraph::get_backend_names();
    return std::find(names.begin(), names.end(), "jit") != names.end();
}

struct api_runner {
    std::string isa;
    int qi;
    qgraph::logical_tensor src, dst;
    qgraph::compiled_partition cp;
    std::string kernel;
};

/// Restores the backend choice, the ISA cap and the thread count on scope exit.
struct api_settings_guard {
    std::string backend = qgraph::get_backend();
    std::string cap = qgraph::get_max_cpu_isa();
    ~api_settings_guard() {
        qgraph::set_backend(backend);
        qgraph::set_max_cpu_isa(cap);
        qgraph::set_num_threads(0);
    }
};

std::vector<api_runner> make_api_runners(float s, const std::vector<cpu_isa_t> &isas) {
    std::vector<api_runner> v;
    const qgraph::engine eng(qgraph::engine::kind::cpu, 0);
    for (cpu_isa_t isa : isas) {
        qgraph::set_max_cpu_isa(isa_name(isa));
        for (int qi = 0; qi < kNQ; ++qi) {
            using lt = qgraph::logical_tensor;
            const lt src(1, qgraph::data_type::f32, {kBlock}, lt::layout_type::strided);
            const lt dst(2, kQCases[qi].dt, {kBlock}, lt::layout_type::strided);
            qgraph::op o(0, qgraph::op::kind::Quantize, {src}, {dst}, "q");
            o.set_attr(qgraph::op::attr::qtype, "per_tensor");
            o.set_attr(qgraph::op::attr::scales, std::vector<float> {s});
            o.set_attr(qgraph::op::attr::zps, std::vector<int64_t> {kQCases[qi].zp});
            qgraph::graph g(qgraph::engine::kind::cpu);
            g.add_op(o);
            g.finalize();
            std::vector<qgraph::partition> parts = g.get_partitions();
            EXPECT_EQ(parts.size(), 1u);
            qgraph::compiled_partition cp = parts.at(0).compile({src}, {dst}, eng);
            EXPECT_EQ(cp.get_backend_name(), "jit") << kQCases[qi].name << " at " << isa_name(isa);
            v.push_back({isa_name(isa), qi, src, dst, cp, cp.get_kernel_name()});
        }
    }
    return v;
}

// ---------------------------------------------------------------------------------------
// One scale over a set of inputs.

std::vector<cpu_isa_t> jit_isas() {
    std::vector<cpu_isa_t> v;
    for (cpu_isa_t isa : cpu_isa_levels())
        if (isa == avx2 || isa == avx512_core) v.push_back(isa);
    return v;
}

class scale_checker {
public:
    scale_checker(const scale_case &c, bool use_api) : c_(c), p_(jit::make_recip(c.s)) {
        isas_ = jit_isas();
        for (cpu_isa_t isa : isas_) {
            const std::string n = isa_name(isa);
            quot_.emplace_back(new tally("quotient " + n));
            subq_.emplace_back(new tally("subnormal quotient off by 1ulp (info) " + n));
            subq_far_.emplace_back(new tally("subnormal quotient beyond 1ulp " + n));
            model_.emplace_back(new tally("model vs " + n));
            for (int qi = 0; qi < kNQ; ++qi)
                quant_.emplace_back(
                        new tally(std::string("quantized ") + kQCases[qi].name + " " + n));
        }
        isa_agree_.reset(new tally("avx2 vs avx512_core"));
        if (use_api) {
            runners_ = make_api_runners(c.s, isas_);
            for (const api_runner &r : runners_)
                api_.emplace_back(new tally(std::string("public API ") +
                        kQCases[r.qi].name + " " + r.isa + " (" + r.kernel + ")"));
        }
    }

    /// Per-thread buffers.
    struct buffers {
        std::vector<float> x, ref;
        std::vector<std::vector<float>> q; // per ISA
        std::vector<std::vector<uint8_t>> api; // per runner
        qgraph::stream strm {qgraph::engine(qgraph::engine::kind::cpu, 0)};
    };
    std::unique_ptr<buffers> make_buffers() const {
        std::unique_ptr<buffers> b(new buffers);
        b->x.resize(kBlock);
        b->ref.resize(kBlock);
        b->q.assign(isas_.size(), std::vector<float>(kBlock));
        b->api.assign(runners_.size(), std::vector<uint8_t>(kBlock));
        return b;
    }

    /// Checks b.x[0, n). `first_index` numbers the inputs for the model's sampling.
    void check(buffers &b, int64_t n, uint64_t first_index, bool model_all) {
        const float s = c_.s;
        const float *x = b.x.data();
        float *ref = b.ref.data();
        for (int64_t i = 0; i < n; ++i) ref[i] = x[i] / s;
        for (size_t k = 0; k < isas_.size(); ++k)
            jit::jit_divide(isas_[k], x, b.q[k].data(), n, s);
        if (!runners_.empty() && n == kBlock) {
            for (size_t r = 0; r < runners_.size(); ++r) {
                runners_[r].cp.execute(b.strm,
                        {qgraph::tensor(runners_[r].src,
                                qgraph::engine(qgraph::engine::kind::cpu, 0),
                                const_cast<float *>(x))},
                        {qgraph::tensor(runners_[r].dst,
                                qgraph::engine(qgraph::engine::kind::cpu, 0),
                                b.api[r].data())});
            }
        }
        check_quotients(b, n, first_index, model_all);
    }

    bool has_api() const { return !runners_.empty(); }

    /// Every tally, in a fixed order.
    std::vector<tally *> tallies() const {
        std::vector<tally *> v;
        for (auto &t : quot_) v.push_back(t.get());
        for (auto &t : subq_far_) v.push_back(t.get());
        for (auto &t : model_) v.push_back(t.get());
        for (auto &t : quant_) v.push_back(t.get());
        v.push_back(isa_agree_.get());
        for (auto &t : api_) v.push_back(t.get());
        return v;
    }
    std::vector<tally *> info_tallies() const {
        std::vector<tally *> v;
        for (auto &t : subq_) v.push_back(t.get());
        return v;
    }

private:
    const scale_case &c_;
    const jit::recip_params p_;
    std::vector<cpu_isa_t> isas_;
    std::vector<std::unique_ptr<tally>> quot_, subq_, subq_far_, model_, quant_, api_;
    std::unique_ptr<tally> isa_agree_;
    std::vector<api_runner> runners_;

    void check_quotients(buffers &b, int64_t n, uint64_t first_index, bool model_all) {
        const float s = c_.s;
        const bool fast = p_.fast;
        uint64_t n_quot = 0, n_model = 0;
        for (int64_t i = 0; i < n; ++i) {
            const float x = b.x[i], ref = b.ref[i];
            const float ax = std::fabs(x);
            // Where the quotient must be exact (see the top of the file).
            const bool in_domain = ax >= 0x1p-100f && ax <= 0x1p64f;
            const bool normal_q = std::fabs(ref) >= FLT_MIN;
            const bool exact_required = !fast || std::isnan(x) || (in_domain && normal_q);
            const bool subnormal_q = fast && in_domain && !normal_q;
            const bool run_model =
                    model_all || (first_index + static_cast<uint64_t>(i)) % kModelStride == 0;
            const float m = run_model ? jit::recip_divide(x, s, p_) : 0.f;
            n_model += run_model;
            n_quot += exact_required;

            for (size_t k = 0; k < isas_.size(); ++k) {
                const float q = b.q[k][i];
                if (exact_required && !same(q, ref))
                    quot_[k]->report("x = " + fmt_float(x) + ": jit " + fmt_float(q) +
                            ", x / s = " + fmt_float(ref));
                if (subnormal_q && !same(q, ref)) {
                    subq_[k]->report("x = " + fmt_float(x) + ": jit " + fmt_float(q) +
                            ", x / s = " + fmt_float(ref));
                    if (!(std::fabs(q - ref) <= 0x1p-149f))
                        subq_far_[k]->report("x = " + fmt_float(x) + ": jit " + fmt_float(q) +
                                ", x / s = " + fmt_float(ref));
                }
                if (run_model && !same(m, q))
                    model_[k]->report("x = " + fmt_float(x) + ": model " + fmt_float(m) +
                            ", jit " + fmt_float(q));
                if (k > 0 && !same(q, b.q[0][i]))
                    isa_agree_->report("x = " + fmt_float(x) + ": " + fmt_float(b.q[0][i]) +
                            " vs " + fmt_float(q));
            }
            for (int qi = 0; qi < kNQ; ++qi) {
                const q_case &qc = kQCases[qi];
                const int64_t want = quantize_value(x, s, qc.zp, qc.range);
                for (size_t k = 0; k < isas_.size(); ++k) {
                    const int64_t got = quantize_quotient(b.q[k][i], qc.zp, qc.range);
                    if (got != want)
                        quant_[k * kNQ + qi]->report("x = " + fmt_float(x) + ": from jit " +
                                std::to_string(got) + ", quantize_value " +
                                std::to_string(want));
                }
                if (!runners_.empty() && n == kBlock) {
                    for (size_t r = 0; r < runners_.size(); ++r) {
                        if (runners_[r].qi != qi) continue;
                        const uint8_t byte = b.api[r][i];
                        const int64_t got = qc.dt == qgraph::data_type::s8
                                ? static_cast<int64_t>(static_cast<int8_t>(byte))
                                : static_cast<int64_t>(byte);
                        if (got != want)
                            api_[r]->report("x = " + fmt_float(x) + ": Quantize op " +
                                    std::to_string(got) + ", quantize_value " +
                                    std::to_string(want));
                    }
                }
            }
        }
        for (size_t k = 0; k < isas_.size(); ++k) {
            quot_[k]->checked += n_quot;
            model_[k]->checked += n_model;
        }
    }
};

/// Runs `fill(block, x)` + check for blocks [0, nblocks) on kThreads threads.
template <typename Fill>
void run_blocks(scale_checker &chk, int64_t nblocks, bool model_all, const Fill &fill) {
    std::atomic<int64_t> next {0};
    std::vector<std::thread> pool;
    for (int t = 0; t < kThreads; ++t)
        pool.emplace_back([&] {
            std::unique_ptr<scale_checker::buffers> b = chk.make_buffers();
            for (int64_t blk; (blk = next.fetch_add(1)) < nblocks;) {
                const int64_t n = fill(blk, b->x.data());
                chk.check(*b, n, static_cast<uint64_t>(blk) * kBlock, model_all);
            }
        });
    for (std::thread &t : pool) t.join();
}

/// The special values of the fast variant for scale s.
std::vector<float> special_inputs(float s) {
    std::vector<float> v;
    auto with_neighbours = [&](float f) {
        for (float g : {f, -f}) {
            v.push_back(g);
            v.push_back(std::nextafter(g, INFINITY));
            v.push_back(std::nextafter(g, -INFINITY));
        }
    };
    for (uint32_t u : {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu,
                 0x7fa00000u, 0x00000001u, 0x80000001u, 0x00000002u, 0x00400000u,
                 0x007fffffu, 0x807fffffu, 0x00800000u, 0x80800000u, 0x7f7fffffu,
                 0xff7fffffu})
        v.push_back(from_bits(u));
    for (float f : {0x1p64f, 0x1p-100f, FLT_MAX, FLT_MIN, 1.f, 0x1p24f, 0x1p31f, 0x1p-70f})
        with_neighbours(f);
    // Quotients at chosen values: x = RN(t * s) and its neighbours, for t = k + 0.5 (ties
    // when the product is exact), integers at the saturation edges, the edges of the normal
    // range, and subnormal quotients.
    std::vector<double> t;
    for (int k = -300; k <= 300; ++k) t.push_back(k + 0.5), t.push_back(k);
    for (double e : {126.0, 127.0, 128.0, 129.0, 130.0, 24.0, 23.0, 31.0, 63.0, 64.0})
        t.push_back(std::exp2(e)), t.push_back(-std::exp2(e));
    for (double e = -149; e <= -120; ++e) t.push_back(std::exp2(e));
    for (int k = 0; k < 64; ++k) // subnormal midpoints (2j + 1) * 2^-150
        t.push_back((2.0 * ((1 << 21) + k) + 1.0) * std::exp2(-150.0));
    for (double tv : t) {
        const float f = static_cast<float>(tv * static_cast<double>(s));
        if (std::isfinite(f)) with_neighbours(f);
    }
    return v;
}

void expect_clean(scale_checker &chk, const scale_case &c, double seconds) {
    std::printf("scale %-58s %a  %-10s %6.1f s\n", c.name.c_str(), static_cast<double>(c.s),
            path_of(c.s), seconds);
    for (tally *t : chk.info_tallies()) {
        if (t->count == 0) continue;
        std::printf("  %s: %llu (allowed: quantized results stay exact)\n", t->name.c_str(),
                static_cast<unsigned long long>(t->count.load()));
        for (const std::string &w : t->first) std::printf("    %s\n", w.c_str());
    }
    for (tally *t : chk.tallies()) {
        EXPECT_EQ(t->count.load(), 0u) << "scale " << c.name << " (" << fmt_float(c.s)
                                       << "): " << t->name;
        if (t->count == 0) continue;
        std::printf("  MISMATCH %s: %llu\n", t->name.c_str(),
                static_cast<unsigned long long>(t->count.load()));
        for (const std::string &w : t->first) std::printf("    %s\n", w.c_str());
    }
    std::fflush(stdout);
}

class Division : public ::testing::TestWithParam<int> {};

TEST(DivisionSetup, ScalesAndPaths) {
    const std::vector<scale_case> sc = scales();
    ASSERT_GE(sc.size(), 16u);
    int recip = 0, div = 0;
    for (const scale_case &c : sc) {
        std::printf("%-58s %-16a %s\n", c.name.c_str(), static_cast<double>(c.s), path_of(c.s));
        (jit::make_recip(c.s).fast ? recip : div)++;
        // The path is what the bounds say.
        const float a = std::fabs(c.s);
        EXPECT_EQ(jit::make_recip(c.s).fast, a >= 0x1p-30f && a <= 0x1p30f) << c.name;
    }
    EXPECT_GE(recip, 8);
    EXPECT_GE(div, 3);
    ASSERT_FALSE(jit_isas().empty()) << "no avx2";
}

TEST_P(Division, EveryInput) {
    const std::vector<scale_case> sc = scales();
    const scale_case &c = sc.at(static_cast<size_t>(GetParam()));
    if (jit_isas().empty()) GTEST_SKIP() << "the CPU has no avx2: no JIT kernels";

    api_settings_guard settings;
    const bool api = jit_registered();
    qgraph::set_num_threads(1); // parallelism comes from this test's own threads
    if (api) qgraph::set_backend("jit");

    const auto t0 = std::chrono::steady_clock::now();
    scale_checker chk(c, api);
    if (kExhaustive) {
        // Every bit pattern: block b holds the patterns [b * 2^20, (b + 1) * 2^20).
        const int64_t nblocks = (int64_t(1) << 32) / kBlock;
        run_blocks(chk, nblocks, model_every_input(c), [](int64_t blk, float *x) {
            const uint32_t base = static_cast<uint32_t>(blk * kBlock);
            for (int64_t i = 0; i < kBlock; ++i)
                x[i] = from_bits(base + static_cast<uint32_t>(i));
            return kBlock;
        });
    } else {
        // 16 blocks of random bit patterns, then one block of special values.
        const int64_t nrandom = 16;
        const std::vector<float> sp = special_inputs(c.s);
        ASSERT_LE(static_cast<int64_t>(sp.size()), kBlock);
        run_blocks(chk, nrandom + 1, true, [&](int64_t blk, float *x) -> int64_t {
            if (blk == nrandom) { // the specials, repeated to fill the block
                for (int64_t i = 0; i < kBlock; ++i) x[i] = sp[static_cast<size_t>(i) % sp.size()];
                return kBlock;
            }
            std::mt19937 rng(static_cast<uint32_t>(12345 + blk));
            for (int64_t i = 0; i < kBlock; ++i) x[i] = from_bits(rng());
            return kBlock;
        });
    }
    const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    expect_clean(chk, c, secs);
    // Something was checked.
    for (tally *t : chk.tallies())
        if (t->name.rfind("quotient", 0) == 0 || t->name.rfind("model", 0) == 0)
            EXPECT_GT(t->checked.load(), 0u) << t->name;
    if (!api)
        GTEST_SKIP() << "the \"jit\" backend is not registered (get_backend_names()): the "
                        "public-API Quantize part of check (c) did not run; the quotient, "
                        "model and quantized-from-quotient checks did and passed";
}

INSTANTIATE_TEST_SUITE_P(Scales, Division,
        ::testing::Range(0, static_cast<int>(scales().size())),
        [](const ::testing::TestParamInfo<int> &i) { return "s" + std::to_string(i.param); });

} // namespace
