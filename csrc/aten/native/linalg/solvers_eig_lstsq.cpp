// DispatchStub kernels for general matrices on the device LAPACK
// (kernels/linalg/solvers_eig_lstsq.cpp): linalg.eig / eigvals (geev, and
// the complex eigenvectors of a real matrix). ATen's ops check the
// arguments, allocate the outputs and report the infos. (linalg.lstsq is
// lstsq.cpp.)
#include "aten/native/linalg/lapack_operands.h"
#include "generated/stub_kernels.h"

namespace torch_tpu::aten {

using namespace lapack_operands;

// ATen's linalg_eig_out_info: for a real input, values is a real (.., 2n)
// buffer (wr then wi) and vectors real; for a complex one both complex. The
// input must stay as it is: geev works on a private copy.
void lapack_eig_kernel(at::Tensor& values, at::Tensor& vectors_, at::Tensor& infos, const at::Tensor& input,
                       bool compute_vectors) {
  if (input.numel() == 0) return;
  at::Tensor scratch = at::empty(input.mT().sizes(), input.options()).mT();
  scratch.copy_(input);
  const Operand a{scratch, scratch, false}, w = dense(values, true), info = dense(infos, true);
  const Operand v = compute_vectors ? column_major(vectors_, true) : Operand{};
  const auto am = matrices(a, "linalg.eig");
  const auto vm = compute_vectors ? matrices(v, "linalg.eig") : sv::MatrixBatch{};
  const auto wv = vectors(w), iv = vectors(info, true);
  auto body = [=] { sv::eig(am, wv, vm, iv, compute_vectors); };
  if (compute_vectors) run("lapack_geev", {&a, &w, &info, &v}, body);
  else run("lapack_geev", {&a, &w, &info}, body);
}

void lapack_eig_complex_vectors_kernel(const at::Tensor& complex_vectors, const at::Tensor& complex_values,
                                       const at::Tensor& real_vectors) {
  if (complex_vectors.numel() == 0) return;
  const Operand cv = column_major(complex_vectors, true), w = dense(complex_values, false),
                rv = column_major(real_vectors, false);
  const auto cm = matrices(cv, "linalg.eig"), rm = matrices(rv, "linalg.eig");
  const auto wv = vectors(w);
  run("eig_complex_vectors", {&cv, &w, &rv}, [=] { sv::eig_complex_vectors(cm, wv, rm); });
}

}  // namespace torch_tpu::aten
