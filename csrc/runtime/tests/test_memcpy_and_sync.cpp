// memcpy_and_sync: every direction with pinned and pageable host memory,
// ordering after earlier work on the stream (made visible with the slow
// device), kernel-failure reporting, argument checks, strict mode, and that
// host memory is used in place (the staging cache is never touched).
#include <cstring>
#include <stdexcept>
#include <vector>

#include "runtime/staging_cache.h"
#include "test_util.h"

using namespace tpu_test;
using rt::MemcpyKind;
using rt::Status;

namespace {

// 1 MiB + 3 takes the multi-core path of large copies.
const size_t kSizes[] = {1, 4097, (size_t{1} << 20) + 3};

uint64_t staging_takes() {
  const auto st = rt::detail::staging_cache().stats();
  return st.fresh + st.reused;
}

}  // namespace

TEST(memcpy_and_sync_all_directions_pinned_and_pageable) {
  // Every task waits 1 ms first: a call that returned before its copy ran
  // would leave the destination unchanged.
  SlowScope slow(1000);
  StreamHolder s;
  const int peer = rt::device_count() > 1 ? 1 : 0;
  unsigned seed = 300;
  for (size_t n : kSizes) {
    const std::vector<unsigned char> src = pattern(n, seed++);
    DeviceBuf a(0, n), b(0, n), c(peer, n);
    PinnedBuf pin(n);
    // pageable -> device -> device -> peer device -> pinned -> pageable
    CHECK_OK(rt::memcpy_and_sync(a.p, src.data(), n, MemcpyKind::kHostToDevice, s.s));
    CHECK_OK(rt::memcpy_and_sync(b.p, a.p, n, MemcpyKind::kDeviceToDevice, s.s));
    CHECK_OK(rt::memcpy_and_sync(c.p, b.p, n, MemcpyKind::kDefault, s.s));
    std::memset(pin.p, 0, n);
    CHECK_OK(rt::memcpy_and_sync(pin.p, c.p, n, MemcpyKind::kDeviceToHost, s.s));
    CHECK(std::memcmp(pin.p, src.data(), n) == 0);
    std::vector<unsigned char> out(n, 0);
    CHECK_OK(rt::memcpy_and_sync(out.data(), pin.p, n, MemcpyKind::kHostToHost, s.s));
    CHECK(out == src);
    // pinned -> device, device -> pageable, pageable -> pageable
    const std::vector<unsigned char> src2 = pattern(n, seed++);
    std::memcpy(pin.p, src2.data(), n);
    CHECK_OK(rt::memcpy_and_sync(a.p, pin.p, n, MemcpyKind::kDefault, s.s));
    CHECK_OK(rt::memcpy_and_sync(out.data(), a.p, n, MemcpyKind::kDeviceToHost, s.s));
    CHECK(out == src2);
    std::vector<unsigned char> out2(n, 0);
    CHECK_OK(rt::memcpy_and_sync(out2.data(), out.data(), n, MemcpyKind::kHostToHost, s.s));
    CHECK(out2 == src2);
  }
}

TEST(memcpy_and_sync_runs_after_earlier_work_on_the_stream) {
  SlowScope slow(5000);
  StreamHolder s;
  const size_t n = 4096;
  DeviceBuf d(0, n);
  // Device memory written by an earlier memset and kernel, read back.
  CHECK_OK(rt::memset_async(d.p, 0x11, n, s.s));
  CHECK_OK(rt::launch(s.s, "write_first_byte", {d.p}, [p = d.p] { static_cast<unsigned char*>(p)[0] = 0x22; }));
  std::vector<unsigned char> out(n, 0);
  CHECK_OK(rt::memcpy_and_sync(out.data(), d.p, n, MemcpyKind::kDeviceToHost, s.s));
  CHECK_EQ(out[0], uint8_t{0x22});
  CHECK_EQ(out[n - 1], uint8_t{0x11});
  // Pageable host memory written by an earlier kernel: even a host-to-host
  // copy waits for it.
  std::vector<unsigned char> host_src(n, 0), host_dst(n, 0);
  CHECK_OK(rt::launch(s.s, "write_host", {}, [&host_src] { std::fill(host_src.begin(), host_src.end(), 0x33); }));
  CHECK_OK(rt::memcpy_and_sync(host_dst.data(), host_src.data(), n, MemcpyKind::kHostToHost, s.s));
  CHECK(host_dst == std::vector<unsigned char>(n, 0x33));
  // Everything earlier on the stream ran: nothing is left to wait for.
  CHECK_OK(rt::launch(s.s, "slow", {}, [] {}));
  CHECK_OK(rt::memcpy_and_sync(d.p, host_src.data(), n, MemcpyKind::kHostToDevice, s.s));
  CHECK_OK(rt::stream_query(s.s));
  // n == 0 copies nothing but still waits.
  CHECK_OK(rt::launch(s.s, "slow", {}, [] {}));
  CHECK_OK(rt::memcpy_and_sync(nullptr, nullptr, 0, MemcpyKind::kDefault, s.s));
  CHECK_OK(rt::stream_query(s.s));
}

