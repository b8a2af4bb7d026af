#include "aten/device/generator.h"

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/core/TensorImpl.h>

#include <cstring>
#include <mutex>
#include <vector>

#include "aten/device/tpu_stream.h"

namespace torch_tpu::aten {
namespace {
constexpr size_t kStateBytes = 2 * sizeof(uint64_t);  // seed, offset
}

TpuGeneratorImpl::TpuGeneratorImpl(c10::DeviceIndex device, uint64_t seed)
    : c10::GeneratorImpl(tpu_device(device), c10::DispatchKeySet(c10::DispatchKey::PrivateUse1)),
      seed_(seed) {}

void TpuGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

uint64_t TpuGeneratorImpl::current_seed() const { return seed_; }

uint64_t TpuGeneratorImpl::seed() {
  uint64_t s = c10::detail::getNonDeterministicRandom();
  set_current_seed(s);
  return s;
}

void TpuGeneratorImpl::set_offset(uint64_t offset) {
  TORCH_CHECK(offset % 4 == 0, "tpu generator offset must be a multiple of 4, got ", offset);
  offset_ = offset;
}

uint64_t TpuGeneratorImpl::get_offset() const { return offset_; }

c10::intrusive_ptr<c10::TensorImpl> TpuGeneratorImpl::get_state() const {
  at::Tensor state = at::empty({static_cast<int64_t>(kStateBytes)}, at::kByte);
  uint64_t words[2] = {seed_, offset_};
  std::memcpy(state.data_ptr<uint8_t>(), words, kStateBytes);
  return state.getIntrusivePtr();
}

void TpuGeneratorImpl::set_state(const c10::TensorImpl& new_state) {
  TORCH_CHECK_TYPE(new_state.dtype() == caffe2::TypeMeta::Make<uint8_t>(),
                   "RNG state must be a torch.ByteTensor");
  TORCH_CHECK(new_state.device().is_cpu(), "RNG state must be a CPU tensor");
  TORCH_CHECK(static_cast<size_t>(new_state.numel()) == kStateBytes,
              "RNG state is wrong size: expected ", kStateBytes, " bytes (seed, offset), got ",
              new_state.numel());
  TORCH_CHECK(new_state.is_contiguous(), "RNG state must be contiguous");
  uint64_t words[2];
  std::memcpy(words, new_state.data(), kStateBytes);
  seed_ = words[0];
  set_offset(words[1]);
}

std::pair<uint64_t, uint64_t> TpuGeneratorImpl::philox_engine_inputs(uint64_t increment) {
  increment = ((increment + 3) / 4) * 4;
  uint64_t offset = offset_;
  offset_ += increment;
  return {seed_, offset};
}

TpuGeneratorImpl* TpuGeneratorImpl::clone_impl() const {
  auto* gen = new TpuGeneratorImpl(device().index(), seed_);
  gen->offset_ = offset_;
  return gen;
}

const at::Generator& default_generator(c10::DeviceIndex device) {
  static std::vector<at::Generator>* gens = [] {
    auto* v = new std::vector<at::Generator>();  // leaked: lives as long as the process
    for (c10::DeviceIndex d = 0; d < device_count(); ++d) {
      v->push_back(at::make_generator<TpuGeneratorImpl>(d));
    }
    return v;
  }();
  if (device < 0) device = current_device();
  check_device_index(device);
  return (*gens)[device];
}

at::Generator new_generator(c10::DeviceIndex device) {
  if (device < 0) device = current_device();
  check_device_index(device);
  return at::make_generator<TpuGeneratorImpl>(device);
}

}  // namespace torch_tpu::aten
