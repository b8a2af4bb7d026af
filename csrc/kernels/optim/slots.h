// Shared by the fused optimizer kernels: reading device scalars, and running
// a per-element update over every slot in blocks widened to the compute type
// (float for float16/bfloat16/float, double for double). Private to the
// kernel library.
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/nn/rows.h"
#include "kernels/optim/optim.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels::optim_detail {

inline double read_scalar(const DeviceScalar& s) {
  return s.ptr == nullptr ? s.host : nn::load_one<double>(s.ptr, s.dtype, 0);
}

inline double read_step(const OptimSlot& s) { return nn::load_one<double>(s.step, s.step_dtype, 0); }

// True when the GradScaler found inf/NaN in this step's gradients: the whole
// step is skipped (CPU's and CUDA's fused kernels do the same).
inline bool skip_step(const OptimCommon& c) { return c.found_inf != nullptr && *c.found_inf == 1.0f; }

constexpr int64_t kBlock = 512;

// Runs update(n, p, g, s0, s1, s2) over blocks of up to kBlock elements of a
// slot, widened to C; writes back param, the grad (only if `store_grad`) and
// the states that are present. Blocks split over the device's cores.
template <typename C, typename F>
void for_blocks(const OptimSlot& s, bool store_grad, F&& update) {
  const int64_t blocks = (s.numel + kBlock - 1) / kBlock;
  runtime::parallel_for(0, blocks, 32, [&](int64_t b0, int64_t b1) {
    C p[kBlock], g[kBlock], s0[kBlock], s1[kBlock], s2[kBlock];
    for (int64_t b = b0; b < b1; ++b) {
      const int64_t off = b * kBlock, n = std::min(kBlock, s.numel - off);
      nn::load_row(s.param, s.dtype, off, n, p);
      nn::load_row(s.grad, s.dtype, off, n, g);
      if (s.state0) nn::load_row(s.state0, s.dtype, off, n, s0);
      if (s.state1) nn::load_row(s.state1, s.dtype, off, n, s1);
      if (s.state2) nn::load_row(s.state2, s.dtype, off, n, s2);
      update(n, p, g, s0, s1, s2);
      nn::store_row(p, n, s.param, s.dtype, off);
      if (store_grad) nn::store_row(g, n, s.grad, s.dtype, off);
      if (s.state0) nn::store_row(s0, n, s.state0, s.dtype, off);
      if (s.state1) nn::store_row(s1, n, s.state1, s.dtype, off);
      if (s.state2) nn::store_row(s2, n, s.state2, s.dtype, off);
    }
  });
}

// Calls f(C{}) with C the compute type of the slot's dtype.
template <typename F>
void with_compute_type(DType t, F&& f) {
  if (t == DType::kFloat64) {
    f(double{});
  } else {
    f(float{});
  }
}

// The frame of every fused step: nothing when the GradScaler found inf/NaN,
// else slot_fn(C{}, slot, lr) for each non-empty slot, C its compute type.
template <typename F>
void for_each_slot(const OptimCommon& c, F&& slot_fn) {
  if (skip_step(c)) return;
  const double lr = read_scalar(c.lr);
  for (const OptimSlot& s : c.slots) {
    if (s.numel == 0) continue;
    with_compute_type(s.dtype, [&](auto t) { slot_fn(t, s, lr); });
  }
}

// The gradient every step starts from: unscaled in place (the unscaled value
// is stored back), then negated for maximize.
template <typename C>
inline C step_grad(C& g, const OptimCommon& c) {
  if (c.grad_scale) g = g / static_cast<C>(*c.grad_scale);
  return c.maximize ? -g : g;
}

}  // namespace torch_tpu::kernels::optim_detail
