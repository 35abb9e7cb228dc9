// The JIT kernels' division against true IEEE division (docs/kernels.md, "Exact division").
//
// One source, two binaries (tests/jit/CMakeLists.txt):
// - QGRAPH_DIV_EXHAUSTIVE=1 (ctest label `exhaustive`): every one of the 2^32 f32 bit
//   patterns, for every scale below, on 2 threads in blocks of 2^20.
// - QGRAPH_DIV_EXHAUSTIVE=0 (label `core`): 2^20 random bit patterns per scale plus the
//   special values (zeros, infinities, NaNs, subnormals, FLT_MAX, the neighbours of +-2^64
//   and +-2^-100, exact ties k + 0.5, quotients at the edges of the subnormal range).
//
// For each scale s and each input x the checks are:
//   a) quotient: jit_divide(isa, x, q, n, s) (quotient_kernel.hpp: the division instructions
//      the quantize kernels emit, jit_division_emitter.hpp) equals x / s bit for bit (any
//      NaN equals any NaN):
//      - on the divide path (|s| outside [2^-30, 2^30]) and the multiply path (powers of
//        two whose reciprocal is a float): for every x;
//      - on the reciprocal path: for NaN x and for every finite x with 2^-100 <= |x| whose
//        quotient is normal and below 2^126 (2^-126 <= |x / s| < 2^126; beyond, both
//        saturate: check c). Where the quotient is subnormal
//        (possible for |s| > 2^26) the reciprocal path can be 1 ulp (2^-149) off at exact
//        subnormal ties (docs/kernels.md); those x are counted and printed, and must be
//        within 2^-149 of x / s. Their quantized result is exact (check c).
//      This is checked for the lowest ISA level; every other level the machine has must
//      give the same bits as the lowest for every x.
//   b) model: jit::recip_divide(x, s, make_recip(s)), the scalar statement of the
//      algorithm, equals the generated code (exhaustive run: on a 1-in-16 sample of the
//      bit patterns, all 2^32 with QGRAPH_DIV_MODEL_ALL=1, see model_every_input; fast
//      run: every input).
//   c) quantized: for every x, saturate(rne(q) + zp) computed from the JIT quotient q with
//      the kernels' rule (clamp in f32 to [qmin - zp, qmax - zp], NaN -> qmin, rne, + zp)
//      equals quantize_value(x, s, zp, range), for u8 zp 0 and the zero points at the
//      limits of the kernels' checked multiply: u8 zp 255, s8 zp -128, s8 zp 127; and, when
//      the "jit" backend is registered, a real Quantize op compiled through the public API
//      with the JIT backend forced gives the same bytes (at the best ISA level in the
//      exhaustive run, at every level in the fast run). Without "jit" that part is skipped
//      with a message (GTEST_SKIP) and everything else still runs.
//
// Timing builds: -DQGRAPH_DIV_BLOCK_STRIDE=32 checks every 32nd block only.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
#include "quotient_kernel.hpp"

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
            {0x1.000002p-30f, "2^-30 + 1ulp (smallest non-power-of-two reciprocal scale)"},
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

const char *path_of(float s) {
    switch (jit::make_recip(s).path) {
        case jit::div_path::recip: return "reciprocal";
        case jit::div_path::multiply: return "multiply";
        default: return "divide";
    }
}

/// In the exhaustive run, the scalar model (check b) costs about 11 ns per call on the
/// reciprocal path: it is compiled without FMA, so each of its three std::fma calls goes
/// through libm. Over all 2^32 inputs that is ~47 core-seconds per scale, more than this
/// test's whole time budget allows beside the rest. So by default the exhaustive run
/// evaluates the model on every kModelStride-th bit pattern (2^28 inputs per scale, every
/// exponent and sign); QGRAPH_DIV_MODEL_ALL=1 in the environment evaluates it on all 2^32
/// (about 47 more core-seconds per reciprocal-path scale). The fast binary evaluates it on
/// all of its inputs.
bool model_every_input(const scale_case &) {
    const char *v = std::getenv("QGRAPH_DIV_MODEL_ALL");
    return v != nullptr && std::string(v) == "1";
}
constexpr uint64_t kModelStride = 16;

// ---------------------------------------------------------------------------------------
// Quantized types.

struct q_case {
    const char *name;
    qgraph::data_type dt;
    int64_t zp;
    q_range range;
};

