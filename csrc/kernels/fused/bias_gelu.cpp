// gelu(x + bias) over the rows of [rows, n] (tpu::bias_gelu): the add and the
// activation in one pass, in the compute type (the sum is not rounded to a
// float16/bfloat16 x before the activation, unlike the unfused pair). GELU's
// formulas are the elementwise kernels' (kernels/elementwise/activation.cpp): exact
// x Phi(x) with erf, or the tanh approximation; float uses vec_math's erf/tanh.
#include "kernels/common/fp_contract.h"
#include <cmath>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/fused/fused.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"
#include "kernels/common/vec_math.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

constexpr double kSqrt1_2 = 0.707106781186547524401;
constexpr double kBeta = 1.41421356237309504880 * 1.12837916709551257390 * 0.5;  // sqrt(2 / pi)
constexpr double kKappa = 0.044715;

// Inlined so that the float loops vectorize (vec_math's functions are
// branch-free for that).
__attribute__((always_inline)) inline float erf_of(float x) { return vmath::erf_f(x); }
__attribute__((always_inline)) inline double erf_of(double x) { return std::erf(x); }
__attribute__((always_inline)) inline float tanh_of(float x) { return vmath::tanh_f(x); }
__attribute__((always_inline)) inline double tanh_of(double x) { return std::tanh(x); }

template <typename C>
__attribute__((always_inline)) inline void gelu_row(const C* x, const C* __restrict bias, C* y,
                                                    int64_t n, bool tanh) {  // y may be x
  if (tanh) {
    for (int64_t i = 0; i < n; ++i) {
      const C z = x[i] + bias[i];
      const C inner = C(kBeta) * (z + C(kKappa) * z * z * z);
      y[i] = C(0.5) * z * (C(1) + tanh_of(inner));
    }
  } else {
    for (int64_t i = 0; i < n; ++i) {
      const C z = x[i] + bias[i];
      y[i] = z * C(0.5) * (C(1) + erf_of(z * C(kSqrt1_2)));
    }
  }
}

template <typename C>
void bias_gelu_typed(const BiasGeluDesc& d) {
  const int64_t n = d.n;
  std::vector<C> bias(n);
  nn::load_row(d.bias, d.dtype, 0, n, bias.data());
  // Rows already in the compute type are read and written in place.
  constexpr DType kCompute = std::is_same_v<C, float> ? DType::kFloat32 : DType::kFloat64;
  const bool direct = d.dtype == kCompute;
  runtime::parallel_for(0, d.rows, nn::rows_grain(n), [&](int64_t b, int64_t e) {
    std::vector<C> buf(direct ? 0 : n);
    for (int64_t r = b; r < e; ++r) {
      if (direct) {
        gelu_row(static_cast<const C*>(d.x) + r * n, bias.data(), static_cast<C*>(d.y) + r * n, n,
                 d.tanh);
        continue;
      }
      nn::load_row(d.x, d.dtype, r * n, n, buf.data());
      gelu_row(buf.data(), bias.data(), buf.data(), n, d.tanh);
      nn::store_row(buf.data(), n, d.y, d.dtype, r * n);
    }
  });
}

}  // namespace
}  // namespace TORCH_TPU_ISA

void TORCH_TPU_ISA_ENTRY(bias_gelu)(const BiasGeluDesc& d) {
  if (!nn::is_nn_float(d.dtype)) throw std::invalid_argument("bias_gelu: unsupported dtype");
  if (d.rows * d.n == 0) return;
  nn::with_compute_type(d.dtype, [&](auto c) { bias_gelu_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
