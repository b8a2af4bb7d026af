// Shared between gemm.cpp and gemv.cpp. Private to the kernel library.
#pragma once

#include "kernels/linalg/gemm.h"
#include "kernels/common/half.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace gemm_detail {

// gemm for m == 1 or n == 1 (matrix-vector products and dot products):
// memory bound, so no packing; split over rows and, for long reductions with
// few rows, over fixed k chunks (summed in order, so results do not depend on
// the core count).
void gemv_for_gemm(const GemmDesc& d);

}  // namespace gemm_detail
}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels
