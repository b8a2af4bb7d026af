// Device address spaces: one PROT_NONE reservation per device (made on
// first use), carved into page-aligned ranges by best fit over a coalescing
// free-range map, within the device's byte budget.
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "memory_internal.h"
#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {

std::atomic<ArenaRange*> g_arena_ranges{nullptr};
std::atomic<int> g_arena_count{0};

int arena_of(const void* p) {
  const auto addr = reinterpret_cast<uintptr_t>(p);
  ArenaRange* ranges = g_arena_ranges.load(std::memory_order_acquire);
  const int n = g_arena_count.load(std::memory_order_acquire);
  for (int d = 0; d < n; ++d) {
    const uintptr_t base = ranges[d].base.load(std::memory_order_acquire);
    const size_t size = ranges[d].size.load(std::memory_order_acquire);
    if (size != 0 && addr >= base && addr - base < size) return d;
  }
  return -1;
}

namespace {

std::string dev_name(int d) { return "tpu:" + std::to_string(d); }

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

void add_free_range(Arena& a, uintptr_t start, size_t len) {
  // Coalesce with the neighbours so large requests keep fitting.
  auto next = a.free_by_addr.lower_bound(start);
  if (next != a.free_by_addr.end() && start + len == next->first) {
    len += next->second;
    a.free_by_size.erase({next->second, next->first});
    next = a.free_by_addr.erase(next);
  }
  if (next != a.free_by_addr.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == start) {
      a.free_by_size.erase({prev->second, prev->first});
      start = prev->first;
      len += prev->second;
      a.free_by_addr.erase(prev);
    }
  }
  a.free_by_addr[start] = len;
  a.free_by_size.insert({len, start});
}

// Reserves the arena's address space on first use. Caller holds a.mu.
Status ensure_reserved(Arena& a) {
  if (a.base) return Status::kSuccess;
  const size_t len = round_up(a.budget, page_size());
  void* p = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) {
    return fail(Status::kOutOfMemory, "malloc: could not reserve " + std::to_string(len) +
                                          " bytes of address space for " + dev_name(a.device) + ": " +
                                          std::strerror(errno));
  }
  a.base = static_cast<char*>(p);
  a.reserved = len;
  add_free_range(a, reinterpret_cast<uintptr_t>(p), len);
  ArenaRange& r = g_arena_ranges.load(std::memory_order_acquire)[a.device];
  r.base.store(reinterpret_cast<uintptr_t>(p), std::memory_order_release);
  r.size.store(len, std::memory_order_release);
  return Status::kSuccess;
}

}  // namespace

Status arena_take(Arena& a, size_t nbytes, char** out) {
  const bool too_big = nbytes > a.budget;
  const size_t reserved = too_big ? 0 : round_up(nbytes, page_size());
  std::lock_guard<std::mutex> lock(a.mu);
  if (Status st = ensure_reserved(a); st != Status::kSuccess) return st;
  const size_t free_bytes = a.budget - a.used;
  if (too_big || reserved > free_bytes) {
    return fail(Status::kOutOfMemory,
                dev_name(a.device) + " out of memory: tried to allocate " + std::to_string(nbytes) + " bytes; " +
                    std::to_string(free_bytes) + " bytes free of " + std::to_string(a.budget) +
                    " total (set TORCH_TPU_DEVICE_MEMORY to change the budget)");
  }
  auto fit = a.free_by_size.lower_bound({reserved, 0});
  if (fit == a.free_by_size.end()) {
    const size_t largest = a.free_by_size.empty() ? 0 : a.free_by_size.rbegin()->first;
    return fail(Status::kOutOfMemory,
                dev_name(a.device) + " out of memory: tried to allocate " + std::to_string(nbytes) + " bytes; " +
                    std::to_string(free_bytes) + " bytes free of " + std::to_string(a.budget) +
                    " total, but the largest contiguous free range is " + std::to_string(largest) +
                    " bytes (fragmentation)");
  }
  const auto [len, start] = *fit;
  a.free_by_size.erase(fit);
  a.free_by_addr.erase(start);
  if (len > reserved) {
    a.free_by_addr[start + reserved] = len - reserved;
    a.free_by_size.insert({len - reserved, start + reserved});
  }
  a.used += reserved;
  *out = reinterpret_cast<char*>(start);
  return Status::kSuccess;
}

