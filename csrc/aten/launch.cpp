#include "aten/launch.h"

#include "aten/device/launch_origin.h"
#include "aten/device/runtime_check.h"
#include "aten/device/tpu_stream.h"

namespace torch_tpu::aten {

bool device_supports(at::ScalarType type) {
  switch (type) {
    case at::kBool: case at::kByte: case at::kChar: case at::kShort: case at::kInt:
    case at::kLong: case at::kUInt16: case at::kUInt32: case at::kUInt64: case at::kHalf:
    case at::kBFloat16: case at::kFloat: case at::kDouble: case at::kComplexFloat:
    case at::kComplexDouble:
      return true;
    default:
      return false;
  }
}

kernels::DType device_dtype(at::ScalarType type, const char* op, Complex32 complex32) {
  using kernels::DType;
  switch (type) {
    case at::kComplexHalf:
      if (complex32 == Complex32::kTaken) return DType::kComplex32;
      break;
    case at::kBool: return DType::kBool;
    case at::kByte: return DType::kUInt8;
    case at::kChar: return DType::kInt8;
    case at::kShort: return DType::kInt16;
    case at::kInt: return DType::kInt32;
    case at::kLong: return DType::kInt64;
    case at::kUInt16: return DType::kUInt16;
    case at::kUInt32: return DType::kUInt32;
    case at::kUInt64: return DType::kUInt64;
    case at::kHalf: return DType::kFloat16;
    case at::kBFloat16: return DType::kBFloat16;
    case at::kFloat: return DType::kFloat32;
    case at::kDouble: return DType::kFloat64;
    case at::kComplexFloat: return DType::kComplex64;
    case at::kComplexDouble: return DType::kComplex128;
    default:
      break;
  }
  TORCH_CHECK_NOT_IMPLEMENTED(false, "\"", op, "\" not implemented for '", c10::toString(type), "' on tpu");
}

kernels::TensorDesc describe(const at::Tensor& t, const char* op, Complex32 complex32) {
  kernels::TensorDesc d;
  d.data = const_cast<void*>(t.const_data_ptr());
  d.dtype = device_dtype(t.scalar_type(), op, complex32);
  d.sizes.assign(t.sizes().begin(), t.sizes().end());
  d.strides.assign(t.strides().begin(), t.strides().end());
  return d;
}

void launch(c10::DeviceIndex device, const char* name, const runtime::BufferList& buffers, runtime::TaskBody&& body) {
  TPU_CHECK(runtime::launch(native_stream(current_stream(device)), name, std::move(buffers),
                            std::move(body)));
}

void launch_validating(c10::DeviceIndex device, const char* name, const runtime::BufferList& buffers,
                       runtime::TaskBody&& body) {
  // With launch blocking the error is raised here, at the op: no origin needed.
  runtime::LaunchOriginPtr origin = runtime::launch_blocking() ? nullptr : launch_origin();
  TPU_CHECK(runtime::launch(native_stream(current_stream(device)), name, buffers, std::move(body),
                            std::move(origin)));
}

}  // namespace torch_tpu::aten
