// Reduction and scan stubs (stub_kernels.h): a reduction TensorIterator (or
// the tensors max_stub/min_stub/max_all_stub/cumsum_stub receive) becomes a
// kernels::ReduceDesc (shape, per-operand byte strides, output strides 0
// along the reduced dims), launched on the current stream. Host side only:
// reads no device memory.
#include <ATen/MemoryOverlap.h>
#include <ATen/native/ReduceAllOps.h>
#include <ATen/native/ReduceOps.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/TensorCompare.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "aten/launch.h"
#include "generated/ops/mean_dim.h"
#include "generated/stub_kernels.h"
#include "kernels/reduce/reduce.h"

namespace torch_tpu::aten {

using kernels::ReduceOp;


namespace {

kernels::ReduceOperand operand(void* data, at::ScalarType type, at::IntArrayRef strides, const char* name) {
  kernels::ReduceOperand o;
  o.data = data;
  o.dtype = device_dtype(type, name, Complex32::kTaken);  // check_supported decides per op (sum, prod take it)
  o.strides.assign(strides.begin(), strides.end());
  return o;
}

void check_supported(ReduceOp op, const kernels::ReduceDesc& d, at::ScalarType in, const char* name) {
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::reduce_supports(op, d.input.dtype, d.outputs[0].dtype), "\"", name,
                              "\" not implemented for '", c10::toString(in), "' on tpu");
}

void enqueue(c10::DeviceIndex device, kernels::ReduceDesc d) {
  std::vector<const void*> buffers{d.input.data};
  for (const kernels::ReduceOperand& o : d.outputs) buffers.push_back(o.data);
  const char* name = kernels::reduce_op_name(d.op);
  launch(device, name, std::move(buffers), [d = std::move(d)] { kernels::reduce(d); });
}

void check_on_tpu(const at::TensorBase& t, const char* name) {
  TORCH_CHECK(t.device().type() == c10::DeviceType::PrivateUse1, name, ": expected all tensors on tpu, got ",
              t.device());
}

// The iterator's outputs first, then its one input.
kernels::ReduceDesc describe_reduction(const at::TensorIteratorBase& iter, ReduceOp op, const char* name) {
  TORCH_INTERNAL_ASSERT(iter.noutputs() >= 1 && iter.noutputs() <= 2, name, ": expected one or two outputs");
  TORCH_INTERNAL_ASSERT(iter.ntensors() == iter.noutputs() + 1, name, ": expected one input");
  kernels::ReduceDesc d;
  d.op = op;
  d.shape.assign(iter.shape().begin(), iter.shape().end());
  const int no = static_cast<int>(iter.noutputs());
  for (int i = 0; i <= no; ++i) {
    TORCH_CHECK(iter.device(i).type() == c10::DeviceType::PrivateUse1, name,
                ": expected all tensors on tpu, but operand ", i, " is on ", iter.device(i));
  }
  for (int i = 0; i < no; ++i) d.outputs.push_back(operand(iter.data_ptr(i), iter.dtype(i), iter.strides(i), name));
  d.input = operand(iter.data_ptr(no), iter.dtype(no), iter.strides(no), name);
  check_supported(op, d, iter.dtype(no), name);
  return d;
}

void launch_reduction(at::TensorIteratorBase& iter, ReduceOp op, const char* name) {
  if (iter.numel() == 0 && iter.num_output_elements() == 0) return;
  kernels::ReduceDesc d = describe_reduction(iter, op, name);
  enqueue(iter.device(0).index(), std::move(d));
}

// max_stub/min_stub: values and indices of `self` reduced along `dim`
// (keepdim or not), first index of the extreme.
void minmax_dim(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                bool keepdim, ReduceOp op, const char* name) {
  check_on_tpu(self, name);
  check_on_tpu(values, name);
  check_on_tpu(indices, name);
  const int64_t nd = self.dim();
  dim = c10::maybe_wrap_dim(dim, nd);
  if (self.numel() == 0) return;
  auto out_strides = [&](const at::Tensor& t) {
    std::vector<int64_t> s(nd);
    const int64_t es = static_cast<int64_t>(t.element_size());
    for (int64_t i = 0, j = 0; i < nd; ++i) {
      if (i == dim) {
        s[i] = 0;
        if (keepdim) ++j;
        continue;
      }
      s[i] = t.dim() == 0 ? 0 : t.stride(j) * es;
      ++j;
    }
    return std::vector<int64_t>(s.rbegin(), s.rend());
  };
  kernels::ReduceDesc d;
  d.op = op;
  d.shape.assign(self.sizes().rbegin(), self.sizes().rend());
  std::vector<int64_t> in_strides(nd);
  for (int64_t i = 0; i < nd; ++i) in_strides[i] = self.stride(i) * static_cast<int64_t>(self.element_size());
  d.input = operand(const_cast<void*>(self.const_data_ptr()), self.scalar_type(),
                    std::vector<int64_t>(in_strides.rbegin(), in_strides.rend()), name);
  d.outputs.push_back(operand(values.data_ptr(), values.scalar_type(), out_strides(values), name));
  d.outputs.push_back(operand(indices.data_ptr(), indices.scalar_type(), out_strides(indices), name));
  TORCH_CHECK(indices.scalar_type() == at::kLong, name, ": expected int64 indices");
  check_supported(op, d, self.scalar_type(), name);
  enqueue(self.device().index(), std::move(d));
}

// max_all_stub/min_all_stub: `self` is contiguous, `result` 0-dim.
void minmax_all(at::Tensor& result, const at::Tensor& self, ReduceOp op, const char* name) {
  check_on_tpu(self, name);
  check_on_tpu(result, name);
  TORCH_INTERNAL_ASSERT(self.is_contiguous() && result.numel() == 1);
  if (self.numel() == 0) return;
  kernels::ReduceDesc d;
  d.op = op;
  d.shape = {self.numel()};
  d.input = operand(const_cast<void*>(self.const_data_ptr()), self.scalar_type(),
                    std::vector<int64_t>{static_cast<int64_t>(self.element_size())}, name);
  d.outputs.push_back(operand(result.data_ptr(), result.scalar_type(), std::vector<int64_t>{0}, name));
  check_supported(op, d, self.scalar_type(), name);
  enqueue(self.device().index(), std::move(d));
}

void scan(const at::Tensor& result, const at::Tensor& self, int64_t dim, kernels::ScanOp op, const char* name) {
  check_on_tpu(self, name);
  check_on_tpu(result, name);
  TORCH_CHECK(self.scalar_type() == result.scalar_type(), name, ": expected the input cast to the result dtype");
  // CPU's scan kernel runs a TensorIterator with its overlap checks; a full
  // alias (cumsum_) is fine, a shifted one would read what it wrote.
  at::assert_no_internal_overlap(result);
  at::assert_no_partial_overlap(result, self);
  if (self.numel() == 0) return;
  kernels::TensorDesc out = describe(result, name), in = describe(self, name);
  if (in.sizes.empty()) {  // 0-dim: one element
    in.sizes = out.sizes = {1};
    in.strides = out.strides = {1};
  }
  dim = c10::maybe_wrap_dim(dim, static_cast<int64_t>(in.sizes.size()));
  launch(self.device().index(), op == kernels::ScanOp::kCumSum ? "cumsum" : "cumprod", {in.data, out.data},
         [out = std::move(out), in = std::move(in), dim, op] { kernels::scan(op, out, in, dim); });
}

}  // namespace

