// Indexing ops ATen implements for CPU only ("direct" route): index_select,
// masked_fill_, nonzero, masked_select, repeat_interleave's index vector. Checks follow CPU's
// (TensorAdvancedIndexing.cpp / Indexing.cpp) with its messages; the work is
// one kernel on the current stream. An index out of range is found by the
// kernel and raised (IndexError, CPU's message) at the next synchronisation:
// see kernels/index.h.
#include <ATen/Dispatch_v2.h>
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/TensorIterator.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/index.h>
#include <ATen/ops/index_put.h>
#include <ATen/ops/sum.h>

#include <array>
#include <cstring>

#include "aten/native/index/glue.h"
#include "aten/iterator_desc.h"
#include "aten/launch.h"
#include "aten/device/runtime_check.h"
#include "aten/device/telemetry.h"
#include "aten/device/tpu_stream.h"
#include "generated/ops/index_select.h"
#include "generated/ops/index_select_out.h"
#include "generated/ops/masked_fill__Scalar.h"
#include "generated/ops/masked_fill__Tensor.h"
#include "generated/ops/masked_scatter_.h"
#include "generated/ops/masked_select.h"
#include "generated/ops/masked_select_out.h"
#include "generated/ops/nonzero.h"
#include "generated/ops/nonzero_out.h"
#include "generated/ops/nonzero_static.h"
#include "generated/ops/nonzero_static_out.h"
#include "generated/ops/repeat_interleave_Tensor.h"
#include "kernels/index/index.h"
#include "kernels/shape/shape.h"

namespace torch_tpu::aten {

// ---- index_select ----------------------------------------------------------

at::Tensor& index_select_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, at::Tensor& out) {
  dim = at::maybe_wrap_dim(dim, self.dim());
  const int64_t numel = index.numel();
  TORCH_CHECK_INDEX(index.dim() <= 1, "index_select(): Index is supposed to be a vector");
  TORCH_CHECK(!(self.dim() == 0 && numel != 1), "index_select(): Index to scalar can have only 1 value, got ", numel,
              " value(s)");
  TORCH_CHECK(index.scalar_type() == at::kLong || index.scalar_type() == at::kInt,
              "index_select(): Expected dtype int32 or int64 for index");
  TORCH_CHECK(self.scalar_type() == out.scalar_type(),
              "index_select(): self and result must have the same scalar type");
  check_same_tpu_device("index_select", out, {&self, &index});
  at::assert_no_internal_overlap(out);
  at::assert_no_overlap(out, self);
  at::assert_no_overlap(out, index);
  std::vector<int64_t> result_size = self.sizes().vec();
  if (self.dim() > 0) result_size[dim] = numel;
  at::native::resize_output(out, result_size);
  if (self.dim() > 1 && numel > 0 && self.numel() == 0) {
    TORCH_CHECK(self.size(dim) > 0, "index_select(): self indexing axis dim should be positive");
  }
  if (out.numel() == 0) return out;
  if (self.dim() <= 1) {
    TORCH_CHECK(out.dim() <= 1, "result.dim() (", out.dim(), ") must one or zero for given self.dim() (", self.dim(),
                ")");
  }
  kernels::TensorDesc o = describe_nd(out, "index_select", 1, Complex32::kTaken);  // bits
  kernels::TensorDesc s = describe_nd(self, "index_select", 1, Complex32::kTaken);
  kernels::TensorDesc i = describe_nd(index, "index_select", 1);
  if (self.dim() == 0) {
    // A 0-dim self: index 0 is its only element (CPU bounds by numel).
    s.sizes = {1};
  }
  std::vector<const void*> buffers{o.data, s.data, i.data};
  launch_validating(out.device().index(), "index_select", std::move(buffers),
         [o = std::move(o), s = std::move(s), i = std::move(i), dim] { kernels::index_select(o, s, dim, i); });
  return out;
}

at::Tensor index_select(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  at::Tensor out = at::empty({0}, self.options());
  return index_select_out(self, dim, index, out);
}

// ---- masked_fill_ --------------------------------------------------------------

