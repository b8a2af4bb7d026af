// Indexing stubs (stub_kernels.h, "stub" route): ATen's shared CPU/CUDA
// implementations (gather_out, scatter_*_out, scatter_add, scatter_reduce_two,
// index_out, _index_put_impl_) check arguments, allocate outputs, apply
// include_self / mean's division, build iterators, and call these with
// tensors on tpu. Each turns its arguments into descriptors and launches one
// kernel (kernels/index/index.h) on the current stream. Indices out of range are
// found on the device and reported at the next synchronisation.
#include <ATen/Dispatch_v2.h>
#include <ATen/TensorIterator.h>
#include <ATen/native/IndexKernel.h>
#include <ATen/native/TensorAdvancedIndexing.h>
#include <c10/core/DeviceGuard.h>

#include <array>
#include <cstring>
#include <type_traits>

#include "aten/native/index/glue.h"
#include "aten/iterator_desc.h"
#include "aten/launch.h"
#include "generated/stub_kernels.h"
#include "kernels/index/index.h"

namespace torch_tpu::aten {


namespace {

// All operands of a gather/scatter share self's rank (ATen checks it); a
// 0-dim tensor is seen as one element of a 1-D tensor.
int64_t rank_of(const at::Tensor& self, const at::Tensor& index) {
  return std::max<int64_t>({1, self.dim(), index.dim()});
}

std::array<unsigned char, 16> scalar_bytes(const at::Scalar& value, at::ScalarType type) {
  std::array<unsigned char, 16> bytes{};
  AT_DISPATCH_V2(
      type, "scatter_value", AT_WRAP([&] {
        scalar_t v = value.to<scalar_t>();
        std::memcpy(bytes.data(), &v, sizeof(scalar_t));
      }),
      AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX), at::kBool, at::kHalf, at::kBFloat16, AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  return bytes;
}

kernels::ScatterOp scatter_op(at::native::ReductionType reduce) {
  switch (reduce) {
    case at::native::ReductionType::SUM:
    case at::native::ReductionType::MEAN: return kernels::ScatterOp::kAdd;  // ATen divides afterwards
    case at::native::ReductionType::PROD: return kernels::ScatterOp::kMul;
    case at::native::ReductionType::MAX: return kernels::ScatterOp::kMax;
    case at::native::ReductionType::MIN: return kernels::ScatterOp::kMin;
  }
  TORCH_INTERNAL_ASSERT(false, "unknown reduction");
}

void launch_scatter(const char* name, const at::Tensor& self, int64_t dim, const at::Tensor& index,
                    const at::Tensor* src, const at::Scalar* value, kernels::ScatterOp op) {
  if (index.numel() == 0 || self.numel() == 0) return;
  check_same_tpu_device(name, self, {&index});
  if (src) check_same_tpu_device(name, self, {src});
  // CPU sums and multiplies float16/bfloat16 tensors scattered into self in
  // float and rounds once (measured against torch 2.13: rounding after each
  // step differs in the last bits); the same here through float copies.
  const bool reduced_float = self.scalar_type() == at::kHalf || self.scalar_type() == at::kBFloat16;
  if (src && reduced_float && (op == kernels::ScatterOp::kAdd || op == kernels::ScatterOp::kMul)) {
    at::Tensor self_f = self.to(at::kFloat);
    const at::Tensor src_f = src->to(at::kFloat);
    launch_scatter(name, self_f, dim, index, &src_f, nullptr, op);
    const_cast<at::Tensor&>(self).copy_(self_f);
    return;
  }
  const int64_t nd = rank_of(self, index);
  kernels::TensorDesc s = describe_nd(self, name, nd);
  kernels::TensorDesc i = describe_nd(index, name, nd);
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::scatter_supports(op, s.dtype), "\"", name, "\" not implemented for '",
                              c10::toString(self.scalar_type()), "'");
  std::vector<const void*> buffers{s.data, i.data};
  std::optional<kernels::TensorDesc> sr;
  std::array<unsigned char, 16> bytes{};
  if (src) {
    sr = describe_nd(*src, name, nd);
    buffers.push_back(sr->data);
  } else {
    bytes = scalar_bytes(*value, self.scalar_type());
  }
  c10::DeviceGuard guard(self.device());
  launch_validating(self.device().index(), name, std::move(buffers),
         [s = std::move(s), i = std::move(i), sr = std::move(sr), bytes, dim, op] {
           kernels::scatter(s, dim, i, sr ? &*sr : nullptr, bytes.data(), op);
         });
}

}  // namespace

