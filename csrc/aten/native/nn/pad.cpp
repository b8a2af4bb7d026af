// Reflection and replication padding, 1d-3d, and their backwards (direct
// route: ATen's CPU implementations call their kernels with a hard-coded CPU
// device). The structured ones are structured impls: the generated wrappers run
// ATen's meta() for checks, output size and layout; reflection_pad2d(_backward) and replication_pad2d/3d_backward
// are not structured: their checks are ATen's CPU templates'.
// kernels/nn/pad.h moves the elements.
#include <ATen/core/Tensor.h>
#include <ATen/native/Padding.h>
#include <ATen/ops/empty.h>

#include "aten/contiguous_out.h"
#include "aten/launch.h"
#include "generated/ops/reflection_pad1d.h"
#include "generated/ops/reflection_pad1d_backward.h"
#include "generated/ops/reflection_pad2d.h"
#include "generated/ops/reflection_pad2d_backward.h"
#include "generated/ops/reflection_pad3d.h"
#include "generated/ops/reflection_pad3d_backward.h"
#include "generated/ops/replication_pad1d.h"
#include "generated/ops/replication_pad1d_backward.h"
#include "generated/ops/replication_pad2d.h"
#include "generated/ops/replication_pad2d_backward.h"
#include "generated/ops/replication_pad3d.h"
#include "generated/ops/replication_pad3d_backward.h"
#include "kernels/nn/pad.h"

