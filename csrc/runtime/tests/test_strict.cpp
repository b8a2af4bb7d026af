// Strict mode: device memory is inaccessible to the host, open to the
// kernels that name it (reference counted), and a host access dies with a
// clear message. Crashes are observed in child processes.
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "test_util.h"

using namespace tpu_test;
using rt::MemcpyKind;
using rt::Status;

#if defined(__SANITIZE_THREAD__)
// ThreadSanitizer handles fatal signals itself: a faulting child exits
// instead of dying by SIGSEGV. The ASan and plain builds run these.
constexpr const char* kTsanOwnsFatalSignals = "ThreadSanitizer takes over fatal signals";
#endif

TEST(strict_mode_protects_and_opens_named_buffers) {
  StrictScope strict(true);
  CHECK(rt::strict_mode());
  void* d = nullptr;
  CHECK_OK(rt::malloc(0, 8192, &d));
  CHECK(!host_can_read(d));
  bool readable_in_kernel = false;
  CHECK_OK(rt::launch(nullptr, "write", {static_cast<char*>(d) + 100}, [&] {  // interior pointer
    readable_in_kernel = host_can_read(d);
    auto* p = static_cast<int*>(d);
    for (int i = 0; i < 2048; ++i) p[i] = i;
  }));
  CHECK_OK(rt::stream_synchronize(nullptr));
  CHECK(readable_in_kernel);
  CHECK(!host_can_read(d));
  std::vector<int> back(2048);
  CHECK_OK(rt::memcpy(back.data(), d, 8192, MemcpyKind::kDeviceToHost));
  CHECK_EQ(back[2047], 2047);
  CHECK(!host_can_read(d));
  // Switching strict mode off opens live allocations, on closes them.
  rt::set_strict_mode(false);
  CHECK(host_can_read(d));
  rt::set_strict_mode(true);
  CHECK(!host_can_read(d));
  // Pinned host buffers in a launch are ignored (not device memory).
  void* h = nullptr;
  CHECK_OK(rt::malloc_host(64, &h));
  CHECK_OK(rt::launch(nullptr, "mixed", {d, h, nullptr}, [&] { std::memcpy(h, d, 64); }));
  CHECK_OK(rt::stream_synchronize(nullptr));
  CHECK_EQ(static_cast<int*>(h)[5], 5);
  CHECK_OK(rt::free_host(h));
  CHECK_OK(rt::free(d));
}

TEST(strict_mode_refcount_across_streams) {
  // Kernel A holds the allocation open while kernel B, on another stream,
  // starts and finishes using it; B's end must not close it under A.
  StrictScope strict(true);
  void* d = nullptr;
  CHECK_OK(rt::malloc(0, 4096, &d));
  CHECK_OK(rt::memset_async(d, 0, 4096, nullptr));
  CHECK_OK(rt::stream_synchronize(nullptr));
  rt::Stream a = nullptr, b = nullptr;
  CHECK_OK(rt::stream_create(0, 0, &a));
  CHECK_OK(rt::stream_create(0, 0, &b));
  std::atomic<bool> a_started{false}, b_done{false};
  bool a_could_read_after_b = false;
  auto* p = static_cast<int*>(d);
  CHECK_OK(rt::launch(a, "kernel_a", {d}, [&] {
    p[0] = 1;
    a_started = true;
    while (!b_done.load()) std::this_thread::yield();
    a_could_read_after_b = host_can_read(d);
    if (a_could_read_after_b) p[1] = 2;
  }));
  CHECK_OK(rt::launch(b, "kernel_b", {d}, [&] {
    while (!a_started.load()) std::this_thread::yield();
    p[2] = 3;
  }));
  CHECK_OK(rt::launch(b, "signal", {}, [&] { b_done = true; }));
  CHECK_OK(rt::stream_synchronize(a));
  CHECK_OK(rt::stream_synchronize(b));
  CHECK(a_could_read_after_b);
  int out[3] = {0, 0, 0};
  CHECK_OK(rt::memcpy(out, d, sizeof out, MemcpyKind::kDeviceToHost));
  CHECK_EQ(out[0], 1);
  CHECK_EQ(out[1], 2);
  CHECK_EQ(out[2], 3);
  CHECK(!host_can_read(d));
  CHECK_OK(rt::stream_destroy(a));
  CHECK_OK(rt::stream_destroy(b));
  CHECK_OK(rt::free(d));
}

TEST(strict_mode_copies_and_peer_copies) {
  StrictScope strict(true);
  const int peer = rt::device_count() > 1 ? 1 : 0;
  const size_t n = (size_t{2} << 20) + 1;
  void *a = nullptr, *b = nullptr;
  CHECK_OK(rt::malloc(0, n, &a));
  CHECK_OK(rt::malloc(peer, n, &b));
  const std::vector<unsigned char> src = pattern(n, 77);
  CHECK_OK(rt::memcpy_async(a, src.data(), n, MemcpyKind::kHostToDevice, nullptr));
  CHECK_OK(rt::memcpy_async(b, a, n, MemcpyKind::kDeviceToDevice, nullptr));
  CHECK_OK(rt::stream_synchronize(nullptr));  // read_device uses the peer's default stream
  CHECK(read_device(b, n) == src);
  CHECK(!host_can_read(a));
  CHECK(!host_can_read(b));
  CHECK_OK(rt::free(a));
  CHECK_OK(rt::free(b));
}

