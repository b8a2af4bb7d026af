// Private to csrc/runtime (and its tests): host buffers that hold the bytes
// of a pageable source until its memcpy_async ran. A fresh large buffer is
// new mmap'd memory whose page faults cost more than the copy itself, so
// buffers go back to a small cache when the copy is done and are reused.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace torch_tpu::runtime::detail {

class StagingCache {
 public:
  // The cache keeps at most max_bytes (capacities) in at most max_buffers
  // idle buffers; past that the least recently returned ones are freed.
  StagingCache(size_t max_bytes, size_t max_buffers);
  ~StagingCache();  // frees the idle buffers; taken ones must be gone
  StagingCache(const StagingCache&) = delete;
  StagingCache& operator=(const StagingCache&) = delete;

  // A buffer of at least n bytes (n > 0). It returns to this cache when
  // the last copy of the pointer is dropped (e.g. with the copy task).
  std::shared_ptr<char> take(size_t n);

  // Capacity used for a request of n bytes: a power of two of at least a
  // page, so requests of similar sizes share buffers.
  static size_t capacity_for(size_t n);

  struct Stats {
    uint64_t fresh = 0;   // take() that allocated a new buffer
    uint64_t reused = 0;  // take() served from the cache
    size_t idle_bytes = 0;
    size_t idle_buffers = 0;
  };
  Stats stats() const;

  // Frees every idle buffer.
  void clear();

 private:
  struct Idle {
    char* data;
    size_t capacity;
  };
  void give_back(char* data, size_t capacity);
  void evict_locked(std::vector<Idle>& freed);

  const size_t max_bytes_;
  const size_t max_buffers_;
  mutable std::mutex mu_;
  std::vector<Idle> idle_;  // least recently returned first
  size_t idle_bytes_ = 0;
  Stats counts_;  // fresh / reused
};

// The cache memcpy_async stages through (256 MiB, 64 buffers at most).
StagingCache& staging_cache();

}  // namespace torch_tpu::runtime::detail
