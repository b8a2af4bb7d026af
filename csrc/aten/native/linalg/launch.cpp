#include "aten/native/linalg/launch.h"

#include <ATen/MemoryOverlap.h>
#include <ATen/ops/empty.h>

#include <optional>

#include "aten/launch.h"
#include "kernels/linalg/gemm.h"

namespace torch_tpu::aten::matmul {
namespace {

struct Scalars {
  double alpha = 1, beta = 0;
  int64_t ialpha = 1, ibeta = 0;
  bool beta_zero = true;
  double alpha_imag = 0, beta_imag = 0;
};

template <typename T>
Scalars complex_scalars(const at::Scalar& alpha, const at::Scalar& beta) {
  Scalars s;
  const T a = alpha.to<T>(), b = beta.to<T>();
  s.alpha = a.real(), s.alpha_imag = a.imag();
  s.beta = b.real(), s.beta_imag = b.imag();
  s.beta_zero = b == T(0);
  return s;
}

// As CPU's gemm receives them: alpha.to<opmath_t>() (float for float16,
// bfloat16 and float32; the integer type itself for integers), with the same
// overflow errors.
template <typename T>
Scalars int_scalars(const at::Scalar& alpha, const at::Scalar& beta) {
  Scalars s;
  const T a = alpha.to<T>(), b = beta.to<T>();
  s.ialpha = static_cast<int64_t>(a);
  s.ibeta = static_cast<int64_t>(b);
  s.beta_zero = b == 0;
  return s;
}

Scalars convert_scalars(at::ScalarType t, const at::Scalar& alpha, const at::Scalar& beta) {
  Scalars s;
  switch (t) {
    case at::kFloat: case at::kHalf: case at::kBFloat16: {
      const float a = alpha.to<float>(), b = beta.to<float>();
      s.alpha = a, s.beta = b, s.beta_zero = b == 0;
      return s;
    }
    case at::kDouble: {
      s.alpha = alpha.to<double>(), s.beta = beta.to<double>(), s.beta_zero = s.beta == 0;
      return s;
    }
    case at::kComplexFloat: return complex_scalars<c10::complex<float>>(alpha, beta);
    case at::kComplexDouble: return complex_scalars<c10::complex<double>>(alpha, beta);
    case at::kByte: return int_scalars<uint8_t>(alpha, beta);
    case at::kChar: return int_scalars<int8_t>(alpha, beta);
    case at::kShort: return int_scalars<int16_t>(alpha, beta);
    case at::kInt: return int_scalars<int32_t>(alpha, beta);
    case at::kLong: return int_scalars<int64_t>(alpha, beta);
    default:
      TORCH_CHECK_NOT_IMPLEMENTED(false, "\"addmm_impl_cpu_\" not implemented for '",
                                  c10::toString(t), "' on tpu");
  }
}

// Byte range [first, last) a strided tensor touches (strides are >= 0).
std::pair<const char*, const char*> span(const at::Tensor& t) {
  const char* p = static_cast<const char*>(t.const_data_ptr());
  int64_t extent = 1;
  for (int64_t d = 0; d < t.dim(); ++d) extent += (t.size(d) - 1) * t.stride(d);
  return {p, p + extent * static_cast<int64_t>(t.element_size())};
}

bool may_overlap(const at::Tensor& x, const at::Tensor& y) {
  if (x.numel() == 0 || y.numel() == 0 || !x.has_storage() || !y.has_storage() ||
      !x.storage().is_alias_of(y.storage())) {
    return false;
  }
  const auto [x0, x1] = span(x);
  const auto [y0, y1] = span(y);
  return x0 < y1 && y0 < x1;
}

bool same_view(const at::Tensor& x, const at::Tensor& y) {
  return x.const_data_ptr() == y.const_data_ptr() && x.sizes() == y.sizes() &&
         x.strides() == y.strides() && x.scalar_type() == y.scalar_type();
}

kernels::MatrixView view_of(const at::Tensor& t, bool batched) {
  void* p = const_cast<void*>(t.const_data_ptr());
  if (batched) return {p, t.stride(1), t.stride(2), t.stride(0)};
  return {p, t.stride(0), t.stride(1), 0};
}

}  // namespace

void run_gemm(const char* op, const at::Tensor& result, const at::Tensor& a_, const at::Tensor& b_,
              const at::Tensor* self, const at::Scalar& alpha, const at::Scalar& beta,
              bool batched) {
  if (result.numel() == 0) return;
  if (result.scalar_type() == at::kBool && a_.size(batched ? 2 : 1) == 0) {
    // CPU's addmm and bmm handle k == 0 before they look for a kernel of the
    // dtype, so bool runs there; with the same ops, so the same errors.
    if (self == nullptr || beta.toComplexDouble() == 0.0) {
      result.zero_();
    } else {
      if (!same_view(*self, result)) result.copy_(*self);
      result.mul_(beta);
    }
    return;
  }
  const Scalars sc = convert_scalars(result.scalar_type(), alpha, beta);
  // The complex GEMM reads conjugated operands as they are (PyTorch's conj
  // bit: mm, bmm and dot fall through the Conjugate key); a conjugated self
  // or result is resolved.
  const at::Tensor a = a_.resolve_neg(), b = b_.resolve_neg();
  const bool use_self = self != nullptr && !sc.beta_zero;

  // A result that overlaps an input (or itself), or carries the conj bit, is
  // computed aside.
  const bool aside = may_overlap(result, a) || may_overlap(result, b) || result.is_conj() ||
                     at::has_internal_overlap(result) == at::MemOverlap::Yes;
  const at::Tensor out = aside ? at::empty(result.sizes(), result.options()) : result;
  at::Tensor s;
  if (use_self) {
    s = self->resolve_neg().resolve_conj();
    if (!aside && !same_view(s, out) && may_overlap(s, out)) {
      out.copy_(s);  // CPU's result.copy_(self), then accumulate in place
      s = out;
    }
  }

  kernels::GemmDesc d;
  d.dtype = device_dtype(result.scalar_type(), op);
  d.batch = batched ? a.size(0) : 1;
  d.m = a.size(batched ? 1 : 0);
  d.k = a.size(batched ? 2 : 1);
  d.n = b.size(batched ? 2 : 1);
  d.a = view_of(a, batched);
  d.b = view_of(b, batched);
  d.c = view_of(out, batched);
  d.s = use_self ? view_of(s, batched) : d.c;
  d.alpha = sc.alpha, d.beta = sc.beta, d.ialpha = sc.ialpha, d.ibeta = sc.ibeta;
  d.alpha_imag = sc.alpha_imag, d.beta_imag = sc.beta_imag;
  d.conj_a = a.is_conj(), d.conj_b = b.is_conj();
  d.beta_zero = !use_self;
  launch(out.device().index(), op, d.buffers(),
         [d] { kernels::gemm(d); });
  if (aside) result.copy_(out);
}

void run_gemv(const char* op, const at::Tensor& result, const at::Tensor& mat,
              const at::Tensor& vec, const at::Tensor* self, const at::Scalar& alpha,
              const at::Scalar& beta) {
  const at::Tensor self2 = self ? self->unsqueeze(1) : at::Tensor();
  run_gemm(op, result.unsqueeze(1), mat, vec.unsqueeze(1), self ? &self2 : nullptr, alpha, beta,
           /*batched=*/false);
}

}  // namespace torch_tpu::aten::matmul
