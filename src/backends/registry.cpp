#include "backends/registry.hpp"

#include "backends/dnnl/dnnl_backend.hpp"
#include "backends/jit/jit_backend.hpp"
#include "backends/ref/ref_backend.hpp"

namespace qgraph {
namespace impl {

const std::vector<const backend *> &backend_list() {
    // Best first. The reference accepts every problem, so selection always ends with a kernel.
    static const std::vector<const backend *> list {
            &jit_backend(), &dnnl_backend(), &ref_backend()};
    return list;
}

const backend *find_backend(const std::string &name) {
    for (const backend *b : backend_list())
        if (name == b->name()) return b;
    return nullptr;
}

std::unique_ptr<kernel> select_kernel(const quant_problem &prb,
        const std::vector<const backend *> &candidates, std::vector<rejection> &rejected) {
    for (size_t i = 0; i < candidates.size(); ++i) {
        // The fallback of candidate i is whatever the candidates after it would select; the
        // last one (e.g. a forced backend) falls back to the reference.
        std::vector<const backend *> rest(candidates.begin() + i + 1, candidates.end());
        if (rest.empty() && candidates[i] != &ref_backend()) rest.push_back(&ref_backend());
        const fallback_factory next = [&prb, rest]() {
            std::vector<rejection> ignored;
            return select_kernel(prb, rest, ignored);
        };
        std::string reason;
        std::unique_ptr<kernel> k = candidates[i]->create(prb, next, reason);
        if (k) return k;
        rejected.push_back({candidates[i]->name(), reason});
    }
    return nullptr;
}

} // namespace impl
} // namespace qgraph
