// Code generation at every ISA level the kernels have, whatever this CPU runs: the tests
// that run the kernels skip the levels the CPU lacks (avx512_core on an AVX2-only machine),
// and an instruction the level cannot encode (an AVX2-only form with zmm registers) throws
// while generating, which the backend turns into a rejection to ref. So each quantize
// configuration added for a new type is generated here at both levels; nothing runs.

#include <gtest/gtest.h>

#include <string>

#include "backends/jit/jit_dequantize.hpp"
#include "backends/jit/jit_dequantize_grouped.hpp"
#include "backends/jit/jit_division.hpp"
#include "backends/jit/jit_quantize.hpp"

namespace {

using namespace qgraph::impl;
using namespace qgraph::impl::jit;
using qgraph::data_type;

TEST(JitGenerate, QuantizeWithARoundedQuotientAtEveryLevel) {
    for (cpu_isa_t isa : {avx2, avx512_core})
        for (data_type div : {data_type::f16, data_type::bf16})
            for (data_type src : {div, data_type::f32})
                for (data_type dst : {data_type::u8, data_type::s8, data_type::u16, data_type::s16})
                    for (bool zp : {false, true}) {
                        quantize_conf c;
                        c.isa = isa;
                        c.src_dt = src;
                        c.round_dt = src == data_type::f32 ? div : data_type::undef;
                        c.dst_dt = dst;
                        c.has_zp = zp;
                        c.quotient_dt = div;
                        SCOPED_TRACE(std::string(isa_name(isa)) + " " + qgraph::to_string(src)
                                + " / " + qgraph::to_string(div) + " -> "
                                + qgraph::to_string(dst) + (zp ? " zp" : ""));
                        EXPECT_NO_THROW(jit_quantize_kernel k(c));
                    }
}

TEST(JitGenerate, Float8QuantizeWithTheGuardedPathAtEveryLevel) {
    // float8 rows of the guarded path (jit_division.hpp): its guard and bounded reciprocal
    // in the four-vector groups and the single vectors, beside the word encode's constants,
    // for every source the groups take (bf16 unpacked on avx2 leaves no room: such rows
    // divide) and the streaming kernels' encode.
    for (cpu_isa_t isa : {avx2, avx512_core})
        for (data_type dst : {data_type::f8_e4m3, data_type::f8_e5m2, data_type::f8_e4m3fnuz,
                     data_type::f8_e5m2fnuz})
            for (data_type src : {data_type::f32, data_type::bf16, data_type::f16})
                for (bool saturate : {false, true})
                    for (bool stream : {false, true}) {
                        quantize_conf c;
                        c.isa = isa;
                        c.src_dt = src;
                        c.dst_dt = dst;
                        c.saturate = saturate;
                        c.stream = stream;
                        SCOPED_TRACE(std::string(isa_name(isa)) + " " + qgraph::to_string(src)
                                + " -> " + qgraph::to_string(dst) + (saturate ? " sat" : "")
                                + (stream ? " stream" : ""));
                        EXPECT_NO_THROW(jit_quantize_kernel k(c));
                    }
}

TEST(JitGenerate, FourBitBlockedRowsOfUpTo512AtEveryLevel) {
    // The blocked rows are straight-line code per row: the longest the driver allows
    // (jit_quantize_driver.cpp's max_nibble_row(); on avx2 max_unpacked_nibble_row for rows
    // that are not whole pairs of vectors) must fit the code buffer at each level, whole
    // vectors and with a tail (avx512 masked, avx2 through the stack).
    // The proven rows (quantize_conf::proven: per tensor, 16-bit x) too.
    for (cpu_isa_t isa : {avx2, avx512_core})
        for (data_type dst : {data_type::s4, data_type::u4})
            for (bool zp : {false, true})
                for (int64_t block : {int64_t(512), isa == avx2 ? int64_t(254) : int64_t(510)})
                    for (bool proven : {false, true}) {
                        quantize_conf c;
                        c.isa = isa;
                        c.src_dt = proven ? data_type::f16 : data_type::f32;
                        c.dst_dt = dst;
                        c.block = block;
                        c.has_zp = zp;
                        c.raw_zp_dt = zp ? dst : data_type::s32;
                        c.proven = proven;
                        SCOPED_TRACE(std::string(isa_name(isa)) + " " + qgraph::to_string(dst)
                                + (zp ? " zp " : " ") + std::to_string(block)
                                + (proven ? " proven" : ""));
                        EXPECT_NO_THROW(jit_quantize_kernel k(c));
                    }
}

TEST(JitGenerate, FourBitLaneTablesAtEveryLevel) {
    // s4 / u4 with runtime scales along the contiguous dim: the lane-table code on the
    // checked path (jit_quantize_driver.cpp's nibble_lanes()), with zero points of the
    // destination's type (clamped in integers after the add) or none, from each source.
    // The driver runs the avx2 code at every level for now; the avx512 code must generate.
    for (cpu_isa_t isa : {avx2, avx512_core})
        for (data_type dst : {data_type::s4, data_type::u4})
            for (data_type src : {data_type::f32, data_type::bf16, data_type::f16})
                for (bool zp : {false, true}) {
                    quantize_conf c;
                    c.isa = isa;
                    c.src_dt = src;
                    c.dst_dt = dst;
                    c.lanes = lane_source::table;
                    c.lane_path = static_cast<int32_t>(div_path::checked);
                    c.has_zp = zp;
                    c.raw_zp_dt = zp ? dst : data_type::s32;
                    if (zp) {
                        c.lane_zp_min = dst == data_type::s4 ? -8 : 0;
                        c.lane_zp_max = dst == data_type::s4 ? 7 : 15;
                    }
                    SCOPED_TRACE(std::string(isa_name(isa)) + " " + qgraph::to_string(src)
                            + " -> " + qgraph::to_string(dst) + (zp ? " zp" : ""));
                    EXPECT_NO_THROW(jit_quantize_kernel k(c));
                }
}

TEST(JitGenerate, Float4BlockedRowsOfUpTo128AtEveryLevel) {
    // f4_e2m1 rows are emitted twice (multiply and divide) and encode (about twice the code
    // a vector): the driver caps them at 128 (max_nibble_row()), which must fit the code
    // buffer at each level, with 16-bit sources and a tail.
    for (cpu_isa_t isa : {avx2, avx512_core})
        for (data_type src : {data_type::f32, data_type::bf16, data_type::f16})
            for (int64_t block : {128, 122}) {
                quantize_conf c;
                c.isa = isa;
                c.src_dt = src;
                c.dst_dt = data_type::f4_e2m1;
                c.recip = false;
                c.block = block;
                SCOPED_TRACE(std::string(isa_name(isa)) + " " + qgraph::to_string(src) + " "
                        + std::to_string(block));
                EXPECT_NO_THROW(jit_quantize_kernel k(c));
            }
}

TEST(JitGenerate, Float8BlockedRowsOfHalfSourcesAtEveryLevel) {
    // MXFP8 activations: bf16 / f16 x in blocks into e4m3 / e5m2, whose rows with a power of
    // two 1/s encode by words (float8_emitter::encode_scaled_half()) before the multiply
    // path, 32 at a time.
    for (cpu_isa_t isa : {avx2, avx512_core})
        for (data_type src : {data_type::bf16, data_type::f16})
            for (data_type dst : {data_type::f8_e4m3, data_type::f8_e5m2})
                for (int64_t block : {32, 64, 96})
                    for (bool saturate : {false, true}) {
                        quantize_conf c;
                        c.isa = isa;
                        c.src_dt = src;
                        c.dst_dt = dst;
                        c.saturate = saturate;
                        c.block = block;
                        SCOPED_TRACE(std::string(isa_name(isa)) + " " + qgraph::to_string(src)
                                + " -> " + qgraph::to_string(dst) + " "
                                + std::to_string(block) + (saturate ? " sat" : ""));
                        EXPECT_NO_THROW(jit_quantize_kernel k(c));
                    }
}

TEST(JitGenerate, GroupedDequantizeLanesAtEveryLevel) {
    // 4-bit x with a scale and zero point per element (group 1): the vector loads of every
    // scale and zero-point type, sign-extended s4 nibbles (the avx512 forms take the constant
    // registers above xmm15) and the masked tails.
    for (cpu_isa_t isa : {avx2, avx512_core})
        for (data_type x : {data_type::s4, data_type::u4})
            for (data_type y : {data_type::f32, data_type::bf16, data_type::f16})
                for (data_type s : {data_type::f32, data_type::bf16, data_type::f16})
                    for (data_type z : {data_type::undef, data_type::s4, data_type::u4,
                                 data_type::s8, data_type::u8, data_type::s32}) {
                        grouped_conf c;
                        c.isa = isa;
                        c.src_dt = x;
                        c.dst_dt = y;
                        c.scale_dt = s;
                        c.zp_dt = z;
                        c.group = 1;
                        SCOPED_TRACE(std::string(isa_name(isa)) + " " + qgraph::to_string(x)
                                + " -> " + qgraph::to_string(y) + " scales "
                                + qgraph::to_string(s) + " zp " + qgraph::to_string(z));
                        EXPECT_NO_THROW(jit_grouped_dequantize_kernel k(c));
                    }
}

TEST(JitGenerate, GroupedDequantizeOfFloatTypesAtEveryLevel) {
    // f4_e2m1 x (the table path, the arithmetic path's vpermps decode, lanes) and float8 x
    // (float8_emitter::decode in the arithmetic path, its k-mask forms on avx512): whole
    // groups of one and several vectors, a group of a partial vector, per tensor (0), lanes
    // (1), with and without the bf16 instruction.
    for (cpu_isa_t isa : {avx2, avx512_core})
        for (data_type x : {data_type::f4_e2m1, data_type::f8_e4m3, data_type::f8_e5m2,
                     data_type::f8_e4m3fnuz, data_type::f8_e5m2fnuz})
            for (data_type y : {data_type::f32, data_type::bf16, data_type::f16})
                for (int64_t group : {0, 1, 6, 16, 32, 128}) {
                    if (group == 1 && x != data_type::f4_e2m1) continue; // 4-bit lanes only
                    for (bool insn : {false, true}) {
                        if (insn && (isa != avx512_core || y != data_type::bf16)) continue;
                        grouped_conf c;
                        c.isa = isa;
                        c.src_dt = x;
                        c.dst_dt = y;
                        c.scale_dt = data_type::f32;
                        c.group = group;
                        c.bf16_insn = insn;
                        SCOPED_TRACE(std::string(isa_name(isa)) + " " + qgraph::to_string(x)
                                + " -> " + qgraph::to_string(y) + " group "
                                + std::to_string(group) + (insn ? " insn" : ""));
                        EXPECT_NO_THROW(jit_grouped_dequantize_kernel k(c));
                    }
                }
}

TEST(JitGenerate, Float8BytePlanesOfVbmiCodeOnAnyCpu) {
    // The AVX512_VBMI code (byte planes, vpermt2b gathers, byte-table lookups) of float8
    // quantize and dequantize, generated whether or not this CPU has AVX-512: its constants
    // and registers are set up in C++ that the sanitizer builds check on every CI machine,
    // not only on those that run the code (a negative shift in the planes' constants for f16
    // into e5m2 was caught only where VBMI ran). Rows, blocks of 32 (the planes' pairs) and
    // 64, streaming rows; every 16-bit source and f32.
    for (data_type dst : {data_type::f8_e4m3, data_type::f8_e5m2})
        for (data_type src : {data_type::f32, data_type::bf16, data_type::f16})
            for (bool saturate : {false, true})
                for (int64_t block : {0, 32, 64})
                    for (bool stream : {false, true}) {
                        if (stream && block) continue;
                        quantize_conf c;
                        c.isa = avx512_core;
                        c.vbmi = true;
                        c.src_dt = src;
                        c.dst_dt = dst;
                        c.saturate = saturate;
                        c.block = block;
                        c.stream = stream;
                        SCOPED_TRACE(std::string(qgraph::to_string(src)) + " -> "
                                + qgraph::to_string(dst) + " block " + std::to_string(block)
                                + (saturate ? " sat" : "") + (stream ? " stream" : ""));
                        EXPECT_NO_THROW(jit_quantize_kernel k(c));
                    }
    for (data_type x : {data_type::f8_e4m3, data_type::f8_e5m2, data_type::f8_e4m3fnuz,
                 data_type::f8_e5m2fnuz})
        for (data_type y : {data_type::f32, data_type::bf16, data_type::f16}) {
            dequantize_conf d;
            d.isa = avx512_core;
            d.vbmi = true;
            d.src_dt = x;
            d.dst_dt = y;
            SCOPED_TRACE(std::string(qgraph::to_string(x)) + " -> " + qgraph::to_string(y));
            EXPECT_NO_THROW(jit_dequantize_kernel k(d));
            for (int64_t group : {0, 32, 128}) {
                grouped_conf g;
                g.isa = avx512_core;
                g.vbmi = true;
                g.src_dt = x;
                g.dst_dt = y;
                g.scale_dt = data_type::f32;
                g.group = group;
                SCOPED_TRACE("grouped, group " + std::to_string(group));
                EXPECT_NO_THROW(jit_grouped_dequantize_kernel k(g));
            }
        }
}

} // namespace
