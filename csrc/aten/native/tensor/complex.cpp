// torch.complex and torch.polar (complex_stub / polar_stub: ATen's shared
// complex_out / polar_out have broadcast the inputs and sized the complex
// result): the real and imaginary parts written through view_as_real.
#include <ATen/TensorIterator.h>
#include <ATen/ops/cos.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/sin.h>
#include <ATen/ops/view_as_real.h>

#include "generated/stub_kernels.h"

namespace torch_tpu::aten {
namespace {

// CPU's part dtypes: complex takes float16 too (a complex32 result), polar not.
void check_part_dtype(const at::TensorIteratorBase& iter, const char* name, bool half) {
  const at::ScalarType part = iter.input_dtype(0);
  TORCH_CHECK_NOT_IMPLEMENTED(part == at::kFloat || part == at::kDouble || (half && part == at::kHalf), "\"", name,
                              "\" not implemented for '", c10::toString(part), "' on tpu");
}

at::Tensor complex_part(const at::TensorIteratorBase& iter, int64_t part) {
  return at::view_as_real(iter.tensor(0)).select(-1, part);
}

}  // namespace

void complex_kernel(at::TensorIterator& iter) {
  check_part_dtype(iter, "complex", /*half=*/true);
  if (iter.numel() == 0) return;
  complex_part(iter, 0).copy_(iter.tensor(1));
  complex_part(iter, 1).copy_(iter.tensor(2));
}

// abs * (cos(angle) + i sin(angle)), each part rounded once as CPU's std::polar.
void polar_kernel(at::TensorIterator& iter) {
  check_part_dtype(iter, "polar", /*half=*/false);  // CPU: polar_cpu has no float16 either
  if (iter.numel() == 0) return;
  const at::Tensor& abs = iter.tensor(1);
  const at::Tensor& angle = iter.tensor(2);
  at::Tensor re = complex_part(iter, 0), im = complex_part(iter, 1);
  at::mul_out(re, abs, at::cos(angle));
  at::mul_out(im, abs, at::sin(angle));
}

}  // namespace torch_tpu::aten
