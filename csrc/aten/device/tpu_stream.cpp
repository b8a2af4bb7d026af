#include "aten/device/tpu_stream.h"

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <vector>

#include "aten/device/runtime_check.h"
#include "aten/device/telemetry.h"

namespace torch_tpu::aten {
namespace {

constexpr c10::StreamId kPoolStride = 64;
constexpr int kNormalPool = 1;
constexpr int kHighPool = 2;
// Ids from here up are external streams' handles (pointers, never this small).
constexpr c10::StreamId kFirstExternalId = kPoolStride * 3;

// One device's pools, filled lazily. Leaked on purpose: streams live as long
// as the process (their worker threads too), like CUDA's.
struct DevicePools {
  std::once_flag once[3];
  std::array<runtime::Stream, kStreamsPerPool> streams[3]{};
  std::atomic<uint32_t> next[3]{};
};

DevicePools& pools(c10::DeviceIndex index) {
  static std::vector<DevicePools*> all = [] {
    std::vector<DevicePools*> v;
    for (int i = 0; i < runtime::device_count(); ++i) v.push_back(new DevicePools());
    return v;
  }();
  return *all.at(index);
}

void fill_pool(c10::DeviceIndex index, int pool) {
  auto& p = pools(index);
  std::call_once(p.once[pool], [&] {
    int least = 0, greatest = 0;
    runtime::stream_priority_range(&least, &greatest);
    for (auto& s : p.streams[pool]) {
      TPU_CHECK(runtime::stream_create(index, pool == kHighPool ? greatest : least, &s));
    }
  });
}

// Per thread, per device: the current StreamId (0 = default stream).
std::vector<c10::StreamId>& current_ids() {
  thread_local std::vector<c10::StreamId> ids(static_cast<size_t>(runtime::device_count()), 0);
  return ids;
}

}  // namespace

c10::DeviceIndex device_count() noexcept {
  return static_cast<c10::DeviceIndex>(runtime::device_count());
}

void check_device_index(c10::DeviceIndex index) {
  // DeviceIndex is a signed char: streamed as is it prints a control character.
  TORCH_CHECK(index >= 0 && index < device_count(), "Invalid device index: tpu:", static_cast<int>(index),
              " (torch_tpu has ", static_cast<int>(device_count()),
              " devices; set TORCH_TPU_DEVICE_COUNT to change that)");
}

c10::DeviceIndex current_device() {
  return static_cast<c10::DeviceIndex>(runtime::current_device());
}

void set_device(c10::DeviceIndex index) {
  check_device_index(index);
  TPU_CHECK(runtime::set_device(index));
}

c10::DeviceIndex exchange_device(c10::DeviceIndex index) {
  c10::DeviceIndex old = current_device();
  if (index != old) set_device(index);
  return old;
}

c10::Device tpu_device(c10::DeviceIndex index) {
  return c10::Device(c10::DeviceType::PrivateUse1, index);
}

c10::Stream default_stream(c10::DeviceIndex index) {
  check_device_index(index);
  return c10::Stream(c10::Stream::UNSAFE, tpu_device(index), 0);
}

c10::Stream stream_from_pool(c10::DeviceIndex index, bool high_priority) {
  if (index < 0) index = current_device();
  check_device_index(index);
  int pool = high_priority ? kHighPool : kNormalPool;
  fill_pool(index, pool);
  uint32_t i = pools(index).next[pool].fetch_add(1) % kStreamsPerPool;
  return c10::Stream(c10::Stream::UNSAFE, tpu_device(index), kPoolStride * pool + i);
}

c10::Stream external_stream(c10::DeviceIndex index, uintptr_t handle) {
  if (index < 0) index = current_device();
  check_device_index(index);
  TORCH_CHECK(handle >= static_cast<uintptr_t>(kFirstExternalId), "invalid tpu stream handle ", handle);
  auto s = reinterpret_cast<runtime::Stream>(handle);
  TORCH_CHECK(runtime::stream_device(s) == index, "the external stream belongs to tpu:",
              runtime::stream_device(s), ", not tpu:", static_cast<int>(index));
  return c10::Stream(c10::Stream::UNSAFE, tpu_device(index), static_cast<c10::StreamId>(handle));
}

c10::Stream current_stream(c10::DeviceIndex index) {
  if (index < 0) index = current_device();
  check_device_index(index);
  return c10::Stream(c10::Stream::UNSAFE, tpu_device(index), current_ids()[index]);
}

c10::Stream exchange_current_stream(c10::Stream stream) {
  TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1,
              "expected a tpu stream, got a stream on ", stream.device());
  c10::Stream old = current_stream(stream.device_index());
  current_ids()[stream.device_index()] = stream.id();
  return old;
}

runtime::Stream native_stream(const c10::Stream& stream) {
  c10::DeviceIndex index = stream.device_index();
  check_device_index(index);
  c10::StreamId id = stream.id();
  if (id == 0) return runtime::default_stream(index);
  if (id >= kFirstExternalId) return reinterpret_cast<runtime::Stream>(static_cast<uintptr_t>(id));
  int pool = static_cast<int>(id / kPoolStride);
  int i = static_cast<int>(id % kPoolStride);
  TORCH_CHECK((pool == kNormalPool || pool == kHighPool) && i < kStreamsPerPool,
              "invalid tpu stream id ", id);
  fill_pool(index, pool);
  return pools(index).streams[pool][i];
}

int stream_priority(const c10::Stream& stream) {
  return runtime::stream_priority(native_stream(stream));
}

void synchronize_stream(const c10::Stream& stream, const char* why) {
  telemetry::count_sync(why);
  TPU_CHECK(runtime::stream_synchronize(native_stream(stream)));
}

void synchronize_device(c10::DeviceIndex index, const char* why) {
  if (index < 0) index = current_device();
  check_device_index(index);
  telemetry::count_sync(why);
  TPU_CHECK(runtime::device_synchronize(index));
}

}  // namespace torch_tpu::aten
