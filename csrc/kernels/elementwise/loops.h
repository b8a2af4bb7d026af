// The elementwise loop machinery, templated on the op. Private to the kernel
// library; include after kernels/common/fp_contract.h.
//
// An op is a struct (see kernels/elementwise/ops.h for the contract):
//   struct MyOp : OpTraits {
//     static constexpr int kInputs = 2;                 // 1..3
//     static constexpr int kArgs = 0;                   // scalar arguments
//     template <typename C> static constexpr bool supports = ...;
//     template <typename C> struct Fn {                 // C: compute storage type
//       using M = opmath_t<C>;                          // buffer type of the inputs
//       explicit Fn(const ScalarArgs& args);
//       M operator()(M a, M b) const;                   // kInputs arguments
//     };
//     // optional: used instead of Fn for float16/bfloat16 when input 1 is
//     // one value everywhere (CPU's is_scalar(2) branches)
//     template <typename C> struct FnScalarOther { ... };
//   };
// Fn may return bool instead of M (comparisons, logical ops, predicates such
// as isneginf): the result is then a Bool in compute terms and is converted
// from bool to the output's dtype (result_storage_t below).
//
// How a row (a piece of the innermost dimension) runs:
//   direct    every operand is already in the compute dtype, which is its
//             own buffer type (not float16/bfloat16/complex/bool), and is
//             contiguous or a broadcast scalar: Fn runs on tensor memory, in
//             a loop the compiler vectorizes (apply_loop); float16/bfloat16
//             ops in float do the same 32 elements at a time, widened and
//             rounded in registers (apply_reduced_loop);
//   buffered  otherwise, kBlock elements at a time: each input is converted
//             into a Block (kernels/elementwise/io.h), Fn runs over the blocks (the
//             same apply_loop), the result block is rounded and converted
//             into the output.
// Broadcast operands (stride 0 in the row, or over the whole loop) are read
// once and spread into a block (apply_row): each op and compute type has one
// loop, whichever inputs are single values.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/elementwise/types.h"
#include "runtime/runtime.h"
#include "runtime/small_vector.h"

namespace torch_tpu::kernels::ew {

constexpr int kMaxOperands = 8;
// Loops under this many elements run inline on the calling worker; bigger
// ones are split over the device's cores in chunks of at least this size.
constexpr int64_t kGrain = 32768;

// A validated, coalesced descriptor (built by make_plan in elementwise.cpp).
// Inline storage only: a plan is built per launch on the device's worker,
// and its vectors cost ~15 mallocs per small op there.
struct Plan {
  SmallVector<int64_t, 6> shape;  // fastest first, >= 1 dim, no size-1 dims unless numel == 1
  int ndim = 1;
  int noperands = 0;
  int64_t numel = 0;
  std::array<char*, kMaxOperands> data{};  // per operand: device memory, or its by-value bytes
  std::array<DType, kMaxOperands> dtype{};  // per operand
  SmallVector<int64_t, 3 * 6> strides;      // noperands x ndim, bytes (0 for by-value operands)
  std::array<bool, kMaxOperands> whole_scalar{};  // per operand: the same element everywhere
  DType compute = DType::kFloat32;

