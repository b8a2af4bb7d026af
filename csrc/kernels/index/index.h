// Device kernels for indexing: index_select, gather/scatter (with their
// reductions), advanced indexing (index / index_put), masked_fill. Torch-free:
// they see TensorDescs (element strides) or, for the ops ATen drives with a
// TensorIterator, an ElementwiseDesc (byte strides, fastest dimension first).
// They run inside a launched body and split their work with
// runtime::parallel_for.
//
// Data errors (an index out of range) can only be seen on the device. The
// kernel throws them with CPU's type and wording (kernels/common/data_errors.h);
// the next synchronisation reports them (as CUDA's device-side asserts do,
// but recoverable, naming the op and where it was launched).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/common/data_errors.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// How a kernel checks an index against the size of the dimension it selects,
// and how it reports one out of range: each op keeps CPU's error type and
// wording. The strings are static (string literals): kernels run later.
struct IndexBounds {
  bool wrap_negative = false;     // accept [-size, size), negatives from the end
  bool index_error = false;       // IndexError, else RuntimeError
  // Set: the whole message (index_add's "index out of range in self"). Else
  // prefix + "index i is out of bounds for dimension d with size s".
  const char* message = nullptr;
  const char* prefix = "";
  int64_t dim = -1;               // d in that message; -1: the kernel's own dim

  // Wraps k (when allowed) or throws; `dim` names the dimension otherwise.
  int64_t check(int64_t k, int64_t size, int64_t own_dim) const {
    if (k >= 0 && k < size) return k;
    if (wrap_negative && k < 0 && k >= -size) return k + size;
    fail(k, size, own_dim);
  }
  [[noreturn]] void fail(int64_t k, int64_t size, int64_t own_dim) const;
};

// scatter/gather: RuntimeError, no wrapping (CPU's scatter_gather checks).
inline constexpr IndexBounds kScatterBounds{};
// advanced indexing (index, index_put): IndexError, negatives wrap.
inline constexpr IndexBounds kAdvancedIndexBounds{true, true, nullptr, "", -1};

// repeat_interleave(repeats), repeats contiguous int32 or int64 of length n.
// total: their sum; a negative one is CPU's RuntimeError "repeats can not be
// negative". write: out[j] = i for the repeats[i] positions after those of
// repeats[0..i), out of repeats' dtype and `total` long; a total that is not
// the sum is "allocated size does not match required size" (RuntimeError).
void repeat_interleave_total(const void* repeats, DType dtype, int64_t n, int64_t* total);
void repeat_interleave_write(const void* repeats, DType dtype, int64_t n, void* out, int64_t total);

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
  kAddScaled,  // index_add with alpha: self += alpha * src, alpha in the compute type
};
bool scatter_supports(ScatterOp op, DType dtype);  // max/min: not complex

// self[p with p[dim] = index[p]] (op)= src[p]. With src == nullptr the
// element `value` (dtype_size(self.dtype) bytes, in self's dtype) is used.
// kAddScaled needs src; `value` is then alpha in the compute type (float for
// float16/bfloat16, bool for bool, else self's dtype), as CPU's add kernel
// scales each element before the add, rounding once.
// The index_* ops (index_add/copy/fill/reduce) are scatters along dim whose
// index is a vector expanded (stride 0) over the other dims; `bounds` gives
// each op CPU's wording.
void scatter(const TensorDesc& self, int64_t dim, const TensorDesc& index, const TensorDesc* src,
             const void* value, ScatterOp op, const IndexBounds& bounds = kScatterBounds);

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
// indices...}. kParallel runs on all cores (duplicates: one of them wins);
// kInOrder runs serially in iteration order, so the last duplicate wins (CPU's
// serial loop, CUDA's sorted put under torch.use_deterministic_algorithms);
// kAccumulate sums serially in iteration order (deterministic, like CPU).
enum class PutMode : int8_t { kParallel, kInOrder, kAccumulate };
void index_put(const ElementwiseDesc& d, const std::vector<int64_t>& indexed_sizes,
               const std::vector<int64_t>& indexed_strides, PutMode mode,
               const IndexBounds& bounds = kAdvancedIndexBounds);
bool index_put_accumulate_supports(DType dtype);

// ---- take / put_ (flat indices into self, ATen's take_stub / put_stub) ------
// d: take {out, index}, put {source, index}; index is int64, in
// [-numel, numel) of self (negatives wrap), else an IndexError "out of
// range: tried to access index i on a tensor of n elements." (CPU's). self
// may be strided: a flat index counts its elements in row-major order. put
// with accumulate runs serially in iteration order (deterministic, as CPU).
enum class TakePut : int8_t { kTake, kPut, kPutAccumulate };
void take_put(const ElementwiseDesc& d, const TensorDesc& self, TakePut mode);

// ---- masked_fill ------------------------------------------------------------
// operands {self, mask (bool)}: self = mask ? value : self. `value` is one
// element in self's dtype (dtype_size bytes), read before any core starts.
void masked_fill(const ElementwiseDesc& d, const void* value);

}  // namespace torch_tpu::kernels
