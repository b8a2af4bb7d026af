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

// --- binary elementwise (kern/binary) ---
// ATen/native/BinaryOps.h
void div_trunc_kernel(at::TensorIteratorBase& iter);    // div_trunc_stub
void div_floor_kernel(at::TensorIteratorBase& iter);    // div_floor_stub (also floor_divide)
void remainder_kernel(at::TensorIteratorBase& iter);    // remainder_stub
void fmod_kernel(at::TensorIteratorBase& iter);         // fmod_stub
void atan2_kernel(at::TensorIteratorBase& iter);        // atan2_stub
void hypot_kernel(at::TensorIteratorBase& iter);        // hypot_stub
void maximum_kernel(at::TensorIteratorBase& iter);      // maximum_stub (also clamp_min.Tensor)
void minimum_kernel(at::TensorIteratorBase& iter);      // minimum_stub (also clamp_max.Tensor)
void fmax_kernel(at::TensorIteratorBase& iter);         // fmax_stub
void fmin_kernel(at::TensorIteratorBase& iter);         // fmin_stub
void eq_kernel(at::TensorIteratorBase& iter);           // eq_stub
void ne_kernel(at::TensorIteratorBase& iter);           // ne_stub
void lt_kernel(at::TensorIteratorBase& iter);           // lt_stub
void le_kernel(at::TensorIteratorBase& iter);           // le_stub
void gt_kernel(at::TensorIteratorBase& iter);           // gt_stub
void ge_kernel(at::TensorIteratorBase& iter);           // ge_stub
void logical_and_kernel(at::TensorIterator& iter);      // logical_and_stub
void logical_or_kernel(at::TensorIterator& iter);       // logical_or_stub
void logical_xor_kernel(at::TensorIterator& iter);      // logical_xor_stub
void bitwise_and_kernel(at::TensorIteratorBase& iter);  // bitwise_and_stub
void bitwise_or_kernel(at::TensorIteratorBase& iter);   // bitwise_or_stub
void bitwise_xor_kernel(at::TensorIteratorBase& iter);  // bitwise_xor_stub
void lshift_kernel(at::TensorIteratorBase& iter);       // lshift_stub
void rshift_kernel(at::TensorIteratorBase& iter);       // rshift_stub
// ATen/native/UnaryOps.h
void bitwise_not_kernel(at::TensorIteratorBase& iter);  // bitwise_not_stub
void logical_not_kernel(at::TensorIteratorBase& iter);  // logical_not_stub
// ATen/native/Pow.h
void pow_tensor_tensor_kernel(at::TensorIteratorBase& iter);                         // pow_tensor_tensor_stub
void pow_tensor_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& exp);  // pow_tensor_scalar_stub
// ATen/native/TensorCompare.h
void where_kernel(at::TensorIterator& iter);             // where_kernel
void clamp_kernel(at::TensorIteratorBase& iter);         // clamp_stub
void clamp_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& min,
                         const c10::Scalar& max);        // clamp_scalar_stub
void clamp_min_scalar_kernel(at::TensorIteratorBase& iter, c10::Scalar min);  // clamp_min_scalar_stub
void clamp_max_scalar_kernel(at::TensorIteratorBase& iter, c10::Scalar max);  // clamp_max_scalar_stub
// ATen/native/Lerp.h
void lerp_scalar_kernel(at::TensorIteratorBase& iter, const c10::Scalar& weight);  // lerp_kernel_scalar_weight
void lerp_tensor_kernel(at::TensorIteratorBase& iter);                             // lerp_kernel_tensor_weight
// ATen/native/PointwiseOps.h
void addcmul_kernel(at::TensorIteratorBase& iter, const c10::Scalar& value);  // addcmul_stub
void addcdiv_kernel(at::TensorIteratorBase& iter, const c10::Scalar& value);  // addcdiv_stub

}  // namespace torch_tpu::aten
