#include "kernels/common/data_errors.h"

#include <stdexcept>

namespace torch_tpu::kernels {

[[noreturn]] void throw_index_error(const std::string& message) {
  throw std::out_of_range(std::string(kIndexErrorTag) + message);
}

[[noreturn]] void throw_data_error(const std::string& message) { throw std::runtime_error(message); }

}  // namespace torch_tpu::kernels
