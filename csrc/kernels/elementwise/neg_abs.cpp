// Elementwise neg, abs, conj and complex sgn (kernels/elementwise/ops.h).
#include "kernels/common/fp_contract.h"  // first, see there

#include <cmath>

#include "kernels/elementwise/loops.h"
#include "kernels/elementwise/math.h"
#include "kernels/elementwise/ops.h"

namespace torch_tpu::kernels::ew {
namespace {

// CPU's neg and abs dispatch on all types and complex plus float16 and
// bfloat16: not bool (ATen rejects neg of bool before the kernel) and not
// uint16/32/64.
template <typename C>
inline constexpr bool kSignedArith = !std::is_same_v<C, Bool> && !std::is_same_v<C, uint16_t> &&
                                     !std::is_same_v<C, uint32_t> && !std::is_same_v<C, uint64_t>;

// Float16/bfloat16 work on the bits (M = C), as CPU's vectorized code does.
struct NegOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kNeg;
  static constexpr const char* kName = "neg";
  static constexpr int kInputs = 1;
  static constexpr bool kComplex32 = true;
  template <typename C>
  static constexpr bool supports = kSignedArith<C>;

  template <typename C>
  struct Fn {
    using M = own_or_opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a) const {
      if constexpr (is_reduced_v<C>) {
        return C{static_cast<uint16_t>(a.bits ^ 0x8000u)};
      } else if constexpr (std::is_same_v<C, Complex<Half>>) {
        return {-a.re, -a.im};  // CPU: -c10::complex<Half>, each part's sign flipped
      } else if constexpr (is_complex_v<C>) {
        using T = decltype(a.re);
        return {T(0) - a.re, T(0) - a.im};  // Vectorized<complex>::neg: 0 - x
      } else if constexpr (std::is_floating_point_v<C>) {
        return -a;
      } else {
        return wrap_neg(a);
      }
    }
  };
};

// abs also takes bool (itself), as CUDA's abs does; CPU's does not.
struct AbsOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kAbs;
  static constexpr const char* kName = "abs";
  static constexpr int kInputs = 1;
  static constexpr bool kComplex32 = true;  // |a| in complex64, rounded
  template <typename C>
  static constexpr bool supports = kSignedArith<C> || std::is_same_v<C, Bool>;

  template <typename C>
  struct Fn {
    using M = own_or_opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a) const {
      if constexpr (is_reduced_v<C>) {
        return C{static_cast<uint16_t>(a.bits & 0x7FFFu)};
      } else if constexpr (is_complex_v<C>) {
        using T = decltype(a.re);
        return {complex_abs(a), T(0)};
      } else if constexpr (std::is_floating_point_v<C>) {
        return std::fabs(a);
      } else if constexpr (std::is_signed_v<C>) {
        return a < 0 ? wrap_neg(a) : a;  // abs(INT_MIN) wraps to INT_MIN, as on CPU
      } else {
        return a;
      }
    }
  };
};

// conj_physical: CPU conjugates complex numbers and copies every other dtype
// (bool, float16 and bfloat16 included).
struct ConjOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kConj;
  static constexpr const char* kName = "conj";
  static constexpr int kInputs = 1;
  static constexpr bool kComplex32 = true;
  template <typename C>
  static constexpr bool supports = true;

  template <typename C>
  struct Fn {
    using M = own_or_opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a) const {
      if constexpr (is_complex_v<C>) {
        return {a.re, -a.im};
      } else {
        return a;
      }
    }
  };
};

// sgn: complex only (ATen routes real dtypes to sign_stub). CPU's vectorized
// sgn divides both parts by |a| and blends in 0 where |a| == 0.
struct SgnOp : OpTraits {
  static constexpr ElementwiseOp kOp = ElementwiseOp::kSgn;
  static constexpr const char* kName = "sgn";
  static constexpr int kInputs = 1;
  static constexpr bool kComplex32 = true;  // in complex64, rounded
  template <typename C>
  static constexpr bool supports = is_complex_v<C>;

  template <typename C>
  struct Fn {
    using M = own_or_opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a) const {
      if constexpr (is_complex_v<C>) {
        using T = decltype(a.re);
        const T r = complex_abs(a);
        if (r == T(0)) return {T(0), T(0)};
        return {a.re / r, a.im / r};
      } else {
        return a;
      }
    }
  };
};

}  // namespace

constinit const OpEntry kSgnEntry = make_entry<SgnOp>();
constinit const OpEntry kNegEntry = make_entry<NegOp>();
constinit const OpEntry kAbsEntry = make_entry<AbsOp>();
constinit const OpEntry kConjEntry = make_entry<ConjOp>();

}  // namespace torch_tpu::kernels::ew
