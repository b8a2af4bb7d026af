// Shared between gemm.cpp and gemv.cpp. Private to the kernel library.
#pragma once

#include <type_traits>

#include "gemm.h"
#include "half.h"

namespace torch_tpu::kernels::gemm_detail {

// An element widened to the accumulator (float for float16/bfloat16) and a
// result narrowed back (round to nearest even).
template <typename In, typename Acc>
inline Acc load_acc(In x) {
  if constexpr (std::is_same_v<In, Half>) {
    return half_bits_to_float(x.bits);
  } else if constexpr (std::is_same_v<In, BFloat16>) {
    return bfloat16_bits_to_float(x.bits);
  } else {
    return static_cast<Acc>(x);
  }
}

template <typename In, typename Acc>
inline In store_acc(Acc x) {
  if constexpr (std::is_same_v<In, Half>) {
    return Half{float_to_half_bits(x)};
  } else if constexpr (std::is_same_v<In, BFloat16>) {
    return BFloat16{float_to_bfloat16_bits(x)};
  } else {
    return static_cast<In>(x);
  }
}

// gemm for m == 1 or n == 1 (matrix-vector products and dot products):
// memory bound, so no packing; split over rows and, for long reductions with
// few rows, over fixed k chunks (summed in order, so results do not depend on
// the core count).
void gemv_for_gemm(const GemmDesc& d);

}  // namespace torch_tpu::kernels::gemm_detail
