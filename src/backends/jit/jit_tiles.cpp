#include "backends/jit/jit_tiles.hpp"

#include <immintrin.h>

namespace qgraph {
namespace impl {
namespace jit {
namespace {

// Blocks of B x B elements of E = 1, 2 or 4 bytes, B = 16 / E (16 bytes a row), transposed in
// registers. Each of the log2(B) rounds interleaves row i with row i + B/2 into rows 2i and
// 2i + 1 (a perfect shuffle); after the last, row c holds element c of every input row, in
// order. The unpack instructions work within 128-bit lanes, so a ymm carries two blocks,
// one above the other (rows i and B + i: one 32-byte store per out row) or side by side (32
// bytes of an input row), and transposes both with the same instructions.
template <int E>
inline __attribute__((always_inline)) __m128i lo128(__m128i a, __m128i b) {
    return E == 1 ? _mm_unpacklo_epi8(a, b)
            : E == 2 ? _mm_unpacklo_epi16(a, b)
                     : _mm_unpacklo_epi32(a, b);
}
template <int E>
inline __attribute__((always_inline)) __m128i hi128(__m128i a, __m128i b) {
    return E == 1 ? _mm_unpackhi_epi8(a, b)
            : E == 2 ? _mm_unpackhi_epi16(a, b)
                     : _mm_unpackhi_epi32(a, b);
}

/// One B x B block: out row c = column c of the B input rows.
template <int E>
inline __attribute__((always_inline)) void block_xmm(
        const char *in, int64_t in_stride, char *out, int64_t out_stride) {
    constexpr int B = 16 / E;
    __m128i x[B];
    for (int i = 0; i < B; ++i)
        x[i] = _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i * in_stride));
    for (int round = 1; round < B; round *= 2) {
        __m128i y[B];
        for (int i = 0; i < B / 2; ++i) {
            y[2 * i] = lo128<E>(x[i], x[i + B / 2]);
            y[2 * i + 1] = hi128<E>(x[i], x[i + B / 2]);
        }
        for (int i = 0; i < B; ++i)
            x[i] = y[i];
    }
    for (int c = 0; c < B; ++c)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + c * out_stride), x[c]);
}

template <int E>
inline __attribute__((always_inline, target("avx2"))) __m256i lo256(__m256i a, __m256i b) {
    return E == 1 ? _mm256_unpacklo_epi8(a, b)
            : E == 2 ? _mm256_unpacklo_epi16(a, b)
                     : _mm256_unpacklo_epi32(a, b);
}
template <int E>
inline __attribute__((always_inline, target("avx2"))) __m256i hi256(__m256i a, __m256i b) {
    return E == 1 ? _mm256_unpackhi_epi8(a, b)
            : E == 2 ? _mm256_unpackhi_epi16(a, b)
                     : _mm256_unpackhi_epi32(a, b);
}

/// The log2(B) perfect-shuffle rounds of block_xmm on B ymm rows (two blocks at once).
template <int E>
inline __attribute__((always_inline, target("avx2"))) void shuffle_rounds_ymm(__m256i *x) {
    constexpr int B = 16 / E;
    __m256i y[B];
    for (int round = 1; round < B; round *= 2) {
        for (int i = 0; i < B / 2; ++i) {
            y[2 * i] = lo256<E>(x[i], x[i + B / 2]);
            y[2 * i + 1] = hi256<E>(x[i], x[i + B / 2]);
        }
        for (int i = 0; i < B; ++i)
            x[i] = y[i];
    }
}

/// Two blocks side by side (B rows of 2B elements): out rows c and B + c.
template <int E>
inline __attribute__((always_inline, target("avx2"))) void block_pair_ymm(
        const char *in, int64_t in_stride, char *out, int64_t out_stride) {
    constexpr int B = 16 / E;
    __m256i x[B];
    for (int i = 0; i < B; ++i)
        x[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(in + i * in_stride));
    shuffle_rounds_ymm<E>(x);
    for (int c = 0; c < B; ++c) {
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + c * out_stride),
                _mm256_castsi256_si128(x[c]));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + (B + c) * out_stride),
                _mm256_extracti128_si256(x[c], 1));
    }
}

/// Two blocks one above the other (2B rows of B elements), rows i and B + i in the two
/// lanes of a ymm: each out row gets its 2B elements in one 32-byte store. Twice as few
/// stores as block_pair_ymm, whose halves go to different rows (an extract each); its
/// inserts are loads. The usual case: tiles of 64 rows.
template <int E>
inline __attribute__((always_inline, target("avx2"))) void block_stack_ymm(
        const char *in, int64_t in_stride, char *out, int64_t out_stride) {
    constexpr int B = 16 / E;
    __m256i x[B];
    for (int i = 0; i < B; ++i)
        x[i] = _mm256_inserti128_si256(
                _mm256_castsi128_si256(
                        _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + i * in_stride))),
                _mm_loadu_si128(reinterpret_cast<const __m128i *>(in + (B + i) * in_stride)), 1);
    shuffle_rounds_ymm<E>(x);
    for (int c = 0; c < B; ++c)
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(out + c * out_stride), x[c]);
}

