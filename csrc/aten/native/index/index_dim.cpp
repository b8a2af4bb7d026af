// The index_* family (index_add, index_copy, index_fill, index_reduce) and
// take / put_: updates of self along one dimension, or at flat positions.
//
// index_copy, index_fill_, take and put_ have device-generic ATen
// implementations (checks, restrided TensorIterator) that call a stub; their
// kernels here hand that iterator to the advanced-indexing or take/put
// kernels. index_add and index_reduce are CPU- or CUDA-specific upstream, so
// they are "direct" over ATen's structured meta(): a scatter along dim whose
// index is the vector expanded over the other dims (kernels/index/index.h).
// Every op keeps CPU's error type and message for an index out of range
// (IndexBounds), found on the device and raised at the next synchronisation.
#include <ATen/Dispatch_v2.h>
#include <ATen/OpMathType.h>
#include <ATen/TensorIterator.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/ops/div.h>
#include <ATen/ops/eq.h>
#include <ATen/ops/mul.h>
#include <ATen/ops/ones_like.h>
#include <ATen/ops/zeros_like.h>
#include <c10/core/DeviceGuard.h>

#include <array>
#include <cstring>
#include <limits>

#include "aten/iterator_desc.h"
#include "aten/launch.h"
#include "aten/native/index/glue.h"
#include "generated/ops/index_add_out.h"
#include "generated/ops/index_reduce_out.h"
#include "generated/stub_kernels.h"
#include "kernels/index/index.h"

namespace torch_tpu::aten {
namespace {

std::vector<const void*> device_buffers(const kernels::ElementwiseDesc& d) {
  std::vector<const void*> buffers;
  for (const auto& o : d.operands) {
    if (!o.by_value) buffers.push_back(o.data);
  }
  return buffers;
}

// {dst (restrided, stride 0 along dim), values, index}: one indexed
// dimension of size dim_size, element stride dim_stride.
void launch_index_put_dim(const char* name, const at::TensorIteratorBase& iter, kernels::ElementwiseDesc d,
                          int64_t dim_size, int64_t dim_stride, kernels::IndexBounds bounds) {
  const int64_t stride_bytes = dim_stride * static_cast<int64_t>(kernels::dtype_size(d.operands[0].dtype));
  std::vector<const void*> buffers = device_buffers(d);
  c10::DeviceGuard guard(iter.device(0));
  const kernels::PutMode mode = put_mode(/*accumulate=*/false);
  launch_validating(iter.device(0).index(), name, std::move(buffers), [d = std::move(d), dim_size, stride_bytes, bounds, mode] {
    kernels::index_put(d, {dim_size}, {stride_bytes}, mode, bounds);
  });
}

// self viewed as a scatter target: `index` (a vector) expanded along dim over
// the shape `like` (source's, or self's with dim resized for a fill).
at::Tensor expanded_index(const at::Tensor& index, int64_t dim, int64_t ndim, at::IntArrayRef like) {
  std::vector<int64_t> sizes(std::max<int64_t>(ndim, 1), 1), strides(std::max<int64_t>(ndim, 1), 0);
  sizes[dim] = index.numel();
  strides[dim] = index.dim() > 0 ? index.stride(0) : 1;
  at::Tensor restrided = index.as_strided(sizes, strides);
  return ndim == 0 ? restrided : restrided.expand(like);
}

// CPU's IndexError for index_reduce, and for index_add into a vector or a
// scalar. (index_add into a multi-dimensional self reports like a scatter:
// a RuntimeError naming the dim, kernels::kScatterBounds.)
constexpr kernels::IndexBounds kIndexOutOfRangeInSelf{false, true, "index out of range in self", "", -1};

void launch_index_scatter(const char* name, const at::Tensor& result, int64_t dim, const at::Tensor& index,
                          const at::Tensor& source, kernels::ScatterOp op, const void* value, size_t value_size,
                          const kernels::IndexBounds& bounds) {
  if (index.numel() == 0 || result.numel() == 0) return;
  check_same_tpu_device(name, result, {&index, &source});
  const int64_t nd = std::max<int64_t>(1, result.dim());
  const at::Tensor src = source.dim() == 0 ? source.reshape({1}) : source;
  const at::Tensor idx = expanded_index(index, dim, nd, src.sizes());
  // complex32: the scatter kernel adds in it (scatter_supports checks the op).
  kernels::TensorDesc s = describe_nd(result, name, nd, Complex32::kTaken);
  kernels::TensorDesc i = describe_nd(idx, name, nd);
  kernels::TensorDesc sr = describe_nd(src, name, nd, Complex32::kTaken);
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::scatter_supports(op, s.dtype), "\"", name, "\" not implemented for '",
                              c10::toString(result.scalar_type()), "'");
  std::array<unsigned char, 16> bytes{};
  if (value) std::memcpy(bytes.data(), value, value_size);
  std::vector<const void*> buffers{s.data, i.data, sr.data};
  c10::DeviceGuard guard(result.device());
  launch_validating(result.device().index(), name, std::move(buffers),
         [s = std::move(s), i = std::move(i), sr = std::move(sr), bytes, dim, op, bounds] {
           kernels::scatter(s, dim, i, &sr, bytes.data(), op, bounds);
         });
}

}  // namespace

