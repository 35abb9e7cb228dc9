#ifndef QGRAPH_BACKENDS_JIT_JIT_DIVISION_HPP
#define QGRAPH_BACKENDS_JIT_JIT_DIVISION_HPP

// Exact division x / s without a divide instruction. docs/kernels.md has the argument; in
// short, for a scale with 2^-30 <= |s| <= 2^30 whose reciprocal is not a float:
//
//   y_hi = RN(1/s)                  the correctly rounded reciprocal
//   y_a  = RZ(1/s)                  rounded toward zero (y_hi or its neighbour)
//   y_b  = RN(1/s - y_a)            same sign as y_a, never 0 (set up exactly in double)
//   q0   = fma(x, y_a, x * y_b)     faithful: |q0 - x/s| < 1 ulp
//   r    = fma(-q0, s, x)           the exact residual
//   r    = 0 if r is NaN or +-Inf   (only when x is +-Inf or NaN, or x/s overflows)
//   q    = fma(r, y_hi, q0)         == RN(x/s) (Markstein's theorem)
//
// q equals the IEEE quotient bit for bit for NaN x and for every x with 2^-100 <= |x| whose
// quotient is normal and below 2^126 (docs/kernels.md has the argument and the exhaustive
// test that checks it; a subnormal quotient, possible for |s| > 2^26, may be 1 ulp = 2^-149
// off, which no quantized result can see). For smaller |x|, |x/s| < 2^-70 and q is just as
// far below 0.5, so both round to 0. Where x/s overflows, or x is +-Inf, q0 is +-Inf with
// the sign of x/s (y_a and y_b have the same sign, so x * y_b never cancels x * y_a into a
// NaN), r is reset and q = q0: both saturate every integer type the same way. A NaN x gives a
// NaN q. So a quantized result is exact for all 2^32 inputs. Scales outside [2^-30, 2^30]
// (and 0, subnormal, Inf, NaN runtime scales) use the divide instruction instead.
//
// A power-of-two scale whose reciprocal is a float needs none of this: x * (1/s) and x / s
// are the same real number rounded once, so they are equal for every x (NaN, Inf, subnormal
// and overflowing results included). Those scales take a single multiply.
//
// Quantized results need less than the quotient: only rne(x / s), and only where it is not
// saturated. The checked path (quantize to u8/s8, and s4/u4 on blocked rows) multiplies,
// q' = RN(x * y_hi), and proves per lane that rne(q') == rne(RN(x / s)); a vector with a lane
// it cannot prove is redone on the reciprocal path above (blocked rows: by vdivps). |q' - x/s| and |RN(x/s) - x/s| are below 0.76 * 2^-14
// together while |q'| < 256.5, so rne can differ only when q' is that close to a half-integer.
// The check adds tie_magic: t = RN(q' + tie_magic) lies in [512, 1024) for
// -255.5 <= q' < 256.5, on a grid of 2^-14, with a half-integer q' landing on low mantissa
// bits 1; a lane is unproven when those 14 low bits are 0..3, which covers every q' within
// 1.5 * 2^-14 of a half-integer (about 1 lane in 4096 of random data). Outside that range
// both roundings are beyond +-255.5 with the same sign, so both saturate alike when
// qmax - 256 <= zp <= qmin + 256 (checked_zp_fits). Broadcast and lane rows run the check on
// q' clamped to [qmin - zp, qmax - zp] first, so such a lane holds an integer bound, which it
// proves; blocked rows check q' itself (such lanes may be unproven: a redo).
// docs/kernels.md has the whole argument.
//
// Division in f16 and bf16 (quantize_conf::quotient_dt) needs no exact f32 quotient either.
// Let x = X 2^a and s = S 2^b be of that type (integers X, S < 2^p; p = 11 or 8), y_hi =
// RN(1/s), and q' = RN(x * y_hi): two roundings to 24 bits, so |q' - x/s| <= 2^-23 (1 +
// 2^-25) |x/s|. A midpoint m = M 2^c between two normal values of the type has an odd M,
// 2^p < M < 2^(p+1), and x/s - m = (X 2^a - S M 2^(b+c)) / s is not 0 (M would divide X).
// Its numerator is a multiple of 2^min(a, b+c), so |x/s - m| >= |x/s| 2^-p, or
// >= m / (S M) > m 2^-23 (1 + 2^-12) from S M <= (2^p - 1)(2^(p+1) - 1). Either way q' lies
// on the same side of every midpoint as x/s, and q' rounded to the type is x/s rounded to
// it. Below the normal range exact midpoints exist, but both roundings stay at or below
// 2^-14 there and quantize to 0. So rows of a rounded quotient take the multiply path;
// tests/jit/test_division_half.cpp checks the claim on every pair of f16 values and of bf16
// values with 2^-30 <= |s| <= 2^30, against quotients rounded in double.

#include <cstdint>

#include "common/cpu_isa.hpp"