constexpr q_case kQCases[] = {
        {"u8 zp 0", qgraph::data_type::u8, 0, {0, 255}},
        // The limits of the kernels' checked multiply (jit_division.hpp: checked_zp_fits).
        {"u8 zp 255", qgraph::data_type::u8, 255, {0, 255}},
        {"s8 zp -128", qgraph::data_type::s8, -128, {-128, 127}},
        {"s8 zp 127", qgraph::data_type::s8, 127, {-128, 127}},
};
constexpr int kNQ = 4;

/// The kernels' rule applied to a quotient: clamp in f32 to [qmin - zp, qmax - zp]
/// (NaN -> qmin), round to nearest even, add zp.
int64_t kernel_clamp_round(float q, int64_t zp, q_range r) {
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

// The per-block passes below are branch-free loops the compiler vectorizes; they only count.
// A block with a nonzero count is scanned again element by element to print examples.
// QG_VEC compiles them for AVX-512 and AVX2 as well, picked at run time (ifunc).
#define QG_VEC __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))

QG_VEC void divide_all(const float *x, float *ref, int64_t n, float s) {
    for (int64_t i = 0; i < n; ++i) ref[i] = x[i] / s;
}

constexpr uint32_t kAbs = 0x7fffffffu;
constexpr uint32_t kInfBits = 0x7f800000u;
constexpr uint32_t kXLoBits = 0x0d800000u; // 2^-100
constexpr uint32_t kQHiBits = 0x7e800000u; // 2^126
constexpr uint32_t kMinNormalBits = 0x00800000u; // 2^-126

inline uint32_t ubits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
/// Bitwise equal, or both NaN.
inline bool same_bits(uint32_t a, uint32_t b) {
    return (a == b) | (((a & kAbs) > kInfBits) & ((b & kAbs) > kInfBits));
}

/// a and b are equal or neighbouring floats (for subnormals: at most 2^-149 apart), in
/// integer arithmetic (subnormal float arithmetic is slow).
inline bool adjacent(uint32_t a, uint32_t b) {
    const uint32_t da = a & kAbs, db = b & kAbs;
    const uint32_t diff = da > db ? da - db : db - da;
    return ((a ^ b) >> 31) == 0 ? diff <= 1 : da + db <= 1;
}

struct quot_counts {
    uint64_t required = 0; ///< inputs whose quotient must be exact
    uint64_t bad = 0; ///< ... and is not
    uint64_t sub_off = 0; ///< reciprocal path, subnormal quotient, not exact
    uint64_t sub_far = 0; ///< ... and more than 2^-149 away
};

/// Which quotients must be exact: see the top of the file.
inline bool exact_required(uint32_t bx, uint32_t bref, bool fast) {
    const uint32_t ax = bx & kAbs, aq = bref & kAbs;
    const bool in_domain = (ax >= kXLoBits) & (ax < kInfBits) & (aq < kQHiBits);
    const bool normal_q = aq >= kMinNormalBits;
    return !fast | (ax > kInfBits) | (in_domain & normal_q);
}
inline bool subnormal_quotient(uint32_t bx, uint32_t bref, bool fast) {
    const uint32_t ax = bx & kAbs;
    return fast & (ax >= kXLoBits) & ((bref & kAbs) < kMinNormalBits);
}

/// Floats read as their bits (may_alias: no strict-aliasing assumptions).
typedef uint32_t u32_alias __attribute__((may_alias));

/// n <= 2^32 - 1 (the counters are 32-bit so that the loop vectorizes well).
QG_VEC quot_counts count_quotients(
        const float *xf, const float *reff, const float *qf, int64_t n, bool fast) {
    const u32_alias *x = reinterpret_cast<const u32_alias *>(xf);
    const u32_alias *ref = reinterpret_cast<const u32_alias *>(reff);
    const u32_alias *q = reinterpret_cast<const u32_alias *>(qf);
    const uint32_t fast_mask = fast ? 1u : 0u;
    uint32_t req = 0, bad = 0, sub_off = 0, sub_far = 0;
    for (int64_t i = 0; i < n; ++i) {
        const uint32_t ax = x[i] & kAbs, br = ref[i], bq = q[i];
        const uint32_t ar = br & kAbs, aq = bq & kAbs;
        const uint32_t big_enough = ax >= kXLoBits;
        const uint32_t in_domain = big_enough & (ax < kInfBits) & (ar < kQHiBits);
        const uint32_t normal_q = ar >= kMinNormalBits;
        const uint32_t r = (fast_mask ^ 1u) | (ax > kInfBits) | (in_domain & normal_q);
        const uint32_t eq = (br == bq) | ((ar > kInfBits) & (aq > kInfBits));
        const uint32_t sub = fast_mask & big_enough & (normal_q ^ 1u);
        const uint32_t diff = ar > aq ? ar - aq : aq - ar;
        const uint32_t adj = (((br ^ bq) >> 31) == 0) ? (diff <= 1) : (ar + aq <= 1);
        req += r;
        bad += r & (eq ^ 1u);
        sub_off += sub & (eq ^ 1u);
        sub_far += sub & (adj ^ 1u);
    }
    return {req, bad, sub_off, sub_far};
}

QG_VEC uint64_t count_different(const float *a, const float *b, int64_t n) {
    uint32_t bad = 0;
    for (int64_t i = 0; i < n; ++i) bad += !same_bits(ubits(a[i]), ubits(b[i]));
    return bad;
}

/// want[qi][i] = quantize_value(x[i], s, zp, range) for the four type cases, in one loop
/// (the compiler shares the division and the rounding between them).
QG_VEC void quantize_values(const float *x, float s, int32_t *w0, int32_t *w1, int32_t *w2,
        int32_t *w3, int64_t n) {
    static_assert(kNQ == 4, "one output per q_case");
    for (int64_t i = 0; i < n; ++i) {
        w0[i] = static_cast<int32_t>(quantize_value(x[i], s, kQCases[0].zp, kQCases[0].range));
        w1[i] = static_cast<int32_t>(quantize_value(x[i], s, kQCases[1].zp, kQCases[1].range));
        w2[i] = static_cast<int32_t>(quantize_value(x[i], s, kQCases[2].zp, kQCases[2].range));
        w3[i] = static_cast<int32_t>(quantize_value(x[i], s, kQCases[3].zp, kQCases[3].range));
    }
}

QG_VEC uint64_t count_quantized_quotients(
        const float *q, const q_case &qc, const int32_t *want, int64_t n) {
    // kernel_clamp_round, branch-free.
    const float lo = static_cast<float>(qc.range.lo - qc.zp);
    const float hi = static_cast<float>(qc.range.hi - qc.zp);
    const int32_t zp = static_cast<int32_t>(qc.zp), qmin = static_cast<int32_t>(qc.range.lo);
    uint32_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
        const float v = q[i];
        float c = v < lo ? lo : v;
        c = c > hi ? hi : c;
        const int32_t got = v != v ? qmin : static_cast<int32_t>(std::nearbyint(c)) + zp;
        bad += got != want[i];
    }
    return bad;
}

