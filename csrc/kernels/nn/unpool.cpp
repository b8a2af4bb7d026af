// max_unpool (unpool.h): one plane per task, zero-filled then scattered.
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/common/data_errors.h"
#include "kernels/nn/unpool.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {

void max_unpool_forward(const UnpoolDesc& d, const void* x, const int64_t* indices, void* y) {
  const size_t bytes = dtype_size(d.dtype);
  const int64_t out_plane = d.out[0] * d.out[1] * d.out[2];
  std::atomic<bool> failed{false};
  std::atomic<int64_t> bad_index{0};
  runtime::parallel_for(0, d.planes, nn::rows_grain(out_plane), [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) {
      const char* src = static_cast<const char*>(x) + p * d.in_plane * bytes;
      char* dst = static_cast<char*>(y) + p * out_plane * bytes;
      const int64_t* idx = indices + p * d.in_plane;
      std::memset(dst, 0, out_plane * bytes);
      for (int64_t i = 0; i < d.in_plane; ++i) {
        const int64_t k = idx[i];
        if (k < 0 || k >= out_plane) {
          if (!failed.exchange(true)) bad_index = k;
          break;
        }
        std::memcpy(dst + k * bytes, src + i * bytes, bytes);
      }
    }
  });
  if (failed) {
    std::string msg = "Found an invalid max index: ";
    msg += std::to_string(bad_index.load());
    msg += " (output volumes are of size ";
    for (int a = 3 - d.dims; a < 3; ++a) {
      if (a > 3 - d.dims) msg += 'x';
      msg += std::to_string(d.out[a]);
    }
    msg += ')';
    throw_data_error(msg);
  }
}

}  // namespace torch_tpu::kernels