  int64_t stride(int k, int d) const { return strides[static_cast<size_t>(k) * ndim + d]; }
};

// Calls row(ptrs, n) for the rows covering flat indices [begin, end) (the
// fastest dimension varies fastest): ptrs[k] is operand k's first element of
// the row piece, n its length.
template <typename RowFn>
void for_each_row(const Plan& p, int64_t begin, int64_t end, RowFn&& row) {
  const int nd = p.ndim, no = p.noperands;
  const int64_t inner = p.shape[0];
  int64_t outer = begin / inner;
  int64_t col = begin % inner;
  SmallVector<int64_t, 6> idx(nd, 0);
  std::array<char*, kMaxOperands> base{};
  for (int k = 0; k < no; ++k) base[k] = p.data[k];
  for (int d = 1; d < nd; ++d) {
    idx[d] = outer % p.shape[d];
    outer /= p.shape[d];
    for (int k = 0; k < no; ++k) base[k] += idx[d] * p.stride(k, d);
  }
  std::array<char*, kMaxOperands> ptrs{};
  for (int64_t pos = begin; pos < end;) {
    const int64_t n = std::min(inner - col, end - pos);
    for (int k = 0; k < no; ++k) ptrs[k] = base[k] + col * p.stride(k, 0);
    row(ptrs, n);
    pos += n;
    col = 0;
    for (int d = 1; d < nd; ++d) {
      for (int k = 0; k < no; ++k) base[k] += p.stride(k, d);
      if (++idx[d] < p.shape[d]) break;
      for (int k = 0; k < no; ++k) base[k] -= p.stride(k, d) * p.shape[d];
      idx[d] = 0;
    }
  }
}

// ---- the inner loops ------------------------------------------------------------

// out[i] = f(in0[i], ...) for i < n; S... says which inputs are a single
// value. ivdep: outputs alias inputs exactly or not at all.
template <bool... S, typename Fn, typename M, typename R>
__attribute__((always_inline)) inline void apply_body(const Fn& f, OutPtrs<R> out, int64_t n,
                                                      const std::array<Ptrs<M>, sizeof...(S)>& in) {
  constexpr bool s[] = {S...};
  const Out<R> o(out);
  if constexpr (sizeof...(S) == 1) {
    const In<M, s[0]> a(in[0]);
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) o.set(i, f(a[i]));
  } else if constexpr (sizeof...(S) == 2) {
    const In<M, s[0]> a(in[0]);
    const In<M, s[1]> b(in[1]);
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) o.set(i, f(a[i], b[i]));
  } else {
    static_assert(sizeof...(S) == 3, "apply_body: 1 to 3 inputs");
    const In<M, s[0]> a(in[0]);
    const In<M, s[1]> b(in[1]);
    const In<M, s[2]> c(in[2]);
#pragma GCC ivdep
    for (int64_t i = 0; i < n; ++i) o.set(i, f(a[i], b[i], c[i]));
  }
}

// apply_body out of line: one symbol per op/type/variant, so the assembly
// shows whether it vectorized.
template <bool... S, typename Fn, typename M, typename R>
__attribute__((noinline)) void apply_loop(const Fn& fn, OutPtrs<R> out, int64_t n,
                                          const std::array<Ptrs<M>, sizeof...(S)>& in) {
  const Fn f = fn;  // a local copy: its scalars stay in registers (no aliasing with out)
  apply_body<S...>(f, out, n, in);
}

// apply_loop with every input on memory (no single-value input).
template <int N, typename Fn, typename M, typename R>
inline void apply_tensors(const Fn& fn, OutPtrs<R> out, int64_t n, const std::array<Ptrs<M>, N>& in) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    apply_loop<((void)I, false)...>(fn, out, n, in);
  }(std::make_index_sequence<N>{});
}

// float16/bfloat16 <-> float, contiguous (F16C for float16 where available).
// With AVX-512, float16 converts 16 at a time: the op's loop reads the floats
// back as 512-bit vectors, which two 256-bit stores would not forward to.
template <typename C>
inline void reduced_to_float(float* d, const C* s, int64_t n) {
  if constexpr (std::is_same_v<C, Half>) {
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16) {
      _mm512_storeu_ps(d + i, _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i))));
    }
#endif
    half_to_float_n(d + i, s + i, n - i);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i] = bfloat16_bits_to_float(s[i].bits);
  }
}
template <typename C>
inline void float_to_reduced(C* d, const float* s, int64_t n) {
  if constexpr (std::is_same_v<C, Half>) {
    int64_t i = 0;
#if defined(__AVX512F__)
    for (; i + 16 <= n; i += 16) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + i),
                          _mm512_cvtps_ph(_mm512_loadu_ps(s + i), _MM_FROUND_TO_NEAREST_INT));
    }
#endif
    float_to_half_n(d + i, s + i, n - i);
  } else {
    for (int64_t i = 0; i < n; ++i) d[i].bits = float_to_bfloat16_bits(s[i]);
  }
}

