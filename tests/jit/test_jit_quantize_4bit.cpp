// QuantizeLinear to s4 / u4 / f4_e2m1 on the JIT quantize kernel: blocked rows (ONNX
// block_size along the last axis, the LLM weight case; MXFP4) and short per-channel rows with
// runtime f32 scales, two elements a byte. Through the public API with the jit backend forced, against ref bit
// for bit (padding and the guard zones around the destination included), at every ISA level
// and 1 and 2 threads; what the code does not take stays on ref with a reason.

#include <gtest/gtest.h>

#include <cassert>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "api/helpers.hpp"
#include "api/isa_threads.hpp"

namespace {

using namespace qtest;

struct case_4bit {
    dims x;
    int64_t axis;
    int64_t block; ///< 0: per channel along axis
    dt y;
    dims dst_strides; ///< empty: dense
    bool zp = false; ///< a zero-point tensor of type y
    bool per_tensor = false; ///< one scale (and zero point) for all of x; axis, block unused
    dt x_dt = dt::f32;
};

std::string show(const case_4bit &c) {
    std::string s;
    for (int64_t v : c.x) s += (s.empty() ? "" : "x") + std::to_string(v);
    return s + " axis " + std::to_string(c.axis) + " block " + std::to_string(c.block)
            + (c.y == dt::u4 ? " u4" : c.y == dt::s4 ? " s4" : " f4_e2m1")
            + (c.x_dt == dt::f32 ? "" : " from 16 bits") + (c.dst_strides.empty() ? "" : " strided")
            + (c.zp ? " zp" : "") + (c.per_tensor ? " per tensor" : "");
}

/// The scale tensor's shape: x's, with ceil(D / block) along the axis (per channel: D
/// along the axis, 1-D).
dims param_dims(const case_4bit &c) {
    const size_t axis = static_cast<size_t>(c.axis);
    if (c.per_tensor) return {1};
    if (c.block == 0) return {c.x[axis]};
    dims d = c.x;
    d[axis] = (d[axis] + c.block - 1) / c.block;
    return d;
}

op quantize_op(const case_4bit &c) {
    std::vector<lt> in {dense(0, c.x_dt, c.x), dense(1, dt::f32, param_dims(c))};
    if (c.zp) in.push_back(dense(2, c.y, param_dims(c)));
    const lt out = c.dst_strides.empty() ? dense(3, c.y, c.x) : strided(3, c.y, c.x, c.dst_strides);
    op o(0, op::kind::QuantizeLinear, in, {out}, "q4");
    o.set_attr<int64_t>("axis", c.axis);
    if (c.block > 0) o.set_attr<int64_t>("block_size", c.block);
    return o;
}

/// The parameter index of element i (row-major in x) of a blocked case (blocks on the last
/// axis, or on the first of two), or of a per-channel one.
int64_t param_of(const case_4bit &c, int64_t i) {
    if (c.per_tensor) return 0;
    if (c.block == 0) return channel_of(c.x, static_cast<int>(c.axis), i);
    const int64_t d = c.x.back();
    if (c.axis == 0 && c.x.size() == 2) return i / d / c.block * d + i % d; // [rows / block, d]
    assert(c.axis + 1 == static_cast<int64_t>(c.x.size()));
    return i / d * ((d + c.block - 1) / c.block) + i % d / c.block;
}

/// The quotients aimed at: the half-integers -10.5 .. 10.5 (the ties of the integer types'
/// range and beyond it on both sides); for f4_e2m1 its values, the ties between them and
/// values beyond 6, of both signs.
float target(const case_4bit &c, size_t i) {
    if (c.y != dt::f4_e2m1) return static_cast<float>(static_cast<int>(i % 23) - 11) + 0.5f;
    const float v[] = {0.f, 0.25f, 0.5f, 0.75f, 1.f, 1.25f, 1.5f, 1.75f, 2.f, 2.5f, 3.f, 3.5f,
            4.f, 5.f, 6.f, 6.5f, 7.f, 100.f};
    const size_t n = sizeof(v) / sizeof(v[0]);
    return i / n % 2 ? -v[i % n] : v[i % n];
}

/// Values whose quotient is exactly on, and one f32 step either side of, target() for the
/// element's scale (exactly where the scale is a power of two), besides NaN of both signs,
/// +-Inf, +-0, huge and subnormal values; scales cycle over `scales`, zero points over the
/// type's limits, their neighbours and a middle value (f4_e2m1: +0), packed two a byte.
/// s4 / u4: every third run of 16 elements (every position of a group of 64 in turn) holds
/// quotients a quarter below target() instead, beyond the range on both sides, none of
/// which a check flags: elsewhere every vector has a lane the check sends to its redo,
/// whose clamp and division would hide a result the fast path leaves unclamped.
std::vector<buffer> inputs(const case_4bit &c, const std::vector<float> &scales) {
    const op o = quantize_op(c);
    const auto &lts = o.get_input_logical_tensors();
    std::vector<float> s(static_cast<size_t>(nelems(param_dims(c))));
    for (size_t b = 0; b < s.size(); ++b) s[b] = scales[b % scales.size()];
    std::vector<float> x(static_cast<size_t>(nelems(c.x)));
    const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.f, -0.f, 3e38f, -3e38f, 1e-40f};
    for (size_t i = 0; i < x.size(); ++i) {
        const float sb = s[static_cast<size_t>(param_of(c, static_cast<int64_t>(i)))];
        const float tie = target(c, i / 4) * sb;
        if (c.y != dt::f4_e2m1 && i / 16 % 3 == 1) {
            x[i] = (target(c, i) - 0.25f) * sb;
            continue;
        }
        switch (i % 4) {
            case 0: x[i] = tie; break;
            case 1: x[i] = std::nextafter(tie, INFINITY); break;
            case 2: x[i] = std::nextafter(tie, -INFINITY); break;
            default: x[i] = special[i / 4 % 9]; break;
        }
    }
    // 16-bit sources: every code in turn.
    std::vector<uint16_t> codes(x.size());
    for (size_t i = 0; i < x.size(); ++i) codes[i] = static_cast<uint16_t>(i);
    std::vector<buffer> b {c.x_dt == dt::f32 ? make_buffer(lts[0], x) : make_buffer(lts[0], codes),
            make_buffer(lts[1], s)};
    if (c.zp) {
        // Zero points in turn, at and near the limits (f4_e2m1 has only +0).
        static const int u4[] = {0, 15, 8, 1, 14}, s4[] = {-8, 7, 0, -7, 6}, f4[5] = {};
        const int *zps = c.y == dt::f4_e2m1 ? f4 : c.y == dt::u4 ? u4 : s4;
        buffer z(lts[2]);
        unsigned char *bytes = static_cast<unsigned char *>(z.data());
        for (size_t i = 0; i < s.size(); ++i) {
            const int z = zps[i % 5];
            const unsigned nib = static_cast<unsigned>(z) & 0xf;
            bytes[i / 2] = static_cast<unsigned char>(
                    i % 2 ? (bytes[i / 2] & 0x0f) | nib << 4 : nib);
        }
        b.push_back(z);
    }
    return b;
}

