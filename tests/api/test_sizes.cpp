// Sizes: every 1-D length 0..130 (vector bodies, tails and the scalar path of any kernel),
// 0-D tensors, and empty tensors (a zero dim: null handles work, outputs untouched,
// DynamicQuantizeLinear gives scale 1 / zp 0). Default backend and ref, bit-identical, and
// the oracle.

#include <gtest/gtest.h>

#include "api/op_cases.hpp"

namespace {

using namespace qtest;

const family all_families[] = {family::quantize, family::dequantize, family::dyn_quantize,
        family::dyn_dequantize, family::quantize_linear, family::dequantize_linear,
        family::dyn_quantize_linear};

TEST(Sizes, OneDimensionalZeroTo130) {
    for (family f : all_families)
        for (int64_t n = 0; n <= 130; ++n) {
            case_spec c;
            c.fam = f;
            c.shape = {n};
            c.seed = static_cast<uint32_t>(1000 + n);
            c.qdt = n % 2 ? dt::s8 : dt::u8;
            c.zp_dt = n % 3 == 0 ? dt::s32 : c.qdt;
            c.specials = f != family::dyn_quantize_linear;
            run_and_check(c);
            if (HasFatalFailure()) return;
        }
}

TEST(Sizes, OneDimensionalPowerOfTwoScales) {
    // Every length 0..130 again with parameters a reorder backend takes exactly.
    for (family f : {family::quantize, family::dequantize, family::dyn_quantize,
                 family::dyn_dequantize, family::quantize_linear, family::dequantize_linear})
        for (int64_t n = 0; n <= 130; ++n) {
            case_spec c;
            c.fam = f;
            c.shape = {n};
            c.seed = static_cast<uint32_t>(3000 + n);
            c.pow2_scales = true;
            c.qdt = is_quantize(f) ? dt::u8 : (n % 2 ? dt::s8 : dt::u8);
            c.zp_dt = c.qdt;
            c.with_zp = !is_quantize(f);
            run_and_check(c);
            if (HasFatalFailure()) return;
        }
}

TEST(Sizes, OneDimensionalPerChannelAndStrided) {
    // Per-axis over the only dim (one scale per element), and a stride-3 src / stride-2 dst.
    for (family f : {family::quantize, family::dequantize, family::dyn_quantize,
                 family::dyn_dequantize, family::quantize_linear, family::dequantize_linear})
        for (int64_t n : {1, 2, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129}) {
            case_spec c;
            c.fam = f;
            c.shape = {n};
            c.per_channel = true;
            c.axis = n % 2 ? 0 : -1;
            c.seed = static_cast<uint32_t>(n);
            run_and_check(c);
            case_spec s = c;
            s.per_channel = false;
            s.src_strides = {3};
            s.dst_strides = {2};
            run_and_check(s);
            if (HasFatalFailure()) return;
        }
}

TEST(Sizes, LargeTensorsRunThreaded) {
    // 2x64x28x28 (100352 elements): big enough for a backend to split the work across
    // threads; dense and channels-last, per-tensor and per-channel along axis 1.
    const dims d {2, 64, 28, 28};
    const dims nhwc {64 * 28 * 28, 1, 28 * 64, 64};
    uint32_t seed = 4000;
    for (family f : all_families)
        for (const dims &st : {dims {}, nhwc})
            for (bool pc : {false, true}) {
                if (pc && f == family::dyn_quantize_linear) continue;
                case_spec c;
                c.fam = f;
                c.shape = d;
                c.per_channel = pc;
                c.axis = 1;
                c.src_strides = st;
                c.dst_strides = st;
                c.pow2_scales = seed % 2 == 0;
                c.with_zp = !is_quantize(f) || seed % 4 == 1;
                c.seed = ++seed;
                c.specials = f != family::dyn_quantize_linear;
                run_and_check(c);
            }
}

TEST(Sizes, ZeroDimensional) {
    for (family f : all_families)
        for (uint32_t seed = 1; seed <= 20; ++seed) {
            case_spec c;
            c.fam = f;
            c.shape = {};
            c.seed = seed;
            c.qdt = seed % 2 ? dt::u8 : dt::s8;
            c.zp_dt = seed % 3 == 0 ? dt::s32 : c.qdt;
            run_and_check(c);
        }
}

TEST(Sizes, EmptyTensorsWithNullHandles) {
    // A 2x0x3 tensor: no element, 0 bytes. Null handles for x and y are accepted; a non-null
    // y buffer is left untouched. Scale / zero-point tensors still hold their values.
    for (family f : all_families) {
        for (bool pc : {false, true}) {
            if (pc && f == family::dyn_quantize_linear) continue;
            case_spec c;
            c.fam = f;
            c.shape = {2, 0, 3};
            c.per_channel = pc;
            c.axis = 0;
            built_case b = build(c);
            SCOPED_TRACE(c.describe());
            for (const char *backend : {"", "ref"}) {
                backend_guard g(backend);
                qgraph::partition p = single_partition(b.o);
                qgraph::compiled_partition cp
                        = p.compile(descs(b.inputs), descs(b.outputs), cpu());
                std::vector<qgraph::tensor> in = tensors(b.inputs);
                std::vector<qgraph::tensor> out = tensors(b.outputs);
                EXPECT_EQ(in[0].get_data_handle(), nullptr);
                EXPECT_EQ(out[0].get_data_handle(), nullptr);
                qgraph::stream s(cpu());
                EXPECT_NO_THROW(cp.execute(s, in, out));
                // A non-null y: nothing written.
                unsigned char sentinel[16];
                std::memset(sentinel, 0x3C, sizeof(sentinel));
                out[0].set_data_handle(sentinel);
                EXPECT_NO_THROW(cp.execute(s, in, out));
                for (unsigned char v : sentinel) EXPECT_EQ(v, 0x3C);
                if (f == family::dyn_quantize_linear) {
                    // Empty input: y_scale 1, y_zero_point 0.
                    EXPECT_EQ(bits_of(b.outputs[1].read<float>()[0]), bits_of(1.f));
                    EXPECT_EQ(b.outputs[2].read<uint8_t>()[0], 0);
                }
            }
        }
    }
}

TEST(Sizes, EmptyDynamicQuantizeLinearOverwritesOldParams) {
    const op o(0, op::kind::DynamicQuantizeLinear, {dense(1, dt::f32, {0})},
            {dense(2, dt::u8, {0}), dense(3, dt::f32, {}), dense(4, dt::u8, {})}, "dyql");
    for (const char *backend : {"", "ref"}) {
        buffer scale = make_buffer(dense(3, dt::f32, {}), std::vector<float> {42.f});
        buffer zp = make_buffer(dense(4, dt::u8, {}), std::vector<uint8_t> {42});
        run_result r = run_op_on(backend, o, {buffer(dense(1, dt::f32, {0}))},
                {buffer(dense(2, dt::u8, {0})), scale, zp});
        EXPECT_EQ(bits_of(r.outputs[1].read<float>()[0]), bits_of(1.f)) << backend;
        EXPECT_EQ(r.outputs[2].read<uint8_t>()[0], 0) << backend;
    }
}

TEST(Sizes, EmptyScaleTensorNeedsAHandle) {
    // Only empty tensors may have a null handle: the 0-D scale of an empty x still needs one.
    const op o(0, op::kind::QuantizeLinear,
            {dense(1, dt::f32, {0}), dense(2, dt::f32, {}), dense(3, dt::u8, {})},
            {dense(4, dt::u8, {0})}, "ql");
    qgraph::compiled_partition cp = single_partition(o).compile(
            o.get_input_logical_tensors(), o.get_output_logical_tensors(), cpu());
    qgraph::stream s(cpu());
    uint8_t zp = 0;
    EXPECT_QG_ERROR(cp.execute(s,
                            {qgraph::tensor(dense(1, dt::f32, {0}), cpu(), nullptr),
                                    qgraph::tensor(dense(2, dt::f32, {}), cpu(), nullptr),
                                    qgraph::tensor(dense(3, dt::u8, {}), cpu(), &zp)},
                            {qgraph::tensor(dense(4, dt::u8, {0}), cpu(), nullptr)}),
            status::invalid_arguments, "input 1 (id 2) has a null data handle");
}

} // namespace
