// Copies in every direction, sync and async, pinned and pageable, peer
// copies, memset, kind checking, and the pageable staging rules.
#include <cstring>
#include <vector>

#include "test_util.h"

using namespace tpu_test;
using rt::MemcpyKind;
using rt::Status;

namespace {

const size_t kSizes[] = {0, 1, 7, 4095, 4096, 4097, (size_t{1} << 20) + 3, size_t{64} << 20};

}  // namespace

TEST(memcpy_sync_all_directions_and_sizes) {
  const int peer = rt::device_count() > 1 ? 1 : 0;
  unsigned seed = 1;
  for (size_t n : kSizes) {
    const std::vector<unsigned char> src = pattern(n, seed++);
    DeviceBuf a(0, n), b(0, n), c(peer, n);
    CHECK_OK(rt::memcpy(a.p, src.data(), n, MemcpyKind::kHostToDevice));
    CHECK_OK(rt::memcpy(b.p, a.p, n, MemcpyKind::kDeviceToDevice));
    CHECK_OK(rt::memcpy(c.p, b.p, n, MemcpyKind::kDefault));  // peer copy
    std::vector<unsigned char> back(n, 0xEE);
    CHECK_OK(rt::memcpy(back.data(), c.p, n, MemcpyKind::kDeviceToHost));
    CHECK(back == src);
    std::vector<unsigned char> h2h(n);
    CHECK_OK(rt::memcpy(h2h.data(), src.data(), n, MemcpyKind::kHostToHost));
    CHECK(h2h == src);
  }
}

TEST(memcpy_async_pinned_and_pageable) {
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  const int peer = rt::device_count() > 1 ? 1 : 0;
  unsigned seed = 100;
  for (size_t n : kSizes) {
    const std::vector<unsigned char> src = pattern(n, seed++);
    DeviceBuf a(0, n), b(peer, n);
    PinnedBuf pin_in(n), pin_out(n);
    if (n) std::memcpy(pin_in.p, src.data(), n);
    // pinned -> device -> peer device -> pinned, all async on one stream
    CHECK_OK(rt::memcpy_async(a.p, pin_in.p, n, MemcpyKind::kHostToDevice, s));
    CHECK_OK(rt::memcpy_async(b.p, a.p, n, MemcpyKind::kDeviceToDevice, s));
    CHECK_OK(rt::memcpy_async(pin_out.p, b.p, n, MemcpyKind::kDeviceToHost, s));
    CHECK_OK(rt::stream_synchronize(s));
    CHECK(n == 0 || std::memcmp(pin_out.p, src.data(), n) == 0);
    // pageable source (staged) and pageable destination (synchronous)
    std::vector<unsigned char> src2 = pattern(n, seed++);
    CHECK_OK(rt::memcpy_async(a.p, src2.data(), n, MemcpyKind::kDefault, s));
    std::vector<unsigned char> out(n, 0);
    CHECK_OK(rt::memcpy_async(out.data(), a.p, n, MemcpyKind::kDefault, s));
    CHECK(out == src2);  // no sync needed: pageable destination is synchronous
    // pinned <-> pinned / pageable host-to-host through the stream
    if (n) {
      CHECK_OK(rt::memcpy_async(pin_out.p, pin_in.p, n, MemcpyKind::kHostToHost, s));
      CHECK_OK(rt::stream_synchronize(s));
      CHECK(std::memcmp(pin_out.p, src.data(), n) == 0);
    }
  }
  CHECK_OK(rt::stream_destroy(s));
}

TEST(memcpy_kind_mismatch_and_bad_pointers) {
  DeviceBuf d(0, 64);
  std::vector<unsigned char> h(64);
  CHECK_STATUS(rt::memcpy(d.p, h.data(), 64, MemcpyKind::kDeviceToHost), Status::kInvalidMemcpyDirection);
  CHECK_CONTAINS(rt::last_error_message(), "kDeviceToHost does not match");
  CHECK_CONTAINS(rt::last_error_message(), "kHostToDevice");
  CHECK_STATUS(rt::memcpy(h.data(), d.p, 64, MemcpyKind::kHostToHost), Status::kInvalidMemcpyDirection);
  CHECK_STATUS(rt::memcpy(d.p, d.p, 64, MemcpyKind::kHostToDevice), Status::kInvalidMemcpyDirection);
  CHECK_STATUS(rt::memcpy_async(h.data(), h.data() + 32, 8, MemcpyKind::kDeviceToDevice, nullptr),
               Status::kInvalidMemcpyDirection);
  CHECK_STATUS(rt::memcpy(nullptr, h.data(), 8, MemcpyKind::kDefault), Status::kInvalidValue);
  CHECK_OK(rt::memcpy(nullptr, nullptr, 0, MemcpyKind::kDefault));  // zero bytes
  // Running past the end of the allocation.
  CHECK_STATUS(rt::memcpy(d.p, h.data(), 65, MemcpyKind::kHostToDevice), Status::kInvalidValue);
  CHECK_CONTAINS(rt::last_error_message(), "run past the end");
  // A freed device pointer.
  void* gone = nullptr;
  CHECK_OK(rt::malloc(0, 64, &gone));
  CHECK_OK(rt::free(gone));
  CHECK_STATUS(rt::memcpy(gone, h.data(), 8, MemcpyKind::kDefault), Status::kInvalidDevicePointer);
  CHECK_STATUS(rt::memset_async(h.data(), 0, 8, nullptr), Status::kInvalidDevicePointer);
}

