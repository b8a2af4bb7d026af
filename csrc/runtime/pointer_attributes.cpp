// pointer_get_attributes: device pointers by arena range + allocation map,
// pinned host pointers by registry, everything else is pageable host memory.
#include <string>

#include "memory_internal.h"
#include "runtime_internal.h"

namespace torch_tpu::runtime {

using namespace detail;

Status pointer_get_attributes(const void* ptr, PointerAttributes* out) {
  if (!out) return fail(Status::kInvalidValue, "pointer_get_attributes: out is null");
  if (bad_fork()) return forked_error();
  *out = PointerAttributes{};
  if (!ptr) return Status::kSuccess;
  num_devices();  // make sure the arenas exist before the lock-free lookup
  const int device = arena_of(ptr);
  if (device >= 0) {
    // The pending reference keeps the record alive while we read it.
    Allocation* a = find_allocation(device, ptr, /*take_pending=*/true);
    if (!a) {
      // In a device's address space but not allocated: a stale pointer.
      // Reporting it as host memory would invite a host access that faults.
      return fail(Status::kInvalidDevicePointer,
                  "pointer_get_attributes: " + hex(ptr) + " lies in the tpu:" +
                      std::to_string(device) + " address space but not in a live allocation (freed?)");
    }
    out->type = MemoryType::kDevice;
    out->device = device;
    out->base = a->base;
    out->size = a->size;
    a->pending.fetch_sub(1, std::memory_order_release);
    return Status::kSuccess;
  }
  char* base = nullptr;
  size_t size = 0;
  if (find_pinned(ptr, &base, &size)) {
    out->type = MemoryType::kHostPinned;
    out->base = base;
    out->size = size;
  }
  return Status::kSuccess;
}

}  // namespace torch_tpu::runtime
