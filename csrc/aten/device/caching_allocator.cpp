#include "aten/device/caching_allocator.h"

#include <c10/util/ApproximateClock.h>
#include <c10/util/irange.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "aten/device/runtime_check.h"
#include "aten/device/tpu_stream.h"

namespace torch_tpu::aten {
namespace {

using c10::CachingAllocator::StatType;
using c10::CachingAllocator::StatTypes;
using c10::CachingDeviceAllocator::DeviceStats;

constexpr size_t kMinBlockSize = 512;         // every request rounds up to this
constexpr size_t kSmallSize = 1 << 20;        // largest "small" request
constexpr size_t kSmallBuffer = 2 << 20;      // small-pool segment size
constexpr size_t kLargeBuffer = 20 << 20;     // segment for 1..10 MiB requests
constexpr size_t kMinLargeAlloc = 10 << 20;   // from here segments are exact
constexpr size_t kRoundLarge = 2 << 20;       // ... rounded to 2 MiB

// Memory history switches (record_memory_history). The settings change
// under g_history_mu; an allocation reads g_history_on alone when it is off.
std::atomic<bool> g_history_on{false};
std::mutex g_history_mu;
bool g_history_events = false;
bool g_gather_frees = false;
GatherContext g_gather;

int64_t now_us() { return c10::getTime() / 1000; }

struct BlockPool;

struct Block {
  c10::DeviceIndex device = 0;
  runtime::Stream stream = nullptr;  // the stream that allocated it
  size_t size = 0;                   // bytes in this block
  size_t requested = 0;              // bytes the caller asked for
  void* ptr = nullptr;
  BlockPool* pool = nullptr;
  bool allocated = false;
  Block* prev = nullptr;  // neighbours inside the segment
  Block* next = nullptr;
  std::unordered_set<runtime::Stream> stream_uses;  // from recordStream
  int pending_events = 0;                           // deferred free in flight
  std::shared_ptr<c10::GatheredContext> context;    // memory history: where it was allocated

  bool is_split() const { return prev != nullptr || next != nullptr; }
  bool is_free() const { return !allocated && pending_events == 0; }
};

// Free blocks ordered by (stream, size, address): lower_bound finds the
// smallest block of the right stream that is large enough.
struct BlockLess {
  bool operator()(const Block* a, const Block* b) const {
    auto sa = reinterpret_cast<uintptr_t>(a->stream), sb = reinterpret_cast<uintptr_t>(b->stream);
    if (sa != sb) return sa < sb;
    if (a->size != b->size) return a->size < b->size;
    return reinterpret_cast<uintptr_t>(a->ptr) < reinterpret_cast<uintptr_t>(b->ptr);
  }
};

struct PrivatePool;

struct BlockPool {
  using Set = std::set<Block*, BlockLess>;
  explicit BlockPool(bool small, PrivatePool* owner = nullptr) : is_small(small), owner(owner) {
    spare_nodes.reserve(kSpareNodes);
  }
  Set free_blocks;
  // Tree nodes of erased entries, reused by the next inserts: a split and a
  // merge each erase and insert, and a node malloc/free per step was a
  // tenth of a small op's host time.
  static constexpr size_t kSpareNodes = 8;
  std::vector<Set::node_type> spare_nodes;
  const bool is_small;
  PrivatePool* const owner;  // null for the device's shared pools

