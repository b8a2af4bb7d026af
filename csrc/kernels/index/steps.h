// Element steps of the accumulating indexing kernels called through a
// pointer: the cold (op, dtype) pairs share one loop per element size
// instead of a loop each. The step is the typed loops' arithmetic
// (arith.h), so the results are the same bits. Private to the kernel
// library.
#pragma once

#include <cstring>

#include "kernels/common/dtype_dispatch.h"
#include "kernels/index/arith.h"

namespace torch_tpu::kernels {

// self += alpha * src in the compute type, rounded once (CPU's add with alpha).
template <typename T>
inline void add_scaled(T* self, T src, typename Arith<T>::C alpha) {
  using A = Arith<T>;
  *self = A::store(add_c(A::load(*self), mul_c(A::load(src), alpha)));
}

// self (op)= src; `arg`: alpha in the compute type (kAddScaled), else unused.
using StepFn = void (*)(void* self, const void* src, const void* arg);

template <ScatterOp Op, typename T>
inline void scatter_step(void* self, const void* src, const void* arg) {
  T x;
  std::memcpy(&x, src, sizeof(T));
  if constexpr (Op == ScatterOp::kAddScaled) {
    typename Arith<T>::C alpha;
    std::memcpy(&alpha, arg, sizeof(alpha));
    add_scaled(static_cast<T*>(self), x, alpha);
  } else {
    combine<Op>(static_cast<T*>(self), x);
  }
}

// The step of (Op, dtype); nullptr where Op is not defined (max/min of complex).
template <ScatterOp Op>
inline StepFn step_for(DType t) {
  if (t == DType::kComplex32) {  // index_add's sums only (scatter_supports)
    if constexpr (Op == ScatterOp::kAdd) return scatter_step<ScatterOp::kAdd, Complex<Half>>;
    return nullptr;
  }
  return visit_dtype(t, [](auto tag) -> StepFn {
    using T = typename decltype(tag)::type;
    if constexpr ((Op == ScatterOp::kMax || Op == ScatterOp::kMin) && is_complex_v<T>) {
      return nullptr;
    } else {
      return scatter_step<Op, T>;
    }
  });
}

}  // namespace torch_tpu::kernels
