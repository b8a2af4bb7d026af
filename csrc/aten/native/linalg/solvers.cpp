// The DispatchStub kernels of ATen's batched linear algebra (BatchLinearAlgebra.h)
// on the device LAPACK (kernels/linalg/solvers.cpp), as cuSOLVER backs them
// on CUDA. ATen's structured ops have checked the arguments, allocated the
// outputs (batched column-major, as LAPACK wants them) and report the infos
// (torch.linalg.LinAlgError, CPU's messages); these adapters describe the
// tensors and launch one device task on the current stream that runs the
// whole batch on the device's cores. A tensor that is not batched
// column-major (a user's out=, a conjugate view) is worked on in a
// column-major copy, copied back afterwards.
#include <ATen/TensorIterator.h>

#include "aten/native/linalg/lapack_operands.h"
#include "generated/ops/linalg_householder_product_out.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using namespace lapack_operands;

void lapack_lu_factor_kernel(const at::Tensor& input, const at::Tensor& pivots, const at::Tensor& infos,
                             bool compute_pivots) {
  TORCH_CHECK(compute_pivots, "linalg.lu_factor: LU without pivoting is not implemented on tpu");
  if (input.numel() == 0) return;
  const Operand a = column_major(input, true), p = dense(pivots, true), info = dense(infos, true);
  const auto m = matrices(a, "linalg.lu_factor");
  const auto pv = vectors(p), iv = vectors(info, true);
  run("lapack_getrf", {&a, &p, &info}, [=] { sv::lu_factor(m, pv, iv); });
}

void lapack_lu_solve_kernel(const at::Tensor& LU, const at::Tensor& pivots, const at::Tensor& B,
                            at::native::TransposeType trans) {
  if (B.numel() == 0 || LU.numel() == 0) return;
  const Operand lu = column_major(LU, false), p = dense(pivots, false), b = column_major(B, true);
  const auto lm = matrices(lu, "linalg.lu_solve"), bm = matrices(b, "linalg.lu_solve");
  // Batch broadcasting: the LU matrix of each right-hand side.
  std::vector<int64_t> lu_index = broadcast_index(LU, B, bm.count);
  TORCH_CHECK(bm.count == 0 || lm.count >= 1, "linalg.lu_solve: empty LU batch");
  const sv::VectorBatch pv = vectors(p);
  const char t = blas_trans(trans);
  run("lapack_getrs", {&b, &lu, &p}, [=, lu_index = std::move(lu_index)] { sv::lu_solve(lm, pv, bm, lu_index, t); });
}

void lapack_cholesky_kernel(const at::Tensor& input, const at::Tensor& infos, bool upper) {
  if (input.numel() == 0) return;
  const Operand a = column_major(input, true), info = dense(infos, true);
  const auto m = matrices(a, "linalg.cholesky");
  const auto iv = vectors(info, true);
  run("lapack_potrf", {&a, &info}, [=] { sv::cholesky(m, iv, upper); });
}

void lapack_triangular_solve_kernel(const at::Tensor& A, const at::Tensor& B, bool left, bool upper,
                                    at::native::TransposeType trans, bool unitriangular) {
  // As CPU's kernel (typed on A) reports an out= of another dtype.
  TORCH_CHECK(B.scalar_type() == A.scalar_type(), "expected scalar type ", A.scalar_type(), " but found ",
              B.scalar_type());
  if (A.numel() == 0 || B.numel() == 0) return;
  const Operand a = as_stored(A), b = column_major(B, true);
  const auto am = matrices(a, "linalg.solve_triangular"), bm = matrices(b, "linalg.solve_triangular");
  TORCH_CHECK(am.count == bm.count, "triangular_solve: A and B must have the same batch size on tpu");
  const char t = blas_trans(trans);
  run("lapack_trsm", {&b, &a}, [=] { sv::triangular_solve(am, bm, left, upper, t, unitriangular); });
}

void lapack_geqrf_kernel(const at::Tensor& input, const at::Tensor& tau) {
  if (input.numel() == 0) return;
  const Operand a = column_major(input, true), t = dense(tau, true);
  const auto m = matrices(a, "geqrf");
  const auto tv = vectors(t);
  run("lapack_geqrf", {&a, &t}, [=] { sv::geqrf(m, tv); });
}

