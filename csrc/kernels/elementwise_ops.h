// The op table of elementwise.h. Private to the kernel library.
//
// Adding an op:
//   1. an enumerator in ElementwiseOp (elementwise.h);
//   2. a struct in an elementwise_<family>.cpp (contract in
//      elementwise_loops.h): kName, kInputs, kArgs, supports<C> (exactly the
//      compute dtypes PyTorch CPU accepts), Fn<C> with the arithmetic in
//      buffer type M, and `constinit const OpEntry k<Name>Entry = make_entry<Op>();`;
//   3. its row in kOps (elementwise.cpp), in enum order;
//   4. tests in tests/test_elementwise*.cpp (C++) and a comparison against
//      CPU eager in tests/test_elementwise_stub_kernels.py.
//
// Where PyTorch CPU itself gives different bits for contiguous and strided
// inputs, the kernels follow the contiguous (vectorized) path:
//   - float16/bfloat16 add with alpha != 1: fused in float, rounded once
//     (CPU's strided path rounds alpha*b to half first);
//   - float16/bfloat16 neg/abs: flip/clear the sign bit, NaN payloads kept
//     (CPU's strided path goes through float, bfloat16 NaNs become 0x7FC0);
//   - complex neg: 0 - x, so -(0+0i) is +0+0i (strided CPU: -0-0i);
//   - complex mul: no fused multiply-add (strided CPU fuses for complex64);
//   - complex abs: SLEEF's hypot (complex128: the same algorithm; complex64:
//     an equivalent), where CPU's strided path calls glibc's hypot, which
//     differs in the last bit for ~0.2% of complex128 inputs.
#pragma once

#include <vector>

#include "elementwise.h"