void expect_jit_matches_ref(const case_4bit &c, const std::vector<float> &scales) {
    SCOPED_TRACE(show(c));
    qtest::expect_jit_matches_ref(quantize_op(c), inputs(c, scales));
}

TEST(JitQuantize4bit, BlockedRowsMatchRefAtTiesAndEdgeScales) {
    // Scales on the checked path (inexact reciprocals), with exact reciprocals, negative,
    // 0, subnormal, with a subnormal reciprocal (above 2^126), huge, +-Inf and NaN.
    const std::vector<float> scales {0.023f, 0.1f, 3.7f, -0.3f, 0.5f, 1.f, 0x1p-30f, 0.f,
            1e-40f, 1e30f, INFINITY, -INFINITY, NAN, 3e38f, -1.3e38f};
    std::vector<case_4bit> cases;
    // avx512: groups of 64, half groups of 32, single vectors and masked tails; avx2 tails
    // (fewer than 8) through the stack.
    for (int64_t block : {16, 32, 64, 96, 128, 48, 8, 24, 40, 2, 6, 18, 34, 256, 512})
        for (dt y : {dt::u4, dt::s4})
            for (bool zp : {false, true})
                cases.push_back({{3, 5 * block}, 1, block, y, {}, zp});
    // Rows split between two threads: their ranges are whole rows and whole 64-byte lines.
    cases.push_back({{257, 1040}, 1, 40, dt::u4, {}, true});
    cases.push_back({{2, 33, 96}, 2, 32, dt::s4, {}, true});
    // 148 rows: whole chunks of the code's parameter tables (vlen rows), the scales loaded
    // as vectors, the zero points nibble by nibble, then a partial chunk.
    cases.push_back({{37, 128}, 1, 32, dt::s4, {}, true});
    cases.push_back({{37, 64}, 1, 16, dt::u4, {}, false});
    // An odd number of zero points (the last byte's high nibble unused).
    cases.push_back({{3, 96}, 1, 32, dt::s4, {}, true});
    // Per channel on the outer axis of short rows: the same blocked code; then with padding
    // between the destination's rows, which keeps its bytes.
    cases.push_back({{24, 64}, 0, 0, dt::u4, {}, true});
    cases.push_back({{24, 64}, 0, 0, dt::s4, {80, 1}});
    at_every_isa_and_thread_count([&] {
        for (const case_4bit &c : cases) {
            expect_jit_matches_ref(c, scales);
        }
    });
}