// The precheck (ops.yaml): ATen's linalg_householder_product_out checks
// the shapes and that tau's dtype is input's before the stub is reached; for
// a dtype the device LAPACK has no routines for, raise those first, as CPU.
void householder_product_check(const at::Tensor& input, const at::Tensor& tau) {
  const char* name = "torch.linalg.householder_product";
  TORCH_CHECK(input.dim() >= 2, name, ": input must have at least 2 dimensions.");
  TORCH_CHECK(input.size(-2) >= input.size(-1), name,
              ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  TORCH_CHECK(input.size(-1) >= tau.size(-1), name, ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  TORCH_CHECK(input.dim() - tau.dim() == 1, name,
              ": Expected tau to have one dimension less than input, but got tau.ndim equal to ", tau.dim(),
              " and input.ndim is equal to ", input.dim());
  if (input.dim() > 2) {
    const at::IntArrayRef expected(input.sizes().data(), input.dim() - 2);
    const at::IntArrayRef actual(tau.sizes().data(), tau.dim() - 1);
    TORCH_CHECK(actual.equals(expected), name,
                ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ", actual);
  }
  TORCH_CHECK(tau.scalar_type() == input.scalar_type(), name, ": tau dtype ", tau.scalar_type(),
              " does not match input dtype ", input.scalar_type());
}

at::Tensor& lapack_orgqr_kernel(at::Tensor& result, const at::Tensor& tau) {
  if (result.numel() == 0) return result;
  const Operand a = column_major(result, true), t = dense(tau, false);
  const auto m = matrices(a, "linalg.householder_product");
  const auto tv = vectors(t);
  const int64_t k = tau.size(-1);
  run("lapack_orgqr", {&a, &t}, [=] { sv::orgqr(m, tv, k); });
  return result;
}

void lapack_ormqr_kernel(const at::Tensor& input, const at::Tensor& tau, const at::Tensor& other, bool left,
                         bool transpose) {
  if (other.numel() == 0) return;
  const Operand a = column_major(input, false), t = dense(tau, false), c = column_major(other, true);
  const auto am = matrices(a, "ormqr"), cm = matrices(c, "ormqr");
  const auto tv = vectors(t);
  const int64_t k = tau.size(-1);
  const char trans = transpose ? (input.is_complex() ? 'C' : 'T') : 'N';
  run("lapack_ormqr", {&c, &a, &t}, [=] { sv::ormqr(am, tv, k, cm, left, trans); });
}

void lapack_eigh_kernel(const at::Tensor& values, const at::Tensor& vectors_, const at::Tensor& infos, bool upper,
                        bool compute_vectors) {
  if (vectors_.numel() == 0) return;
  const Operand a = column_major(vectors_, true), w = dense(values, true), info = dense(infos, true);
  const auto m = matrices(a, "linalg.eigh");
  const auto wv = vectors(w), iv = vectors(info, true);
  run("lapack_syevd", {&a, &w, &info}, [=] { sv::eigh(m, wv, iv, upper, compute_vectors); });
}

void lapack_svd_kernel(const at::Tensor& A, const bool full_matrices, const bool compute_uv,
                       const std::optional<std::string_view>& driver, const at::Tensor& U, const at::Tensor& S,
                       const at::Tensor& Vh, const at::Tensor& infos) {
  // Declared for float16/bfloat16 as CPU is: ATen handles empty matrices
  // before the stub, anything else raises CPU's error type here.
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(A.scalar_type()) ? A.element_size() >= 4 : A.is_complex(),
                              "\"linalg_svd\" not implemented for '", A.scalar_type(), "' on tpu");
  if (A.numel() == 0) return;
  // gesdd destroys its input: always a private column-major copy.
  at::Tensor scratch = at::empty(A.mT().sizes(), A.options()).mT();
  scratch.copy_(A);
  const Operand a{scratch, scratch, false}, s = dense(S, true), info = dense(infos, true);
  const Operand u = compute_uv ? column_major(U, true) : Operand{}, vh = compute_uv ? column_major(Vh, true) : Operand{};
  const auto am = matrices(a, "linalg.svd");
  const auto um = compute_uv ? matrices(u, "linalg.svd") : sv::MatrixBatch{};
  const auto vm = compute_uv ? matrices(vh, "linalg.svd") : sv::MatrixBatch{};
  const auto svv = vectors(s), iv = vectors(info, true);
  auto body = [=] { sv::svd(am, svv, um, vm, iv, full_matrices, compute_uv); };
  if (compute_uv) run("lapack_gesdd", {&a, &s, &info, &u, &vh}, body);
  else run("lapack_gesdd", {&a, &s, &info}, body);
}

// lu_unpack's permutation (unpack_pivots_stub): ATen's lu_unpack_out built the
// iterator over perm (int64, arange rows) and the contiguous int32 pivots; the
// device applies the swaps row by row.
void lapack_unpack_pivots_kernel(at::TensorIterator& iter, const int64_t dim_size, const int64_t max_pivot) {
  const at::Tensor& perm_t = iter.tensor(0);
  const at::Tensor& piv_t = iter.tensor(1);
  if (perm_t.numel() == 0 || dim_size == 0) return;
  TORCH_CHECK(piv_t.scalar_type() == at::kInt && perm_t.scalar_type() == at::kLong,
              "lu_unpack: expected int32 pivots and an int64 permutation");
  const Operand perm = dense(perm_t, true), piv = dense(piv_t, false);
  const int64_t m = perm_t.size(-1), count = perm_t.numel() / m, k = dim_size;
  const int64_t pstride = piv_t.size(-1);
  auto* perm_ptr = perm.work.data_ptr<int64_t>();
  const auto* piv_ptr = piv.work.const_data_ptr<int32_t>();
  run("unpack_pivots", {&perm, &piv}, [=] { sv::unpack_pivots(perm_ptr, m, piv_ptr, pstride, k, count); });
}

}  // namespace torch_tpu::aten
