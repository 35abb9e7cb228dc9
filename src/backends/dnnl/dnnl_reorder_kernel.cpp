#include "backends/dnnl/dnnl_reorder_kernel.hpp"

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "common/parallel.hpp"

#include "common/data_types.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {
namespace dnnl_impl {

namespace {

static_assert(DNNL_MAX_NDIMS == 12, "dnnl_legality.cpp assumes oneDNN's 12-dim limit");

/// oneDNN's OpenMP thread count for the duration of one compile or execute, restored on the
/// calling thread afterwards (it is that thread's setting, and the caller's own OpenMP regions
/// must not inherit qgraph's). Under the OpenMP runtime oneDNN gets the execute's thread
/// count, so its team is the one qgraph's own regions use. Under TBB or an integrator's pool
/// it gets one thread: qgraph then never starts an OpenMP team beside its own workers, whose
/// spin-waiting the two would otherwise lose each other's cores to (docs/kernels.md).
class omp_threads_scope {
public:
    explicit omp_threads_scope(const parallel_ctx &ctx) : before_(omp_get_max_threads()) {
        const int want = !ctx.pool && ctx.runtime == cpu_runtime::omp ? ctx.max_threads : 1;
        if (want != before_) omp_set_num_threads(want);
    }
    ~omp_threads_scope() {
        if (omp_get_max_threads() != before_) omp_set_num_threads(before_);
    }
    omp_threads_scope(const omp_threads_scope &) = delete;
    omp_threads_scope &operator=(const omp_threads_scope &) = delete;

private:
    int before_;
};

// One CPU engine for the process; oneDNN engines are safe to share between threads.
const dnnl::engine &cpu_engine() {
    static const dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    return eng;
}

dnnl::memory::data_type to_dnnl(data_type dt) {
    using mdt = dnnl::memory::data_type;
    switch (dt) {
        case data_type::f32: return mdt::f32;
        case data_type::s32: return mdt::s32;
        case data_type::s8: return mdt::s8;
        case data_type::u8: return mdt::u8;
        default: return mdt::undef; // the plan only holds the four types above
    }
}

void require(const void *p, const char *what) {
    if (!p)
        throw error(status::invalid_arguments,
                std::string("dnnl:reorder: ") + what + " pointer is null");
}

class reorder_kernel final : public kernel {
public:
    reorder_kernel(const reorder_plan &plan, const dnnl::reorder::primitive_desc &pd,
            std::unique_ptr<kernel> fallback)
        : plan_(plan)
        , src_md_(pd.src_desc())
        , dst_md_(pd.dst_desc())
        , scales_md_({plan.nscales}, dnnl::memory::data_type::f32, {1})
        , zp_md_({1}, dnnl::memory::data_type::s32, {1})
        , prim_(pd)
        , impl_(pd.impl_info_str())
        , fallback_(std::move(fallback)) {}

    const char *backend() const override { return "dnnl"; }
    std::string name() const override { return std::string(backend()) + ":reorder"; }
    const kernel &run(const exec_args &args) const override;
    const char *fallback_reason(const exec_args &args) const override;
    const std::string &impl() const { return impl_; }

private:
    // Quantize with runtime scales: writes 1/s for each scale into `out`, or returns false if
    // some s has no exact reciprocal (then x * (1/s) may differ from x / s).
    bool reciprocal_scales(const void *scales, float *out) const {
        for (int64_t i = 0; i < plan_.nscales; ++i) {
            const float s = load_elem<float>(scales, i * plan_.scale_stride);
            if (!has_exact_reciprocal(s)) return false;
            out[i] = 1.f / s;
        }
        return true;
    }

    bool zero_points_are_zero(const void *zps) const {
        for (int64_t i = 0; i < plan_.zp_count; ++i)
            if (load_int(zps, plan_.zp_dt, i * plan_.zp_stride) != 0) return false;
        return true;
    }

