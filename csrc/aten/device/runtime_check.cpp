#include "aten/device/runtime_check.h"

#include <string>

#include "kernels/index/index.h"

namespace torch_tpu::aten {

void throw_runtime_error(runtime::Status status, const char* expr, const char* file,
                         int line) {
  std::string detail = runtime::last_error_message();
  if (detail.empty()) detail = runtime::status_name(status);
  c10::SourceLocation where{expr, file, static_cast<uint32_t>(line)};
  if (status == runtime::Status::kOutOfMemory) {
    throw c10::OutOfMemoryError(where, "tpu: " + detail);
  }
  // A kernel that found bad data (an index out of range) tags its message
  // with the PyTorch error type CPU raises (kernels/index/index.h): raise that
  // type, CPU's message first, then where it was found.
  if (const size_t tag = detail.find(kernels::kIndexErrorTag); tag != std::string::npos) {
    std::string origin = detail.substr(0, tag);  // "kernel 'x' failed on tpu:0: "
    while (!origin.empty() && (origin.back() == ' ' || origin.back() == ':')) origin.pop_back();
    throw c10::IndexError(where, detail.substr(tag + sizeof(kernels::kIndexErrorTag) - 1) + " (" + origin +
                                     "; reported at this synchronisation)");
  }
  throw c10::Error(where, std::string("tpu runtime error (") +
                              runtime::status_name(status) + "): " + detail);
}

}  // namespace torch_tpu::aten