/// out[c * ldo + r] = in[r * ldi + c] for r < rows, c < cols (strides in elements of E
/// bytes): stacked blocks while 2B rows are left, then block pairs and single blocks on the
/// last B, then the edges element by element.
template <int E>
inline __attribute__((always_inline, target("avx2"))) void transpose_body(
        const void *in_v, int64_t ldi, void *out_v, int64_t ldo, int64_t rows, int64_t cols) {
    constexpr int B = 16 / E;
    const char *in = static_cast<const char *>(in_v);
    char *out = static_cast<char *>(out_v);
    const int64_t rs = rows / (2 * B) * (2 * B), rb = rows / B * B;
    const int64_t cp = cols / (2 * B) * (2 * B), cb = cols / B * B;
    for (int64_t r = 0; r < rs; r += 2 * B)
        for (int64_t c = 0; c < cb; c += B)
            block_stack_ymm<E>(in + (r * ldi + c) * E, ldi * E, out + (c * ldo + r) * E, ldo * E);
    for (int64_t r = rs; r < rb; r += B) {
        for (int64_t c = 0; c < cp; c += 2 * B)
            block_pair_ymm<E>(in + (r * ldi + c) * E, ldi * E, out + (c * ldo + r) * E, ldo * E);
        if (cb > cp)
            block_xmm<E>(in + (r * ldi + cp) * E, ldi * E, out + (cp * ldo + r) * E, ldo * E);
    }
    const auto one = [&](int64_t r, int64_t c) {
        for (int b = 0; b < E; ++b)
            out[(c * ldo + r) * E + b] = in[(r * ldi + c) * E + b];
    };
    if (cb < cols)
        for (int64_t r = 0; r < rb; ++r)
            for (int64_t c = cb; c < cols; ++c)
                one(r, c);
    for (int64_t r = rb; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
            one(r, c);
}

// The same code twice. The jit backend needs AVX2 at least; with AVX-512 enabled the compiler
// has 32 vector registers for a block's rows and their shuffles instead of 16.
template <int E>
__attribute__((target("avx2"))) void transpose_avx2(const void *in, int64_t ldi, void *out,
        int64_t ldo, int64_t rows, int64_t cols) {
    transpose_body<E>(in, ldi, out, ldo, rows, cols);
}
template <int E>
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) void transpose_avx512(const void *in,
        int64_t ldi, void *out, int64_t ldo, int64_t rows, int64_t cols) {
    transpose_body<E>(in, ldi, out, ldo, rows, cols);
}

// The narrow side is u8 / s8 (quantize destinations, dequantize sources), s32 (dequantize
// sources), or a convert's smaller type (bf16 / f16, f32): 1, 2 or 4 bytes (run_layout::init
// takes no other).
void transpose_any(const void *in, int64_t ldi, void *out, int64_t ldo, int64_t rows,
        int64_t cols, int esize, bool avx512) {
    if (esize == 1)
        return avx512 ? transpose_avx512<1>(in, ldi, out, ldo, rows, cols)
                      : transpose_avx2<1>(in, ldi, out, ldo, rows, cols);
    if (esize == 2)
        return avx512 ? transpose_avx512<2>(in, ldi, out, ldo, rows, cols)
                      : transpose_avx2<2>(in, ldi, out, ldo, rows, cols);
    return avx512 ? transpose_avx512<4>(in, ldi, out, ldo, rows, cols)
                  : transpose_avx2<4>(in, ldi, out, ldo, rows, cols);
}

} // namespace

void copy_tile_out(const void *buf, int64_t pitch, void *out, int64_t ldk, int64_t kn,
        int64_t tn, int esize, bool avx512) {
    // buf rows are t, columns k; out rows are k, columns t.
    transpose_any(buf, pitch, out, ldk, tn, kn, esize, avx512);
}

void copy_tile_in(const void *in, int64_t ldk, void *buf, int64_t pitch, int64_t kn, int64_t tn,
        int esize, bool avx512) {
    // in rows are k, columns t; buf rows are t, columns k.
    transpose_any(in, ldk, buf, pitch, kn, tn, esize, avx512);
}

} // namespace jit
} // namespace impl
} // namespace qgraph