namespace {

void masked_fill_impl(at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  TORCH_CHECK(mask.dtype() == at::ScalarType::Bool, "masked_fill_ only supports boolean masks, but got mask with dtype ",
              mask.dtype());
  TORCH_CHECK(self.device() == mask.device(), "expected self and mask to be on the same device, but got mask on ",
              mask.device(), " and self on ", self.device());
  if (at::has_internal_overlap(self) == at::MemOverlap::Yes) {
    TORCH_WARN(
        "Use of masked_fill_ on expanded tensors is deprecated. "
        "Please clone() the tensor before performing this operation. "
        "This also applies to advanced indexing e.g. tensor[mask] = scalar");
  }
  at::assert_no_partial_overlap(self, mask);
  c10::MaybeOwned<at::Tensor> b_mask = at::expand_inplace(self, mask, "masked_fill_");
  auto iter = at::TensorIteratorConfig()
                  .set_check_mem_overlap(false)  // deprecated, but not a hard error
                  .check_all_same_dtype(false)
                  .resize_outputs(false)
                  .add_output(self)
                  .add_const_input(*b_mask)
                  .build();
  if (iter.numel() == 0) return;
  // value.to<T>() raises CPU's overflow error ("value cannot be converted to
  // type uint8_t without overflow").
  std::array<unsigned char, 16> bytes{};
  AT_DISPATCH_V2(
      self.scalar_type(), "masked_fill", AT_WRAP([&] {
        scalar_t v = value.to<scalar_t>();
        std::memcpy(bytes.data(), &v, sizeof(scalar_t));
      }),
      AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), at::kBool, at::kHalf, at::kBFloat16, at::kComplexHalf);
  kernels::ElementwiseDesc d = describe_iterator(iter, self.scalar_type(), "masked_fill_", Complex32::kTaken);  // bits
  // Buffers first: the lambda's init-capture may move d before the list is built.
  std::vector<const void*> buffers{d.operands[0].data, d.operands[1].data};
  launch(self.device().index(), "masked_fill", std::move(buffers),
         [d = std::move(d), bytes] { kernels::masked_fill(d, bytes.data()); });
}

}  // namespace

at::Tensor& masked_fill__Scalar(at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  masked_fill_impl(self, mask, value);
  return self;
}

at::Tensor& masked_fill__Tensor(at::Tensor& self, const at::Tensor& mask, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0,
              "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
              " dimension(s).");
  // As CPU (and CUDA): the value is read on the host (item() on a tpu value
  // is a counted synchronisation), then converted with overflow checks.
  masked_fill_impl(self, mask, value.item());
  return self;
}

// ---- nonzero ------------------------------------------------------------------
// The output shape depends on the data: count on the device, bring the count
// to the host (a synchronisation CPU semantics require), then write.

at::Tensor& nonzero_out(const at::Tensor& self, at::Tensor& out) {
  TORCH_CHECK(self.numel() < std::numeric_limits<int>::max(), "nonzero is not supported for tensors with more than INT_MAX elements, \
  See https://github.com/pytorch/pytorch/issues/51871");
  TORCH_CHECK(out.dtype() == at::kLong, "Expected object of scalar type ", at::kLong, " as out, but got ", out.dtype());
  TORCH_CHECK(self.device() == out.device(), "expected self and out to be on the same device, but got out on ",
              out.device(), " and self on ", self.device());
  TORCH_CHECK(self.dim() <= 32, "nonzero is not supported for tensor with more than ", 32, " dimensions");
  const c10::DeviceIndex dev = self.device().index();
  int64_t count = 0;
  if (self.numel() > 0) {
    at::Tensor count_dev = at::empty({}, self.options().dtype(at::kLong));
    kernels::TensorDesc s = describe(self, "nonzero", Complex32::kTaken);
    int64_t* c = count_dev.mutable_data_ptr<int64_t>();
    launch(dev, "nonzero_count", {s.data, c}, [s, c] { kernels::nonzero_count(s, c); });
    telemetry::count_sync("nonzero");
    TPU_CHECK(runtime::memcpy_and_sync(&count, c, sizeof(int64_t), runtime::MemcpyKind::kDeviceToHost,
                                       native_stream(current_stream(dev))));
  }
  // CPU's layout: column-major ((ndim, count) transposed), strides (1, count).
  if (out.sizes() != at::IntArrayRef({count, self.dim()})) {
    at::native::resize_output(out, {count, self.dim()});
    out.as_strided_({count, self.dim()}, {1, count});
  }
  at::assert_no_internal_overlap(out);  // as CPU's TensorIterator: before writing
  if (count == 0 || self.dim() == 0) {
    return out;
  }
  kernels::TensorDesc s = describe(self, "nonzero", Complex32::kTaken);
  kernels::TensorDesc o = describe(out, "nonzero");
  std::vector<const void*> buffers{s.data, o.data};
  launch(dev, "nonzero", std::move(buffers), [s = std::move(s), o = std::move(o)] { kernels::nonzero_write(o, s); });
  return out;
}

