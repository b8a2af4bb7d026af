// Row distances (distance.h). One output element per (row, row) pair; the
// pairs split over the cores.
#include <cmath>
#include <limits>
#include <stdexcept>

#include "kernels/linalg/distance.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

template <typename T>
double distance(const T* a, const T* b, int64_t m, double p) {
  double acc = 0;
  if (p == 0) {
    for (int64_t k = 0; k < m; ++k) acc += a[k] != b[k];
    return acc;
  }
  if (std::isinf(p)) {
    for (int64_t k = 0; k < m; ++k) acc = std::max(acc, std::abs(double(a[k]) - double(b[k])));
    return acc;
  }
  if (p == 1) {
    for (int64_t k = 0; k < m; ++k) acc += std::abs(double(a[k]) - double(b[k]));
    return acc;
  }
  if (p == 2) {
    for (int64_t k = 0; k < m; ++k) {
      const double diff = double(a[k]) - double(b[k]);
      acc += diff * diff;
    }
    return std::sqrt(acc);
  }
  for (int64_t k = 0; k < m; ++k) acc += std::pow(std::abs(double(a[k]) - double(b[k])), p);
  return std::pow(acc, 1.0 / p);
}

template <typename T>
void cdist_typed(const T* x1, const T* x2, T* out, int64_t B, int64_t P, int64_t R, int64_t M, double p) {
  runtime::parallel_for(0, B * P * R, nn::rows_grain(M), [&](int64_t b, int64_t e) {
    for (int64_t o = b; o < e; ++o) {
      const int64_t batch = o / (P * R), i = (o / R) % P, j = o % R;
      out[o] = static_cast<T>(distance(x1 + (batch * P + i) * M, x2 + (batch * R + j) * M, M, p));
    }
  });
}

template <typename T>
void pdist_typed(const T* x, T* out, int64_t N, int64_t M, double p) {
  // Row i's pairs (i, j > i) start at i * N - i * (i + 1) / 2.
  runtime::parallel_for(0, N, nn::rows_grain(M * N / 2 + 1), [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      T* row = out + i * N - i * (i + 1) / 2;
      for (int64_t j = i + 1; j < N; ++j) row[j - i - 1] = static_cast<T>(distance(x + i * M, x + j * M, M, p));
    }
  });
}

}  // namespace

bool distance_supports(DType t) { return t == DType::kFloat32 || t == DType::kFloat64; }

void cdist(DType t, const void* x1, const void* x2, void* out, int64_t B, int64_t P, int64_t R, int64_t M,
           double p) {
  if (t == DType::kFloat32) {
    cdist_typed(static_cast<const float*>(x1), static_cast<const float*>(x2), static_cast<float*>(out), B, P, R,
                M, p);
  } else if (t == DType::kFloat64) {
    cdist_typed(static_cast<const double*>(x1), static_cast<const double*>(x2), static_cast<double*>(out), B, P,
                R, M, p);
  } else {
    throw std::invalid_argument("cdist: float or double only");
  }
}

void pdist(DType t, const void* x, void* out, int64_t N, int64_t M, double p) {
  if (t == DType::kFloat32) {
    pdist_typed(static_cast<const float*>(x), static_cast<float*>(out), N, M, p);
  } else if (t == DType::kFloat64) {
    pdist_typed(static_cast<const double*>(x), static_cast<double*>(out), N, M, p);
  } else {
    throw std::invalid_argument("pdist: float or double only");
  }
}

}  // namespace torch_tpu::kernels
