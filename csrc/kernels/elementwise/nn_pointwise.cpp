// Pointwise nn ops: the activations (hardswish, hardsigmoid, hard/soft
// shrink, softplus, elu, leaky_relu, hardtanh's backward, mish, glu) and the
// pointwise losses (mse, smooth_l1, huber) with their backwards, and xlogy. Floating dtypes only, computed in
// opmath (float for float16/bfloat16, rounded once), as CPU's kernels in
// ATen/native/cpu/Activation.cpp and PointwiseOpsKernel.cpp. Where CPU's
// scalar and vectorized loops differ for NaN, these follow the vectorized one
// (kernels/elementwise/ops.h): hardswish_backward and shrink_backward of a
// NaN input give NaN and 0. Scalars arrive unconverted (the generated stub
// kernels' scalar_value) and are converted here the way CPU converts them:
// to the compute dtype (`to<scalar_t>`) or straight to float (`to<float>`
// in CPU's reduced-precision branches).
#include "kernels/common/fp_contract.h"  // first, see there

#include <cmath>

#include "kernels/elementwise/binary_math.h"
#include "kernels/elementwise/float_math.h"

namespace torch_tpu::kernels::ew {
namespace {

// A scalar as CPU's `s.to<scalar_t>()`: rounded to the compute dtype C, then
// widened to opmath M.
template <typename C, typename M>
M as_compute(const ScalarArg& s) {
  return to_buffer<M>(scalar_to<C>(s));
}

// min(max(x + 3, 0), 6), NaN propagating (CPU's vec::minimum/maximum).
template <typename M>
M relu6_of_x_plus_3(M x) {
  M t = x + M(3);
  t = t < M(0) ? M(0) : t;
  return t > M(6) ? M(6) : t;
}

struct HardswishOp : FloatingOp<ElementwiseOp::kHardswish, 1> {
  static constexpr const char* kName = "hardswish";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const { return x * relu6_of_x_plus_3(x) / M(6); }
  };
};

// (grad, x): 0 up to -3, grad from 3, grad * (x / 3 + 1/2) between.
struct HardswishBackwardOp : FloatingOp<ElementwiseOp::kHardswishBackward, 2> {
  static constexpr const char* kName = "hardswish_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M g, M x) const {
      return x <= M(-3) ? M(0) : (x >= M(3) ? g : g * (x / M(3) + M(0.5)));
    }
  };
};

struct HardsigmoidOp : FloatingOp<ElementwiseOp::kHardsigmoid, 1> {
  static constexpr const char* kName = "hardsigmoid";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const { return relu6_of_x_plus_3(x) / M(6); }
  };
};

// (grad, x): grad / 6 on (-3, 3), else 0. CPU multiplies by the float
// 1.0f / 6.0f, in double too.
struct HardsigmoidBackwardOp : FloatingOp<ElementwiseOp::kHardsigmoidBackward, 2> {
  static constexpr const char* kName = "hardsigmoid_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M g, M x) const { return (x > M(-3) && x < M(3)) ? g * M(1.0f / 6.0f) : M(0); }
  };
};

// args: lambd, in the compute dtype. 0 on [-lambd, lambd], else x.
struct HardshrinkOp : FloatingOp<ElementwiseOp::kHardshrink, 1, 1> {
  static constexpr const char* kName = "hardshrink";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M lambd;
    explicit Fn(const ScalarArgs& args) : lambd(as_compute<C, M>(args[0])) {}
    M operator()(M x) const { return (x >= -lambd && x <= lambd) ? M(0) : x; }
  };
};

// renorm's scale factor from a slice's norm (args: maxnorm): computed in
// opmath, as CPU's kernel over float norms for float16/bfloat16 input.
struct RenormScaleOp : FloatingOp<ElementwiseOp::kRenormScale, 1, 1> {
  static constexpr const char* kName = "renorm";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M maxnorm;
    explicit Fn(const ScalarArgs& args) : maxnorm(as_compute<C, M>(args[0])) {}
    M operator()(M norm) const { return norm > maxnorm ? maxnorm / (norm + M(1e-7)) : M(1); }
  };
};

// args: lambd, in opmath. x - lambd above lambd, x + lambd below -lambd, NaN
// stays NaN (as CPU), else 0.
struct SoftshrinkOp : FloatingOp<ElementwiseOp::kSoftshrink, 1, 1> {
  static constexpr const char* kName = "softshrink";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M lambd;
    explicit Fn(const ScalarArgs& args) : lambd(scalar_to<M>(args[0])) {}
    M operator()(M x) const {
      return x > lambd ? x - lambd : (x < -lambd ? x + lambd : (x != x ? x : M(0)));
    }
  };
};

