#include "backends/registry.hpp"

#include "backends/dnnl/dnnl_backend.hpp"
#include "backends/jit/jit_backend.hpp"
#include "backends/last_group_split.hpp"
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

namespace {

/// b's kernel for prb, whose fallback is whatever the backends in `rest` would select.
std::unique_ptr<kernel> create_with_rest(const backend &b, const quant_problem &prb,
        const std::vector<const backend *> &rest, std::string &reason) {
    const fallback_factory next = [&prb, rest]() {
        std::vector<rejection> ignored;
        return select_kernel(prb, rest, ignored);
    };
    return b.create(prb, next, reason);
}

/// The kernels of the two parts of prb when its groups do not tile their dim (a partial
/// last block): b's for the whole groups, or nullptr; for the last group b's, else what
/// `rest` selects (the last block of each row may be too short or strided for b: one
/// element a row is a column).
std::unique_ptr<kernel> create_split(const backend &b, const quant_problem &prb,
        const std::vector<const backend *> &rest) {
    quant_problem whole, last;
    part_offsets at;
    if (&b == &ref_backend() || !split_last_group(prb, whole, last, at)) return nullptr;
    std::string ignored;
    std::unique_ptr<kernel> w = create_with_rest(b, whole, rest, ignored);
    if (!w) return nullptr;
    std::unique_ptr<kernel> l = create_with_rest(b, last, rest, ignored);
    if (!l) {
        std::vector<rejection> rejected;
        l = select_kernel(last, rest, rejected);
    }
    return l ? std::make_unique<last_group_split>(std::move(w), std::move(l), at) : nullptr;
}

} // namespace

std::unique_ptr<kernel> select_kernel(const quant_problem &prb,
        const std::vector<const backend *> &candidates, std::vector<rejection> &rejected) {
    for (size_t i = 0; i < candidates.size(); ++i) {
        // The fallback of candidate i is whatever the candidates after it would select; the
        // last one (e.g. a forced backend) falls back to the reference.
        std::vector<const backend *> rest(candidates.begin() + i + 1, candidates.end());
        if (rest.empty() && candidates[i] != &ref_backend()) rest.push_back(&ref_backend());
        std::string reason;
        std::unique_ptr<kernel> k = create_with_rest(*candidates[i], prb, rest, reason);
        if (!k) k = create_split(*candidates[i], prb, rest);
        if (k) return k;
        rejected.push_back({candidates[i]->name(), reason});
    }
    return nullptr;
}

} // namespace impl
} // namespace qgraph
