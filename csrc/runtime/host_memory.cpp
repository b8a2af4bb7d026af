// Pinned host memory: page-aligned host blocks recorded in a registry, so
// copies can tell them from pageable memory. Nothing is actually locked
// (there is no DMA engine); the distinction drives the async copy rules.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "memory_internal.h"
#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {

namespace {

struct PinnedRegistry {
  std::mutex mu;
  std::map<uintptr_t, size_t> blocks;  // base -> bytes requested
};

PinnedRegistry& registry() {
  static auto* r = new PinnedRegistry;  // leaky on purpose
  return *r;
}

}  // namespace

bool find_pinned(const void* p, char** base, size_t* size) {
  const auto addr = reinterpret_cast<uintptr_t>(p);
  PinnedRegistry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.blocks.upper_bound(addr);
  if (it == r.blocks.begin()) return false;
  --it;
  // A one-past-the-end pointer of a block does not belong to it.
  if (addr - it->first >= std::max<size_t>(it->second, 1)) return false;
  *base = reinterpret_cast<char*>(it->first);
  *size = it->second;
  return true;
}

}  // namespace detail

using namespace detail;

Status malloc_host(size_t nbytes, void** ptr) {
  if (!ptr) return fail(Status::kInvalidValue, "malloc_host: ptr is null");
  if (bad_fork()) return forked_error();
  *ptr = nullptr;
  if (nbytes == 0) return Status::kSuccess;
  void* p = nullptr;
  if (posix_memalign(&p, page_size(), nbytes) != 0 || !p) {
    return fail(Status::kOutOfMemory, "malloc_host: could not allocate " + std::to_string(nbytes) +
                                          " bytes of pinned host memory");
  }
  PinnedRegistry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    r.blocks[reinterpret_cast<uintptr_t>(p)] = nbytes;
  }
  *ptr = p;
  return Status::kSuccess;
}

Status free_host(void* ptr) {
  if (!ptr) return Status::kSuccess;
  if (bad_fork()) return forked_error();
  PinnedRegistry& r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (!r.blocks.count(reinterpret_cast<uintptr_t>(ptr))) {
      return fail(Status::kInvalidHostPointer,
                  "free_host: " + hex(ptr) + " is not the base of a live pinned host allocation");
    }
  }
  // Like cudaFreeHost: async copies queued on any device may still use it.
  wait_all_devices_idle();
  {
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.blocks.erase(reinterpret_cast<uintptr_t>(ptr)) == 0) {
      return fail(Status::kInvalidHostPointer, "free_host: pointer freed concurrently");
    }
  }
  std::free(ptr);
  return Status::kSuccess;
}

}  // namespace torch_tpu::runtime
