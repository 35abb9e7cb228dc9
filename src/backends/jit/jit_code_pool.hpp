#ifndef QGRAPH_BACKENDS_JIT_JIT_CODE_POOL_HPP
#define QGRAPH_BACKENDS_JIT_JIT_CODE_POOL_HPP

// Where generated code lives: fixed-size buffers, mapped once and reused. A fresh mapping for
// every kernel (Xbyak's default) costs an mmap, page faults on first touch and an munmap:
// about 8 us of a 20-35 us compile on this machine. Freed buffers (made writable again by
// Xbyak before it frees them) go to a free list and serve the next kernel; Xbyak still makes
// each buffer read+execute after generation and writable again before freeing, so no buffer
// is ever writable and executable at once.

#include <cstddef>
#include <cstdint>

#include <xbyak/xbyak.h>

namespace qgraph {
namespace impl {
namespace jit {

class code_pool : public Xbyak::Allocator {
public:
    /// Every buffer is this large: several times the largest kernel.
    static constexpr size_t buffer_size = 16 * 1024;

    /// The process-wide pool (never destroyed: kernels in static objects may outlive main).
    static code_pool &get();

    uint8_t *alloc(size_t size) override;
    void free(uint8_t *p) override;
    bool useProtect() const override { return true; }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
