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

}  // namespace torch_tpu::aten