// ---- index_copy / index_fill_ (stubs) ---------------------------------------

void index_copy_kernel(at::TensorIterator& iter, int64_t dim, int64_t self_dim_size, int64_t self_dim_stride) {
  if (iter.numel() == 0) return;
  // ATen's operands {result (restrided), index, source}; the kernel takes
  // {destination, values, index}.
  // index_put without accumulation moves bits: complex32 too.
  kernels::ElementwiseDesc d = describe_iterator(iter, iter.dtype(0), "index_copy_", Complex32::kTaken);
  std::swap(d.operands[1], d.operands[2]);
  kernels::IndexBounds bounds;
  bounds.index_error = true;
  bounds.prefix = "index_copy_(): ";
  bounds.dim = dim;
  launch_index_put_dim("index_copy", iter, std::move(d), self_dim_size, self_dim_stride, bounds);
}

void index_fill_kernel(at::TensorIterator& iter, int64_t dim, int64_t self_dim_size, int64_t self_dim_stride,
                       const at::Scalar& source) {
  if (iter.numel() == 0) return;
  const at::ScalarType type = iter.dtype(0);
  // value.to<T>() raises CPU's overflow error for a value the dtype cannot hold.
  std::array<unsigned char, 16> bytes{};
  AT_DISPATCH_V2(
      type, "index_fill", AT_WRAP([&] {
        scalar_t v = source.to<scalar_t>();
        std::memcpy(bytes.data(), &v, sizeof(scalar_t));
      }),
      AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), at::kBool, at::kHalf, at::kBFloat16, at::kComplexHalf);
  // ATen's operands {self (restrided), index}; the value travels by value.
  kernels::ElementwiseDesc d = describe_iterator(iter, type, "index_fill_", Complex32::kTaken);
  d.operands.insert(d.operands.begin() + 1, kernels::ElementwiseOperand::scalar(d.operands[0].dtype, bytes.data()));
  kernels::IndexBounds bounds;
  bounds.wrap_negative = true;
  bounds.index_error = true;
  bounds.dim = dim;
  launch_index_put_dim("index_fill", iter, std::move(d), self_dim_size, self_dim_stride, bounds);
}

// ---- take / put_ (stubs) ------------------------------------------------------

namespace {

void launch_take_put(const char* name, at::TensorIterator& iter, const at::TensorBase& self, kernels::TakePut mode) {
  if (iter.numel() == 0) return;
  kernels::ElementwiseDesc d = describe_iterator(iter, self.scalar_type(), name);
  kernels::TensorDesc s = describe(at::Tensor(self), name);
  std::vector<const void*> buffers = device_buffers(d);
  buffers.push_back(s.data);
  c10::DeviceGuard guard(self.device());
  launch_validating(self.device().index(), name, std::move(buffers),
         [d = std::move(d), s = std::move(s), mode] { kernels::take_put(d, s, mode); });
}

}  // namespace

void take_kernel(at::TensorIterator& iter, const at::TensorBase& input) {
  launch_take_put("take", iter, input, kernels::TakePut::kTake);
}

