#include "backends/jit/jit_float8_planes_table.hpp"

#include <cmath>

#include "common/minifloat.hpp"
#include "qgraph/data_type_table.hpp"

namespace qgraph {
namespace impl {
namespace jit {

bool make_float8_planes_table(data_type dst, bool saturate, float s, float8_planes_table &t) {
    if (dst != data_type::f8_e4m3 && dst != data_type::f8_e5m2) return false;
    if (!(s > 0) || !std::isnormal(s)) return false;
    const auto &f = facts_of(dst);
    const int step = 1 << f.man_bits;
    const int e = std::ilogb(s);
    if (e < f.man_bits + 2 + f.bias - 128 || e > 16) return false;
    for (int m = 0; m < 128; ++m) {
        const float x_m = std::ldexp(1.f + static_cast<float>(m) / 128.f, e); // a bf16
        const int code = static_cast<int>(f32_to_minifloat(dst, x_m / s + 0.f, saturate));
        t.r[m] = static_cast<uint8_t>(code - (f.bias - 1) * step);
    }
    t.k = (128 + e - f.bias) << 7;
    return true;
}

} // namespace jit
} // namespace impl
} // namespace qgraph
