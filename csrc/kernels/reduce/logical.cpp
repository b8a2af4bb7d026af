// all/any (reduce.h): nonzero tests (NaN is nonzero) combined with and/or
// into a bool (or uint8) output; xor_sum (hash_tensor) combines 64-bit
// patterns with xor. Its own file: minmax.cpp is the heaviest reduction
// unit, and two halves build in parallel.
#include <bit>
#include <type_traits>

#include "kernels/reduce/engine.h"
#include "kernels/reduce/ops.h"

namespace torch_tpu::kernels::red {

namespace {

template <typename T, bool kAll>
struct LogicalOp {
  using In = T;
  using Acc = uint8_t;
  static constexpr bool kPairwise = false;
  static constexpr int kLanes = 64;
  DType out_t;

  Acc identity() const { return kAll ? 1 : 0; }
  // 0 or 1: a bool input may hold any nonzero byte for true (a uint8 view),
  // and and-ing two such bytes (2 & 4) would give false
  Acc load(T x, int64_t) const { return convert<Bool>(x).v != 0; }
  Acc combine(Acc a, Acc b) const { return kAll ? (a & b) : (a | b); }
  void store(char* const* out, Acc a, int64_t) const { write_value(out[0], out_t, a); }
};

// CPU's XorSumOps: a floating element contributes the bits of its value as a
// double (float16/bfloat16/float32 widened exactly, NaN included), an integer
// its value sign-extended to 64 bits, a bool 0 or 1.
template <typename T>
struct XorSumOp {
  using In = T;
  using Acc = uint64_t;
  static constexpr bool kPairwise = false;
  static constexpr int kLanes = 8;
  DType out_t;

  Acc identity() const { return 0; }
  Acc load(T x, int64_t) const {
    if constexpr (std::is_same_v<T, Bool>) {
      return real_value(x);
    } else if constexpr (is_float_like_v<T>) {
      return std::bit_cast<uint64_t>(static_cast<double>(real_value(x)));
    } else {
      return static_cast<uint64_t>(x);
    }
  }
  Acc combine(Acc a, Acc b) const { return a ^ b; }
  void store(char* const* out, Acc a, int64_t) const { write_value(out[0], out_t, a); }
};

}  // namespace

void reduce_logical_family(const ReduceDesc& d, const Layout& L) {
  visit_dtype(d.input.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (d.op == ReduceOp::kXorSum) {
      if constexpr (!is_complex_v<T>) run_reduction(XorSumOp<T>{d.outputs[0].dtype}, d, L);
    } else if (d.op == ReduceOp::kAll) {
      run_reduction(LogicalOp<T, true>{d.outputs[0].dtype}, d, L);
    } else {
      run_reduction(LogicalOp<T, false>{d.outputs[0].dtype}, d, L);
    }
  });
}

}  // namespace torch_tpu::kernels::red