  void insert(Block* b) {
    if (spare_nodes.empty()) {
      free_blocks.insert(b);
      return;
    }
    Set::node_type node = std::move(spare_nodes.back());
    spare_nodes.pop_back();
    node.value() = b;
    free_blocks.insert(std::move(node));
  }
  void keep_node(Set::node_type node) {
    if (node && spare_nodes.size() < kSpareNodes) spare_nodes.push_back(std::move(node));
  }
};

// A graph's memory (see graph.cpp): what is allocated while a capture runs
// comes from here, and stays here, so the addresses a graph replays into are
// never handed to other tensors. Graphs may share one (pool= argument). When
// the last graph using it is reset the pool is released: its free segments
// go back to the device at once, the rest as their tensors are freed.
struct PrivatePool {
  explicit PrivatePool(c10::MempoolId_t id) : id(id) {}
  const c10::MempoolId_t id;
  BlockPool small{true, this};
  BlockPool large{false, this};
  int use_count = 0;      // graphs (and captures) holding it
  bool released = false;  // use_count reached 0
};

std::string format_size(uint64_t bytes) {
  char buf[64];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof(buf), "%" PRIu64 " bytes", bytes);
  } else if (bytes < (1ull << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2f KiB", bytes / 1024.0);
  } else if (bytes < (1ull << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2f MiB", bytes / 1048576.0);
  } else {
    std::snprintf(buf, sizeof(buf), "%.2f GiB", bytes / 1073741824.0);
  }
  return buf;
}

size_t round_size(size_t size) {
  return size < kMinBlockSize ? kMinBlockSize
                              : kMinBlockSize * ((size + kMinBlockSize - 1) / kMinBlockSize);
}

// The smallest large-pool segment that holds a request.
size_t tight_segment_size(size_t rounded) { return kRoundLarge * ((rounded + kRoundLarge - 1) / kRoundLarge); }

size_t segment_size(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallBuffer;
  if (rounded < kMinLargeAlloc) return kLargeBuffer;
  return tight_segment_size(rounded);
}

// All the caching state of one device, behind one mutex.
class DeviceCache {
 public:
  explicit DeviceCache(c10::DeviceIndex device) : device_(device) {}

  Block* malloc(size_t size, runtime::Stream stream, std::shared_ptr<c10::GatheredContext> context) {
    std::lock_guard<std::mutex> g(mu_);
    context_ = std::move(context);  // for the history events below
    process_pending_frees();
    const size_t rounded = round_size(size);
    BlockPool& pool = pool_for(rounded, stream);
    Block* block = take_free_block(pool, stream, rounded);
    if (block == nullptr) block = new_segment(pool, stream, segment_size(rounded));
    if (block == nullptr) {
      // Out of device memory: give back everything cached and try again.
      stats_.num_alloc_retries += 1;
      wait_pending_frees();
      release_cached_segments();
      block = take_free_block(pool, stream, rounded);
      if (block == nullptr) block = new_segment(pool, stream, segment_size(rounded));
      // Near the capacity a 20 MiB segment for a 1..10 MiB request may not
      // fit where the request does (CUDA's allocator then raises OOM with
      // memory free): take a segment just large enough instead.
      const size_t tight = tight_segment_size(rounded);
      if (block == nullptr && !pool.is_small && tight < segment_size(rounded)) {
        block = new_segment(pool, stream, tight);
      }
    }
    if (block == nullptr) {
      stats_.num_ooms += 1;
      if (history_) {
        size_t free_bytes = 0, total_bytes = 0;
        runtime::mem_get_info(device_, &free_bytes, &total_bytes);
        note(HistoryEvent::kOom, 0, size, stream).device_free = free_bytes;
      }
      throw_oom(size);
    }
    if (should_split(*block, rounded)) {
      Block* rest = spare_block();
      *rest = *block;
      rest->stream_uses.clear();
      rest->context.reset();
      rest->ptr = static_cast<char*>(block->ptr) + rounded;
      rest->size = block->size - rounded;
      rest->prev = block;
      rest->next = block->next;
      if (rest->next) rest->next->prev = rest;
      block->next = rest;
      block->size = rounded;
      pool_insert(rest);
    }
    block->allocated = true;
    block->requested = size;
    if (history_) {
      block->context = context_;
      note(HistoryEvent::kAlloc, block->ptr, block->size, stream);
    }
    context_.reset();
    update(block->pool, [&](StatType t) {
      stats_.allocation[idx(t)].increase(1);
      stats_.allocated_bytes[idx(t)].increase(block->size);
      stats_.active[idx(t)].increase(1);
      stats_.active_bytes[idx(t)].increase(block->size);
      stats_.requested_bytes[idx(t)].increase(size);
    });
    return block;
  }

  void free(Block* block, std::shared_ptr<c10::GatheredContext> context) {
    std::lock_guard<std::mutex> g(mu_);
    block->allocated = false;
    if (history_) {
      context_ = std::move(context);
      note(HistoryEvent::kFreeRequested, block->ptr, block->size, block->stream);
      context_.reset();
    }
    block->context.reset();
    update(block->pool, [&](StatType t) {
      stats_.allocation[idx(t)].decrease(1);
      stats_.allocated_bytes[idx(t)].decrease(block->size);
      stats_.requested_bytes[idx(t)].decrease(block->requested);
    });
    if (block->stream_uses.empty()) {
      return_to_pool(block);
      return;
    }
    // An event recorded on a capturing stream marks nothing that runs now:
    // while captures are underway, such frees wait until they end.
    if (!routes_.empty()) {
      deferred_.push_back(block);
      return;
    }
    free_after_stream_uses(block);
  }

  // Other streams used this memory (recordStream): it may be reused only
  // after the work they have queued so far has finished.
  void free_after_stream_uses(Block* block) {
    for (runtime::Stream s : block->stream_uses) {
      runtime::Event ev = nullptr;
      TPU_CHECK(runtime::event_create(&ev, runtime::kEventDisableTiming));
      TPU_CHECK(runtime::event_record(ev, s));
      pending_.emplace_back(ev, block);
      block->pending_events += 1;
    }
    block->stream_uses.clear();
  }

  // The allocated block starting at ptr: its segment's blocks are walked
  // (raw_delete is rare; a map kept for it cost two heap operations per
  // allocation).
  Block* find_allocated(void* ptr) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = segments_.upper_bound(reinterpret_cast<uintptr_t>(ptr));
    if (it == segments_.begin()) return nullptr;
    for (Block* b = std::prev(it)->second; b != nullptr; b = b->next) {
      if (b->ptr == ptr) return b->allocated ? b : nullptr;
    }
    return nullptr;
  }

  void record_stream(Block* block, runtime::Stream stream) {
    std::lock_guard<std::mutex> g(mu_);
    if (stream != block->stream) block->stream_uses.insert(stream);
  }

  void empty_cache() {
    std::lock_guard<std::mutex> g(mu_);
    wait_pending_frees();
    release_cached_segments();
  }

  // Allocations on the streams of capture `capture_id` come from pool `id`
  // (created on first use) until end_allocate_to_pool.
  void begin_allocate_to_pool(c10::MempoolId_t id, uint64_t capture_id) {
    std::lock_guard<std::mutex> g(mu_);
    routes_.emplace_back(capture_id, retain_locked(id));
  }

  void end_allocate_to_pool(uint64_t capture_id) {
    std::lock_guard<std::mutex> g(mu_);
    for (auto it = routes_.begin(); it != routes_.end(); ++it) {
      if (it->first == capture_id) {
        routes_.erase(it);
        break;
      }
    }
    if (!routes_.empty()) return;
    std::vector<Block*> deferred;
    deferred.swap(deferred_);
    for (Block* b : deferred) free_after_stream_uses(b);
  }

  // torch.tpu.MemPool: a pool held by a Python object (one use), and
  // use_mem_pool routing the calling thread's allocations to it.
  void retain_pool(c10::MempoolId_t id) {
    std::lock_guard<std::mutex> g(mu_);
    retain_locked(id);
  }

  // Finds or creates the pool and counts one more user. Holds mu_.
  PrivatePool* retain_locked(c10::MempoolId_t id) {
    PrivatePool*& pool = private_pools_[id];
    if (pool == nullptr) pool = new PrivatePool(id);
    pool->use_count += 1;
    return pool;
  }

  void begin_thread_route(c10::MempoolId_t id) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = private_pools_.find(id);
    TORCH_CHECK(it != private_pools_.end(), "use_mem_pool: the memory pool (", id.first, ", ", id.second,
                ") does not exist on tpu:", static_cast<int>(device_));
    it->second->use_count += 1;
    thread_routes_.emplace_back(std::this_thread::get_id(), it->second);
  }

