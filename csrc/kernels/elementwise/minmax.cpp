// Elementwise maximum, minimum, fmax, fmin and clamp (kernels/elementwise/ops.h).
// Floating results follow CPU's AVX-512 paths: maximum/minimum are maxps/
// minps with NaN propagation (for equal values, including +0/-0, the second
// operand), fmax/fmin are glibc's (the first operand when equal; bfloat16:
// the second, as CPU gives), clamp with
// scalar bounds is minps(hi, maxps(lo, x)).
#include "kernels/common/fp_contract.h"  // first, see there

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/ops.h"

namespace torch_tpu::kernels::ew {
namespace {

// maximum/minimum (and clamp_min/clamp_max with tensor bounds): bool,
// integral, floating. Bool: or / and.
template <ElementwiseOp kO, bool kMax>
struct MaxMinOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kMax ? "maximum" : "minimum";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kIsRealOrBool<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (std::is_same_v<M, bool>) {
        return kMax ? (a | b) : (a & b);
      } else {
        return kMax ? nan_maximum(a, b) : nan_minimum(a, b);
      }
    }
  };
};

// fmax/fmin: NaN only when both are NaN; integers and bool as maximum/minimum.
template <ElementwiseOp kO, bool kMax>
struct FMaxMinOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kMax ? "fmax" : "fmin";
  static constexpr int kInputs = 2;
  template <typename C>
  static constexpr bool supports = kIsRealOrBool<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      if constexpr (std::is_same_v<M, bool>) {
        return kMax ? (a | b) : (a & b);
      } else if constexpr (std::is_same_v<C, BFloat16>) {
        return (kMax ? a > b : a < b) | (b != b) ? a : b;  // CPU: the second one when equal
      } else if constexpr (std::is_floating_point_v<M>) {
        return (kMax ? a >= b : a <= b) | (b != b) ? a : b;
      } else {
        return kMax ? max_ps(a, b) : min_ps(a, b);
      }
    }
  };
};

// clamp(x, lo, hi) with tensor bounds: integral and floating (no bool);
// minimum(maximum(x, lo), hi), NaN if any is NaN.
struct ClampOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kClamp;
  static constexpr const char* kName = "clamp";
  static constexpr int kInputs = 3;
  template <typename C>
  static constexpr bool supports = kIsIntegral<C> || kIsFloating<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M lo, M hi) const { return nan_minimum(nan_maximum(x, lo), hi); }
  };
};

// clamp / clamp_min / clamp_max with scalar bounds (args: the bounds, rounded
// to the compute dtype as CPU's min.to<scalar_t>()): integral and floating.
template <ElementwiseOp kO, int kKind>  // 0 both (args lo, hi), 1 min (lo), 2 max (hi)
struct ClampScalarOp : OpTraits {
  static constexpr ElementwiseOp kOp = kO;
  static constexpr const char* kName = kKind == 0 ? "clamp_scalar" : kKind == 1 ? "clamp_min_scalar"
                                                                               : "clamp_max_scalar";
  static constexpr int kInputs = 1;
  static constexpr int kArgs = kKind == 0 ? 2 : 1;
  template <typename C>
  static constexpr bool supports = kIsIntegral<C> || kIsFloating<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M lo, hi;
    explicit Fn(const ScalarArgs& args)
        : lo(kKind == 2 ? M{} : to_buffer<M>(scalar_to<C>(args[0]))),
          hi(kKind == 0 ? to_buffer<M>(scalar_to<C>(args[1])) : kKind == 2 ? to_buffer<M>(scalar_to<C>(args[0])) : M{}) {}
    M operator()(M x) const {
      if constexpr (kKind == 0) {
        return min_ps(hi, max_ps(lo, x));
      } else if constexpr (kKind == 1) {
        return max_ps(lo, x);
      } else {
        return min_ps(hi, x);
      }
    }
  };
};

}  // namespace

constinit const OpEntry kMaximumEntry = make_entry<MaxMinOp<ElementwiseOp::kMaximum, true>>();
constinit const OpEntry kMinimumEntry = make_entry<MaxMinOp<ElementwiseOp::kMinimum, false>>();
constinit const OpEntry kFmaxEntry = make_entry<FMaxMinOp<ElementwiseOp::kFmax, true>>();
constinit const OpEntry kFminEntry = make_entry<FMaxMinOp<ElementwiseOp::kFmin, false>>();
constinit const OpEntry kClampEntry = make_entry<ClampOp>();
constinit const OpEntry kClampScalarEntry = make_entry<ClampScalarOp<ElementwiseOp::kClampScalar, 0>>();
constinit const OpEntry kClampMinScalarEntry = make_entry<ClampScalarOp<ElementwiseOp::kClampMinScalar, 1>>();
constinit const OpEntry kClampMaxScalarEntry = make_entry<ClampScalarOp<ElementwiseOp::kClampMaxScalar, 2>>();

}  // namespace torch_tpu::kernels::ew
