#include "common/cpu_isa.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>

#include <xbyak/xbyak_util.h>

#include "common/config.hpp"

namespace qgraph {
namespace impl {
namespace {

struct isa_entry {
    cpu_isa_t isa;
    const char *name;
    /// Whether the JIT kernels use what this level adds. A level that does not generates the
    /// code of the kernel level below it: kernel_isa_cap() lowers the cap to that level, so
    /// its code is the same by construction and tests need not run it again.
    bool kernels;
};

// Lowest first; "none" and "all" are the two ends of the cap. A kernel that starts to use
// VNNI, FP16 or AMX instructions sets its level's `kernels` (tests then run that level too).
constexpr isa_entry table[] = {
        {avx2, "avx2", true},
        {avx512_core, "avx512_core", true},
        {avx512_core_vnni, "avx512_core_vnni", false},
        {avx512_core_bf16, "avx512_core_bf16", true}, // vcvtneps2bf16
        {avx512_core_fp16, "avx512_core_fp16", false},
        {avx512_core_amx, "avx512_core_amx", false},
};

/// The bits the CPU has. Xbyak's Cpu checks CPUID and that the OS saves the ymm/zmm/opmask
/// (and tile) state, so a bit here means the instructions run.
unsigned hardware_bits() {
    static const unsigned bits = [] {
        using Xbyak::util::Cpu;
        const Cpu cpu;
        unsigned b = 0;
        // F16C (f16 <-> f32 conversions) came with every AVX2 CPU; the kernels use it.
        if (cpu.has(Cpu::tAVX2) && cpu.has(Cpu::tFMA) && cpu.has(Cpu::tF16C)) b |= avx2_bit;
        if ((b & avx2_bit) && cpu.has(Cpu::tAVX512F) && cpu.has(Cpu::tAVX512BW)
                && cpu.has(Cpu::tAVX512DQ) && cpu.has(Cpu::tAVX512VL))
            b |= avx512_core_bit;
        if (cpu.has(Cpu::tAVX512_VNNI)) b |= avx512_core_vnni_bit;
        if (cpu.has(Cpu::tAVX512_BF16)) b |= avx512_core_bf16_bit;
        if (cpu.has(Cpu::tAVX512_FP16)) b |= avx512_core_fp16_bit;
        if (cpu.has(Cpu::tAMX_TILE) && cpu.has(Cpu::tAMX_INT8) && cpu.has(Cpu::tAMX_BF16))
            b |= amx_bit;
        return b;
    }();
    return bits;
}

bool has_all(unsigned have, cpu_isa_t isa) { return (have & isa) == isa; }

bool vbmi_hardware() {
    static const bool vbmi = Xbyak::util::Cpu().has(Xbyak::util::Cpu::tAVX512_VBMI);
    return vbmi;
}

cpu_isa_t cap_from_env() {
    const char *v = env_value("QGRAPH_MAX_CPU_ISA");
    if (!v) return isa_all;
    cpu_isa_t isa;
    if (isa_from_name(v, isa)) return isa;
    env_warn_invalid("QGRAPH_MAX_CPU_ISA", v, "one of: " + isa_names(), "all (no cap)");
    return isa_all;
}

std::atomic<unsigned> &cap() {
    static std::atomic<unsigned> c {cap_from_env()};
    return c;
}

} // namespace

bool mayiuse(cpu_isa_t isa, cpu_isa_t cap) {
    if (isa == isa_none) return true;
    return has_all(hardware_bits(), isa) && has_all(cap, isa);
}

namespace {
/// The highest level of the table (its kernel levels only, if `kernel_levels`) under cap.
cpu_isa_t best_level(cpu_isa_t cap, bool kernel_levels) {
    cpu_isa_t best = isa_none;
    for (const isa_entry &e : table)
        if ((e.kernels || !kernel_levels) && mayiuse(e.isa, cap)) best = e.isa;
    return best;
}

/// The levels of the table (its kernel levels only, if `kernel_levels`) the CPU has.
std::vector<cpu_isa_t> hardware_levels(bool kernel_levels) {
    std::vector<cpu_isa_t> levels;
    for (const isa_entry &e : table)
        if ((e.kernels || !kernel_levels) && has_all(hardware_bits(), e.isa))
            levels.push_back(e.isa);
    return levels;
}
} // namespace

cpu_isa_t effective_cpu_isa(cpu_isa_t cap) { return best_level(cap, false); }

cpu_isa_t kernel_isa_cap(cpu_isa_t cap) { return best_level(cap, true); }

cpu_isa_t max_hardware_isa() { return effective_cpu_isa(isa_all); }

bool has_avx512_vbmi() { return has_all(hardware_bits(), avx512_core) && vbmi_hardware(); }

std::vector<cpu_isa_t> cpu_isa_levels() { return hardware_levels(false); }

std::vector<cpu_isa_t> kernel_isa_levels() { return hardware_levels(true); }

cpu_isa_t max_cpu_isa() { return static_cast<cpu_isa_t>(cap().load()); }
void set_max_cpu_isa(cpu_isa_t c) { cap().store(c); }

const char *isa_name(cpu_isa_t isa) {
    if (isa == isa_none) return "none";
    if (isa == isa_all) return "all";
    for (const isa_entry &e : table)
        if (e.isa == isa) return e.name;
    return "unknown";
}

bool isa_from_name(const std::string &name, cpu_isa_t &isa) {
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return std::tolower(c); });
    if (n == "none") return isa = isa_none, true;
    if (n == "all" || n == "default") return isa = isa_all, true;
    for (const isa_entry &e : table)
        if (n == e.name) return isa = e.isa, true;
    return false;
}

std::string isa_names() {
    std::string s = "none";
    for (const isa_entry &e : table) s += std::string(", ") + e.name;
    return s + ", all";
}

} // namespace impl
} // namespace qgraph
