// torch.fft's functions (fft_fft ... fft_ihfftn and their out= forms, direct
// with replaces_decomposition): CUDA computes them in float16 (complex32 for
// complex data), but ATen's composites refuse float16 on any other device
// ("Unsupported dtype Half", promote_type_fft). Here float16/complex32 input
// is widened to float32/complex64, the same function runs on it (ATen's
// composite over the _fft_* kernels, any size: cuFFT's float16 transforms
// take powers of two only) and the result is rounded once to
// float16/complex32. Complex32 is read and written through its float16
// pairs (view_as_real / view_as_complex), which need no complex32 kernel.
// Every other dtype runs ATen's composite itself. Registered for autograd
// too, so the widening and rounding are recorded like the composite's ops.
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/fft_fft.h>
#include <ATen/ops/fft_fft2.h>
#include <ATen/ops/fft_fft2_native.h>
#include <ATen/ops/fft_fft_native.h>
#include <ATen/ops/fft_fftn.h>
#include <ATen/ops/fft_fftn_native.h>
#include <ATen/ops/fft_hfft.h>
#include <ATen/ops/fft_hfft2.h>
#include <ATen/ops/fft_hfft2_native.h>
#include <ATen/ops/fft_hfft_native.h>
#include <ATen/ops/fft_hfftn.h>
#include <ATen/ops/fft_hfftn_native.h>
#include <ATen/ops/fft_ifft.h>
#include <ATen/ops/fft_ifft2.h>
#include <ATen/ops/fft_ifft2_native.h>
#include <ATen/ops/fft_ifft_native.h>
#include <ATen/ops/fft_ifftn.h>
#include <ATen/ops/fft_ifftn_native.h>
#include <ATen/ops/fft_ihfft.h>
#include <ATen/ops/fft_ihfft2.h>
#include <ATen/ops/fft_ihfft2_native.h>
#include <ATen/ops/fft_ihfft_native.h>
#include <ATen/ops/fft_ihfftn.h>
#include <ATen/ops/fft_ihfftn_native.h>
#include <ATen/ops/fft_irfft.h>
#include <ATen/ops/fft_irfft2.h>
#include <ATen/ops/fft_irfft2_native.h>
#include <ATen/ops/fft_irfft_native.h>
#include <ATen/ops/fft_irfftn.h>
#include <ATen/ops/fft_irfftn_native.h>
#include <ATen/ops/fft_rfft.h>
#include <ATen/ops/fft_rfft2.h>
#include <ATen/ops/fft_rfft2_native.h>
#include <ATen/ops/fft_rfft_native.h>
#include <ATen/ops/fft_rfftn.h>
#include <ATen/ops/fft_rfftn_native.h>
#include <ATen/ops/view_as_complex.h>
#include <ATen/ops/view_as_real.h>
#include <c10/core/SymIntArrayRef.h>

#include <optional>

#include "generated/ops/fft_fft.h"
#include "generated/ops/fft_fft2.h"
#include "generated/ops/fft_fft2_out.h"
#include "generated/ops/fft_fft_out.h"
#include "generated/ops/fft_fftn.h"
#include "generated/ops/fft_fftn_out.h"
#include "generated/ops/fft_hfft.h"
#include "generated/ops/fft_hfft2.h"
#include "generated/ops/fft_hfft2_out.h"
#include "generated/ops/fft_hfft_out.h"
#include "generated/ops/fft_hfftn.h"
#include "generated/ops/fft_hfftn_out.h"
#include "generated/ops/fft_ifft.h"
#include "generated/ops/fft_ifft2.h"
#include "generated/ops/fft_ifft2_out.h"
#include "generated/ops/fft_ifft_out.h"
#include "generated/ops/fft_ifftn.h"
#include "generated/ops/fft_ifftn_out.h"
#include "generated/ops/fft_ihfft.h"
#include "generated/ops/fft_ihfft2.h"
#include "generated/ops/fft_ihfft2_out.h"
#include "generated/ops/fft_ihfft_out.h"
#include "generated/ops/fft_ihfftn.h"
#include "generated/ops/fft_ihfftn_out.h"
#include "generated/ops/fft_irfft.h"
#include "generated/ops/fft_irfft2.h"
#include "generated/ops/fft_irfft2_out.h"
#include "generated/ops/fft_irfft_out.h"
#include "generated/ops/fft_irfftn.h"
#include "generated/ops/fft_irfftn_out.h"
#include "generated/ops/fft_rfft.h"
#include "generated/ops/fft_rfft2.h"
#include "generated/ops/fft_rfft2_out.h"
#include "generated/ops/fft_rfft_out.h"
#include "generated/ops/fft_rfftn.h"
#include "generated/ops/fft_rfftn_out.h"

