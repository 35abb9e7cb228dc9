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

int64_t quant_problem::scale_span() const {
    int64_t last = 0;
    for (size_t d = 0; d < dims.size(); ++d) {
        const int64_t n = params[d].count(dims[d]);
        if (n == 0) return 0;
        last += (n - 1) * params[d].scale_stride;
    }
    return last + 1;
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

bool split_full_groups(quant_problem &p) {
    struct dim {
        int64_t n, src, dst;
        param_dim prm;
    };
    std::vector<dim> split;
    bool any = false;
    for (size_t d = 0; d < p.dims.size(); ++d) {
        const param_dim &pm = p.params[d];
        if (pm.group > 1 && p.dims[d] > pm.group && p.dims[d] % pm.group == 0) {
            const int64_t g = pm.group;
            split.push_back({p.dims[d] / g, p.src_strides[d] * g, p.dst_strides[d] * g,
                    {1, pm.scale_stride, pm.zp_stride}});
            split.push_back({g, p.src_strides[d], p.dst_strides[d], param_dim {}});
            any = true;
        } else {
            split.push_back({p.dims[d], p.src_strides[d], p.dst_strides[d], pm});
        }
    }
    if (!any) return false;
    const bool zp_tensor = p.zp_src == param_source::input;
    std::vector<dim> merged;
    for (const dim &cur : split) {
        if (!merged.empty()) {
            dim &prev = merged.back();
            const bool data = prev.src == cur.src * cur.n && prev.dst == cur.dst * cur.n;
            const bool constant = !prev.prm.varies() && !cur.prm.varies();
            // Two per-element dims whose parameters are contiguous too: one per-element dim.
            const bool per_element = prev.prm.group == 1 && cur.prm.group == 1
                    && prev.prm.scale_stride == cur.prm.scale_stride * cur.n
                    && (!zp_tensor || prev.prm.zp_stride == cur.prm.zp_stride * cur.n);
            if (data && (constant || per_element)) {
                prev = {prev.n * cur.n, cur.src, cur.dst, cur.prm};
                continue;
            }
        }
        merged.push_back(cur);
    }
    p.dims.clear();
    p.src_strides.clear();
    p.dst_strides.clear();
    p.params.clear();
    for (const dim &m : merged) {
        p.dims.push_back(m.n);
        p.src_strides.push_back(m.src);
        p.dst_strides.push_back(m.dst);
        p.params.push_back(m.prm);
    }
    return true;
}

namespace {
/// Whether `elems` elements of dt are whole bytes; their byte count in `bytes`.
bool whole_bytes(int64_t elems, data_type dt, int64_t &bytes) {
    const int64_t bits = elems * static_cast<int64_t>(data_type_bits(dt));
    bytes = bits / 8;
    return bits % 8 == 0;
}

/// p with its dims of extent 1 dropped, a group that covers its whole dim marked constant
/// (one entry), and its user's view set to the result.
void drop_unit_dims(quant_problem &p) {
    size_t n = 0;
    for (size_t d = 0; d < p.dims.size(); ++d) {
        if (p.dims[d] == 1) continue;
        if (p.params[d].group >= p.dims[d]) p.params[d] = param_dim {};
        p.dims[n] = p.dims[d];
        p.src_strides[n] = p.src_strides[d];
        p.dst_strides[n] = p.dst_strides[d];
        p.params[n] = p.params[d];
        ++n;
    }
    p.dims.resize(n);
    p.src_strides.resize(n);
    p.dst_strides.resize(n);
    p.params.resize(n);
    p.orig_dims = p.dims;
    p.orig_src_strides = p.src_strides;
    p.orig_dst_strides = p.dst_strides;
    p.orig_params = p.params;
}
} // namespace

bool split_last_group(const quant_problem &p, quant_problem &whole, quant_problem &last,
        part_offsets &at) {
    if (p.kind != q_kind::quantize && p.kind != q_kind::dequantize) return false;
    if (p.scale_src != param_source::input || p.zp_src == param_source::attr) return false;
    int dim = -1;
    for (size_t d = 0; d < p.dims.size(); ++d) {
        const param_dim &pm = p.params[d];
        if (pm.group > 1 && p.dims[d] > pm.group && p.dims[d] % pm.group != 0) {
            if (dim >= 0) return false;
            dim = static_cast<int>(d);
        }
    }
    if (dim < 0) return false;
    const param_dim pm = p.params[dim];
    const int64_t n = p.dims[dim], groups = n / pm.group, head = groups * pm.group;
    part_offsets o;
    if (!whole_bytes(head * p.src_strides[dim], p.src_dt, o.src)
            || !whole_bytes(head * p.dst_strides[dim], p.dst_dt, o.dst)
            || !whole_bytes(groups * pm.scale_stride, p.scale_dt, o.scales)
            || (p.zp_src == param_source::input
                    && !whole_bytes(groups * pm.zp_stride, p.zp_dt, o.zps)))
        return false;
    whole = p;
    whole.dims[dim] = head;
    whole.nelems = p.nelems / n * head;
    drop_unit_dims(whole);
    last = p;
    last.dims[dim] = n - head;
    last.params[dim] = param_dim {};
    last.nelems = p.nelems / n * (n - head);
    drop_unit_dims(last);
    at = o;
    return true;
}

std::string quant_problem::describe() const {
    std::ostringstream os;
    os << op_name << " " << to_string(src_dt);
    if (src_round_dt != data_type::undef) os << "(" << to_string(src_round_dt) << ")";
    os << ":";
    if (fake_quantize()) os << to_string(dequantize_after.q_dt) << ":";
    os << to_string(dst_dt) << " ";
    if (kind == q_kind::convert) {
        os << dims_to_string(orig_dims);
        return os.str();
    }
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
    os << " " << dims_to_string(orig_dims);
    if (kind == q_kind::lookup) {
        os << " lookup:" << nparams() << "x256";
        return os.str();
    }
    os << " scales:" << source_name(scale_src);
    if (scale_dt != data_type::f32) os << ":" << to_string(scale_dt);
    os << " zp:" << source_name(zp_src);
    if (zp_src == param_source::input) os << ":" << to_string(zp_dt);
    if (div_dt != data_type::f32) os << " div:" << to_string(div_dt);
    if (!saturate) os << " saturate:0";
    return os.str();
}

} // namespace impl
} // namespace qgraph