  // Ends the calling thread's latest route to `id`; returns whether it had one.
  bool end_thread_route(c10::MempoolId_t id) {
    std::lock_guard<std::mutex> g(mu_);
    const auto me = std::this_thread::get_id();
    for (auto it = thread_routes_.rbegin(); it != thread_routes_.rend(); ++it) {
      if (it->first == me && it->second->id == id) {
        thread_routes_.erase(std::next(it).base());
        return true;
      }
    }
    return false;
  }

  int use_count(c10::MempoolId_t id) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = private_pools_.find(id);
    return it == private_pools_.end() ? 0 : it->second->use_count;
  }

  // A graph (or a failed capture) no longer needs pool `id`.
  void release_pool(c10::MempoolId_t id) {
    std::lock_guard<std::mutex> g(mu_);
    auto it = private_pools_.find(id);
    if (it == private_pools_.end()) return;
    PrivatePool* pool = it->second;
    if (--pool->use_count > 0) return;
    private_pools_.erase(it);
    pool->released = true;
    released_pools_.push_back(pool);
    release_free_segments(pool->small);
    release_free_segments(pool->large);
    drop_empty_released_pools();
  }

  // torch.tpu.set_per_process_memory_fraction: segments beyond fraction x
  // the device's memory fail as out of memory (after the cache is freed).
  void set_fraction(double fraction) {
    std::lock_guard<std::mutex> g(mu_);
    size_t free_bytes = 0, total = 0;
    TPU_CHECK(runtime::mem_get_info(device_, &free_bytes, &total));
    fraction_ = fraction;
    limit_ = fraction >= 1.0 ? 0 : static_cast<size_t>(fraction * static_cast<double>(total));
  }
  double fraction() {
    std::lock_guard<std::mutex> g(mu_);
    return fraction_;
  }

  DeviceStats stats() {
    std::lock_guard<std::mutex> g(mu_);
    DeviceStats s = stats_;
    s.max_split_size = -1;  // no limit: any cached block may be split
    return s;
  }

  void reset_accumulated() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto* arr : stat_arrays()) {
      for (auto& st : *arr) st.reset_accumulated();
    }
    stats_.num_alloc_retries = 0;
    stats_.num_ooms = 0;
    stats_.num_sync_all_streams = 0;
    stats_.num_device_alloc = 0;
    stats_.num_device_free = 0;
    stats_.oversize_allocations.reset_accumulated();
    stats_.oversize_segments.reset_accumulated();
  }

  void reset_peak() {
    std::lock_guard<std::mutex> g(mu_);
    for (auto* arr : stat_arrays()) {
      for (auto& st : *arr) st.reset_peak();
    }
    stats_.oversize_allocations.reset_peak();
    stats_.oversize_segments.reset_peak();
  }

  void snapshot(std::vector<c10::CachingDeviceAllocator::SegmentInfo>& out) {
    std::lock_guard<std::mutex> g(mu_);
    for (auto& [base, head] : segments_) {
      c10::CachingDeviceAllocator::SegmentInfo seg;
      seg.device = device_;
      seg.address = base;
      seg.stream = head->stream;
      seg.is_large = !head->pool->is_small;
      if (head->pool->owner != nullptr) seg.owner_private_pool_id = head->pool->owner->id;
      for (Block* b = head; b != nullptr; b = b->next) {
        c10::CachingDeviceAllocator::BlockInfo info;
        info.size = b->size;
        info.requested_size = b->allocated ? b->requested : 0;
        info.allocated = b->allocated;
        info.active = !b->is_free();
        if (b->allocated) info.context_when_allocated = b->context;
        seg.total_size += b->size;
        if (b->allocated) {
          seg.allocated_size += b->size;
          seg.requested_size += b->requested;
        }
        if (info.active) seg.active_size += b->size;
        seg.blocks.push_back(info);
      }
      out.push_back(std::move(seg));
    }
  }

  // Memory history: on, events kept (at most max_entries), or off (all dropped).
  void set_history(bool on, bool events, size_t max_entries) {
    std::lock_guard<std::mutex> g(mu_);
    history_ = on;
    history_events_ = on && events;
    history_max_ = max_entries;
    if (!history_events_) events_.clear();
    while (events_.size() > history_max_) events_.pop_front();
    if (!on) {
      for (auto& [base, head] : segments_) {
        for (Block* b = head; b != nullptr; b = b->next) b->context.reset();
      }
    }
  }

  std::vector<HistoryEvent> history() {
    std::lock_guard<std::mutex> g(mu_);
    return {events_.begin(), events_.end()};
  }

  // Current allocated and reserved bytes, as the profiler's memory events report them.
  std::pair<int64_t, int64_t> usage() {
    std::lock_guard<std::mutex> g(mu_);
    const auto agg = idx(StatType::AGGREGATE);
    return {stats_.allocated_bytes[agg].current, stats_.reserved_bytes[agg].current};
  }

 private:
  static size_t idx(StatType t) { return static_cast<size_t>(t); }

  // Appends a history event (under mu_) with the current call's context.
  HistoryEvent& note(HistoryEvent::Action action, const void* addr, size_t size, runtime::Stream stream) {
    static HistoryEvent ignored;
    if (!history_events_ || history_max_ == 0) return ignored = HistoryEvent();
    if (events_.size() >= history_max_) events_.pop_front();
    HistoryEvent& e = events_.emplace_back();
    e.action = action;
    e.addr = reinterpret_cast<uintptr_t>(addr);
    e.size = size;
    e.stream = reinterpret_cast<uintptr_t>(stream);
    e.time_us = now_us();
    e.context = context_;
    return e;
  }

  template <typename F>
  void update(const BlockPool* pool, F f) {
    f(StatType::AGGREGATE);
    f(pool->is_small ? StatType::SMALL_POOL : StatType::LARGE_POOL);
  }

  std::vector<c10::CachingAllocator::StatArray*> stat_arrays() {
    return {&stats_.allocation,      &stats_.segment,         &stats_.active,
            &stats_.inactive_split,  &stats_.allocated_bytes, &stats_.reserved_bytes,
            &stats_.active_bytes,    &stats_.inactive_split_bytes, &stats_.requested_bytes};
  }

  BlockPool& pool_for(size_t rounded, runtime::Stream stream) {
    const bool small = rounded <= kSmallSize;
    if (!routes_.empty()) {
      if (const uint64_t capture = runtime::stream_capture_id(stream); capture != 0) {
        for (auto& [id, pool] : routes_) {
          if (id == capture) return small ? pool->small : pool->large;
        }
      }
    }
    if (!thread_routes_.empty()) {  // use_mem_pool: the innermost route of this thread
      const auto me = std::this_thread::get_id();
      for (auto it = thread_routes_.rbegin(); it != thread_routes_.rend(); ++it) {
        if (it->first == me) return small ? it->second->small : it->second->large;
      }
    }
    return small ? small_ : large_;
  }

  static bool should_split(const Block& block, size_t rounded) {
    size_t remaining = block.size - rounded;
    return block.pool->is_small ? remaining >= kMinBlockSize : remaining > kSmallSize;
  }

  Block* spare_block() {
    if (spare_blocks_.empty()) return new Block();
    Block* b = spare_blocks_.back();
    spare_blocks_.pop_back();
    return b;
  }

  void recycle_block(Block* b) {
    *b = Block();
    spare_blocks_.push_back(b);
  }

  // The pool's free set changes only through these two, which keep the
  // inactive_split statistics exact.
  void pool_insert(Block* block) {
    block->pool->insert(block);
    if (block->is_split()) {
      update(block->pool, [&](StatType t) {
        stats_.inactive_split[idx(t)].increase(1);
        stats_.inactive_split_bytes[idx(t)].increase(block->size);
      });
    }
  }

  void pool_erase(Block* block) {
    BlockPool::Set& set = block->pool->free_blocks;
    if (auto it = set.find(block); it != set.end()) {
      pool_erase(it);
    } else {
      erased(block);  // (not expected: every free block is pooled)
    }
  }
  void pool_erase(BlockPool::Set::iterator it) {
    Block* block = *it;
    block->pool->keep_node(block->pool->free_blocks.extract(it));
    erased(block);
  }
  void erased(Block* block) {
    if (block->is_split()) {
      update(block->pool, [&](StatType t) {
        stats_.inactive_split[idx(t)].decrease(1);
        stats_.inactive_split_bytes[idx(t)].decrease(block->size);
      });
    }
  }

  Block* take_free_block(BlockPool& pool, runtime::Stream stream, size_t rounded) {
    Block key;
    key.stream = stream;
    key.size = rounded;
    auto it = pool.free_blocks.lower_bound(&key);
    if (it == pool.free_blocks.end() || (*it)->stream != stream) return nullptr;
    Block* block = *it;
    pool_erase(it);
    return block;
  }

  Block* new_segment(BlockPool& pool, runtime::Stream stream, size_t bytes) {
    const int64_t reserved = stats_.reserved_bytes[idx(StatType::AGGREGATE)].current;
    if (limit_ != 0 && static_cast<size_t>(reserved) + bytes > limit_) return nullptr;  // the fraction
    void* ptr = nullptr;
    runtime::Status st = runtime::malloc(device_, bytes, &ptr);
    if (st == runtime::Status::kOutOfMemory) return nullptr;
    TPU_CHECK(st);
    Block* block = spare_block();
    block->device = device_;
    block->stream = stream;
    block->size = bytes;
    block->ptr = ptr;
    block->pool = &pool;
    segments_[reinterpret_cast<uintptr_t>(ptr)] = block;
    stats_.num_device_alloc += 1;
    if (history_) note(HistoryEvent::kSegmentAlloc, ptr, bytes, stream);
    update(&pool, [&](StatType t) {
      stats_.segment[idx(t)].increase(1);
      stats_.reserved_bytes[idx(t)].increase(bytes);
    });
    return block;
  }

  // A block nobody uses any more: merge it with free neighbours, then cache.
  void return_to_pool(Block* block) {
    if (history_) note(HistoryEvent::kFreeCompleted, block->ptr, block->size, block->stream);
    update(block->pool, [&](StatType t) {
      stats_.active[idx(t)].decrease(1);
      stats_.active_bytes[idx(t)].decrease(block->size);
    });
    if (Block* p = block->prev; p != nullptr && p->is_free()) {
      pool_erase(p);
      block->ptr = p->ptr;
      block->size += p->size;
      block->prev = p->prev;
      if (block->prev) {
        block->prev->next = block;
      } else {
        segments_[reinterpret_cast<uintptr_t>(block->ptr)] = block;
      }
      recycle_block(p);
    }
    if (Block* n = block->next; n != nullptr && n->is_free()) {
      pool_erase(n);
      block->size += n->size;
      block->next = n->next;
      if (block->next) block->next->prev = block;
      recycle_block(n);
    }
    pool_insert(block);
    if (block->pool->owner != nullptr && block->pool->owner->released && !block->is_split()) {
      release_free_segments(*block->pool);  // its graphs are gone: give the memory back
      drop_empty_released_pools();
    }
  }

  void finish_pending(Block* block) {
    block->pending_events -= 1;
    if (block->pending_events == 0) return_to_pool(block);
  }

  void process_pending_frees() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      const runtime::Status st = runtime::event_query(it->first);
      if (st == runtime::Status::kNotReady) {
        ++it;
        continue;
      }
      TPU_CHECK(st);
      runtime::event_destroy(it->first);
      Block* block = it->second;
      it = pending_.erase(it);
      finish_pending(block);
    }
  }

  void wait_pending_frees() {
    stats_.num_sync_all_streams += 1;
    while (!pending_.empty()) {
      auto [ev, block] = pending_.front();
      pending_.pop_front();
      runtime::Status st = runtime::event_synchronize(ev);
      runtime::event_destroy(ev);
      finish_pending(block);
      TPU_CHECK(st);
    }
  }

  // Frees every cached segment that is entirely unused. runtime::free
  // synchronises the device, so no queued work still touches the memory.
  void release_cached_segments() {
    release_free_segments(small_);
    release_free_segments(large_);
    for (PrivatePool* p : released_pools_) {
      release_free_segments(p->small);
      release_free_segments(p->large);
    }
    drop_empty_released_pools();
  }

  void release_free_segments(BlockPool& pool) {
    for (auto it = pool.free_blocks.begin(); it != pool.free_blocks.end();) {
      Block* block = *it;
      if (block->is_split()) {
        ++it;
        continue;
      }
      it = pool.free_blocks.erase(it);
      segments_.erase(reinterpret_cast<uintptr_t>(block->ptr));
      if (history_) note(HistoryEvent::kSegmentFree, block->ptr, block->size, block->stream);
      TPU_CHECK(runtime::free(block->ptr));
      stats_.num_device_free += 1;
      update(&pool, [&](StatType t) {
        stats_.segment[idx(t)].decrease(1);
        stats_.reserved_bytes[idx(t)].decrease(block->size);
      });
      recycle_block(block);
    }
  }

  // A released pool whose segments are all gone is deleted.
  void drop_empty_released_pools() {
    for (auto it = released_pools_.begin(); it != released_pools_.end();) {
      if (has_segments((*it)->small) || has_segments((*it)->large)) {
        ++it;
        continue;
      }
      delete *it;
      it = released_pools_.erase(it);
    }
  }

  bool has_segments(const BlockPool& pool) const {
    for (const auto& [base, head] : segments_) {
      if (head->pool == &pool) return true;
    }
    return false;
  }

  [[noreturn]] void throw_oom(size_t size) {
    size_t free_bytes = 0, total_bytes = 0;
    runtime::mem_get_info(device_, &free_bytes, &total_bytes);
    const auto agg = idx(StatType::AGGREGATE);
    const int64_t allocated = stats_.allocated_bytes[agg].current;
    const int64_t reserved = stats_.reserved_bytes[agg].current;
    TORCH_CHECK_WITH(
        OutOfMemoryError, false, "TPU out of memory. Tried to allocate ", format_size(size),
        ". tpu:", static_cast<int>(device_), " has a total capacity of ",
        format_size(total_bytes), " of which ", format_size(free_bytes),
        " is free. Of the allocated memory ", format_size(allocated),
        " is allocated by PyTorch, and ", format_size(reserved - allocated),
        " is reserved by PyTorch but unallocated. The capacity is set by "
        "TORCH_TPU_DEVICE_MEMORY", limit_ != 0 ? "; this process may use " + format_size(limit_) +
        " of it (torch.tpu.set_per_process_memory_fraction(" + std::to_string(fraction_) + "))" : std::string(),
        ".");
  }

  std::mutex mu_;
  const c10::DeviceIndex device_;
  BlockPool small_{true};
  BlockPool large_{false};
  std::vector<Block*> spare_blocks_;  // recycled records: a split costs no malloc
  std::map<uintptr_t, Block*> segments_;  // segment base -> first block
  std::deque<std::pair<runtime::Event, Block*>> pending_;
  std::map<c10::MempoolId_t, PrivatePool*> private_pools_;  // in use by graphs
  std::vector<PrivatePool*> released_pools_;                // segments still allocated
  std::vector<std::pair<uint64_t, PrivatePool*>> routes_;   // capture id -> pool
  std::vector<std::pair<std::thread::id, PrivatePool*>> thread_routes_;  // use_mem_pool
  std::vector<Block*> deferred_;  // freed during a capture, waiting for recordStream users
  bool history_ = false;          // memory history on (blocks keep their context)
  bool history_events_ = false;   // ... and events are kept
  size_t history_max_ = 0;
  std::deque<HistoryEvent> events_;
  std::shared_ptr<c10::GatheredContext> context_;  // the running malloc's or free's context
  size_t limit_ = 0;              // bytes this process may reserve (0: the whole device)
  double fraction_ = 1.0;
  DeviceStats stats_;
};

