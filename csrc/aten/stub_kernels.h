// Device kernels behind ATen's DispatchStubs ("stub" route of ops.yaml):
// ATen's structured op computes shapes, dtypes, broadcasting and outputs
// with a TensorIterator and calls <stub>(kPrivateUse1, iter, ...), which
// reaches these once registered with
// at::native::<stub>.set_privateuse1_dispatch_ptr(&fn). Each matches its
// stub's function pointer type exactly.
#pragma once

#include <ATen/TensorIterator.h>
#include <c10/core/Scalar.h>

namespace torch_tpu::aten {

// ATen/native/BinaryOps.h. add_stub also serves sub (ATen passes -alpha).
void add_kernel(at::TensorIteratorBase& iter, const c10::Scalar& alpha);  // add_stub
void mul_kernel(at::TensorIteratorBase& iter);                            // mul_stub
void div_true_kernel(at::TensorIteratorBase& iter);                       // div_true_stub

// ATen/native/UnaryOps.h.
void neg_kernel(at::TensorIteratorBase& iter);  // neg_stub
void abs_kernel(at::TensorIteratorBase& iter);  // abs_stub (complex: ATen asks complex -> complex)
void conj_physical_kernel(at::TensorIteratorBase& iter);  // conj_physical_stub

// --- unary elementwise (stub_kernels_unary_math.cpp) ---
// ATen/native/UnaryOps.h: the floating ops (integer inputs arrive promoted
// to the default float dtype), sign and rounding.
void exp_kernel(at::TensorIteratorBase& iter);         // exp_stub
void exp2_kernel(at::TensorIteratorBase& iter);        // exp2_stub
void expm1_kernel(at::TensorIteratorBase& iter);       // expm1_stub
void log_kernel(at::TensorIteratorBase& iter);         // log_stub
void log1p_kernel(at::TensorIteratorBase& iter);       // log1p_stub
void log2_kernel(at::TensorIteratorBase& iter);        // log2_stub
void log10_kernel(at::TensorIteratorBase& iter);       // log10_stub
void sqrt_kernel(at::TensorIteratorBase& iter);        // sqrt_stub
void rsqrt_kernel(at::TensorIteratorBase& iter);       // rsqrt_stub
void sin_kernel(at::TensorIteratorBase& iter);         // sin_stub
void cos_kernel(at::TensorIteratorBase& iter);         // cos_stub
void tan_kernel(at::TensorIteratorBase& iter);         // tan_stub
void tanh_kernel(at::TensorIteratorBase& iter);        // tanh_stub
void sigmoid_kernel(at::TensorIteratorBase& iter);     // sigmoid_stub
void erf_kernel(at::TensorIteratorBase& iter);         // erf_stub
void reciprocal_kernel(at::TensorIteratorBase& iter);  // reciprocal_stub
void sign_kernel(at::TensorIteratorBase& iter);        // sign_stub (also sgn of real dtypes)
void floor_kernel(at::TensorIteratorBase& iter);       // floor_stub
void ceil_kernel(at::TensorIteratorBase& iter);        // ceil_stub
void round_kernel(at::TensorIteratorBase& iter);       // round_stub
void round_decimals_kernel(at::TensorIteratorBase& iter, int64_t decimals);  // round_decimals_stub
void trunc_kernel(at::TensorIteratorBase& iter);       // trunc_stub
void frac_kernel(at::TensorIteratorBase& iter);        // frac_stub
// ATen/native/TensorCompare.h: bool results.
void isposinf_kernel(at::TensorIteratorBase& iter);    // isposinf_stub
void isneginf_kernel(at::TensorIteratorBase& iter);    // isneginf_stub
// ATen/native/Activation.h and BinaryOps.h (stub_kernels_activation.cpp).
void silu_kernel(at::TensorIteratorBase& iter);              // silu_stub
void silu_backward_kernel(at::TensorIteratorBase& iter);     // silu_backward_stub
void sigmoid_backward_kernel(at::TensorIteratorBase& iter);  // sigmoid_backward_stub
void tanh_backward_kernel(at::TensorIteratorBase& iter);     // tanh_backward_stub
void threshold_kernel(at::TensorIteratorBase& iter, const c10::Scalar& threshold,
                      const c10::Scalar& value);             // threshold_stub (also threshold_backward)

}  // namespace torch_tpu::aten
