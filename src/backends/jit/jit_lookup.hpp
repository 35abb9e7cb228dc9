#ifndef QGRAPH_BACKENDS_JIT_JIT_LOOKUP_HPP
#define QGRAPH_BACKENDS_JIT_JIT_LOOKUP_HPP

// The lookup kernel: y = table[x] over rows of n contiguous bytes, one 256-byte table per row
// (q_kind::lookup: a fused 8-bit -> 8-bit chain, its tables computed at compile by the ops
// themselves on the reference backend). The code only moves bytes, so it is exact whatever
// the table holds.
//
// avx512_vbmi: the row's table sits in four zmm registers. vpermi2b looks up 64 bytes in 128
// table entries (two registers, index bits 0-6); two of them cover the low and the high half
// of the table, and bit 7 of each source byte (vpmovb2m) picks one by a masked move: five
// instructions per 64 bytes. Tails are masked: no byte past a row is read or written.
//
// avx2: vpshufb looks up 16 entries, so the 256 take 16 lookups per 32 bytes, with no compare.
// vpshufb gives 0 for an index with bit 7 set. The first eight lookups index table rows 0..7
// (entries 16j..16j+15) with v_j = x - 16j in signed saturating arithmetic: for x < 128,
// v_j >= 0 exactly for j <= x >> 4, and its low nibble is x's; for x >= 128 (negative) every
// v_j stays negative. So the XOR of lookups of the differences D_j = T_j ^ T_{j-1} (D_0 = T_0)
// telescopes to T_{x>>4}[x & 15]. The last eight do the same from v = x ^ 0x80 with D_8 = T_8,
// which is negative for x < 128. The driver lays the 16 differences out per table (each 16
// bytes twice, one per 128-bit lane: 512 bytes) and bounces the last n % 32 bytes of a row.

#include <cstdint>
#include <memory>

#include "backends/jit/jit_code.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// A row's table as the code reads it: 256 bytes (avx512_vbmi) or 16 differences of 32
/// bytes (avx2).
template <int bytes>
struct lookup_table {
    uint8_t b[bytes];
};
using vbmi_table = lookup_table<256>;
using avx2_table = lookup_table<512>;

/// One call: `rows` rows of n bytes, row r at src + r * src_row_stride and dst + r *
/// dst_row_stride (bytes), looked up in the table at prm + r * prm_step (in tables).
struct lookup_call {
    const void *src;
    void *dst;
    int64_t n;
    int64_t rows;
    int64_t src_row_stride;
    int64_t dst_row_stride;
    const uint8_t *prm;
    int64_t prm_step; ///< 0 or 1
};

class jit_lookup_kernel : public jit_code<lookup_call> {
public:
    /// vbmi: the avx512_vbmi code (any n); else the avx2 code (n a multiple of 32).
    explicit jit_lookup_kernel(bool vbmi);
    static constexpr int64_t avx2_vlen = 32;
};

/// Table entry e's 16 differences for the avx2 code, into out (512 bytes).
void make_avx2_table(const uint8_t *table, uint8_t *out);

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
