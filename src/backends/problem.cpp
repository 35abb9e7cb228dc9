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

std::vector<int64_t> quant_problem::param_shape() const {
    std::vector<int64_t> shape(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) shape[d] = params[d].count(dims[d]);
    return shape;
}

int64_t quant_problem::nparams() const {
    int64_t n = 1;
    for (size_t d = 0; d < dims.size(); ++d) n *= params[d].count(dims[d]);
    return n;
}

int64_t quant_problem::scale_offset(const int64_t *idx) const {
    int64_t off = 0;
    for (size_t d = 0; d < params.size(); ++d)
        if (params[d].varies()) off += idx[d] / params[d].group * params[d].scale_stride;
    return off;
}

int64_t quant_problem::zp_offset(const int64_t *idx) const {
    int64_t off = 0;
    for (size_t d = 0; d < params.size(); ++d)
        if (params[d].varies()) off += idx[d] / params[d].group * params[d].zp_stride;
    return off;
}

bool quant_problem::per_tensor() const {
    for (const param_dim &pd : params)
        if (pd.varies()) return false;
    return true;
}

namespace {
/// The one dim of `map` that varies with group 1, or -1 (none, several, or a group > 1).
int single_channel(const std::vector<param_dim> &map) {
    int ch = -1;
    for (size_t d = 0; d < map.size(); ++d) {
        if (!map[d].varies()) continue;
        if (ch >= 0 || map[d].group != 1) return -1;
        ch = static_cast<int>(d);
    }
    return ch;
}
} // namespace

int quant_problem::channel_dim() const { return single_channel(params); }

int64_t quant_problem::scale_stride() const {
    const int ch = channel_dim();
    return ch >= 0 ? params[ch].scale_stride : 1;
}

int64_t quant_problem::zp_stride() const {
    const int ch = channel_dim();
    return ch >= 0 ? params[ch].zp_stride : 1;
}

int quant_problem::orig_axis() const { return single_channel(orig_params); }

std::string quant_problem::describe() const {
    std::ostringstream os;
    os << op_name << " " << to_string(src_dt) << ":" << to_string(dst_dt) << " ";
    bool varies = false;
    std::vector<int64_t> groups;
    for (const param_dim &pd : orig_params) {
        varies = varies || pd.varies();
        groups.push_back(pd.group);
    }
    if (orig_axis() >= 0)
        os << "per_channel(axis " << orig_axis() << ")";
    else if (varies)
        os << "groups(" << dims_to_string(groups) << ")";
    else
        os << "per_tensor";
    os << " " << dims_to_string(orig_dims) << " scales:" << source_name(scale_src);
    if (scale_dt != data_type::f32) os << ":" << to_string(scale_dt);
    os << " zp:" << source_name(zp_src);
    if (zp_src == param_source::input) os << ":" << to_string(zp_dt);
    if (div_dt != data_type::f32) os << " div:" << to_string(div_dt);
    if (!saturate) os << " saturate:0";
    return os.str();
}

} // namespace impl
} // namespace qgraph
