// Kernel failures and where they came from. Work on a stream runs after its
// launch returned, so a kernel that finds bad data (an index out of range)
// fails later and the next synchronisation on its stream reports it (the
// sticky error of runtime.h). So that report can name the work that failed
// and where it was launched, a launch may carry an origin: an object of the
// caller's (the glue records the op and the Python stack) that the runtime
// keeps with the task and hands back with its error, never looking inside.
//
// Launch blocking (env TORCH_TPU_LAUNCH_BLOCKING=1, or set_launch_blocking)
// makes every launch wait for its task, as CUDA_LAUNCH_BLOCKING does: a
// kernel's failure is then the launch's own return value.
//
// Kept out of runtime.h, which every kernel file includes.
#pragma once

#include <memory>
#include <string>

#include "runtime/runtime.h"

namespace torch_tpu::runtime {

class LaunchOrigin {
 public:
  virtual ~LaunchOrigin() = default;
};
using LaunchOriginPtr = std::shared_ptr<const LaunchOrigin>;

// launch() of runtime.h, with the task's origin (null: none).
Status launch(Stream s, const char* name, const BufferList& buffers, TaskBody&& body, LaunchOriginPtr origin);

// The calling thread's last kKernelFailure, in parts (last_error_message()
// has them as one line). `kernel` is empty when its last failure was
// something else.
struct KernelError {
  std::string kernel;      // the launch's name
  int device = -1;
  std::string what;        // the exception's message
  LaunchOriginPtr origin;  // the failing task's origin
  int later_failures = 0;  // reported with it (its stream's, or its device's other streams')
  bool at_launch = false;  // reported by the launch of the failing task itself (launch blocking)
};
const KernelError& last_kernel_error();

// Launch blocking: every launch (outside a graph capture) returns after its
// task ran, with its failure. Initially TORCH_TPU_LAUNCH_BLOCKING.
void set_launch_blocking(bool on);
bool launch_blocking();

}  // namespace torch_tpu::runtime
