#include "interface/fused_chain.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>

#include "common/data_types.hpp"
#include "common/thread_count.hpp"
#include "passes/lowering.hpp"
#include "qgraph/error.hpp"

namespace qgraph {
namespace impl {

/// Bytes of the largest intermediate in one block: with the block's src and dst it stays in
/// L1/L2, so the intermediate is written and read back without going to memory.
constexpr int64_t kBlockBytes = 32 * 1024;
/// Scratch areas start on cache lines.
constexpr size_t kAlign = 64;

namespace {

std::vector<int64_t> dense_strides(const std::vector<int64_t> &dims) {
    std::vector<int64_t> s(dims.size(), 1);
    for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
    return s;
}

/// `f` restricted to a block: dims cut..end of the user's shape, `len` elements along cut;
/// an intermediate end dense over the block.
quant_problem block_problem(const quant_problem &f, int cut, int64_t len, bool src_mid,
        bool dst_mid) {
    quant_problem p = f;
    const auto tail_of = [cut](const std::vector<int64_t> &v) {
        return std::vector<int64_t>(v.begin() + cut, v.end());
    };
    p.orig_dims = tail_of(f.orig_dims);
    p.orig_dims[0] = len;
    p.orig_src_strides = src_mid ? dense_strides(p.orig_dims) : tail_of(f.orig_src_strides);
    p.orig_dst_strides = dst_mid ? dense_strides(p.orig_dims) : tail_of(f.orig_dst_strides);
    p.orig_params.assign(f.orig_params.begin() + cut, f.orig_params.end());
    p.nelems = 1;
    for (int64_t d : p.orig_dims) p.nelems *= d;
    canonicalise(p);
    return p;
}

std::shared_ptr<const kernel> pick(const quant_problem &p,
        const std::vector<const backend *> &candidates, std::vector<rejection> &rejected) {
    std::shared_ptr<const kernel> k = select_kernel(p, candidates, rejected);
    if (!k) {
        std::string why;
        for (const rejection &r : rejected) why += "; " + r.backend + ": " + r.reason;
        throw error(status::unimplemented, "no backend accepts " + p.describe() + why);
    }
    return k;
}

/// The first cache line boundary past p (a buffer of kAlign bytes more than it needs).
char *aligned(char *p) { return p + (kAlign - reinterpret_cast<uintptr_t>(p) % kAlign); }

bool byte_addressed(data_type dt) { return dt == data_type::undef || data_type_bits(dt) >= 8; }

} // namespace

chain_runner::chain_runner(const std::vector<quant_problem> &full,
        const std::vector<arg_positions> &args, const std::vector<const backend *> &candidates,
        std::vector<rejection> &rejected) {
    dims_ = full[0].orig_dims;
    int64_t nelems = full[0].nelems;
    bool blocks = !dims_.empty() && nelems > 0;
    size_t widest_mid = 1;
    for (size_t s = 0; s < full.size(); ++s) {
        stage st;
        st.args = args[s];
        st.full = full[s];
        const quant_problem &p = full[s];
        blocks = blocks && byte_addressed(p.src_dt) && byte_addressed(p.dst_dt)
                && (p.scale_src != param_source::input || byte_addressed(p.scale_dt))
                && (p.zp_src != param_source::input || byte_addressed(p.zp_dt));
        if (p.scale_src == param_source::attr && !p.per_tensor())
            for (int64_t z : p.zps)
                blocks = blocks && z >= std::numeric_limits<int32_t>::min()
                        && z <= std::numeric_limits<int32_t>::max();
        if (s + 1 < full.size()) widest_mid = std::max(widest_mid, size_of(p.dst_dt));
        stages_.push_back(std::move(st));
    }

    int64_t group = 1; // chunks start at multiples of the cut dim's parameter groups
    if (blocks) {
        const int64_t budget = kBlockBytes / static_cast<int64_t>(widest_mid);
        int64_t inner = 1;
        cut_ = static_cast<int>(dims_.size()) - 1;
        while (cut_ > 0 && inner * dims_[cut_] <= budget) inner *= dims_[cut_--];
        chunk_ = std::min(dims_[cut_], std::max<int64_t>(1, budget / inner));
        for (const stage &st : stages_) {
            const param_dim &pd = st.full.orig_params[cut_];
            if (pd.group > 1 && pd.group != group) {
                if (group > 1) blocks = false; // two group sizes: no common cut
                group = pd.group;
            }
        }
        if (chunk_ < dims_[cut_]) chunk_ = std::max(group, chunk_ / group * group);
        nchunks_ = (dims_[cut_] + chunk_ - 1) / chunk_;
        nouter_ = 1;
        for (int i = 0; i < cut_; ++i) nouter_ *= dims_[i];
        block_elems_ = chunk_ * inner;
    }
    if (!blocks) {
        cut_ = -1;
        block_elems_ = nelems;
    }

    size_t offset = 0;
    for (size_t s = 0; s < stages_.size(); ++s) {
        stage &st = stages_[s];
        quant_problem &p = st.full;
        if (cut_ >= 0 && p.scale_src == param_source::attr && !p.per_tensor()) {
            // Each block reads its own slice: the attribute arrays become inputs.
            st.scales = p.scales;
            p.scale_src = param_source::input;
            p.scale_dt = data_type::f32;
            p.scales.clear();
            if (p.zp_src == param_source::attr) {
                st.zps.assign(p.zps.begin(), p.zps.end());
                p.zp_src = param_source::input;
                p.zp_dt = data_type::s32;
                p.zps.clear();
            }
        }
        const bool src_mid = s > 0, dst_mid = s + 1 < stages_.size();
        if (cut_ < 0) {
            st.body = pick(p, candidates, rejected);
        } else {
            st.body = pick(block_problem(p, cut_, chunk_, src_mid, dst_mid), candidates,
                    rejected);
            const int64_t rest = dims_[cut_] % chunk_;
            if (rest != 0)
                st.tail = pick(block_problem(p, cut_, rest, src_mid, dst_mid), candidates,
                        rejected);
        }
        if (dst_mid) { // whole bytes: a sub-byte intermediate is packed
            st.scratch_offset = offset;
            const size_t bytes
                    = (static_cast<size_t>(block_elems_) * data_type_bits(p.dst_dt) + 7) / 8;
            offset += (bytes + kAlign - 1) / kAlign * kAlign;
        }
    }
    scratch_bytes_ = offset;
    // The ops' problems as lowered (attribute parameters named as such, not as the arrays
    // the blocks read).
    for (const quant_problem &p : full)
        description_ += (description_.empty() ? "" : " -> ") + p.describe();
    description_ += cut_ < 0 ? " block:whole" : " block:" + std::to_string(block_elems_);
}

const kernel &chain_runner::stage_kernel(
        size_t s, const std::vector<stage_fallback> *ran) const {
    return ran && (*ran)[s].ran ? *(*ran)[s].ran : *stages_[s].body;
}

std::string chain_runner::kernel_names(const std::vector<stage_fallback> *ran) const {
    std::string s;
    for (size_t i = 0; i < stages_.size(); ++i)
        s += (s.empty() ? "" : "+") + stage_kernel(i, ran).name();
    return s;
}

std::string chain_runner::backend_names(const std::vector<stage_fallback> *ran) const {
    std::vector<std::string> seen;
    std::string s;
    for (size_t i = 0; i < stages_.size(); ++i) {
        const std::string b = stage_kernel(i, ran).backend();
        if (std::find(seen.begin(), seen.end(), b) != seen.end()) continue;
        seen.push_back(b);
        s += (s.empty() ? "" : "+") + b;
    }
    return s;
}

std::string chain_runner::describe() const { return description_; }

void chain_runner::run_block(int64_t block, const void *const *in, void *const *out,
        char *scratch, const exec_args &proto, stage_fallback *fallbacks) const {
    const int64_t outer = cut_ < 0 ? 0 : block / nchunks_;
    const int64_t j0 = cut_ < 0 ? 0 : block % nchunks_ * chunk_;
    const bool tail = cut_ >= 0 && j0 + chunk_ > dims_[cut_];
    for (size_t s = 0; s < stages_.size(); ++s) {
        const stage &st = stages_[s];
        const quant_problem &p = st.full;
        // The block's first element in the user's index space: outer over dims before the
        // cut, j0 along it; its offsets in each external tensor and parameter array.
        int64_t src = 0, dst = 0, sc = 0, zp = 0;
        const auto step = [&](int k, int64_t i) {
            src += i * p.orig_src_strides[k];
            dst += i * p.orig_dst_strides[k];
            const param_dim &pd = p.orig_params[k];
            if (pd.varies()) {
                sc += i / pd.group * pd.scale_stride;
                zp += i / pd.group * pd.zp_stride;
            }
        };
        if (cut_ >= 0) {
            int64_t rem = outer;
            for (int k = cut_ - 1; k >= 0; --k) {
                step(k, rem % dims_[k]);
                rem /= dims_[k];
            }
            step(cut_, j0);
        }
        exec_args a = proto; // the context, without reading the settings again per block
        a.src = s == 0 ? static_cast<const char *>(in[st.args.src])
                        + src * static_cast<int64_t>(data_type_bits(p.src_dt)) / 8
                       : scratch + stages_[s - 1].scratch_offset;
        a.dst = s + 1 == stages_.size() ? static_cast<char *>(out[st.args.dst])
                        + dst * static_cast<int64_t>(data_type_bits(p.dst_dt)) / 8
                                        : scratch + st.scratch_offset;
        if (!st.scales.empty())
            a.scales = st.scales.data() + sc;
        else if (st.args.scales >= 0)
            a.scales = static_cast<const char *>(in[st.args.scales])
                    + sc * static_cast<int64_t>(size_of(p.scale_dt));
        if (!st.zps.empty())
            a.zps = st.zps.data() + zp;
        else if (st.args.zps >= 0)
            a.zps = static_cast<const char *>(in[st.args.zps])
                    + zp * static_cast<int64_t>(size_of(p.zp_dt));
        const kernel &k = tail ? *st.tail : *st.body;
        const kernel &ran = k.run(a);
        // The reason is asked right away, from this block's arguments: only verbose output
        // passes `fallbacks`, so run() builds nothing otherwise.
        if (fallbacks && &ran != &k && !fallbacks[s].ran)
            fallbacks[s] = {&ran, k.fallback_reason(a)};
    }
}

void chain_runner::run(const parallel_ctx &ctx, const void *const *in, void *const *out,
        std::vector<stage_fallback> *fallbacks) const {
    exec_args proto;
    proto.par = ctx;
    if (fallbacks) fallbacks->assign(stages_.size(), stage_fallback {});
    if (cut_ < 0) { // one block: the kernels split the whole tensor between the threads
        // Left uninitialised: every byte is written by one op before the next reads it.
        const std::unique_ptr<char[]> scratch(new char[scratch_bytes_ + kAlign]);
        run_block(0, in, out, aligned(scratch.get()), proto,
                fallbacks ? fallbacks->data() : nullptr);
        return;
    }
    // Blocks split between the threads, each block's kernels on its thread alone.
    // As many threads as the chain's outer tensors are worth (thread_count.hpp), as for the
    // single ops: a tiny chain stays on the calling thread.
    const quant_problem &first = stages_.front().full, &last = stages_.back().full;
    const int64_t bytes = (first.nelems * data_type_bits(first.src_dt)
                                  + last.nelems * data_type_bits(last.dst_dt))
            / 8;
    const int64_t nblocks = nouter_ * nchunks_;
    const int nthr = static_cast<int>(
            std::min<int64_t>(threads_for(ctx.max_threads, bytes), nblocks));
    proto.par.max_threads = 1; // each block's kernels run on its thread alone
    std::exception_ptr failed; // the first, rethrown once every thread is done
    std::mutex mutex; // guards failed and *fallbacks
    parallel(ctx, nthr, [&](int ithr, int n) {
        // Grown once per thread and kept: execute allocates nothing in the steady state.
        thread_local std::vector<char> scratch;
        if (scratch.size() < scratch_bytes_ + kAlign) scratch.resize(scratch_bytes_ + kAlign);
        char *base = aligned(scratch.data());
        int64_t b0 = 0, b1 = 0;
        balance(nblocks, 1, ithr, n, b0, b1);
        // Each thread notes its own blocks' fallbacks and merges them once, under the lock.
        std::vector<stage_fallback> mine(fallbacks ? stages_.size() : 0);
        // A kernel may throw (a float zero point that is not 0); the region must not.
        try {
            for (int64_t b = b0; b < b1; ++b)
                run_block(b, in, out, base, proto, fallbacks ? mine.data() : nullptr);
        } catch (...) {
            std::lock_guard<std::mutex> lock(mutex);
            if (!failed) failed = std::current_exception();
        }
        if (!fallbacks) return;
        std::lock_guard<std::mutex> lock(mutex);
        for (size_t s = 0; s < mine.size(); ++s)
            if (mine[s].ran && !(*fallbacks)[s].ran) (*fallbacks)[s] = mine[s];
    });
    if (failed) std::rethrow_exception(failed);
}

} // namespace impl
} // namespace qgraph
