// DeviceGuardImplInterface for tpu: what c10::DeviceGuard, torch.Stream,
// torch.Event and torch.accelerator use to switch devices and streams and to
// drive events.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include "aten/device/backend.h"
#include "aten/device/caching_allocator.h"
#include "aten/device/runtime_check.h"
#include "aten/device/tpu_stream.h"

namespace torch_tpu::aten {
namespace {

c10::DeviceIndex checked_index(c10::Device d) {
  TORCH_CHECK(d.type() == c10::DeviceType::PrivateUse1, "expected a tpu device, got ", d);
  return d.has_index() ? d.index() : current_device();
}

runtime::Event as_event(void* event) { return static_cast<runtime::Event>(event); }

struct TpuGuardImpl final : public c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return c10::DeviceType::PrivateUse1; }

  c10::Device exchangeDevice(c10::Device d) const override {
    return tpu_device(exchange_device(checked_index(d)));
  }
  c10::Device getDevice() const override { return tpu_device(current_device()); }
  void setDevice(c10::Device d) const override { set_device(checked_index(d)); }
  void uncheckedSetDevice(c10::Device d) const noexcept override {
    runtime::set_device(d.index());
  }
  c10::DeviceIndex deviceCount() const noexcept override { return device_count(); }

  c10::Stream getStream(c10::Device d) const override {
    return current_stream(checked_index(d));
  }
  c10::Stream getDefaultStream(c10::Device d) const override {
    return default_stream(checked_index(d));
  }
  c10::Stream getStreamFromGlobalPool(c10::Device d, bool isHighPriority) const override {
    return stream_from_pool(checked_index(d), isHighPriority);
  }
  // torch.Stream(priority=p): p < 0 asks for a high-priority stream.
  c10::Stream getNewStream(c10::Device d, int priority) const override {
    return stream_from_pool(checked_index(d), priority < 0);
  }
  c10::Stream exchangeStream(c10::Stream s) const override {
    return exchange_current_stream(s);
  }
  void* getStreamNativeHandle(const c10::Stream s) const override {
    return native_stream(s);
  }
  bool queryStream(const c10::Stream& s) const override {
    runtime::Status st = runtime::stream_query(native_stream(s));
    if (st == runtime::Status::kNotReady) return false;
    TPU_CHECK(st);
    return true;
  }
  bool isStreamCapturing(const c10::Stream& s) const override {
    return runtime::stream_capture_id(native_stream(s)) != 0;
  }
  void synchronizeStream(const c10::Stream& s) const override {
    synchronize_stream(s, "stream.synchronize");
  }
  void synchronizeDevice(const c10::DeviceIndex index) const override {
    synchronize_device(index, "device.synchronize");
  }

  void record(void** event, const c10::Stream& stream, const c10::DeviceIndex device_index,
              const c10::EventFlag flag) const override {
    TORCH_CHECK(device_index == -1 || device_index == stream.device_index(),
                "Event device index ", static_cast<int>(device_index),
                " does not match recording stream's device index ",
                static_cast<int>(stream.device_index()), ".");
    if (*event == nullptr) {
      runtime::Event ev = nullptr;
      // PYTORCH_DEFAULT is torch.Event(enable_timing=False).
      unsigned flags = flag == c10::EventFlag::PYTORCH_DEFAULT ? runtime::kEventDisableTiming
                                                               : runtime::kEventDefault;
      TPU_CHECK(runtime::event_create(&ev, flags));
      *event = ev;
    }
    TPU_CHECK(runtime::event_record(as_event(*event), native_stream(stream)));
  }
  void block(void* event, const c10::Stream& stream) const override {
    if (event == nullptr) return;
    TPU_CHECK(runtime::stream_wait_event(native_stream(stream), as_event(event)));
  }
  bool queryEvent(void* event) const override {
    if (event == nullptr) return true;
    runtime::Status st = runtime::event_query(as_event(event));
    if (st == runtime::Status::kNotReady) return false;
    TPU_CHECK(st);
    return true;
  }
  void synchronizeEvent(void* event) const override {
    if (event == nullptr) return;
    TPU_CHECK(runtime::event_synchronize(as_event(event)));
  }
  void destroyEvent(void* event, const c10::DeviceIndex /*device_index*/) const noexcept override {
    if (event != nullptr) runtime::event_destroy(as_event(event));
  }
  double elapsedTime(void* start, void* end, const c10::DeviceIndex /*device_index*/) const override {
    TORCH_CHECK(start != nullptr && end != nullptr,
                "Both events must be recorded before calculating elapsed time.");
    float ms = 0;
    TPU_CHECK(runtime::event_elapsed_time(&ms, as_event(start), as_event(end)));
    return ms;
  }

  void recordDataPtrOnStream(const c10::DataPtr& data_ptr, const c10::Stream& stream) const override {
    device_allocator()->recordStream(data_ptr, stream);
  }
};

}  // namespace

void register_guard_impl() {
  static c10::impl::DeviceGuardImplRegistrar registrar(c10::DeviceType::PrivateUse1,
                                                       new TpuGuardImpl());
}

}  // namespace torch_tpu::aten