// One float rounded to float16/bfloat16: the bits float_to_reduced gives.
template <typename C>
inline C round_to_reduced(float x) {
  C c;
  if constexpr (std::is_same_v<C, Half>) {
    c.bits = float_to_half_bits(x);
  } else {
    c.bits = float_to_bfloat16_bits(x);
  }
  return c;
}

// The direct loop of a float16/bfloat16 op computing in float: 32 elements
// at a time are widened into registers (small arrays the compiler keeps in
// vector registers or L1), computed, and rounded back, so every element
// crosses memory once. Input k is one value (value[k]) where bit k of
// `scalar` is set: its array is filled once and in[k] is unused. R is float
// (rounded into `out`, of type C) or bool (written as bytes into `out`, a
// bool tensor). One instantiation per op and type: the scalar inputs are a
// run-time choice (see apply_row).
template <typename R, int N, typename Fn, typename C>
__attribute__((noinline)) void apply_reduced_loop(const Fn& fn, void* out, int64_t n, unsigned scalar,
                                                  const std::array<const C*, N>& in,
                                                  const std::array<float, N>& value) {
  constexpr int64_t K = 32;
  const Fn f = fn;
  float x[N][K];
  float r[K];
  std::array<Ptrs<float>, N> p;
  for (int k = 0; k < N; ++k) {
    p[k] = {x[k]};
    if (scalar & (1u << k)) std::fill_n(x[k], K, value[k]);
  }
  const auto chunk = [&](int64_t i, int64_t m) {
    for (int k = 0; k < N; ++k) {
      if (!(scalar & (1u << k))) reduced_to_float(x[k], in[k] + i, m);
    }
    if constexpr (std::is_same_v<R, bool>) {
      apply_tensors<N>(f, OutPtrs<bool>{static_cast<uint8_t*>(out) + i}, m, p);
    } else {
      apply_tensors<N>(f, OutPtrs<float>{r}, m, p);
      float_to_reduced(static_cast<C*>(out) + i, r, m);
    }
  };
  int64_t i = 0;
  for (; i + K <= n; i += K) chunk(i, K);
  if (i < n) chunk(i, n - i);
}

// Every input one value: so is the result, computed once and written n
// times. f is pure and compiled without contraction (fp_contract.h), so this
// gives the loop's bits; and no loop over f runs for a case that only
// broadcasts (a 0-dim or fully expanded input).
template <typename R>
__attribute__((noinline)) void fill_result(OutPtrs<R> out, int64_t n, R v) {
  const Out<R> o(out);
  for (int64_t i = 0; i < n; ++i) o.set(i, v);
}

// n copies of v into a block (n <= kBlock).
template <typename M>
void spread(Block<M>& b, const M& v, int64_t n) {
  if constexpr (is_complex_v<M>) {
    std::fill_n(b.re, n, v.re);
    std::fill_n(b.im, n, v.im);
  } else {
    std::fill_n(b.v, n, v);
  }
}

// One row of n elements, with input k one value (value[k]) where bit k of
// `scalar` is set and at in[k] otherwise (`step` elements apart: 1 on
// tensor memory, or a block). The scalar inputs are spread into blocks and
// the row runs kBlock elements at a time through the one all-tensor loop:
// one loop per op and type instead of one per scalar combination (2^N - 1),
// at the price of reading the repeated value from L1.
template <int N, typename Fn, typename M, typename R>
void apply_row(const Fn& fn, OutPtrs<R> out, int64_t n, unsigned scalar, std::array<Ptrs<M>, N> in,
               const std::array<M, N>& value, std::array<Block<M>, N>& spread_blocks) {
  if (scalar == 0) {
    apply_tensors<N>(fn, out, n, in);
    return;
  }
  if (scalar == (1u << N) - 1) {
    fill_result<R>(out, n, std::apply(fn, value));
    return;
  }
  const int64_t m = std::min(n, kBlock);
  std::array<Ptrs<M>, N> part = in;
  for (int k = 0; k < N; ++k) {
    if (scalar & (1u << k)) {
      spread(spread_blocks[k], value[k], m);
      part[k] = ptrs_of(spread_blocks[k]);
    }
  }
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t nb = std::min(kBlock, n - i0);
    for (int k = 0; k < N; ++k) {
      if (!(scalar & (1u << k))) part[k] = advance(in[k], i0);
    }
    apply_tensors<N>(fn, advance(out, i0), nb, part);
  }
}

