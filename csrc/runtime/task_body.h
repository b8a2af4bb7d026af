// TaskBody: the callable a launch enqueues. Like std::function<void()> but
// move-only and with a large inline buffer: a kernel's captures (its
// descriptor, typically 200-500 bytes) are stored in the task itself, so a
// small op's launch does not allocate for them (std::function keeps only 16
// bytes inline; everything else was a malloc on the host and a free later).
// Larger or throwing-move callables go to the heap.
#pragma once

#include <cstddef>
#include <functional>
#include <new>
#include <type_traits>
#include <utility>

namespace torch_tpu::runtime {

class TaskBody {
 public:
  static constexpr size_t kInlineBytes = 512;

  TaskBody() = default;
  TaskBody(std::nullptr_t) {}  // NOLINT

  template <typename F, typename D = std::decay_t<F>,
            typename = std::enable_if_t<!std::is_same_v<D, TaskBody> && std::is_invocable_r_v<void, D&>>>
  TaskBody(F&& f) {  // NOLINT: implicit, like std::function
    if constexpr (std::is_same_v<D, std::function<void()>> || std::is_pointer_v<D>) {
      if (!f) return;  // an empty std::function or null pointer stays empty
    }
    if constexpr (sizeof(D) <= kInlineBytes && alignof(D) <= alignof(std::max_align_t) &&
                  std::is_nothrow_move_constructible_v<D>) {
      new (buf_) D(std::forward<F>(f));
      ops_ = &kInlineOps<D>;
    } else {
      *reinterpret_cast<D**>(buf_) = new D(std::forward<F>(f));
      ops_ = &kHeapOps<D>;
    }
  }

  TaskBody(TaskBody&& o) noexcept { take(o); }
  TaskBody& operator=(TaskBody&& o) noexcept {
    if (this != &o) {
      reset();
      take(o);
    }
    return *this;
  }
  TaskBody(const TaskBody&) = delete;
  TaskBody& operator=(const TaskBody&) = delete;
  ~TaskBody() { reset(); }

  explicit operator bool() const { return ops_ != nullptr; }
  void operator()() { ops_->call(buf_); }
  void reset() {
    if (ops_) ops_->destroy(buf_);
    ops_ = nullptr;
  }

 private:
  struct Ops {
    void (*call)(void*);
    void (*move)(void* dst, void* src);  // move-constructs into dst, destroys src
    void (*destroy)(void*);
  };
  template <typename D>
  static constexpr Ops kInlineOps = {
      [](void* p) { (*static_cast<D*>(p))(); },
      [](void* dst, void* src) {
        new (dst) D(std::move(*static_cast<D*>(src)));
        static_cast<D*>(src)->~D();
      },
      [](void* p) { static_cast<D*>(p)->~D(); },
  };
  template <typename D>
  static constexpr Ops kHeapOps = {
      [](void* p) { (**static_cast<D**>(p))(); },
      [](void* dst, void* src) { *static_cast<D**>(dst) = *static_cast<D**>(src); },
      [](void* p) { delete *static_cast<D**>(p); },
  };

  void take(TaskBody& o) {
    if (o.ops_) {
      o.ops_->move(buf_, o.buf_);
      ops_ = o.ops_;
      o.ops_ = nullptr;
    }
  }

  const Ops* ops_ = nullptr;
  alignas(std::max_align_t) unsigned char buf_[kInlineBytes];
};

}  // namespace torch_tpu::runtime
