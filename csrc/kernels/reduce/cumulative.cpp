// cummax / cummin / logcumsumexp (cumulative.h).
//
// Build time (issue 48): cummax and cummin share one loop per dtype (cummin
// is cummax of the values with their order reversed, see CumKey); bool and
// the integers share one per element size (ops.h IntBits). The elements
// themselves are copied, so the values are the same.
#include <algorithm>
#include <bit>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "kernels/common/convert.h"
#include "kernels/common/dtype_dispatch.h"
#include "kernels/reduce/cumulative.h"
#include "kernels/reduce/layout.h"
#include "kernels/reduce/ops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

// Each line along `dim` of `descs` (same sizes): body(line pointers, element
// strides along dim in bytes, length).
template <size_t N, typename F>
void for_each_line(const TensorDesc* const (&descs)[N], const int64_t (&elem)[N], int64_t dim, F&& body) {
  const TensorDesc& in = *descs[N - 1];
  const int64_t nd = in.dim();
  const int64_t len = in.sizes[dim];
  std::vector<int64_t> size;
  std::vector<std::vector<int64_t>> strides(N);
  for (int64_t i = nd - 1; i >= 0; --i) {
    if (i == dim) continue;
    size.push_back(in.sizes[i]);
    for (size_t k = 0; k < N; ++k) strides[k].push_back(descs[k]->strides[i] * elem[k]);
  }
  int64_t lines = 1;
  for (int64_t s : size) lines *= s;
  if (lines == 0 || len == 0) return;
  int64_t step[N];
  for (size_t k = 0; k < N; ++k) step[k] = descs[k]->strides[dim] * elem[k];
  runtime::parallel_for(0, lines, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, len)), [&](int64_t b, int64_t e) {
    for (int64_t l = b; l < e; ++l) {
      char* ptr[N];
      for (size_t k = 0; k < N; ++k) {
        ptr[k] = static_cast<char*>(const_cast<void*>(descs[k]->data)) + red::group_offset(size, strides[k], l);
      }
      body(ptr, step, len);
    }
  });
}

