// torch.linalg.lstsq (direct: linalg_lstsq.out). ATen's linalg_lstsq_out
// (BatchLinearAlgebra.cpp) lets a device other than the CPU name only the
// gels driver, with a message about CUDA; tpu has the device LAPACK's gelsy,
// gelsd and gelss too, so it takes the CPU's rules instead: gelsy by default,
// any of gels/gelsy/gelsd/gelss by name (in any case), CPU's message for
// another name. The rest is ATen's: its checks and messages, its handling of
// the out= tensors (used in place when they have the layout LAPACK writes,
// else temporaries copied into them), each driver's outputs (rank but for
// gels; singular values for gelsd/gelss; residuals when m > n, not for
// gelsy, and for gelsd/gelss only when every matrix has rank n: one
// synchronisation), and the infos reported as LinAlgError.
#include <ATen/native/LinearAlgebraUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/_linalg_check_errors.h>
#include <ATen/ops/all.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/real.h>
#include <ATen/ops/sum.h>
#include <ATen/ops/zeros.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <tuple>
#include <vector>

#include "aten/native/linalg/lapack_operands.h"
#include "generated/ops/linalg_lstsq_out.h"

namespace torch_tpu::aten {
namespace {

using namespace lapack_operands;
using Driver = kernels::solvers::LstsqDriver;

// CPU's get_default_lstsq_driver.
Driver lstsq_driver(std::optional<c10::string_view> driver) {
  if (!driver.has_value()) return Driver::kGelsy;
  std::string name(driver->begin(), driver->end());
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  if (name == "gels") return Driver::kGels;
  if (name == "gelsy") return Driver::kGelsy;
  if (name == "gelsd") return Driver::kGelsd;
  TORCH_CHECK(name == "gelss", "torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  return Driver::kGelss;
}

bool has_singular_values(Driver d) { return d == Driver::kGelsd || d == Driver::kGelss; }

// The LAPACK calls (ATen's lstsq_stub): A (column-major, its own batch) is
// copied for each call; b is the solution buffer (broadcast batch, max(m, n)
// rows, B in the first m), solved in place.
void lstsq_device(const at::Tensor& A, const at::Tensor& B, const at::Tensor& rank, const at::Tensor& singular_values,
                  const at::Tensor& infos, double rcond, Driver driver) {
  if (batch_count(B) == 0) return;
  const Operand a = column_major(A, false), b = column_major(B, true), info = dense(infos, true);
  const Operand r = driver != Driver::kGels ? dense(rank, true) : Operand{};
  const Operand s = has_singular_values(driver) ? dense(singular_values, true) : Operand{};
  const auto am = matrices(a, "linalg.lstsq"), bm = matrices(b, "linalg.lstsq");
  std::vector<int64_t> a_index = broadcast_index(A, B, bm.count);
  const auto iv = vectors(info, true);
  int64_t* rank_ptr = r.work.defined() && r.work.numel() > 0 ? r.work.data_ptr<int64_t>() : nullptr;
  const sv::VectorBatch sv_batch =
      s.work.defined() && s.work.numel() > 0 ? vectors(s) : sv::VectorBatch{};
  auto body = [=, a_index = std::move(a_index)] {
    sv::lstsq(am, bm, a_index, rank_ptr, sv_batch, iv, rcond, driver);
  };
  if (r.work.defined() && s.work.defined()) run("lapack_lstsq", {&b, &a, &info, &r, &s}, std::move(body));
  else if (r.work.defined()) run("lapack_lstsq", {&b, &a, &info, &r}, std::move(body));
  else run("lapack_lstsq", {&b, &a, &info}, std::move(body));
}

// ATen's linalg_lstsq_out_info: sizes the empty outputs as LAPACK writes
// them, solves, computes the residuals, and leaves `solution` the first n
// rows of its buffer (the vector case without its last dim).
void lstsq_out_info(at::Tensor& solution, at::Tensor& residuals, at::Tensor& rank, at::Tensor& singular_values,
                    const at::Tensor& infos, const at::Tensor& input, const at::Tensor& other, double rcond,
                    Driver driver) {
  const bool vector_case = at::native::linalg_solve_is_vector_rhs(input, other);
  const at::Tensor other_2d = vector_case ? other.unsqueeze(-1) : other;
  const int64_t m = input.size(-2), n = input.size(-1), nrhs = other.size(-1);
  std::vector<int64_t> expected = at::native::broadcast_batch_size(input, other_2d, input.dim() - 2);
  expected.push_back(std::max(m, n));
  if (!vector_case) expected.push_back(nrhs);
  if (solution.numel() == 0) {
    if (vector_case) {
      solution.resize_(expected, at::MemoryFormat::Contiguous);
    } else {
      std::vector<int64_t> transposed = expected;
      std::swap(transposed.end()[-1], transposed.end()[-2]);
      solution.resize_(transposed, at::MemoryFormat::Contiguous);
      solution.transpose_(-2, -1);
    }
  }
  TORCH_INTERNAL_ASSERT(solution.sizes().equals(expected));
  at::Tensor buffer = vector_case ? solution.unsqueeze(-1) : solution;
  buffer.narrow(-2, 0, other_2d.size(-2)).copy_(other_2d);

  const at::IntArrayRef batch(input.sizes().data(), input.dim() - 2);
  if (rank.numel() == 0 && driver != Driver::kGels) rank.resize_(batch, at::MemoryFormat::Contiguous);
  std::vector<int64_t> sv_shape = batch.vec();
  sv_shape.push_back(std::min(m, n));
  if (singular_values.numel() == 0 && has_singular_values(driver))
    singular_values.resize_(sv_shape, at::MemoryFormat::Contiguous);

  lstsq_device(at::native::copyBatchedColumnMajor(input), buffer, rank, singular_values, infos, rcond, driver);

  if (m > n && driver != Driver::kGelsy) {
    bool compute_residuals = true;
    if (has_singular_values(driver)) {
      compute_residuals = input.dim() == 2 ? rank.item().toInt() == n : at::all(rank == n).item().toBool();
    }
    if (compute_residuals) {
      at::Tensor raw = buffer.narrow(-2, n, m - n);
      if (raw.is_complex()) {
        raw.mul_(raw.conj());
        raw = at::real(raw);
      } else {
        raw.pow_(2);
      }
      at::sum_out(residuals, raw, /*dim=*/-2, /*keepdim=*/false, c10::toRealValueType(input.scalar_type()));
    }
  }
  at::Tensor result = buffer.narrow(-2, 0, n);
  if (m == 0) result.zero_();
  if (vector_case) result = result.squeeze(-1);
  solution.set_(result.storage(), result.storage_offset(), result.sizes(), result.strides());
}

}  // namespace

// The precheck (ops.yaml): for a dtype the device LAPACK has no routines
// for, ATen's linalg_lstsq_out checks, in its order, up to where it stops
// for such a dtype (the default rcond is that dtype's epsilon; with an rcond
// given it reaches its kernel, which has none: the generated
// NotImplementedError). For other dtypes linalg_lstsq_out makes them all.
void lstsq_check(const at::Tensor& self, const at::Tensor& b, std::optional<double> rcond,
                 std::optional<c10::string_view> driver) {
  const auto lapack = [](at::ScalarType t) {
    return t == at::kFloat || t == at::kDouble || t == at::kComplexFloat || t == at::kComplexDouble;
  };
  if (lapack(self.scalar_type()) && lapack(b.scalar_type())) return;
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
  lstsq_driver(driver);  // CPU's rule and message for the name
  // at::native::_get_epsilon of a dtype other than float and double
  TORCH_CHECK(rcond.has_value(), "This function doesn't handle types other than float and double");
}

std::tuple<at::Tensor&, at::Tensor&, at::Tensor&, at::Tensor&> linalg_lstsq_out(
    const at::Tensor& self, const at::Tensor& b, std::optional<double> rcond, std::optional<c10::string_view> driver,
    at::Tensor& solution, at::Tensor& residuals, at::Tensor& rank, at::Tensor& singular_values) {
  const at::Tensor& input = self;
  const at::Tensor& other = b;
  TORCH_CHECK(input.dim() >= 2, "torch.linalg.lstsq: input must have at least 2 dimensions.");
  TORCH_CHECK(other.dim() >= 1, "torch.linalg.lstsq: other must have at least 1 dimension.");
  TORCH_CHECK(input.scalar_type() == other.scalar_type(),
              "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype ",
              input.scalar_type(), " and other's dtype ", other.scalar_type());
  const int64_t dim_diff = input.dim() - other.dim();
  TORCH_CHECK(0 <= dim_diff && dim_diff <= 1,
              "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
  const at::Tensor other_2d = dim_diff ? other.unsqueeze(-1) : other;
  TORCH_CHECK(input.size(-2) == other_2d.size(-2),
              dim_diff ? "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
                       : "torch.linalg.lstsq: input.size(-2) should match other.size(-2)");
  at::native::checkSameDevice("torch.linalg.lstsq", other, input, "other");
  at::native::checkSameDevice("torch.linalg.lstsq", solution, input, "solution");
  at::native::checkSameDevice("torch.linalg.lstsq", residuals, input, "residuals");
  at::native::checkSameDevice("torch.linalg.lstsq", rank, input, "rank");
  at::native::checkSameDevice("torch.linalg.lstsq", singular_values, input, "singular_values");
  at::native::checkLinalgCompatibleDtype("torch.linalg.lstsq", solution, input, "solution");
  const at::ScalarType real_dtype = c10::toRealValueType(input.scalar_type());
  at::native::checkLinalgCompatibleDtype("torch.linalg.lstsq", residuals.scalar_type(), real_dtype, "solution");
  at::native::checkLinalgCompatibleDtype("torch.linalg.lstsq", rank.scalar_type(), at::kLong, "rank");
  at::native::checkLinalgCompatibleDtype("torch.linalg.lstsq", singular_values.scalar_type(), real_dtype,
                                         "singular_values");
  const Driver drv = lstsq_driver(driver);
  const double rcond_value =
      rcond.has_value() ? *rcond : at::native::_get_epsilon(real_dtype) * std::max(input.size(-2), input.size(-1));
  const at::Tensor infos =
      at::zeros({std::max<int64_t>(1, at::native::batchCount(input))}, input.options().dtype(at::kInt));

  // The out= tensors are used as they are when they have LAPACK's layout.
  const bool vector_case = at::native::linalg_solve_is_vector_rhs(input, other);
  std::vector<int64_t> expected = at::native::broadcast_batch_size(input, other_2d, input.dim() - 2);
  expected.push_back(std::max(input.size(-1), input.size(-2)));
  if (!vector_case && other.dim() > 2) expected.push_back(other.size(-1));
  const bool column_major_solution =
      vector_case ? solution.is_contiguous() : solution.dim() >= 2 && solution.mT().is_contiguous();
  const at::IntArrayRef batch(input.sizes().data(), input.dim() - 2);
  bool copy_needed = solution.numel() != 0 && !column_major_solution;
  copy_needed |= solution.scalar_type() != input.scalar_type();
  copy_needed |= solution.numel() != 0 && !solution.sizes().equals(expected);
  if (drv != Driver::kGels) {
    copy_needed |= rank.scalar_type() != at::kLong;
    copy_needed |= rank.numel() != 0 && (!rank.sizes().equals(batch) || !rank.is_contiguous());
  }
  if (has_singular_values(drv)) {
    std::vector<int64_t> sv_shape = batch.vec();
    sv_shape.push_back(std::min(input.size(-1), input.size(-2)));
    copy_needed |= singular_values.scalar_type() != real_dtype;
    copy_needed |= singular_values.numel() != 0 &&
                   (!singular_values.sizes().equals(sv_shape) || !singular_values.is_contiguous());
  }

  if (copy_needed) {
    at::Tensor solution_tmp = at::empty({0}, input.options());
    at::Tensor residuals_tmp = at::empty({0}, input.options().dtype(real_dtype));
    at::Tensor rank_tmp = at::empty({0}, input.options().dtype(at::kLong));
    at::Tensor singular_values_tmp = at::empty({0}, input.options().dtype(real_dtype));
    lstsq_out_info(solution_tmp, residuals_tmp, rank_tmp, singular_values_tmp, infos, input, other, rcond_value, drv);
    at::native::resize_output(solution, solution_tmp.sizes());
    solution.copy_(solution_tmp);
    at::native::resize_output(residuals, residuals_tmp.sizes());
    residuals.copy_(residuals_tmp);
    at::native::resize_output(rank, rank_tmp.sizes());
    rank.copy_(rank_tmp);
    at::native::resize_output(singular_values, singular_values_tmp.sizes());
    singular_values.copy_(singular_values_tmp);
  } else {
    lstsq_out_info(solution, residuals, rank, singular_values, infos, input, other, rcond_value, drv);
  }
  at::_linalg_check_errors(infos, "torch.linalg.lstsq", infos.numel() <= 1);
  return {solution, residuals, rank, singular_values};
}

}  // namespace torch_tpu::aten
