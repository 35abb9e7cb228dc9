#ifndef QGRAPH_BACKENDS_LAST_GROUP_SPLIT_HPP
#define QGRAPH_BACKENDS_LAST_GROUP_SPLIT_HPP

// A problem whose parameter groups do not tile their dim (ONNX block_size with a partial
// last block) as two kernels: one over the whole groups, one over the partial last group
// (problem.hpp's split_last_group). A backend that takes no partial group may take the whole
// groups as a problem of their own (registry.cpp), and the last group, or the backends after
// it do (a last block of one element a row is a strided column); this kernel runs the two
// one after the other, the second on its tensors' byte offsets.

#include <memory>
#include <string>

#include "backends/backend.hpp"

namespace qgraph {
namespace impl {

class last_group_split : public kernel {
public:
    last_group_split(std::unique_ptr<kernel> whole, std::unique_ptr<kernel> last,
            const part_offsets &at)
        : whole_(std::move(whole)), last_(std::move(last)), at_(at) {}

    const char *backend() const override { return whole_->backend(); }
    /// "jit:avx2+jit:avx2": the whole groups' kernel, then the last group's.
    std::string name() const override { return whole_->name() + "+" + last_->name(); }
    const kernel &run(const exec_args &args) const override;
    /// The parts touch disjoint elements, so each being safe is enough.
    bool in_place_safe() const override {
        return whole_->in_place_safe() && last_->in_place_safe();
    }
    const char *fallback_reason(const exec_args &args) const override;

private:
    std::unique_ptr<kernel> whole_;
    std::unique_ptr<kernel> last_;
    part_offsets at_;

    exec_args last_args(const exec_args &a) const;
};

} // namespace impl
} // namespace qgraph

#endif
