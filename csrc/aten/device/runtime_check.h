// Turns runtime::Status codes into PyTorch errors. Out of memory becomes
// c10::OutOfMemoryError (torch.OutOfMemoryError in Python); everything else a
// RuntimeError carrying the runtime's own message.
#pragma once

#include <c10/util/Exception.h>

#include "runtime/runtime.h"

namespace torch_tpu::aten {

[[noreturn]] void throw_runtime_error(runtime::Status status, const char* expr,
                                      const char* file, int line);

}  // namespace torch_tpu::aten

#define TPU_CHECK(expr)                                                         \
  do {                                                                          \
    ::torch_tpu::runtime::Status tpu_status_ = (expr);                          \
    if (C10_UNLIKELY(tpu_status_ != ::torch_tpu::runtime::Status::kSuccess)) { \
      ::torch_tpu::aten::throw_runtime_error(tpu_status_, #expr, __FILE__,      \
                                             __LINE__);                         \
    }                                                                           \
  } while (0)
