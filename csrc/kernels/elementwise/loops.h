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
//             a loop the compiler vectorizes (loop_vectorized); float16/bfloat16
//             ops in float do the same 32 elements at a time, widened and
//             rounded in registers (apply_reduced_loop);
//   buffered  otherwise, kBlock elements at a time: each input is converted
//             into a Block (kernels/elementwise/io.h), Fn runs over the blocks (the
//             same loop), the result block is rounded and converted
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
// vector registers or L1), computed by `loop` (the op's loop over fn), and
// rounded back, so every element crosses memory once. Input k is one value
// (value[k]) where bit k of `scalar` is set: its array is filled once and
// in[k] is unused. R is float (rounded into `out`, of type C) or bool
// (written as bytes into `out`, a bool tensor).
template <typename R, int N, typename C, typename Loop>
__attribute__((always_inline)) inline void apply_reduced_loop(Loop loop, const void* fn, void* out, int64_t n,
                                                              unsigned scalar, const std::array<const C*, N>& in,
                                                              const std::array<float, N>& value) {
  constexpr int64_t K = 32;
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
      loop(fn, OutPtrs<bool>{static_cast<uint8_t*>(out) + i}, m, p);
    } else {
      loop(fn, OutPtrs<float>{r}, m, p);
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

// ---- what a row needs of an op --------------------------------------------------
//
// The row machinery (iterating the plan, loading and converting operands,
// broadcasting single values, storing) does not depend on the op, only on
// its buffer type M, result R and input count N: run_rows below is
// instantiated once per (M, R, N) in a file, whatever the number of ops and
// compute types there. Per op and compute type there are only the loops
// that call Fn (RowKernel): instantiating the machinery per op was ~80% of
// an elementwise file's object code and compile time.

template <typename M, typename R, int N>
struct RowKernel {
  const void* fn;  // the op's Fn
  // out[i] = fn(in0[i], ...) for i < n; every input on memory or a block.
  void (*loop)(const void* fn, OutPtrs<R> out, int64_t n, const std::array<Ptrs<M>, N>& in);
  // fn of single values.
  R (*eval)(const void* fn, const std::array<M, N>& x);
  // float16/bfloat16 computing in float: apply_reduced_loop (else null).
  void (*reduced)(const void* fn, void* out, int64_t n, unsigned scalar, const std::array<const void*, N>& in,
                  const std::array<float, N>& value);
};

// The compute type's facts that run_rows needs (set by run_typed).
template <typename M>
struct RowTypes {
  DType compute;
  int64_t compute_size;    // sizeof(C)
  DType result;            // the result's compute storage dtype (C, or Bool)
  int64_t result_size;     // its size
  bool direct;             // Fn may run on tensor memory (M is C, not complex)
  bool reduced_direct;     // float16/bfloat16 in float: RowKernel::reduced
  bool widen;              // M is C's widened opmath
  bool widen_result;       // the same for the result
  bool swap_inputs;        // OpTraits::kSwapInputs
  M (*load_value)(DType, const void*);        // one element, through C
  M (*load_value_other)(DType, const void*);  // input 1's whole value (kScalarOtherAsOpmath)
};

template <size_t... I, typename Fn, typename M, typename R, size_t N>
__attribute__((always_inline)) inline void apply_tensors_seq(std::index_sequence<I...>, const Fn& f, OutPtrs<R> out,
                                                             int64_t n, const std::array<Ptrs<M>, N>& in) {
  apply_body<((void)I, false)...>(f, out, n, in);
}

// RowKernel::loop of a vectorized compute type: Fn inlined into the loop
// (one symbol per op and type, so the assembly shows whether it vectorized).
template <typename Fn, typename M, typename R, int N>
__attribute__((noinline)) void loop_vectorized(const void* fn, OutPtrs<R> out, int64_t n, const std::array<Ptrs<M>, N>& in) {
  const Fn f = *static_cast<const Fn*>(fn);  // a local copy: its scalars stay in registers
  apply_tensors_seq(std::make_index_sequence<N>{}, f, out, n, in);
}

// Fn of single values, out of line (a cold type's loop calls it per element).
template <typename Fn, typename M, typename R, int N>
__attribute__((noinline)) R eval_fn(const void* fn, const std::array<M, N>& x) {
  return std::apply(*static_cast<const Fn*>(fn), x);
}

// RowKernel::loop of a cold compute type (see kVectorizedCompute): element
// by element, Fn out of line (eval_fn, its one copy). It gives the
// vectorized loop's bits (the same IEEE operations, no contraction:
// fp_contract.h) at a fraction of its compile time.
template <typename Fn, typename M, typename R, int N>
void loop_scalar(const void* fn, OutPtrs<R> out, int64_t n, const std::array<Ptrs<M>, N>& in) {
  const Out<R> o(out);
  std::array<M, N> x;
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < N; ++k) x[k] = In<M, false>(in[k])[i];
    o.set(i, eval_fn<Fn, M, R, N>(fn, x));
  }
}

