// gemm's public entries: complex dtypes go to the device BLAS
// (complex_gemm.cpp), the others to the ISA variant of gemm.cpp (see isa.h).
// Baseline only.
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/complex_gemm.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {

bool gemm_supports(DType t) {
  switch (t) {
    case DType::kFloat16: case DType::kBFloat16: case DType::kFloat32: case DType::kFloat64:
    case DType::kUInt8: case DType::kInt8: case DType::kInt16: case DType::kInt32:
    case DType::kInt64: case DType::kComplex64: case DType::kComplex128:
      return true;
    default:
      return false;
  }
}

TORCH_TPU_ISA_DISPATCH(void, real_gemm, (const GemmDesc& d), (d))
TORCH_TPU_ISA_DISPATCH(const char*, real_gemm_kernel_name, (DType t), (t))

void gemm(const GemmDesc& d) {
  if (is_complex_gemm(d.dtype)) return complex_gemm(d);
  real_gemm(d);
}

const char* gemm_kernel_name(DType t) {
  if (t == DType::kComplex64) return "blas-cgemm";
  if (t == DType::kComplex128) return "blas-zgemm";
  return real_gemm_kernel_name(t);
}

}  // namespace torch_tpu::kernels
