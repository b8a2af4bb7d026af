// Vector p-norms and var/std (reduce.h).
//
// norm: |x| (complex: hypot, as std::abs) accumulated in float for
// float16/bfloat16/float32 (double for float64); p = 2, 1, 0 and general p
// sum pairwise (p = 0 counts nonzeros), p = inf / -inf take max / min |x|
// with NaN propagating; then sqrt, or ^(1/p).
// var/std: Welford in double, lanes and halves combined with Chan's
// formula; var = m2 / max(0, n - correction), as CPU's WelfordOps.
//
// Build time (issue 48): p = -inf shares p = inf's loop, as the max of
// -|x| (the sign bit flipped, undone on store: the same element wins).
#include <bit>
#include <stdexcept>

#include "kernels/elementwise/math.h"
#include "kernels/reduce/engine.h"
#include "kernels/reduce/ops.h"

namespace torch_tpu::kernels::red {

namespace {

// kMax: max |x| (p = inf), or with `rev` max -|x| (p = -inf).
enum class NormKind { kTwo, kOne, kZero, kMax, kP };

template <typename T>
struct NormAccOf {
  using type = std::conditional_t<std::is_same_v<T, double>, double, float>;
};
template <typename T>
struct NormAccOf<Complex<T>> {
  using type = T;
};

template <typename T, NormKind K>
struct NormOp {
  using In = T;
  using Acc = typename NormAccOf<T>::type;
  using Bits = std::conditional_t<sizeof(Acc) == 4, uint32_t, uint64_t>;
  static constexpr bool kPairwise = K != NormKind::kMax;
  static constexpr int kLanes = lanes_for<Acc>();
  DType out_t;
  Acc p;
  Bits sign = 0;  // kMax: the sign bit for p = -inf, else 0

  Acc flip(Acc v) const { return std::bit_cast<Acc>(static_cast<Bits>(std::bit_cast<Bits>(v) ^ sign)); }
  Acc identity() const {
    // p = -inf starts from inf, flipped
    return K == NormKind::kMax && sign != 0 ? -std::numeric_limits<Acc>::infinity() : Acc(0);
  }
  Acc load(T x, int64_t) const {
    Acc v;
    if constexpr (is_complex_v<T>) {
      v = ew::complex_abs(x);
    } else {
      v = std::fabs(static_cast<Acc>(real_value(x)));
    }
    if constexpr (K == NormKind::kTwo) return v * v;
    if constexpr (K == NormKind::kZero) return v != 0 ? Acc(1) : Acc(0);
    if constexpr (K == NormKind::kP) return std::pow(v, p);
    if constexpr (K == NormKind::kMax) return flip(v);
    return v;
  }
  Acc combine(Acc a, Acc b) const {
    if constexpr (K == NormKind::kMax) {
      const Acc better = b > a ? b : a;
      return b != b ? b : better;  // a NaN in a survives the comparison
    } else {
      return a + b;
    }
  }
  void store(char* const* out, Acc a, int64_t) const {
    if constexpr (K == NormKind::kTwo) a = std::sqrt(a);
    if constexpr (K == NormKind::kP) a = std::pow(a, Acc(1) / p);
    if constexpr (K == NormKind::kMax) a = flip(a);
    write_value(out[0], out_t, a);
  }
};

template <typename T, NormKind K>
void run_norm(const ReduceDesc& d, const Layout& L, bool rev = false) {
  using Op = NormOp<T, K>;
  const typename Op::Bits sign = rev ? typename Op::Bits{1} << (8 * sizeof(typename Op::Bits) - 1) : 0;
  run_reduction(Op{d.outputs[0].dtype, static_cast<typename Op::Acc>(d.p), sign}, d, L);
}

struct Welford {
  double mean, m2, n;
};

template <typename T>
struct VarOp {
  using In = T;
  using Acc = Welford;
  static constexpr bool kPairwise = true;
  static constexpr int kLanes = 8;
  DType out_t[2];
  double correction;
  bool take_sqrt;

  Acc identity() const { return {0, 0, 0}; }
  Acc load(T x, int64_t) const { return {static_cast<double>(real_value(x)), 0, 1}; }
  Acc combine(Acc a, Acc b) const {
    const double n = a.n + b.n;
    const double r = n > 0 ? b.n / n : 0;
    const double delta = b.mean - a.mean;
    return {a.mean + delta * r, a.m2 + b.m2 + delta * delta * a.n * r, n};
  }
  void store(char* const* out, Acc a, int64_t) const {
    const double divisor = a.n > correction ? a.n - correction : 0;
    double v = a.m2 / divisor;
    if (take_sqrt) v = std::sqrt(v);
    write_value(out[0], out_t[0], v);
    if (out[1] != nullptr) {
      const double mean = a.n > 0 ? a.mean : std::numeric_limits<double>::quiet_NaN();
      write_value(out[1], out_t[1], mean);
    }
  }
};

}  // namespace

void reduce_norm_family(const ReduceDesc& d, const Layout& L) {
  visit_dtype(d.input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_float_like_v<T> && !is_complex_v<T>) {
      throw std::invalid_argument("torch_tpu kernels: norm of a non-floating tensor");
    } else {
      const double p = d.p;
      if (p == 2) {
        run_norm<T, NormKind::kTwo>(d, L);
      } else if (p == 1) {
        run_norm<T, NormKind::kOne>(d, L);
      } else if (p == 0) {
        run_norm<T, NormKind::kZero>(d, L);
      } else if (std::isinf(p)) {
        run_norm<T, NormKind::kMax>(d, L, /*rev=*/p < 0);
      } else {
        run_norm<T, NormKind::kP>(d, L);
      }
    }
  });
}

void reduce_var_family(const ReduceDesc& d, const Layout& L) {
  visit_dtype(d.input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!is_float_like_v<T>) {
      throw std::invalid_argument("torch_tpu kernels: var/std of a non-floating tensor");
    } else {
      VarOp<T> op{{d.outputs[0].dtype, d.outputs.size() > 1 ? d.outputs[1].dtype : d.outputs[0].dtype},
                  d.correction,
                  d.take_sqrt};
      run_reduction(op, d, L);
    }
  });
}

}  // namespace torch_tpu::kernels::red
