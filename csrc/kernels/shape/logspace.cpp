// logspace (shape.h): CPU's RangeFactories.cpp loop, bit for bit. A file of
// its own for fp_contract.h: start + step * i must not fuse into an FMA (CPU's
// loop does not), or an integer result's truncation can land one below.
#include "kernels/common/fp_contract.h"  // first, see there

#include <cmath>
#include <complex>
#include <stdexcept>
#include <type_traits>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/common/loops.h"
#include "kernels/shape/shape.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// c10::complex's a / b for b = (c, 0): multiplied by 1 / c (its division
// formula), not divided part by part.
template <typename F>
std::complex<F> div_by_real(std::complex<F> a, F c) {
  const F d = F(0);
  const F rat = d / c, scl = F(1) / (c + d * rat);
  return {(a.real() + a.imag() * rat) * scl, (a.imag() - a.real() * rat) * scl};
}

// c10::complex's a * (k, 0): (re k - im 0, re 0 + im k).
template <typename F>
std::complex<F> mul_by_real(std::complex<F> a, F k) {
  return {a.real() * k - a.imag() * F(0), a.real() * F(0) + a.imag() * k};
}

}  // namespace

void logspace(const TensorDesc& out, const LogspaceArgs& a) {
  if (out.dim() != 1 || out.sizes[0] != a.steps || a.steps < 2 || out.strides[0] != 1)
    throw std::invalid_argument("logspace: bad out");
  const int64_t steps = a.steps, halfway = steps / 2;
  visit_dtype(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = static_cast<T*>(out.data);
    if constexpr (std::is_same_v<T, Bool>) {
      throw std::invalid_argument("logspace: unsupported dtype");
    } else if constexpr (is_complex_v<T>) {
      // All in complex<F>: base, start and end converted to it, the index too.
      using F = decltype(T{}.re);
      const std::complex<F> base(static_cast<F>(a.base), F(0));
      const std::complex<F> s(static_cast<F>(a.start), static_cast<F>(a.start_im));
      const std::complex<F> e(static_cast<F>(a.end), static_cast<F>(a.end_im));
      const std::complex<F> step = div_by_real(e - s, static_cast<F>(steps - 1));
      runtime::parallel_for(0, steps, grain_elements(sizeof(T)), [&](int64_t b, int64_t en) {
        for (int64_t i = b; i < en; ++i) {
          const std::complex<F> x = i < halfway ? s + mul_by_real(step, static_cast<F>(i))
                                                : e - mul_by_real(step, static_cast<F>(steps - i - 1));
          const std::complex<F> v = std::pow(base, x);
          p[i] = T{v.real(), v.imag()};
        }
      });
    } else {
      // start/end are already the element type's values and step is CPU's
      // double; the powers in double, converted as C++ converts on x86
      // (float16/bfloat16 through float, integers truncated).
      runtime::parallel_for(0, steps, grain_elements(sizeof(T)), [&](int64_t b, int64_t en) {
        for (int64_t i = b; i < en; ++i) {
          const double x = i < halfway ? a.start + a.step * static_cast<double>(i)
                                       : a.end - a.step * static_cast<double>(steps - i - 1);
          p[i] = convert<T>(std::pow(a.base, x));
        }
      });
    }
  });
}

}  // namespace torch_tpu::kernels
