// Random stub kernels (stub route): ATen's DistributionTemplates check the
// arguments (from <= to, std >= 0, p in [0, 1], dtype ranges) and call
// these with the tensor and the caller's generator. Each kernel takes the
// tpu generator of the tensor's device (or the one passed), reserves
// kWordsPerElement Philox words per element under the generator's mutex,
// and enqueues kernels::random_fill with that (seed, offset).
#include <ATen/core/DistributionsHelper.h>
#include <ATen/native/UnaryOps.h>

#include <mutex>
#include <type_traits>

#include "aten/device/backend.h"
#include "aten/device/generator.h"
#include "aten/device/graph.h"
#include "aten/launch.h"
#include "aten/device/op_registry.h"
#include "aten/native/random/util.h"
#include "generated/stub_kernels.h"
#include "kernels/random/random.h"

namespace torch_tpu::aten {

kernels::PhiloxState reserve_philox(const at::TensorBase& t, const std::optional<at::Generator>& gen,
                                    uint64_t elements) {
  const c10::DeviceIndex device = t.device().index();
  auto* g = at::get_generator_or_default<TpuGeneratorImpl>(gen, default_generator(device));
  kernels::PhiloxState captured;
  if (reserve_graph_philox(device, g, elements * kernels::kWordsPerElement, &captured)) return captured;
  std::lock_guard<std::mutex> lock(g->mutex_);
  const auto [seed, offset] = g->philox_engine_inputs(elements * kernels::kWordsPerElement);
  return kernels::PhiloxState{seed, offset};
}

namespace {

void launch_random(const at::TensorBase& out, kernels::RandomDesc d,
                   const std::optional<at::Generator>& gen, const char* name) {
  if (out.numel() == 0) return;
  d.out = describe(at::Tensor(out), name);
  d.rng = reserve_philox(out, gen, static_cast<uint64_t>(out.numel()));
  launch(out.device().index(), name, {d.out.data}, [d] { kernels::random_fill(d); });
}

// A distribution and its parameters (kernels/random/random.h says which).
kernels::RandomDesc distribution(kernels::RandomDist dist, double a = 0, double b = 1) {
  kernels::RandomDesc d;
  d.dist = dist;
  d.a = a;
  d.b = b;
  return d;
}

}  // namespace

void uniform_kernel(at::TensorIteratorBase& iter, double from, double to,
                    std::optional<at::Generator> gen) {
  launch_random(iter.tensor_base(0), distribution(kernels::RandomDist::kUniform, from, to), gen, "uniform_");
}

void normal_kernel(const at::TensorBase& self, double mean, double std,
                   std::optional<at::Generator> gen) {
  launch_random(self, distribution(kernels::RandomDist::kNormal, mean, std), gen, "normal_");
}

void exponential_kernel(at::TensorIteratorBase& iter, double lambda,
                        std::optional<at::Generator> gen) {
  launch_random(iter.tensor_base(0), distribution(kernels::RandomDist::kExponential, lambda), gen, "exponential_");
}

void log_normal_kernel(at::TensorIteratorBase& iter, const double mean, const double std,
                       std::optional<at::Generator> gen) {
  launch_random(iter.tensor_base(0), distribution(kernels::RandomDist::kLogNormal, mean, std), gen, "log_normal_");
}

void cauchy_kernel(at::TensorIteratorBase& iter, const double median, const double sigma,
                   std::optional<at::Generator> gen) {
  launch_random(iter.tensor_base(0), distribution(kernels::RandomDist::kCauchy, median, sigma), gen, "cauchy_");
}

void geometric_kernel(at::TensorIteratorBase& iter, const double p, std::optional<at::Generator> gen) {
  launch_random(iter.tensor_base(0), distribution(kernels::RandomDist::kGeometric, p), gen, "geometric_");
}

void bernoulli_scalar_kernel(const at::TensorBase& self, double p,
                             std::optional<at::Generator> gen) {
  launch_random(self, distribution(kernels::RandomDist::kBernoulli, p), gen, "bernoulli_");
}

void bernoulli_tensor_kernel(const at::TensorBase& self, const at::TensorBase& p,
                             std::optional<at::Generator> gen) {
  if (self.numel() == 0) return;
  const char* name = "bernoulli_";
  TORCH_CHECK(p.device() == self.device(), "bernoulli_: expected p on ", self.device(), ", got ",
              p.device());
  TORCH_CHECK(at::isFloatingType(p.scalar_type()), "bernoulli_: p must be a floating tensor, got ",
              p.scalar_type());
  // ATen checked that p broadcasts to self.
  const at::Tensor pe = at::Tensor(p).expand(self.sizes());
  kernels::TensorDesc out = describe(at::Tensor(self), name);
  kernels::TensorDesc pd = describe(pe, name);
  const kernels::PhiloxState rng = reserve_philox(self, gen, static_cast<uint64_t>(self.numel()));
  launch(self.device().index(), name, {out.data, pd.data},
         [out, pd, rng] { kernels::bernoulli_tensor(out, pd, rng); });
}

void random_kernel(at::TensorIteratorBase& iter, std::optional<at::Generator> gen) {
  launch_random(iter.tensor_base(0), distribution(kernels::RandomDist::kRandomBits), gen, "random_");
}

void random_from_to_kernel(at::TensorIteratorBase& iter, uint64_t range, int64_t base,
                           std::optional<at::Generator> gen) {
  kernels::RandomDesc d;
  d.dist = kernels::RandomDist::kRandomRange;
  d.range = range;
  d.base = base;
  launch_random(iter.tensor_base(0), d, gen, "random_");
}

void random_full_64_bits_range_kernel(at::TensorIteratorBase& iter,
                                      std::optional<at::Generator> gen) {
  launch_random(iter.tensor_base(0), distribution(kernels::RandomDist::kRandomFull64), gen, "random_");
}

}  // namespace torch_tpu::aten
