#ifndef QGRAPH_TOOLS_CASE_VALUE_RULES_HPP
#define QGRAPH_TOOLS_CASE_VALUE_RULES_HPP

// Which values a data type can hold in a case file's "data" section, and how floats are printed
// so that they read back to the same bits. Internal to qgraph_case.

#include <string>

#include "qgraph/qgraph.hpp"

namespace qgraph {
namespace tools {
namespace detail {

struct value_domain {
    enum class kind { none, integer, floating };
    kind k = kind::none;
    // integer: the inclusive range. s64's bounds are not exact doubles; callers treat s64 apart.
    double lo = 0, hi = 0;
    // floating: the largest finite value, and the magnitude from which a decimal value no longer
    // rounds to a finite one (max finite + half an ulp); 0 = no check (e8m0).
    double max_finite = 0, overflow = 0;
    bool has_inf = false, has_nan = false;
};

value_domain domain_of(data_type dt);

/// Shortest decimal text (as "%.{p}g") that reads back, through strtod and a cast to float, to
/// exactly `v`. `v` must be finite.
std::string shortest_f32_text(float v);

} // namespace detail
} // namespace tools
} // namespace qgraph

#endif
