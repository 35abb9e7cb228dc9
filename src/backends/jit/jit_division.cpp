#include "backends/jit/jit_division.hpp"

#include <cmath>

#include "backends/jit/jit_quantize.hpp"

namespace qgraph {
namespace impl {
namespace jit {

recip_params make_recip(float s) {
    recip_params p;
    const float inv = 1.f / s;
    // 1/s is exact iff s * inv == 1 exactly (the product of two floats is exact in double).
    if (std::isfinite(inv) && inv != 0.f && static_cast<double>(s) * inv == 1.0) {
        p.path = div_path::multiply;
        p.fast = true;
        p.y_hi = inv;
        return p;
    }
    const float a = std::fabs(s);
    // Also rejects 0, subnormals, Inf and NaN.
    if (!(a >= recip_min_scale && a <= recip_max_scale)) return p;
    p.path = div_path::recip;
    p.fast = true;
    p.y_hi = 1.f / s; // one IEEE division: the correctly rounded reciprocal
    // 1/s - y_hi: s * y_hi has 48 significant bits, so 1 - s * y_hi is exact in double, and
    // the double division errs by 2^-53 relative; rounding to f32 gives y_lo = RN(1/s - y_hi)
    // up to that negligible error.
    const double sd = s, yd = p.y_hi;
    p.y_lo = static_cast<float>((1.0 - sd * yd) / sd);
    return p;
}

float recip_divide(float x, float s, const recip_params &p) {
    if (p.path == div_path::divide) return x / s;
    if (p.path == div_path::multiply) return x * p.y_hi;
    // fminf/fmaxf would drop a NaN; the kernels keep it (vminps/vmaxps operand order).
    float xc = x;
    if (xc > recip_x_clamp) xc = recip_x_clamp;
    if (xc < -recip_x_clamp) xc = -recip_x_clamp;
    const float q0 = std::fma(xc, p.y_hi, xc * p.y_lo);
    const float r = std::fma(-q0, s, xc);
    return std::fma(r, p.y_hi, q0);
}

void jit_divide(cpu_isa_t isa, const float *x, float *q, int64_t n, float s) {
    quantize_conf conf;
    conf.isa = isa;
    conf.dst_dt = data_type::f32;
    const jit_quantize_kernel k(conf);
    const recip_params p = make_recip(s);
    quantize_call c {};
    c.s = s;
    c.y_hi = p.y_hi;
    c.y_lo = p.y_lo;
    c.path = static_cast<int32_t>(p.path);
    const int vlen = jit_quantize_kernel::vlen(isa);
    const int64_t body = isa == avx2 ? n / vlen * vlen : n;
    c.src = x;
    c.dst = q;
    c.n = body;
    k(&c);
    if (body == n) return;
    // avx2 kernels take whole vectors: bounce the tail through a padded buffer.
    float xs[8] = {}, qs[8];
    for (int64_t i = body; i < n; ++i) xs[i - body] = x[i];
    c.src = xs;
    c.dst = qs;
    c.n = vlen;
    k(&c);
    for (int64_t i = body; i < n; ++i) q[i] = qs[i - body];
}

} // namespace jit
} // namespace impl
} // namespace qgraph
