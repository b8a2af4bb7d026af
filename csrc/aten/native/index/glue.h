// Small helpers shared by the indexing and shape glue (aten/native/index/index.cpp,
// aten/native/shape/shape.cpp, aten/native/index/scatter_gather.cpp).
#pragma once

#include <ATen/core/Tensor.h>

#include <initializer_list>

#include "aten/launch.h"
#include "kernels/common/tensor_desc.h"
#include "kernels/index/index.h"

namespace torch_tpu::aten {

// describe(t), with a 0-dim tensor seen as `min_dim` dims of size 1.
kernels::TensorDesc describe_nd(const at::Tensor& t, const char* op, int64_t min_dim,
                                Complex32 complex32 = Complex32::kRejected);

// RuntimeError unless every defined tensor is on out's tpu device (CPU's
// wording for tensors on different devices).
void check_same_tpu_device(const char* op, const at::Tensor& out, std::initializer_list<const at::Tensor*> inputs);

// How a put writes duplicates: accumulating, or under
// torch.use_deterministic_algorithms(True) in order (the last one wins, as
// CPU's serial loop and CUDA's sorted put), else on all cores.
kernels::PutMode put_mode(bool accumulate);

}  // namespace torch_tpu::aten
