// Elementwise kernels over a TensorIterator-shaped loop: N operands (outputs
// first) that share one iteration shape, each with its own dtype and byte
// strides, computed in one compute dtype. Runs inside a launched body on a
// stream worker (see runtime::launch) and splits large loops over the
// device's cores with runtime::parallel_for. Runtime headers only.
//
// Semantics follow PyTorch CPU eager:
//   - each input is read in its own dtype and converted to the compute dtype
//     (as CPU's TensorIterator would cast it), the op runs in the compute
//     dtype's "opmath" type (float for float16/bfloat16, the type itself
//     otherwise), the result is rounded to the compute dtype once and then
//     converted to the output's dtype;
//   - scalar arguments (alpha, ...) are converted to the compute dtype first
//     (a float16 add rounds alpha to float16), as CPU's alpha.to<scalar_t>();
//   - integer arithmetic wraps; float NaN/inf propagate as IEEE says.
// The per-op notes (which CPU code path each op matches, where CPU itself
// differs between contiguous and strided inputs) are in kernels/elementwise/ops.h.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/common/tensor_desc.h"
#include "runtime/small_vector.h"

namespace torch_tpu::kernels {

// Every elementwise op, once, in table order: the list the enum, the count,
// the entries' declarations (kernels/elementwise/ops.h) and the op tables
// (elementwise.cpp) are made from, like ATen's AT_FORALL_* lists. Append
// only: an op's number indexes the tables. X(Name, Isa): the enumerator is
// kName and the entry kNameEntry, defined with make_entry in one
// elementwise_<family>.cpp; Isa is ISA when that file is compiled per ISA
// (CMake's TPU_KERNEL_AVX512_SOURCES, see isa.h), else BASE. To add an op: a
// line here, a functor and its entry line in the family's file.
#define TORCH_TPU_ELEMENTWISE_OPS(X) \
  X(Neg, BASE)                /* -a */ \
  X(Abs, BASE)                /* |a|; complex: (|a|, 0) */ \
  X(Add, BASE)                /* a + alpha * b   (args: alpha) */ \
  X(Sub, BASE)                /* a - alpha * b   (args: alpha) */ \
  X(Mul, BASE)                /* a * b */ \
  X(Div, BASE)                /* a / b, true division */ \
  X(Conj, BASE)               /* complex conjugate; other dtypes: a */ \
  /* --- unary elementwise (elementwise_unary_*.cpp, kernels/elementwise/activation.cpp) --- */ \
  X(Exp, ISA) \
  X(Exp2, ISA) \
  X(Expm1, ISA) \
  X(Log, ISA) \
  X(Log1p, ISA) \
  X(Log2, ISA) \
  X(Log10, ISA) \
  X(Sqrt, ISA) \
  X(Rsqrt, ISA) \
  X(Sin, ISA) \
  X(Cos, ISA) \
  X(Tan, ISA) \
  X(Tanh, ISA) \
  X(Sigmoid, ISA) \
  X(Erf, ISA) \
  X(Reciprocal, ISA) \
  X(Sign, BASE)               /* -1, 0, 1 (0 for NaN); bool: a */ \
  X(Floor, BASE) \
  X(Ceil, BASE) \
  X(Round, BASE)              /* half to even */ \
  X(RoundDecimals, BASE)      /* round(a * 10^d) / 10^d, d < 0: round(a / 10^-d) * 10^-d   (args: decimals) */ \
  X(Trunc, BASE) \
  X(Frac, BASE)               /* a - trunc(a) */ \
  X(IsNan, BASE)              /* -> bool */ \
  X(IsPosInf, BASE)           /* -> bool */ \
  X(IsNegInf, BASE)           /* -> bool */ \
  X(Gelu, ISA)                /* a * Phi(a) */ \
  X(GeluTanh, ISA)            /* gelu, tanh approximation */ \
  X(GeluBackward, ISA)        /* (grad, a) */ \
  X(GeluTanhBackward, ISA)    /* (grad, a) */ \
  X(Silu, ISA) \
  X(SiluBackward, ISA)        /* (grad, a) */ \
  X(SigmoidBackward, ISA)     /* (grad, y): grad * (1 - y) * y */ \
  X(TanhBackward, ISA)        /* (grad, y): grad * (1 - y * y) */ \
  X(Threshold, ISA)           /* (a, other): a <= threshold ? value : other   (args: threshold, value) */ \
  /* --- binary and ternary (elementwise_{divmod,minmax,compare,bitwise,pow,pointwise}.cpp) --- */ \
  X(DivTrunc, BASE)           /* a / b rounded toward zero */ \
  X(DivFloor, BASE)           /* a / b rounded down (Python's //) */ \
  X(Remainder, BASE)          /* a - b * floor(a / b) (sign of b) */ \
  X(Fmod, BASE)               /* C's fmod (sign of a) */ \
  X(Maximum, BASE)            /* NaN-propagating max */ \
  X(Minimum, BASE)            /* NaN-propagating min */ \
  X(Fmax, BASE)               /* max ignoring one NaN */ \
  X(Fmin, BASE)               /* min ignoring one NaN */ \
  X(Clamp, BASE)              /* min(max(x, lo), hi), tensors */ \
  X(ClampScalar, BASE)        /* clamp(x, lo, hi)   (args: lo, hi) */ \
  X(ClampMinScalar, BASE)     /* max(x, lo)         (args: lo) */ \
  X(ClampMaxScalar, BASE)     /* min(x, hi)         (args: hi) */ \
  X(Where, BASE)              /* cond ? a : b */ \
  X(Eq, BASE)                 /* a == b -> bool (also ne, lt, le, gt, ge) */ \
  X(Ne, BASE) \
  X(Lt, BASE) \
  X(Le, BASE) \
  X(Gt, BASE) \
  X(Ge, BASE) \
  X(LogicalAnd, BASE)         /* -> bool */ \
  X(LogicalOr, BASE) \
  X(LogicalXor, BASE) \
  X(LogicalNot, BASE) \
  X(BitwiseAnd, BASE) \
  X(BitwiseOr, BASE) \
  X(BitwiseXor, BASE) \
  X(BitwiseNot, BASE) \
  X(Lshift, BASE) \
  X(Rshift, BASE) \
  X(Pow, ISA)                 /* a ** b */ \
  X(PowScalar, ISA)           /* a ** e (args: e) */ \
  X(Atan2, ISA) \
  X(Hypot, ISA) \
  X(LerpScalar, BASE)         /* lerp(a, b, w) (args: w) */ \
  X(LerpTensor, BASE)         /* lerp(a, b, w) */ \
  X(Addcmul, BASE)            /* s + v * t1 * t2 (args: v) */ \
  X(Addcdiv, BASE)            /* s + v * t1 / t2 (args: v) */ \
  /* --- more unary math (kernels/elementwise/unary_math.cpp), appended: the numbers above stay --- */ \
  X(Sinh, ISA) \
  X(Cosh, ISA) \
  X(Asin, ISA) \
  X(Acos, ISA) \
  X(Atan, ISA) \
  X(Asinh, ISA) \
  X(Acosh, ISA) \
  X(Atanh, ISA) \
  /* --- pointwise nn ops and losses (kernels/elementwise/nn_pointwise.cpp) --- */ \
  X(Hardswish, BASE) \
  X(HardswishBackward, BASE)    /* (grad, x) */ \
  X(Hardsigmoid, BASE) \
  X(HardsigmoidBackward, BASE)  /* (grad, x) */ \
  X(Hardshrink, BASE)           /* (args: lambd) */ \
  X(Softshrink, BASE)           /* (args: lambd) */ \
  X(ShrinkBackward, BASE)       /* (grad, x)   (args: lambd) */ \
  X(Softplus, BASE)             /* (args: beta, threshold) */ \
  X(SoftplusBackward, BASE)     /* (grad, x)   (args: beta, threshold) */ \
  X(Mse, BASE)                  /* (input, target) */ \
  X(MseBackward, BASE)          /* (input, target, grad)   (args: norm) */ \
  X(SmoothL1, BASE)             /* (input, target)   (args: beta) */ \
  X(SmoothL1Backward, BASE)     /* (input, target, grad)   (args: norm, beta) */ \
  X(Huber, BASE)                /* (input, target)   (args: delta) */ \
  X(HuberBackward, BASE)        /* (input, target, grad)   (args: norm, delta) */ \
  X(Xlogy, BASE)                /* x * log(y), 0 where x == 0 */ \
  X(Elu, BASE)                  /* (args: alpha, scale, input_scale) */ \
  X(EluBackward, BASE)          /* (grad, a)   (args: alpha, scale, input_scale, is_result) */ \
  X(LeakyRelu, BASE)            /* (args: negative_slope) */ \
  X(LeakyReluBackward, BASE)    /* (x, grad)   (args: negative_slope) */ \
  X(HardtanhBackward, BASE)     /* (grad, x)   (args: min, max) */ \
  X(Mish, BASE) \
  X(MishBackward, BASE)         /* (grad, x) */ \
  X(Glu, BASE)                  /* (a, b): a * sigmoid(b) */ \
  /* --- special functions (kernels/elementwise/special_math.cpp) --- */ \
  X(Logaddexp, BASE) \
  X(Logaddexp2, BASE) \
  X(Copysign, BASE) \
  X(Heaviside, BASE)            /* (x, values) */ \
  X(Sinc, BASE) \
  X(Lgamma, ISA)                /* special_vec.cpp */ \
  X(Erfc, ISA)                  /* special_vec.cpp */ \
  X(Digamma, BASE) \
  X(Erfinv, ISA)                /* special_vec.cpp */ \
  X(Logit, BASE)                /* (args: eps; < 0: none) */ \
  X(LogitBackward, BASE)        /* (grad, x)   (args: eps) */ \
  /* --- more pointwise nn ops (kernels/elementwise/nn_pointwise.cpp) --- */ \
  X(LogSigmoid, BASE) \
  X(LogSigmoidBackward, BASE)   /* (x, grad) */ \
  X(Prelu, BASE)                /* (x, weight) */ \
  X(GluBackward, BASE)          /* (sigmoid(b), a, grad) */ \
  X(PreluBackwardInput, BASE)   /* (x, weight, grad) */ \
  X(PreluBackwardWeight, BASE)  /* (x, weight, grad) */ \
  X(BinaryCrossEntropy, BASE)   /* (x, target) */ \
  X(BinaryCrossEntropyBackward, BASE)  /* (x, target, grad) */ \
  X(Signbit, BASE)              /* -> bool */ \
  X(NanToNum, BASE)             /* (args: nan, posinf, neginf) */ \
  X(RenormScale, BASE)          /* (norm): norm > maxnorm ? maxnorm / (norm + 1e-7) : 1   (args: maxnorm) */ \
  X(Sgn, BASE)                  /* complex: a / |a| (0 at 0); sign for other dtypes */ \
  /* --- special functions of torch.special (kernels/elementwise/special_functions.cpp) --- */ \
  X(I0, ISA)                    /* special_vec.cpp */ \
  X(SpecialI0e, ISA)            /* special_vec.cpp */ \
  X(SpecialI1, ISA)             /* special_vec.cpp */ \
  X(SpecialI1e, ISA)            /* special_vec.cpp */ \
  X(SpecialNdtri, BASE) \
  X(SpecialLogNdtr, BASE) \
  X(SpecialErfcx, BASE) \
  X(SpecialEntr, BASE) \
  X(SpecialXlog1py, BASE)       /* (x, y): x * log1p(y) */ \
  X(Polygamma, BASE)            /* (args: n) */ \
  X(SpecialZeta, BASE)          /* (s, q): Hurwitz zeta */ \
  /* --- more special functions (kernels/elementwise/nextafter_gcd_igamma_frexp.cpp) --- */ \
  X(Nextafter, BASE) \
  X(Gcd, BASE) \
  X(Lcm, BASE) \
  X(Angle, BASE)                /* complex: (arg z, 0) */ \
  X(Igamma, BASE)               /* (a, x): P(a, x) */ \
  X(Igammac, BASE)              /* (a, x): Q(a, x) */ \
  X(FrexpMantissa, BASE)        /* frexp's mantissa (csrc/aten/native/elementwise/frexp.cpp) */ \
  X(FrexpExponent, BASE)        /* frexp's exponent, as a value of the compute dtype */ \
  /* --- orthogonal polynomials, (x, n) (kernels/elementwise/special_polynomials.cpp) --- */ \
  X(SpecialChebyshevT, BASE) \
  X(SpecialChebyshevU, BASE) \
  X(SpecialChebyshevV, BASE) \
  X(SpecialChebyshevW, BASE) \
  X(SpecialShiftedChebyshevT, BASE) \
  X(SpecialShiftedChebyshevU, BASE) \
  X(SpecialShiftedChebyshevV, BASE) \
  X(SpecialShiftedChebyshevW, BASE) \
  X(SpecialHermiteH, BASE) \
  X(SpecialHermiteHe, BASE) \
  X(SpecialLaguerreL, BASE) \
  X(SpecialLegendreP, BASE) \
  X(SpecialSphericalBesselJ0, BASE)   /* sin(x) / x (special_polynomials.cpp) */ \
  /* --- Bessel functions and Airy Ai (kernels/elementwise/special_bessel.cpp) --- */ \
  X(SpecialBesselJ0, BASE) \
  X(SpecialBesselJ1, BASE) \
  X(SpecialBesselY0, BASE) \
  X(SpecialBesselY1, BASE) \
  X(SpecialModifiedBesselI0, BASE) \
  X(SpecialModifiedBesselI1, BASE) \
  X(SpecialModifiedBesselK0, BASE) \
  X(SpecialModifiedBesselK1, BASE) \
  X(SpecialScaledModifiedBesselK0, BASE)   /* e^x K0(x) */ \
  X(SpecialScaledModifiedBesselK1, BASE)   /* e^x K1(x) */ \
  X(SpecialAiryAi, BASE)

enum class ElementwiseOp : int16_t {
#define TORCH_TPU_EW_ENUMERATOR(name, isa) k##name,
  TORCH_TPU_ELEMENTWISE_OPS(TORCH_TPU_EW_ENUMERATOR)
#undef TORCH_TPU_EW_ENUMERATOR
};
#define TORCH_TPU_EW_COUNT(name, isa) +1
constexpr int kNumElementwiseOps = 0 TORCH_TPU_ELEMENTWISE_OPS(TORCH_TPU_EW_COUNT);
#undef TORCH_TPU_EW_COUNT

// A scalar argument, converted by the kernel to the compute dtype (with
// convert(): integers wrap, complex -> real takes the real part).
struct ScalarArg {
  enum class Kind : int8_t { kBool, kInt, kDouble, kComplex };
  Kind kind = Kind::kInt;
  int64_t i = 0;        // kBool (0/1) and kInt
  double re = 0, im = 0;  // kDouble (re) and kComplex

