// The DispatchStub kernels of ATen's batched linear algebra (BatchLinearAlgebra.h)
// on the device LAPACK (kernels/linalg/solvers.cpp), as cuSOLVER backs them
// on CUDA. ATen's structured ops have checked the arguments, allocated the
// outputs (batched column-major, as LAPACK wants them) and report the infos
// (torch.linalg.LinAlgError, CPU's messages); these adapters describe the
// tensors and launch one device task on the current stream that runs the
// whole batch on the device's cores. A tensor that is not batched
// column-major (a user's out=, a conjugate view) is worked on in a
// column-major copy, copied back afterwards.
#include <ATen/core/Tensor.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/TransposeType.h>
#include <ATen/ops/empty.h>

#include <utility>
#include <vector>

#include "aten/launch.h"
#include "generated/stub_kernels.h"
#include "kernels/linalg/solvers.h"

namespace torch_tpu::aten {
namespace {

namespace sv = kernels::solvers;

// A tensor as the device sees it: `work` is the tensor's memory or a copy
// of it, written back to `target` by finish() when `writes` and they differ.
// Like CPU's LAPACK kernels, the device reads raw memory: a conjugate bit is
// not applied (ATen passes conjugate views on purpose, with ConjTranspose).
struct Operand {
  at::Tensor target, work;
  bool writes = false, copied = false;
  void finish() const {
    if (writes && copied) raw(target).copy_(work);
  }
  const void* ptr() const { return work.data_ptr(); }
  static at::Tensor raw(const at::Tensor& t) { return t.is_conj() ? t.conj() : t; }
};

Operand column_major(const at::Tensor& t, bool writes) {
  at::Tensor raw = Operand::raw(t);
  TORCH_CHECK(!raw.is_neg(), "tpu linalg: negative views reach the device LAPACK only resolved");
  if (raw.mT().is_contiguous()) return {t, raw, writes};
  at::Tensor work = at::empty(raw.mT().sizes(), raw.options()).mT();
  work.copy_(raw);
  return {t, work, writes, true};
}

// triangular_solve_stub's A: ATen passes it column- or row-contiguous and
// says through `upper` and the transpose type how to read its memory as a
// column-major matrix (linalg_solve_triangular_out); both are used as stored.
Operand as_stored(const at::Tensor& t) {
  at::Tensor raw = Operand::raw(t);
  if (raw.is_contiguous() && !raw.is_neg()) return {t, raw, false};
  return column_major(t, false);
}

Operand dense(const at::Tensor& t, bool writes) {
  at::Tensor raw = Operand::raw(t);
  if (raw.is_contiguous()) return {t, raw, writes};
  return {t, raw.contiguous(), writes, true};
}

int64_t batch_count(const at::Tensor& t) {
  int64_t n = 1;
  for (int64_t d = 0; d + 2 < t.dim(); ++d) n *= t.size(d);
  return n;
}

sv::MatrixBatch matrices(const Operand& o, const char* op) {
  const at::Tensor& t = o.work;
  sv::MatrixBatch m;
  m.data = t.data_ptr();
  m.dtype = device_dtype(t.scalar_type(), op);
  m.rows = t.size(-2);
  m.cols = t.size(-1);
  m.ld = std::max<int64_t>(1, m.rows);
  m.stride = m.rows * m.cols;
  m.count = batch_count(t);
  return m;
}

// Per-matrix vectors of length t.size(-1) (pivots, tau, values), or one
// value per matrix (infos: the batch shape).
sv::VectorBatch vectors(const Operand& o, bool per_matrix_scalar = false) {
  const at::Tensor& t = o.work;
  return {t.data_ptr(), per_matrix_scalar || t.dim() == 0 ? 1 : t.size(-1)};
}

char blas_trans(at::native::TransposeType t) {
  switch (t) {
    case at::native::TransposeType::NoTranspose: return 'N';
    case at::native::TransposeType::Transpose: return 'T';
    case at::native::TransposeType::ConjTranspose: return 'C';
  }
  return 'N';
}

// Launches `body` on the current stream of the operands' device with their
// buffers, then writes back the copies.
template <typename Body>
void run(const char* name, std::initializer_list<const Operand*> operands, Body&& body) {
  runtime::BufferList buffers;
  for (const Operand* o : operands)
    if (o->work.numel() > 0) buffers.push_back(o->ptr());
  launch((*operands.begin())->work.device().index(), name, buffers, std::forward<Body>(body));
  for (const Operand* o : operands) o->finish();
}

}  // namespace

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
  // Batch broadcasting: the LU matrix of each right-hand side, dims aligned right.
  std::vector<int64_t> lu_index(bm.count);
  const int64_t lb = LU.dim() - 2, bb = B.dim() - 2;
  for (int64_t i = 0; i < bm.count; ++i) {
    int64_t rest = i, index = 0, scale = 1;
    for (int64_t d = 1; d <= bb; ++d) {
      const int64_t coord = rest % B.size(bb - d);
      rest /= B.size(bb - d);
      if (d <= lb) {
        const int64_t size = LU.size(lb - d);
        index += (size == 1 ? 0 : coord) * scale;
        scale *= size;
      }
    }
    lu_index[i] = index;
  }
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
