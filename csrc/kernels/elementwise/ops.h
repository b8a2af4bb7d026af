// The op table of elementwise.h. Private to the kernel library.
//
// Adding an op:
//   1. a line X(Name, BASE) at the end of TORCH_TPU_ELEMENTWISE_OPS
//      (elementwise.h): the enum, the count, the declaration below and the
//      op tables follow from it;
//   2. a struct in an elementwise_<family>.cpp (contract in
//      kernels/elementwise/loops.h): kName, kInputs, kArgs, supports<C> (exactly the
//      compute dtypes PyTorch CPU accepts), Fn<C> with the arithmetic in
//      buffer type M, and `constinit const OpEntry k<Name>Entry = make_entry<Op>();`
//      (in a file compiled per ISA: X(Name, ISA) and
//      `... TORCH_TPU_ISA_ENTRY(k<Name>Entry) = ...`);
//   3. tests in tests/test_elementwise*.cpp (C++) and a comparison against
//      CPU eager in tests/test_elementwise_stub_kernels.py.
//
// Where PyTorch CPU itself gives different bits for contiguous and strided
// inputs, the kernels follow the contiguous (vectorized) path:
//   - float16/bfloat16 add with alpha != 1: fused in float, rounded once
//     (CPU's strided path rounds alpha*b to half first);
//   - float16/bfloat16 neg/abs: flip/clear the sign bit, NaN payloads kept
//     (CPU's strided path goes through float, bfloat16 NaNs become 0x7FC0);
//   - complex neg: 0 - x, so -(0+0i) is +0+0i (strided CPU: -0-0i);
//   - complex mul: no fused multiply-add (strided CPU fuses for complex64);
//   - complex abs: SLEEF's hypot (complex128: the same algorithm; complex64:
//     an equivalent), where CPU's strided path calls glibc's hypot, which
//     differs in the last bit for ~0.2% of complex128 inputs.
#pragma once

#include <vector>

#include "kernels/elementwise/elementwise.h"

namespace torch_tpu::kernels::ew {

struct Plan;

struct OpEntry {
  ElementwiseOp op;
  const char* name;
  int inputs;
  int args;
  void (*run)(const Plan&, const ScalarArgs&);
  bool (*supports)(DType);
};

template <typename Op>
void run_op(const Plan& p, const ScalarArgs& args);
template <typename Op>
bool supports_op(DType t);

template <typename Op>
constexpr OpEntry make_entry() {
  return OpEntry{Op::kOp, Op::kName, Op::kInputs, Op::kArgs, &run_op<Op>, &supports_op<Op>};
}

// Every op's entry (TORCH_TPU_ELEMENTWISE_OPS in elementwise.h); an op of a
// file compiled per ISA has one per variant.
#define TORCH_TPU_EW_EXTERN_BASE(name) extern const OpEntry k##name##Entry;
#define TORCH_TPU_EW_EXTERN_ISA(name) \
  extern const OpEntry k##name##Entry_avx2;  \
  extern const OpEntry k##name##Entry_avx512;
#define TORCH_TPU_EW_EXTERN(name, isa) TORCH_TPU_EW_EXTERN_##isa(name)
TORCH_TPU_ELEMENTWISE_OPS(TORCH_TPU_EW_EXTERN)
#undef TORCH_TPU_EW_EXTERN
#undef TORCH_TPU_EW_EXTERN_ISA
#undef TORCH_TPU_EW_EXTERN_BASE

}  // namespace torch_tpu::kernels::ew