at::Tensor nonzero(const at::Tensor& self) {
  at::Tensor out = at::empty({0}, self.options().dtype(at::kLong));
  return nonzero_out(self, out);
}

// nonzero_static: a fixed number of rows, so no count reaches the host (the
// point of the op, for export and compiled graphs): one launch writes the
// first `size` coordinates and pads with fill_value. CPU's checks.
at::Tensor& nonzero_static_out(const at::Tensor& self, int64_t size, int64_t fill_value, at::Tensor& out) {
  TORCH_CHECK(size >= 0, "nonzero_static: 'size' must be an non-negative integer");
  TORCH_CHECK(out.dtype() == at::kLong, "nonzero_static: Expected out tensor to have scalar type Long but got scalar type",
              out.dtype());
  const int64_t ndim = self.dim();
  if (out.dim() != 2 || out.size(0) != size || out.size(1) != ndim) {
    at::native::resize_output(out, {size, ndim});
  }
  if (out.numel() == 0) return out;
  kernels::TensorDesc s = describe(self, "nonzero_static", Complex32::kTaken);
  kernels::TensorDesc o = describe(out, "nonzero_static");
  std::vector<const void*> buffers{s.data, o.data};
  launch(self.device().index(), "nonzero_static", std::move(buffers),
         [s = std::move(s), o = std::move(o), fill_value] { kernels::nonzero_static_write(o, s, fill_value); });
  return out;
}

// The functional result is column-major (strides (1, size)), as CUDA's and
// as FakeTensor predicts for every device but CPU, MPS and XPU: compiled
// graphs rely on that prediction. CPU's is row-major.
at::Tensor nonzero_static(const at::Tensor& self, int64_t size, int64_t fill_value) {
  TORCH_CHECK(size >= 0, "nonzero_static: 'size' must be an non-negative integer");
  at::Tensor out = at::empty_strided({size, self.dim()}, {1, size}, self.options().dtype(at::kLong));
  return nonzero_static_out(self, size, fill_value, out);
}

// ---- repeat_interleave ---------------------------------------------------------
// The index vector behind repeat_interleave(self, repeats tensor): repeats[i]
// copies of i. Without output_size its length is the repeats' sum, read back
// (a counted synchronisation, as CPU's item() and CUDA's); with it nothing is
// read, and the device checks the sum, reported at the next synchronisation.
// CPU's checks and messages (Repeat.h).
at::Tensor repeat_interleave_Tensor(const at::Tensor& repeats, std::optional<int64_t> output_size) {
  TORCH_CHECK(repeats.dim() == 1, "repeat_interleave only accept 1D vector as repeat");
  TORCH_CHECK(repeats.scalar_type() == at::kLong || repeats.scalar_type() == at::kInt,
              "repeats has to be Long or Int tensor");
  if (repeats.size(0) == 0) return at::empty_like(repeats, at::MemoryFormat::Contiguous);
  const at::Tensor r = repeats.contiguous();
  const c10::DeviceIndex dev = r.device().index();
  const kernels::DType dtype = device_dtype(r.scalar_type(), "repeat_interleave");
  const int64_t n = r.size(0);
  const void* rp = r.const_data_ptr();
  int64_t total = 0;
  if (output_size.has_value()) {
    total = *output_size;
  } else {
    at::Tensor total_dev = at::empty({}, r.options().dtype(at::kLong));
    int64_t* t = total_dev.mutable_data_ptr<int64_t>();
    launch_validating(dev, "repeat_interleave_total", {rp, t},
           [rp, dtype, n, t] { kernels::repeat_interleave_total(rp, dtype, n, t); });
    telemetry::count_sync("repeat_interleave");
    TPU_CHECK(runtime::memcpy_and_sync(&total, t, sizeof(int64_t), runtime::MemcpyKind::kDeviceToHost,
                                       native_stream(current_stream(dev))));
  }
  at::Tensor out = at::empty({total}, r.options());
  void* op = out.data_ptr();
  launch_validating(dev, "repeat_interleave", {rp, op},
         [rp, dtype, n, op, total] { kernels::repeat_interleave_write(rp, dtype, n, op, total); });
  return out;
}