void put_kernel(at::TensorIterator& iter, const at::TensorBase& self, const bool accumulate) {
  launch_take_put(accumulate ? "put_accumulate" : "put", iter, self,
                  accumulate ? kernels::TakePut::kPutAccumulate : kernels::TakePut::kPut);
}

// ---- index_add / index_reduce (direct, structured) ---------------------------

void index_add_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                   const at::Scalar& alpha, const at::Tensor& out) {
  if (!out.is_same(self)) out.copy_(self);
  dim = at::maybe_wrap_dim(dim, self.dim());
  const at::ScalarType type = out.scalar_type();
  const kernels::IndexBounds& bounds = self.dim() <= 1 ? kIndexOutOfRangeInSelf : kernels::kScatterBounds;
  if (type == at::kComplexHalf) {
    // CPU adds alpha * source, each product rounded to complex32 first: the
    // device's complex32 mul, then the kernel's rounded sums.
    const bool unit_alpha = alpha.equal(1);
    launch_index_scatter("index_add", out, dim, index, unit_alpha ? source : at::mul(source, alpha),
                         kernels::ScatterOp::kAdd, nullptr, 0, bounds);
    return;
  }
  // alpha in the add kernel's compute type: float for float16/bfloat16.
  std::array<unsigned char, 16> alpha_bytes{};
  bool unit = true;
  AT_DISPATCH_V2(
      type, "index_add", AT_WRAP([&] {
        using opmath_t = at::opmath_type<scalar_t>;
        opmath_t a = alpha.to<opmath_t>();
        unit = a == static_cast<opmath_t>(1);
        std::memcpy(alpha_bytes.data(), &a, sizeof(opmath_t));
      }),
      AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), at::kBool, at::kHalf, at::kBFloat16);
  if (unit) {
    launch_index_scatter("index_add", out, dim, index, source, kernels::ScatterOp::kAdd, nullptr, 0, bounds);
  } else {
    launch_index_scatter("index_add", out, dim, index, source, kernels::ScatterOp::kAddScaled, alpha_bytes.data(),
                         alpha_bytes.size(), bounds);
  }
}

void index_reduce_out(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& source,
                      c10::string_view reduce, bool include_self, const at::Tensor& out) {
  TORCH_WARN_ONCE("index_reduce() is in beta and the API may change at any time.");
  if (!out.is_same(self)) out.copy_(self);
  dim = at::maybe_wrap_dim(dim, self.dim());
  const bool mean = reduce == "mean";
  kernels::ScatterOp op = kernels::ScatterOp::kAdd;
  if (reduce == "prod") op = kernels::ScatterOp::kMul;
  if (reduce == "amax") op = kernels::ScatterOp::kMax;
  if (reduce == "amin") op = kernels::ScatterOp::kMin;
  at::Tensor result = out;  // a const Tensor& whose data we update
  if (!include_self) {
    // The reduction's identity where an index lands, so self does not count.
    AT_DISPATCH_V2(
        self.scalar_type(), "index_reduce_init", AT_WRAP([&] {
          using limits = std::numeric_limits<scalar_t>;
          scalar_t init = scalar_t(0);
          if (op == kernels::ScatterOp::kMul) init = scalar_t(1);
          if (op == kernels::ScatterOp::kMax) init = limits::has_infinity ? -limits::infinity() : limits::lowest();
          if (op == kernels::ScatterOp::kMin) init = limits::has_infinity ? limits::infinity() : limits::max();
          result.index_fill_(dim, index.to(at::kLong), init);
        }),
        AT_EXPAND(AT_ALL_TYPES), at::kHalf, at::kBFloat16);
  }
  launch_index_scatter("index_reduce", result, dim, index, source, op, nullptr, 0, kIndexOutOfRangeInSelf);
  if (mean) {
    at::Tensor counts = include_self ? at::ones_like(result) : at::zeros_like(result);
    counts.index_add_(dim, index, at::ones_like(source));
    counts.masked_fill_(counts == 0, 1);
    if (result.is_floating_point() || result.is_complex()) {
      result.div_(counts);
    } else {
      result.div_(counts, "floor");
    }
  }
}

}  // namespace torch_tpu::aten
