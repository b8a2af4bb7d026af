// Elementwise bitwise and/or/xor/not, shifts, and where (kernels/elementwise/ops.h).
#include "kernels/common/fp_contract.h"  // first, see there

#include <climits>

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/ops.h"

namespace torch_tpu::kernels::ew {
namespace {

// bitwise_and/or/xor: bool and every integer dtype (uint16/32/64 included).
template <ElementwiseOp kO, int kKind>  // 0 and, 1 or, 2 xor
struct BitwiseOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kKind == 0 ? "bitwise_and" : kKind == 1 ? "bitwise_or" : "bitwise_xor";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kIsBool<C> || is_plain_int_v<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (kKind == 0) {
        return static_cast<M>(a & b);
      } else if constexpr (kKind == 1) {
        return static_cast<M>(a | b);
      } else {
        return static_cast<M>(a ^ b);
      }
    }
  };
};

// bitwise_not: bool and uint8..int64 (not uint16/32/64).
struct BitwiseNotOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kBitwiseNot;
  static constexpr const char* kName = "bitwise_not";
  static constexpr int kInputs = 1;
  template <typename C>
  static constexpr bool supports = kIsBool<C> || kIsIntegral<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a) const {
      if constexpr (std::is_same_v<M, bool>) {
        return !a;
      } else {
        return static_cast<M>(~a);
      }
    }
  };
};

// Shifts (uint8..int64), as CPU's vectorized shifts (vpsllv/vpsrav): a shift
// by a negative amount or by the bit width or more gives 0 (left) or the
// sign fill (right).
template <ElementwiseOp kO, bool kLeft>
struct ShiftOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kLeft ? "lshift" : "rshift";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kIsIntegral<C>;

  template <typename C>
  struct Fn {
    using M = C;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      using S = std::make_signed_t<M>;
      using U = std::make_unsigned_t<M>;
      if constexpr (kLeft) {
        constexpr M kMax = sizeof(M) * CHAR_BIT;
        const bool out = static_cast<S>(b) < 0 || b >= kMax;
        const U sh = out ? U(0) : static_cast<U>(b);
        const M r = static_cast<M>(static_cast<U>(static_cast<U>(a) << sh));
        return out ? M(0) : r;
      } else {
        constexpr M kMax = sizeof(M) * CHAR_BIT - std::is_signed_v<M>;
        const bool out = static_cast<S>(b) < 0 || b >= kMax;
        const M sh = out ? kMax : b;
        return static_cast<M>(a >> sh);
      }
    }
  };
};

// where(cond, a, b): computes in the output's dtype (every dtype). The bool
// condition arrives converted to it (0 or 1); values are selected, never
// rounded (M = C: float16/bfloat16 keep their bits).
struct WhereOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kWhere;
  static constexpr const char* kName = "where";
  static constexpr int kInputs = 3;
  static constexpr bool kComplex32 = true;  // selected in complex64: exact both ways
  template <typename C>
  static constexpr bool supports = true;

  template <typename C>
  struct Fn {
    using M = std::conditional_t<is_reduced_v<C>, C, opmath_t<C>>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M c, M a, M b) const {
      if constexpr (is_complex_v<M>) {
        const bool t = truthy(c);
        return {t ? a.re : b.re, t ? a.im : b.im};
      } else if constexpr (is_reduced_v<M>) {
        return M{static_cast<uint16_t>(truthy(c) ? a.bits : b.bits)};
      } else {
        return truthy(c) ? a : b;
      }
    }
  };
};

}  // namespace

constinit const OpEntry kBitwiseAndEntry = make_entry<BitwiseOp<ElementwiseOp::kBitwiseAnd, 0>>();
constinit const OpEntry kBitwiseOrEntry = make_entry<BitwiseOp<ElementwiseOp::kBitwiseOr, 1>>();
constinit const OpEntry kBitwiseXorEntry = make_entry<BitwiseOp<ElementwiseOp::kBitwiseXor, 2>>();
constinit const OpEntry kBitwiseNotEntry = make_entry<BitwiseNotOp>();
constinit const OpEntry kLshiftEntry = make_entry<ShiftOp<ElementwiseOp::kLshift, true>>();
constinit const OpEntry kRshiftEntry = make_entry<ShiftOp<ElementwiseOp::kRshift, false>>();
constinit const OpEntry kWhereEntry = make_entry<WhereOp>();

}  // namespace torch_tpu::kernels::ew
