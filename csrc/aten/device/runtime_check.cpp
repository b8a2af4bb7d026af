#include "aten/device/runtime_check.h"

#include <string>

#include "aten/device/launch_origin.h"
#include "kernels/common/data_errors.h"
#include "runtime/kernel_errors.h"

namespace torch_tpu::aten {
namespace {

// A kernel's failure as PyTorch raises the error: the type its message is
// tagged with (kernels/common/data_errors.h: IndexError, else RuntimeError)
// and PyTorch's message first. Raised by the launch itself (launch blocking)
// that is all; raised at a later synchronisation, what failed and where it
// was launched follow.
[[noreturn]] void throw_kernel_error(const runtime::KernelError& e, const c10::SourceLocation& where) {
  std::string message = e.what;
  std::string context;  // "captured kernel 'x': " of a graph replay
  bool index_error = false;
  if (const size_t tag = message.find(kernels::kIndexErrorTag); tag != std::string::npos) {
    context = message.substr(0, tag);
    message = message.substr(tag + sizeof(kernels::kIndexErrorTag) - 1);
    index_error = true;
  }
  if (!e.at_launch) {
    // "(raised asynchronously on tpu:0 by aten::index.Tensor, launched at:\n  File ...\nand reported ...)"
    std::string origin = describe_origin(e.origin.get());
    if (origin.empty()) origin = "kernel '" + e.kernel + "'";
    if (!context.empty()) origin = context.substr(0, context.find_last_not_of(": ") + 1) + " in " + origin;
    if (origin.back() != '\n') origin += "\n";
    message += "\n(raised asynchronously on tpu:" + std::to_string(e.device) + " by " + origin;
    if (e.later_failures) message += std::to_string(e.later_failures) + " later kernel failure(s) were dropped, ";
    message += "and reported at this synchronisation. Set TORCH_TPU_LAUNCH_BLOCKING=1 to raise it at the op.)";
  }
  if (index_error) throw c10::IndexError(where, message);
  throw c10::Error(where, message);
}

}  // namespace

void throw_runtime_error(runtime::Status status, const char* expr, const char* file,
                         int line) {
  std::string detail = runtime::last_error_message();
  if (detail.empty()) detail = runtime::status_name(status);
  c10::SourceLocation where{expr, file, static_cast<uint32_t>(line)};
  if (status == runtime::Status::kOutOfMemory) {
    throw c10::OutOfMemoryError(where, "tpu: " + detail);
  }
  if (status == runtime::Status::kKernelFailure && !runtime::last_kernel_error().kernel.empty()) {
    throw_kernel_error(runtime::last_kernel_error(), where);
  }
  throw c10::Error(where, std::string("tpu runtime error (") +
                              runtime::status_name(status) + "): " + detail);
}

}  // namespace torch_tpu::aten
