// _compute_linear_combination(input, coefficients): out[i] = sum_j
// coefficients[i, j] * input[j] over input's first dimension (ATen's helper
// for matrix_exp on CPU and CUDA), one tpu matrix product of coefficients
// (N x M) with input flattened to M rows. As CPU's, the out= form adds the
// combination to what out holds (the functional form starts from zeros).
#include <ATen/ops/mm.h>

#include "generated/ops/_compute_linear_combination.h"
#include "generated/ops/_compute_linear_combination_out.h"

namespace torch_tpu::aten {
namespace {

at::Tensor combine_rows(const at::Tensor& input, const at::Tensor& coefficients) {
  TORCH_CHECK(coefficients.dim() == 2 && input.dim() > 0 && coefficients.size(1) == input.size(0),
              "_compute_linear_combination: coefficients must be (N, M) for an input of M rows, got ",
              coefficients.sizes(), " for ", input.sizes());
  std::vector<int64_t> sizes = input.sizes().vec();
  sizes[0] = coefficients.size(0);
  return at::mm(coefficients, input.reshape({input.size(0), -1})).view(sizes);
}

}  // namespace

at::Tensor& compute_linear_combination_out(const at::Tensor& input, const at::Tensor& coefficients,
                                           at::Tensor& out) {
  return out.add_(combine_rows(input, coefficients));
}

at::Tensor compute_linear_combination(const at::Tensor& input, const at::Tensor& coefficients) {
  TORCH_CHECK(input.ndimension() > 0 && input.numel() > 0, "Empty tensor not supported");
  return combine_rows(input, coefficients);
}

}  // namespace torch_tpu::aten
