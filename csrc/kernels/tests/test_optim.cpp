// The optimizer kernels (kernels/optim/) on host memory, against closed
// forms: the first SGD and Adam steps, Adagrad's decayed lr, a found_inf
// flag skipping a step, a grad scale written back, and GradScaler's unscale
// and update-scale rules. (Against CPU PyTorch: tests/test_fused_optim_kernels.py.)
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/optim/optim.h"
#include "testing/harness.h"

using namespace torch_tpu::kernels;

namespace {

OptimSlot slot(std::vector<double>& p, std::vector<double>& g, std::vector<double>* s0, std::vector<double>* s1,
               const float* step) {
  OptimSlot s;
  s.param = p.data();
  s.grad = g.data();
  s.state0 = s0 ? s0->data() : nullptr;
  s.state1 = s1 ? s1->data() : nullptr;
  s.step = step;
  s.dtype = DType::kFloat64;
  s.numel = static_cast<int64_t>(p.size());
  return s;
}

bool near(double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); }

}  // namespace

TEST(optim_fused_sgd_first_step_and_skip) {
  std::vector<double> p(1500, 1.0), g(1500), buf(1500, 123.0);  // more than one block
  for (size_t i = 0; i < g.size(); ++i) g[i] = 0.001 * static_cast<double>(i);
  FusedSgdDesc d;
  d.c.slots = {slot(p, g, &buf, nullptr, nullptr)};
  d.c.lr.host = 0.5;
  d.momentum = 0.9;
  d.is_first_step = true;
  const float inf_found = 1.0f, none_found = 0.0f;
  d.c.found_inf = &inf_found;
  fused_sgd(d);
  CHECK_EQ(p[7], 1.0);  // skipped
  CHECK_EQ(buf[7], 123.0);
  d.c.found_inf = &none_found;
  fused_sgd(d);
  int bad = 0;
  for (size_t i = 0; i < p.size(); ++i) bad += !(near(buf[i], g[i]) && near(p[i], 1.0 - 0.5 * g[i]));
  CHECK_EQ(bad, 0);
}

TEST(optim_fused_adam_first_step_is_lr_times_sign) {
  std::vector<double> p{1.0, 1.0, 1.0}, g{3.0, -0.5, 8.0}, m(3, 0.0), v(3, 0.0);
  const float step = 1.0f, scale = 2.0f;
  FusedAdamDesc d;
  d.c.slots = {slot(p, g, &m, &v, &step)};
  d.c.lr.host = 0.1;
  d.c.grad_scale = &scale;
  d.eps = 0.0;
  fused_adam(d);
  // unscaled gradients written back; m = (1 - beta1) g, v = (1 - beta2) g^2
  CHECK(near(g[0], 1.5) && near(g[1], -0.25) && near(g[2], 4.0));
  CHECK(near(m[2], 0.1 * 4.0) && near(v[2], 0.001 * 16.0));
  CHECK(near(p[0], 0.9) && near(p[1], 1.1) && near(p[2], 0.9));
}

TEST(optim_fused_adagrad_decays_lr_with_the_step) {
  std::vector<double> p{0.0}, g{2.0}, sum{0.0};
  const float step = 3.0f;
  FusedAdagradDesc d;
  d.c.slots = {slot(p, g, &sum, nullptr, &step)};
  d.c.lr.host = 1.0;
  d.lr_decay = 0.5;
  d.eps = 0.0;
  fused_adagrad(d);  // clr = 1 / (1 + 2 * 0.5); sum = 4; p = -clr * 2 / 2
  CHECK(near(sum[0], 4.0) && near(p[0], -0.5));
}

TEST(optim_amp_unscale_and_update_scale) {
  std::vector<float> a{2.0f, 4.0f}, b{1.0f, std::numeric_limits<float>::quiet_NaN()};
  float found = 0.0f;
  const float inv = 0.5f;
  AmpUnscaleDesc u;
  u.slots = {{a.data(), DType::kFloat32, 2}};
  u.found_inf = &found;
  u.inv_scale = &inv;
  amp_unscale(u);
  CHECK(a[0] == 1.0f && a[1] == 2.0f && found == 0.0f);
  u.slots = {{b.data(), DType::kFloat32, 2}};
  amp_unscale(u);
  CHECK(b[0] == 0.5f && std::isnan(b[1]) && found == 1.0f);

  float scale = 8.0f;
  int32_t tracker = 0;
  AmpUpdateScaleDesc s;
  s.scale = &scale;
  s.growth_tracker = &tracker;
  s.found_inf = &found;  // 1: back off, tracker reset
  s.growth_interval = 2;
  amp_update_scale(s);
  CHECK(scale == 4.0f && tracker == 0);
  found = 0.0f;
  amp_update_scale(s);
  CHECK(scale == 4.0f && tracker == 1);
  amp_update_scale(s);  // the second good step in a row grows it
  CHECK(scale == 8.0f && tracker == 0);
  scale = std::numeric_limits<float>::max();
  tracker = 1;
  amp_update_scale(s);  // an infinite grown scale is not taken
  CHECK(scale == std::numeric_limits<float>::max() && tracker == 0);
}
