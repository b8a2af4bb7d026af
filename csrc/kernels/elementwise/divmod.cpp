// Elementwise division with rounding (trunc, floor), remainder and fmod
// (kernels/elementwise/ops.h). Integral and floating compute dtypes; an integer
// division by zero raises "ZeroDivisionError" on the device (a sticky error
// reported by the next synchronisation, where CPU raises at the call).
//
// float16/bfloat16 follow CPU's two paths: with a tensor divisor, every step
// of div_trunc/div_floor is rounded to the dtype (Vectorized<Half> ops); with
// a scalar divisor (FnScalarOther) the whole formula runs in float with the
// divisor unrounded, and the result is rounded once.
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/ops.h"

namespace torch_tpu::kernels::ew {
namespace {

template <typename C>
inline constexpr bool kDivTypes = kIsIntegral<C> || kIsFloating<C>;

template <ElementwiseOp kO, int kKind>  // 0 div_trunc, 1 div_floor, 2 remainder, 3 fmod
struct DivModOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kKind == 0 ? "div_trunc" : kKind == 1 ? "div_floor"
                                     : kKind == 2 ? "remainder" : "fmod";
  static constexpr int kInputs = 2;
  static constexpr bool kScalarOtherAsOpmath = kKind <= 1;
  template <typename C>
  static constexpr bool supports = kDivTypes<C>;

  // kRoundSteps: round every intermediate to C (the tensor-divisor path).
  template <typename C, bool kRoundSteps>
  struct FnImpl {
    using M = opmath_t<C>;
    explicit FnImpl(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (!std::is_floating_point_v<M>) {
        if constexpr (kKind == 0) {
          return int_div_trunc(a, b);
        } else if constexpr (kKind == 1) {
          return int_div_floor(a, b);
        } else if constexpr (kKind == 2) {
          return int_remainder(a, b);
        } else {
          return int_mod_trunc(a, b);
        }
      } else {
        using R = std::conditional_t<kRoundSteps, C, M>;  // what intermediates round to
        if constexpr (kKind == 0) {
          return std::trunc(round_to<R>(a / b));
        } else if constexpr (kKind == 1) {
          return float_div_floor<R>(a, b);
        } else if constexpr (kKind == 2) {
          return float_remainder(a, b);
        } else {
          return std::fmod(a, b);
        }
      }
    }
  };
  template <typename C>
  using Fn = FnImpl<C, true>;
  template <typename C>
  using FnScalarOther = FnImpl<C, false>;
};

}  // namespace

constinit const OpEntry kDivTruncEntry = make_entry<DivModOp<ElementwiseOp::kDivTrunc, 0>>();
constinit const OpEntry kDivFloorEntry = make_entry<DivModOp<ElementwiseOp::kDivFloor, 1>>();
constinit const OpEntry kRemainderEntry = make_entry<DivModOp<ElementwiseOp::kRemainder, 2>>();
constinit const OpEntry kFmodEntry = make_entry<DivModOp<ElementwiseOp::kFmod, 3>>();

}  // namespace torch_tpu::kernels::ew
