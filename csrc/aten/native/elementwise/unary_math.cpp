// Unary math, sign, rounding and float classification stubs
// (stub_kernels.h): TensorIterator's common dtype is the compute dtype (the
// promoted float dtype for integer inputs of the float ops); the predicates
// compute in their input's dtype and write bool.
#include <ATen/native/TensorCompare.h>
#include <ATen/native/UnaryOps.h>

#include <type_traits>

#include "aten/iterator_desc.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using kernels::ElementwiseOp;

#define TPU_UNARY_STUB_KERNEL(fn, OP, stub) \
  void fn(at::TensorIteratorBase& iter) { run_elementwise(iter, ElementwiseOp::OP, iter.common_dtype(), stub); }

TPU_UNARY_STUB_KERNEL(exp_kernel, kExp, "exp_stub")
TPU_UNARY_STUB_KERNEL(exp2_kernel, kExp2, "exp2_stub")
TPU_UNARY_STUB_KERNEL(expm1_kernel, kExpm1, "expm1_stub")
TPU_UNARY_STUB_KERNEL(log_kernel, kLog, "log_stub")
TPU_UNARY_STUB_KERNEL(log1p_kernel, kLog1p, "log1p_stub")
TPU_UNARY_STUB_KERNEL(log2_kernel, kLog2, "log2_stub")
TPU_UNARY_STUB_KERNEL(log10_kernel, kLog10, "log10_stub")
TPU_UNARY_STUB_KERNEL(sqrt_kernel, kSqrt, "sqrt_stub")
TPU_UNARY_STUB_KERNEL(rsqrt_kernel, kRsqrt, "rsqrt_stub")
TPU_UNARY_STUB_KERNEL(sin_kernel, kSin, "sin_stub")
TPU_UNARY_STUB_KERNEL(cos_kernel, kCos, "cos_stub")
TPU_UNARY_STUB_KERNEL(tan_kernel, kTan, "tan_stub")
TPU_UNARY_STUB_KERNEL(tanh_kernel, kTanh, "tanh_stub")
TPU_UNARY_STUB_KERNEL(sigmoid_kernel, kSigmoid, "sigmoid_stub")
TPU_UNARY_STUB_KERNEL(erf_kernel, kErf, "erf_stub")
TPU_UNARY_STUB_KERNEL(reciprocal_kernel, kReciprocal, "reciprocal_stub")
TPU_UNARY_STUB_KERNEL(sinh_kernel, kSinh, "sinh_stub")
TPU_UNARY_STUB_KERNEL(cosh_kernel, kCosh, "cosh_stub")
TPU_UNARY_STUB_KERNEL(asin_kernel, kAsin, "asin_stub")
TPU_UNARY_STUB_KERNEL(acos_kernel, kAcos, "acos_stub")
TPU_UNARY_STUB_KERNEL(atan_kernel, kAtan, "atan_stub")
TPU_UNARY_STUB_KERNEL(asinh_kernel, kAsinh, "asinh_stub")
TPU_UNARY_STUB_KERNEL(acosh_kernel, kAcosh, "acosh_stub")
TPU_UNARY_STUB_KERNEL(atanh_kernel, kAtanh, "atanh_stub")
TPU_UNARY_STUB_KERNEL(sign_kernel, kSign, "sign_stub")
TPU_UNARY_STUB_KERNEL(floor_kernel, kFloor, "floor_stub")
TPU_UNARY_STUB_KERNEL(ceil_kernel, kCeil, "ceil_stub")
TPU_UNARY_STUB_KERNEL(round_kernel, kRound, "round_stub")
TPU_UNARY_STUB_KERNEL(trunc_kernel, kTrunc, "trunc_stub")
TPU_UNARY_STUB_KERNEL(frac_kernel, kFrac, "frac_stub")

#undef TPU_UNARY_STUB_KERNEL

void round_decimals_kernel(at::TensorIteratorBase& iter, int64_t decimals) {
  run_elementwise(iter, ElementwiseOp::kRoundDecimals, iter.common_dtype(), "round_decimals_stub",
                  {kernels::ScalarArg::from_int(decimals)});
}

// The predicates' iterators have a static bool output dtype: the input's
// dtype is the compute dtype.

void isposinf_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kIsPosInf, iter.input_dtype(0), "isposinf_stub");
}

void isneginf_kernel(at::TensorIteratorBase& iter) {
  run_elementwise(iter, ElementwiseOp::kIsNegInf, iter.input_dtype(0), "isneginf_stub");
}

}  // namespace torch_tpu::aten
