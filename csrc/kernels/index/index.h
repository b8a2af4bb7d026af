// Device kernels for indexing: index_select, gather/scatter (with their
// reductions), advanced indexing (index / index_put), masked_fill. Torch-free:
// they see TensorDescs (element strides) or, for the ops ATen drives with a
// TensorIterator, an ElementwiseDesc (byte strides, fastest dimension first).
// They run inside a launched body and split their work with
// runtime::parallel_for.
//
// Data errors (an index out of range) can only be seen on the device. The
// kernel throws; the stream keeps the first error and the next
// synchronisation on it reports it (as CUDA's device-side asserts do, but
// recoverable). The message starts with a tag naming the PyTorch error type
// (kIndexErrorTag -> IndexError); the glue (csrc/aten/device/runtime_check.cpp) turns
// it back into that type with CPU's own wording.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise.h"
#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

inline constexpr const char kIndexErrorTag[] = "[IndexError] ";

// Throws from device code: an IndexError (tagged) or a RuntimeError.
[[noreturn]] void throw_index_error(const std::string& message);
[[noreturn]] void throw_data_error(const std::string& message);

// out.select(dim, i) = self.select(dim, index[i]) for i < index.numel().
// out and self have the same dtype and rank; out.sizes[dim] == index.numel();
// index is int32 or int64 with at most one dimension. An index outside
// [0, self.sizes[dim]) is an IndexError "index out of range in self" (CPU's).
void index_select(const TensorDesc& out, const TensorDesc& self, int64_t dim, const TensorDesc& index);

// ---- gather / scatter (ATen's ScatterGatherKernel semantics) --------------
// The iteration domain is index's shape; an index must lie in
// [0, self.sizes[dim]) (no wrapping), else a RuntimeError "index i is out of
// bounds for dimension d with size s" (CPU's). Elements that scatter to the
// same place are applied in index order (deterministic, like CPU).

// out[p] = self[p with p[dim] = index[p]]. out has index's shape. index is
// int64 or int32.
void gather(const TensorDesc& out, const TensorDesc& self, int64_t dim, const TensorDesc& index);

enum class ScatterOp : int8_t {
  kAssign,  // self[...] = src
  kAdd,     // sum and mean (ATen divides afterwards)
  kMul,     // prod, "multiply"
  kMax,     // amax (NaN propagates)
  kMin,     // amin
};
bool scatter_supports(ScatterOp op, DType dtype);  // max/min: not complex

// self[p with p[dim] = index[p]] (op)= src[p]. With src == nullptr the
// element `value` (dtype_size(self.dtype) bytes, in self's dtype) is used.
void scatter(const TensorDesc& self, int64_t dim, const TensorDesc& index, const TensorDesc* src,
             const void* value, ScatterOp op);

// ---- advanced indexing (ATen's index_stub / index_put_stub) ---------------
// d is TensorIterator-shaped: operands[0] the destination, operands[1] the
// source, operands[2...] one int64 (or int32) index per indexed dimension.
// The indexed dimensions have stride 0 in the restrided tensor (self for
// index, the destination for index_put); the element's byte offset is
// sum_k wrap(index_k) * indexed_strides[k] (bytes), with an index in
// [-indexed_sizes[k], indexed_sizes[k]) and negative ones wrapped, else an
// IndexError "index i is out of bounds for dimension k with size s" (CPU's).

// out = self[indices]: operands {out, self, indices...}.
void index_gather(const ElementwiseDesc& d, const std::vector<int64_t>& indexed_sizes,
                  const std::vector<int64_t>& indexed_strides);

// self[indices] = values (or += with accumulate): operands {self, values,
// indices...}. Accumulation runs serially in iteration order (deterministic,
// like CPU); a plain put runs on all cores (duplicates: one of them wins).
void index_put(const ElementwiseDesc& d, const std::vector<int64_t>& indexed_sizes,
               const std::vector<int64_t>& indexed_strides, bool accumulate);
bool index_put_accumulate_supports(DType dtype);

// ---- masked_fill ------------------------------------------------------------
// operands {self, mask (bool)}: self = mask ? value : self. `value` is one
// element in self's dtype (dtype_size bytes), read before any core starts.
void masked_fill(const ElementwiseDesc& d, const void* value);

}  // namespace torch_tpu::kernels
