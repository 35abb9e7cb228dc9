#include "backends/dnnl/dnnl_backend.hpp"

#include "backends/dnnl/dnnl_legality.hpp"
#include "backends/dnnl/dnnl_reorder_kernel.hpp"

namespace qgraph {
namespace impl {

namespace {

// Lowers a problem to one oneDNN reorder, but only where dnnl_legality.hpp says the result is
// bit-exact with NUMERICS.md; everything else is rejected with the reason why.
class dnnl_backend_t final : public backend {
public:
    const char *name() const override { return "dnnl"; }

    std::unique_ptr<kernel> create(const quant_problem &prb, const fallback_factory &next,
            std::string &reason) const override {
        dnnl_impl::reorder_plan plan;
        if (!dnnl_impl::plan_reorder(prb, plan, reason)) return nullptr;
        return dnnl_impl::make_reorder_kernel(plan, next, reason);
    }
};

} // namespace

const backend &dnnl_backend() {
    static const dnnl_backend_t instance;
    return instance;
}

} // namespace impl
} // namespace qgraph
