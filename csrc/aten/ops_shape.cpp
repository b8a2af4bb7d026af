// Shape ops and range factories ATen implements for CPU only ("direct"
// route): cat.out, tril.out/triu.out (ATen's structured meta() checks and
// sizes the output, as for CPU; our kernels fill it), arange.start_out and
// linspace.out (CPU's size computation and checks, RangeUtils.h). The
// functional and in-place forms reach these through ATen's
// CompositeExplicitAutogradNonFunctional kernels (cat, tril, tril_, ...) or
// CompositeExplicitAutograd ones (arange, linspace, stack).
#include <ATen/AccumulateType.h>
#include <ATen/Dispatch.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/RangeUtils.h>
#include <ATen/core/ATen_fwd.h>
#include <ATen/core/IListRef.h>
#include <ATen/ops/cat_meta.h>
#include <ATen/ops/tril_meta.h>
#include <ATen/ops/triu_meta.h>
#include <c10/core/DeviceGuard.h>

#include <vector>

#include "aten/index_glue.h"
#include "aten/launch.h"
#include "aten/structured_wrappers.h"
#include "generated/aten_ops.h"
#include "kernels/copy.h"
#include "kernels/shape.h"

namespace torch_tpu::aten {

// ---- cat ------------------------------------------------------------------------

at::Tensor& cat_out(const at::ITensorListRef& tensors, int64_t dim, at::Tensor& out) {
  structured::Out<at::meta::structured_cat> op(out);
  auto pre = op.meta(tensors, dim);
  const at::Tensor& result = op.output(0);
  if (result.numel() == 0) {
    op.finish();
    return out;
  }
  // CPU's impl checks: the output overlaps no input.
  at::assert_no_internal_overlap(result);
  std::vector<std::pair<kernels::TensorDesc, kernels::TensorDesc>> pieces;
  std::vector<const void*> buffers;
  kernels::TensorDesc r = describe(result, "cat");
  buffers.push_back(r.data);
  int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    // ATen skips legacy empty inputs (1-D, zero elements) of any shape.
    if (t.dim() == 1 && t.numel() == 0) continue;
    TORCH_CHECK(t.device() == result.device(), "Expected all tensors to be on the same device, but found at least "
                "two devices, ", result.device(), " and ", t.device(), "!");
    at::assert_no_overlap(result, t);
    const int64_t n = t.size(pre.dim);
    if (n > 0 && t.numel() > 0) {
      kernels::TensorDesc dst = r;
      dst.sizes[pre.dim] = n;
      dst.data = static_cast<char*>(r.data) +
                 offset * r.strides[pre.dim] * static_cast<int64_t>(kernels::dtype_size(r.dtype));
      kernels::TensorDesc src = describe(t, "cat");
      buffers.push_back(src.data);
      pieces.emplace_back(std::move(dst), std::move(src));
    }
    offset += n;
  }
  if (!pieces.empty()) {
    c10::DeviceGuard guard(result.device());
    launch(result.device().index(), "cat", std::move(buffers), [pieces = std::move(pieces)] {
      for (const auto& [dst, src] : pieces) kernels::copy_strided(dst, src);
    });
  }
  op.finish();
  return out;
}

// ---- tril / triu --------------------------------------------------------------------

namespace {

template <class Meta>
at::Tensor& triangle_out(const at::Tensor& self, int64_t diagonal, at::Tensor& out, bool lower, const char* name) {
  structured::Out<Meta> op(out);
  op.meta(self, diagonal);
  const at::Tensor& result = op.output(0);
  if (self.numel() > 0) {
    TORCH_CHECK(self.device() == result.device(), name, ": expected self and out on the same device");
    at::assert_no_internal_overlap(result);  // CPU's check (its kernel's TensorIterator)
    // A partial overlap of out and self would read overwritten elements.
    if (!(result.is_same(self) || (result.data_ptr() == self.data_ptr() && result.strides() == self.strides()))) {
      at::assert_no_overlap(result, self);
    }
    kernels::TensorDesc o = describe(result, name);
    kernels::TensorDesc s = describe(self, name);
    c10::DeviceGuard guard(result.device());
    std::vector<const void*> buffers{o.data, s.data};
    launch(result.device().index(), name, std::move(buffers),
           [o = std::move(o), s = std::move(s), diagonal, lower] { kernels::triangle(o, s, diagonal, lower); });
  }
  op.finish();
  return out;
}

}  // namespace

at::Tensor& tril_out(const at::Tensor& self, int64_t diagonal, at::Tensor& out) {
  return triangle_out<at::meta::structured_tril>(self, diagonal, out, true, "tril");
}

at::Tensor& triu_out(const at::Tensor& self, int64_t diagonal, at::Tensor& out) {
  return triangle_out<at::meta::structured_triu>(self, diagonal, out, false, "triu");
}

// ---- arange / linspace ----------------------------------------------------------------

at::Tensor& arange_start_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step, at::Tensor& out) {
  kernels::RangeScalar s0, s1;
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, out.scalar_type(), "arange_tpu", [&]() {
    const int64_t size = at::native::compute_arange_size<scalar_t>(start, end, step);
    const int64_t numel = out.numel();
    if (numel != size) {
      if (numel > 0) {
        TORCH_WARN("The number of elements in the out tensor of shape ", out.sizes(), " is ", numel,
                   " which does not match the computed number of elements ", size,
                   ". Note that this may occur as a result of rounding error. "
                   "The out tensor will be resized to a tensor of shape (", size, ",).");
      }
      out.resize_({size});
    }
    using accscalar_t = at::acc_type<scalar_t, false>;
    if constexpr (std::is_integral_v<accscalar_t>) {
      s0.i = start.to<accscalar_t>();
      s1.i = step.to<accscalar_t>();
    } else {
      s0.d = static_cast<double>(start.to<accscalar_t>());
      s1.d = static_cast<double>(step.to<accscalar_t>());
    }
  });
  if (out.numel() == 0) return out;
  at::assert_no_internal_overlap(out);  // CPU's check (its kernel's TensorIterator)
  kernels::TensorDesc o = describe_nd(out, "arange", 1);
  c10::DeviceGuard guard(out.device());
  std::vector<const void*> buffers{o.data};
  launch(out.device().index(), "arange", std::move(buffers), [o = std::move(o), s0, s1] { kernels::arange(o, s0, s1); });
  return out;
}

at::Tensor& linspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (out.numel() != steps) out.resize_({steps});
  if (steps == 0) return out;
  at::assert_no_internal_overlap(out);  // CPU's check (its kernel's TensorIterator)
  if (steps == 1) {
    out.fill_(start);
    return out;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(!at::isComplexType(out.scalar_type()) && out.scalar_type() != at::kBool,
                              "\"linspace\" not implemented for '", c10::toString(out.scalar_type()), "' on tpu");
  kernels::TensorDesc o = describe_nd(out, "linspace", 1);
  const double s = start.to<double>(), e = end.to<double>();
  c10::DeviceGuard guard(out.device());
  std::vector<const void*> buffers{o.data};
  launch(out.device().index(), "linspace", std::move(buffers),
         [o = std::move(o), s, e, steps] { kernels::linspace(o, s, e, steps); });
  return out;
}

}  // namespace torch_tpu::aten