QG_VEC uint64_t count_bytes(const uint8_t *y, bool s8, const int32_t *want, int64_t n) {
    uint32_t bad = 0;
    if (s8)
        for (int64_t i = 0; i < n; ++i) bad += static_cast<int8_t>(y[i]) != want[i];
    else
        for (int64_t i = 0; i < n; ++i) bad += static_cast<int32_t>(y[i]) != want[i];
    return bad;
}

class scale_checker {
public:
    scale_checker(const scale_case &c, bool use_api) : c_(c), p_(jit::make_recip(c.s)) {
        isas_ = jit_isas();
        for (cpu_isa_t isa : isas_) {
            if (isa != isas_[0]) break; // the other levels are compared with the first
            const std::string n = isa_name(isa);
            quot_.emplace_back(new tally("quotient " + n));
            subq_.emplace_back(new tally("subnormal quotient off by 1ulp (info) " + n));
            subq_far_.emplace_back(new tally("subnormal quotient beyond 1ulp " + n));
            model_.emplace_back(new tally("model vs " + n));
            for (int qi = 0; qi < kNQ; ++qi)
                quant_.emplace_back(
                        new tally(std::string("quantized ") + kQCases[qi].name + " " + n));
        }
        isa_agree_.reset(new tally("ISA levels agree"));
        if (use_api) {
            // The exhaustive run compiles the op for the best level only (time budget); the
            // fast run for every level.
            runners_ = make_api_runners(
                    c.s, kExhaustive ? std::vector<cpu_isa_t> {isas_.back()} : isas_);
            for (const api_runner &r : runners_)
                api_.emplace_back(new tally(std::string("public API ") +
                        kQCases[r.qi].name + " " + r.isa + " (" + r.kernel + ")"));
        }
    }

