// DType facts and the TensorDesc helpers declared in tensor_desc.h.
#include <stdexcept>
#include <string>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kBool:
    case DType::kUInt8:
    case DType::kInt8: return 1;
    case DType::kInt16:
    case DType::kUInt16:
    case DType::kFloat16:
    case DType::kBFloat16: return 2;
    case DType::kInt32:
    case DType::kUInt32:
    case DType::kFloat32:
    case DType::kComplex32: return 4;
    case DType::kInt64:
    case DType::kUInt64:
    case DType::kFloat64:
    case DType::kComplex64: return 8;
    case DType::kComplex128: return 16;
  }
  throw std::invalid_argument("torch_tpu kernels: invalid DType " + std::to_string(static_cast<int>(t)));
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kBool: return "bool";
    case DType::kUInt8: return "uint8";
    case DType::kInt8: return "int8";
    case DType::kInt16: return "int16";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kUInt16: return "uint16";
    case DType::kUInt32: return "uint32";
    case DType::kUInt64: return "uint64";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat32: return "float32";
    case DType::kFloat64: return "float64";
    case DType::kComplex64: return "complex64";
    case DType::kComplex128: return "complex128";
    case DType::kComplex32: return "complex32";
  }
  return "invalid";
}

int64_t TensorDesc::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool TensorDesc::is_contiguous() const {
  if (numel() == 0) return true;  // like PyTorch: empty tensors are contiguous
  int64_t expected = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    if (sizes[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= sizes[i];
  }
  return true;
}

}  // namespace torch_tpu::kernels