// (grad, x), args: lambd in the compute dtype: grad outside [-lambd, lambd],
// else 0 (hardshrink_backward and softshrink_backward).
struct ShrinkBackwardOp : FloatingOp<ElementwiseOp::kShrinkBackward, 2, 1> {
  static constexpr const char* kName = "shrink_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M lambd;
    explicit Fn(const ScalarArgs& args) : lambd(as_compute<C, M>(args[0])) {}
    M operator()(M g, M x) const { return (x < -lambd || x > lambd) ? g : M(0); }
  };
};

// args: beta, threshold in opmath. x where x * beta > threshold, else
// log1p(exp(x * beta)) / beta.
struct SoftplusOp : FloatingOp<ElementwiseOp::kSoftplus, 1, 2> {
  static constexpr const char* kName = "softplus";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M beta, threshold;
    explicit Fn(const ScalarArgs& args)
        : beta(scalar_to<M>(args[0])), threshold(scalar_to<M>(args[1])) {}
    // Both sides computed, then selected: a division under the condition
    // kept GCC from vectorizing the loop (3.6x CPU's time; now a select).
    M operator()(M x) const {
      const M xb = x * beta;
      const M soft = log1p_of(exp_of(xb)) / beta;
      return xb > threshold ? x : soft;
    }
  };
};

// (grad, x), args: beta, threshold: grad * z / (z + 1), z = exp(x * beta).
struct SoftplusBackwardOp : FloatingOp<ElementwiseOp::kSoftplusBackward, 2, 2> {
  static constexpr const char* kName = "softplus_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M beta, threshold;
    explicit Fn(const ScalarArgs& args)
        : beta(scalar_to<M>(args[0])), threshold(scalar_to<M>(args[1])) {}
    M operator()(M g, M x) const {
      const M xb = x * beta;
      const M z = exp_of(xb);
      const M soft = g * z / (z + M(1));  // computed unconditionally: see SoftplusOp
      return xb > threshold ? g : soft;
    }
  };
};

// (input, target): (input - target)^2.
struct MseOp : FloatingOp<ElementwiseOp::kMse, 2> {
  static constexpr const char* kName = "mse";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const {
      const M d = round_to<C>(a - b);  // CPU's float16/bfloat16 loop rounds the difference
      return d * d;
    }
  };
};

// (input, target, grad), args: norm (2 / n or 2) in the compute dtype:
// norm * (input - target) * grad.
struct MseBackwardOp : FloatingOp<ElementwiseOp::kMseBackward, 3, 1> {
  static constexpr const char* kName = "mse_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M norm;
    explicit Fn(const ScalarArgs& args) : norm(as_compute<C, M>(args[0])) {}
    M operator()(M a, M b, M g) const { return norm * (a - b) * g; }
  };
};

// (input, target), args: beta: z = |input - target|; z < beta ? z^2 / 2 / beta : z - beta / 2.
struct SmoothL1Op : FloatingOp<ElementwiseOp::kSmoothL1, 2, 1> {
  static constexpr const char* kName = "smooth_l1";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M beta;
    explicit Fn(const ScalarArgs& args) : beta(as_compute<C, M>(args[0])) {}
    M operator()(M a, M b) const {
      const M z = std::abs(a - b);
      return z < beta ? M(0.5) * z * z / beta : z - M(0.5) * beta;
    }
  };
};

// (input, target, grad), args: norm, beta: the derivative of smooth_l1 times
// norm * grad.
struct SmoothL1BackwardOp : FloatingOp<ElementwiseOp::kSmoothL1Backward, 3, 2> {
  static constexpr const char* kName = "smooth_l1_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M norm, beta;
    explicit Fn(const ScalarArgs& args)
        : norm(as_compute<C, M>(args[0])), beta(as_compute<C, M>(args[1])) {}
    M operator()(M a, M b, M g) const {
      const M x = a - b;
      return x <= -beta ? -norm * g : (x >= beta ? norm * g : norm * x * g / beta);
    }
  };
};

