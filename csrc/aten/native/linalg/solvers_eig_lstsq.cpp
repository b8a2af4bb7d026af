// DispatchStub kernels for general matrices on the device LAPACK
// (kernels/linalg/solvers_eig_lstsq.cpp): linalg.eig / eigvals (geev, and
// the complex eigenvectors of a real matrix) and linalg.lstsq (gels,
// gelsy). ATen's ops check the arguments, allocate the outputs and report
// the infos; for a device other than CPU and CUDA, linalg_lstsq's driver is
// gelsy by default and only gels may be asked for.
#include <algorithm>
#include <cctype>
#include <string>

#include "aten/native/linalg/lapack_operands.h"
#include "generated/ops/linalg_lstsq_out.h"
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

namespace {

bool lapack_dtype(at::ScalarType t) {
  return t == at::kFloat || t == at::kDouble || t == at::kComplexFloat || t == at::kComplexDouble;
}

}  // namespace

// The precheck (ops.yaml): for a dtype the device LAPACK has no routines
// for, ATen's linalg_lstsq_out checks, in its order, up to where it stops
// for such a dtype (the default rcond is that dtype's epsilon; with an rcond
// given it reaches its kernel, which has none: the generated
// NotImplementedError). For other dtypes ATen makes them all itself.
void lstsq_check(const at::Tensor& self, const at::Tensor& b, std::optional<double> rcond,
                 std::optional<c10::string_view> driver) {
  if (lapack_dtype(self.scalar_type()) && lapack_dtype(b.scalar_type())) return;
  const char* name = "torch.linalg.lstsq";
  TORCH_CHECK(self.dim() >= 2, name, ": input must have at least 2 dimensions.");
  TORCH_CHECK(b.dim() >= 1, name, ": other must have at least 1 dimension.");
  TORCH_CHECK(self.scalar_type() == b.scalar_type(), name,
              ": Expected input and other to have the same dtype, but got input's dtype ", self.scalar_type(),
              " and other's dtype ", b.scalar_type());
  const int64_t dim_diff = self.dim() - b.dim();
  TORCH_CHECK(0 <= dim_diff && dim_diff <= 1, name,
              ": input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
  const int64_t rows = dim_diff ? b.size(-1) : b.size(-2);
  TORCH_CHECK(self.size(-2) == rows, dim_diff ? "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
                                              : "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  if (driver.has_value()) {  // get_default_lstsq_driver, for a device other than the CPU
    std::string d(*driver);
    std::transform(d.begin(), d.end(), d.begin(), [](unsigned char c) { return std::tolower(c); });
    TORCH_CHECK(d == "gels", name, ": `driver` other than `gels` is not supported on CUDA");
  }
  // at::native::_get_epsilon of a dtype other than float and double
  TORCH_CHECK(rcond.has_value(), "This function doesn't handle types other than float and double");
}

// ATen's linalg_lstsq_out_info: a is A's F-contiguous copy (A's own batch),
// b the solution buffer (broadcast batch, max(m, n) rows, B in the first m),
// rank int64 per A matrix (gelsy), singular_values unused (gelsd/gelss only,
// which ATen never passes for this device).
void lapack_lstsq_kernel(const at::Tensor& A, at::Tensor& B, at::Tensor& rank, at::Tensor& singular_values,
                         at::Tensor& infos, double rcond, std::string driver) {
  TORCH_CHECK(driver == "gels" || driver == "gelsy", "torch.linalg.lstsq: driver ", driver,
              " is not implemented on tpu (gels and gelsy are)");
  const bool gelsy = driver == "gelsy";
  if (gelsy && rank.numel() > 0 && (A.numel() == 0 || B.numel() == 0)) rank.zero_();
  if (A.numel() == 0 || B.numel() == 0) return;
  const Operand a = column_major(A, false), b = column_major(B, true), info = dense(infos, true);
  const Operand r = gelsy && rank.numel() > 0 ? dense(rank, true) : Operand{};
  const auto am = matrices(a, "linalg.lstsq"), bm = matrices(b, "linalg.lstsq");
  std::vector<int64_t> a_index = broadcast_index(A, B, bm.count);
  const auto iv = vectors(info, true);
  int64_t* rank_ptr = r.work.defined() ? r.work.data_ptr<int64_t>() : nullptr;
  auto body = [=, a_index = std::move(a_index)] { sv::lstsq(am, bm, a_index, rank_ptr, iv, rcond, gelsy); };
  if (rank_ptr != nullptr) run("lapack_gelsy", {&b, &a, &info, &r}, std::move(body));
  else run(gelsy ? "lapack_gelsy" : "lapack_gels", {&b, &a, &info}, std::move(body));
}

}  // namespace torch_tpu::aten
