// Elementwise exponentials, logarithms, roots, trigonometric functions,
// sigmoid, erf and reciprocal (kernels/elementwise/ops.h). Float (and float16/
// bfloat16, in float) uses the vectorizing approximations of vec_math.h,
// where CPU uses SLEEF's (a few ulp from CPU; sqrt, rsqrt and reciprocal are
// correctly rounded divisions/roots as on CPU); sin, cos and tan use libm's
// float functions (correct range reduction for every input, not vectorized).
// Double uses libm throughout. Complex64/complex128 (all but erf) use
// kernels/elementwise/complex_math.h: CPU's complex functions, bit for bit.
#include "kernels/common/fp_contract.h"  // first, see there
// GCC 12's own avx512 half conversions, inlined: see kernels/elementwise/arith.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <cmath>

#include "kernels/elementwise/complex_math.h"
#include "kernels/elementwise/unary.h"
#include "kernels/common/isa.h"
#include "kernels/common/vec_math.h"

namespace torch_tpu::kernels::ew {
inline namespace TORCH_TPU_ISA {  // see isa.h
namespace {

#define TPU_UNARY_IMPL(Name, OP, NAME, FLOAT_EXPR, DOUBLE_EXPR)    \
  struct Name {                                                    \
    static constexpr ElementwiseOp kOp = ElementwiseOp::OP;        \
    static constexpr const char* kName = NAME;                     \
    __attribute__((always_inline)) static float f(float x) { return FLOAT_EXPR; }  \
    static double f(double x) { return DOUBLE_EXPR; }              \
  };

// The same with complex64/complex128 (kernels/elementwise/complex_math.h):
// cx::NAME of the complex value.
#define TPU_UNARY_IMPL_C(Name, OP, NAME, FLOAT_EXPR, DOUBLE_EXPR)  \
  struct Name {                                                    \
    static constexpr ElementwiseOp kOp = ElementwiseOp::OP;        \
    static constexpr const char* kName = #NAME;                    \
    static constexpr bool kComplex = true;                         \
    __attribute__((always_inline)) static float f(float x) { return FLOAT_EXPR; }  \
    static double f(double x) { return DOUBLE_EXPR; }              \
    static Complex<float> f(Complex<float> z) { return cx::NAME(z); }   \
    static Complex<double> f(Complex<double> z) { return cx::NAME(z); } \
  };

TPU_UNARY_IMPL_C(ExpImpl, kExp, exp, vmath::exp_f(x), std::exp(x))
TPU_UNARY_IMPL_C(Exp2Impl, kExp2, exp2, vmath::exp2_f(x), std::exp2(x))
TPU_UNARY_IMPL_C(Expm1Impl, kExpm1, expm1, vmath::expm1_f(x), std::expm1(x))
TPU_UNARY_IMPL_C(LogImpl, kLog, log, vmath::log_f(x), std::log(x))
TPU_UNARY_IMPL_C(Log1pImpl, kLog1p, log1p, vmath::log1p_f(x), std::log1p(x))
TPU_UNARY_IMPL_C(Log2Impl, kLog2, log2, vmath::log2_f(x), std::log2(x))
TPU_UNARY_IMPL_C(Log10Impl, kLog10, log10, vmath::log10_f(x), std::log10(x))
TPU_UNARY_IMPL_C(SqrtImpl, kSqrt, sqrt, std::sqrt(x), std::sqrt(x))
// 1 / sqrt(x), two correctly rounded steps, as ATen's Vectorized rsqrt.
TPU_UNARY_IMPL_C(RsqrtImpl, kRsqrt, rsqrt, 1.0f / std::sqrt(x), 1.0 / std::sqrt(x))
TPU_UNARY_IMPL_C(SinImpl, kSin, sin, std::sin(x), std::sin(x))
TPU_UNARY_IMPL_C(CosImpl, kCos, cos, std::cos(x), std::cos(x))
TPU_UNARY_IMPL_C(TanImpl, kTan, tan, std::tan(x), std::tan(x))
TPU_UNARY_IMPL_C(TanhImpl, kTanh, tanh, vmath::tanh_f(x), std::tanh(x))
// 1 / (1 + e^-x), as CPU's sigmoid.
TPU_UNARY_IMPL_C(SigmoidImpl, kSigmoid, sigmoid, vmath::sigmoid_f(x), 1.0 / (1.0 + std::exp(-x)))
TPU_UNARY_IMPL(ErfImpl, kErf, "erf", vmath::erf_f(x), std::erf(x))
TPU_UNARY_IMPL_C(ReciprocalImpl, kReciprocal, reciprocal, 1.0f / x, 1.0 / x)
// libm's float functions (SLEEF's on CPU): within an ulp or two of CPU.
TPU_UNARY_IMPL_C(SinhImpl, kSinh, sinh, std::sinh(x), std::sinh(x))
TPU_UNARY_IMPL_C(CoshImpl, kCosh, cosh, std::cosh(x), std::cosh(x))
TPU_UNARY_IMPL_C(AsinImpl, kAsin, asin, std::asin(x), std::asin(x))
TPU_UNARY_IMPL_C(AcosImpl, kAcos, acos, std::acos(x), std::acos(x))
TPU_UNARY_IMPL_C(AtanImpl, kAtan, atan, std::atan(x), std::atan(x))
TPU_UNARY_IMPL_C(AsinhImpl, kAsinh, asinh, std::asinh(x), std::asinh(x))
TPU_UNARY_IMPL_C(AcoshImpl, kAcosh, acosh, std::acosh(x), std::acosh(x))
TPU_UNARY_IMPL_C(AtanhImpl, kAtanh, atanh, std::atanh(x), std::atanh(x))

#undef TPU_UNARY_IMPL
#undef TPU_UNARY_IMPL_C

}  // namespace
}  // namespace TORCH_TPU_ISA

constinit const OpEntry TORCH_TPU_ISA_ENTRY(kExpEntry) = make_entry<FloatUnaryOp<ExpImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kExp2Entry) = make_entry<FloatUnaryOp<Exp2Impl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kExpm1Entry) = make_entry<FloatUnaryOp<Expm1Impl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kLogEntry) = make_entry<FloatUnaryOp<LogImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kLog1pEntry) = make_entry<FloatUnaryOp<Log1pImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kLog2Entry) = make_entry<FloatUnaryOp<Log2Impl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kLog10Entry) = make_entry<FloatUnaryOp<Log10Impl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSqrtEntry) = make_entry<FloatUnaryOp<SqrtImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kRsqrtEntry) = make_entry<FloatUnaryOp<RsqrtImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSinEntry) = make_entry<FloatUnaryOp<SinImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kCosEntry) = make_entry<FloatUnaryOp<CosImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kTanEntry) = make_entry<FloatUnaryOp<TanImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kTanhEntry) = make_entry<FloatUnaryOp<TanhImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSigmoidEntry) = make_entry<FloatUnaryOp<SigmoidImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kErfEntry) = make_entry<FloatUnaryOp<ErfImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kReciprocalEntry) = make_entry<FloatUnaryOp<ReciprocalImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kSinhEntry) = make_entry<FloatUnaryOp<SinhImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kCoshEntry) = make_entry<FloatUnaryOp<CoshImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kAsinEntry) = make_entry<FloatUnaryOp<AsinImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kAcosEntry) = make_entry<FloatUnaryOp<AcosImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kAtanEntry) = make_entry<FloatUnaryOp<AtanImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kAsinhEntry) = make_entry<FloatUnaryOp<AsinhImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kAcoshEntry) = make_entry<FloatUnaryOp<AcoshImpl>>();
constinit const OpEntry TORCH_TPU_ISA_ENTRY(kAtanhEntry) = make_entry<FloatUnaryOp<AtanhImpl>>();

}  // namespace torch_tpu::kernels::ew