    /// Per-thread buffers.
    struct buffers {
        std::vector<float> x, ref, model;
        std::vector<std::vector<float>> q; // per ISA
        std::vector<std::vector<int32_t>> want; // per q_case
        std::vector<std::vector<uint8_t>> api; // per runner
        qgraph::stream strm {qgraph::engine(qgraph::engine::kind::cpu, 0)};
    };
    std::unique_ptr<buffers> make_buffers() const {
        std::unique_ptr<buffers> b(new buffers);
        b->x.resize(kBlock);
        b->ref.resize(kBlock);
        b->model.resize(kBlock);
        b->q.assign(isas_.size(), std::vector<float>(kBlock));
        b->want.assign(kNQ, std::vector<int32_t>(kBlock));
        b->api.assign(runners_.size(), std::vector<uint8_t>(kBlock));
        return b;
    }

    /// Checks b.x[0, kBlock). `first_index` numbers the inputs for the model's sampling
    /// (every kModelStride-th input when model_all is false).
    void check(buffers &b, uint64_t first_index, bool model_all) {
        const float s = c_.s;
        const float *x = b.x.data();
        const qgraph::engine eng(qgraph::engine::kind::cpu, 0);
        // The code under test runs on the whole block ...
        for (size_t k = 0; k < isas_.size(); ++k)
            jit::jit_divide(isas_[k], x, b.q[k].data(), kBlock, s);
        for (size_t r = 0; r < runners_.size(); ++r)
            runners_[r].cp.execute(b.strm,
                    {qgraph::tensor(runners_[r].src, eng, const_cast<float *>(x))},
                    {qgraph::tensor(runners_[r].dst, eng, b.api[r].data())});
        // ... and is checked in cache-sized chunks.
        constexpr int64_t chunk = 1 << 14;
        for (int64_t o = 0; o < kBlock; o += chunk)
            check_chunk(b, o, chunk, first_index, model_all);
    }

    bool has_api() const { return !runners_.empty(); }