  static ScalarArg from_bool(bool v) { return {Kind::kBool, v ? 1 : 0, 0, 0}; }
  static ScalarArg from_int(int64_t v) { return {Kind::kInt, v, 0, 0}; }
  static ScalarArg from_double(double v) { return {Kind::kDouble, 0, v, 0}; }
  static ScalarArg from_complex(double r, double i) { return {Kind::kComplex, 0, r, i}; }
};

// Descriptor vectors keep their usual sizes inline: the host builds one per
// launch, and a heap allocation each was a fifth of a small op's host time.
// The whole descriptor (~450 bytes for a binary op) fits runtime::TaskBody's
// inline buffer. TensorIterator coalesces most shapes to 1-3 dims.
using Dims = SmallVector<int64_t, 5>;

using ScalarArgs = SmallVector<ScalarArg, 2>;

struct ElementwiseOperand {
  // Device memory of element (0, ..., 0). Null for a by-value operand.
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  // Bytes per dimension (one per shape dim); 0 = broadcast. Unused (may be
  // empty) for a by-value operand.
  Dims strides;
  // A by-value operand: a scalar that lives on the host (a Python number, a
  // CPU 0-dim tensor) travels inside the descriptor, in its own dtype; it is
  // read like a device operand whose strides are all 0.
  bool by_value = false;
  alignas(16) unsigned char value[16] = {};

