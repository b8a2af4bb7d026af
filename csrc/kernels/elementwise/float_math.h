// Shared pieces of the floating-point elementwise ops of nn_pointwise.cpp and
// special_math.cpp. Private to the kernel library; include after
// kernels/common/fp_contract.h.
#pragma once

#include <cmath>

#include "kernels/common/vec_math.h"
#include "kernels/elementwise/unary.h"

namespace torch_tpu::kernels::ew {

// An op over floating compute dtypes: kIn inputs, kA scalar arguments.
template <ElementwiseOp kO, int kIn, int kA = 0>
struct FloatingOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr int kInputs = kIn;
  static constexpr int kArgs = kA;
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C>;
};

// Float through vec_math.h's vectorizing functions, double through libm.
inline float exp_of(float x) { return vmath::exp_f(x); }
inline double exp_of(double x) { return std::exp(x); }
inline float exp2_of(float x) { return vmath::exp2_f(x); }
inline double exp2_of(double x) { return std::exp2(x); }
inline float expm1_of(float x) { return vmath::expm1_f(x); }
inline double expm1_of(double x) { return std::expm1(x); }
inline float log_of(float x) { return vmath::log_f(x); }
inline double log_of(double x) { return std::log(x); }
inline float log1p_of(float x) { return vmath::log1p_f(x); }
inline double log1p_of(double x) { return std::log1p(x); }
inline float tanh_of(float x) { return vmath::tanh_f(x); }
inline double tanh_of(double x) { return std::tanh(x); }

}  // namespace torch_tpu::kernels::ew
