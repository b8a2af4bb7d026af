#include "aten/runtime_check.h"

#include <string>

namespace torch_tpu::aten {

void throw_runtime_error(runtime::Status status, const char* expr, const char* file,
                         int line) {
  std::string detail = runtime::last_error_message();
  if (detail.empty()) detail = runtime::status_name(status);
  c10::SourceLocation where{expr, file, static_cast<uint32_t>(line)};
  if (status == runtime::Status::kOutOfMemory) {
    throw c10::OutOfMemoryError(where, "tpu: " + detail);
  }
  throw c10::Error(where, std::string("tpu runtime error (") +
                              runtime::status_name(status) + "): " + detail);
}

}  // namespace torch_tpu::aten
