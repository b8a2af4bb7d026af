// gemm's public entries: pick the ISA variant of gemm.cpp (see isa.h).
// Baseline only.
#include "kernels/linalg/gemm.h"
#include "kernels/common/isa.h"

namespace torch_tpu::kernels {

bool gemm_supports(DType t) {
  switch (t) {
    case DType::kFloat16: case DType::kBFloat16: case DType::kFloat32: case DType::kFloat64:
    case DType::kUInt8: case DType::kInt8: case DType::kInt16: case DType::kInt32:
    case DType::kInt64:
      return true;
    default:
      return false;
  }
}

TORCH_TPU_ISA_DISPATCH(void, gemm, (const GemmDesc& d), (d))
TORCH_TPU_ISA_DISPATCH(const char*, gemm_kernel_name, (DType t), (t))

}  // namespace torch_tpu::kernels
