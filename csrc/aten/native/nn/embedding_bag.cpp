// _embedding_bag, _embedding_bag_forward_only and embedding_renorm_ (the
// max_norm of F.embedding / F.embedding_bag) (direct route): ATen's
// implementations are CPU-only (and CPU's offset2bag/bag_size/max_indices
// depend on its fbgemm fast path). These follow what FakeTensor's meta
// predicts for other devices (CUDA's conventions, kernels/nn/embedding_bag.h):
// offset2bag [indices], bag_size [offsets], max_indices [bags, dim] in max
// mode, else empty; all in the index dtype. Checks are ATen's.
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>

#include "aten/launch.h"
#include "generated/ops/_embedding_bag.h"
#include "generated/ops/_embedding_bag_forward_only.h"
#include "generated/ops/embedding_renorm_.h"
#include "kernels/nn/embedding_bag.h"

namespace torch_tpu::aten {
namespace {

using Bags = std::tuple<at::Tensor, at::Tensor, at::Tensor, at::Tensor>;

void check_same_device(const at::Tensor& weight, const at::Tensor& t, const char* what) {
  TORCH_CHECK(t.device() == weight.device(), "embedding_bag: expected ", what, " on ", weight.device(), ", got ",
              t.device());
}

Bags bags(const at::Tensor& weight, const at::Tensor& indices_in, const at::Tensor& offsets_in, int64_t mode,
          const std::optional<at::Tensor>& per_sample_weights, bool include_last_offset, int64_t padding_idx) {
  const char* name = "embedding_bag";
  for (auto [t, what] : {std::pair{&indices_in, "indices"}, {&offsets_in, "offsets"}}) {
    TORCH_CHECK(t->scalar_type() == at::kLong || t->scalar_type() == at::kInt, name, ": expected ", what,
                " to be long or int, got ", t->scalar_type());
    TORCH_CHECK(t->dim() == 1, name, ": expected ", what, " to be a 1-D tensor, got ", t->dim(), "-D");
    check_same_device(weight, *t, what);
  }
  TORCH_CHECK(weight.dim() == 2, name, ": expected weight to be a 2-D tensor, got ", weight.dim(), "-D");
  TORCH_CHECK(mode >= 0 && mode <= 2, name, ": mode must be 0 (sum), 1 (mean) or 2 (max), got ", mode);
  const int64_t num_bags = offsets_in.size(0) - (include_last_offset ? 1 : 0);
  TORCH_CHECK(num_bags >= 0, "include_last_offset: numBags should be at least 1");
  const bool weighted = per_sample_weights.has_value() && per_sample_weights->defined();
  if (weighted) {
    const at::Tensor& psw = *per_sample_weights;
    TORCH_CHECK(mode == 0, "embedding_bag: per_sample_weights only supported with mode='sum'");
    TORCH_CHECK(psw.dim() == 1, "embedding_bag: expected per_sample_weights to be 1D tensor, got ", psw.dim(), "D");
    TORCH_CHECK(psw.numel() == indices_in.numel(), "embedding_bag: expected per_sample_weights.numel() (",
                psw.numel(), ") to be the same as indices.numel() (", indices_in.numel(), ")");
    TORCH_CHECK(psw.scalar_type() == weight.scalar_type(), "embedding_bag: expected per_sample_weights of dtype ",
                weight.scalar_type(), ", got ", psw.scalar_type());
    check_same_device(weight, psw, "per_sample_weights");
  }
  // Mixed int/long indices and offsets are promoted to long, as ATen does.
  const bool mixed = indices_in.scalar_type() != offsets_in.scalar_type();
  const at::Tensor indices = (mixed ? indices_in.to(at::kLong) : indices_in).contiguous();
  const at::Tensor offsets = (mixed ? offsets_in.to(at::kLong) : offsets_in).contiguous();
  const at::Tensor w = weight.contiguous();
  const at::Tensor psw = weighted ? per_sample_weights->contiguous() : at::Tensor();
  const auto index_options = indices.options();
  at::Tensor out = at::empty({num_bags, weight.size(1)}, w.options());
  at::Tensor offset2bag = at::empty({indices.size(0)}, index_options);
  at::Tensor bag_size = at::empty({offsets.size(0)}, index_options);
  at::Tensor max_indices = mode == 2 ? at::empty({num_bags, weight.size(1)}, index_options)
                                     : at::empty({0}, index_options);
  kernels::EmbeddingBagDesc d;
  d.dtype = device_dtype(w.scalar_type(), name);
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(w.scalar_type()), "\"embedding_bag\" not implemented for '",
                              w.scalar_type(), "' on tpu");
  d.index_dtype = device_dtype(indices.scalar_type(), name);
  d.rows = w.size(0);
  d.dim = w.size(1);
  d.num_indices = indices.size(0);
  d.num_offsets = offsets.size(0);
  d.num_bags = num_bags;
  d.mode = static_cast<kernels::BagMode>(mode);
  d.padding_idx = padding_idx;
  d.weight = w.const_data_ptr();
  d.indices = indices.const_data_ptr();
  d.offsets = offsets.const_data_ptr();
  d.per_sample_weights = weighted ? psw.const_data_ptr() : nullptr;
  d.out = out.data_ptr();
  d.offset2bag = offset2bag.data_ptr();
  d.bag_size = bag_size.data_ptr();
  d.max_indices = mode == 2 ? max_indices.data_ptr() : nullptr;
  launch_validating(weight.device().index(), name,
         d.buffers(),
         [d] { kernels::embedding_bag(d); });
  return {std::move(out), std::move(offset2bag), std::move(bag_size), std::move(max_indices)};
}

}  // namespace