void gather_kernel(const at::Tensor& result, const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  if (index.numel() == 0) return;
  check_same_tpu_device("gather", result, {&self, &index});
  const int64_t nd = rank_of(self, index);
  kernels::TensorDesc o = describe_nd(result, "gather", nd);
  kernels::TensorDesc s = describe_nd(self, "gather", nd);
  kernels::TensorDesc i = describe_nd(index, "gather", nd);
  c10::DeviceGuard guard(result.device());
  std::vector<const void*> buffers{o.data, s.data, i.data};
  launch_validating(result.device().index(), "gather", std::move(buffers),
         [o = std::move(o), s = std::move(s), i = std::move(i), dim] { kernels::gather(o, s, dim, i); });
}

void scatter_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  launch_scatter("scatter", self, dim, index, &src, nullptr, kernels::ScatterOp::kAssign);
}

void scatter_fill_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Scalar& value) {
  launch_scatter("scatter_fill", self, dim, index, nullptr, &value, kernels::ScatterOp::kAssign);
}

void scatter_add_kernel(const at::Tensor& self, int64_t dim, const at::Tensor& index, const at::Tensor& src) {
  launch_scatter("scatter_add", self, dim, index, &src, nullptr, kernels::ScatterOp::kAdd);
}

void scatter_reduce_kernel(const at::Tensor& self, const int64_t dim, const at::Tensor& index, const at::Tensor& src,
                           const at::native::ReductionType& reduce) {
  launch_scatter("scatter_reduce", self, dim, index, &src, nullptr, scatter_op(reduce));
}

void scatter_scalar_reduce_kernel(const at::Tensor& self, const int64_t dim, const at::Tensor& index,
                                  const at::Scalar& value, const at::native::ReductionType& reduce) {
  launch_scatter("scatter_scalar_reduce", self, dim, index, nullptr, &value, scatter_op(reduce));
}

void scatter_reduce_two_kernel(const at::Tensor& self, const int64_t dim, const at::Tensor& index,
                               const at::Tensor& src, const at::native::ReductionType& reduce) {
  launch_scatter("scatter_reduce_two", self, dim, index, &src, nullptr, scatter_op(reduce));
}

// ---- advanced indexing ----------------------------------------------------------

namespace {

// put: std::nullopt for index (a gather), else how index_put writes.
void launch_indexing(const char* name, at::TensorIteratorBase& iter, at::IntArrayRef indexed_sizes,
                     at::IntArrayRef indexed_strides, std::optional<kernels::PutMode> put) {
  if (iter.numel() == 0) return;
  // Gathers and puts move bits; accumulating adds in complex64 and rounds
  // (kernels/index/arith.h): complex32 too.
  kernels::ElementwiseDesc d = describe_iterator(iter, iter.dtype(0), name, Complex32::kTaken);
  std::vector<int64_t> sizes(indexed_sizes.begin(), indexed_sizes.end());
  std::vector<int64_t> strides(indexed_strides.begin(), indexed_strides.end());
  std::vector<const void*> buffers;
  for (const auto& o : d.operands) {
    if (!o.by_value) buffers.push_back(o.data);
  }
  launch_validating(iter.device(0).index(), name, std::move(buffers),
         [d = std::move(d), sizes = std::move(sizes), strides = std::move(strides), put] {
           if (!put) {
             kernels::index_gather(d, sizes, strides);
           } else {
             kernels::index_put(d, sizes, strides, *put);
           }
         });
}

}  // namespace

void index_kernel(at::TensorIteratorBase& iter, at::IntArrayRef indexed_sizes, at::IntArrayRef indexed_strides) {
  launch_indexing("index", iter, indexed_sizes, indexed_strides, std::nullopt);
}

void index_put_kernel(at::TensorIterator& iter, at::IntArrayRef indexed_sizes, at::IntArrayRef indexed_strides,
                      bool accumulate) {
  launch_indexing(accumulate ? "index_put_accumulate" : "index_put", iter, indexed_sizes, indexed_strides,
                  put_mode(accumulate));
}

}  // namespace torch_tpu::aten
