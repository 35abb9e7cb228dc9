// QGRAPH_JIT_DUMP (jit_dump.hpp).

#include "backends/jit/jit_dump.hpp"

#include <atomic>
#include <cstdio>
#include <string>

#include "common/config.hpp"

namespace qgraph {
namespace impl {
namespace jit {

void dump_code(const char *kind, cpu_isa_t isa, const uint8_t *code, size_t size) {
    static const bool on = env_int("QGRAPH_JIT_DUMP", 0, 1, 0) == 1;
    if (!on) return;
    // Kernels are generated on several threads at once when partitions compile in parallel.
    static std::atomic<int> counter {0};
    const std::string path = std::string("qgraph_jit_") + kind + "_" + isa_name(isa) + "."
            + std::to_string(counter++) + ".bin";
    std::FILE *f = std::fopen(path.c_str(), "wb");
    const bool written = f && std::fwrite(code, 1, size, f) == size;
    if (f && std::fclose(f) != 0) f = nullptr;
    if (written && f) return;
    static std::atomic<bool> warned {false};
    if (!warned.exchange(true))
        std::fprintf(stderr, "qgraph: QGRAPH_JIT_DUMP=1: cannot write %s (reported once)\n",
                path.c_str());
}

} // namespace jit
} // namespace impl
} // namespace qgraph