DeviceCache& cache(c10::DeviceIndex device) {
  static std::vector<DeviceCache*> caches = [] {
    std::vector<DeviceCache*> v;  // leaked: memory outlives static destructors
    for (int i = 0; i < runtime::device_count(); ++i) {
      v.push_back(new DeviceCache(static_cast<c10::DeviceIndex>(i)));
    }
    return v;
  }();
  check_device_index(device);
  return *caches[device];
}

// The context of an allocation or free, gathered before the allocator's
// lock is taken (gathering may take the GIL).
std::shared_ptr<c10::GatheredContext> gather_context(bool for_free) {
  if (!g_history_on.load(std::memory_order_relaxed)) return nullptr;
  GatherContext gather;
  {
    std::lock_guard<std::mutex> lock(g_history_mu);
    if (!g_gather || (for_free && !g_gather_frees)) return nullptr;
    gather = g_gather;
  }
  return gather();
}

// profile_memory=True: the profiler's memory events (a thread-local check
// when the profiler is off).
void report_to_profiler(void* ptr, int64_t delta, c10::DeviceIndex device) {
  if (!c10::memoryProfilingEnabled()) return;
  const auto [allocated, reserved] = cache(device).usage();
  c10::reportMemoryUsageToProfiler(ptr, delta, static_cast<size_t>(allocated), static_cast<size_t>(reserved),
                                   tpu_device(device));
}

