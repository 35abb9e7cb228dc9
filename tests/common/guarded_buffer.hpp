#ifndef QGRAPH_TESTS_COMMON_GUARDED_BUFFER_HPP
#define QGRAPH_TESTS_COMMON_GUARDED_BUFFER_HPP

// Memory between two inaccessible (PROT_NONE) pages, for kernel tests: JIT code is invisible
// to AddressSanitizer, so the hardware has to catch its over-runs instead. The user bytes sit
// flush against one guard (the end one by default), so a read or write even one byte past
// that edge faults at once with SIGSEGV. The other edge is page-aligned and guarded too, but
// with the bytes flush against the end, up to (page - 1) bytes of slack precede the data:
// build a second buffer with guard_side::start to catch under-runs of one byte.
//
//     guarded_buffer b(n * sizeof(float));             // flush against the end guard
//     guarded_buffer u(n * sizeof(float), guard_side::start);
//     float *p = static_cast<float *>(b.data());
//
// Alignment: data() of an end-flush buffer is only as aligned as `bytes` makes it (bytes = 6
// gives an address that is 2 mod 8): exactly what tests of unaligned loads want. Use
// guard_side::start when the pointer must be page-aligned.
//
// Header-only, POSIX only (mmap / mprotect). A zero-byte buffer has a valid, non-null data()
// pointing at the end guard: any access through it faults.
//
// QTEST_GUARD_SLACK=N (bytes, at most a page; read once): N accessible bytes between the user
// bytes and the guard they would be flush against, for an emulator that faults on the
// masked-off lanes of a masked load or store where hardware does not (Bochs 2.7:
// tests/avx512_in_bochs.sh sets it). Over-runs of up to N bytes then go unseen: a mode for
// checking results on an emulated ISA, never for the suite on hardware.

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

namespace qtest {

enum class guard_side { end, start };

class guarded_buffer {
public:
    explicit guarded_buffer(size_t bytes, guard_side side = guard_side::end)
        : size_(bytes), side_(side) {
        page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        gap_ = emulator_slack(page_);
        const size_t body = (bytes + gap_ + page_ - 1) / page_ * page_;
        map_size_ = body + 2 * page_;
        // Map everything inaccessible, then open up the body: both guards exist from the
        // start and nothing else can be mapped into them while this buffer lives.
        void *m = mmap(nullptr, map_size_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) throw std::bad_alloc();
        map_ = static_cast<unsigned char *>(m);
        if (body != 0 && mprotect(map_ + page_, body, PROT_READ | PROT_WRITE) != 0) {
            munmap(map_, map_size_);
            throw std::bad_alloc();
        }
        data_ = side == guard_side::end ? map_ + page_ + body - bytes - gap_ : map_ + page_;
    }

    /// QTEST_GUARD_SLACK, read once: 0 when unset or not a number in [0, page].
    static size_t emulator_slack(size_t page) {
        static const size_t n = [page] {
            const char *v = std::getenv("QTEST_GUARD_SLACK");
            if (!v || !*v) return size_t(0);
            char *end = nullptr;
            const unsigned long x = std::strtoul(v, &end, 10);
            return *end == '\0' && x <= page ? static_cast<size_t>(x) : size_t(0);
        }();
        return n;
    }

    ~guarded_buffer() {
        if (map_) munmap(map_, map_size_);
    }

    guarded_buffer(const guarded_buffer &) = delete;
    guarded_buffer &operator=(const guarded_buffer &) = delete;
    guarded_buffer(guarded_buffer &&o) noexcept { swap(o); }
    guarded_buffer &operator=(guarded_buffer &&o) noexcept {
        if (this != &o) {
            guarded_buffer tmp(std::move(o));
            swap(tmp);
        }
        return *this;
    }

    void *data() { return data_; }
    const void *data() const { return data_; }
    size_t size() const { return size_; }
    guard_side side() const { return side_; }

    template <typename T>
    T *as() {
        return static_cast<T *>(data());
    }

    /// Fills the user bytes (not the slack before / after them).
    void fill(unsigned char byte) {
        if (size_) std::memset(data_, byte, size_);
    }

    /// The bytes between the guard opposite `side()` and data() (or after data() + size()):
    /// readable and writable but not part of the buffer. Tests may fill it and check it is
    /// untouched, which catches under-runs of an end-flush buffer without a fault.
    size_t slack() const {
        return map_size_ - 2 * page_ - size_ - (side_ == guard_side::end ? gap_ : 0);
    }
    unsigned char *slack_begin() {
        return side_ == guard_side::end ? map_ + page_ : data_ + size_;
    }

private:
    void swap(guarded_buffer &o) noexcept {
        std::swap(map_, o.map_);
        std::swap(map_size_, o.map_size_);
        std::swap(page_, o.page_);
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        std::swap(gap_, o.gap_);
        std::swap(side_, o.side_);
    }

    unsigned char *map_ = nullptr;
    size_t map_size_ = 0;
    size_t page_ = 0;
    unsigned char *data_ = nullptr;
    size_t size_ = 0;
    size_t gap_ = 0; ///< QTEST_GUARD_SLACK's bytes after an end-side buffer's user bytes
    guard_side side_ = guard_side::end;
};

} // namespace qtest

#endif
