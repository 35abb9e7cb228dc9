#ifndef QGRAPH_TESTS_FUZZ_BYTE_READER_HPP
#define QGRAPH_TESTS_FUZZ_BYTE_READER_HPP

// Decodes a fuzzer's byte stream into choices. Past the end every read returns 0, so any
// input decodes to something and short inputs mean "the first option everywhere".

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace qfuzz {

class byte_reader {
public:
    byte_reader(const uint8_t *data, size_t size) : p_(data), n_(size) {}

    uint8_t u8() { return i_ < n_ ? p_[i_++] : 0; }
    uint32_t u32() {
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) v = v << 8 | u8();
        return v;
    }
    uint64_t u64() { return static_cast<uint64_t>(u32()) << 32 | u32(); }
    /// A value in [0, n), n >= 1.
    size_t pick(size_t n) { return n <= 256 ? u8() % n : u32() % n; }
    bool flag() { return u8() & 1; }
    /// Any float bit pattern: NaN, infinities, subnormals, zeros.
    float raw_float() {
        const uint32_t b = u32();
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    }
    bool empty() const { return i_ >= n_; }

private:
    const uint8_t *p_;
    size_t n_;
    size_t i_ = 0;
};

} // namespace qfuzz

#endif
