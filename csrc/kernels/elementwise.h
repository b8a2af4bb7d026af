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
// differs between contiguous and strided inputs) are in elementwise_ops.h.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor_desc.h"

namespace torch_tpu::kernels {

// The operations. Keep the numbering dense: it indexes the op table in
// elementwise.cpp. To add one: an enumerator here, a functor in an
// elementwise_<family>.cpp, a row in the table (see elementwise_ops.h).
enum class ElementwiseOp : int16_t {
  kNeg,  // -a
  kAbs,  // |a|; complex: (|a|, 0)
  kAdd,  // a + alpha * b   (args: alpha)
  kSub,  // a - alpha * b   (args: alpha)
  kMul,  // a * b
  kDiv,  // a / b, true division
  kConj,  // complex conjugate; other dtypes: a
  // --- unary elementwise (elementwise_unary_*.cpp, elementwise_activation.cpp) ---
  kExp,
  kExp2,
  kExpm1,
  kLog,
  kLog1p,
  kLog2,
  kLog10,
  kSqrt,
  kRsqrt,
  kSin,
  kCos,
  kTan,
  kTanh,
  kSigmoid,
  kErf,
  kReciprocal,
  kSign,           // -1, 0, 1 (0 for NaN); bool: a
  kFloor,
  kCeil,
  kRound,          // half to even
  kRoundDecimals,  // round(a * 10^d) / 10^d, d < 0: round(a / 10^-d) * 10^-d   (args: decimals)
  kTrunc,
  kFrac,           // a - trunc(a)
  kIsNan,          // -> bool
  kIsPosInf,       // -> bool
  kIsNegInf,       // -> bool
  kGelu,           // a * Phi(a)
  kGeluTanh,       // gelu, tanh approximation
  kGeluBackward,      // (grad, a)
  kGeluTanhBackward,  // (grad, a)
  kSilu,
  kSiluBackward,      // (grad, a)
  kSigmoidBackward,   // (grad, y): grad * (1 - y) * y
  kTanhBackward,      // (grad, y): grad * (1 - y * y)
  kThreshold,         // (a, other): a <= threshold ? value : other   (args: threshold, value)
  // --- binary and ternary (elementwise_{divmod,minmax,compare,bitwise,pow,pointwise}.cpp) ---
  kDivTrunc,        // a / b rounded toward zero
  kDivFloor,        // a / b rounded down (Python's //)
  kRemainder,       // a - b * floor(a / b) (sign of b)
  kFmod,            // C's fmod (sign of a)
  kMaximum,         // NaN-propagating max
  kMinimum,         // NaN-propagating min
  kFmax,            // max ignoring one NaN
  kFmin,            // min ignoring one NaN
  kClamp,           // min(max(x, lo), hi), tensors
  kClampScalar,     // clamp(x, lo, hi)   (args: lo, hi)
  kClampMinScalar,  // max(x, lo)         (args: lo)
  kClampMaxScalar,  // min(x, hi)         (args: hi)
  kWhere,           // cond ? a : b
  kEq,              // a == b -> bool (also ne, lt, le, gt, ge)
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kLogicalAnd,  // -> bool
  kLogicalOr,
  kLogicalXor,
  kLogicalNot,
  kBitwiseAnd,
  kBitwiseOr,
  kBitwiseXor,
  kBitwiseNot,
  kLshift,
  kRshift,
  kPow,          // a ** b
  kPowScalar,    // a ** e (args: e)
  kAtan2,
  kHypot,
  kLerpScalar,   // lerp(a, b, w) (args: w)
  kLerpTensor,   // lerp(a, b, w)
  kAddcmul,      // s + v * t1 * t2 (args: v)
  kAddcdiv,      // s + v * t1 / t2 (args: v)
  // --- more unary math (elementwise_unary_math.cpp), appended: the numbers above stay ---
  kSinh,
  kCosh,
  kAsin,
  kAcos,
  kAtan,
  kAsinh,
  kAcosh,
  kAtanh,
};
constexpr int kNumElementwiseOps = 87;

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

struct ElementwiseOperand {
  // Device memory of element (0, ..., 0). Null for a by-value operand.
  void* data = nullptr;
  DType dtype = DType::kFloat32;
  // Bytes per dimension (one per shape dim); 0 = broadcast. Unused (may be
  // empty) for a by-value operand.
  std::vector<int64_t> strides;
  // A by-value operand: a scalar that lives on the host (a Python number, a
  // CPU 0-dim tensor) travels inside the descriptor, in its own dtype; it is
  // read like a device operand whose strides are all 0.
  bool by_value = false;
  alignas(16) unsigned char value[16] = {};

  static ElementwiseOperand tensor(void* data, DType dtype, std::vector<int64_t> strides);
  // `bytes` holds dtype_size(dtype) bytes.
  static ElementwiseOperand scalar(DType dtype, const void* bytes);
};

struct ElementwiseDesc {
  // Iteration shape, fastest dimension FIRST (TensorIterator's order). May be
  // empty (one element).
  std::vector<int64_t> shape;
  // Outputs first, then inputs in the op's order. Outputs must not partially
  // overlap inputs (exact aliasing, in-place, is fine).
  std::vector<ElementwiseOperand> operands;
  int noutputs = 1;
  DType compute = DType::kFloat32;  // TensorIterator's common dtype
  std::vector<ScalarArg> args;      // the op's scalar arguments, in order

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
