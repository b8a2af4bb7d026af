// Maps a runtime DType to its storage type (convert.h) for templated code.
// Private to the kernel library.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/common/convert.h"
#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

template <typename T>
struct TypeTag {
  using type = T;
};

// Calls f(TypeTag<T>{}) with T the storage type of `t`; not for complex32
// (see visit_dtype_or_complex32).
template <typename F>
decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::kBool: return f(TypeTag<Bool>{});
    case DType::kUInt8: return f(TypeTag<uint8_t>{});
    case DType::kInt8: return f(TypeTag<int8_t>{});
    case DType::kInt16: return f(TypeTag<int16_t>{});
    case DType::kInt32: return f(TypeTag<int32_t>{});
    case DType::kInt64: return f(TypeTag<int64_t>{});
    case DType::kUInt16: return f(TypeTag<uint16_t>{});
    case DType::kUInt32: return f(TypeTag<uint32_t>{});
    case DType::kUInt64: return f(TypeTag<uint64_t>{});
    case DType::kFloat16: return f(TypeTag<Half>{});
    case DType::kBFloat16: return f(TypeTag<BFloat16>{});
    case DType::kFloat32: return f(TypeTag<float>{});
    case DType::kFloat64: return f(TypeTag<double>{});
    case DType::kComplex64: return f(TypeTag<Complex<float>>{});
    case DType::kComplex128: return f(TypeTag<Complex<double>>{});
    case DType::kComplex32: break;  // not instantiated for every kernel: visit_dtype_or_complex32
  }
  throw std::invalid_argument("torch_tpu kernels: invalid DType " + std::to_string(static_cast<int>(t)) +
                              " for visit_dtype");
}

// visit_dtype, and complex32 as Complex<Half>: for the kernels written for
// complex32 (its conversions, and the elementwise ops that compute in it),
// so that no other kernel is instantiated for a type without arithmetic.
template <typename F>
decltype(auto) visit_dtype_or_complex32(DType t, F&& f) {
  if (t == DType::kComplex32) return f(TypeTag<Complex<Half>>{});
  return visit_dtype(t, std::forward<F>(f));
}

// Calls f(TypeTag<T>{}) for the integral dtypes of ATen's
// AT_DISPATCH_INTEGRAL_TYPES (uint8, int8, int16, int32, int64) and returns
// true; returns false for any other dtype, so the caller words its own error.
template <typename F>
bool visit_integral_dtype(DType t, F&& f) {
  switch (t) {
    case DType::kUInt8: f(TypeTag<uint8_t>{}); return true;
    case DType::kInt8: f(TypeTag<int8_t>{}); return true;
    case DType::kInt16: f(TypeTag<int16_t>{}); return true;
    case DType::kInt32: f(TypeTag<int32_t>{}); return true;
    case DType::kInt64: f(TypeTag<int64_t>{}); return true;
    default: return false;
  }
}

// Raw element of a given byte size, for copies and fills that only move bits.
struct Bytes16 {
  uint64_t lo, hi;
};

template <typename F>
decltype(auto) visit_element_size(size_t size, F&& f) {
  switch (size) {
    case 1: return f(TypeTag<uint8_t>{});
    case 2: return f(TypeTag<uint16_t>{});
    case 4: return f(TypeTag<uint32_t>{});
    case 8: return f(TypeTag<uint64_t>{});
    case 16: return f(TypeTag<Bytes16>{});
  }
  throw std::invalid_argument("torch_tpu kernels: unsupported element size " + std::to_string(size));
}

}  // namespace torch_tpu::kernels