void delete_block(void* ctx) {
  // A child forked after the device started cannot touch it (e.g. a fork
  // based DataLoader worker freeing an inherited tensor): leak, don't throw.
  if (runtime::in_bad_fork()) return;
  auto* block = static_cast<Block*>(ctx);
  const c10::DeviceIndex device = block->device;
  const size_t size = block->size;
  void* ptr = block->ptr;
  cache(device).free(block, gather_context(/*for_free=*/true));
  report_to_profiler(ptr, -static_cast<int64_t>(size), device);
}

void delete_raw(void* ptr) {
  if (ptr == nullptr) return;
  runtime::PointerAttributes attr;
  runtime::pointer_get_attributes(ptr, &attr);
  TORCH_CHECK(attr.type == runtime::MemoryType::kDevice, "not a tpu pointer: ", ptr);
  auto& c = cache(static_cast<c10::DeviceIndex>(attr.device));
  Block* block = c.find_allocated(ptr);
  TORCH_CHECK(block != nullptr, "tpu pointer ", ptr, " was not allocated by the allocator");
  const size_t block_size = block->size;
  c.free(block, gather_context(/*for_free=*/true));
  report_to_profiler(ptr, -static_cast<int64_t>(block_size), static_cast<c10::DeviceIndex>(attr.device));
}

