// max/min (amax, amin, max/min with indices) and argmax/argmin (reduce.h).
// Compared in the element's real value type (float for float16/bfloat16,
// exact); NaN propagates; indices are the first occurrence, a NaN being the
// extreme (as CPU's argmax/argmin and max.dim).
//
// Build time (issue 48): one loop per dtype for both directions, min being
// max of the values with their order reversed (the sign bit flipped for
// floats, the bits inverted for integer keys; undone on store), which takes
// the same elements, ties and NaNs included. The four floating dtypes get
// their own loops; bool and the integers are compared as int64 keys in one
// loop per element size (ops.h IntBits).
#include <bit>

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

// The identity of max (min is max of reversed values).
template <typename V>
constexpr V worst() {
  if constexpr (std::is_floating_point_v<V>) {
    return -std::numeric_limits<V>::infinity();
  } else {
    return std::numeric_limits<V>::lowest();
  }
}

// An element's comparable value, reversed for min (rev). Floating dtypes:
// real_value with the sign bit flipped (exact, NaN kept). IntBits: the
// widened integer as an int64 key, uint64's top bit flipped so that the
// signed order is the unsigned one, all bits inverted (~k = -k - 1) for min.
// kFlip false: max only, without the flip (float32 max, the hot case, keeps
// its former loop).
template <typename T, bool kFlip = true>
struct Reader {
  using V = RealOf<T>;
  using B = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
  B sign;  // the sign bit for min, else 0

  static Reader make(bool rev) { return {rev ? B{1} << (8 * sizeof(B) - 1) : B{0}}; }
  V flip(V v) const {
    if constexpr (!kFlip) return v;
    return std::bit_cast<V>(static_cast<B>(std::bit_cast<B>(v) ^ sign));
  }
  V operator()(T x) const { return flip(real_value(x)); }
  void write(char* p, DType t, V v) const { write_value(p, t, flip(v)); }
};
template <typename U>
struct Reader<IntBits<U>, true> {
  using V = int64_t;
  IntWiden widen;
  uint64_t mask;  // xor-ed into the widened bits

  static Reader make(bool rev, IntWiden w) {
    return {w, (w.is_u64 ? uint64_t{1} << 63 : 0) ^ (rev ? ~uint64_t{0} : 0)};
  }
  V operator()(IntBits<U> x) const { return static_cast<int64_t>(widen(x.bits) ^ mask); }
  void write(char* p, DType t, V v) const {
    const uint64_t bits = static_cast<uint64_t>(v) ^ mask;
    if (widen.is_u64) {
      write_value(p, t, bits);
    } else {
      write_value(p, t, static_cast<int64_t>(bits));
    }
  }
};

template <typename T, typename R = Reader<T>>
struct ValueOp {
  using In = T;
  using Acc = typename R::V;
  static constexpr bool kPairwise = false;
  static constexpr int kLanes = lanes_for<Acc>();
  DType out_t;
  R rd;

  Acc identity() const { return worst<Acc>(); }
  Acc load(T x, int64_t) const { return rd(x); }
  // A NaN in `a` survives the comparison (false); one in `b` is taken.
  Acc combine(Acc a, Acc b) const {
    const Acc better = b > a ? b : a;
    if constexpr (std::is_floating_point_v<Acc>) {
      return b != b ? b : better;
    } else {
      return better;
    }
  }
  void store(char* const* out, Acc a, int64_t) const { rd.write(out[0], out_t, a); }
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
template <typename T, typename R = Reader<T>>
struct IndexOp {
  using In = T;
  using V = typename R::V;
  using Acc = ArgAcc<V>;
  static constexpr bool kPairwise = false;
  static constexpr int kLanes = 16;
  static constexpr bool kArgLanes = true;
  DType out_t;
  bool values;
  R rd;

  V value(T x) const { return rd(x); }
  // x replaces the lane's best: strictly better, or a first NaN.
  bool take(V x, V best) const {
    if constexpr (std::is_floating_point_v<V>) {
      return x > best || (x != x && best == best);
    } else {
      return x > best;
    }
  }

  Acc identity() const { return {worst<V>(), -1}; }
  Acc load(T x, int64_t i) const { return {rd(x), i}; }
  Acc combine(Acc a, Acc b) const {
    if (a.i < 0) return b;
    if (b.i < 0) return a;
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i <= b.i ? a : b;
      return an ? a : b;
    }
    if (b.v > a.v) return b;
    if (b.v == a.v && b.i < a.i) return b;
    return a;
  }
  void store(char* const* out, Acc a, int64_t) const {
    const int64_t idx = a.i < 0 ? 0 : a.i;
    if (values) {
      rd.write(out[0], out_t, a.v);
      std::memcpy(out[1], &idx, sizeof(idx));
    } else {
      write_value(out[0], out_t, idx);
    }
  }
};

template <typename T, typename R>
void run_minmax(const ReduceDesc& d, const Layout& L, R rd) {
  const DType out_t = d.outputs[0].dtype;
  const bool arg = d.op == ReduceOp::kArgMax || d.op == ReduceOp::kArgMin;
  if (arg || d.outputs.size() == 2) {
    run_reduction(IndexOp<T, R>{out_t, /*values=*/!arg, rd}, d, L);
  } else {
    run_reduction(ValueOp<T, R>{out_t, rd}, d, L);
  }
}

}  // namespace

void reduce_minmax_family(const ReduceDesc& d, const Layout& L) {
  const bool rev = d.op == ReduceOp::kMin || d.op == ReduceOp::kArgMin;
  const bool integral = visit_int_bits(d.input.dtype, [&](auto tag, IntWiden w) {
    using T = typename decltype(tag)::type;
    run_minmax<T>(d, L, Reader<T>::make(rev, w));
  });
  if (integral) return;
  switch (d.input.dtype) {
    case DType::kFloat16: return run_minmax<Half>(d, L, Reader<Half>::make(rev));
    case DType::kBFloat16: return run_minmax<BFloat16>(d, L, Reader<BFloat16>::make(rev));
    case DType::kFloat32:
      if (!rev) return run_minmax<float>(d, L, Reader<float, false>{0});
      return run_minmax<float>(d, L, Reader<float>::make(rev));
    case DType::kFloat64: return run_minmax<double>(d, L, Reader<double>::make(rev));
    default: break;
  }
  throw std::invalid_argument("torch_tpu kernels: max/min/argmax/argmin of a complex tensor");
}

}  // namespace torch_tpu::kernels::red