TEST(JitQuantize4bit, LongRowsInSubRowsMatchRef) {
    // Rows longer than 512 and per-tensor problems: the blocked code over sub-rows of at
    // most 512 that divide the run, whole pairs of vectors first, then whole vectors, then
    // even ones (448 of 3136, 400 of 8000; 200 of 1000 on avx2, 500 on avx512; 250 of 750
    // with a tail), each with the run's scale and zero point; ranges of two threads
    // that end inside rows; padded rows; blocks of 2048 along the last axis.
    const std::vector<float> scales {0.023f, 0.1f, 3.7f, -0.3f, 0.5f, 0x1p-30f, 0.f, 1e-40f,
            1e30f, INFINITY, NAN};
    std::vector<case_4bit> cases;
    for (dt y : {dt::u4, dt::s4})
        for (bool zp : {false, true}) {
            cases.push_back({{16, 3136}, 0, 0, y, {}, zp});
            cases.push_back({{8, 1000}, 0, 0, y, {}, zp, true});
            cases.push_back({{3, 5, 1000}, 1, 0, y, {}, zp});
            cases.push_back({{7, 1000}, 0, 0, y, {1004, 1}, zp});
            cases.push_back({{2, 4096}, 1, 2048, y, {}, zp});
        }
    cases.push_back({{3, 100000}, 0, 0, dt::u4, {}, true});
    cases.push_back({{4, 750}, 0, 0, dt::s4, {}, true});
    cases.push_back({{4, 1000}, 0, 0, dt::u4, {}, false, true, dt::bf16});
    cases.push_back({{300000}, 0, 0, dt::s4, {}, true, true});
    at_every_isa_and_thread_count([&] {
        for (const case_4bit &c : cases) expect_jit_matches_ref(c, scales);
    });
}

// f16 / bf16 x per tensor: the driver proves the multiply for every value of x's type at
// execute and runs every row on the proven path where it holds (no check), on the checked
// path where not. Every 16-bit code as x, each scale on its own, with no zero point and with
// one at each limit of the type (and a middle one): the proven rows clamp q + zp to the type's
// range themselves. Scales whose proof fails are among them (the reciprocal misrounds some
// quotient), as are exact ones and the edge scales.
TEST(JitQuantize4bit, PerTensorHalfSourcesOnTheProvenPath) {
    std::vector<float> scales {0.023f, 0.1f, 3.7f, -0.3f, 0.5f, 1e-3f, 7.f, 0.f, NAN, INFINITY,
            1e-40f};
    for (int i = 0; i < 24; ++i) scales.push_back(std::ldexp(1.f + static_cast<float>(i) / 24.f
                                                          + 1e-3f * static_cast<float>(i),
                                                          i % 7 - 5));
    at_every_isa_and_thread_count([&] {
        for (dt xdt : {dt::f16, dt::bf16})
            for (dt y : {dt::s4, dt::u4})
                for (int z : {99, 0, 1, 2}) { // 99: no zero point; else the type's min, max, a middle
                    const case_4bit c {{8, 8192}, 0, 0, y, {}, z != 99, true, xdt};
                    const int zp = y == dt::s4 ? (z == 0 ? -8 : z == 1 ? 7 : 3)
                                               : (z == 0 ? 0 : z == 1 ? 15 : 8);
                    for (float s : scales) {
                        std::vector<buffer> in = inputs(c, {s});
                        if (c.zp)
                            *static_cast<unsigned char *>(in[2].data())
                                    = static_cast<unsigned char>(zp & 0xf);
                        SCOPED_TRACE(show(c) + " scale " + std::to_string(s) + " zp "
                                + std::to_string(c.zp ? zp : 0));
                        qtest::expect_jit_matches_ref(quantize_op(c), in);
                    }
                }
    });
}