class TpuCachingAllocator final : public c10::DeviceAllocator {
 public:
  c10::DataPtr allocate(size_t nbytes) override {
    const c10::DeviceIndex device = current_device();
    if (nbytes == 0) return c10::DataPtr(nullptr, tpu_device(device));
    Block* block = cache(device).malloc(nbytes, native_stream(current_stream(device)),
                                        gather_context(/*for_free=*/false));
    report_to_profiler(block->ptr, static_cast<int64_t>(block->size), device);
    return c10::DataPtr(block->ptr, block, &delete_block, tpu_device(device));
  }

  c10::DeleterFnPtr raw_deleter() const override { return &delete_raw; }

  void copy_data(void* dst, const void* src, size_t count) const override {
    TPU_CHECK(runtime::memcpy(dst, src, count, runtime::MemcpyKind::kDeviceToDevice));
  }

  bool initialized() override { return true; }

  void emptyCache(c10::MempoolId_t /*mempool_id*/) override {
    for (c10::DeviceIndex d = 0; d < device_count(); ++d) cache(d).empty_cache();
  }

  void recordStream(const c10::DataPtr& ptr, c10::Stream stream) override {
    if (ptr.get() == nullptr || ptr.get_deleter() != &delete_block) return;
    auto* block = static_cast<Block*>(ptr.get_context());
    cache(block->device).record_stream(block, native_stream(stream));
  }

