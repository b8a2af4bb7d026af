// Where device work came from, for errors the device finds later. A kernel
// that checks the data it is given (an index in range) fails after its launch
// returned, and the next synchronisation raises the error (as CUDA's
// device-side asserts surface). So that error names the op that failed and
// the line of the user's program that launched it, such launches carry an
// origin (runtime/kernel_errors.h): the aten op running on the launching
// thread and, unless turned off, the Python stack at the launch.
// runtime_check.cpp turns a kernel failure into PyTorch's exception with
// PyTorch's message first, then this origin.
#pragma once

#include <string>

#include "runtime/kernel_errors.h"

namespace torch_tpu::aten {

// The aten op the calling thread runs on tpu: the generated wrappers hold
// one for their call ("aten::index.Tensor"); nested ops keep the outermost
// one too. `op` must be a string literal (it outlives the call).
class OpScope {
 public:
  explicit OpScope(const char* op) noexcept;
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  const char* saved_;
  bool outermost_;
};

// The origin of a launch made now: the ops of the enclosing OpScopes and,
// when stacks are on, the Python stack (torch's CapturedTraceback, a few
// microseconds).
runtime::LaunchOriginPtr launch_origin();

// "aten::index.Tensor (called from aten::one_hot)" and the launch's Python
// stack as a traceback ("" parts are left out); "" for a null origin.
std::string describe_origin(const runtime::LaunchOrigin* origin);

// Python stacks in launch origins: env TORCH_TPU_LAUNCH_STACKS (default on).
void set_launch_stacks(bool on);
bool launch_stacks();

}  // namespace torch_tpu::aten