  static ElementwiseOperand tensor(void* data, DType dtype, Dims strides);
  // `bytes` holds dtype_size(dtype) bytes.
  static ElementwiseOperand scalar(DType dtype, const void* bytes);
};

struct ElementwiseDesc {
  // Iteration shape, fastest dimension FIRST (TensorIterator's order). May be
  // empty (one element).
  Dims shape;
  // Outputs first, then inputs in the op's order. Outputs must not partially
  // overlap inputs (exact aliasing, in-place, is fine).
  SmallVector<ElementwiseOperand, 3> operands;
  int noutputs = 1;
  DType compute = DType::kFloat32;  // TensorIterator's common dtype
  ScalarArgs args;  // the op's scalar arguments, in order

  int64_t numel() const;
};

// Runs `op` over `d`. Throws std::invalid_argument for a malformed
// descriptor or a compute dtype the op does not support (the glue checks
// elementwise_supports first so users get a host-side error).
void elementwise(ElementwiseOp op, const ElementwiseDesc& d);

// Whether `op` is implemented for compute dtype `compute`: the dtypes
// PyTorch CPU supports for it.
bool elementwise_supports(ElementwiseOp op, DType compute);

const char* elementwise_op_name(ElementwiseOp op);
int elementwise_num_inputs(ElementwiseOp op);
int elementwise_num_args(ElementwiseOp op);

}  // namespace torch_tpu::kernels
