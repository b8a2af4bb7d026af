// Device memory API: malloc/free/mem_get_info on top of the device arenas
// (arena.cpp). Allocations start accessible in normal mode and PROT_NONE in
// strict mode; free waits until no queued work can touch the range.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "memory_internal.h"
#include "runtime_internal.h"
#include "stream_internal.h"

namespace torch_tpu::runtime {

namespace {

std::string dev_name(int d) { return "tpu:" + std::to_string(d); }

}  // namespace

using namespace detail;

Status malloc(int device, size_t nbytes, void** ptr) {
  Device* dev = get_device(device);
  if (!dev) return fail(Status::kInvalidDevice, "malloc: invalid device index " + std::to_string(device));
  if (!ptr) return fail(Status::kInvalidValue, "malloc: ptr is null");
  if (bad_fork()) return forked_error();
  *ptr = nullptr;
  if (nbytes == 0) return Status::kSuccess;
  Arena& a = *dev->arena;
  char* base = nullptr;
  if (Status st = arena_take(a, nbytes, &base); st != Status::kSuccess) return st;
  const size_t reserved = (nbytes + page_size() - 1) / page_size() * page_size();

  Allocation* alloc = new_allocation_record();
  alloc->base = base;
  alloc->size = nbytes;
  alloc->reserved = reserved;
  alloc->device = device;
  {
    // Under the protection mutex so a concurrent strict-mode switch either
    // sees this allocation in the map or runs before it was protected.
    std::lock_guard<std::mutex> prot(protection_mutex());
    if (!protect_new_allocation(alloc)) {
      const int err = errno;
      recycle_allocation_record(alloc);
      arena_release(a, base, reserved);
      return fail(Status::kOutOfMemory, "malloc: the host could not map " + std::to_string(reserved) +
                                            " bytes for " + dev_name(device) + ": " + std::strerror(err));
    }
    std::lock_guard<std::mutex> lock(a.mu);
    a.allocs[reinterpret_cast<uintptr_t>(base)] = alloc;
  }
  *ptr = base;
  return Status::kSuccess;
}

Status free(void* ptr) {
  if (!ptr) return Status::kSuccess;
  if (bad_fork()) return forked_error();
  const int device = arena_of(ptr);
  auto not_base = [&] {
    return fail(Status::kInvalidDevicePointer,
                "free: " + hex(ptr) + " is not the base of a live device allocation" +
                    (device >= 0 ? " (it lies in the " + dev_name(device) + " address space)" : ""));
  };
  if (device < 0) return not_base();
  Arena& a = *get_device(device)->arena;
  const auto key = reinterpret_cast<uintptr_t>(ptr);
  {
    std::lock_guard<std::mutex> lock(a.mu);
    auto it = a.allocs.find(key);
    if (it == a.allocs.end()) return not_base();
    // A kernel freeing a buffer it named would wait for itself forever.
    const Allocation* target = it->second;
    const auto* mine = static_cast<const AllocList*>(t_exec.task_allocs);
    const auto* local = static_cast<const BufferList*>(t_exec.task_local);
    auto inside = [&](const void* p) {
      return reinterpret_cast<uintptr_t>(p) - key < target->reserved;
    };
    if ((mine && std::find(mine->begin(), mine->end(), target) != mine->end()) ||
        (local && std::any_of(local->begin(), local->end(), inside))) {
      return fail(Status::kInvalidValue, "free: kernel '" + std::string(t_exec.task_name) +
                                             "' cannot free an allocation named in its own launch");
    }
  }
  // Like cudaFree: queued work on the device may still use the memory.
  wait_device_idle(device);
  Allocation* alloc = nullptr;
  {
    std::lock_guard<std::mutex> prot(protection_mutex());
    std::lock_guard<std::mutex> lock(a.mu);
    auto it = a.allocs.find(key);
    if (it == a.allocs.end()) return not_base();  // a concurrent free won
    alloc = it->second;
    a.allocs.erase(it);
    a.generation.fetch_add(1, std::memory_order_seq_cst);  // invalidates cached lookups
  }
  // Tasks on other devices' streams (peer copies), or a cached lookup
  // backing out (find_allocation), may still hold a pending reference.
  while (alloc->pending.load(std::memory_order_seq_cst) != 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  arena_release(a, alloc->base, alloc->reserved);
  recycle_allocation_record(alloc);
  return Status::kSuccess;
}

Status mem_get_info(int device, size_t* free_bytes, size_t* total_bytes) {
  Device* dev = get_device(device);
  if (!dev) return fail(Status::kInvalidDevice, "mem_get_info: invalid device index " + std::to_string(device));
  if (bad_fork()) return forked_error();
  Arena& a = *dev->arena;
  std::lock_guard<std::mutex> lock(a.mu);
  if (free_bytes) *free_bytes = a.budget - a.used;
  if (total_bytes) *total_bytes = a.budget;
  return Status::kSuccess;
}

}  // namespace torch_tpu::runtime
