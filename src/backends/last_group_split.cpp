#include "backends/last_group_split.hpp"

namespace qgraph {
namespace impl {

namespace {
const void *offset(const void *p, int64_t bytes) {
    return p ? static_cast<const char *>(p) + bytes : nullptr;
}
void *offset(void *p, int64_t bytes) { return p ? static_cast<char *>(p) + bytes : nullptr; }
} // namespace

exec_args last_group_split::last_args(const exec_args &a) const {
    exec_args b = a;
    b.src = offset(a.src, at_.src);
    b.dst = offset(a.dst, at_.dst);
    b.scales = offset(a.scales, at_.scales);
    b.zps = offset(a.zps, at_.zps);
    return b;
}

const kernel &last_group_split::run(const exec_args &args) const {
    const kernel &w = whole_->run(args);
    const kernel &l = last_->run(last_args(args));
    // The kernel that ran, for verbose output: this one, or a part's fallback.
    if (&w != whole_.get()) return w;
    if (&l != last_.get()) return l;
    return *this;
}

const char *last_group_split::fallback_reason(const exec_args &args) const {
    const char *r = whole_->fallback_reason(args);
    return r ? r : last_->fallback_reason(last_args(args));
}

} // namespace impl
} // namespace qgraph
