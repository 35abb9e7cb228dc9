#ifndef QGRAPH_BACKENDS_JIT_JIT_PARAMS_HPP
#define QGRAPH_BACKENDS_JIT_JIT_PARAMS_HPP

// Scale and zero-point set-up for the quantize kernel: what the kernel broadcasts for one
// scale, and the per-lane tables for scales along the inner run (static ones at compile,
// runtime ones at execute).

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/jit/jit_division.hpp"
#include "backends/jit/jit_quantize.hpp"
#include "common/q10n.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// Largest |zp| the quantize kernels take: qmin - zp and qmax - zp must be exact in f32.
constexpr int64_t max_quantize_zp = int64_t(1) << 23;
/// Largest |zp| the dequantize kernels take with 8-bit x: x - zp must not overflow s32.
constexpr int64_t max_dequantize_zp = int64_t(1) << 30;

/// The broadcast parameters of scale s and zero point zp, written field by field into c.
/// `divide`: skip the reciprocal set-up (about 6.5 ns) and take the divide path, for runtime
/// scales of short rows. In place and inline: the drivers fill arrays of rows with it, and a
/// struct returned or assigned whole was assembled on the stack and copied with wider loads
/// than its stores, a stalled store forwarding per row.
inline void set_broadcast_params(
        quantize_params &c, float s, int64_t zp, q_range q, bool divide = false) {
    c.s = s;
    c.lo = static_cast<float>(q.lo - zp);
    c.hi = static_cast<float>(q.hi - zp);
    c.zp = static_cast<int32_t>(zp);
    c.path = static_cast<int32_t>(div_path::divide);
    c.clamp_from = 0;
    c.f8_proven = 0;
    c.dq_s = c.dq_off = 0.f;
    c.planes = nullptr; // the caller's, for the scale (quantize_params::planes)
    if (divide) {
        c.y_hi = c.y_a = c.y_b = 0.f;
        return;
    }
    const recip_params r = make_recip(s);
    c.y_hi = r.y_hi;
    c.y_a = r.y_a;
    c.y_b = r.y_b;
    // A quantized result only needs rne(x / s): the checked multiply where it is proven.
    const bool checked = r.path == div_path::recip && checked_zp_fits(zp, q.lo, q.hi);
    c.path = static_cast<int32_t>(checked ? div_path::checked : r.path);
}
inline quantize_params broadcast_params(float s, int64_t zp, q_range q, bool divide = false) {
    quantize_params c;
    set_broadcast_params(c, s, zp, q, divide);
    return c;
}

/// Rows shorter than this divide rather than set up a reciprocal per runtime scale. The
/// checked multiply saves about 2.5 cycles per 16 elements over vdivps and the set-up costs
/// about 24; measured (DynamicQuantize f32->s8 per channel, 2x64xHxW, 1 thread, Gelem/s,
/// reciprocal / divide): 9 elements per row 0.47 / 0.77, 49: 2.25 / 3.0, 144: 5.4 / 5.8,
/// 196: 6.24 / 6.16, 784: 11.5 / 8.1. Whole rows into u8/s8 take the blocked code instead
/// (quantize_conf::block), which needs neither: these, and longer ones it packs
/// (blocked_run_fits() in jit_quantize_driver.cpp).
constexpr int64_t recip_min_run = 192;

/// Runtime scales along the run take lane tables when each serves this many elements or
/// more: its reciprocal, set up at execute (reciprocals_in_range(), a vector division per
/// few scales), then costs less than the vdivps per vector it saves.
constexpr int64_t min_lane_reuse = 16;

/// Per-lane tables (static per-channel scales along the inner run).
struct lane_tables {
    std::vector<float> s, y_hi, y_a, y_b, lo, hi;
    std::vector<int32_t> zp;
    bool all_fast = true; ///< every scale can take the reciprocal path
    bool all_exact = true; ///< every scale has an exact reciprocal (multiply path)
    bool all_checked = true; ///< every lane can take the checked multiply

    /// Lane i holds the parameters of channel i % scales.size(), for reps times that many
    /// lanes (jit_driver.hpp merges rows of the inner run).
    void init(const std::vector<float> &scales, const std::vector<int64_t> &zps, q_range q,
            int64_t reps = 1);
    /// Points the lane fields of `c` at lane `first`.
    void point(quantize_call &c, int64_t first) const;
};

/// Per-lane tables of runtime scales along the run (as f32), set up at execute for the
/// checked path, whose redo divides by the lane's scale (so no y_a, y_b), and the multiply
/// path of an f16 / bf16 division: y_hi = RN(1/s), and with zero points lo, hi and zp. The
/// scales themselves stay where they are (l_s: the tensor, or its widened copy), so that
/// the tables hold no pointer into a call's tensors and can be kept from call to call
/// (kept_setup).
struct runtime_lane_tables {
    // Left uninitialized until init() writes them: filling them twice measured as much as
    // the reciprocals themselves.
    std::unique_ptr<float[]> f32; ///< y_hi, then with zero points lo and hi, n each
    std::unique_ptr<int32_t[]> zp;
    int64_t n = 0;

    /// `entries` scales and zero points zps (of the integer type zp_dt, s32 ones within
    /// +-2^23; null: none). False when some |s| lies outside [2^-30, 2^30], the range of
    /// both paths (the checked path's clamp before its check needs it): such calls divide.
    bool init(const float *scales, const void *zps, data_type zp_dt, int64_t entries,
            q_range q);
    // (scales and zps may be the user's tensors, at any byte address.)
    /// Points the lane fields of `c` at lane `first`, its scales at `scales` (the entries
    /// init() had).
    void point(quantize_call &c, const float *scales, int64_t first) const;
};

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
