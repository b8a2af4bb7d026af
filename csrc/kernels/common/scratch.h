// Scratch memory of a device worker thread, for kernels that need a
// workspace (GEMM packing, im2col columns). Declared thread_local by its
// users: each worker grows its own, so no locking. Kept between calls
// because faulting in fresh pages for a small kernel's workspace on every
// call cost more than the kernel. Not zeroed; 64-byte aligned. In the ISA
// namespace: files compiled per ISA include it (isa.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "kernels/common/isa.h"

namespace torch_tpu::kernels {
inline namespace TORCH_TPU_ISA {

class ScratchBuffer {
 public:
  // keep_bytes: the most this buffer holds on to between calls (trim()).
  explicit ScratchBuffer(size_t keep_bytes = SIZE_MAX) : keep_bytes_(keep_bytes) {}
  ScratchBuffer(const ScratchBuffer&) = delete;
  ScratchBuffer& operator=(const ScratchBuffer&) = delete;
  ~ScratchBuffer() { std::free(ptr_); }

  // Room for count T's (plus 64 bytes for vector tails); valid until the
  // next get() or trim(). Earlier contents are not kept when it grows.
  template <typename T>
  T* get(int64_t count) {
    const size_t need = static_cast<size_t>(count) * sizeof(T) + 64;
    if (need > bytes_) {
      std::free(ptr_);
      ptr_ = nullptr;
      bytes_ = 0;
      const size_t rounded = (need + 4095) / 4096 * 4096;
      ptr_ = std::aligned_alloc(64, rounded);
      if (ptr_ == nullptr) throw std::bad_alloc();
      bytes_ = rounded;
    }
    return static_cast<T*>(ptr_);
  }

  // Frees the memory if it is more than the buffer keeps between calls.
  void trim() {
    if (bytes_ > keep_bytes_) {
      std::free(ptr_);
      ptr_ = nullptr;
      bytes_ = 0;
    }
  }

 private:
  size_t keep_bytes_;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

// A kernel call's use of a scratch buffer: trims it when the call ends,
// also when the call throws.
class ScratchUse {
 public:
  explicit ScratchUse(ScratchBuffer& buffer) : buffer_(buffer) {}
  ScratchUse(const ScratchUse&) = delete;
  ScratchUse& operator=(const ScratchUse&) = delete;
  ~ScratchUse() { buffer_.trim(); }
  template <typename T>
  T* get(int64_t count) {
    return buffer_.get<T>(count);
  }

 private:
  ScratchBuffer& buffer_;
};

}  // namespace TORCH_TPU_ISA
}  // namespace torch_tpu::kernels
