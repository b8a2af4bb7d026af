// Random ops on the direct route: native_dropout (ATen's CPU version is
// CPU-only), randperm (CPU-only randperm_out_cpu) and multinomial (ATen's
// shared version needs aminmax, sum, any, _assert_async, div, argmax and
// topk: one fused device kernel here instead). All draw from the tpu
// generator through reserve_philox (aten/native/random/util.h).
#include <ATen/core/DistributionsHelper.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/ones_like.h>

#include <cfloat>

#include "aten/launch.h"
#include "aten/native/random/util.h"
#include "generated/ops/multinomial.h"
#include "generated/ops/multinomial_out.h"
#include "generated/ops/native_dropout.h"
#include "generated/ops/randperm_generator_out.h"
#include "kernels/random/random.h"

namespace torch_tpu::aten {

std::tuple<at::Tensor, at::Tensor> native_dropout(const at::Tensor& input, double p,
                                                  std::optional<bool> train) {
  if (input.numel() == 0) {
    return std::make_tuple(input, at::empty_like(input, input.options()));
  }
  if (train.has_value() && !*train) {
    return std::make_tuple(input.clone(), at::ones_like(input, input.options().dtype(at::kBool)));
  }
  const double keep = 1. - p;
  TORCH_CHECK(keep >= 0 && keep <= 1, "bernoulli_ expects p to be in [0, 1], but got p=", keep);
  TORCH_CHECK(at::isFloatingType(input.scalar_type()),
              "\"native_dropout\" not implemented for '", input.scalar_type(), "' on tpu");
  // Output and mask share the input's memory order, so one linear pass
  // over the dense storage covers all three.
  const at::Tensor x = input.is_non_overlapping_and_dense() ? input : input.contiguous();
  at::Tensor output = at::empty_like(x);
  at::Tensor mask = at::empty_like(x, x.options().dtype(at::kBool));
  kernels::DropoutDesc d;
  d.input = x.const_data_ptr();
  d.output = output.data_ptr();
  d.mask = mask.data_ptr<bool>();
  d.dtype = device_dtype(x.scalar_type(), "native_dropout");
  d.n = x.numel();
  d.keep = keep;
  d.scale = keep == 0 ? 0. : 1. / keep;
  d.rng = reserve_philox(x, std::nullopt, static_cast<uint64_t>(d.n));
  launch(input.device().index(), "native_dropout", d.buffers(),
         [d] { kernels::dropout_forward(d); });
  return std::make_tuple(std::move(output), std::move(mask));
}

at::Tensor& randperm_generator_out(int64_t n, std::optional<at::Generator> generator,
                                   at::Tensor& out) {
  TORCH_CHECK(n >= 0, "n must be non-negative, got", n);
  TORCH_CHECK(!generator.has_value() || out.device() == generator->device(), "Expected a '",
              out.device(), "' generator device but found '",
              generator.has_value() ? generator->device() : out.device(), "'");
  // Enough precision for every value, as CPU checks.
  switch (out.scalar_type()) {
    case at::kHalf:
      TORCH_CHECK(n <= (int64_t(1) << 11) + 1, "n cannot be greater than 2049 for Half type.");
      break;
    case at::kBFloat16:
      TORCH_CHECK(n <= (int64_t(1) << 8) + 1, "n cannot be greater than 257 for BFloat16 type.");
      break;
    case at::kFloat:
      TORCH_CHECK(n <= (int64_t(1) << 24) + 1, "n cannot be greater than 2^24+1 for Float type.");
      break;
    case at::kDouble:
      TORCH_CHECK(n <= (int64_t(1) << 53) + 1, "n cannot be greater than 2^53+1 for Double type.");
      break;
    case at::kBool:
      TORCH_CHECK(false, "\"randperm\" not implemented for 'Bool'");
    default: {
      const int bits = static_cast<int>(at::elementSize(out.scalar_type())) * 8;
      const bool is_unsigned = out.scalar_type() == at::kByte;
      if (bits < 64) {
        const int64_t max = (int64_t(1) << (is_unsigned ? bits : bits - 1)) - 1;
        TORCH_CHECK(n == 0 || n - 1 <= max, "n is too large for result tensor type: '",
                    out.toString(), "'");
      }
    }
  }
  out.resize_({n});
  if (n == 0) return out;
  const at::Tensor dst = out.is_contiguous() ? out : at::empty({n}, out.options());
  const kernels::DType dtype = device_dtype(dst.scalar_type(), "randperm");
  const kernels::PhiloxState rng = reserve_philox(dst, generator, static_cast<uint64_t>(n));
  void* data = dst.data_ptr();
  launch(out.device().index(), "randperm", {data},
         [data, dtype, n, rng] { kernels::randperm(data, dtype, n, rng); });
  if (!dst.is_same(out)) out.copy_(dst);
  return out;
}

at::Tensor& multinomial_out(const at::Tensor& self, int64_t n_sample, bool replacement,
                            std::optional<at::Generator> generator, at::Tensor& result) {
  TORCH_CHECK(result.device() == self.device(), "multinomial arguments must have the same device");
  TORCH_CHECK(self.dim() > 0 && self.dim() <= 2, "prob_dist must be 1 or 2 dim");
  TORCH_CHECK(at::isFloatingType(self.scalar_type()),
              "multinomial only supports floating-point dtypes for input, got: ", self.scalar_type());
  TORCH_CHECK(result.scalar_type() == at::kLong, "multinomial expects Long tensor out, got: ",
              result.scalar_type());
  TORCH_CHECK(n_sample > 0, "cannot sample n_sample <= 0 samples");
  const int64_t n_categories = self.size(-1);
  TORCH_CHECK(replacement || (n_sample <= n_categories),
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  TORCH_CHECK(n_categories <= (int64_t(1) << FLT_MANT_DIG), "number of categories cannot exceed 2^24");
  const int64_t rows = self.dim() == 1 ? 1 : self.size(0);
  if (self.dim() == 1) {
    result.resize_({n_sample});
  } else {
    result.resize_({rows, n_sample});
  }
  if (result.numel() == 0) return result;
  const at::Tensor probs = self.contiguous();
  const at::Tensor dst = result.is_contiguous() ? result : at::empty(result.sizes(), result.options());
  kernels::MultinomialDesc d;
  d.probs = probs.const_data_ptr();
  d.out = dst.data_ptr<int64_t>();
  d.dtype = device_dtype(probs.scalar_type(), "multinomial");
  d.rows = rows;
  d.categories = n_categories;
  d.samples = n_sample;
  d.replacement = replacement;
  d.rng = reserve_philox(self, generator, static_cast<uint64_t>(rows * (n_categories + n_sample)));
  launch_validating(self.device().index(), "multinomial", d.buffers(), [d] { kernels::multinomial(d); });
  if (!dst.is_same(result)) result.copy_(dst);
  return result;
}

at::Tensor multinomial(const at::Tensor& self, int64_t n_sample, bool replacement,
                       std::optional<at::Generator> generator) {
  at::Tensor result = at::empty({0}, self.options().dtype(at::kLong));
  multinomial_out(self, n_sample, replacement, std::move(generator), result);
  return result;
}

}  // namespace torch_tpu::aten
