// The one file of qbench that includes oneDNN (tests/check_layering.sh allows it): the
// integrator's code qgraph is measured against. See onednn_baseline.hpp.

#include "tools/qbench/onednn_baseline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "qgraph/qgraph.hpp"
#include "tools/qbench/codec.hpp"

namespace qgraph {
namespace qbench {

namespace {

using mdt = dnnl::memory::data_type;

/// A reason for refusing the case; thrown inside this file only.
struct refuse {
    std::string why;
};

mdt to_dnnl(data_type dt) {
    switch (dt) {
        case data_type::f32: return mdt::f32;
        case data_type::bf16: return mdt::bf16;
        case data_type::f16: return mdt::f16;
        case data_type::s32: return mdt::s32;
        case data_type::s8: return mdt::s8;
        case data_type::u8: return mdt::u8;
        default: throw refuse {std::string("oneDNN has no ") + to_string(dt) + " reorder"};
    }
}

/// oneDNN needs at least one dim: a 0-D tensor is {1}.
dnnl::memory::desc md_of(const logical_tensor &lt) {
    dnnl::memory::dims dims(lt.get_dims().begin(), lt.get_dims().end());
    dnnl::memory::dims strides(lt.get_strides().begin(), lt.get_strides().end());
    if (dims.empty()) {
        dims = {1};
        strides = {1};
    }
    return dnnl::memory::desc(dims, to_dnnl(lt.get_data_type()), strides);
}

template <typename T>
T attr_or(const op &o, const char *name, T fallback) {
    auto it = o.get_attrs().find(name);
    if (it == o.get_attrs().end()) return fallback;
    if (const T *v = std::get_if<T>(&it->second)) return *v;
    return fallback;
}

/// Reads a runtime parameter tensor (scales or zero points) element by element.
struct param_input {
    const void *data = nullptr;
    data_type dt = data_type::undef;
    int64_t count = 0, stride = 1;