    /// Every tally that must stay at zero, in a fixed order.
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
    std::vector<tally *> quotient_tallies() const {
        std::vector<tally *> v;
        for (auto &t : quot_) v.push_back(t.get());
        return v;
    }
    std::vector<tally *> model_tallies() const {
        std::vector<tally *> v;
        for (auto &t : model_) v.push_back(t.get());
        return v;
    }
    std::vector<tally *> api_tallies() const {
        std::vector<tally *> v;
        for (auto &t : api_) v.push_back(t.get());
        return v;
    }

private:
    void check_chunk(buffers &b, int64_t o, int64_t n, uint64_t first_index, bool model_all) {
        const float s = c_.s;
        const float *x = b.x.data();
        float *ref = b.ref.data();

        // a) quotients.
        divide_all(x + o, ref + o, n, s);
        // The first ISA level against x / s; the others must give the same bits as the first.
        for (size_t k = 0; k < 1; ++k) {
            const float *q = b.q[k].data();
            const quot_counts qc = count_quotients(x + o, ref + o, q + o, n, recip_);
            quot_[k]->checked += qc.required;
            add(*quot_[k], qc.bad, o, n, [&](int64_t i) {
                return exact_required(ubits(x[i]), ubits(ref[i]), recip_) &&
                        !same_bits(ubits(ref[i]), ubits(q[i]));
            }, [&](int64_t i) { return quotient_line(b, k, i); });
            add(*subq_[k], qc.sub_off, o, n, [&](int64_t i) {
                return subnormal_quotient(ubits(x[i]), ubits(ref[i]), recip_) &&
                        !same_bits(ubits(ref[i]), ubits(q[i]));
            }, [&](int64_t i) { return quotient_line(b, k, i); });
            add(*subq_far_[k], qc.sub_far, o, n, [&](int64_t i) {
                return subnormal_quotient(ubits(x[i]), ubits(ref[i]), recip_) &&
                        !adjacent(ubits(q[i]), ubits(ref[i]));
            }, [&](int64_t i) { return quotient_line(b, k, i); });
        }
        for (size_t k = 1; k < isas_.size(); ++k) {
            const float *q = b.q[k].data();
            {
                const float *q0 = b.q[0].data();
                add(*isa_agree_, count_different(q0 + o, q + o, n), o, n,
                        [&](int64_t i) { return !same_bits(ubits(q0[i]), ubits(q[i])); },
                        [&](int64_t i) {
                            return "x = " + fmt_float(x[i]) + ": " + isa_name(isas_[0]) + " " +
                                    fmt_float(q0[i]) + ", " + isa_name(isas_[k]) + " " +
                                    fmt_float(q[i]);
                        });
            }
        }

        // b) the scalar model. Where it is not evaluated, model[i] is a copy of the first
        // ISA's quotient, so those inputs compare equal.
        {
            float *m = b.model.data();
            const float *q0 = b.q[0].data();
            uint64_t evaluated = 0;
            if (model_all) {
                for (int64_t i = o; i < o + n; ++i) m[i] = jit::recip_divide(x[i], s, p_);
                evaluated = static_cast<uint64_t>(n);
            } else {
                std::copy(q0 + o, q0 + o + n, m + o);
                const uint64_t first = first_index + static_cast<uint64_t>(o);
                for (int64_t i = o + static_cast<int64_t>(
                                     (kModelStride - first % kModelStride) % kModelStride);
                        i < o + n; i += kModelStride, ++evaluated)
                    m[i] = jit::recip_divide(x[i], s, p_);
            }
            for (size_t k = 0; k < 1; ++k) { // the ISA levels agree (above)
                const float *q = b.q[k].data();
                model_[k]->checked += evaluated;
                add(*model_[k], count_different(m + o, q + o, n), o, n,
                        [&](int64_t i) { return !same_bits(ubits(m[i]), ubits(q[i])); },
                        [&](int64_t i) {
                            return "x = " + fmt_float(x[i]) + ": model " + fmt_float(m[i]) +
                                    ", jit " + fmt_float(q[i]);
                        });
            }
        }

        // c) quantized results, from the quotient and from the real Quantize op.
        quantize_values(x + o, s, b.want[0].data() + o, b.want[1].data() + o,
                b.want[2].data() + o, b.want[3].data() + o, n);
        for (int qi = 0; qi < kNQ; ++qi) {
            const q_case &qc = kQCases[qi];
            const int32_t *want = b.want[qi].data();
            for (size_t k = 0; k < 1; ++k) { // the ISA levels agree (above)
                const float *q = b.q[k].data();
                add(*quant_[k * kNQ + qi], count_quantized_quotients(q + o, qc, want + o, n),
                        o, n,
                        [&](int64_t i) {
                            return kernel_clamp_round(q[i], qc.zp, qc.range) != want[i];
                        },
                        [&](int64_t i) {
                            return "x = " + fmt_float(x[i]) + ": from jit quotient " +
                                    fmt_float(q[i]) + " " +
                                    std::to_string(kernel_clamp_round(q[i], qc.zp, qc.range)) +
                                    ", quantize_value " + std::to_string(want[i]);
                        });
            }
            for (size_t r = 0; r < runners_.size(); ++r) {
                if (runners_[r].qi != qi) continue;
                const bool s8 = qc.dt == qgraph::data_type::s8;
                const uint8_t *y = b.api[r].data();
                auto got = [&](int64_t i) {
                    return s8 ? static_cast<int32_t>(static_cast<int8_t>(y[i]))
                              : static_cast<int32_t>(y[i]);
                };
                api_[r]->checked += static_cast<uint64_t>(n);
                add(*api_[r], count_bytes(y + o, s8, want + o, n), o, n,
                        [&](int64_t i) { return got(i) != want[i]; },
                        [&](int64_t i) {
                            return "x = " + fmt_float(x[i]) + ": Quantize op " +
                                    std::to_string(got(i)) + ", quantize_value " +
                                    std::to_string(want[i]);
                        });
            }
        }
    }

    const scale_case &c_;
    const jit::recip_params p_;
    /// Only the reciprocal path has a restricted domain; the divide and multiply paths are
    /// exact for every x.
    const bool recip_ = p_.path == jit::div_path::recip;
    std::vector<cpu_isa_t> isas_;
    std::vector<std::unique_ptr<tally>> quot_, subq_, subq_far_, model_, quant_, api_;
    std::unique_ptr<tally> isa_agree_;
    std::vector<api_runner> runners_;

    std::string quotient_line(const buffers &b, size_t k, int64_t i) const {
        return "x = " + fmt_float(b.x[i]) + ": jit " + fmt_float(b.q[k][i]) + ", x / s = " +
                fmt_float(b.ref[i]);
    }

