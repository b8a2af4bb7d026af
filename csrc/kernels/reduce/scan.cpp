// cumsum / cumprod (reduce.h, "scans"): each line along `dim` is scanned
// sequentially in CPU's accumulation type (at::acc_type on CPU: double for
// float32/float64, float for float16/bfloat16, int64 for integers); lines
// are split over the device's cores.
//
// Build time (issue 48): bool and the integers scan in 64 bits in one loop
// per element size (ops.h IntBits); the sums and products wrap modulo 2^64,
// and the result is stored truncated to the element (a bool: nonzero), as
// convert() from int64 does.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/elementwise/math.h"
#include "kernels/reduce/reduce.h"
#include "kernels/reduce/layout.h"
#include "kernels/reduce/ops.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {

namespace {

template <typename T>
struct ScanAccOf {
  using type = int64_t;
};
template <> struct ScanAccOf<Half> { using type = float; };
template <> struct ScanAccOf<BFloat16> { using type = float; };
template <> struct ScanAccOf<float> { using type = double; };
template <> struct ScanAccOf<double> { using type = double; };
template <> struct ScanAccOf<Complex<float>> { using type = Complex<double>; };
template <> struct ScanAccOf<Complex<double>> { using type = Complex<double>; };
template <typename U> struct ScanAccOf<red::IntBits<U>> { using type = uint64_t; };

template <typename T>
inline constexpr bool is_int_bits_v = false;
template <typename U>
inline constexpr bool is_int_bits_v<red::IntBits<U>> = true;

template <typename T, bool kProd>
void scan_typed(const TensorDesc& out, const TensorDesc& in, int64_t dim, red::IntWiden widen = {}) {
  using A = typename ScanAccOf<T>::type;
  const int64_t nd = in.dim();
  const int64_t len = in.sizes[dim];
  const int64_t es = static_cast<int64_t>(sizeof(T));
  // The other dims, as one flat index space.
  std::vector<int64_t> size, sin, sout;
  for (int64_t i = nd - 1; i >= 0; --i) {
    if (i == dim) continue;
    size.push_back(in.sizes[i]);
    sin.push_back(in.strides[i] * es);
    sout.push_back(out.strides[i] * es);
  }
  int64_t lines = 1;
  for (int64_t s : size) lines *= s;
  if (lines == 0 || len == 0) return;
  const int64_t ls_in = in.strides[dim] * es, ls_out = out.strides[dim] * es;
  const char* ib = static_cast<const char*>(in.data);
  char* ob = static_cast<char*>(out.data);
  runtime::parallel_for(0, lines, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, len)), [&](int64_t b, int64_t e) {
    for (int64_t l = b; l < e; ++l) {
      const char* ip = ib + red::group_offset(size, sin, l);
      char* op = ob + red::group_offset(size, sout, l);
      A acc;
      if constexpr (is_complex_v<A>) {
        acc = kProd ? A{1, 0} : A{0, 0};
      } else {
        acc = kProd ? A(1) : A(0);
      }
      for (int64_t i = 0; i < len; ++i) {
        T x;
        std::memcpy(&x, ip + i * ls_in, sizeof(T));
        if constexpr (is_int_bits_v<T>) {
          const A v = widen(x.bits);
          acc = kProd ? acc * v : acc + v;
          using U = decltype(x.bits);
          const U o = widen.cap == 1 ? U(acc != 0) : static_cast<U>(acc);
          std::memcpy(op + i * ls_out, &o, sizeof(U));
          continue;
        } else if constexpr (is_complex_v<A>) {
          const A v{x.re, x.im};
          acc = kProd ? ew::complex_mul(acc, v) : A{acc.re + v.re, acc.im + v.im};
        } else {
          const A v = static_cast<A>(real_value(x));
          acc = kProd ? acc * v : acc + v;
        }
        const T o = convert<T>(acc);
        std::memcpy(op + i * ls_out, &o, sizeof(T));
      }
    }
  });
}

}  // namespace

bool scan_supports(ScanOp, DType) { return true; }

void scan(ScanOp op, const TensorDesc& out, const TensorDesc& in, int64_t dim) {
  if (in.dtype != out.dtype || in.sizes != out.sizes || dim < 0 || dim >= in.dim()) {
    throw std::invalid_argument("torch_tpu kernels: scan: malformed descriptor");
  }
  auto run = [&](auto tag, red::IntWiden w) {
    using T = typename decltype(tag)::type;
    if (op == ScanOp::kCumProd) {
      scan_typed<T, true>(out, in, dim, w);
    } else {
      scan_typed<T, false>(out, in, dim, w);
    }
  };
  if (red::visit_int_bits(in.dtype, run)) return;
  switch (in.dtype) {
    case DType::kFloat16: return run(TypeTag<Half>{}, {});
    case DType::kBFloat16: return run(TypeTag<BFloat16>{}, {});
    case DType::kFloat32: return run(TypeTag<float>{}, {});
    case DType::kFloat64: return run(TypeTag<double>{}, {});
    case DType::kComplex64: return run(TypeTag<Complex<float>>{}, {});
    case DType::kComplex128: return run(TypeTag<Complex<double>>{}, {});
    default: break;
  }
  throw std::invalid_argument("torch_tpu kernels: scan: unsupported dtype");
}

}  // namespace torch_tpu::kernels