void sum_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kSum, "sum_stub"); }
void prod_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kProd, "prod_stub"); }
void and_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kAll, "and_stub"); }
void or_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kAny, "or_stub"); }
void xor_sum_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kXorSum, "xor_sum_stub"); }
void max_values_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kMax, "max_values_stub"); }
void min_values_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kMin, "min_values_stub"); }
void argmax_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kArgMax, "argmax_stub"); }
void argmin_kernel(at::TensorIterator& iter) { launch_reduction(iter, ReduceOp::kArgMin, "argmin_stub"); }

// mean.dim / mean.out: ATen's mean_out for a non-CPU device, behind the
// check CPU makes first (its sum_out refuses an out the input's type cannot
// be cast to, with a RuntimeError) so nothing is launched for a bad out.
void mean_out(const at::Tensor& self, at::OptionalIntArrayRef dim, bool keepdim,
              std::optional<at::ScalarType> dtype, const at::Tensor& out) {
  const at::ScalarType from = dtype.value_or(self.scalar_type());
  TORCH_CHECK(at::canCast(from, out.scalar_type()), "result type ", from,
              " can't be cast to the desired output type ", out.scalar_type());
  at::TensorIterator iter = at::meta::make_reduction_from_out_ty(self, out, dim, keepdim, out.scalar_type());
  if (iter.numel() == 0) {
    out.fill_(std::numeric_limits<double>::quiet_NaN());
    return;
  }
  launch_reduction(iter, ReduceOp::kMean, "mean");
}

void std_var_kernel(at::TensorIterator& iter, double correction, bool take_sqrt) {
  if (iter.numel() == 0 && iter.num_output_elements() == 0) return;
  kernels::ReduceDesc d = describe_reduction(iter, ReduceOp::kVar, "std_var_stub");
  d.correction = correction;
  d.take_sqrt = take_sqrt;
  enqueue(iter.device(0).index(), std::move(d));
}

void norm_kernel(at::TensorIterator& iter, const c10::Scalar& p) {
  if (iter.numel() == 0) {
    // ATen leaves empty reductions to the stub (CPU's kernel fills them):
    // the norm of nothing is 0, or inf for a negative order.
    iter.output().fill_(p.toDouble() < 0 ? INFINITY : 0.0);
    return;
  }
  kernels::ReduceDesc d = describe_reduction(iter, ReduceOp::kNorm, "norm_stub");
  d.p = p.toDouble();
  enqueue(iter.device(0).index(), std::move(d));
}

void max_kernel(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                bool keepdim) {
  minmax_dim(values, indices, self, dim, keepdim, ReduceOp::kMax, "max_stub");
}
void min_kernel(const at::Tensor& values, const at::Tensor& indices, const at::Tensor& self, int64_t dim,
                bool keepdim) {
  minmax_dim(values, indices, self, dim, keepdim, ReduceOp::kMin, "min_stub");
}
void max_all_kernel(at::Tensor& result, const at::Tensor& self) {
  minmax_all(result, self, ReduceOp::kMax, "max_all_stub");
}
void min_all_kernel(at::Tensor& result, const at::Tensor& self) {
  minmax_all(result, self, ReduceOp::kMin, "min_all_stub");
}

void cumsum_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim) {
  scan(result, self, dim, kernels::ScanOp::kCumSum, "cumsum_stub");
}
void cumprod_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim) {
  scan(result, self, dim, kernels::ScanOp::kCumProd, "cumprod_stub");
}

}  // namespace torch_tpu::aten
