// Status names and the per-thread "last error" detail string.
#include <cstdio>
#include <string>
#include <utility>

#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace {
// Per host thread, like cudaGetLastError's detail: a failure on one thread
// never overwrites another thread's message.
thread_local std::string t_last_error;
thread_local KernelError t_kernel_error;
}  // namespace

const char* status_name(Status s) {
  switch (s) {
    case Status::kSuccess: return "kSuccess";
    case Status::kInvalidDevice: return "kInvalidDevice";
    case Status::kInvalidValue: return "kInvalidValue";
    case Status::kOutOfMemory: return "kOutOfMemory";
    case Status::kInvalidDevicePointer: return "kInvalidDevicePointer";
    case Status::kInvalidHostPointer: return "kInvalidHostPointer";
    case Status::kInvalidMemcpyDirection: return "kInvalidMemcpyDirection";
    case Status::kNotReady: return "kNotReady";
    case Status::kEventNotRecorded: return "kEventNotRecorded";
    case Status::kTimingDisabled: return "kTimingDisabled";
    case Status::kKernelFailure: return "kKernelFailure";
    case Status::kForkedProcess: return "kForkedProcess";
    case Status::kCaptureUnsupported: return "kCaptureUnsupported";
    case Status::kCaptureInvalidated: return "kCaptureInvalidated";
  }
  return "kUnknownStatus";
}

std::string last_error_message() { return t_last_error; }

const KernelError& last_kernel_error() { return t_kernel_error; }

namespace detail {

Status fail(Status s, std::string msg) {
  t_last_error = std::move(msg);
  t_kernel_error = KernelError{};
  return s;
}

Status fail_kernel(KernelError error) {
  std::string msg = "kernel '" + error.kernel + "' failed on tpu:" + std::to_string(error.device) + ": " + error.what;
  if (error.later_failures) {
    msg += " (and " + std::to_string(error.later_failures) + " later kernel failure(s))";
  }
  t_last_error = std::move(msg);
  t_kernel_error = std::move(error);
  return Status::kKernelFailure;
}

std::string hex(const void* p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%p", p);
  return buf;
}

}  // namespace detail
}  // namespace torch_tpu::runtime