namespace torch_tpu::aten {
namespace {

bool fft_half(const at::Tensor& t) { return t.scalar_type() == at::kHalf || t.scalar_type() == at::kComplexHalf; }

// float16 as float32; complex32 as complex64 through its float16 pairs (a
// conjugate view stays one).
at::Tensor fft_widened(const at::Tensor& t) {
  if (t.scalar_type() == at::kHalf) return t.to(at::kFloat);
  const at::Tensor stored = t.is_conj() ? t.conj() : t;
  const at::Tensor x = at::view_as_complex(at::view_as_real(stored).to(at::kFloat));
  return t.is_conj() ? x.conj() : x;
}

// float32 rounded to float16, complex64 to complex32 (its pairs rounded; a
// conjugate view stays one, as the inverse transforms of real input return).
at::Tensor fft_rounded(const at::Tensor& r) {
  if (!r.is_complex()) return r.to(at::kHalf);
  if (r.is_conj()) return fft_rounded(r.conj()).conj();
  return at::view_as_complex(at::view_as_real(r).to(at::kHalf));
}

// out=: resized and written as ATen's FFT out= kernels do (resize_output,
// then a copy of the result), the rounding first.
at::Tensor& fft_rounded_into(const at::Tensor& r, at::Tensor& out) {
  at::native::resize_output(out, r.sizes());
  if (!r.is_complex() || !out.is_complex() || out.is_conj()) return out.copy_(fft_rounded(r));
  // complex32 pairs: no complex32 copy kernel
  at::view_as_real(out).copy_(at::view_as_real(r.resolve_conj()).to(at::kHalf));
  return out;
}

std::optional<c10::SymInt> fft_sym(std::optional<int64_t> n) {
  return n.has_value() ? std::optional<c10::SymInt>(c10::SymInt(*n)) : std::nullopt;
}

at::OptionalSymIntArrayRef fft_sym(at::OptionalIntArrayRef s) {
  return s.has_value() ? at::OptionalSymIntArrayRef(c10::fromIntArrayRefSlow(*s)) : std::nullopt;
}

}  // namespace

#define TPU_FFT_HALF(name, Sizes, Dims)                                                                      \
  at::Tensor name(const at::Tensor& self, Sizes n, Dims dim, std::optional<c10::string_view> norm) {       \
    if (!fft_half(self)) return at::native::name##_symint(self, fft_sym(n), dim, norm);                   \
    return fft_rounded(at::name(fft_widened(self), n, dim, norm));                                         \
  }                                                                                                        \
  at::Tensor& name##_out(const at::Tensor& self, Sizes n, Dims dim, std::optional<c10::string_view> norm, \
                         at::Tensor& out) {                                                                \
    if (!fft_half(self)) return at::native::name##_symint_out(self, fft_sym(n), dim, norm, out);          \
    return fft_rounded_into(at::name(fft_widened(self), n, dim, norm), out);                               \
  }

#define TPU_FFT_HALF_FAMILY(base)                                              \
  TPU_FFT_HALF(base, std::optional<int64_t>, int64_t)                          \
  TPU_FFT_HALF(base##2, at::OptionalIntArrayRef, at::IntArrayRef)              \
  TPU_FFT_HALF(base##n, at::OptionalIntArrayRef, at::OptionalIntArrayRef)

TPU_FFT_HALF_FAMILY(fft_fft)
TPU_FFT_HALF_FAMILY(fft_ifft)
TPU_FFT_HALF_FAMILY(fft_rfft)
TPU_FFT_HALF_FAMILY(fft_irfft)
TPU_FFT_HALF_FAMILY(fft_hfft)
TPU_FFT_HALF_FAMILY(fft_ihfft)

#undef TPU_FFT_HALF_FAMILY
#undef TPU_FFT_HALF

}  // namespace torch_tpu::aten
