#include "interface/compiled_partition_cache.hpp"

#include <list>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "common/config.hpp"
#include "interface/config.hpp"

namespace qgraph {
namespace impl {
namespace {

// Keys are bytes, not text: values are appended in binary, each list prefixed by its length,
// so two different requests can never produce the same key.
class key_writer {
public:
    template <typename T>
    void pod(const T &v) {
        key_.append(reinterpret_cast<const char *>(&v), sizeof(v));
    }
    void str(const std::string &s) {
        pod(s.size());
        key_ += s;
    }
    template <typename T>
    void vec(const std::vector<T> &v) {
        pod(v.size());
        key_.append(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(T));
    }
    void tensor(const logical_tensor &t) {
        pod(t.get_id());
        pod(t.get_data_type());
        pod(t.get_layout_type());
        pod(t.get_property_type());
        pod(t.has_known_shape());
        if (t.has_known_shape()) vec(t.get_dims());
        vec(t.get_strides());
    }
    std::string take() { return std::move(key_); }

private:
    std::string key_;
};

struct visit_attr {
    key_writer &w;
    void operator()(int64_t v) const { w.pod(v); }
    void operator()(float v) const { w.pod(v); }
    void operator()(bool v) const { w.pod(v); }
    void operator()(const std::string &v) const { w.str(v); }
    void operator()(const std::vector<int64_t> &v) const { w.vec(v); }
    void operator()(const std::vector<float> &v) const { w.vec(v); }
};

int capacity_from_env() { return env_int("QGRAPH_CACHE_CAPACITY", 0, 1 << 20, 1024); }

class lru_cache {
public:
    std::shared_ptr<const compiled_partition_impl> find(const std::string &key) {
        std::lock_guard<std::mutex> lock(m_);
        auto it = map_.find(key);
        if (it == map_.end()) return nullptr;
        order_.splice(order_.begin(), order_, it->second); // most recently used first
        return it->second->second;
    }

    std::shared_ptr<const compiled_partition_impl> insert(
            const std::string &key, std::shared_ptr<const compiled_partition_impl> cp) {
        std::lock_guard<std::mutex> lock(m_);
        if (capacity_ == 0) return cp;
        auto it = map_.find(key);
        if (it != map_.end()) return it->second->second; // compiled by another thread too
        order_.emplace_front(key, std::move(cp));
        map_.emplace(key, order_.begin());
        evict();
        return order_.front().second;
    }

    int capacity() {
        std::lock_guard<std::mutex> lock(m_);
        return capacity_;
    }
    void set_capacity(int c) {
        std::lock_guard<std::mutex> lock(m_);
        capacity_ = c;
        evict();
    }
    int size() {
        std::lock_guard<std::mutex> lock(m_);
        return static_cast<int>(map_.size());
    }

private:
    void evict() {
        while (static_cast<int>(map_.size()) > capacity_) {
            map_.erase(order_.back().first);
            order_.pop_back();
        }
    }
    using entry = std::pair<std::string, std::shared_ptr<const compiled_partition_impl>>;
    std::mutex m_;
    int capacity_ = capacity_from_env();
    std::list<entry> order_;
    std::unordered_map<std::string, std::list<entry>::iterator> map_;
};

lru_cache &cache() {
    static lru_cache c;
    return c;
}

} // namespace

std::string compile_key(const compile_settings &settings, const std::vector<op> &ops,
        const std::vector<logical_tensor> &inputs, const std::vector<logical_tensor> &outputs) {
    key_writer w;
    w.pod(ops.size());
    for (const op &the_op : ops) {
        w.pod(the_op.get_kind());
        w.pod(the_op.get_id());
        w.pod(the_op.get_attrs().size());
        for (const auto &kv : the_op.get_attrs()) {
            w.str(kv.first);
            w.pod(kv.second.index());
            std::visit(visit_attr {w}, kv.second);
        }
        // The op's own ports (their ids and declared types) shape the result as much as
        // the tensors given to compile do.
        for (const auto *list :
                {&the_op.get_input_logical_tensors(), &the_op.get_output_logical_tensors()}) {
            w.pod(list->size());
            for (const logical_tensor &t : *list) w.tensor(t);
        }
    }
    for (const auto *list : {&inputs, &outputs}) {
        w.pod(list->size());
        for (const logical_tensor &t : *list) w.tensor(t);
    }
    w.str(settings.backend);
    w.pod(settings.isa_cap);
    return w.take();
}

std::shared_ptr<const compiled_partition_impl> cache_find(const std::string &key) {
    return cache().find(key);
}

std::shared_ptr<const compiled_partition_impl> cache_insert(
        const std::string &key, std::shared_ptr<const compiled_partition_impl> cp) {
    return cache().insert(key, std::move(cp));
}

int cache_capacity() { return cache().capacity(); }
void set_cache_capacity(int capacity) { cache().set_capacity(capacity); }
int cache_size() { return cache().size(); }

} // namespace impl
} // namespace qgraph
