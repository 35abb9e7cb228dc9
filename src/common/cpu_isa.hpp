#ifndef QGRAPH_COMMON_CPU_ISA_HPP
#define QGRAPH_COMMON_CPU_ISA_HPP

// The instruction-set levels JIT kernels are generated for, as nested bitmasks in the style of
// oneDNN's cpu_isa_t: each level includes every bit of the levels below it, so
// mayiuse(avx512_core) is true on any CPU that has avx512_core_bf16 or higher.
//
// A level is usable when the CPU has it (CPUID and the OS saving its registers) and it is not
// above the cap (QGRAPH_MAX_CPU_ISA / qgraph::set_max_cpu_isa). Of the levels above
// avx512_core only avx512_core_bf16 adds an instruction the kernels use (vcvtneps2bf16); VNNI,
// FP16 and AMX (tiles are for matrix products) add nothing, so those levels get the code of the
// level below them (kernel_isa_cap()); the table still knows them so the cap and verbose
// output can name them.

#include <string>
#include <vector>

namespace qgraph {
namespace impl {

enum cpu_isa_bit_t : unsigned {
    avx2_bit = 1u << 0, // AVX2 + FMA
    avx512_core_bit = 1u << 1, // AVX-512 F, BW, DQ, VL
    avx512_core_vnni_bit = 1u << 2,
    avx512_core_bf16_bit = 1u << 3,
    avx512_core_fp16_bit = 1u << 4,
    amx_bit = 1u << 5, // AMX tile, int8, bf16
};

enum cpu_isa_t : unsigned {
    isa_none = 0u, ///< no JIT kernel (scalar backends only)
    avx2 = avx2_bit,
    avx512_core = avx2 | avx512_core_bit,
    avx512_core_vnni = avx512_core | avx512_core_vnni_bit,
    avx512_core_bf16 = avx512_core_vnni | avx512_core_bf16_bit,
    avx512_core_fp16 = avx512_core_bf16 | avx512_core_fp16_bit,
    avx512_core_amx = avx512_core_fp16 | amx_bit,
    isa_all = ~0u, ///< no cap
};

/// True if the CPU has every bit of `isa` and `isa` is not above `cap`. A compile passes the
/// cap it read once (its settings snapshot), never the global one read again: a cap changed
/// by another thread mid-compile must not change the kernel under the key it was cached for.
bool mayiuse(cpu_isa_t isa, cpu_isa_t cap);

/// The highest level of the table that mayiuse(level, cap) allows (isa_none if not even avx2).
cpu_isa_t effective_cpu_isa(cpu_isa_t cap);

/// The cap JIT kernels read: the highest level whose additions the kernels use (the table's
/// kernel levels: avx2, avx512_core, avx512_core_bf16) that mayiuse(level, cap) allows. The
/// other levels thus generate exactly the code of the kernel level below them.
cpu_isa_t kernel_isa_cap(cpu_isa_t cap);

/// The highest level of the table the CPU has (no cap).
cpu_isa_t max_hardware_isa();
/// Whether the CPU has AVX512_VBMI (vpermb, vpermi2b, vpermt2b) with avx512_core. It is no
/// level of the table: Cooper Lake has avx512_core_bf16 without it, Zen 4 has it without
/// avx512_core_fp16. Kernels ask it under an avx512_core cap and keep a path without it.
bool has_avx512_vbmi();

/// Every level of the table the CPU has, lowest first, ignoring the cap.
std::vector<cpu_isa_t> cpu_isa_levels();

/// The kernel levels (see kernel_isa_cap()) the CPU has, lowest first: the levels whose code
/// differs, which are the ones tests run.
std::vector<cpu_isa_t> kernel_isa_levels();

/// The cap; isa_all when unset. Starts from QGRAPH_MAX_CPU_ISA (an unknown value there is
/// reported on stderr once and ignored).
cpu_isa_t max_cpu_isa();
void set_max_cpu_isa(cpu_isa_t cap);

/// "avx2", "avx512_core", ..., "none", "all".
const char *isa_name(cpu_isa_t isa);
/// Parses isa_name() spellings (case-insensitive); false for an unknown name.
bool isa_from_name(const std::string &name, cpu_isa_t &isa);
/// The names isa_from_name() accepts, for messages.
std::string isa_names();

} // namespace impl
} // namespace qgraph

#endif
