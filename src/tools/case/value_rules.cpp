#include "tools/case/value_rules.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace qgraph {
namespace tools {
namespace detail {

namespace {
value_domain integer(double lo, double hi) {
    value_domain d;
    d.k = value_domain::kind::integer;
    d.lo = lo;
    d.hi = hi;
    return d;
}
value_domain floating(double max_finite, double overflow, bool has_inf, bool has_nan) {
    value_domain d;
    d.k = value_domain::kind::floating;
    d.max_finite = max_finite;
    d.overflow = overflow;
    d.has_inf = has_inf;
    d.has_nan = has_nan;
    return d;
}
} // namespace

value_domain domain_of(data_type dt) {
    switch (dt) {
        case data_type::undef: return value_domain();
        case data_type::boolean: return integer(0, 1);
        case data_type::s8: return integer(-128, 127);
        case data_type::u8: return integer(0, 255);
        case data_type::s16: return integer(-32768, 32767);
        case data_type::u16: return integer(0, 65535);
        case data_type::s32: return integer(-2147483648.0, 2147483647.0);
        case data_type::s64: return integer(-0x1p63, 0x1p63); // hi exclusive: see callers
        case data_type::s4: return integer(-8, 7);
        case data_type::u4: return integer(0, 15);
        case data_type::s2: return integer(-2, 1);
        case data_type::u2: return integer(0, 3);
        // Overflow thresholds: max finite + half an ulp (a tie there rounds away from max,
        // whose significand is odd).
        case data_type::f32: return floating(0x1.fffffep127, 0x1.ffffffp127, true, true);
        case data_type::bf16: return floating(0x1.fep127, 0x1.ffp127, true, true);
        case data_type::f16: return floating(65504, 65520, true, true);
        case data_type::f8_e4m3: return floating(448, 464, false, true); // ONNX e4m3fn
        case data_type::f8_e5m2: return floating(57344, 61440, true, true);
        case data_type::f8_e4m3fnuz: return floating(240, 248, false, true);
        case data_type::f8_e5m2fnuz: return floating(57344, 61440, false, true);
        case data_type::f4_e2m1: return floating(6, 7, false, false);
        case data_type::e8m0: return floating(0x1p127, 0, false, true);
    }
    return value_domain();
}

std::string shortest_f32_text(float v) {
    char buf[64];
    for (int p = 1; p <= 9; ++p) {
        std::snprintf(buf, sizeof buf, "%.*g", p, static_cast<double>(v));
        // The reader parses to double, then rounds to float: check exactly that path.
        if (static_cast<float>(std::strtod(buf, nullptr)) == v
                && std::signbit(std::strtod(buf, nullptr)) == std::signbit(v))
            return buf;
    }
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v)); // unreachable for finite v
    return buf;
}

} // namespace detail
} // namespace tools
} // namespace qgraph
