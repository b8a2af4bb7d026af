// linalg_inv_ex on the device: ATen's own steps (linalg_inv_ex_out in
// BatchLinearAlgebra.cpp), after its meta() has checked A and allocated the
// outputs: the identity in `inverse`, then A X = I solved in place through
// linalg_solve_ex (LU factorisation and solve on the device LAPACK).
#include <ATen/core/Tensor.h>
#include <ATen/ops/_linalg_check_errors.h>
#include <ATen/ops/linalg_solve_ex.h>

#include "generated/ops/linalg_inv_ex_inverse.h"

namespace torch_tpu::aten {

void linalg_inv_ex_out(const at::Tensor& A, bool check_errors, const at::Tensor& inverse,
                       const at::Tensor& info) {
  inverse.zero_();
  inverse.diagonal(0, -2, -1).fill_(1.);
  at::linalg_solve_ex_out(const_cast<at::Tensor&>(inverse), const_cast<at::Tensor&>(info), A, inverse,
                          /*left=*/true);
  if (check_errors) at::_linalg_check_errors(info, "linalg.inv_ex", A.dim() == 2);
}

}  // namespace torch_tpu::aten
