// max/min (amax, amin, max/min with indices) and argmax/argmin (reduce.h).
// Compared in the element's real value type (float for float16/bfloat16,
// exact); NaN propagates; indices are the first occurrence, a NaN being the
// extreme (as CPU's argmax/argmin and max.dim).
#include "kernels/reduce/engine.h"
#include "kernels/reduce/ops.h"

namespace torch_tpu::kernels::red {

namespace {

template <typename V>
inline bool is_nan(V v) {
  if constexpr (std::is_floating_point_v<V>) {
    return v != v;
  } else {
    return false;
  }
}

template <typename V, bool kMax>
constexpr V worst() {
  if constexpr (std::is_floating_point_v<V>) {
    return kMax ? -std::numeric_limits<V>::infinity() : std::numeric_limits<V>::infinity();
  } else {
    return kMax ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
  }
}

template <typename T, bool kMax>
struct ValueOp {
  using In = T;
  using Acc = RealOf<T>;
  static constexpr bool kPairwise = false;
  static constexpr int kLanes = lanes_for<Acc>();
  DType out_t;

  Acc identity() const { return worst<Acc, kMax>(); }
  Acc load(T x, int64_t) const { return real_value(x); }
  // A NaN in `a` survives the comparison (false); one in `b` is taken.
  Acc combine(Acc a, Acc b) const {
    const Acc better = (kMax ? b > a : b < a) ? b : a;
    if constexpr (std::is_floating_point_v<Acc>) {
      return b != b ? b : better;
    } else {
      return better;
    }
  }
  void store(char* const* out, Acc a, int64_t) const { write_value(out[0], out_t, a); }
};

template <typename V>
struct ArgAcc {
  V v;
  int64_t i;  // -1: the identity
};

// values: output 0 gets the value and output 1 the index (max.dim);
// otherwise output 0 gets the index (argmax). A run-time flag, read once per
// output element: a template parameter would compile every dtype's
// reduction twice.
template <typename T, bool kMax>
struct IndexOp {
  using In = T;
  using V = RealOf<T>;
  using Acc = ArgAcc<V>;
  static constexpr bool kPairwise = false;
  static constexpr int kLanes = 16;
  static constexpr bool kArgLanes = true;
  DType out_t;
  bool values;

  V value(T x) const { return real_value(x); }
  // x replaces the lane's best: strictly better, or a first NaN.
  bool take(V x, V best) const {
    if constexpr (std::is_floating_point_v<V>) {
      return (kMax ? x > best : x < best) || (x != x && best == best);
    } else {
      return kMax ? x > best : x < best;
    }
  }

  Acc identity() const { return {worst<V, kMax>(), -1}; }
  Acc load(T x, int64_t i) const { return {real_value(x), i}; }
  Acc combine(Acc a, Acc b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i <= b.i ? a : b;
      return an ? a : b;
    }
    if (kMax ? b.v > a.v : b.v < a.v) return b;
    if (b.v == a.v && b.i < a.i) return b;
    return a;
  }
  void store(char* const* out, Acc a, int64_t) const {
    const int64_t idx = a.i < 0 ? 0 : a.i;
    if (values) {
      write_value(out[0], out_t, a.v);
      std::memcpy(out[1], &idx, sizeof(idx));
    } else {
      write_value(out[0], out_t, idx);
    }
  }
};

template <bool kMax, typename T>
void run_minmax(const ReduceDesc& d, const Layout& L, bool arg) {
  const DType out_t = d.outputs[0].dtype;
  if (arg || d.outputs.size() == 2) {
    run_reduction(IndexOp<T, kMax>{out_t, /*values=*/!arg}, d, L);
  } else {
    run_reduction(ValueOp<T, kMax>{out_t}, d, L);
  }
}

}  // namespace

void reduce_minmax_family(const ReduceDesc& d, const Layout& L) {
  visit_dtype(d.input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (is_complex_v<T>) {
      throw std::invalid_argument("torch_tpu kernels: max/min/argmax/argmin of a complex tensor");
    } else {
      const bool arg = d.op == ReduceOp::kArgMax || d.op == ReduceOp::kArgMin;
      if (d.op == ReduceOp::kMax || d.op == ReduceOp::kArgMax) {
        run_minmax<true, T>(d, L, arg);
      } else {
        run_minmax<false, T>(d, L, arg);
      }
    }
  });
}

}  // namespace torch_tpu::kernels::red
