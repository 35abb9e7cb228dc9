#include "tools/case/value_rules.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "qgraph/data_type_table.hpp"

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
    const data_type_facts &f = facts_of(dt);
    switch (f.cls) {
        case type_class::none: return value_domain();
        // s64's bounds round to -2^63 and 2^63 (hi exclusive: see callers).
        case type_class::integer:
        case type_class::boolean:
            return integer(static_cast<double>(f.lo), static_cast<double>(f.hi));
        case type_class::floating: {
            if (f.style == float_style::e8m0) return floating(f.max, 0, false, true);
            // Overflow threshold: max finite + half an ulp (a tie there rounds away from max,
            // whose significand is odd). max's ulp is 2^(its exponent - mantissa bits).
            const double half_ulp = std::ldexp(1.0, std::ilogb(f.max) - f.man_bits - 1);
            return floating(f.max, f.max + half_ulp, f.style == float_style::ieee,
                    f.style != float_style::finite);
        }
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
