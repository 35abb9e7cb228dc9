#include "backends/jit/jit_float8_planes_table.hpp"

#include <cmath>

#include "common/minifloat.hpp"
#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {
namespace jit {

bool make_float8_planes_table(
        data_type src, data_type dst, bool saturate, float s, float8_planes_table &t) {
    if (dst != data_type::f8_e4m3 && dst != data_type::f8_e5m2) return false;
    if (src != data_type::bf16 && src != data_type::f16) return false;
    if (!(s > 0) || !std::isnormal(s)) return false;
    const auto &f = facts_of(dst);
    const int step = 1 << f.man_bits;
    const int e = std::ilogb(s);
    const bool f16 = src == data_type::f16;
    if (f16 ? e < -28 || e > 16 : e < f.man_bits + 2 + f.bias - 128 || e > 16) return false;
    const int p = f16 ? 10 : 7;
    // The entry of mantissa m: the code of x_m / s less (bias - 1) * 2^man.
    const auto entry = [&](int m) {
        const float x_m = std::ldexp(1.f + std::ldexp(static_cast<float>(m), -p), e);
        const int code = static_cast<int>(f32_to_minifloat(dst, x_m / s + 0.f, saturate));
        return code - (f.bias - 1) * step;
    };
    for (int i = 0; i < 128; ++i) {
        if (!f16) {
            t.r[i] = static_cast<uint8_t>(entry(i));
            t.th[i] = 0;
            continue;
        }
        // The group's entries: base up to th, base + 1 from there (checked, not assumed).
        const int base = entry(8 * i);
        int th = 8;
        for (int j = 1; j < 8; ++j) {
            const int v = entry(8 * i + j);
            if (th == 8 && v == base + 1) th = j;
            if (v != (th <= j ? base + 1 : base)) return false;
        }
        t.r[i] = static_cast<uint8_t>(base);
        t.th[i] = static_cast<uint8_t>(th);
    }
    t.k = f16 ? (16 + e - f.bias) * 1024 : (128 + e - f.bias) << 7;
    return true;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