  DeviceStats getDeviceStats(c10::DeviceIndex device) override {
    return cache(device).stats();
  }

  void resetAccumulatedStats(c10::DeviceIndex device) override {
    cache(device).reset_accumulated();
  }

  void resetPeakStats(c10::DeviceIndex device) override { cache(device).reset_peak(); }

  std::pair<size_t, size_t> getMemoryInfo(c10::DeviceIndex device) override {
    check_device_index(device);
    size_t free_bytes = 0, total_bytes = 0;
    TPU_CHECK(runtime::mem_get_info(device, &free_bytes, &total_bytes));
    return {free_bytes, total_bytes};
  }
};

}  // namespace

c10::DeviceAllocator* device_allocator() {
  static auto* allocator = new TpuCachingAllocator();
  return allocator;
}

void begin_allocate_to_pool(c10::DeviceIndex device, c10::MempoolId_t pool, uint64_t capture_id) {
  cache(device).begin_allocate_to_pool(pool, capture_id);
}

void end_allocate_to_pool(c10::DeviceIndex device, uint64_t capture_id) {
  cache(device).end_allocate_to_pool(capture_id);
}

void release_pool(c10::DeviceIndex device, c10::MempoolId_t pool) { cache(device).release_pool(pool); }

void set_memory_fraction(c10::DeviceIndex device, double fraction) {
  TORCH_CHECK(fraction >= 0 && fraction <= 1, "Invalid fraction value: ", fraction, ". Allowed range: 0~1");
  cache(device).set_fraction(fraction);
}

