// DispatchStub kernels and helpers that reuse a factorization, on the device
// LAPACK (kernels/linalg/solvers_factor.cpp): cholesky_inverse (potri),
// cholesky_solve (potrs; ATen registers its helper per device, no stub) and
// the LDL^T factorization and solve (sytrf/hetrf, sytrs/hetrs).
#include <ATen/ops/zeros.h>

#include "aten/native/linalg/lapack_operands.h"
#include "generated/ops/_cholesky_solve_helper.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using namespace lapack_operands;

namespace {

// A private batched column-major copy (what ATen's cloneBatchedColumnMajor
// makes): broadcast views are materialised and a conj bit applied.
at::Tensor column_major_clone(const at::Tensor& t) {
  at::Tensor out = at::empty(t.mT().sizes(), t.options()).mT();
  out.copy_(t);
  return out;
}

at::Tensor device_infos(const at::Tensor& like, int64_t count) {
  return at::zeros({std::max<int64_t>(1, count)}, like.options().dtype(at::kInt));
}

}  // namespace

// ATen's cholesky_inverse_out_info copied the input into result (batched
// column-major) and keeps infos on the CPU (as MAGMA wants them): the device
// writes its own, copied back after the task.
at::Tensor& lapack_cholesky_inverse_kernel(at::Tensor& result, at::Tensor& infos, bool upper) {
  if (result.numel() == 0) return result;
  const Operand a = column_major(result, true);
  const auto m = matrices(a, "cholesky_inverse");
  const at::Tensor dev = device_infos(result, m.count);
  const Operand info{dev, dev, false};
  const auto iv = vectors(info, true);
  run("lapack_potri", {&a, &info}, [=] { sv::cholesky_inverse(m, iv, upper); });
  infos.copy_(dev.view(infos.sizes()));
  return result;
}

// ATen's cholesky_solve broadcast self and A (expanded views); as CPU's
// _cholesky_solve_helper_cpu: column-major copies, potrs, the solution.
at::Tensor _cholesky_solve_helper(const at::Tensor& self, const at::Tensor& A, bool upper) {
  at::Tensor b = column_major_clone(self);
  if (b.numel() == 0 || A.numel() == 0) return b;
  const at::Tensor factor = column_major_clone(A);
  const Operand bo{b, b, false}, fo{factor, factor, false};
  const auto bm = matrices(bo, "cholesky_solve"), fm = matrices(fo, "cholesky_solve");
  const at::Tensor dev = device_infos(b, bm.count);
  const Operand info{dev, dev, false};
  const auto iv = vectors(info, true);
  // potrs reports argument errors only, which the checks above exclude.
  run("lapack_potrs", {&bo, &fo, &info}, [=] { sv::cholesky_solve(fm, bm, iv, upper); });
  return b;
}

// ATen's linalg_ldl_factor_ex_out: LD is the F-contiguous lower triangle of
// A, pivots and info int32.
void lapack_ldl_factor_kernel(const at::Tensor& LD, const at::Tensor& pivots, const at::Tensor& info, bool upper,
                              bool hermitian) {
  if (LD.numel() == 0) return;
  const Operand a = column_major(LD, true), p = dense(pivots, true), i = dense(info, true);
  const auto m = matrices(a, "linalg.ldl_factor");
  const auto pv = vectors(p), iv = vectors(i, true);
  run("lapack_sytrf", {&a, &p, &i}, [=] { sv::ldl_factor(m, pv, iv, upper, hermitian); });
}

// ATen's linalg_ldl_solve_out: result holds B (broadcast, F-contiguous), LD
// is F-contiguous with its own batch, pivots contiguous of any integer dtype.
void lapack_ldl_solve_kernel(const at::Tensor& LD, const at::Tensor& pivots, const at::Tensor& result, bool upper,
                             bool hermitian) {
  if (result.numel() == 0 || LD.numel() == 0) return;
  const at::Tensor piv32 = pivots.to(at::kInt).contiguous();
  const Operand ld = column_major(LD, false), p{piv32, piv32, false}, b = column_major(result, true);
  const auto lm = matrices(ld, "linalg.ldl_solve"), bm = matrices(b, "linalg.ldl_solve");
  std::vector<int64_t> ld_index = broadcast_index(LD, result, bm.count);
  const auto pv = vectors(p);
  run("lapack_sytrs", {&b, &ld, &p},
      [=, ld_index = std::move(ld_index)] { sv::ldl_solve(lm, pv, bm, ld_index, upper, hermitian); });
}

}  // namespace torch_tpu::aten