TEST(memset_async_interior_range) {
  const size_t n = (size_t{3} << 20) + 5;
  DeviceBuf d(0, n);
  CHECK_OK(rt::memset_async(d.p, 0x11, n, nullptr));
  CHECK_OK(rt::memset_async(static_cast<char*>(d.p) + 3, 0xAB, n - 10, nullptr));
  const std::vector<unsigned char> out = read_device(d.p, n);
  bool ok = true;
  for (size_t i = 0; i < n; ++i) ok &= out[i] == ((i < 3 || i >= n - 7) ? 0x11 : 0xAB);
  CHECK(ok);
}

TEST(pageable_source_is_staged_at_call_time) {
  SlowScope slow(5000);  // the copy runs at least 5 ms after the call
  DeviceBuf d(0, 4096);
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  std::vector<unsigned char> src(4096, 1);
  CHECK_OK(rt::memcpy_async(d.p, src.data(), 4096, MemcpyKind::kHostToDevice, s));
  std::fill(src.begin(), src.end(), 2);  // allowed: the bytes were staged
  CHECK_OK(rt::stream_synchronize(s));
  const std::vector<unsigned char> out = read_device(d.p, 4096);
  CHECK(out == std::vector<unsigned char>(4096, 1));
  CHECK_OK(rt::stream_destroy(s));
}

TEST(slow_device_exposes_missing_sync) {
  // With a 20 ms delay per task, an async D2H into pinned memory read
  // without synchronizing still sees the old bytes.
  DeviceBuf d(0, sizeof(int));
  const int value = 42;
  CHECK_OK(rt::memcpy(d.p, &value, sizeof value, MemcpyKind::kHostToDevice));
  PinnedBuf h(sizeof(int));
  *static_cast<int*>(h.p) = 0;
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  {
    SlowScope slow(20000);
    CHECK_EQ(rt::slow_device_us(), int64_t{20000});
    CHECK_OK(rt::memcpy_async(h.p, d.p, sizeof(int), MemcpyKind::kDeviceToHost, s));
#if !defined(__SANITIZE_THREAD__)  // the read races the copy on purpose: ThreadSanitizer would (rightly) report it
    CHECK_EQ(*static_cast<volatile int*>(h.p), 0);  // missing sync: old value
#endif
    CHECK_OK(rt::stream_synchronize(s));
    CHECK_EQ(*static_cast<volatile int*>(h.p), 42);
  }
  CHECK_OK(rt::stream_destroy(s));
}

TEST(copies_between_streams_with_events) {
  // Producer stream writes, consumer stream copies out after waiting.
  const size_t n = size_t{2} << 20;
  DeviceBuf d(0, n);
  PinnedBuf out(n);
  rt::Stream a = nullptr, b = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &a));
  CHECK_OK(rt::stream_create(0, 0, &b));
  rt::Event e = nullptr;
  CHECK_OK(rt::event_create(&e));
  {
    SlowScope slow(2000);
    CHECK_OK(rt::memset_async(d.p, 0x5A, n, a));
    CHECK_OK(rt::event_record(e, a));
    CHECK_OK(rt::stream_wait_event(b, e));
    CHECK_OK(rt::memcpy_async(out.p, d.p, n, MemcpyKind::kDeviceToHost, b));
    CHECK_OK(rt::stream_synchronize(b));
  }
  bool ok = true;
  for (size_t i = 0; i < n; ++i) ok &= out.bytes()[i] == 0x5A;
  CHECK(ok);
  CHECK_OK(rt::event_destroy(e));
  CHECK_OK(rt::stream_destroy(a));
  CHECK_OK(rt::stream_destroy(b));
}