// f4_e2m1 (MXFP4) takes the same code dividing: every quotient around each value and tie of
// the type (exactly on them for power-of-two scales), beyond 6, NaN, +-Inf, +-0; blocks of
// whole vectors, with an avx512 tail, per tensor over sub-rows (128 at most: the rows are
// emitted twice, multiply and divide), per channel on the outer axis, padded rows, two threads'
// ranges, every f16 and bf16 code as x, and a zero-point tensor of +0.
TEST(JitQuantize4bit, Float4MatchesRefAtEveryTie) {
    // Powers of two (multiplied by their exact reciprocal; 2^127's is subnormal) and others
    // (divided: inexact reciprocals, 0, +-Inf, NaN, subnormal, 2^-140 whose overflows).
    const std::vector<float> scales {1.f, 0.5f, -2.f, 0.023f, 3.7f, -0.3f, 0x1p-30f, 0.f,
            1e-40f, 1e30f, INFINITY, NAN, 0x1p-126f, 0x1p127f, 0x1p-140f, -INFINITY};
    const dt f4 = dt::f4_e2m1;
    std::vector<case_4bit> cases;
    for (int64_t block : {32, 16, 64, 8, 40, 128, 256, 2, 6})
        cases.push_back({{3, 5 * block}, 1, block, f4, {}});
    cases.push_back({{3, 96}, 1, 32, f4, {}, true});
    cases.push_back({{4, 3136}, 0, 0, f4, {}, false, true});
    cases.push_back({{300000}, 0, 0, f4, {}, true, true});
    cases.push_back({{24, 64}, 0, 0, f4, {}, true});
    cases.push_back({{24, 64}, 0, 0, f4, {80, 1}});
    cases.push_back({{257, 1040}, 1, 40, f4, {}, true});
    cases.push_back({{4, 16384}, 1, 32, f4, {}, false, false, dt::f16});
    cases.push_back({{4, 16384}, 1, 32, f4, {}, false, false, dt::bf16});
    at_every_isa_and_thread_count([&] {
        for (const case_4bit &c : cases) {
            expect_jit_matches_ref(c, scales);
        }
    });
}

// An f4_e2m1 zero-point tensor of -0 sends the execute to ref (the code adds +0, which would
// turn a -0 quotient into +0), whose -0 quotients stay -0; a nonzero one is reported.
TEST(JitQuantize4bit, Float4ZeroPointsOtherThanPlusZero) {
    const case_4bit c {{3, 96}, 1, 32, dt::f4_e2m1, {}, true};
    const op o = quantize_op(c);
    std::vector<buffer> in = inputs(c, {0.5f, -2.f, 0.023f});
    unsigned char *z = static_cast<unsigned char *>(in[2].data());
    std::memset(z, 0x88, 3 * 3 / 2 + 1); // -0 (code 8) everywhere
    at_every_isa_and_thread_count([&] { qtest::expect_jit_matches_ref(o, in); });
    z[1] = 0x28; // 1.0 (code 2) beside -0
    const std::vector<buffer> out {buffer(o.get_output_logical_tensors()[0])};
    try {
        run_op_on("jit", o, in, out);
        ADD_FAILURE() << "a nonzero f4_e2m1 zero point was accepted";
    } catch (const qgraph::error &e) {
        EXPECT_EQ(e.status(), qgraph::status::invalid_arguments);
        EXPECT_NE(std::string(e.what()).find("zero point"), std::string::npos) << e.what();
    }
}

