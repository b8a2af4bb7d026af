// The staging cache of memcpy_async (staging_cache.h).
#include "staging_cache.h"

#include <bit>
#include <cstdlib>

namespace torch_tpu::runtime::detail {

namespace {

// Page-sized alignment and granularity: whole pages are what a fresh
// buffer faults in, and memcpy likes aligned buffers.
constexpr size_t kAlignment = 4096;

}  // namespace

StagingCache::StagingCache(size_t max_bytes, size_t max_buffers)
    : max_bytes_(max_bytes), max_buffers_(max_buffers) {}

StagingCache::~StagingCache() { clear(); }

size_t StagingCache::capacity_for(size_t n) {
  if (n <= kAlignment) return kAlignment;
  if (n > (SIZE_MAX >> 1)) return n;  // no power of two above it; the allocation fails anyway
  return std::bit_ceil(n);
}

std::shared_ptr<char> StagingCache::take(size_t n) {
  const size_t capacity = capacity_for(n);
  char* data = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Most recently returned first: its pages are the likeliest to be warm.
    for (auto it = idle_.rbegin(); it != idle_.rend(); ++it) {
      if (it->capacity == capacity) {
        data = it->data;
        idle_bytes_ -= capacity;
        idle_.erase(std::next(it).base());
        ++counts_.reused;
        break;
      }
    }
    if (!data) ++counts_.fresh;
  }
  if (!data) {
    data = static_cast<char*>(std::aligned_alloc(kAlignment, capacity));
    if (!data) return nullptr;
  }
  return std::shared_ptr<char>(data, [this, capacity](char* p) { give_back(p, capacity); });
}

void StagingCache::give_back(char* data, size_t capacity) {
  if (capacity > max_bytes_) {  // would evict everything else and itself
    std::free(data);
    return;
  }
  std::vector<Idle> freed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    idle_.push_back({data, capacity});
    idle_bytes_ += capacity;
    evict_locked(freed);
  }
  for (const Idle& b : freed) std::free(b.data);  // outside the lock: munmap is slow
}

void StagingCache::evict_locked(std::vector<Idle>& freed) {
  size_t drop = 0;
  while (drop < idle_.size() && (idle_bytes_ > max_bytes_ || idle_.size() - drop > max_buffers_)) {
    idle_bytes_ -= idle_[drop].capacity;
    freed.push_back(idle_[drop]);
    ++drop;
  }
  idle_.erase(idle_.begin(), idle_.begin() + static_cast<std::ptrdiff_t>(drop));
}

StagingCache::Stats StagingCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = counts_;
  s.idle_bytes = idle_bytes_;
  s.idle_buffers = idle_.size();
  return s;
}

void StagingCache::clear() {
  std::vector<Idle> freed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    freed.swap(idle_);
    idle_bytes_ = 0;
  }
  for (const Idle& b : freed) std::free(b.data);
}

StagingCache& staging_cache() {
  // Leaky on purpose: stream workers may still return buffers during exit.
  static auto* cache = new StagingCache(size_t{256} << 20, 64);
  return *cache;
}

}  // namespace torch_tpu::runtime::detail
