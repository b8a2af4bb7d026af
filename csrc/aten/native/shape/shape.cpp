// Shape ops and range factories ATen implements for CPU only ("direct"
// route): cat, tril/triu (structured impls: the generated wrappers run ATen's
// structured meta(), which checks and sizes the output as for CPU; our
// kernels fill it), arange.start_out, linspace.out and logspace.out (CPU's
// size computation and checks, RangeUtils.h; the functional and Tensor
// forms reach these through ATen's CompositeExplicitAutograd kernels).
#include <ATen/AccumulateType.h>
#include <ATen/Dispatch.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/native/RangeUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/core/ATen_fwd.h>
#include <ATen/core/IListRef.h>

#include <cmath>
#include <type_traits>
#include <vector>

#include "aten/native/index/glue.h"
#include "aten/launch.h"
#include "generated/ops/arange_start_out.h"
#include "generated/ops/cat.h"
#include "generated/ops/linspace_out.h"
#include "generated/ops/logspace_out.h"
#include "generated/ops/range_out.h"
#include "generated/ops/tril.h"
#include "generated/ops/triu.h"
#include "kernels/copy/copy.h"
#include "kernels/shape/shape.h"

namespace torch_tpu::aten {

// ---- cat ------------------------------------------------------------------------

void cat_out(const at::ITensorListRef& tensors, int64_t dim, int64_t /*valid*/, bool /*all_contiguous*/,
             bool /*all_same_dtype*/, bool /*all_same_sizes_and_stride*/, at::MemoryFormat /*memory_format*/,
             const at::Tensor& result) {
  if (result.numel() == 0) return;
  // CPU's impl checks: the output overlaps no input.
  at::assert_no_internal_overlap(result);
  std::vector<std::pair<kernels::TensorDesc, kernels::TensorDesc>> pieces;
  std::vector<const void*> buffers;
  kernels::TensorDesc r = describe(result, "cat", Complex32::kTaken);  // copy_strided takes complex32
  buffers.push_back(r.data);
  int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    // ATen skips legacy empty inputs (1-D, zero elements) of any shape.
    if (t.dim() == 1 && t.numel() == 0) continue;
    TORCH_CHECK(t.device() == result.device(), "Expected all tensors to be on the same device, but found at least "
                "two devices, ", result.device(), " and ", t.device(), "!");
    at::assert_no_overlap(result, t);
    const int64_t n = t.size(dim);
    if (n > 0 && t.numel() > 0) {
      kernels::TensorDesc dst = r;
      dst.sizes[dim] = n;
      dst.data = static_cast<char*>(r.data) +
                 offset * r.strides[dim] * static_cast<int64_t>(kernels::dtype_size(r.dtype));
      kernels::TensorDesc src = describe(t, "cat", Complex32::kTaken);
      buffers.push_back(src.data);
      pieces.emplace_back(std::move(dst), std::move(src));
    }
    offset += n;
  }
  if (!pieces.empty()) {
    launch(result.device().index(), "cat", std::move(buffers), [pieces = std::move(pieces)] {
      for (const auto& [dst, src] : pieces) kernels::copy_strided(dst, src);
    });
  }
}

// ---- tril / triu --------------------------------------------------------------------

namespace {

void triangle_out(const at::Tensor& self, int64_t diagonal, const at::Tensor& result, bool lower, const char* name) {
  if (self.numel() > 0) {
    at::assert_no_internal_overlap(result);  // CPU's check (its kernel's TensorIterator)
    // A partial overlap of out and self would read overwritten elements.
    if (!(result.is_same(self) || (result.data_ptr() == self.data_ptr() && result.strides() == self.strides()))) {
      at::assert_no_overlap(result, self);
    }
    // triangle moves bits by element size: complex32 too.
    kernels::TensorDesc o = describe(result, name, Complex32::kTaken);
    kernels::TensorDesc s = describe(self, name, Complex32::kTaken);
    std::vector<const void*> buffers{o.data, s.data};
    launch(result.device().index(), name, std::move(buffers),
           [o = std::move(o), s = std::move(s), diagonal, lower] { kernels::triangle(o, s, diagonal, lower); });
  }
}

}  // namespace

void tril_out(const at::Tensor& self, int64_t diagonal, const at::Tensor& out) {
  triangle_out(self, diagonal, out, true, "tril");
}

void triu_out(const at::Tensor& self, int64_t diagonal, const at::Tensor& out) {
  triangle_out(self, diagonal, out, false, "triu");
}

// ---- arange / linspace ----------------------------------------------------------------

namespace {

// The kernels fill a 1-D out. An out of more dimensions whose size already
// matches is not resized (CPU's arange_out / linspace_out): CPU fills it in
// row-major order, through a contiguous copy when it is not contiguous, as
// here.
template <typename Fill>
void fill_row_major(const at::Tensor& out, const char* name, Fill&& fill) {
  if (out.dim() <= 1) {
    fill(describe_nd(out, name, 1));
    return;
  }
  const at::Tensor flat = out.is_contiguous() ? out.view({-1}) : at::empty({out.numel()}, out.options());
  fill(describe_nd(flat, name, 1));
  if (!out.is_contiguous()) out.copy_(flat.view(out.sizes()));
}

}  // namespace

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
  fill_row_major(out, "arange", [&](kernels::TensorDesc o) {
    std::vector<const void*> buffers{o.data};
    launch(out.device().index(), "arange", std::move(buffers),
           [o = std::move(o), s0, s1] { kernels::arange(o, s0, s1); });
  });
  return out;
}

