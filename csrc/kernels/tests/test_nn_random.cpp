// Kernel-level checks of the nn and random kernels: Philox4x32-10 against
// the Random123 known-answer vectors, softmax/layer-norm rows against a
// double-precision reference, and the exp used by softmax over its range.
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/nn/nn.h"
#include "kernels/nn/rows.h"
#include "kernels/random/random.h"
#include "testing/harness.h"

using namespace torch_tpu::kernels;

TEST(philox_known_answers) {
  uint32_t w[4];
  philox_block(0, 0, w);  // key 0, counter 0
  CHECK_EQ(w[0], 0x6627e8d5u);
  CHECK_EQ(w[1], 0xe169c58du);
  CHECK_EQ(w[2], 0xbc57ac4cu);
  CHECK_EQ(w[3], 0x9b00dbd8u);
}

TEST(exp_c_accuracy) {
  // The nn kernels' float exp is vec_math.h's: at most 3 ulp (2^-23 each).
  double worst = 0;
  for (double x = -103.0; x < 88.7; x += 0.001237) {
    const float f = static_cast<float>(x);
    const double want = std::exp(static_cast<double>(f));
    const double got = nn::exp_c<float>(f);
    if (want > 1.2e-38) worst = std::max(worst, std::fabs(got - want) / want);
  }
  CHECK_MSG(worst < 3 * 0x1p-23, "exp_c<float> relative error " + std::to_string(worst));
  CHECK(nn::exp_c<float>(-INFINITY) == 0.0f);
  CHECK(std::isinf(nn::exp_c<float>(INFINITY)));
  CHECK(std::isnan(nn::exp_c<float>(NAN)));
}

TEST(softmax_rows_match_double_reference) {
  for (int64_t inner : {1, 3, 70}) {
    const int64_t outer = 5, dim = 37;
    std::vector<float> x(outer * dim * inner), y(x.size());
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(std::sin(i * 0.7) * 8);
    SoftmaxDesc d;
    d.input = x.data();
    d.output = y.data();
    d.outer = outer;
    d.dim = dim;
    d.inner = inner;
    softmax_forward(d);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t c = 0; c < inner; ++c) {
        double m = -INFINITY, s = 0;
        for (int64_t k = 0; k < dim; ++k) m = std::max(m, (double)x[(o * dim + k) * inner + c]);
        for (int64_t k = 0; k < dim; ++k) s += std::exp(x[(o * dim + k) * inner + c] - m);
        for (int64_t k = 0; k < dim; ++k) {
          const int64_t i = (o * dim + k) * inner + c;
          const double want = std::exp(x[i] - m) / s;
          CHECK(std::fabs(y[i] - want) <= 1e-6 * want + 1e-12);
        }
      }
    }
  }
}

TEST(random_fill_is_counter_based) {
  // Drawing 1000 elements at offset 0 equals drawing the tail at offset 4*500.
  std::vector<float> a(1000), b(500);
  RandomDesc d;
  d.out.data = a.data();
  d.out.sizes = {1000};
  d.out.strides = {1};
  d.rng = {42, 0};
  random_fill(d);
  d.out.data = b.data();
  d.out.sizes = {500};
  d.rng = {42, 4 * 500};
  random_fill(d);
  for (int i = 0; i < 500; ++i) CHECK(a[500 + i] == b[i]);
  for (float v : a) CHECK(v >= 0.0f && v < 1.0f);
}

TEST(random_fill_lane_path_matches_strided_path) {
  // Contiguous rows take the 16-lane Philox path, strided ones the scalar
  // path: element i must get the same value either way.
  std::vector<float> a(1003), b(2 * 1003);
  RandomDesc d;
  d.dist = RandomDist::kNormal;
  d.out.data = a.data();
  d.out.sizes = {1003};
  d.out.strides = {1};
  d.rng = {7, 40};
  random_fill(d);
  d.out.data = b.data();
  d.out.strides = {2};
  random_fill(d);
  for (int i = 0; i < 1003; ++i) CHECK(a[i] == b[2 * i]);
}
