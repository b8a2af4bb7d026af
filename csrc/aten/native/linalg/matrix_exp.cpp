// linalg.matrix_exp on tpu: scaling and squaring with a diagonal Padé
// approximant (Higham, "The scaling and squaring method for the matrix
// exponential revisited", 2005), in tpu matmuls and one linalg.solve.
//
// Why not ATen's own kernel (registered for CPU and CUDA only): it builds its
// Taylor coefficients with from_blob on the host and moves them to the input's
// device only for CUDA, so on any other device its TensorIterator meets
// operands on two devices. The Padé form also needs fewer products.
//
// Per matrix, s = max(0, ceil(log2(|A|_1 / theta))) halvings bring the
// 1-norm under theta, where the [m/m] approximant is accurate to the unit
// roundoff: m = 13, theta = 5.37 for double; m = 7, theta = 3.93 for single
// (float16/bfloat16 compute in float32). R = (V - U)^-1 (V + U) is then
// squared s times; in a batch, matrices that need fewer squarings keep their
// value through the extra rounds.
#include <ATen/native/LinearAlgebraUtils.h>
#include <ATen/ops/abs.h>
#include <ATen/ops/amax.h>
#include <ATen/ops/ceil.h>
#include <ATen/ops/clamp_min.h>
#include <ATen/ops/exp.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/isfinite.h>
#include <ATen/ops/linalg_solve.h>
#include <ATen/ops/log2.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/pow.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros_like.h>

#include <array>

#include "generated/ops/linalg_matrix_exp.h"

namespace torch_tpu::aten {
namespace {

constexpr std::array<double, 14> kPade13 = {
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0,   10559470521600.0,    670442572800.0,     33522128640.0,
    1323241920.0,        40840800.0,          960960.0,           16380.0,
    182.0,               1.0};
constexpr std::array<double, 8> kPade7 = {17297280.0, 8648640.0, 1995840.0, 277200.0,
                                          25200.0,    1512.0,    56.0,      1.0};
constexpr double kTheta13 = 5.371920351148152, kTheta7 = 3.925724783138660;

// The [m/m] Padé approximant of exp(A) for a matrix A with |A|_1 <= theta.
at::Tensor pade(const at::Tensor& A, bool double_precision) {
  const at::Tensor I = at::eye(A.size(-1), A.options()).expand_as(A);
  const at::Tensor A2 = at::matmul(A, A), A4 = at::matmul(A2, A2), A6 = at::matmul(A4, A2);
  at::Tensor U, V;
  if (double_precision) {
    const auto& b = kPade13;
    U = at::matmul(A, at::matmul(A6, b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 +
                          b[3] * A2 + b[1] * I);
    V = at::matmul(A6, b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * I;
  } else {
    const auto& b = kPade7;
    U = at::matmul(A, b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * I);
    V = b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * I;
  }
  return at::linalg_solve(V - U, V + U);
}

}  // namespace

at::Tensor linalg_matrix_exp(const at::Tensor& self) {
  at::native::squareCheckInputs(self, "linalg.matrix_exp");
  at::native::checkFloatingOrComplex(self, "linalg.matrix_exp");
  const int64_t n = self.size(-1);
  if (n == 0) return self.clone();
  if (n == 1) return at::exp(self);

  const at::ScalarType dtype = self.scalar_type();
  const bool reduced = dtype == at::kHalf || dtype == at::kBFloat16;
  const at::Tensor A = reduced ? self.to(at::kFloat) : self.resolve_conj().resolve_neg();
  const bool dbl = A.scalar_type() == at::kDouble || A.scalar_type() == at::kComplexDouble;

  // Halvings per matrix (0 for non-finite norms: the result is NaN anyway).
  const at::Tensor norm = at::amax(at::sum(at::abs(A), -2), -1);
  at::Tensor s = at::clamp_min(at::ceil(at::log2(norm / (dbl ? kTheta13 : kTheta7))), 0);
  s = at::where(at::isfinite(s), s, at::zeros_like(s));
  const int64_t rounds = static_cast<int64_t>(at::amax(s.reshape({-1}), 0).item<double>());
  const at::Tensor scale = at::pow(2.0, s).unsqueeze(-1).unsqueeze(-1).to(A.scalar_type());

  at::Tensor R = pade(A / scale, dbl);
  for (int64_t k = 0; k < rounds; ++k) {
    const at::Tensor squared = at::matmul(R, R);
    R = A.dim() == 2 ? squared : at::where((s > k).unsqueeze(-1).unsqueeze(-1), squared, R);
  }
  return reduced ? R.to(dtype) : R;
}

}  // namespace torch_tpu::aten