    const reorder_plan plan_;
    const dnnl::memory::desc src_md_, dst_md_, scales_md_, zp_md_;
    const dnnl::reorder prim_;
    const std::string impl_;
    const std::unique_ptr<kernel> fallback_; // set when plan_.needs_fallback()
};

// The same tests as run() makes before handing a call to fallback_, in the same order.
const char *reorder_kernel::fallback_reason(const exec_args &args) const {
    if (plan_.runtime_scales && plan_.kind == q_kind::quantize)
        for (int64_t i = 0; i < plan_.nscales; ++i)
            if (!has_exact_reciprocal(load_elem<float>(args.scales, i * plan_.scale_stride)))
                return "runtime scale without an exact f32 reciprocal (oneDNN multiplies by 1/s)";
    if (plan_.zp == zp_plan::src_input && !is_exact_in_f32(load_int(args.zps, plan_.zp_dt, 0)))
        return "runtime zero point not exact in f32";
    if (plan_.zp == zp_plan::input_must_be_zero && !zero_points_are_zero(args.zps))
        return "nonzero runtime zero point (oneDNN adds it before rounding)";
    return nullptr;
}

const kernel &reorder_kernel::run(const exec_args &args) const {
    const omp_threads_scope threads(args.par);
    require(args.src, "src");
    require(args.dst, "dst");
    if (plan_.runtime_scales) require(args.scales, "scales");
    if (plan_.zp == zp_plan::src_input || plan_.zp == zp_plan::input_must_be_zero)
        require(args.zps, "zero points");

    // Everything below is per call (locals only), so concurrent runs share nothing mutable.
    // Dequantize passes the user's scales straight to oneDNN; quantize passes reciprocals.
    constexpr int64_t stack_scales = 64;
    float stack_buf[stack_scales];
    std::vector<float> heap_buf;
    const float *oscales = static_cast<const float *>(args.scales); // f32 (plan_scales)
    if (plan_.runtime_scales && plan_.kind == q_kind::quantize) {
        float *buf = stack_buf;
        if (plan_.nscales > stack_scales) {
            heap_buf.resize(static_cast<size_t>(plan_.nscales));
            buf = heap_buf.data();
        }
        if (!reciprocal_scales(args.scales, buf)) return fallback_->run(args);
        oscales = buf;
    }

    // oneDNN always gets the zero point at execute, as s32: a static zp of INT32_MIN would
    // otherwise read as DNNL_RUNTIME_S32_VAL, and u8/s8 inputs need widening anyway.
    int32_t zp = 0;
    switch (plan_.zp) {
        case zp_plan::none: break;
        case zp_plan::src_static: zp = static_cast<int32_t>(plan_.zp_value); break;
        case zp_plan::src_input: {
            const int64_t v = load_int(args.zps, plan_.zp_dt, 0);
            if (!is_exact_in_f32(v)) return fallback_->run(args);
            zp = static_cast<int32_t>(v);
            break;
        }
        case zp_plan::input_must_be_zero:
            if (!zero_points_are_zero(args.zps)) return fallback_->run(args);
            break;
    }

    try {
        const dnnl::engine &eng = cpu_engine();
        std::unordered_map<int, dnnl::memory> margs {
                {DNNL_ARG_SRC, dnnl::memory(src_md_, eng, const_cast<void *>(args.src))},
                {DNNL_ARG_DST, dnnl::memory(dst_md_, eng, args.dst)}};
        if (plan_.runtime_scales)
            margs.emplace(DNNL_ARG_ATTR_OUTPUT_SCALES,
                    dnnl::memory(scales_md_, eng, const_cast<float *>(oscales)));
        if (plan_.zp == zp_plan::src_static || plan_.zp == zp_plan::src_input)
            margs.emplace(DNNL_ARG_ATTR_ZERO_POINTS | DNNL_ARG_SRC,
                    dnnl::memory(zp_md_, eng, &zp));
        dnnl::stream strm(eng);
        prim_.execute(strm, margs);
        strm.wait();
    } catch (const dnnl::error &e) {
        throw error(status::runtime_error,
                std::string("dnnl:reorder (") + impl_ + "): oneDNN failed: " + e.what());
    }
    return *this;
}

// The attribute mirrors the plan: output scales (static values, or one runtime value per
// scale) and, when a zero point reaches oneDNN, a runtime src zero point.
dnnl::primitive_attr make_attr(const reorder_plan &plan) {
    dnnl::primitive_attr attr;
    if (plan.runtime_scales)
        attr.set_output_scales(plan.scale_mask, {DNNL_RUNTIME_F32_VAL});
    else
        attr.set_output_scales(plan.scale_mask, plan.output_scales);
    if (plan.zp == zp_plan::src_static || plan.zp == zp_plan::src_input)
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
    return attr;
}

} // namespace

std::unique_ptr<kernel> make_reorder_kernel(
        const reorder_plan &plan, const fallback_factory &next, std::string &reason) {
    if (plan.needs_fallback() && !next) {
        reason = "runtime scales or zero points need a fallback kernel, but no fallback "
                 "factory was given";
        return nullptr;
    }
    // oneDNN may start OpenMP threads while it creates a primitive: it gets the thread count
    // now too, not only at execute.
    const omp_threads_scope threads(current_parallel_ctx());
    dnnl::reorder::primitive_desc pd;
    try {
        const dnnl::engine &eng = cpu_engine();
        const dnnl::memory::desc src_md(plan.dims, to_dnnl(plan.src_dt), plan.src_strides);
        const dnnl::memory::desc dst_md(plan.dims, to_dnnl(plan.dst_dt), plan.dst_strides);
        pd = dnnl::reorder::primitive_desc(eng, src_md, eng, dst_md, make_attr(plan));
    } catch (const dnnl::error &e) {
        reason = std::string("oneDNN could not create the reorder: ") + e.what();
        return nullptr;
    }
    const std::string impl = pd.impl_info_str();
    if (!is_verified_impl(impl)) {
        reason = "oneDNN picked '" + impl
                + "', whose numerics qgraph has not verified (only jit:uni is trusted)";
        return nullptr;
    }
    std::unique_ptr<kernel> fallback;
    if (plan.needs_fallback()) {
        fallback = next();
        if (!fallback) {
            reason = "the fallback factory returned no kernel";
            return nullptr;
        }
    }
    try {
        return std::make_unique<reorder_kernel>(plan, pd, std::move(fallback));
    } catch (const dnnl::error &e) {
        reason = std::string("oneDNN could not create the reorder primitive: ") + e.what();
        return nullptr;
    }
}

std::string onednn_impl_name(const kernel &k) {
    const auto *rk = dynamic_cast<const reorder_kernel *>(&k);
    return rk ? rk->impl() : std::string();
}

} // namespace dnnl_impl
} // namespace impl
} // namespace qgraph