    /// Adds `count` mismatches to t; if there are any and t still wants examples, finds them
    /// in [o, o + n) with `bad(i)` and describes them with `line(i)`.
    template <typename Bad, typename Line>
    void add(tally &t, uint64_t count, int64_t o, int64_t n, const Bad &bad, const Line &line) {
        if (count == 0) return;
        const uint64_t before = t.count.fetch_add(count);
        if (before >= kMaxReported) return;
        std::vector<std::string> found;
        for (int64_t i = o; i < o + n && found.size() < kMaxReported; ++i)
            if (bad(i)) found.push_back(line(i));
        std::lock_guard<std::mutex> g(t.m);
        for (std::string &f : found)
            if (t.first.size() < kMaxReported) t.first.push_back(std::move(f));
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
                fill(blk, b->x.data());
                chk.check(*b, static_cast<uint64_t>(blk) * kBlock, model_all);
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

// Distinct suite names per binary, so that the two sets of ctest entries differ.
#if QGRAPH_DIV_EXHAUSTIVE
#define QG_DIV_SUITE DivisionExhaustive
#define QG_DIV_SETUP DivisionExhaustiveSetup
#else
#define QG_DIV_SUITE DivisionFast
#define QG_DIV_SETUP DivisionFastSetup
#endif

class QG_DIV_SUITE : public ::testing::TestWithParam<int> {};

TEST(QG_DIV_SETUP, ScalesAndPaths) {
    const std::vector<scale_case> sc = scales();
    ASSERT_GE(sc.size(), 16u);
    int recip = 0, div = 0;
    for (const scale_case &c : sc) {
        std::printf("%-62s %-16a %s\n", c.name.c_str(), static_cast<double>(c.s), path_of(c.s));
        const jit::recip_params p = jit::make_recip(c.s);
        recip += p.path == jit::div_path::recip;
        div += p.path == jit::div_path::divide;
        // The reciprocal path only inside its bounds; the divide path only outside them or
        // for scales whose reciprocal is not a float.
        const float a = std::fabs(c.s);
        const bool in_range = a >= 0x1p-30f && a <= 0x1p30f;
        if (p.path == jit::div_path::recip) {
            EXPECT_TRUE(in_range) << c.name;
        }
        if (p.path == jit::div_path::divide) {
            EXPECT_FALSE(in_range) << c.name;
        }
    }
    // Enough scales exercise the reciprocal path and the divide path.
    EXPECT_GE(recip, 8);
    EXPECT_GE(div, 5);
    ASSERT_FALSE(jit_isas().empty()) << "no avx2";
}

TEST_P(QG_DIV_SUITE, EveryInput) {
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
#ifndef QGRAPH_DIV_BLOCK_STRIDE // timing builds only: every stride-th block
#define QGRAPH_DIV_BLOCK_STRIDE 1
#endif
        constexpr int64_t stride = QGRAPH_DIV_BLOCK_STRIDE;
        const int64_t nblocks = (int64_t(1) << 32) / kBlock / stride;
        run_blocks(chk, nblocks, model_every_input(c), [](int64_t blk, float *x) {
            const uint32_t base = static_cast<uint32_t>(blk * stride * kBlock);
            for (int64_t i = 0; i < kBlock; ++i)
                x[i] = from_bits(base + static_cast<uint32_t>(i));
        });
    } else {
        // One block (2^20) of random bit patterns, then one block of special values.
        const int64_t nrandom = 1;
        const std::vector<float> sp = special_inputs(c.s);
        ASSERT_LE(static_cast<int64_t>(sp.size()), kBlock);
        run_blocks(chk, nrandom + 1, true, [&](int64_t blk, float *x) {
            if (blk == nrandom) { // the specials, repeated to fill the block
                for (int64_t i = 0; i < kBlock; ++i)
                    x[i] = sp[static_cast<size_t>(i) % sp.size()];
                return;
            }
            std::mt19937 rng(static_cast<uint32_t>(12345 + blk));
            for (int64_t i = 0; i < kBlock; ++i) x[i] = from_bits(rng());
        });
    }
    const double secs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    expect_clean(chk, c, secs);
    // Something was checked.
    for (tally *t : chk.quotient_tallies()) EXPECT_GT(t->checked.load(), 0u) << t->name;
    for (tally *t : chk.model_tallies()) EXPECT_GT(t->checked.load(), 0u) << t->name;
    for (tally *t : chk.api_tallies()) EXPECT_GT(t->checked.load(), 0u) << t->name;
    if (!api)
        GTEST_SKIP() << "the \"jit\" backend is not registered (get_backend_names()): the "
                        "public-API Quantize part of check (c) did not run; the quotient, "
                        "model and quantized-from-quotient checks did and passed";
}

INSTANTIATE_TEST_SUITE_P(Scales, QG_DIV_SUITE,
        ::testing::Range(0, static_cast<int>(scales().size())),
        [](const ::testing::TestParamInfo<int> &i) { return "s" + std::to_string(i.param); });

} // namespace