// masked_select: broadcast self and mask, then self[mask] through the tpu
// index path (nonzero: one counted synchronisation, as on CPU and CUDA).
// CPU's checks and messages (masked_select_out_cpu_impl).
at::Tensor& masked_select_out(const at::Tensor& self, const at::Tensor& mask, at::Tensor& out) {
  TORCH_CHECK(mask.scalar_type() == at::ScalarType::Bool, "masked_select: expected BoolTensor for mask");
  TORCH_CHECK(self.scalar_type() == out.scalar_type(),
              "masked_select(): self and result must have the same scalar type");
  TORCH_CHECK(mask.device() == self.device() && out.device() == self.device(),
              "masked_select: expected self, mask and out on the same device, but got self on ", self.device(),
              ", mask on ", mask.device(), " and out on ", out.device());
  at::assert_no_internal_overlap(out);
  at::assert_no_overlap(out, self);
  at::assert_no_overlap(out, mask);
  const at::Tensor mask_1d = mask.dim() == 0 ? mask.unsqueeze(0) : mask;
  const at::Tensor self_1d = self.dim() == 0 ? self.unsqueeze(0) : self;
  auto [mask_b, self_b] = at::expand_outplace(mask_1d, self_1d);
  const at::Tensor picked = at::index(*self_b, c10::List<std::optional<at::Tensor>>({*mask_b}));
  at::native::resize_output(out, picked.sizes());
  out.copy_(picked);
  return out;
}

at::Tensor masked_select(const at::Tensor& self, const at::Tensor& mask) {
  at::Tensor out = at::empty({0}, self.options());
  return masked_select_out(self, mask, out);
}

// masked_scatter_: self[mask] = source's first count(mask) elements, in
// order. The count is read back once (a synchronisation, like nonzero) to
// check source has enough elements; the writes are one index_put_. CPU's
// checks and messages (masked_scatter__cpu and its kernel).
at::Tensor& masked_scatter_(at::Tensor& self, const at::Tensor& mask, const at::Tensor& source) {
  at::assert_no_internal_overlap(self);
  TORCH_CHECK(self.scalar_type() == source.scalar_type(),
              "masked_scatter: expected self and source to have same dtypes but got", self.scalar_type(), " and ",
              source.scalar_type());
  TORCH_CHECK(mask.scalar_type() == at::ScalarType::Bool || mask.scalar_type() == at::ScalarType::Byte,
              "masked_scatter_ only supports boolean masks, but got mask with dtype ", mask.scalar_type());
  TORCH_CHECK(mask.device() == self.device() && source.device() == self.device(),
              "masked_scatter_: expected self, mask and source on the same device, but got self on ", self.device(),
              ", mask on ", mask.device(), " and source on ", source.device());
  c10::MaybeOwned<at::Tensor> b_mask = at::expand_inplace(self, mask, "masked_scatter_");
  if (b_mask->scalar_type() == at::ScalarType::Byte) {
    TORCH_WARN("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
               "please use a mask with dtype torch.bool instead.");
  }
  // CPU warns, then its kernel refuses the uint8 mask; CUDA refuses it at once.
  TORCH_CHECK(b_mask->scalar_type() == at::ScalarType::Bool,
              "masked_scatter_ only supports boolean masks, but got mask with dtype ", b_mask->scalar_type());
  const at::Tensor& m = *b_mask;
  const int64_t n = m.sum().item<int64_t>();
  TORCH_CHECK(source.numel() >= n, "Number of elements of source < number of ones in mask");
  if (n == 0) return self;
  // A 0-dim mask is an index of rank 1, which a 0-dim self cannot take
  // (IndexError); its one element is the same as a 1-element view's.
  at::Tensor target = self.dim() == 0 ? self.view({1}) : self;
  const at::Tensor index = m.dim() == 0 ? m.view({1}) : m;
  target.index_put_(c10::List<std::optional<at::Tensor>>({index}), source.reshape(-1).narrow(0, 0, n));
  return self;
}

}  // namespace torch_tpu::aten
