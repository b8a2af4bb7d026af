// sum, mean and prod (reduce.h). The input has the output's dtype (ATen
// casts it first); accumulation in SumAccOf (float for float16/bfloat16,
// int64 for integers), pairwise for sums. mean divides the sum by n in the
// accumulation type, as CPU's sum-then-div_ does.
//
// Build time (issue 48): the floating and complex dtypes get their own
// loops; bool and the integers accumulate in 64 bits in one loop per element
// size (ops.h IntBits): integer sums and products wrap modulo 2^64 in any
// order, so the values are the same.
#include <stdexcept>

#include "kernels/elementwise/math.h"
#include "kernels/reduce/engine.h"
#include "kernels/reduce/ops.h"

namespace torch_tpu::kernels::red {

template <typename U>
struct SumAccOf<IntBits<U>> {
  using type = uint64_t;
};

namespace {

template <typename A>
inline A acc_add(A a, A b) {
  if constexpr (is_complex_v<A>) {
    return {a.re + b.re, a.im + b.im};
  } else {
    return a + b;
  }
}

template <typename A>
inline A acc_mul(A a, A b) {
  if constexpr (is_complex_v<A>) {
    return ew::complex_mul(a, b);
  } else {
    return a * b;
  }
}

template <typename A, typename T>
inline A to_acc(T x) {
  if constexpr (is_complex_v<A>) {
    return convert<A>(x);  // complex32 widens to the complex64 accumulator
  } else {
    return static_cast<A>(real_value(x));
  }
}

template <typename T>
inline constexpr bool is_int_bits_v = false;
template <typename U>
inline constexpr bool is_int_bits_v<IntBits<U>> = true;

template <typename T, bool kProd>
struct SumOp {
  using In = T;
  using Acc = typename SumAccOf<T>::type;
  static constexpr bool kPairwise = !kProd;
  static constexpr int kLanes = lanes_for<Acc, 64>();
  DType out_t;
  bool mean;
  IntWiden widen;  // IntBits only

  Acc identity() const {
    if constexpr (!kProd) {
      return Acc{};
    } else if constexpr (is_complex_v<Acc>) {
      return Acc{1, 0};
    } else {
      return Acc(1);
    }
  }
  Acc load(T x, int64_t) const {
    if constexpr (is_int_bits_v<T>) {
      return static_cast<Acc>(widen(x.bits));
    } else {
      return to_acc<Acc>(x);
    }
  }
  Acc combine(Acc a, Acc b) const {
    if constexpr (kProd) {
      return acc_mul(a, b);
    } else {
      return acc_add(a, b);
    }
  }
  void store(char* const* out, Acc a, int64_t n) const {
    if constexpr (is_float_like_v<Acc> || is_complex_v<Acc>) {
      if (mean) {
        if constexpr (is_complex_v<Acc>) {
          using R = decltype(a.re);
          a = Acc{a.re / static_cast<R>(n), a.im / static_cast<R>(n)};
        } else {
          a = a / static_cast<Acc>(n);
        }
      }
    }
    if constexpr (is_int_bits_v<T>) {
      // uint64 arithmetic wraps as CPU's int64 does, without signed overflow
      if (!widen.is_u64) return write_value(out[0], out_t, static_cast<int64_t>(a));
    }
    write_value(out[0], out_t, a);
  }
};

template <typename T>
void run_sum(const ReduceDesc& d, const Layout& L, IntWiden widen = {}) {
  const DType out_t = d.outputs[0].dtype;
  if (d.op == ReduceOp::kProd) {
    run_reduction(SumOp<T, true>{out_t, false, widen}, d, L);
  } else {
    run_reduction(SumOp<T, false>{out_t, d.op == ReduceOp::kMean, widen}, d, L);
  }
}

}  // namespace

void reduce_sum_family(const ReduceDesc& d, const Layout& L) {
  const bool integral = visit_int_bits(d.input.dtype, [&](auto tag, IntWiden w) {
    run_sum<typename decltype(tag)::type>(d, L, w);
  });
  if (integral) return;
  switch (d.input.dtype) {
    case DType::kFloat16: return run_sum<Half>(d, L);
    case DType::kBFloat16: return run_sum<BFloat16>(d, L);
    case DType::kFloat32: return run_sum<float>(d, L);
    case DType::kFloat64: return run_sum<double>(d, L);
    case DType::kComplex32: return run_sum<Complex<Half>>(d, L);
    case DType::kComplex64: return run_sum<Complex<float>>(d, L);
    case DType::kComplex128: return run_sum<Complex<double>>(d, L);
    default: break;
  }
  throw std::invalid_argument("torch_tpu kernels: sum/prod/mean of an unsupported dtype");
}

}  // namespace torch_tpu::kernels::red