// Scales along the contiguous dim: per channel on the last axis (MatMul weights [K, N] per
// output channel) and blocks along the rows (ONNX block_size on axis 0: [K, N] in blocks
// along K), into s4 / u4 on the lane code, its tables set up at execute. Runs of every
// length around the groups (avx512: 64, avx2: 16) and vectors, masked and stack tails,
// pieces of two threads that start inside rows, padded rows, 16-bit sources; scales whose
// reciprocal the tables cannot take (0, subnormal, huge, +-Inf, NaN) send the call to ref.
TEST(JitQuantize4bit, LanesMatchRefAtTiesAndEdgeScales) {
    const std::vector<float> in_range {0.023f, 0.1f, 3.7f, -0.3f, 0.5f, 1.f, 0x1p-30f, 1e-9f,
            1e9f, -0x1p30f, 0.0123f};
    const std::vector<float> edges {0.023f, 0.f, 1e-40f, 1e30f, INFINITY, -INFINITY, NAN};
    std::vector<case_4bit> cases;
    for (int64_t run : {2, 6, 8, 16, 18, 24, 32, 34, 40, 48, 64, 66, 96, 128, 130, 200})
        for (dt y : {dt::u4, dt::s4})
            for (bool zp : {false, true}) cases.push_back({{3, run}, 1, 0, y, {}, zp});
    for (dt y : {dt::u4, dt::s4})
        for (bool zp : {false, true}) {
            cases.push_back({{80, 48}, 0, 32, y, {}, zp}); // a partial last block of rows
            cases.push_back({{96, 40}, 0, 16, y, {}, zp});
            cases.push_back({{24, 64}, 1, 0, y, {80, 1}, zp});
        }
    cases.push_back({{257, 1040}, 1, 0, dt::u4, {}, true});
    cases.push_back({{130, 1040}, 0, 32, dt::s4, {}, true});
    cases.push_back({{4, 16384}, 1, 0, dt::s4, {}, true, false, dt::f16});
    cases.push_back({{4, 16384}, 1, 0, dt::u4, {}, false, false, dt::bf16});
    at_every_isa_and_thread_count([&] {
        for (const case_4bit &c : cases) {
            expect_jit_matches_ref(c, in_range);
            expect_jit_matches_ref(c, edges);
        }
    });
}

TEST(JitQuantize4bit, OtherProblemsStayOnRef) {
    const std::vector<float> scales {0.023f, 0.5f};
    at_every_isa_and_thread_count([&] {
        // Odd blocks: rows would start inside a byte.
        {
            const case_4bit c {{4, 66}, 1, 33, dt::u4, {}};
            expect_ref_with_reason(quantize_op(c), inputs(c, scales), "must start on a byte");
        }
        // An odd dst row stride.
        {
            const case_4bit c {{4, 64}, 0, 0, dt::s4, {65, 1}};
            expect_ref_with_reason(quantize_op(c), inputs(c, scales), "must start on a byte");
        }
        // Rows of more than 512 without a divisor of 64 to 512 (1042 = 2 x 521): the
        // blocked code has no row for them.
        {
            const case_4bit c {{4, 1042}, 0, 0, dt::s4, {}};
            expect_ref_with_reason(quantize_op(c), inputs(c, scales), "of at least 64");
        }
        // f4_e2m1 with scales along the contiguous dim (per channel on the last axis, blocks
        // along the rows): the lane code is s4 / u4 only.
        {
            const case_4bit c {{4, 64}, 1, 0, dt::f4_e2m1, {}};
            expect_ref_with_reason(quantize_op(c), inputs(c, scales), "s4 / u4 only");
        }
        {
            const case_4bit c {{64, 64}, 0, 32, dt::f4_e2m1, {}};
            expect_ref_with_reason(quantize_op(c), inputs(c, scales), "s4 / u4 only");
        }
        // Lanes with an odd run or an odd dst row stride.
        {
            const case_4bit c {{4, 65}, 1, 0, dt::s4, {}};
            expect_ref_with_reason(quantize_op(c), inputs(c, scales), "must start on a byte");
        }
        {
            const case_4bit c {{4, 64}, 1, 0, dt::u4, {65, 1}};
            expect_ref_with_reason(quantize_op(c), inputs(c, scales), "must start on a byte");
        }
    });
}

} // namespace