// (input, target), args: delta: z = |input - target|; z < delta ? z^2 / 2 : delta * (z - delta / 2).
struct HuberOp : FloatingOp<ElementwiseOp::kHuber, 2, 1> {
  static constexpr const char* kName = "huber";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M delta;
    explicit Fn(const ScalarArgs& args) : delta(as_compute<C, M>(args[0])) {}
    M operator()(M a, M b) const {
      const M z = std::abs(a - b);
      return z < delta ? M(0.5) * z * z : delta * (z - M(0.5) * delta);
    }
  };
};

// (input, target, grad), args: norm, delta.
struct HuberBackwardOp : FloatingOp<ElementwiseOp::kHuberBackward, 3, 2> {
  static constexpr const char* kName = "huber_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M norm, delta;
    explicit Fn(const ScalarArgs& args)
        : norm(as_compute<C, M>(args[0])), delta(as_compute<C, M>(args[1])) {}
    M operator()(M a, M b, M g) const {
      const M x = a - b;
      return x <= -delta ? -norm * g * delta : (x >= delta ? norm * g * delta : norm * x * g);
    }
  };
};

// x * log(y); NaN where y is NaN, 0 where x is 0 (else).
struct XlogyOp : FloatingOp<ElementwiseOp::kXlogy, 2> {
  static constexpr const char* kName = "xlogy";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M y) const {
      if (std::isnan(y)) return y;
      if (x == M(0)) return M(0);
      return x * round_to<C>(log_of(y));  // CPU's float16/bfloat16 loop rounds the log
    }
  };
};

// args: alpha, scale, input_scale: x <= 0 ? expm1(x * input_scale) * alpha
// * scale : x * scale (NaN takes the second branch). alpha * scale is one
// constant, as on CPU.
struct EluOp : FloatingOp<ElementwiseOp::kElu, 1, 3> {
  static constexpr const char* kName = "elu";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M negcoef, poscoef, negiptcoef;
    explicit Fn(const ScalarArgs& args)
        : negcoef(static_cast<M>(scalar_to<double>(args[0]) * scalar_to<double>(args[1]))),
          poscoef(scalar_to<M>(args[1])),
          negiptcoef(scalar_to<M>(args[2])) {}
    M operator()(M x) const { return x <= M(0) ? expm1_of(x * negiptcoef) * negcoef : x * poscoef; }
  };
};

// (grad, a), args: alpha, scale, input_scale, is_result (a is the forward's
// result, else its input). A NaN `a` takes the negative branch (a NaN
// gradient), as CPU's vectorized a > 0 test in every dtype. CPU's scalar
// loop, which runs only the tail past its last whole pair of vectors, takes
// the positive one: which a CPU element gets depends on its position and on
// the CPU's vector width (float16 on AVX2: vectorized from 32 elements, on
// AVX-512 from 64).
struct EluBackwardOp : FloatingOp<ElementwiseOp::kEluBackward, 2, 4> {
  static constexpr const char* kName = "elu_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M negcoef, poscoef, negiptcoef, neg_times_ipt;
    bool is_result;
    explicit Fn(const ScalarArgs& args)
        : negcoef(static_cast<M>(scalar_to<double>(args[0]) * scalar_to<double>(args[1]))),
          poscoef(scalar_to<M>(args[1])),
          negiptcoef(scalar_to<M>(args[2])),
          neg_times_ipt(static_cast<M>(scalar_to<double>(args[2]) * scalar_to<double>(args[0]) *
                                       scalar_to<double>(args[1]))),
          is_result(args[3].i != 0) {}
    M operator()(M g, M a) const {
      const M neg = is_result ? g * negiptcoef * (a + negcoef) : g * neg_times_ipt * exp_of(a * negiptcoef);
      return a > M(0) ? g * poscoef : neg;
    }
  };
};

// args: negative_slope (opmath): x > 0 ? x : x * slope.
struct LeakyReluOp : FloatingOp<ElementwiseOp::kLeakyRelu, 1, 1> {
  static constexpr const char* kName = "leaky_relu";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M slope;
    explicit Fn(const ScalarArgs& args) : slope(scalar_to<M>(args[0])) {}
    M operator()(M x) const { return x > M(0) ? x : x * slope; }
  };
};

// (x, grad), args: negative_slope: x > 0 ? grad : grad * slope.
struct LeakyReluBackwardOp : FloatingOp<ElementwiseOp::kLeakyReluBackward, 2, 1> {
  static constexpr const char* kName = "leaky_relu_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M slope;
    explicit Fn(const ScalarArgs& args) : slope(scalar_to<M>(args[0])) {}
    M operator()(M x, M g) const { return x > M(0) ? g : g * slope; }
  };
};

