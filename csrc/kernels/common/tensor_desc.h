// What device code sees of a tensor: a pointer, an element type, sizes and
// strides (in elements). Built by the launchers in csrc/aten from at::Tensor;
// device code never sees torch types. Runtime headers only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace torch_tpu::kernels {

// Element types the device supports. The numbering is ours; csrc/aten maps
// at::ScalarType onto it and rejects anything else with a clear error.
enum class DType : int8_t {
  kBool,
  kUInt8,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,
  kBFloat16,
  kFloat32,
  kFloat64,
  kComplex64,
  kComplex128,
  // complex32 (ComplexHalf): stored, copied and converted like the others,
  // but not a case of visit_dtype (dtype_dispatch.h): only the kernels
  // written for it take it (bit moves by element size, the conversions of
  // kernels/copy/complex32.cpp, the elementwise ops CPU computes in it).
  kComplex32,
};
constexpr int kNumDTypes = 16;

size_t dtype_size(DType t);
const char* dtype_name(DType t);

struct TensorDesc {
  void* data = nullptr;           // element (0,...,0); already includes the storage offset
  DType dtype = DType::kFloat32;
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;   // in elements, may be 0 (broadcast) but not negative

  int64_t numel() const;
  int64_t dim() const { return static_cast<int64_t>(sizes.size()); }
  bool is_contiguous() const;     // row-major dense (size-1 dims ignored)
};

// Merges adjacent dimensions that can be iterated as one for every operand
// (the same shape, strides compatible), drops size-1 dimensions. All descs
// must have equal sizes. Leaves at least one dimension.
void coalesce_dims(std::vector<TensorDesc*> descs);

}  // namespace torch_tpu::kernels
