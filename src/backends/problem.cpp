#include "backends/problem.hpp"

#include <sstream>

#include "common/utils.hpp"

namespace qgraph {
namespace impl {

namespace {
const char *source_name(param_source s) {
    switch (s) {
        case param_source::none: return "none";
        case param_source::attr: return "attr";
        case param_source::input: return "input";
    }
    return "?";
}
} // namespace

std::string quant_problem::describe() const {
    std::ostringstream os;
    os << op_name << " " << to_string(src_dt) << ":" << to_string(dst_dt) << " ";
    if (orig_axis >= 0)
        os << "per_channel(axis " << orig_axis << ")";
    else
        os << "per_tensor";
    os << " " << dims_to_string(orig_dims) << " scales:" << source_name(scale_src);
    if (scale_dt != data_type::f32) os << ":" << to_string(scale_dt);
    os << " zp:" << source_name(zp_src);
    if (zp_src == param_source::input) os << ":" << to_string(zp_dt);
    return os.str();
}

} // namespace impl
} // namespace qgraph