// (grad, x), args: min, max (opmath): min < x < max ? grad : 0 (NaN: 0, as
// CPU's vectorized loop).
struct HardtanhBackwardOp : FloatingOp<ElementwiseOp::kHardtanhBackward, 2, 2> {
  static constexpr const char* kName = "hardtanh_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    M lo, hi;
    explicit Fn(const ScalarArgs& args) : lo(scalar_to<M>(args[0])), hi(scalar_to<M>(args[1])) {}
    M operator()(M g, M x) const { return (x > lo && x < hi) ? g : M(0); }
  };
};

// x * tanh(softplus(x)) = x * tanh(log1p(exp(x))).
struct MishOp : FloatingOp<ElementwiseOp::kMish, 1> {
  static constexpr const char* kName = "mish";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const { return x * tanh_of(log1p_of(exp_of(x))); }
  };
};

// (grad, x): grad * (t + x * sigmoid(x) * (1 - t^2)), t = tanh(softplus(x)).
struct MishBackwardOp : FloatingOp<ElementwiseOp::kMishBackward, 2> {
  static constexpr const char* kName = "mish_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M g, M x) const {
      const M sigmoid = M(1) / (M(1) + exp_of(-x));
      const M t = tanh_of(log1p_of(exp_of(x)));
      return g * (t + x * sigmoid * (M(1) - t * t));
    }
  };
};

// (a, b), the input's halves: a * sigmoid(b).
struct GluOp : FloatingOp<ElementwiseOp::kGlu, 2> {
  static constexpr const char* kName = "glu";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M a, M b) const { return a * (M(1) / (M(1) + exp_of(-b))); }
  };
};
// min(x, 0) - log1p(exp(-|x|)): log(sigmoid(x)) without overflow.
struct LogSigmoidOp : FloatingOp<ElementwiseOp::kLogSigmoid, 1> {
  static constexpr const char* kName = "log_sigmoid";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x) const {
      const M lo = x < M(0) ? x : (x != x ? x : M(0));
      return lo - log1p_of(exp_of(-std::abs(x)));
    }
  };
};

// (x, grad): grad * ((x < 0) - sign * z / (1 + z)), z = exp(-|x|), sign
// +1 for x < 0 and -1 otherwise (CUDA's formula, which needs no buffer).
struct LogSigmoidBackwardOp : FloatingOp<ElementwiseOp::kLogSigmoidBackward, 2> {
  static constexpr const char* kName = "log_sigmoid_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M g) const {
      const bool negative = x < M(0);
      const M z = exp_of(-std::abs(x));
      return g * ((negative ? M(1) : M(0)) - (negative ? M(1) : M(-1)) * (z / (M(1) + z)));
    }
  };
};

// (x, weight), the weight broadcast over x: x > 0 ? x : weight * x.
struct PreluOp : FloatingOp<ElementwiseOp::kPrelu, 2> {
  static constexpr const char* kName = "prelu";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M w) const { return x > M(0) ? x : w * x; }
  };
};

// (s, a, grad), s = sigmoid(b) already in grad_input's first half: the
// second half's gradient (1 - s) * s * a * grad.
struct GluBackwardOp : FloatingOp<ElementwiseOp::kGluBackward, 3> {
  static constexpr const char* kName = "glu_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M s, M a, M g) const { return (M(1) - s) * s * a * g; }
  };
};

// (x, weight, grad): prelu's gradients, one output each (the stub's one
// two-output loop runs as two launches): grad_input x > 0 ? grad : weight *
// grad; grad_weight x > 0 ? 0 : x * grad.
struct PreluBackwardInputOp : FloatingOp<ElementwiseOp::kPreluBackwardInput, 3> {
  static constexpr const char* kName = "prelu_backward_input";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M w, M g) const { return x > M(0) ? g : w * g; }
  };
};

struct PreluBackwardWeightOp : FloatingOp<ElementwiseOp::kPreluBackwardWeight, 3> {
  static constexpr const char* kName = "prelu_backward_weight";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M w, M g) const { return x > M(0) ? M(0) : x * g; }
  };
};

// (x, t): (t - 1) * max(log1p(-x), -100) - t * max(log(x), -100), every
// step rounded to the compute dtype (float16/bfloat16), as CPU's loop does.
struct BinaryCrossEntropyOp : FloatingOp<ElementwiseOp::kBinaryCrossEntropy, 2> {
  static constexpr const char* kName = "binary_cross_entropy";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    M operator()(M x, M t) const {
      M log_1mx = round_to<C>(log1p_of(-x));
      M log_x = round_to<C>(log_of(x));
      log_1mx = log_1mx < M(-100) ? M(-100) : log_1mx;
      log_x = log_x < M(-100) ? M(-100) : log_x;
      return round_to<C>(round_to<C>(t - M(1)) * log_1mx) - round_to<C>(t * log_x);
    }
  };
};