double memory_fraction(c10::DeviceIndex device) { return cache(device).fraction(); }

void retain_pool(c10::DeviceIndex device, c10::MempoolId_t pool) { cache(device).retain_pool(pool); }
void begin_thread_route(c10::DeviceIndex device, c10::MempoolId_t pool) { cache(device).begin_thread_route(pool); }
void end_thread_route(c10::DeviceIndex device, c10::MempoolId_t pool) {
  if (cache(device).end_thread_route(pool)) cache(device).release_pool(pool);
}
int pool_use_count(c10::DeviceIndex device, c10::MempoolId_t pool) { return cache(device).use_count(pool); }

void record_memory_history(bool enabled, bool record_events, GatherContext gather, bool gather_frees,
                           size_t max_entries) {
  {
    std::lock_guard<std::mutex> lock(g_history_mu);
    g_history_events = enabled && record_events;
    g_gather_frees = enabled && record_events && gather_frees;
    g_gather = enabled ? std::move(gather) : nullptr;
    g_history_on.store(enabled, std::memory_order_relaxed);
  }
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) cache(d).set_history(enabled, record_events, max_entries);
}

std::vector<std::vector<HistoryEvent>> memory_history() {
  std::vector<std::vector<HistoryEvent>> out;
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) out.push_back(cache(d).history());
  return out;
}

const char* history_action_name(HistoryEvent::Action action) {
  switch (action) {
    case HistoryEvent::kAlloc: return "alloc";
    case HistoryEvent::kFreeRequested: return "free_requested";
    case HistoryEvent::kFreeCompleted: return "free_completed";
    case HistoryEvent::kSegmentAlloc: return "segment_alloc";
    case HistoryEvent::kSegmentFree: return "segment_free";
    case HistoryEvent::kOom: return "oom";
  }
  return "unknown";
}

std::vector<c10::CachingDeviceAllocator::SegmentInfo> memory_snapshot() {
  std::vector<c10::CachingDeviceAllocator::SegmentInfo> out;
  for (c10::DeviceIndex d = 0; d < device_count(); ++d) cache(d).snapshot(out);
  return out;
}

}  // namespace torch_tpu::aten