template <typename Fn, typename R, int N, typename C>
void reduced_fn(const void* fn, void* out, int64_t n, unsigned scalar, const std::array<const void*, N>& in,
                const std::array<float, N>& value) {
  std::array<const C*, N> src;
  for (int k = 0; k < N; ++k) src[k] = static_cast<const C*>(in[k]);
  apply_reduced_loop<R, N>(&loop_vectorized<Fn, float, R, N>, fn, out, n, scalar, src, value);
}

// One row of n elements through k.loop, with input j one value (value[j])
// where bit j of `scalar` is set and at in[j] otherwise (tensor memory or a
// block). The single values are spread into blocks and the row runs kBlock
// elements at a time: one loop per op and type instead of one per scalar
// combination (2^N - 1), at the price of reading the repeated value from L1.
template <typename M, typename R, int N>
void apply_row(const RowKernel<M, R, N>& k, OutPtrs<R> out, int64_t n, unsigned scalar, std::array<Ptrs<M>, N> in,
               const std::array<M, N>& value, std::array<Block<M>, N>& spread_blocks) {
  if (scalar == 0) {
    k.loop(k.fn, out, n, in);
    return;
  }
  if (scalar == (1u << N) - 1) {
    fill_result<R>(out, n, k.eval(k.fn, value));
    return;
  }
  const int64_t m = std::min(n, kBlock);
  std::array<Ptrs<M>, N> part = in;
  for (int j = 0; j < N; ++j) {
    if (scalar & (1u << j)) {
      spread(spread_blocks[j], value[j], m);
      part[j] = ptrs_of(spread_blocks[j]);
    }
  }
  for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
    const int64_t nb = std::min(kBlock, n - i0);
    for (int j = 0; j < N; ++j) {
      if (!(scalar & (1u << j))) part[j] = advance(in[j], i0);
    }
    k.loop(k.fn, advance(out, i0), nb, part);
  }
}

// Runs kernel k over the plan (see the top of this file: direct, buffered).
template <typename M, typename R, int N>
__attribute__((noinline)) void run_rows(const Plan& p, const RowKernel<M, R, N>& k, const RowTypes<M>& t) {
  // The plan's operand of input j (operand 0 is the output).
  const auto operand = [&](int j) { return t.swap_inputs ? 2 - j : 1 + j; };

  // Per input: its loader, and its value if it is the same everywhere.
  std::array<LoadFn, N> load{};
  std::array<M, N> whole_value{};
  unsigned whole_mask = 0;
  for (int j = 0; j < N; ++j) {
    const int op = operand(j);
    if (p.whole_scalar[op]) {
      whole_mask |= 1u << j;
      whole_value[j] = (j == 1 && t.load_value_other ? t.load_value_other : t.load_value)(p.dtype[op], p.data[op]);
    } else {
      load[j] = block_io(t.compute, p.dtype[op], t.widen).load;
    }
  }
  const StoreFn store = block_io(t.result, p.dtype[0], t.widen_result).store;
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
      bool direct = (t.direct || t.reduced_direct) && out_dtype == t.result && out_stride == t.result_size;
      for (int j = 0; j < N; ++j) {
        if (mask & (1u << j)) continue;
        const int op = operand(j);
        const int64_t st = p.stride(op, 0);
        if (st == 0) {
          row_value[j] = t.load_value(p.dtype[op], ptr[op]);
          mask |= 1u << j;
        } else {
          direct = direct && p.dtype[op] == t.compute && st == t.compute_size;
        }
      }
      if constexpr (std::is_same_v<M, float>) {
        if (direct && t.reduced_direct) {
          std::array<const void*, N> src{};
          for (int j = 0; j < N; ++j) src[j] = ptr[operand(j)];
          k.reduced(k.fn, ptr[0], n, mask, src, row_value);
          return;
        }
      }
      if constexpr (!is_complex_v<M> && !std::is_same_v<M, bool>) {  // else never M == C
        if (direct && t.direct) {
          for (int j = 0; j < N; ++j) {
            if (!(mask & (1u << j))) in[j] = Ptrs<M>{reinterpret_cast<const M*>(ptr[operand(j)])};
          }
          apply_row<M, R, N>(k, out_ptrs_at<R>(ptr[0]), n, mask, in, row_value, spread_blocks);
          return;
        }
      }
      for (int64_t i0 = 0; i0 < n; i0 += kBlock) {
        const int64_t nb = std::min(kBlock, n - i0);
        for (int j = 0; j < N; ++j) {
          if (mask & (1u << j)) continue;
          const int64_t st = p.stride(operand(j), 0);
          load[j](ptr[operand(j)] + i0 * st, st, nb, &blocks[j]);
          in[j] = ptrs_of(blocks[j]);
        }
        apply_row<M, R, N>(k, out_ptrs_of(out_block), nb, mask, in, row_value, spread_blocks);
        store(&out_block, ptr[0] + i0 * out_stride, out_stride, nb);
      }
    });
  });
}

