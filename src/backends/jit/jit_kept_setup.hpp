#ifndef QGRAPH_BACKENDS_JIT_JIT_KEPT_SETUP_HPP
#define QGRAPH_BACKENDS_JIT_JIT_KEPT_SETUP_HPP

// What a driver derives at execute from runtime parameter tensors (scales widened to f32,
// the lane tables' reciprocals and zero-point bounds), kept with the tensor bytes it was made
// from and reused while the tensors bound hold those bytes. Graphs pass the same initializers
// on every execute, and the set-up runs on the calling thread before the parallel region:
// at many threads it was as long as the region itself (docs/performance.md, "Runtime
// parameter set-up kept from call to call").
//
// Only tensors of up to max_bytes together are kept: the compare reads them on one thread,
// and larger ones are widened in parallel (widen_in_parts()). Thread-safe as
// interface/runtime_lookup is: a compiled partition may run from several threads at once,
// each with its own tensors; the kept set-up and its bytes change under a mutex that is never
// held while anything else runs, and each call holds the set-up it runs with by shared_ptr,
// so another thread's new set-up never frees one a call still reads.

#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace qgraph {
namespace impl {
namespace jit {

/// The bytes of one parameter tensor a set-up reads.
struct param_bytes {
    const void *data;
    size_t size;
};

template <typename T>
class kept_setup {
public:
    static constexpr size_t max_bytes = size_t(64) << 10;

    /// The set-up of the tensors `in`: the kept one where they hold its bytes, else make()'s
    /// (a T), kept for the next call where the tensors are small enough.
    template <typename Make>
    std::shared_ptr<const T> get(std::initializer_list<param_bytes> in, Make &&make) const {
        size_t total = 0;
        for (const param_bytes &t : in)
            total += t.size;
        if (total > max_bytes) return std::make_shared<const T>(make());
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            if (last_ && same(in)) return last_;
        }
        // Made with no lock held; two threads that miss at once both make, the last one's
        // set-up is kept.
        std::shared_ptr<const T> made = std::make_shared<const T>(make());
        const std::lock_guard<std::mutex> lock(mutex_);
        bytes_.resize(total);
        unsigned char *b = bytes_.data();
        for (const param_bytes &t : in) {
            if (t.size != 0) std::memcpy(b, t.data, t.size);
            b += t.size;
        }
        last_ = made;
        return made;
    }

private:
    mutable std::mutex mutex_;
    mutable std::shared_ptr<const T> last_;
    mutable std::vector<unsigned char> bytes_; ///< the tensors last_ was made from, in order

    bool same(std::initializer_list<param_bytes> in) const {
        const unsigned char *b = bytes_.data();
        size_t total = 0;
        for (const param_bytes &t : in) {
            total += t.size;
            if (total > bytes_.size() || (t.size != 0 && std::memcmp(b, t.data, t.size) != 0))
                return false;
            b += t.size;
        }
        return total == bytes_.size();
    }
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