TEST(non_strict_mode_device_memory_is_host_accessible) {
  StrictScope strict(false);
  void* d = nullptr;
  CHECK_OK(rt::malloc(0, 4096, &d));
  CHECK(host_can_read(d));
  CHECK_OK(rt::free(d));
  CHECK(!host_can_read(d));  // freed ranges are PROT_NONE again
}

// ---- child processes --------------------------------------------------

CHILD_MAIN(strict_host_read) {
  rt::set_strict_mode(true);
  void* d = nullptr;
  if (rt::malloc(0, 4096, &d) != Status::kSuccess) return 3;
  volatile int x = *static_cast<volatile int*>(d);  // must fault
  (void)x;
  return 0;
}

CHILD_MAIN(strict_env_host_write) {
  // Strict mode from TORCH_TPU_STRICT=1, on device 1 when there is one.
  const int dev = rt::device_count() > 1 ? 1 : 0;
  void* d = nullptr;
  if (rt::malloc(dev, 4096 * 4, &d) != Status::kSuccess) return 3;
  static_cast<volatile char*>(d)[4096 + 5] = 1;  // must fault
  return 0;
}

namespace {
void previous_handler(int) {
  const char msg[] = "previous handler called\n";
  (void)!write(STDERR_FILENO, msg, sizeof msg - 1);
  _exit(42);
}
}  // namespace

CHILD_MAIN(strict_chains_previous_handler) {
  signal(SIGSEGV, previous_handler);  // installed before the runtime starts
  rt::set_strict_mode(true);
  void* d = nullptr;
  if (rt::malloc(0, 4096, &d) != Status::kSuccess) return 3;
  volatile int x = *static_cast<volatile int*>(d);
  (void)x;
  return 0;
}

CHILD_MAIN(strict_kernel_unnamed_buffer) {
  rt::set_strict_mode(true);
  void *named = nullptr, *unnamed = nullptr;
  if (rt::malloc(0, 4096, &named) != Status::kSuccess) return 3;
  if (rt::malloc(0, 4096, &unnamed) != Status::kSuccess) return 3;
  rt::launch(nullptr, "sloppy_kernel", {named}, [=] { static_cast<volatile char*>(unnamed)[0] = 1; });
  rt::stream_synchronize(nullptr);
  return 0;
}

CHILD_MAIN(non_strict_use_after_free) {
  rt::set_strict_mode(false);
  void* d = nullptr;
  if (rt::malloc(0, 4096, &d) != Status::kSuccess) return 3;
  rt::free(d);
  volatile int x = *static_cast<volatile int*>(d);
  (void)x;
  return 0;
}

TEST(strict_mode_host_access_dies_with_message) {
#if defined(__SANITIZE_THREAD__)
  SKIP_TEST(kTsanOwnsFatalSignals);
#endif
  ChildResult r = run_child("strict_host_read");
  CHECK(r.signaled);
  CHECK_EQ(r.signal, SIGSEGV);
  CHECK_CONTAINS(r.stderr_text, "torch_tpu strict mode: the host accessed device memory at 0x");
  CHECK_CONTAINS(r.stderr_text, "(tpu:0 address space; inside the allocation at 0x");
  CHECK_CONTAINS(r.stderr_text, "Device memory is not host memory: copy it to the host first (tensor.cpu()).");

  r = run_child("strict_env_host_write", {"TORCH_TPU_STRICT=1"});
  CHECK(r.signaled);
  CHECK_EQ(r.signal, SIGSEGV);
  CHECK_CONTAINS(r.stderr_text, "torch_tpu strict mode: the host accessed device memory");
  CHECK_CONTAINS(r.stderr_text, "of 16384 bytes");
}

TEST(strict_mode_fault_chains_to_previous_handler) {
  ChildResult r = run_child("strict_chains_previous_handler");
  CHECK(r.exited);
  CHECK_EQ(r.exit_code, 42);
  CHECK_CONTAINS(r.stderr_text, "torch_tpu strict mode: the host accessed device memory");
  CHECK_CONTAINS(r.stderr_text, "previous handler called");
}

TEST(strict_mode_kernel_touching_unnamed_buffer) {
#if defined(__SANITIZE_THREAD__)
  SKIP_TEST(kTsanOwnsFatalSignals);
#endif
  ChildResult r = run_child("strict_kernel_unnamed_buffer");
  CHECK(r.signaled);
  CHECK_EQ(r.signal, SIGSEGV);
  CHECK_CONTAINS(r.stderr_text, "kernel 'sloppy_kernel' running on tpu:0 accessed device memory");
  CHECK_CONTAINS(r.stderr_text, "not among the buffers named in its launch");
}

TEST(use_after_free_fault_is_explained) {
#if defined(__SANITIZE_THREAD__)
  SKIP_TEST(kTsanOwnsFatalSignals);
#endif
  ChildResult r = run_child("non_strict_use_after_free");
  CHECK(r.signaled);
  CHECK_EQ(r.signal, SIGSEGV);
  CHECK_CONTAINS(r.stderr_text, "not inside a live allocation");
}