    double at(int64_t i) const { return decode(dt, load_bits(data, dt, i * stride)); }
};

param_input param_of(const logical_tensor &lt, void *data) {
    param_input p;
    p.data = data;
    p.dt = lt.get_data_type();
    p.count = lt.get_element_num();
    p.stride = lt.get_strides().empty() ? 1 : lt.get_strides().back();
    return p;
}

const dnnl::engine &cpu_engine() {
    static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

/// oneDNN 2.6 (Debian) runs on OpenMP, whose thread count belongs to the calling thread.
void apply_threads() {
    const int n = qgraph::get_num_threads();
    if (omp_get_max_threads() != n) omp_set_num_threads(n);
}

/// Quantize (1/s, dst zp) and Dequantize (s, src zp) as one reorder, static or runtime.
class reorder_baseline final : public onednn_baseline {
public:
    struct params {
        bool quantize = true;
        int mask = 0; ///< 0 per-tensor, 1 << axis per-channel
        std::vector<float> static_scales; ///< empty for runtime scales
        std::vector<int32_t> static_zps; ///< empty: none or runtime
        param_input scales_in, zps_in; ///< runtime (data non-null)
    };

    reorder_baseline(const logical_tensor &src, void *src_data, const logical_tensor &dst,
            void *dst_data, params p)
        : p_(std::move(p)), strm_(cpu_engine()) {
        const int zp_arg = p_.quantize ? DNNL_ARG_DST : DNNL_ARG_SRC;
        dnnl::primitive_attr attr;
        const bool runtime_scales = p_.scales_in.data != nullptr;
        if (runtime_scales) {
            attr.set_output_scales(p_.mask, {DNNL_RUNTIME_F32_VAL});
            scales_.resize(static_cast<size_t>(p_.scales_in.count));
        } else {
            std::vector<float> s = p_.static_scales;
            if (p_.quantize)
                for (float &v : s) v = 1.f / v;
            attr.set_output_scales(s.size() > 1 ? p_.mask : 0, s);
        }
        const bool runtime_zps = p_.zps_in.data != nullptr;
        const bool static_zps = std::any_of(
                p_.static_zps.begin(), p_.static_zps.end(), [](int32_t z) { return z != 0; });
        if (runtime_zps) {
            zps_.resize(static_cast<size_t>(p_.zps_in.count));
            attr.set_zero_points(zp_arg, zps_.size() > 1 ? p_.mask : 0, {DNNL_RUNTIME_S32_VAL});
        } else if (static_zps) {
            // The integrator passes the values; oneDNN 2.6's reorder refuses a per-channel mask.
            attr.set_zero_points(zp_arg, p_.static_zps.size() > 1 ? p_.mask : 0, p_.static_zps);
        }
        const dnnl::engine &eng = cpu_engine();
        dnnl::reorder::primitive_desc pd;
        try {
            pd = dnnl::reorder::primitive_desc(eng, md_of(src), eng, md_of(dst), attr);
        } catch (const dnnl::error &e) {
            throw refuse {std::string("oneDNN 2.6 cannot create the reorder: ") + e.what()};
        }
        impl_ = pd.impl_info_str();
        prim_ = dnnl::reorder(pd);
        args_[DNNL_ARG_SRC] = dnnl::memory(pd.src_desc(), eng, src_data);
        args_[DNNL_ARG_DST] = dnnl::memory(pd.dst_desc(), eng, dst_data);
        if (runtime_scales)
            args_[DNNL_ARG_ATTR_OUTPUT_SCALES] = dnnl::memory(
                    {{static_cast<int64_t>(scales_.size())}, mdt::f32, {1}}, eng, scales_.data());
        if (runtime_zps)
            args_[DNNL_ARG_ATTR_ZERO_POINTS | zp_arg] = dnnl::memory(
                    {{static_cast<int64_t>(zps_.size())}, mdt::s32, {1}}, eng, zps_.data());
    }

    void run() override {
        apply_threads();
        // What an integrator does per call with runtime parameters: oneDNN multiplies, so a
        // quantize needs 1/s; zero points go in as s32.
        for (size_t i = 0; i < scales_.size(); ++i) {
            const float s = static_cast<float>(p_.scales_in.at(static_cast<int64_t>(i)));
            scales_[i] = p_.quantize ? 1.f / s : s;
        }
        for (size_t i = 0; i < zps_.size(); ++i)
            zps_[i] = static_cast<int32_t>(p_.zps_in.at(static_cast<int64_t>(i)));
        prim_.execute(strm_, args_);
        strm_.wait();
    }

    std::string kernel() const override { return "onednn:reorder(" + impl_ + ")"; }

private:
    params p_;
    dnnl::stream strm_;
    dnnl::reorder prim_;
    std::string impl_;
    std::vector<float> scales_;
    std::vector<int32_t> zps_;
    std::unordered_map<int, dnnl::memory> args_;
};

/// DynamicQuantizeLinear as an integrator composes it from oneDNN primitives.
class dql_baseline final : public onednn_baseline {
public:
    dql_baseline(const logical_tensor &x, void *x_data, const logical_tensor &y, void *y_data,
            void *scale_out, void *zp_out)
        : strm_(cpu_engine()), scale_out_(static_cast<float *>(scale_out)),
          zp_out_(static_cast<uint8_t *>(zp_out)) {
        if (x.get_data_type() != data_type::f32 || y.get_data_type() != data_type::u8)
            throw refuse {"DynamicQuantizeLinear baseline: f32 -> u8 only"};
        const dnnl::engine &eng = cpu_engine();
        const dnnl::memory::desc src_md = md_of(x);
        const dnnl::memory::dims ones(static_cast<size_t>(src_md.data.ndims), 1);
        // Dense: with format_tag::any oneDNN may pick a blocked layout that pads the 1-element
        // result to 16 channels, which would overrun the one float each result has here.
        const dnnl::memory::desc red_md(ones, mdt::f32, dnnl::memory::dims(ones.size(), 1));
        try {
            for (int k = 0; k < 2; ++k) {
                const auto alg = k == 0 ? dnnl::algorithm::reduction_min
                                        : dnnl::algorithm::reduction_max;
                const dnnl::reduction::primitive_desc pd(
                        dnnl::reduction::desc(alg, src_md, red_md, 0.f, 0.f), eng);
                red_[k] = dnnl::reduction(pd);
                red_impl_ = pd.impl_info_str();
                red_args_[k][DNNL_ARG_SRC] = dnnl::memory(src_md, eng, x_data);
                red_args_[k][DNNL_ARG_DST] = dnnl::memory(pd.dst_desc(), eng, &minmax_[k]);
            }
            dnnl::primitive_attr attr;
            attr.set_output_scales(0, {DNNL_RUNTIME_F32_VAL});
            attr.set_zero_points(DNNL_ARG_DST, 0, {DNNL_RUNTIME_S32_VAL});
            const dnnl::reorder::primitive_desc pd(eng, src_md, eng, md_of(y), attr);
            reorder_ = dnnl::reorder(pd);
            impl_ = pd.impl_info_str();
            args_[DNNL_ARG_SRC] = dnnl::memory(src_md, eng, x_data);
            args_[DNNL_ARG_DST] = dnnl::memory(pd.dst_desc(), eng, y_data);
            args_[DNNL_ARG_ATTR_OUTPUT_SCALES]
                    = dnnl::memory({{1}, mdt::f32, {1}}, eng, &inv_scale_);
            args_[DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_DST]
                    = dnnl::memory({{1}, mdt::s32, {1}}, eng, &zp_);
        } catch (const dnnl::error &e) {
            throw refuse {std::string("oneDNN 2.6 cannot create the primitives: ") + e.what()};
        }
    }

    void run() override {
        apply_threads();
        red_[0].execute(strm_, red_args_[0]);
        red_[1].execute(strm_, red_args_[1]);
        strm_.wait();
        // The ONNX formula, written the obvious way.
        const float lo = std::min(0.f, minmax_[0]), hi = std::max(0.f, minmax_[1]);
        float scale = (hi - lo) / 255.f;
        if (scale == 0.f) scale = 1.f;
        const float zp = std::nearbyint(std::min(255.f, std::max(0.f, 0.f - lo / scale)));
        zp_ = static_cast<int32_t>(zp);
        inv_scale_ = 1.f / scale;
        *scale_out_ = scale;
        *zp_out_ = static_cast<uint8_t>(zp_);
        reorder_.execute(strm_, args_);
        strm_.wait();
    }

    std::string kernel() const override {
        return "onednn:reduction(" + red_impl_ + ")x2+reorder(" + impl_ + ")";
    }

private:
    dnnl::stream strm_;
    dnnl::reduction red_[2];
    dnnl::reorder reorder_;
    std::unordered_map<int, dnnl::memory> red_args_[2], args_;
    std::string red_impl_, impl_;
    float minmax_[2] = {0, 0};
    float inv_scale_ = 1;
    int32_t zp_ = 0;
    float *scale_out_;
    uint8_t *zp_out_;
};

std::unique_ptr<onednn_baseline> make(const tools::graph_case &c,
        const std::map<size_t, logical_tensor> &layouts, const std::map<size_t, void *> &buffers) {
    if (c.ops.size() != 1) throw refuse {"the onednn baseline runs one-op cases only"};
    const op &o = c.ops[0];
    const auto &ins = o.get_input_logical_tensors();
    const auto &outs = o.get_output_logical_tensors();
    auto lt_of = [&](const logical_tensor &t) { return layouts.at(t.get_id()); };
    auto buf_of = [&](const logical_tensor &t) { return buffers.at(t.get_id()); };
    const op::kind k = o.get_kind();
    if (k == op::kind::DynamicQuantizeLinear)
        return std::make_unique<dql_baseline>(lt_of(ins[0]), buf_of(ins[0]), lt_of(outs[0]),
                buf_of(outs[0]), buf_of(outs[1]), buf_of(outs[2]));

    const bool quantize = k == op::kind::Quantize || k == op::kind::DynamicQuantize
            || k == op::kind::QuantizeLinear;
    const bool dequantize = k == op::kind::Dequantize || k == op::kind::DynamicDequantize
            || k == op::kind::DequantizeLinear;
    if (!quantize && !dequantize)
        throw refuse {std::string("the onednn baseline has no ") + to_string(k)};
    const logical_tensor src = lt_of(ins[0]), dst = lt_of(outs[0]);
    const int64_t rank = src.get_ndims();
    const bool onnx = k == op::kind::QuantizeLinear || k == op::kind::DequantizeLinear;
    int64_t axis = attr_or<int64_t>(o, "axis", 1);
    if (axis < 0) axis += rank;

    reorder_baseline::params p;
    p.quantize = quantize;
    bool per_channel = false;
    if (k == op::kind::Quantize || k == op::kind::Dequantize) {
        p.static_scales = attr_or<std::vector<float>>(o, "scales", {});
        for (int64_t z : attr_or<std::vector<int64_t>>(o, "zps", {}))
            p.static_zps.push_back(static_cast<int32_t>(z));
        per_channel = p.static_scales.size() > 1;
    } else {
        // A reorder takes one scale per channel at most: blocked (ONNX block_size) and
        // per_group scales would be read as the first channels' scales, another problem.
        const logical_tensor scales = lt_of(ins[1]);
        if ((attr_or<int64_t>(o, "block_size", 0) > 0 && scales.get_element_num() > 1)
                || attr_or<std::string>(o, "qtype", "per_tensor") == "per_group")
            throw refuse {"oneDNN 2.6 reorders have no blocked or grouped scales"};
        p.scales_in = param_of(scales, buf_of(ins[1]));
        if (ins.size() > 2) p.zps_in = param_of(lt_of(ins[2]), buf_of(ins[2]));
        per_channel = onnx ? p.scales_in.count > 1
                           : attr_or<std::string>(o, "qtype", "per_tensor") == "per_channel";
    }
    if (per_channel) {
        if (axis < 0 || axis >= rank) throw refuse {"channel axis outside the shape"};
        p.mask = 1 << axis;
    }
    return std::make_unique<reorder_baseline>(
            src, buf_of(ins[0]), dst, buf_of(outs[0]), std::move(p));
}

} // namespace

std::unique_ptr<onednn_baseline> make_onednn_baseline(const tools::graph_case &c,
        const std::map<size_t, logical_tensor> &layouts, const std::map<size_t, void *> &buffers,
        std::string &reason) {
    // oneDNN starts its OpenMP threads while it creates primitives: give it the count first.
    apply_threads();
    try {
        return make(c, layouts, buffers);
    } catch (const refuse &r) {
        reason = r.why;
    } catch (const dnnl::error &e) {
        reason = std::string("oneDNN failed: ") + e.what();
    } catch (const std::out_of_range &) {
        reason = "a tensor of the case has no buffer";
    }
    return nullptr;
}

} // namespace qbench
} // namespace qgraph
