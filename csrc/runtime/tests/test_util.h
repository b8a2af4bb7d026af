// Helpers shared by the runtime tests, on top of the shared harness
// (testing/harness.h): status checks, child processes, scoped test modes.
#pragma once

#include <unistd.h>

#include <cerrno>
#include <string>
#include <vector>

#include "child_process.h"
#include "runtime/runtime.h"
#include "testing/harness.h"

namespace tpu_test {

namespace rt = torch_tpu::runtime;

inline void check_status(rt::Status got, rt::Status want, const char* expr, const char* file, int line) {
  if (got != want) {
    report_failure(file, line,
                   std::string(expr) + " returned " + rt::status_name(got) + ", expected " +
                       rt::status_name(want) + " (last error: " + rt::last_error_message() + ")");
  }
}

#define CHECK_STATUS(expr, want) ::tpu_test::check_status((expr), (want), #expr, __FILE__, __LINE__)
#define CHECK_OK(expr) CHECK_STATUS(expr, ::torch_tpu::runtime::Status::kSuccess)

// Whether the host can read p, without faulting: write(2) from an
// inaccessible buffer fails with EFAULT instead of raising SIGSEGV.
inline bool host_can_read(const void* p) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const ssize_t n = write(fds[1], p, 1);
  const int err = errno;
  close(fds[0]);
  close(fds[1]);
  return n == 1 || err != EFAULT;
}

// Restores strict mode / slow device on scope exit.
struct StrictScope {
  bool old;
  explicit StrictScope(bool on) : old(rt::strict_mode()) { rt::set_strict_mode(on); }
  ~StrictScope() { rt::set_strict_mode(old); }
};
struct SlowScope {
  int64_t old;
  explicit SlowScope(int64_t us) : old(rt::slow_device_us()) { rt::set_slow_device_us(us); }
  ~SlowScope() { rt::set_slow_device_us(old); }
};

// Device, pinned host and stream resources released (and checked) on scope exit.
struct DeviceBuf {
  void* p = nullptr;
  DeviceBuf(int dev, size_t n) { CHECK_OK(rt::malloc(dev, n, &p)); }
  ~DeviceBuf() { CHECK_OK(rt::free(p)); }
};

struct PinnedBuf {
  void* p = nullptr;
  explicit PinnedBuf(size_t n) { CHECK_OK(rt::malloc_host(n, &p)); }
  ~PinnedBuf() { CHECK_OK(rt::free_host(p)); }
  unsigned char* bytes() { return static_cast<unsigned char*>(p); }
};

struct StreamHolder {
  rt::Stream s = nullptr;
  StreamHolder() { CHECK_OK(rt::stream_create(0, 0, &s)); }
  ~StreamHolder() { CHECK_OK(rt::stream_destroy(s)); }
};

// Device buffer filled from / read back to host vectors with sync copies.
inline std::vector<unsigned char> read_device(const void* p, size_t n) {
  std::vector<unsigned char> out(n);
  if (n) CHECK_OK(rt::memcpy(out.data(), p, n, rt::MemcpyKind::kDeviceToHost));
  return out;
}

inline std::vector<unsigned char> pattern(size_t n, unsigned seed) {
  std::vector<unsigned char> v(n);
  unsigned x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    v[i] = static_cast<unsigned char>(x >> 16);
  }
  return v;
}

}  // namespace tpu_test
