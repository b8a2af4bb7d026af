// Reusing ATen's structured kernels for tpu (the "stub route").
//
// A structured op has a meta() that checks arguments and computes outputs
// (shapes, dtypes, strides; TensorIterator ops also broadcasting and type
// promotion) and an impl() that ATen shares between CPU and CUDA and that
// calls a DispatchStub with the tensors' device type, so it reaches the tpu
// stub kernel. What ATen keeps private (in its generated RegisterCPU.cpp) is
// the small wrapper that allocates or checks outputs when meta() asks for
// them; these templates are ours. Generated code (csrc/generated) uses them:
//
//   Functional<Impl> op;  op.meta(args...);  op.impl(args..., op.output(0));
//   Out<Impl> op(out);     op.meta(args...);  op.impl(args..., op.output(0));  op.finish();
//   Inplace<Impl> op(self) ...same as Out
#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/DeviceGuard.h>

#include <array>
#include <functional>
#include <optional>
#include <type_traits>

namespace torch_tpu::aten::structured {

template <class Base>
constexpr bool kIsTensorIterator = std::is_base_of_v<at::TensorIteratorBase, Base>;

at::Tensor create_out(at::IntArrayRef sizes, at::IntArrayRef strides,
                      const at::TensorOptions& options);
// out=: dtype/device must match; resized (with a deprecation warning when it
// had elements) and restrided only when its shape was wrong, like CPU.
void resize_out(const at::Tensor& out, at::IntArrayRef sizes, at::IntArrayRef strides,
                const at::TensorOptions& options);
// In-place: self must already have the result's dtype, device and shape.
void check_inplace(const at::Tensor& self, at::IntArrayRef sizes,
                   const at::TensorOptions& options);

// All outputs of one op live on one device: the first one fixes the guard.
class OutputGuard {
 public:
  void on(const at::TensorOptions& options) {
    if (auto current = guard_.current_device()) {
      TORCH_INTERNAL_ASSERT(*current == options.device(), "outputs on two devices");
    } else {
      guard_.reset_device(options.device());
    }
  }

 private:
  c10::OptionalDeviceGuard guard_;
};

// Functional form: meta() allocates fresh outputs.
template <class Base, size_t N = 1>
struct Functional final : Base {
  void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                          at::TensorOptions options) override {
    set_output_raw_strided(i, sizes, strides, options);
  }
  void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::TensorOptions options) override {
    guard_.on(options);
    outputs_[i] = create_out(sizes, strides, options);
    // TensorIterator records the output after it exists (super after).
    if constexpr (kIsTensorIterator<Base>) {
      Base::set_output_raw_strided(i, sizes, strides, options);
    }
  }
  const at::Tensor& maybe_get_output(int64_t i) override { return outputs_[i]; }
  const at::Tensor& output(int64_t i) { return outputs_[i]; }

  std::array<at::Tensor, N> outputs_;
  OutputGuard guard_;
};

// out= and in-place forms: meta() checks (and for out= resizes) the caller's
// tensors. A meta that demands exact strides the caller's tensor lacks gets a
// proxy output, copied back by finish().
template <class Base, bool kInplace, size_t N = 1>
struct Given final : Base {
  template <class... T>
  explicit Given(T&... outs) : outputs_{std::cref(outs)...} {}

  void set_output_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                          at::TensorOptions options) override {
    check(i, sizes, strides, options);
    const at::Tensor& out = outputs_[i].get();
    if (!strides.empty() && out.strides() != strides) {
      proxies_[i] = at::empty_strided(sizes, strides, options);
    }
    if constexpr (kIsTensorIterator<Base>) {
      Base::set_output_raw_strided(i, sizes, strides, options);
    }
  }
  void set_output_raw_strided(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::TensorOptions options) override {
    check(i, sizes, strides, options);
    if constexpr (kIsTensorIterator<Base>) {
      Base::set_output_raw_strided(i, sizes, strides, options);
    }
  }
  const at::Tensor& maybe_get_output(int64_t i) override {
    return proxies_[i] ? *proxies_[i] : outputs_[i].get();
  }
  const at::Tensor& output(int64_t i) { return maybe_get_output(i); }
  void finish() {
    for (size_t i = 0; i < N; ++i) {
      if (proxies_[i]) outputs_[i].get().copy_(*proxies_[i]);
    }
  }

 private:
  void check(int64_t i, at::IntArrayRef sizes, at::IntArrayRef strides,
             const at::TensorOptions& options) {
    guard_.on(options);
    if constexpr (kInplace) {
      check_inplace(outputs_[i].get(), sizes, options);
    } else {
      resize_out(outputs_[i].get(), sizes, strides, options);
    }
  }

  std::array<std::reference_wrapper<const at::Tensor>, N> outputs_;
  std::array<std::optional<at::Tensor>, N> proxies_;
  OutputGuard guard_;
};

template <class Base, size_t N = 1>
using Out = Given<Base, false, N>;
template <class Base, size_t N = 1>
using Inplace = Given<Base, true, N>;

}  // namespace torch_tpu::aten::structured
