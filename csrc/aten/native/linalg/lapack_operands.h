// Shared by the DispatchStub kernels of ATen's batched linear algebra
// (solvers.cpp, solvers_factor.cpp, solvers_eig_lstsq.cpp): tensors as the
// device LAPACK wants them (batched column-major, or copies that are
// written back), their descriptions, and the launch. Internal to
// aten/native/linalg.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/native/TransposeType.h>
#include <ATen/ops/empty.h>

#include <initializer_list>
#include <utility>
#include <vector>

#include "aten/launch.h"
#include "kernels/linalg/solvers.h"

namespace torch_tpu::aten::lapack_operands {

namespace sv = kernels::solvers;

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

inline Operand column_major(const at::Tensor& t, bool writes) {
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
inline Operand as_stored(const at::Tensor& t) {
  at::Tensor raw = Operand::raw(t);
  if (raw.is_contiguous() && !raw.is_neg()) return {t, raw, false};
  return column_major(t, false);
}

inline Operand dense(const at::Tensor& t, bool writes) {
  at::Tensor raw = Operand::raw(t);
  if (raw.is_contiguous()) return {t, raw, writes};
  return {t, raw.contiguous(), writes, true};
}

inline int64_t batch_count(const at::Tensor& t) {
  int64_t n = 1;
  for (int64_t d = 0; d + 2 < t.dim(); ++d) n *= t.size(d);
  return n;
}

inline sv::MatrixBatch matrices(const Operand& o, const char* op) {
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
inline sv::VectorBatch vectors(const Operand& o, bool per_matrix_scalar = false) {
  const at::Tensor& t = o.work;
  return {t.data_ptr(), per_matrix_scalar || t.dim() == 0 ? 1 : t.size(-1)};
}

inline char blas_trans(at::native::TransposeType t) {
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


// For each matrix of B's batch, the index of its matrix in A's batch under
// broadcasting (A's batch dims aligned right, size-1 dims repeated).
inline std::vector<int64_t> broadcast_index(const at::Tensor& A, const at::Tensor& B, int64_t b_count) {
  std::vector<int64_t> index(b_count);
  const int64_t ab = A.dim() - 2, bb = B.dim() - 2;
  for (int64_t i = 0; i < b_count; ++i) {
    int64_t rest = i, at = 0, scale = 1;
    for (int64_t d = 1; d <= bb; ++d) {
      const int64_t coord = rest % B.size(bb - d);
      rest /= B.size(bb - d);
      if (d <= ab) {
        const int64_t size = A.size(ab - d);
        at += (size == 1 ? 0 : coord) * scale;
        scale *= size;
      }
    }
    index[i] = at;
  }
  return index;
}

}  // namespace torch_tpu::aten::lapack_operands
