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

// --- reductions (stub_kernels_reduce.cpp) ---
// ATen/native/ReduceOps.h: reduction TensorIterators (outputs strided 0 along
// the reduced dims).
void sum_kernel(at::TensorIterator& iter);         // sum_stub
void mean_kernel(at::TensorIterator& iter);        // mean_stub
void prod_kernel(at::TensorIterator& iter);        // prod_stub
void and_kernel(at::TensorIterator& iter);         // and_stub (all)
void or_kernel(at::TensorIterator& iter);          // or_stub (any)
void max_values_kernel(at::TensorIterator& iter);  // max_values_stub (amax)
void min_values_kernel(at::TensorIterator& iter);  // min_values_stub (amin)
void argmax_kernel(at::TensorIterator& iter);      // argmax_stub
void argmin_kernel(at::TensorIterator& iter);      // argmin_stub
void std_var_kernel(at::TensorIterator& iter, double correction, bool take_sqrt);  // std_var_stub
void norm_kernel(at::TensorIterator& iter, const c10::Scalar& p);                  // norm_stub
// ATen/native/TensorCompare.h: max/min along a dim with indices.
void max_kernel(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                bool keepdim);  // max_stub
void min_kernel(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                bool keepdim);  // min_stub
// ATen/native/ReduceAllOps.h: max()/min() of a whole (contiguous) tensor.
void max_all_kernel(at::Tensor& result, const at::Tensor& self);  // max_all_stub
void min_all_kernel(at::Tensor& result, const at::Tensor& self);  // min_all_stub
// ATen/native/ReduceOps.h: scans (self already cast to result's dtype).
void cumsum_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim);   // cumsum_stub
void cumprod_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim);  // cumprod_stub

}  // namespace torch_tpu::aten
