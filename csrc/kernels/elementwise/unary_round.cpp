// Elementwise sign, rounding (floor, ceil, round, round with decimals, trunc,
// frac) and the float classification predicates isnan/isposinf/isneginf,
// which return bool (kernels/elementwise/ops.h). All exact: the same bits as CPU.
#include "kernels/common/fp_contract.h"  // first, see there
// GCC 12's own avx512 half conversions, inlined: see kernels/elementwise/arith.cpp.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

#include <cmath>
#include <limits>

#include "kernels/elementwise/unary.h"

namespace torch_tpu::kernels::ew {
namespace {

template <typename C>
inline constexpr bool kWideUnsigned =
    std::is_same_v<C, uint16_t> || std::is_same_v<C, uint32_t> || std::is_same_v<C, uint64_t>;

// CPU's sign_kernel: bool (identity), the integer types but uint16/32/64, and
// the floating types; (0 < a) - (a < 0), so NaN and -0 give +0.
struct SignOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kSign;
  static constexpr const char* kName = "sign";
  static constexpr int kInputs = 1;
  template <typename C>
  static constexpr bool supports = !is_complex_v<C> && !kWideUnsigned<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a) const {
      if constexpr (std::is_same_v<M, bool>) {
        return a;
      } else {
        return static_cast<M>(static_cast<M>(M(0) < a) - static_cast<M>(a < M(0)));
      }
    }
  };
};

#define TPU_ROUND_IMPL(Name, OP, NAME, EXPR)                     \
  struct Name {                                                  \
    static constexpr ElementwiseOp kOp = ElementwiseOp::OP;      \
    static constexpr const char* kName = NAME;                   \
    template <typename T>                                        \
    static T f(T x) {                                            \
      return EXPR;                                               \
    }                                                            \
  };

// Integer inputs never reach these: ATen copies them before the stub.
TPU_ROUND_IMPL(FloorImpl, kFloor, "floor", std::floor(x))
TPU_ROUND_IMPL(CeilImpl, kCeil, "ceil", std::ceil(x))
TPU_ROUND_IMPL(RoundImpl, kRound, "round", std::rint(x))  // half to even, as nearbyint
TPU_ROUND_IMPL(TruncImpl, kTrunc, "trunc", std::trunc(x))
TPU_ROUND_IMPL(FracImpl, kFrac, "frac", x - std::trunc(x))

#undef TPU_ROUND_IMPL

// CPU's round_decimals_kernel: 10^|d| in opmath; d >= 0: rint(a * p) / p,
// d < 0: rint(a / p) * p.
struct RoundDecimalsOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kRoundDecimals;
  static constexpr const char* kName = "round_decimals";
  static constexpr int kInputs = 1;
  static constexpr int kArgs = 1;
  template <typename C>
  static constexpr bool supports = kFloatingCompute<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M pow10;
    bool neg;
    explicit Fn(const ScalarArgs& args)
        : pow10(static_cast<M>(std::pow(10.0, static_cast<double>(args[0].i < 0 ? -args[0].i : args[0].i)))),
          neg(args[0].i < 0) {}
    M operator()(M a) const { return neg ? std::rint(a / pow10) * pow10 : std::rint(a * pow10) / pow10; }
  };
};

// Predicates: bool results (see result_compute_t in kernels/elementwise/loops.h).
// Integer and bool inputs are never NaN or infinite.
template <ElementwiseOp kOpV, int kWhich>
struct ClassifyOp : OpTraits {
  static constexpr ElementwiseOp kOp = kOpV;
  static constexpr const char* kName = kWhich == 0 ? "isnan" : (kWhich == 1 ? "isposinf" : "isneginf");
  static constexpr int kInputs = 1;
  template <typename C>
  static constexpr bool supports = !is_complex_v<C>;

  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    bool operator()(M a) const {
      if constexpr (!std::is_floating_point_v<M>) {
        return false;
      } else if constexpr (kWhich == 0) {
        return a != a;
      } else if constexpr (kWhich == 1) {
        return a == std::numeric_limits<M>::infinity();
      } else {
        return a == -std::numeric_limits<M>::infinity();
      }
    }
  };
};

}  // namespace

constinit const OpEntry kSignEntry = make_entry<SignOp>();
constinit const OpEntry kFloorEntry = make_entry<FloatUnaryOp<FloorImpl>>();
constinit const OpEntry kCeilEntry = make_entry<FloatUnaryOp<CeilImpl>>();
constinit const OpEntry kRoundEntry = make_entry<FloatUnaryOp<RoundImpl>>();
constinit const OpEntry kRoundDecimalsEntry = make_entry<RoundDecimalsOp>();
constinit const OpEntry kTruncEntry = make_entry<FloatUnaryOp<TruncImpl>>();
constinit const OpEntry kFracEntry = make_entry<FloatUnaryOp<FracImpl>>();
constinit const OpEntry kIsNanEntry = make_entry<ClassifyOp<ElementwiseOp::kIsNan, 0>>();
constinit const OpEntry kIsPosInfEntry = make_entry<ClassifyOp<ElementwiseOp::kIsPosInf, 1>>();
constinit const OpEntry kIsNegInfEntry = make_entry<ClassifyOp<ElementwiseOp::kIsNegInf, 2>>();

}  // namespace torch_tpu::kernels::ew
