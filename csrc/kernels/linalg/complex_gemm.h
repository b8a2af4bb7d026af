// gemm (gemm.h) of complex64 and complex128. Private to the kernel library.
#pragma once

#include "kernels/linalg/gemm.h"

namespace torch_tpu::kernels {

inline bool is_complex_gemm(DType t) { return t == DType::kComplex64 || t == DType::kComplex128; }

// Same contract as gemm(), for the complex dtypes (with alpha_imag,
// beta_imag, conj_a and conj_b).
void complex_gemm(const GemmDesc& d);

}  // namespace torch_tpu::kernels