Bags embedding_bag_(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets,
                    bool scale_grad_by_freq, int64_t mode, bool sparse,
                    const std::optional<at::Tensor>& per_sample_weights, bool include_last_offset,
                    int64_t padding_idx) {
  (void)scale_grad_by_freq;  // backward-only arguments
  (void)sparse;
  return bags(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx);
}

Bags embedding_bag_forward_only(const at::Tensor& weight, const at::Tensor& indices, const at::Tensor& offsets,
                                bool scale_grad_by_freq, int64_t mode, bool sparse,
                                const std::optional<at::Tensor>& per_sample_weights, bool include_last_offset,
                                int64_t padding_idx) {
  (void)scale_grad_by_freq;
  (void)sparse;
  return bags(weight, indices, offsets, mode, per_sample_weights, include_last_offset, padding_idx);
}

at::Tensor& embedding_renorm_(at::Tensor& self, const at::Tensor& indices, double max_norm, double norm_type) {
  const char* name = "embedding_renorm_";
  TORCH_CHECK(self.dim() == 2, name, ": self must be 2-D, got ", self.dim(), "-D");
  TORCH_CHECK(indices.scalar_type() == at::kLong || indices.scalar_type() == at::kInt, name,
              ": expected indices to be long or int, got ", indices.scalar_type());
  check_same_device(self, indices, "indices");
  TORCH_CHECK_NOT_IMPLEMENTED(at::isFloatingType(self.scalar_type()), "\"embedding_renorm_\" not implemented for '",
                              self.scalar_type(), "' on tpu");
  if (indices.numel() == 0 || self.numel() == 0) return self;
  at::Tensor w = self.is_contiguous() ? self : self.contiguous();
  const at::Tensor idx = indices.contiguous();
  const kernels::DType t = device_dtype(w.scalar_type(), name);
  const kernels::DType it = device_dtype(idx.scalar_type(), name);
  void* wp = w.data_ptr();
  const void* ip = idx.const_data_ptr();
  const int64_t rows = w.size(0), dim = w.size(1), n = idx.numel();
  launch_validating(self.device().index(), name, {wp, ip},
         [=] { kernels::embedding_renorm(t, wp, rows, dim, ip, it, n, max_norm, norm_type); });
  if (!w.is_same(self)) self.copy_(w);
  return self;
}

}  // namespace torch_tpu::aten