// Gives a range back: physical pages first (MADV_DONTNEED really frees
// anonymous private pages), then no access, then reusable.
void arena_release(Arena& a, char* base, size_t reserved) {
  madvise(base, reserved, MADV_DONTNEED);
  mprotect(base, reserved, PROT_NONE);
  std::lock_guard<std::mutex> lock(a.mu);
  add_free_range(a, reinterpret_cast<uintptr_t>(base), reserved);
  a.used -= reserved;
}

namespace {

// The last few allocations this thread's launches named. An entry is used
// only while its arena's generation is the one it was cached at: records
// leave the arena only in free(), which bumps the generation first, then
// waits for pending == 0. A hit takes its pending reference, then re-reads
// the generation: unchanged means the allocation was live when the
// reference was taken (free() will wait for it); changed means undo and take
// the locked path. Records are recycled, never deleted, so the undo is safe.
struct LookupCache {
  struct Entry {
    Allocation* alloc = nullptr;
    uintptr_t base = 0;
    size_t len = 0;
    uint64_t generation = 0;
    int device = -1;
  };
  static constexpr int kEntries = 4;
  Entry entries[kEntries];
  int next = 0;
};
thread_local LookupCache t_lookup;

Allocation* cached_lookup(Arena& a, int device, uintptr_t addr) {
  const uint64_t gen = a.generation.load(std::memory_order_seq_cst);
  for (LookupCache::Entry& e : t_lookup.entries) {
    if (e.alloc == nullptr || e.device != device || e.generation != gen || addr - e.base >= e.len) continue;
    e.alloc->pending.fetch_add(1, std::memory_order_seq_cst);
    if (a.generation.load(std::memory_order_seq_cst) == gen) return e.alloc;
    e.alloc->pending.fetch_sub(1, std::memory_order_release);
    return nullptr;
  }
  return nullptr;
}

std::mutex g_records_mu;
// Guarded by g_records_mu. Never destroyed (as the arenas): a stream worker
// may still free memory while static destructors run at exit, and records
// kept here stay reachable (LeakSanitizer).
std::vector<Allocation*>& g_free_records = *new std::vector<Allocation*>;

}  // namespace

Allocation* new_allocation_record() {
  static std::atomic<uint64_t> serials{0};
  Allocation* a = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_records_mu);
    if (!g_free_records.empty()) {
      a = g_free_records.back();
      g_free_records.pop_back();
    }
  }
  if (a == nullptr) a = new Allocation;
  a->serial = serials.fetch_add(1, std::memory_order_relaxed) + 1;
  return a;
}

void recycle_allocation_record(Allocation* a) {
  // pending may still be transiently raised by a cached lookup backing out.
  a->base = nullptr;
  a->size = a->reserved = 0;
  a->users = 0;
  std::lock_guard<std::mutex> lock(g_records_mu);
  g_free_records.push_back(a);
}

Allocation* find_allocation(int device, const void* p, bool take_pending) {
  Device* dev = get_device(device);
  if (!dev) return nullptr;
  Arena& a = *dev->arena;
  const auto addr = reinterpret_cast<uintptr_t>(p);
  if (take_pending) {
    if (Allocation* hit = cached_lookup(a, device, addr)) return hit;
  }
  std::lock_guard<std::mutex> lock(a.mu);
  auto it = a.allocs.upper_bound(addr);
  if (it == a.allocs.begin()) return nullptr;
  --it;
  Allocation* alloc = it->second;
  if (addr - it->first >= alloc->reserved) return nullptr;
  if (take_pending) {
    alloc->pending.fetch_add(1, std::memory_order_relaxed);
    LookupCache& c = t_lookup;
    c.entries[c.next] = {alloc, it->first, alloc->reserved, a.generation.load(std::memory_order_relaxed), device};
    c.next = (c.next + 1) % LookupCache::kEntries;
  }
  return alloc;
}

void drop_pending(const AllocList& allocs) {
  for (Allocation* a : allocs) a->pending.fetch_sub(1, std::memory_order_release);
}

}  // namespace detail
}  // namespace torch_tpu::runtime