TEST(memcpy_and_sync_reports_earlier_kernel_failure) {
  StreamHolder s;
  DeviceBuf d(0, 64);
  std::vector<unsigned char> h(64, 7);
  CHECK_OK(rt::launch(s.s, "broken_kernel", {}, [] { throw std::runtime_error("bad index"); }));
  CHECK_STATUS(rt::memcpy_and_sync(d.p, h.data(), 64, MemcpyKind::kHostToDevice, s.s), Status::kKernelFailure);
  CHECK_CONTAINS(rt::last_error_message(), "kernel 'broken_kernel' failed on tpu:0: bad index");
  // Reported once, like stream_synchronize.
  CHECK_OK(rt::stream_synchronize(s.s));
  CHECK_OK(rt::memcpy_and_sync(h.data(), d.p, 64, MemcpyKind::kDeviceToHost, s.s));
  // Also at a zero-byte sync point.
  CHECK_OK(rt::launch(s.s, "broken_kernel", {}, [] { throw std::runtime_error("again"); }));
  CHECK_STATUS(rt::memcpy_and_sync(nullptr, nullptr, 0, MemcpyKind::kDefault, s.s), Status::kKernelFailure);
  CHECK_OK(rt::stream_synchronize(s.s));
}

TEST(memcpy_and_sync_checks_arguments_like_memcpy_async) {
  DeviceBuf d(0, 64);
  std::vector<unsigned char> h(64);
  CHECK_STATUS(rt::memcpy_and_sync(d.p, h.data(), 64, MemcpyKind::kDeviceToHost, nullptr),
               Status::kInvalidMemcpyDirection);
  CHECK_CONTAINS(rt::last_error_message(), "memcpy_and_sync: kind kDeviceToHost does not match");
  CHECK_STATUS(rt::memcpy_and_sync(h.data(), h.data() + 32, 8, MemcpyKind::kDeviceToDevice, nullptr),
               Status::kInvalidMemcpyDirection);
  CHECK_STATUS(rt::memcpy_and_sync(d.p, h.data(), 65, MemcpyKind::kHostToDevice, nullptr), Status::kInvalidValue);
  CHECK_CONTAINS(rt::last_error_message(), "run past the end");
  CHECK_STATUS(rt::memcpy_and_sync(nullptr, h.data(), 8, MemcpyKind::kDefault, nullptr), Status::kInvalidValue);
  void* gone = nullptr;
  CHECK_OK(rt::malloc(0, 64, &gone));
  CHECK_OK(rt::free(gone));
  CHECK_STATUS(rt::memcpy_and_sync(gone, h.data(), 8, MemcpyKind::kDefault, nullptr), Status::kInvalidDevicePointer);
  rt::Stream s = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &s));
  CHECK_OK(rt::stream_destroy(s));
  CHECK_STATUS(rt::memcpy_and_sync(d.p, h.data(), 8, MemcpyKind::kDefault, s), Status::kInvalidValue);
  CHECK_CONTAINS(rt::last_error_message(), "destroyed");
}

TEST(memcpy_and_sync_never_stages) {
  StreamHolder s;
  const size_t n = size_t{1} << 20;
  DeviceBuf d(0, n);
  std::vector<unsigned char> src = pattern(n, 9);
  const uint64_t before = staging_takes();
  CHECK_OK(rt::memcpy_and_sync(d.p, src.data(), n, MemcpyKind::kHostToDevice, s.s));
  CHECK_EQ(staging_takes(), before);
  CHECK(read_device(d.p, n) == src);
}

TEST(memcpy_and_sync_in_strict_mode) {
  StrictScope strict(true);
  StreamHolder s;
  const size_t n = (size_t{2} << 20) + 1;
  DeviceBuf a(0, n), b(0, n);
  const std::vector<unsigned char> src = pattern(n, 11);
  CHECK_OK(rt::memcpy_and_sync(a.p, src.data(), n, MemcpyKind::kHostToDevice, s.s));
  CHECK_OK(rt::memcpy_and_sync(b.p, a.p, n, MemcpyKind::kDeviceToDevice, s.s));
  std::vector<unsigned char> out(n, 0);
  CHECK_OK(rt::memcpy_and_sync(out.data(), b.p, n, MemcpyKind::kDeviceToHost, s.s));
  CHECK(out == src);
  CHECK(!host_can_read(a.p));  // closed again once the copies ran
  CHECK(!host_can_read(b.p));
}

TEST(memcpy_and_sync_from_a_task_on_the_same_stream) {
  // Runs inline (waiting for itself would deadlock).
  StreamHolder s;
  DeviceBuf a(0, 256), b(0, 256);
  const std::vector<unsigned char> src = pattern(256, 13);
  CHECK_OK(rt::memcpy(a.p, src.data(), 256, MemcpyKind::kHostToDevice));
  Status inner = Status::kInvalidValue;
  rt::Stream stream = s.s;
  CHECK_OK(rt::launch(s.s, "nested_copy", {}, [&inner, stream, &a, &b] {
    inner = rt::memcpy_and_sync(b.p, a.p, 256, MemcpyKind::kDeviceToDevice, stream);
  }));
  CHECK_OK(rt::stream_synchronize(s.s));
  CHECK_OK(inner);
  CHECK(read_device(b.p, 256) == src);
}
