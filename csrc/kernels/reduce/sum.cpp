// sum, mean and prod (reduce.h). The input has the output's dtype (ATen
// casts it first); accumulation in SumAccOf (float for float16/bfloat16,
// int64 for integers), pairwise for sums. mean divides the sum by n in the
// accumulation type, as CPU's sum-then-div_ does.
#include <stdexcept>

#include "kernels/elementwise/math.h"
#include "kernels/reduce/engine.h"
#include "kernels/reduce/ops.h"

namespace torch_tpu::kernels::red {

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

template <typename T, bool kProd>
struct SumOp {
  using In = T;
  using Acc = typename SumAccOf<T>::type;
  static constexpr bool kPairwise = !kProd;
  static constexpr int kLanes = lanes_for<Acc, 64>();
  DType out_t;
  bool mean;

  Acc identity() const {
    if constexpr (!kProd) {
      return Acc{};
    } else if constexpr (is_complex_v<Acc>) {
      return Acc{1, 0};
    } else {
      return Acc(1);
    }
  }
  Acc load(T x, int64_t) const { return to_acc<Acc>(x); }
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
    write_value(out[0], out_t, a);
  }
};

}  // namespace

void reduce_sum_family(const ReduceDesc& d, const Layout& L) {
  const DType out_t = d.outputs[0].dtype;
  const bool mean = d.op == ReduceOp::kMean;
  visit_dtype_or_complex32(d.input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (d.op == ReduceOp::kProd) {
      run_reduction(SumOp<T, true>{out_t, false}, d, L);
    } else {
      run_reduction(SumOp<T, false>{out_t, mean}, d, L);
    }
  });
}

}  // namespace torch_tpu::kernels::red
