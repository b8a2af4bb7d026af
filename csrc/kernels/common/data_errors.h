// Errors a kernel finds in the data it is given (an index out of range, a
// negative count): the user's errors, as PyTorch raises them on the CPU. A
// kernel throws; the stream keeps the error and reports it at the next
// synchronisation, or at the launch with launch blocking
// (runtime/kernel_errors.h). The message is PyTorch's, and starts with a tag
// when PyTorch's exception type is not RuntimeError; the glue
// (aten/device/runtime_check.cpp) raises that type with the rest.
#pragma once

#include <string>

namespace torch_tpu::kernels {

inline constexpr const char kIndexErrorTag[] = "[IndexError] ";

// IndexError (tagged) and RuntimeError.
[[noreturn]] void throw_index_error(const std::string& message);
[[noreturn]] void throw_data_error(const std::string& message);

}  // namespace torch_tpu::kernels
