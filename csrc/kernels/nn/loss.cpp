// nll_loss / nll_loss2d forward and backward over [batch, classes, inner]:
// item j = (n, s) of the batch * inner items reads input (n, target[j], s).
//
// Reduction "none" is elementwise over the batch (split over the cores);
// "sum"/"mean" add the losses and the weights in double in one pass over
// the batch (cheap next to the log_softmax feeding it), so the result does
// not depend on the core count.
// No FMA contraction: CPU rounds x * scale + bias as two operations.
#include "kernels/common/fp_contract.h"
#include <cmath>
#include <stdexcept>
#include <string>

#include "kernels/common/data_errors.h"
#include "kernels/nn/nn.h"
#include "kernels/nn/rows.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels {
namespace {

constexpr int64_t kNone = 0, kMean = 1;

int64_t target_at(const void* t, DType dt, int64_t i) {
  return dt == DType::kUInt8 ? static_cast<int64_t>(static_cast<const uint8_t*>(t)[i])
                             : static_cast<const int64_t*>(t)[i];
}

// Element (n, cls, s) of the input for item i = n * inner + s.
inline int64_t input_index(int64_t i, int64_t cls, int64_t classes, int64_t inner) {
  return ((i / inner) * classes + cls) * inner + i % inner;
}

void check_target(int64_t cls, int64_t classes) {
  if (cls < 0 || cls >= classes) {
    throw_index_error("Target " + std::to_string(cls) + " is out of bounds.");  // CPU's IndexError
  }
}

template <typename C>
void forward_typed(const NllLossDesc& d) {
  if (d.reduction == kNone) {
    runtime::parallel_for(0, d.batch * d.inner, 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t cls = target_at(d.target, d.target_dtype, i);
        C loss = 0;
        if (cls != d.ignore_index) {
          check_target(cls, d.classes);
          const C w = d.weight ? nn::load_one<C>(d.weight, d.dtype, cls) : C(1);
          loss = -nn::load_one<C>(d.input, d.dtype, input_index(i, cls, d.classes, d.inner)) * w;
        }
        nn::store_one(loss, d.output, d.dtype, i);
      }
    });
    return;
  }
  double loss = 0, total = 0;
  for (int64_t i = 0; i < d.batch * d.inner; ++i) {
    const int64_t cls = target_at(d.target, d.target_dtype, i);
    if (cls == d.ignore_index) continue;
    check_target(cls, d.classes);
    const double w = d.weight ? static_cast<double>(nn::load_one<C>(d.weight, d.dtype, cls)) : 1.0;
    loss -= static_cast<double>(nn::load_one<C>(d.input, d.dtype, input_index(i, cls, d.classes, d.inner))) * w;
    total += w;
  }
  // Mean over zero total weight is 0/0 = nan, as on CPU.
  if (d.reduction == kMean) loss = loss / total;
  nn::store_one(static_cast<C>(loss), d.output, d.dtype, 0);
  nn::store_one(static_cast<C>(total), d.total_weight, d.dtype, 0);
}

template <typename C>
void backward_typed(const NllLossBackwardDesc& d) {
  const bool none = d.reduction == kNone;
  C scale = none ? C(0) : nn::load_one<C>(d.grad_output, d.dtype, 0);
  if (d.reduction == kMean) scale = scale / nn::load_one<C>(d.total_weight, d.dtype, 0);
  runtime::parallel_for(0, d.batch * d.inner, 4096, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t cls = target_at(d.target, d.target_dtype, i);
      if (cls == d.ignore_index) continue;
      check_target(cls, d.classes);
      const C w = d.weight ? nn::load_one<C>(d.weight, d.dtype, cls) : C(1);
      const C g = none ? nn::load_one<C>(d.grad_output, d.dtype, i) : scale;
      nn::store_one(-w * g, d.grad_input, d.dtype, input_index(i, cls, d.classes, d.inner));
    }
  });
}

void check(DType t, DType target, const char* what) {
  if (!nn::is_nn_float(t) || (target != DType::kInt64 && target != DType::kUInt8)) {
    throw std::invalid_argument(std::string(what) + ": unsupported dtype");
  }
}

}  // namespace

void nll_loss_forward(const NllLossDesc& d) {
  check(d.dtype, d.target_dtype, "nll_loss");
  nn::with_compute_type(d.dtype, [&](auto c) { forward_typed<decltype(c)>(d); });
}

void nll_loss_backward(const NllLossBackwardDesc& d) {
  check(d.dtype, d.target_dtype, "nll_loss_backward");
  nn::with_compute_type(d.dtype, [&](auto c) { backward_typed<decltype(c)>(d); });
}

}  // namespace torch_tpu::kernels
