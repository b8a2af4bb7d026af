// Private to csrc/runtime: device arenas, allocation records, pointer
// classification and strict-mode access control.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

#include "runtime_internal.h"
#include "small_vector.h"

namespace torch_tpu::runtime::detail {

struct Allocation;
// The allocations a task names: inline up to 8, like the launch's buffers.
using AllocList = SmallVector<Allocation*, 8>;

// One live device allocation. Owned by its arena's `allocs` map until free.
struct Allocation {
  char* base = nullptr;
  size_t size = 0;      // bytes requested
  size_t reserved = 0;  // page-rounded bytes taken from the arena and budget
  int device = 0;
  // Unique per allocation (records are recycled): a graph checks that the
  // memory it names is still the allocation it captured, not a new one there.
  uint64_t serial = 0;
  // Tasks currently running that name this allocation. Guarded by the
  // protection mutex: the 0 <-> 1 transitions change page protection.
  int users = 0;
  // Tasks enqueued (not yet finished) that name this allocation; free()
  // waits for zero so no queued task can still touch reused memory.
  std::atomic<int> pending{0};
};

// A device's address space: one PROT_NONE reservation, carved page-aligned.
struct Arena {
  int device = 0;
  size_t budget = 0;
  std::mutex mu;  // guards everything below
  char* base = nullptr;  // reserved lazily
  size_t reserved = 0;
  size_t used = 0;       // page-rounded bytes of live allocations
  std::map<uintptr_t, size_t> free_by_addr;             // start -> length
  std::set<std::pair<size_t, uintptr_t>> free_by_size;  // (length, start)
  std::map<uintptr_t, Allocation*> allocs;              // base -> record
  // Bumped (under mu) whenever a record leaves `allocs`: a host thread's
  // cached lookup (find_allocation) is valid while it is unchanged.
  std::atomic<uint64_t> generation{0};
};

// Arena bounds published for lock-free readers (fault handler, pointer
// classification). Index = device; size 0 until the arena is reserved.
struct ArenaRange {
  std::atomic<uintptr_t> base{0};
  std::atomic<size_t> size{0};
};
extern std::atomic<ArenaRange*> g_arena_ranges;
extern std::atomic<int> g_arena_count;

// Device whose address space contains p, or -1. Lock free, signal safe.
int arena_of(const void* p);

// Carves a page-aligned range for nbytes from the arena (reserving the
// address space on first use) and charges it to the budget; kOutOfMemory
// with requested/free/total bytes otherwise.
Status arena_take(Arena& a, size_t nbytes, char** out);
// Returns a range: physical pages released, PROT_NONE, budget credited.
void arena_release(Arena& a, char* base, size_t reserved);

// Finds the live allocation containing p (interior pointers allowed; the
// page-rounded extent counts). With take_pending, also counts one pending
// task reference (released by end_access / drop_pending); that lookup is
// what every launch does per buffer, so it first tries a per-thread cache
// of recent results (no lock; see arena.cpp).
Allocation* find_allocation(int device, const void* p, bool take_pending);

// Allocation records are recycled, never deleted: a cached lookup may touch
// a record's `pending` count just after the allocation was freed (it then
// sees the arena's generation changed and undoes it).
Allocation* new_allocation_record();
void recycle_allocation_record(Allocation* a);
void drop_pending(const AllocList& allocs);

// Pinned host registry (host_memory.cpp): base/size of the block holding p.
bool find_pinned(const void* p, char** base, size_t* size);

// ----------------------------------------------------------- protection --
// Strict mode. begin/end_access bracket a task that names `allocs`: the
// first user makes an allocation accessible, the last one protects it again.
// end_access also drops the pending references taken at enqueue.
void begin_access(const AllocList& allocs);
void end_access(const AllocList& allocs);
// Applies the protection a new allocation must start with (caller holds
// protection_mutex()). Returns false if mprotect failed.
bool protect_new_allocation(Allocation* a);
std::mutex& protection_mutex();
bool strict_enabled();
// Whether a launch records its own device's buffers too (see launch.cpp).
bool record_all_buffers();
void init_strict_mode(bool on);

// Waits (without consuming sticky errors) until all work enqueued so far on
// every stream of `device` finished. Skips the calling worker's own stream.
void wait_device_idle(int device);
void wait_all_devices_idle();
// Returns once every launch that was filling a task slot on any stream has
// published it (takes and releases each stream's producer lock).
void wait_for_launches_in_progress();

}  // namespace torch_tpu::runtime::detail