// torch.range (end inclusive): CPU's range_out checks and size; its values
// start + i * step in the accumulate type are the arange kernel's.
at::Tensor& range_out(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step, at::Tensor& out) {
  kernels::RangeScalar s0, s1;
  AT_DISPATCH_ALL_TYPES_AND2(at::kHalf, at::kBFloat16, out.scalar_type(), "range_tpu", [&]() {
    using accscalar_t = at::acc_type<scalar_t, false>;
    const auto xstart = start.to<accscalar_t>();
    const auto xend = end.to<accscalar_t>();
    const auto xstep = step.to<accscalar_t>();
    TORCH_CHECK(xstep > 0 || xstep < 0, "step must be nonzero");
    TORCH_CHECK(std::isfinite(static_cast<double>(xstart)) && std::isfinite(static_cast<double>(xend)),
                "unsupported range: ", xstart, " -> ", xend);
    TORCH_CHECK(((xstep > 0) && (xend >= xstart)) || ((xstep < 0) && (xend <= xstart)),
                "upper bound and lower bound inconsistent with step sign");
    const int64_t size = static_cast<int64_t>(((xend - xstart) / xstep) + 1);
    if (out.numel() != size) out.resize_({size});
    if constexpr (std::is_integral_v<accscalar_t>) {
      s0.i = xstart;
      s1.i = xstep;
    } else {
      s0.d = static_cast<double>(xstart);
      s1.d = static_cast<double>(xstep);
    }
  });
  if (out.numel() == 0) return out;
  fill_row_major(out, "range", [&](kernels::TensorDesc o) {
    std::vector<const void*> buffers{o.data};
    launch(out.device().index(), "range", std::move(buffers),
           [o = std::move(o), s0, s1] { kernels::arange(o, s0, s1); });
  });
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
  TORCH_CHECK_NOT_IMPLEMENTED(out.scalar_type() != at::kBool,
                              "\"linspace\" not implemented for '", c10::toString(out.scalar_type()), "' on tpu");
  // A complex out takes both parts of the ends; a real one the real part
  // (ATen's Scalar::to<double> would reject a complex end).
  const bool cx = at::isComplexType(out.scalar_type());
  const c10::complex<double> s = cx ? start.to<c10::complex<double>>() : c10::complex<double>(start.to<double>());
  const c10::complex<double> e = cx ? end.to<c10::complex<double>>() : c10::complex<double>(end.to<double>());
  fill_row_major(out, "linspace", [&](kernels::TensorDesc o) {
    std::vector<const void*> buffers{o.data};
    launch(out.device().index(), "linspace", std::move(buffers), [o = std::move(o), s, e, steps] {
      kernels::linspace(o, s.real(), e.real(), steps, s.imag(), e.imag());
    });
  });
  return out;
}

// CPU's logspace_out (RangeFactories.cpp): its checks, the contiguous
// result copied into a non-contiguous out, one element by fill_, and for
// real dtypes start, end and step as its loop has them (the element type's
// start/end, the step from their difference in that type's arithmetic).
at::Tensor& logspace_out(const at::Scalar& start, const at::Scalar& end, int64_t steps, double base, at::Tensor& out) {
  TORCH_CHECK(steps >= 0, "number of steps must be non-negative");
  if (out.numel() != steps) out.resize_({steps});
  at::Tensor r = out.is_contiguous() ? out : out.contiguous();
  if (steps == 1) {
    if (at::isComplexType(r.scalar_type())) {
      r.fill_(std::pow(base, start.to<c10::complex<double>>()));
    } else {
      r.fill_(std::pow(base, start.to<double>()));
    }
  } else if (steps > 1) {
    kernels::LogspaceArgs a;
    a.steps = steps;
    a.base = base;
    if (at::isComplexType(r.scalar_type())) {
      const auto s = start.to<c10::complex<double>>(), e = end.to<c10::complex<double>>();
      a.start = s.real();
      a.start_im = s.imag();
      a.end = e.real();
      a.end_im = e.imag();
    } else {
      AT_DISPATCH_ALL_TYPES_AND2(at::kBFloat16, at::kHalf, r.scalar_type(), "logspace_cpu", [&]() {
        const scalar_t s = start.to<scalar_t>(), e = end.to<scalar_t>();
        a.start = static_cast<double>(s);
        a.end = static_cast<double>(e);
        a.step = static_cast<double>(e - s) / (steps - 1);
      });
    }
    kernels::TensorDesc o = describe_nd(r, "logspace", 1);
    std::vector<const void*> buffers{o.data};
    launch(r.device().index(), "logspace", std::move(buffers), [o = std::move(o), a] { kernels::logspace(o, a); });
  }
  if (!out.is_same(r)) out.copy_(r);
  return out;
}

}  // namespace torch_tpu::aten