template <typename K>
bool cum_isnan(K x) {
  if constexpr (std::is_floating_point_v<K>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

// The value an element is compared by: its real value, with the sign bit
// flipped for cummin (the order reversed, NaN still NaN); for IntBits the
// widened integer, inverted for cummin (~k = -k - 1).
template <typename T>
struct CumKey {
  using V = decltype(real_value(T{}));
  using B = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
  B sign;
  CumKey(bool rev, red::IntWiden) : sign(rev ? B{1} << (8 * sizeof(B) - 1) : B{0}) {}
  V operator()(T x) const { return std::bit_cast<V>(static_cast<B>(std::bit_cast<B>(real_value(x)) ^ sign)); }
};
template <typename U>
struct CumKey<red::IntBits<U>> {
  red::IntWiden widen;
  uint64_t rev;
  CumKey(bool r, red::IntWiden w) : widen(w), rev(r ? ~uint64_t{0} : 0) {}
  int64_t operator()(red::IntBits<U> x) const { return static_cast<int64_t>(widen(x.bits) ^ rev); }
};

template <typename T>
void cum_extreme_typed(const TensorDesc& values, const TensorDesc& indices, const TensorDesc& in, int64_t dim,
                       CumKey<T> key) {
  const TensorDesc* const descs[3] = {&values, &indices, &in};
  const int64_t elem[3] = {sizeof(T), sizeof(int64_t), sizeof(T)};
  for_each_line(descs, elem, dim, [key](char* const* p, const int64_t* step, int64_t len) {
    T out;
    std::memcpy(&out, p[2], sizeof(T));
    int64_t idx = 0;
    for (int64_t i = 0; i < len; ++i) {
      T cur;
      std::memcpy(&cur, p[2] + i * step[2], sizeof(T));
      const auto c = key(cur), o = key(out);
      if (cum_isnan(c) || (!cum_isnan(o) && c >= o)) {
        out = cur;
        idx = i;
      }
      std::memcpy(p[0] + i * step[0], &out, sizeof(T));
      std::memcpy(p[1] + i * step[1], &idx, sizeof(int64_t));
    }
  });
}

// CPU's _log_add_exp_helper(x, acc), real and complex.
template <typename A>
A log_add_exp(A x, A y) {
  const A mn = std::isnan(y) ? y : std::min(x, y);
  const A mx = std::isnan(y) ? y : std::max(x, y);
  if (mn != mx || std::isfinite(mn)) return std::log1p(std::exp(mn - mx)) + mx;
  return x;
}

template <typename R>
bool complex_isnan(const std::complex<R>& z) {
  return std::isnan(z.real()) || std::isnan(z.imag());
}

// c10's log1p for complex (the non-Apple branch).
template <typename R>
std::complex<R> complex_log1p(const std::complex<R>& z) {
  const R x = z.real(), y = z.imag();
  const R zabs = std::abs(z);
  const R theta = std::atan2(y, x + R(1));
  if (zabs < 0.5) {
    const R r = x * (R(2) + x) + y * y;
    if (r == 0) return {x, theta};
    return {R(0.5) * std::log1p(r), theta};
  }
  return {std::log(std::hypot(x + 1, y)), theta};
}

template <typename R>
std::complex<R> log_add_exp(std::complex<R> x, std::complex<R> y) {
  std::complex<R> mn, mx;
  if (complex_isnan(y)) {
    mn = mx = y;
  } else if (complex_isnan(x)) {
    mn = mx = x;
  } else if (x.real() < y.real()) {
    mn = x, mx = y;
  } else {
    mn = y, mx = x;
  }
  if (complex_isnan(mn)) return {std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN()};
  if (!std::isfinite(mn.real()) && mn.real() == mx.real()) {
    if (mn.real() < 0) return mn;
    return std::log(std::exp(mn) + std::exp(mx));
  }
  return complex_log1p(std::exp(mn - mx)) + mx;
}

template <typename T>
struct LogCumAcc {
  using type = double;
};
template <> struct LogCumAcc<Half> { using type = float; };
template <> struct LogCumAcc<BFloat16> { using type = float; };
template <typename R> struct LogCumAcc<Complex<R>> { using type = std::complex<double>; };

template <typename T>
void logcumsumexp_typed(const TensorDesc& out, const TensorDesc& in, int64_t dim) {
  using A = typename LogCumAcc<T>::type;
  const TensorDesc* const descs[2] = {&out, &in};
  const int64_t elem[2] = {sizeof(T), sizeof(T)};
  for_each_line(descs, elem, dim, [](char* const* p, const int64_t* step, int64_t len) {
    // CPU starts from the element type's -inf, converted to the accumulator.
    A acc = A(-std::numeric_limits<double>::infinity());
    for (int64_t i = 0; i < len; ++i) {
      T x;
      std::memcpy(&x, p[1] + i * step[1], sizeof(T));
      if constexpr (is_complex_v<T>) {
        acc = log_add_exp(A(x.re, x.im), acc);
        const T o{static_cast<decltype(x.re)>(acc.real()), static_cast<decltype(x.re)>(acc.imag())};
        std::memcpy(p[0] + i * step[0], &o, sizeof(T));
      } else {
        acc = log_add_exp(static_cast<A>(real_value(x)), acc);
        const T o = convert<T>(acc);
        std::memcpy(p[0] + i * step[0], &o, sizeof(T));
      }
    }
  });
}

bool is_wide_unsigned(DType t) { return t == DType::kUInt16 || t == DType::kUInt32 || t == DType::kUInt64; }

}  // namespace

bool cum_extreme_supports(DType t) {
  return t != DType::kComplex64 && t != DType::kComplex128 && !is_wide_unsigned(t);
}

void cum_extreme(CumExtreme op, const TensorDesc& values, const TensorDesc& indices, const TensorDesc& in,
                 int64_t dim) {
  if (!cum_extreme_supports(in.dtype) || values.dtype != in.dtype || indices.dtype != DType::kInt64 ||
      values.sizes != in.sizes || indices.sizes != in.sizes || dim < 0 || dim >= in.dim()) {
    throw std::invalid_argument("torch_tpu kernels: cummax/cummin: malformed descriptor");
  }
  const bool rev = op == CumExtreme::kMin;
  auto run = [&](auto tag, red::IntWiden w) {
    using T = typename decltype(tag)::type;
    cum_extreme_typed<T>(values, indices, in, dim, CumKey<T>(rev, w));
  };
  if (red::visit_int_bits(in.dtype, run)) return;
  switch (in.dtype) {
    case DType::kFloat16: return run(TypeTag<Half>{}, {});
    case DType::kBFloat16: return run(TypeTag<BFloat16>{}, {});
    case DType::kFloat32: return run(TypeTag<float>{}, {});
    default: return run(TypeTag<double>{}, {});
  }
}

bool logcumsumexp_supports(DType t) {
  return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 || t == DType::kFloat64 ||
         t == DType::kComplex64 || t == DType::kComplex128;
}

void logcumsumexp(const TensorDesc& out, const TensorDesc& in, int64_t dim) {
  if (!logcumsumexp_supports(in.dtype) || out.dtype != in.dtype || out.sizes != in.sizes || dim < 0 ||
      dim >= in.dim()) {
    throw std::invalid_argument("torch_tpu kernels: logcumsumexp: malformed descriptor");
  }
  switch (in.dtype) {
    case DType::kFloat16: return logcumsumexp_typed<Half>(out, in, dim);
    case DType::kBFloat16: return logcumsumexp_typed<BFloat16>(out, in, dim);
    case DType::kFloat32: return logcumsumexp_typed<float>(out, in, dim);
    case DType::kFloat64: return logcumsumexp_typed<double>(out, in, dim);
    case DType::kComplex64: return logcumsumexp_typed<Complex<float>>(out, in, dim);
    default: return logcumsumexp_typed<Complex<double>>(out, in, dim);
  }
}

}  // namespace torch_tpu::kernels
