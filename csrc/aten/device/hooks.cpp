// PrivateUse1HooksInterface: how ATen asks the backend about devices,
// generators, pinned memory and storage resizing.
#include <ATen/detail/PrivateUse1HooksInterface.h>

#include <c10/core/DeviceGuard.h>
#include <c10/core/StorageImpl.h>

#include "aten/device/backend.h"
#include "aten/device/caching_allocator.h"
#include "aten/device/generator.h"
#include "aten/device/host_allocator.h"
#include "aten/device/runtime_check.h"
#include "aten/device/tpu_stream.h"

namespace torch_tpu::aten {
namespace {

struct TpuHooks final : public at::PrivateUse1HooksInterface {
  bool isBuilt() const override { return true; }
  bool isAvailable() const override { return device_count() > 0; }
  bool hasPrimaryContext(c10::DeviceIndex /*device_index*/) const override { return true; }
  void init() const override {
    TORCH_CHECK(!runtime::in_bad_fork(),
                "Cannot re-initialize tpu in a forked subprocess. To use tpu with "
                "multiprocessing, use the 'spawn' start method.");
  }

  c10::DeviceIndex deviceCount() const override { return device_count(); }
  void setCurrentDevice(c10::DeviceIndex device) const override { set_device(device); }
  c10::DeviceIndex getCurrentDevice() const override { return current_device(); }
  c10::DeviceIndex exchangeDevice(c10::DeviceIndex device) const override {
    return exchange_device(device);
  }
  c10::DeviceIndex maybeExchangeDevice(c10::DeviceIndex device) const override {
    return exchange_device(device);
  }

  const at::Generator& getDefaultGenerator(c10::DeviceIndex device_index) const override {
    return default_generator(device_index);
  }
  at::Generator getNewGenerator(c10::DeviceIndex device_index) const override {
    return new_generator(device_index);
  }

  bool isPinnedPtr(const void* data) const override {
    runtime::PointerAttributes attr;
    return runtime::pointer_get_attributes(data, &attr) == runtime::Status::kSuccess &&
           attr.type == runtime::MemoryType::kHostPinned;
  }
  c10::Allocator* getPinnedMemoryAllocator() const override { return host_allocator(); }

  at::Device getDeviceFromPtr(void* data) const override {
    runtime::PointerAttributes attr;
    TPU_CHECK(runtime::pointer_get_attributes(data, &attr));
    TORCH_CHECK(attr.type == runtime::MemoryType::kDevice, "pointer ", data,
                " is not tpu device memory");
    return tpu_device(static_cast<c10::DeviceIndex>(attr.device));
  }

  // untyped_storage().resize_(n) and resize_() beyond the current storage:
  // allocate new device memory, copy what fits on the current stream, swap.
  void resizePrivateUse1Bytes(const c10::Storage& storage, size_t newsize) const override {
    c10::StorageImpl* impl = storage.unsafeGetStorageImpl();
    TORCH_CHECK(impl->resizable(), "Trying to resize storage that is not resizable");
    const size_t old_size = impl->nbytes();
    if (newsize == old_size) return;
    c10::DeviceIndex device = impl->device().has_index() ? impl->device().index()
                                                         : current_device();
    c10::DeviceGuard guard(tpu_device(device));
    c10::Allocator* allocator = impl->allocator() ? impl->allocator() : device_allocator();
    c10::DataPtr fresh = allocator->allocate(newsize);
    const size_t keep = std::min(old_size, newsize);
    const c10::Stream stream = current_stream(device);
    if (keep > 0) {
      TPU_CHECK(runtime::memcpy_async(fresh.get(), impl->data(), keep,
                                      runtime::MemcpyKind::kDeviceToDevice,
                                      native_stream(stream)));
    }
    c10::DataPtr old = impl->set_data_ptr(std::move(fresh));
    impl->set_nbytes(newsize);
    // The copy above may still be reading the old memory: it is reused only
    // after `stream` got there.
    device_allocator()->recordStream(old, stream);
  }
};

}  // namespace

void register_hooks() {
  static TpuHooks* hooks = [] {
    auto* h = new TpuHooks();
    at::RegisterPrivateUse1HooksInterface(h);
    return h;
  }();
  (void)hooks;
}

}  // namespace torch_tpu::aten