namespace torch_tpu::aten {
namespace {

using kernels::PadMode;

// The last `dims` dimensions of `small` (input) and `big` (output) as
// planes; padding lists the last dimension first (left, right, top, ...).
kernels::PadDesc pad_desc(PadMode mode, const at::Tensor& small, const at::Tensor& big, int dims,
                          at::IntArrayRef padding, const char* name) {
  kernels::PadDesc d;
  d.mode = mode;
  d.dtype = device_dtype(small.scalar_type(), name);
  int64_t plane = 1;
  for (int i = 0; i < dims; ++i) {
    const int j = 3 - dims + i;
    d.in[j] = small.size(small.dim() - dims + i);
    d.out[j] = big.size(big.dim() - dims + i);
    d.pad_lo[j] = padding[2 * (dims - 1 - i)];
    plane *= d.in[j];
  }
  d.planes = plane == 0 ? 0 : small.numel() / plane;
  return d;
}

void forward(const kernels::PadDesc& d, const at::Tensor& self, const at::Tensor& out, const char* name) {
  const at::Tensor x = self.contiguous();
  into_contiguous(out, [&](const at::Tensor& o) {
    if (o.numel() == 0 || d.planes == 0) return;
    launch(self.device().index(), name, {x.const_data_ptr(), o.data_ptr()},
           [d, xp = x.const_data_ptr(), op = o.data_ptr()] { kernels::pad_forward(d, xp, op); });
  });
}

void backward(const kernels::PadDesc& d, const at::Tensor& grad_output, const at::Tensor& grad_input,
              const char* name) {
  const at::Tensor g = grad_output.contiguous();
  into_contiguous(grad_input, [&](const at::Tensor& gi) {
    if (gi.numel() == 0) return;
    if (d.planes == 0 || g.numel() == 0) {
      const_cast<at::Tensor&>(gi).zero_();
      return;
    }
    launch(grad_output.device().index(), name, {g.const_data_ptr(), gi.data_ptr()},
           [d, gp = g.const_data_ptr(), gip = gi.data_ptr()] { kernels::pad_backward(d, gp, gip); });
  });
}

void check_same(const at::Tensor& self, const at::Tensor& grad_output, const char* name) {
  TORCH_CHECK(grad_output.scalar_type() == self.scalar_type(), name, ": expected grad_output of dtype ",
              self.scalar_type(), ", got ", grad_output.scalar_type());
}

// The padded shape (reflection_pad2d and the plain backwards' checks).
std::vector<int64_t> padded_shape(const at::Tensor& self, at::IntArrayRef padding, int dims, bool reflect,
                                  const char* name) {
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  for (int i = 0; i < dims; ++i) {
    const int64_t dim = self.dim() - 1 - i;
    const int64_t l = padding[2 * i], r = padding[2 * i + 1], n = self.size(dim);
    TORCH_CHECK(!reflect || (l < n && r < n), "Argument #", 4 + 2 * i,
                ": Padding size should be less than the corresponding input dimension, but got: padding (", l,
                ", ", r, ") at dimension ", dim, " of input ", self.sizes());
    shape[dim] = n + l + r;
    TORCH_CHECK(shape[dim] >= 1, name, ": input ", self.sizes(), " is too small for padding ", padding,
                ": calculated output size ", shape[dim], " at dimension ", dim);
  }
  return shape;
}

at::Tensor plain_backward(PadMode mode, const at::Tensor& grad_output, const at::Tensor& self,
                          at::IntArrayRef padding, int dims, const char* name) {
  check_same(self, grad_output, name);
  TORCH_CHECK(padding.size() == static_cast<size_t>(2 * dims), name, ": padding size is expected to be ",
              2 * dims, ", but got: ", padding.size());
  const std::vector<int64_t> shape = padded_shape(self, padding, dims, mode == PadMode::kReflect, name);
  TORCH_CHECK(grad_output.sizes() == at::IntArrayRef(shape), name, ": expected grad_output of size ",
              at::IntArrayRef(shape), ", got ", grad_output.sizes());
  at::Tensor grad_input = at::empty(self.sizes(), self.options().memory_format(self.suggest_memory_format()));
  backward(pad_desc(mode, self, grad_output, dims, padding, name), grad_output, grad_input, name);
  return grad_input;
}

}  // namespace

void reflection_pad1d_out(const at::Tensor& self, at::IntArrayRef padding, const at::Tensor& out) {
  forward(pad_desc(PadMode::kReflect, self, out, 1, padding, "reflection_pad1d"), self, out, "reflection_pad1d");
}

void reflection_pad1d_backward_out(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef padding,
                                   const at::Tensor& grad_input) {
  check_same(self, grad_output, "reflection_pad1d_backward");
  backward(pad_desc(PadMode::kReflect, self, grad_output, 1, padding, "reflection_pad1d_backward"), grad_output, grad_input, "reflection_pad1d_backward");
}

at::Tensor reflection_pad2d(const at::Tensor& self, at::IntArrayRef padding) {
  const char* name = "reflection_pad2d";
  at::native::padding::check_valid_input<2>(self, padding);
  const std::vector<int64_t> shape = padded_shape(self, padding, 2, true, name);
  at::Tensor out = at::empty(shape, self.options().memory_format(self.suggest_memory_format()));
  forward(pad_desc(PadMode::kReflect, self, out, 2, padding, name), self, out, name);
  return out;
}

at::Tensor reflection_pad2d_backward(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef padding) {
  return plain_backward(PadMode::kReflect, grad_output, self, padding, 2, "reflection_pad2d_backward");
}

void reflection_pad3d_out(const at::Tensor& self, at::IntArrayRef padding, const at::Tensor& out) {
  forward(pad_desc(PadMode::kReflect, self, out, 3, padding, "reflection_pad3d"), self, out, "reflection_pad3d");
}

void reflection_pad3d_backward_out(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef padding,
                                   const at::Tensor& grad_input) {
  check_same(self, grad_output, "reflection_pad3d_backward");
  backward(pad_desc(PadMode::kReflect, self, grad_output, 3, padding, "reflection_pad3d_backward"), grad_output, grad_input, "reflection_pad3d_backward");
}

void replication_pad1d_out(const at::Tensor& self, at::IntArrayRef padding, const at::Tensor& out) {
  forward(pad_desc(PadMode::kReplicate, self, out, 1, padding, "replication_pad1d"), self, out, "replication_pad1d");
}

void replication_pad1d_backward_out(const at::Tensor& grad_output, const at::Tensor& self, at::IntArrayRef padding,
                                    const at::Tensor& grad_input) {
  check_same(self, grad_output, "replication_pad1d_backward");
  backward(pad_desc(PadMode::kReplicate, self, grad_output, 1, padding, "replication_pad1d_backward"), grad_output, grad_input, "replication_pad1d_backward");
}

void replication_pad2d_out(const at::Tensor& self, at::IntArrayRef padding, const at::Tensor& out) {
  forward(pad_desc(PadMode::kReplicate, self, out, 2, padding, "replication_pad2d"), self, out, "replication_pad2d");
}

at::Tensor replication_pad2d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                      at::IntArrayRef padding) {
  return plain_backward(PadMode::kReplicate, grad_output, self, padding, 2, "replication_pad2d_backward");
}

void replication_pad3d_out(const at::Tensor& self, at::IntArrayRef padding, const at::Tensor& out) {
  forward(pad_desc(PadMode::kReplicate, self, out, 3, padding, "replication_pad3d"), self, out, "replication_pad3d");
}

at::Tensor replication_pad3d_backward(const at::Tensor& grad_output, const at::Tensor& self,
                                      at::IntArrayRef padding) {
  return plain_backward(PadMode::kReplicate, grad_output, self, padding, 3, "replication_pad3d_backward");
}

}  // namespace torch_tpu::aten
