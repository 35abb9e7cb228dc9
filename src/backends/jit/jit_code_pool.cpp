#include "backends/jit/jit_code_pool.hpp"

#include <sys/mman.h>

#include <mutex>
#include <vector>

namespace qgraph {
namespace impl {
namespace jit {
namespace {

// Buffers kept for reuse beyond this many are unmapped (1 MiB of address space).
constexpr size_t max_free = 64;

struct free_list {
    free_list() { buffers.reserve(max_free); } // free() never allocates
    std::mutex mu;
    std::vector<uint8_t *> buffers;
};

free_list &pool_state() {
    static free_list *f = new free_list; // never destroyed, like the pool
    return *f;
}

} // namespace

code_pool &code_pool::get() {
    static code_pool *p = new code_pool;
    return *p;
}

uint8_t *code_pool::alloc(size_t size) {
    if (size != buffer_size) throw Xbyak::Error(Xbyak::ERR_CANT_ALLOC);
    {
        free_list &f = pool_state();
        std::lock_guard<std::mutex> lock(f.mu);
        if (!f.buffers.empty()) {
            uint8_t *p = f.buffers.back();
            f.buffers.pop_back();
            return p;
        }
    }
    void *p = mmap(nullptr, buffer_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
            -1, 0);
    if (p == MAP_FAILED) throw Xbyak::Error(Xbyak::ERR_CANT_ALLOC);
    return static_cast<uint8_t *>(p);
}

void code_pool::free(uint8_t *p) {
    if (!p) return;
    {
        free_list &f = pool_state();
        std::lock_guard<std::mutex> lock(f.mu);
        if (f.buffers.size() < max_free) {
            f.buffers.push_back(p);
            return;
        }
    }
    munmap(p, buffer_size);
}

} // namespace jit
} // namespace impl
} // namespace qgraph