// (x, t, grad): grad * (x - t) / max((1 - x) * x, 1e-12).
struct BinaryCrossEntropyBackwardOp : FloatingOp<ElementwiseOp::kBinaryCrossEntropyBackward, 3> {
  static constexpr const char* kName = "binary_cross_entropy_backward";
  template <typename C>
  struct Fn {
    using M = opmath_t<C>;
    explicit Fn(const ScalarArgs&) {}
    // CPU computes in the compute dtype, rounding every step (float16,
    // bfloat16): the 1e-12 floor even rounds to 0 in float16, so x = 0 or 1
    // gives 0 / 0 there, as on CPU.
    M operator()(M x, M t, M g) const {
      const M eps = round_to<C>(M(1e-12));
      const M d = round_to<C>(round_to<C>(M(1) - x) * x);
      return round_to<C>(g * round_to<C>(x - t)) / (d < eps ? eps : d);
    }
  };
};

}  // namespace

constinit const OpEntry kHardswishEntry = make_entry<HardswishOp>();
constinit const OpEntry kHardswishBackwardEntry = make_entry<HardswishBackwardOp>();
constinit const OpEntry kHardsigmoidEntry = make_entry<HardsigmoidOp>();
constinit const OpEntry kHardsigmoidBackwardEntry = make_entry<HardsigmoidBackwardOp>();
constinit const OpEntry kHardshrinkEntry = make_entry<HardshrinkOp>();
constinit const OpEntry kSoftshrinkEntry = make_entry<SoftshrinkOp>();
constinit const OpEntry kShrinkBackwardEntry = make_entry<ShrinkBackwardOp>();
constinit const OpEntry kSoftplusEntry = make_entry<SoftplusOp>();
constinit const OpEntry kSoftplusBackwardEntry = make_entry<SoftplusBackwardOp>();
constinit const OpEntry kMseEntry = make_entry<MseOp>();
constinit const OpEntry kMseBackwardEntry = make_entry<MseBackwardOp>();
constinit const OpEntry kSmoothL1Entry = make_entry<SmoothL1Op>();
constinit const OpEntry kSmoothL1BackwardEntry = make_entry<SmoothL1BackwardOp>();
constinit const OpEntry kHuberEntry = make_entry<HuberOp>();
constinit const OpEntry kHuberBackwardEntry = make_entry<HuberBackwardOp>();
constinit const OpEntry kXlogyEntry = make_entry<XlogyOp>();
constinit const OpEntry kEluEntry = make_entry<EluOp>();
constinit const OpEntry kEluBackwardEntry = make_entry<EluBackwardOp>();
constinit const OpEntry kLeakyReluEntry = make_entry<LeakyReluOp>();
constinit const OpEntry kLeakyReluBackwardEntry = make_entry<LeakyReluBackwardOp>();
constinit const OpEntry kHardtanhBackwardEntry = make_entry<HardtanhBackwardOp>();
constinit const OpEntry kMishEntry = make_entry<MishOp>();
constinit const OpEntry kMishBackwardEntry = make_entry<MishBackwardOp>();
constinit const OpEntry kGluEntry = make_entry<GluOp>();
constinit const OpEntry kLogSigmoidEntry = make_entry<LogSigmoidOp>();
constinit const OpEntry kLogSigmoidBackwardEntry = make_entry<LogSigmoidBackwardOp>();
constinit const OpEntry kPreluEntry = make_entry<PreluOp>();
constinit const OpEntry kGluBackwardEntry = make_entry<GluBackwardOp>();
constinit const OpEntry kPreluBackwardInputEntry = make_entry<PreluBackwardInputOp>();
constinit const OpEntry kPreluBackwardWeightEntry = make_entry<PreluBackwardWeightOp>();
constinit const OpEntry kBinaryCrossEntropyEntry = make_entry<BinaryCrossEntropyOp>();
constinit const OpEntry kBinaryCrossEntropyBackwardEntry = make_entry<BinaryCrossEntropyBackwardOp>();
constinit const OpEntry kRenormScaleEntry = make_entry<RenormScaleOp>();
}  // namespace torch_tpu::kernels::ew