// ---- one op, one compute type -------------------------------------------------

// Default traits of an op (kernels/elementwise/ops.h documents them).
struct OpTraits {
  static constexpr int kArgs = 0;
  // CPU's mul/div read a broadcast second input of a float16/bfloat16 op
  // directly as float (TensorIterator's original_scalar_value), instead of
  // rounding it to the compute dtype first.
  static constexpr bool kScalarOtherAsOpmath = false;
  // A two-input op may be another op with its inputs swapped (gt is lt(b, a)):
  // it derives from that op, so its Fn is the same type and the loops over
  // it, the bulk of the code, are instantiated once for both.
  static constexpr bool kSwapInputs = false;
  // Whether CPU computes the op in complex32: then Fn<Complex<Half>> runs,
  // in complex64 (opmath_t), its result rounded to complex32. Not part of
  // supports<C>: complex32 is no case of visit_dtype, and an op is
  // instantiated for it only where it says so.
  static constexpr bool kComplex32 = false;
};

template <typename Fn, typename M, int N, size_t... I>
auto result_of(std::index_sequence<I...>) -> decltype(std::declval<const Fn&>()(((void)I, std::declval<M>())...));

// The compute storage type of an op's result R (buffer type M, compute type
// C): C when the op returns its buffer type, Bool when it returns bool.
template <typename C, typename M, typename R>
using result_storage_t = std::conditional_t<std::is_same_v<R, M>, C, Bool>;

