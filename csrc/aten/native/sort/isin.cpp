// torch.isin. ATen's structured isin promotes, checks and, for large inputs,
// sorts through the dispatcher; for small ones it calls isin_default_stub,
// whose CPU kernel compares each element with every test element. tpu's
// kernel answers by a binary search of the sorted test elements instead (one
// sort, one searchsorted, one gather, one compare: O((n + m) log m), and the
// same answers: -0.0 matches 0.0, NaN matches nothing).
#include <ATen/ScalarOps.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/isin.h>
#include <ATen/ops/ne.h>
#include <ATen/ops/result_type.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/sort.h>

#include "generated/ops/isin_Scalar_Tensor_out.h"
#include "generated/ops/isin_Tensor_Scalar_out.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

void isin_default_kernel(const at::Tensor& elements, const at::Tensor& test_elements, bool invert,
                         const at::Tensor& out) {
  const at::ScalarType common = at::result_type(elements, test_elements);
  if (test_elements.numel() == 0) {
    out.fill_(invert);
    return;
  }
  const at::Tensor e = elements.to(common);
  const at::Tensor sorted = std::get<0>(test_elements.to(common).reshape({-1}).sort());
  const at::Tensor pos = at::searchsorted(sorted, e).clamp_max_(sorted.numel() - 1);
  const at::Tensor found = invert ? sorted.take(pos).ne(e) : sorted.take(pos).eq(e);
  out.copy_(found);
}

void isin_tensor_scalar_out(const at::Tensor& elements, const at::Scalar& test_element, bool assume_unique,
                            bool invert, const at::Tensor& out) {
  (void)assume_unique;
  if (invert) {
    at::ne_out(const_cast<at::Tensor&>(out), elements, test_element);
  } else {
    at::eq_out(const_cast<at::Tensor&>(out), elements, test_element);
  }
}

void isin_scalar_tensor_out(const at::Scalar& element, const at::Tensor& test_elements, bool assume_unique,
                            bool invert, const at::Tensor& out) {
  // A wrapped number: it promotes with the test elements as a Python scalar.
  at::isin_out(const_cast<at::Tensor&>(out), at::native::wrapped_scalar_tensor(element, test_elements.device()),
               test_elements, assume_unique, invert);
}

}  // namespace torch_tpu::aten
