// Elementwise comparisons (eq, ne, lt, le, gt, ge) and logical ops (and, or,
// xor, not): they compute in the common dtype and return bool, which the
// framework converts to the output's dtype (bool, or the dtype of an out=
// tensor, as CPU's cast of 0/1). See kernels/elementwise/ops.h.
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/ops.h"

namespace torch_tpu::kernels::ew {
namespace {

// eq/ne: every dtype. lt/le/gt/ge: bool, integral (not uint16/32/64),
// floating; no complex.
template <ElementwiseOp kO, int kKind>  // kKind: 0 eq, 1 ne, 2 lt, 3 le
struct CompareOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kKind == 0 ? "eq" : kKind == 1 ? "ne" : kKind == 2 ? "lt" : "le";
  static constexpr int kInputs = 2;
  static constexpr bool kComplex32 = kKind <= 1;  // eq, ne: the parts compared as floats
  template <typename C>
  static constexpr bool supports = kKind <= 1 || kIsRealOrBool<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    bool operator()(M a, M b) const {
      if constexpr (is_complex_v<M>) {
        const bool eq = (a.re == b.re) & (a.im == b.im);
        return kKind == 0 ? eq : !eq;
      } else if constexpr (kKind == 0) {
        return a == b;
      } else if constexpr (kKind == 1) {
        return a != b;
      } else if constexpr (kKind == 2) {
        return a < b;
      } else {
        return a <= b;
      }
    }
  };
};

// gt(a, b) is lt(b, a) and ge(a, b) is le(b, a), NaN included: the same
// loops (OpTraits::kSwapInputs), a third less code in this file.
template <typename Base, ElementwiseOp kO>
struct SwappedCompareOp : Base {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kO == ElementwiseOp::kGt ? "gt" : "ge";
  static constexpr bool kSwapInputs = true;
};

// logical_and/or/xor: every dtype but uint16/32/64.
template <ElementwiseOp kO, int kKind>  // 0 and, 1 or, 2 xor
struct LogicalOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kKind == 0 ? "logical_and" : kKind == 1 ? "logical_or" : "logical_xor";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = !kIsWideUnsigned<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    bool operator()(M a, M b) const {
      const bool x = truthy(a), y = truthy(b);
      if constexpr (kKind == 0) {
        return x & y;
      } else if constexpr (kKind == 1) {
        return x | y;
      } else {
        return x != y;
      }
    }
  };
};

// logical_not: computes in the input's dtype (every dtype but uint16/32/64).
struct LogicalNotOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kLogicalNot;
  static constexpr const char* kName = "logical_not";
  static constexpr int kInputs = 1;
  template <typename C>
  static constexpr bool supports = !kIsWideUnsigned<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    bool operator()(M a) const { return !truthy(a); }
  };
};

}  // namespace

constinit const OpEntry kEqEntry = make_entry<CompareOp<ElementwiseOp::kEq, 0>>();
constinit const OpEntry kNeEntry = make_entry<CompareOp<ElementwiseOp::kNe, 1>>();
constinit const OpEntry kLtEntry = make_entry<CompareOp<ElementwiseOp::kLt, 2>>();
constinit const OpEntry kLeEntry = make_entry<CompareOp<ElementwiseOp::kLe, 3>>();
constinit const OpEntry kGtEntry =
    make_entry<SwappedCompareOp<CompareOp<ElementwiseOp::kLt, 2>, ElementwiseOp::kGt>>();
constinit const OpEntry kGeEntry =
    make_entry<SwappedCompareOp<CompareOp<ElementwiseOp::kLe, 3>, ElementwiseOp::kGe>>();
constinit const OpEntry kLogicalAndEntry = make_entry<LogicalOp<ElementwiseOp::kLogicalAnd, 0>>();
constinit const OpEntry kLogicalOrEntry = make_entry<LogicalOp<ElementwiseOp::kLogicalOr, 1>>();
constinit const OpEntry kLogicalXorEntry = make_entry<LogicalOp<ElementwiseOp::kLogicalXor, 2>>();
constinit const OpEntry kLogicalNotEntry = make_entry<LogicalNotOp>();

}  // namespace torch_tpu::kernels::ew
