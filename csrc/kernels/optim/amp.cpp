// torch.amp.GradScaler's kernels: _amp_foreach_non_finite_check_and_unscale_
// and _amp_update_scale_ (the scale and its growth tracker stay on the
// device, so neither needs a host sync).
#include "kernels/common/fp_contract.h"
#include <atomic>
#include <cmath>

#include "kernels/optim/slots.h"

namespace torch_tpu::kernels {

// Absent buffers (and empty tensors, which may have none) are not named.
std::vector<const void*> OptimCommon::buffers() const {
  std::vector<const void*> out;
  for (const void* p : {lr.ptr, static_cast<const void*>(grad_scale), static_cast<const void*>(found_inf)}) {
    if (p != nullptr) out.push_back(p);
  }
  for (const OptimSlot& s : slots) {
    for (const void* p : {static_cast<const void*>(s.param), static_cast<const void*>(s.grad),
                          static_cast<const void*>(s.state0), static_cast<const void*>(s.state1),
                          static_cast<const void*>(s.state2), s.step}) {
      if (p != nullptr) out.push_back(p);
    }
  }
  return out;
}

std::vector<const void*> AmpUnscaleDesc::buffers() const {
  std::vector<const void*> out{found_inf, inv_scale};
  for (const Slot& s : slots) {
    if (s.data != nullptr) out.push_back(s.data);
  }
  return out;
}

namespace {

// x * inv_scale in the compute type (x itself when inv_scale is 1, as CPU);
// true if any element of the block was inf or NaN.
template <typename C>
bool unscale_block(C* x, int64_t n, C inv) {
  bool bad = false;
  for (int64_t i = 0; i < n; ++i) {
    bad |= !std::isfinite(x[i]);
    if (inv != C(1)) x[i] = x[i] * inv;
  }
  return bad;
}

}  // namespace

void amp_unscale(const AmpUnscaleDesc& d) {
  const float inv = *d.inv_scale;
  std::atomic<bool> found{false};
  for (const AmpUnscaleDesc::Slot& s : d.slots) {
    const int64_t blocks = (s.numel + optim_detail::kBlock - 1) / optim_detail::kBlock;
    optim_detail::with_compute_type(s.dtype, [&](auto c) {
      using C = decltype(c);
      runtime::parallel_for(0, blocks, 32, [&](int64_t b0, int64_t b1) {
        C x[optim_detail::kBlock];
        bool bad = false;
        for (int64_t b = b0; b < b1; ++b) {
          const int64_t off = b * optim_detail::kBlock, n = std::min(optim_detail::kBlock, s.numel - off);
          nn::load_row(s.data, s.dtype, off, n, x);
          bad |= unscale_block<C>(x, n, static_cast<C>(inv));
          nn::store_row(x, n, s.data, s.dtype, off);
        }
        if (bad) found.store(true, std::memory_order_relaxed);
      });
    });
  }
  if (found.load()) *d.found_inf = 1.0f;
}

void amp_update_scale(const AmpUpdateScaleDesc& d) {
  if (*d.found_inf != 0.0f) {
    *d.scale = static_cast<float>(*d.scale * d.backoff_factor);
    *d.growth_tracker = 0;
    return;
  }
  const int32_t successful = *d.growth_tracker + 1;
  if (successful == d.growth_interval) {
    const float grown = static_cast<float>(*d.scale * d.growth_factor);
    if (std::isfinite(grown)) *d.scale = grown;
    *d.growth_tracker = 0;
  } else {
    *d.growth_tracker = successful;
  }
}

}  // namespace torch_tpu::kernels