// The row machinery of the common (buffer, result, inputs) triples is
// compiled once, in rows.cpp, instead of in every op file that reaches it:
// ~30 files each compiled their own run_rows<float, float, 1>, and the row
// walk was half of an op file's code. It does not depend on the ISA (the
// op's loops come through RowKernel), so the avx512 files use the baseline
// copy, as the linker did with their implicit ones. A triple not listed
// here is instantiated where it is used.
#define TPU_EW_ROWS_OF(X, M) X(M, M, 1) X(M, M, 2) X(M, M, 3) X(M, bool, 1) X(M, bool, 2)
#define TPU_EW_COMMON_ROWS(X)                                                                     \
  TPU_EW_ROWS_OF(X, float) TPU_EW_ROWS_OF(X, double) TPU_EW_ROWS_OF(X, int64_t)                   \
  TPU_EW_ROWS_OF(X, int32_t) TPU_EW_ROWS_OF(X, int16_t) TPU_EW_ROWS_OF(X, int8_t)                 \
  TPU_EW_ROWS_OF(X, uint8_t) TPU_EW_ROWS_OF(X, uint16_t) TPU_EW_ROWS_OF(X, uint32_t)              \
  TPU_EW_ROWS_OF(X, uint64_t) TPU_EW_ROWS_OF(X, ComplexFloat) TPU_EW_ROWS_OF(X, ComplexDouble)    \
  X(bool, bool, 1) X(bool, bool, 2) X(bool, bool, 3)
using ComplexFloat = Complex<float>;
using ComplexDouble = Complex<double>;
#define TPU_EW_EXTERN_ROWS(M, R, N) \
  extern template void run_rows<M, R, N>(const Plan&, const RowKernel<M, R, N>&, const RowTypes<M>&);
TPU_EW_COMMON_ROWS(TPU_EW_EXTERN_ROWS)
#undef TPU_EW_EXTERN_ROWS

// ---- one op, one compute type -------------------------------------------------

// The compute types whose loops are vectorized, inlining Fn: the floating
// and complex ones, and those of indices and masks (int64, bool). The
// integer types models rarely compute in (int8/16/32, uint8/16/32/64) are
// cold: Fn runs out of line, element by element (loop_scalar), with the
// same bits. Complex stays vectorized: GCC's SLP complex-multiply pattern
// would fuse a scalar complex product (see kernels/common/fp_contract.h).
template <typename C>
inline constexpr bool kVectorizedCompute = !std::is_integral_v<C> || std::is_same_v<C, int64_t>;

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
  // Whether the loops of compute type C are vectorized (kVectorizedCompute);
  // an op may widen the set.
  template <typename C>
  static constexpr bool vectorize = kVectorizedCompute<C>;
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
  using M = typename Fn::M;
  using R = decltype(result_of<Fn, M, N>(std::make_index_sequence<N>{}));
  static_assert(std::is_same_v<R, M> || std::is_same_v<R, bool>, "an op returns its buffer type or bool");
  using RC = result_storage_t<C, M, R>;  // compute storage type of the result
  constexpr bool kVec = Op::template vectorize<C>;
  constexpr bool kReducedDirect = kVec && is_reduced_v<C> && std::is_same_v<M, float>;

  const Fn fn(args);
  RowKernel<M, R, N> k{&fn, kVec ? &loop_vectorized<Fn, M, R, N> : &loop_scalar<Fn, M, R, N>, &eval_fn<Fn, M, R, N>,
                       nullptr};
  if constexpr (kReducedDirect) k.reduced = &reduced_fn<Fn, R, N, C>;
  RowTypes<M> t{};
  t.compute = dtype_of_v<C>;
  t.compute_size = sizeof(C);
  t.result = dtype_of_v<RC>;
  t.result_size = sizeof(RC);
  t.direct = kVec && std::is_same_v<M, C> && !is_complex_v<C>;
  t.reduced_direct = kReducedDirect;
  t.widen = widened_v<C, M>;
  t.widen_result = widened_v<RC, R>;
  t.swap_inputs = Op::kSwapInputs;
  t.load_value = &load_one<C, M>;
  // CPU's mul/div read a broadcast second input of a float16/bfloat16 op
  // directly as float (OpTraits::kScalarOtherAsOpmath).
  if constexpr (Op::kScalarOtherAsOpmath && widened_v<C, M>) t.load_value_other = &load_one<M, M>;
  run_rows<M, R, N>(p, k, t);
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
