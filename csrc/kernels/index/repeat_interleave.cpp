// repeat_interleave's index vector (index.h): the running sum of the repeats
// is a serial pass over them (one per input row, few); the writes split over
// the device cores by repeat. Errors are CPU's RuntimeErrors (Repeat.h).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "kernels/index/index.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

int64_t repeat_at(const void* repeats, DType dtype, int64_t i) {
  return dtype == DType::kInt32 ? static_cast<const int32_t*>(repeats)[i] : static_cast<const int64_t*>(repeats)[i];
}

void check_dtype(DType dtype) {
  if (dtype != DType::kInt32 && dtype != DType::kInt64) {
    throw std::invalid_argument("repeat_interleave: repeats must be int32 or int64");
  }
}

// The repeats' sum, their running sums into `ends` when given; true when
// one of them is negative.
bool running_sums(const void* repeats, DType dtype, int64_t n, int64_t* sum, int64_t* ends) {
  bool negative = false;
  *sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t r = repeat_at(repeats, dtype, i);
    negative |= r < 0;
    *sum += r;
    if (ends != nullptr) ends[i] = *sum;
  }
  return negative;
}

template <typename T>
void fill(const std::vector<int64_t>& ends, const void* repeats, DType dtype, T* out) {
  const int64_t n = static_cast<int64_t>(ends.size());
  const int64_t grain = std::max<int64_t>(1, n * 4096 / std::max<int64_t>(1, ends.back()));
  runtime::parallel_for(0, n, grain, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t end = ends[i];
      for (int64_t j = end - repeat_at(repeats, dtype, i); j < end; ++j) out[j] = static_cast<T>(i);
    }
  });
}

}  // namespace

void repeat_interleave_total(const void* repeats, DType dtype, int64_t n, int64_t* total) {
  check_dtype(dtype);
  int64_t sum = 0;
  if (running_sums(repeats, dtype, n, &sum, nullptr)) throw_data_error("repeats can not be negative");
  *total = sum;
}

void repeat_interleave_write(const void* repeats, DType dtype, int64_t n, void* out, int64_t total) {
  check_dtype(dtype);
  if (n == 0) return;
  std::vector<int64_t> ends(n);
  int64_t sum = 0;
  const bool negative = running_sums(repeats, dtype, n, &sum, ends.data());
  // CPU's order: the size first, then the signs.
  if (sum != total) throw_data_error("allocated size does not match required size");
  if (negative) throw_data_error("repeats can not be negative");
  if (total == 0) return;
  if (dtype == DType::kInt32) {
    fill(ends, repeats, dtype, static_cast<int32_t*>(out));
  } else {
    fill(ends, repeats, dtype, static_cast<int64_t*>(out));
  }
}

}  // namespace torch_tpu::kernels