namespace qgraph {
namespace impl {
namespace jit {

/// Bounds of the reciprocal path.
constexpr float recip_min_scale = 0x1p-30f;
constexpr float recip_max_scale = 0x1p30f;

/// How the kernels divide by one scale.
enum class div_path : int32_t {
    recip = 0, ///< the two-term reciprocal with the FMA correction above
    divide = 1, ///< the divide instruction (scales outside [2^-30, 2^30], 0, Inf, NaN)
    /// x * (1/s), exact for every x: s is a power of two with 1/s a float; or x * RN(1/s)
    /// before the quotient's rounding to f16 / bf16 (above)
    multiply = 2,
    checked = 3, ///< x * RN(1/s) with the rounding check above, else recip (quantize only)
    /// x * RN(1/s) alone: the checked path whose check passes for every value of a 16-bit
    /// source type, verified at compile (quantize from f16/bf16 with a static scale)
    proven = 4,
    /// float8 destinations (every bit of the quotient may matter): the reciprocal path
    /// without the residual's reset, for rows with 2^-30 <= |s| <= 1, on vectors whose
    /// every x is finite with |x| <= 2^96 (guarded_max_x); a vector with another x divides
    /// (below).
    guarded = 5,
    /// float8 destinations, rows with 1 < |s| <= 2^30 whose reciprocal is inexact: groups
    /// of the checked encode (x * RN(1/s) where it lies away from every rounding edge,
    /// float8_emitter::flag_near_edges()), a group with a lane near one divides; code
    /// without the checked groups divides every such row.
    float8_checked = 6,
};

/// The guarded path: where 2^-30 <= |s| <= 1 and x is finite with |x| <= guarded_max_x,
/// x / s is finite, below 2^126 in magnitude, so the residual is finite and needs no reset.
/// For |x| >= 2^-100 the quotient is normal and the reciprocal path gives RN(x / s) bit for
/// bit (above). For 0 < |x| < 2^-100: |y_a| >= 1, so q0 and then q are at least 2^-149 in
/// magnitude, as RN(x / s) is (|x / s| >= |x|), with the quotient's sign; both are below
/// 2^-70, which every float8 type rounds to a zero of that sign. For x = +-0, q is a zero of
/// either sign, as a float8 quotient's + 0.f (NUMERICS.md) makes every zero +0. So every
/// float8 code equals the divided one; a vector with a NaN, an infinity or a larger |x|
/// takes vdivps.
constexpr float guarded_max_x = 0x1p96f;
constexpr float guarded_max_scale = 1.f;

/// The checked path's constants: t = q' + tie_magic; a lane is unproven when
/// (bits(t) & tie_mask) == 0, i.e. the 14 low bits of t are 0..3.
constexpr float tie_magic = 767.5f + 0x1p-14f;
constexpr uint32_t tie_mask = 0x3ffc;

/// The fixed-point check of avx512 rows into u8 / s8 (docs/kernels.md, "The fixed-point
/// check"): one FMA and one conversion give w = rne(RN(x * y_hi * 2^fixed_bits + (zp + 0.5) *
/// 2^fixed_bits + fixed_offset)), whose bits from fixed_bits up hold rne(x / s) + zp and whose
/// low bits the quotient's fraction; a lane is unproven when (w & fixed_mask) == 0, i.e. that
/// fraction lies within fixed_offset units (2^-fixed_bits) of a tie. w errs by less than 1.3
/// units wherever the result is not saturated; NaN, infinite and overflowing lanes
/// (|x / s| >= 2^17) convert to 0x80000000, which the mask flags too.
constexpr int fixed_bits = 14;
constexpr float fixed_unit = static_cast<float>(1 << fixed_bits);
constexpr float fixed_offset = 2.f;
constexpr uint32_t fixed_mask = 0x3ffc;
static_assert(fixed_mask == tie_mask, "the kernels keep one register for both masks");

/// The checked path needs every |rne| >= 256 to saturate: qmax - 256 <= zp <= qmin + 256.
inline bool checked_zp_fits(int64_t zp, int64_t qmin, int64_t qmax) {
    return zp >= qmax - 256 && zp <= qmin + 256;
}

/// The reciprocal of one scale and the path it takes.
struct recip_params {
    div_path path = div_path::divide;
    bool in_range = false; ///< 2^-30 <= |s| <= 2^30: y_a and y_b are set
    float y_hi = 0.f; ///< RN(1/s); exactly 1/s on the multiply path
    float y_a = 0.f; ///< RZ(1/s) (reciprocal path)
    float y_b = 0.f; ///< RN(1/s - y_a) (reciprocal path)
};

recip_params make_recip(float s);

/// y[i] = RN(1/s[i]) for the n f32 scales at s (one loop the compiler vectorizes: the driver
/// runs it at execute over runtime scales along the run; s may be the user's tensor, at any
/// byte address), and whether every |s[i]| lies in [recip_min_scale, recip_max_scale], the
/// range the checked path of such lanes takes.
bool reciprocals_in_range(const void *s, int64_t n, float *y);

/// The algorithm above in scalar C++ (std::fma), for tests that check it apart from the
/// generated code. Returns x / s computed the way the kernels compute it.
float recip_divide(float x, float s, const recip_params &p);

} // namespace jit
} // namespace impl
} // namespace qgraph

#endif