template <typename Op, typename C, typename Fn = typename Op::template Fn<C>>
void run_typed(const Plan& p, const ScalarArgs& args) {
  constexpr int N = Op::kInputs;
  static_assert(!Op::kSwapInputs || N == 2, "kSwapInputs: two inputs");
  // The plan's operand of input k (operand 0 is the output).
  constexpr auto operand = [](int k) { return Op::kSwapInputs ? 2 - k : 1 + k; };
  using M = typename Fn::M;
  using R = decltype(result_of<Fn, M, N>(std::make_index_sequence<N>{}));
  static_assert(std::is_same_v<R, M> || std::is_same_v<R, bool>, "an op returns its buffer type or bool");
  using RC = result_storage_t<C, M, R>;  // compute storage type of the result
  constexpr bool kDirectType = std::is_same_v<M, C> && !is_complex_v<C>;
  constexpr bool kReducedDirect =
      is_reduced_v<C> && std::is_same_v<M, float> && (std::is_same_v<R, M> || std::is_same_v<R, bool>);

  const Fn fn(args);
  const DType cdt = dtype_of_v<C>;
  const bool widen = widened_v<C, M>;

  // Per input: its loader, and its value if it is the same everywhere.
  std::array<LoadFn, N> load{};
  std::array<M, N> whole_value{};
  unsigned whole_mask = 0;
  for (int k = 0; k < N; ++k) {
    const int op = operand(k);
    if (p.whole_scalar[op]) {
      whole_mask |= 1u << k;
      if constexpr (Op::kScalarOtherAsOpmath && widened_v<C, M>) {
        if (k == 1) {
          whole_value[k] = load_one<M, M>(p.dtype[op], p.data[op]);
          continue;
        }
      }
      whole_value[k] = load_one<C, M>(p.dtype[op], p.data[op]);
    } else {
      load[k] = block_io(cdt, p.dtype[op], widen).load;
    }
  }
  const StoreFn store = block_io(dtype_of_v<RC>, p.dtype[0], widened_v<RC, R>).store;
  const DType out_dtype = p.dtype[0];
  const int64_t out_stride = p.stride(0, 0);

  runtime::parallel_for(0, p.numel, kGrain, [&](int64_t begin, int64_t end) {
    std::array<Block<M>, N> blocks;
    std::array<Block<M>, N> spread_blocks;
    Block<R> out_block;
    for_each_row(p, begin, end, [&](const std::array<char*, kMaxOperands>& ptr, int64_t n) {
      std::array<M, N> row_value = whole_value;
      std::array<Ptrs<M>, N> in{};
      unsigned mask = whole_mask;
      bool direct = (kDirectType || kReducedDirect) && out_dtype == dtype_of_v<RC> &&
                    out_stride == static_cast<int64_t>(sizeof(RC));
      for (int k = 0; k < N; ++k) {
        if (mask & (1u << k)) continue;
        const int op = operand(k);
        const int64_t st = p.stride(op, 0);
        if (st == 0) {
          row_value[k] = load_one<C, M>(p.dtype[op], ptr[op]);
          mask |= 1u << k;
        } else {
          direct = direct && p.dtype[op] == cdt && st == static_cast<int64_t>(sizeof(C));
        }
      }
      if constexpr (kReducedDirect) {
        if (direct) {
          if (mask == (1u << N) - 1) {  // one value: see fill_result
            const R r = std::apply(fn, row_value);
            if constexpr (std::is_same_v<R, bool>) {
              fill_result<bool>(OutPtrs<bool>{reinterpret_cast<uint8_t*>(ptr[0])}, n, r);
            } else {
              fill_result<C>(OutPtrs<C>{reinterpret_cast<C*>(ptr[0])}, n, round_to_reduced<C>(r));
            }
            return;
          }
          std::array<const C*, N> src{};
          for (int k = 0; k < N; ++k) src[k] = reinterpret_cast<const C*>(ptr[operand(k)]);
          apply_reduced_loop<R, N>(fn, ptr[0], n, mask, src, row_value);
          return;
        }
      }
      if constexpr (kDirectType) {
        if (direct) {
          for (int k = 0; k < N; ++k) {
            if (!(mask & (1u << k))) in[k] = Ptrs<M>{reinterpret_cast<const M*>(ptr[operand(k)])};
          }
          apply_row<N>(fn, out_ptrs_at<R>(ptr[0]), n, mask, in, row_value, spread_blocks);
          return;
        }
      }
      for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
        const int64_t nb = std::min(kBlock, n - i0);
        for (int k = 0; k < N; ++k) {
          if (mask & (1u << k)) continue;
          const int64_t st = p.stride(operand(k), 0);
          load[k](ptr[operand(k)] + i0 * st, st, nb, &blocks[k]);
          in[k] = ptrs_of(blocks[k]);
        }
        apply_row<N>(fn, out_ptrs_of(out_block), nb, mask, in, row_value, spread_blocks);
        store(&out_block, ptr[0] + i0 * out_stride, out_stride, nb);
      }
    });
  });
}

// Runs Op with the compute type of the plan; throws if Op does not support it.
template <typename Op>
void run_op(const Plan& p, const ScalarArgs& args) {
  if (p.compute == DType::kComplex32) {
    if constexpr (Op::kComplex32) {
      run_typed<Op, Complex<Half>>(p, args);
      return;
    }
    throw std::invalid_argument(std::string("elementwise ") + Op::kName + ": compute dtype complex32 is not supported");
  }
  visit_dtype(p.compute, [&](auto tag) {
    using C = typename decltype(tag)::type;
    if constexpr (Op::template supports<C>) {
      // An op may compute float16/bfloat16 differently when its second input
      // is one value (CPU's iter.is_scalar(2) branches): Op::FnScalarOther.
      if constexpr (is_reduced_v<C> && requires { typename Op::template FnScalarOther<C>; }) {
        static_assert(!Op::kSwapInputs, "FnScalarOther reads plan operand 2 as the second input");
        if (p.whole_scalar[2]) {
          run_typed<Op, C, typename Op::template FnScalarOther<C>>(p, args);
          return;
        }
      }
      run_typed<Op, C>(p, args);
    } else {
      throw std::invalid_argument(std::string("elementwise ") + Op::kName + ": compute dtype " +
                                  dtype_name(p.compute) + " is not supported");
    }
  });
}

template <typename Op>
bool supports_op(DType t) {
  if (t == DType::kComplex32) return Op::kComplex32;
  return visit_dtype(t, [](auto tag) { return Op::template supports<typename decltype(tag)::type>; });
}

}  // namespace torch_tpu::kernels::ew
