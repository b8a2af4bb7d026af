// Force-included (-include) into the sanitizer lane's kernel subset, CMake's
// tpu_kernels_core_tests, which builds the baseline (avx2) variant of each
// file only: every ISA dispatch then calls name_avx2. isa.h is included
// first and is #pragma once, so these definitions are the ones the files
// see. Kept out of isa.h so that the product build never reads it.
#pragma once

#include "kernels/common/isa.h"

#undef TORCH_TPU_ISA_DISPATCH
#undef TORCH_TPU_ISA_DISPATCH_AVX512
#define TORCH_TPU_ISA_DISPATCH(ret, name, params, args) \
  ret name##_avx2 params;                               \
  ret name params { return name##_avx2 args; }
#define TORCH_TPU_ISA_DISPATCH_AVX512(ret, name, params, args) \
  TORCH_TPU_ISA_DISPATCH(ret, name, params, args)