namespace torch_tpu::kernels::ew {

struct Plan;

struct OpEntry {
  ElementwiseOp op;
  const char* name;
  int inputs;
  int args;
  void (*run)(const Plan&, const std::vector<ScalarArg>&);
  bool (*supports)(DType);
};

template <typename Op>
void run_op(const Plan& p, const std::vector<ScalarArg>& args);
template <typename Op>
bool supports_op(DType t);

// The ops of the files compiled per ISA (CMake's TPU_KERNEL_AVX512_SOURCES,
// see isa.h) have one entry per variant; the op table picks by CPU.
#define TORCH_TPU_EW_ISA_ENTRY(name) \
  extern const OpEntry name##_avx2;  \
  extern const OpEntry name##_avx512;

template <typename Op>
constexpr OpEntry make_entry() {
  return OpEntry{Op::kOp, Op::kName, Op::kInputs, Op::kArgs, &run_op<Op>, &supports_op<Op>};
}

// elementwise_neg_abs.cpp
extern const OpEntry kNegEntry;
extern const OpEntry kAbsEntry;
extern const OpEntry kConjEntry;
// elementwise_arith.cpp
extern const OpEntry kAddEntry;
extern const OpEntry kSubEntry;
extern const OpEntry kMulEntry;
extern const OpEntry kDivEntry;
// --- unary elementwise ---
// elementwise_unary_math.cpp
TORCH_TPU_EW_ISA_ENTRY(kExpEntry)
TORCH_TPU_EW_ISA_ENTRY(kExp2Entry)
TORCH_TPU_EW_ISA_ENTRY(kExpm1Entry)
TORCH_TPU_EW_ISA_ENTRY(kLogEntry)
TORCH_TPU_EW_ISA_ENTRY(kLog1pEntry)
TORCH_TPU_EW_ISA_ENTRY(kLog2Entry)
TORCH_TPU_EW_ISA_ENTRY(kLog10Entry)
TORCH_TPU_EW_ISA_ENTRY(kSqrtEntry)
TORCH_TPU_EW_ISA_ENTRY(kRsqrtEntry)
TORCH_TPU_EW_ISA_ENTRY(kSinEntry)
TORCH_TPU_EW_ISA_ENTRY(kCosEntry)
TORCH_TPU_EW_ISA_ENTRY(kTanEntry)
TORCH_TPU_EW_ISA_ENTRY(kTanhEntry)
TORCH_TPU_EW_ISA_ENTRY(kSigmoidEntry)
TORCH_TPU_EW_ISA_ENTRY(kErfEntry)
TORCH_TPU_EW_ISA_ENTRY(kReciprocalEntry)
TORCH_TPU_EW_ISA_ENTRY(kSinhEntry)
TORCH_TPU_EW_ISA_ENTRY(kCoshEntry)
TORCH_TPU_EW_ISA_ENTRY(kAsinEntry)
TORCH_TPU_EW_ISA_ENTRY(kAcosEntry)
TORCH_TPU_EW_ISA_ENTRY(kAtanEntry)
TORCH_TPU_EW_ISA_ENTRY(kAsinhEntry)
TORCH_TPU_EW_ISA_ENTRY(kAcoshEntry)
TORCH_TPU_EW_ISA_ENTRY(kAtanhEntry)
// elementwise_unary_round.cpp
extern const OpEntry kSignEntry;
extern const OpEntry kFloorEntry;
extern const OpEntry kCeilEntry;
extern const OpEntry kRoundEntry;
extern const OpEntry kRoundDecimalsEntry;
extern const OpEntry kTruncEntry;
extern const OpEntry kFracEntry;
extern const OpEntry kIsNanEntry;
extern const OpEntry kIsPosInfEntry;
extern const OpEntry kIsNegInfEntry;
// elementwise_activation.cpp
TORCH_TPU_EW_ISA_ENTRY(kGeluEntry)
TORCH_TPU_EW_ISA_ENTRY(kGeluTanhEntry)
TORCH_TPU_EW_ISA_ENTRY(kGeluBackwardEntry)
TORCH_TPU_EW_ISA_ENTRY(kGeluTanhBackwardEntry)
TORCH_TPU_EW_ISA_ENTRY(kSiluEntry)
TORCH_TPU_EW_ISA_ENTRY(kSiluBackwardEntry)
TORCH_TPU_EW_ISA_ENTRY(kSigmoidBackwardEntry)
TORCH_TPU_EW_ISA_ENTRY(kTanhBackwardEntry)
TORCH_TPU_EW_ISA_ENTRY(kThresholdEntry)

// --- binary and ternary elementwise ---
// elementwise_divmod.cpp
extern const OpEntry kDivTruncEntry;
extern const OpEntry kDivFloorEntry;
extern const OpEntry kRemainderEntry;
extern const OpEntry kFmodEntry;
// elementwise_minmax.cpp
extern const OpEntry kMaximumEntry;
extern const OpEntry kMinimumEntry;
extern const OpEntry kFmaxEntry;
extern const OpEntry kFminEntry;
extern const OpEntry kClampEntry;
extern const OpEntry kClampScalarEntry;
extern const OpEntry kClampMinScalarEntry;
extern const OpEntry kClampMaxScalarEntry;
// elementwise_bitwise.cpp
extern const OpEntry kWhereEntry;
extern const OpEntry kBitwiseAndEntry;
extern const OpEntry kBitwiseOrEntry;
extern const OpEntry kBitwiseXorEntry;
extern const OpEntry kBitwiseNotEntry;
extern const OpEntry kLshiftEntry;
extern const OpEntry kRshiftEntry;
// elementwise_compare.cpp
extern const OpEntry kEqEntry;
extern const OpEntry kNeEntry;
extern const OpEntry kLtEntry;
extern const OpEntry kLeEntry;
extern const OpEntry kGtEntry;
extern const OpEntry kGeEntry;
extern const OpEntry kLogicalAndEntry;
extern const OpEntry kLogicalOrEntry;
extern const OpEntry kLogicalXorEntry;
extern const OpEntry kLogicalNotEntry;
// elementwise_pow.cpp
TORCH_TPU_EW_ISA_ENTRY(kPowEntry)
TORCH_TPU_EW_ISA_ENTRY(kPowScalarEntry)
TORCH_TPU_EW_ISA_ENTRY(kAtan2Entry)
TORCH_TPU_EW_ISA_ENTRY(kHypotEntry)
// elementwise_pointwise.cpp
extern const OpEntry kLerpScalarEntry;
extern const OpEntry kLerpTensorEntry;
extern const OpEntry kAddcmulEntry;
extern const OpEntry kAddcdivEntry;

}  // namespace torch_tpu::kernels::ew
