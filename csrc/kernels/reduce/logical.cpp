// all/any (reduce.h): nonzero tests (NaN is nonzero) combined with and/or
// into a bool (or uint8) output; xor_sum (hash_tensor) combines 64-bit
// patterns with xor. Its own file: minmax.cpp is the heaviest reduction
// unit, and two halves build in parallel.
//
// Build time (issue 48): and/or/xor are exact and order-free, so the loops
// are instantiated per element size, not per dtype. all/any test an
// element's bits under a mask (every bit but a float's sign bits: -0.0 is
// zero, NaN is not), the same answer as convert<Bool>; float32, the hot
// case, keeps its float compare (one instruction per vector). xor_sum reads
// bool and the integers as ops.h IntBits (their contribution is the widened
// value), float64 as its 64 bits, and has loops of its own only for
// float16, bfloat16 and float32.
#include <bit>
#include <type_traits>

#include "kernels/reduce/engine.h"
#include "kernels/reduce/ops.h"

namespace torch_tpu::kernels::red {

namespace {

// complex128's 16 bytes; loaded with memcpy-free member reads.
struct Bits128 {
  uint64_t lo, hi;
};

template <typename U, bool kAll>
struct LogicalOp {
  using In = U;
  using Acc = uint8_t;
  static constexpr bool kPairwise = false;
  static constexpr int kLanes = 64;
  DType out_t;
  uint64_t mask;  // per 64-bit half for Bits128

  Acc identity() const { return kAll ? 1 : 0; }
  Acc load(U x, int64_t) const {
    if constexpr (std::is_same_v<U, Bits128>) {
      return ((x.lo & mask) | (x.hi & mask)) != 0;
    } else if constexpr (std::is_same_v<U, float>) {
      return x != 0;  // NaN is nonzero
    } else {
      return (x & static_cast<U>(mask)) != 0;
    }
  }
  Acc combine(Acc a, Acc b) const { return kAll ? (a & b) : (a | b); }
  void store(char* const* out, Acc a, int64_t) const { write_value(out[0], out_t, a); }
};

// The bits that make an element of dtype t nonzero, repeated over 64 bits
// for the complex types (each part is a float).
uint64_t nonzero_mask(DType t) {
  switch (t) {
    case DType::kFloat16:
    case DType::kBFloat16: return 0x7FFFu;
    case DType::kFloat32: return 0x7FFFFFFFu;
    case DType::kComplex64: return 0x7FFFFFFF7FFFFFFFull;
    case DType::kFloat64:
    case DType::kComplex128: return 0x7FFFFFFFFFFFFFFFull;
    default: return ~uint64_t{0};  // integers, bool (any nonzero byte)
  }
}

template <bool kAll>
void run_logical(const ReduceDesc& d, const Layout& L) {
  const DType t = d.input.dtype;
  const DType out_t = d.outputs[0].dtype;
  const uint64_t mask = nonzero_mask(t);
  if (t == DType::kFloat32) return run_reduction(LogicalOp<float, kAll>{out_t, mask}, d, L);
  switch (dtype_size(t)) {
    case 1: return run_reduction(LogicalOp<uint8_t, kAll>{out_t, mask}, d, L);
    case 2: return run_reduction(LogicalOp<uint16_t, kAll>{out_t, mask}, d, L);
    case 4: return run_reduction(LogicalOp<uint32_t, kAll>{out_t, mask}, d, L);
    case 8: return run_reduction(LogicalOp<uint64_t, kAll>{out_t, mask}, d, L);
    case 16: return run_reduction(LogicalOp<Bits128, kAll>{out_t, mask}, d, L);
  }
  throw std::invalid_argument("torch_tpu kernels: all/any of an unsupported dtype");
}

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

  IntWiden widen;  // IntBits only

  Acc identity() const { return 0; }
  Acc load(T x, int64_t) const {
    if constexpr (is_float_like_v<T>) {
      return std::bit_cast<uint64_t>(static_cast<double>(real_value(x)));
    } else {
      return widen(x.bits);
    }
  }
  Acc combine(Acc a, Acc b) const { return a ^ b; }
  void store(char* const* out, Acc a, int64_t) const { write_value(out[0], out_t, a); }
};

void run_xor_sum(const ReduceDesc& d, const Layout& L) {
  const DType out_t = d.outputs[0].dtype;
  const bool integral = visit_int_bits(d.input.dtype, [&](auto tag, IntWiden w) {
    run_reduction(XorSumOp<typename decltype(tag)::type>{out_t, w}, d, L);
  });
  if (integral) return;
  switch (d.input.dtype) {
    case DType::kFloat16: return run_reduction(XorSumOp<Half>{out_t, {}}, d, L);
    case DType::kBFloat16: return run_reduction(XorSumOp<BFloat16>{out_t, {}}, d, L);
    case DType::kFloat32: return run_reduction(XorSumOp<float>{out_t, {}}, d, L);
    case DType::kFloat64: return run_reduction(XorSumOp<IntBits<uint64_t>>{out_t, {}}, d, L);  // its own bits
    default: break;
  }
  throw std::invalid_argument("torch_tpu kernels: xor_sum of an unsupported dtype");
}

}  // namespace

void reduce_logical_family(const ReduceDesc& d, const Layout& L) {
  if (d.op == ReduceOp::kXorSum) {
    run_xor_sum(d, L);
  } else if (d.op == ReduceOp::kAll) {
    run_logical<true>(d, L);
  } else {
    run_logical<false>(d, L);
  }
}

}  // namespace torch_tpu::kernels::red
