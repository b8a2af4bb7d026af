// Device kernels behind ATen's DispatchStubs ("stub" route of ops.yaml):
// ATen's structured op computes shapes, dtypes, broadcasting and outputs
// with a TensorIterator and calls <stub>(kPrivateUse1, iter, ...), which
// reaches these once registered with
// at::native::<stub>.set_privateuse1_dispatch_ptr(&fn). Each matches its
// stub's function pointer type exactly.
#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/core/Generator.h>
#include <ATen/core/List.h>
#include <ATen/native/ReductionType.h>
#include <c10/core/Scalar.h>

#include <optional>

namespace torch_tpu::aten {

// ATen/native/BinaryOps.h. add_stub also serves sub (ATen passes -alpha).
void add_kernel(at::TensorIteratorBase& iter, const c10::Scalar& alpha);  // add_stub
void mul_kernel(at::TensorIteratorBase& iter);                            // mul_stub
void div_true_kernel(at::TensorIteratorBase& iter);                       // div_true_stub

// ATen/native/UnaryOps.h.
void neg_kernel(at::TensorIteratorBase& iter);  // neg_stub
void abs_kernel(at::TensorIteratorBase& iter);  // abs_stub (complex: ATen asks complex -> complex)
void conj_physical_kernel(at::TensorIteratorBase& iter);  // conj_physical_stub

// --- random (stub_kernels_random.cpp): ATen/native/UnaryOps.h -----------------
void uniform_kernel(at::TensorIteratorBase& iter, double from, double to,
                    std::optional<at::Generator> gen);                         // uniform_stub
void normal_kernel(const at::TensorBase& self, double mean, double std,
                   std::optional<at::Generator> gen);                          // normal_stub
void exponential_kernel(at::TensorIteratorBase& iter, double lambda,
                        std::optional<at::Generator> gen);                     // exponential_stub
void log_normal_kernel(at::TensorIteratorBase& iter, const double mean, const double std,
                       std::optional<at::Generator> gen);                      // log_normal_stub
void cauchy_kernel(at::TensorIteratorBase& iter, const double median, const double sigma,
                   std::optional<at::Generator> gen);                          // cauchy_stub
void geometric_kernel(at::TensorIteratorBase& iter, const double p,
                      std::optional<at::Generator> gen);                       // geometric_stub
void bernoulli_scalar_kernel(const at::TensorBase& self, double p,
                             std::optional<at::Generator> gen);                // bernoulli_scalar_stub
void bernoulli_tensor_kernel(const at::TensorBase& self, const at::TensorBase& p,
                             std::optional<at::Generator> gen);                // bernoulli_tensor_stub
void random_kernel(at::TensorIteratorBase& iter, std::optional<at::Generator> gen);  // random_stub
void random_from_to_kernel(at::TensorIteratorBase& iter, uint64_t range, int64_t base,
                           std::optional<at::Generator> gen);                  // random_from_to_stub
void random_full_64_bits_range_kernel(at::TensorIteratorBase& iter,
                                      std::optional<at::Generator> gen);  // random_full_64_bits_range_stub

// --- indexing (stub_kernels_index.cpp) ---------------------------------------
// ATen/native/TensorAdvancedIndexing.h.
void gather_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim,
                   const at::Tensor& index);                                          // gather_stub
void scatter_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                    const at::Tensor& src);                                           // scatter_stub
void scatter_fill_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                         const at::Scalar& value);                                    // scatter_fill_stub
void scatter_add_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index,
                        const at::Tensor& src);                                       // scatter_add_stub
void scatter_reduce_kernel(const at::Tensor& self, const int64_t dim, const at::Tensor& index,
                           const at::Tensor& src,
                           const at::native::ReductionType& reduce);                 // scatter_reduce_stub
void scatter_scalar_reduce_kernel(const at::Tensor& self, const int64_t dim, const at::Tensor& index,
                                  const at::Scalar& value,
                                  const at::native::ReductionType& reduce);          // scatter_scalar_reduce_stub
void scatter_reduce_two_kernel(const at::Tensor& self, const int64_t dim, const at::Tensor& index,
                               const at::Tensor& src,
                               const at::native::ReductionType& reduce);             // scatter_reduce_two_stub
// ATen/native/IndexKernel.h.
void index_kernel(at::TensorIteratorBase& iter, at::IntArrayRef indexed_sizes,
                  at::IntArrayRef indexed_strides);                                   // index_stub
void index_put_kernel(at::TensorIterator& iter, at::IntArrayRef indexed_sizes, at::IntArrayRef indexed_strides,
                      bool accumulate);                                               // index_put_stub
// _index_put_impl_ on PrivateUse1 sends accumulate=True (and deterministic
// mode) here (index_put_accumulate.cpp). A second stub of the
// _index_put_impl_ family: ops.yaml names one stub per entry, so it is
// registered by register_index_helper_stubs(), called from register_backend().
void index_put_with_sort_kernel(at::Tensor& self, const c10::List<std::optional<at::Tensor>>& indices,
                                const at::Tensor& value, bool accumulate, bool unsafe);  // index_put_with_sort_stub
void register_index_helper_stubs();

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
void sinh_kernel(at::TensorIteratorBase& iter);        // sinh_stub
void cosh_kernel(at::TensorIteratorBase& iter);        // cosh_stub
void asin_kernel(at::TensorIteratorBase& iter);        // asin_stub
void acos_kernel(at::TensorIteratorBase& iter);        // acos_stub
void atan_kernel(at::TensorIteratorBase& iter);        // atan_stub
void asinh_kernel(at::TensorIteratorBase& iter);       // asinh_stub
void acosh_kernel(at::TensorIteratorBase& iter);       // acosh_stub
void atanh_kernel(at::TensorIteratorBase& iter);       // atanh_stub
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

// --- binary and ternary elementwise ---
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

// --- sort, distances (stub_kernels_sort_dist.cpp) ----------------------
// ATen/native/Sorting.h: values already hold self (sort_stable_out copies it).
void sort_kernel(const at::TensorBase& self, const at::TensorBase& values, const at::TensorBase& indices,
                 int64_t dim, bool descending, bool stable);                       // sort_stub
// ATen/native/Distance.h: x1 [B, P, M], x2 [B, R, M] and pdist's self contiguous.
void cdist_kernel(at::Tensor& result, const at::Tensor& x1, const at::Tensor& x2, const double p);  // cdist_stub
void pdist_forward_kernel(at::Tensor& result, const at::Tensor& self, const double p);  // pdist_forward_stub

}  // namespace torch_tpu::aten
