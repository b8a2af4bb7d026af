// memcpy / memcpy_async / memcpy_and_sync / memset_async. Copies are stream
// tasks that name the device allocations they touch (so strict mode opens
// exactly those), and follow CUDA's host-memory rules: pinned memory is used
// in place, a pageable source is staged at call time (through the reused
// buffers of staging_cache.h), a pageable destination makes the call
// synchronous. memcpy_and_sync always waits, so it never stages.
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "capture_internal.h"
#include "memory_internal.h"
#include "runtime_internal.h"
#include "staging_cache.h"
#include "stream_internal.h"

namespace torch_tpu::runtime {

namespace detail {

namespace {

// Large copies use every core of the device: one core cannot saturate
// memory bandwidth. Chunks are big enough to amortize the hand-off.
constexpr size_t kParallelBytes = size_t{1} << 20;
constexpr int64_t kChunkBytes = int64_t{256} << 10;

enum class Where { kPageable, kPinned, kDevice };

struct Side {
  Where where = Where::kPageable;
  int device = -1;
};

struct CopyPlan {
  Side src, dst;
  AllocList refs;  // pending references on device allocations
  ~CopyPlan() { drop_pending(refs); }  // unless moved into a task
};

const char* kind_name(MemcpyKind k) {
  switch (k) {
    case MemcpyKind::kHostToHost: return "kHostToHost";
    case MemcpyKind::kHostToDevice: return "kHostToDevice";
    case MemcpyKind::kDeviceToHost: return "kDeviceToHost";
    case MemcpyKind::kDeviceToDevice: return "kDeviceToDevice";
    case MemcpyKind::kDefault: return "kDefault";
  }
  return "invalid MemcpyKind";
}

std::string describe(const Side& s) {
  switch (s.where) {
    case Where::kPageable: return "pageable host memory";
    case Where::kPinned: return "pinned host memory";
    case Where::kDevice: return "device memory (tpu:" + std::to_string(s.device) + ")";
  }
  return "?";
}

// Classifies [p, p+n) and checks it stays inside its allocation.
Status classify(const char* api, const char* role, const void* p, size_t n, Side* side,
                AllocList& refs) {
  const int device = arena_of(p);
  if (device >= 0) {
    Allocation* a = find_allocation(device, p, /*take_pending=*/true);
    if (!a) {
      return fail(Status::kInvalidDevicePointer, std::string(api) + ": " + role + " " + hex(p) +
                                                     " lies in the tpu:" + std::to_string(device) +
                                                     " address space but not in a live allocation (freed?)");
    }
    refs.push_back(a);
    const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - a->base);
    if (offset > a->size || n > a->size - offset) {
      return fail(Status::kInvalidValue, std::string(api) + ": " + std::to_string(n) + " bytes at " + role +
                                             " " + hex(p) + " run past the end of its tpu:" +
                                             std::to_string(device) + " allocation (base " + hex(a->base) +
                                             ", " + std::to_string(a->size) + " bytes)");
    }
    side->where = Where::kDevice;
    side->device = device;
    return Status::kSuccess;
  }
  char* base = nullptr;
  size_t size = 0;
  if (find_pinned(p, &base, &size)) {
    const size_t offset = static_cast<size_t>(static_cast<const char*>(p) - base);
    if (n > size - offset) {
      return fail(Status::kInvalidValue, std::string(api) + ": " + std::to_string(n) + " bytes at " + role +
                                             " " + hex(p) + " run past the end of its pinned host block (" +
                                             std::to_string(size) + " bytes)");
    }
    side->where = Where::kPinned;
  }
  return Status::kSuccess;
}

Status plan_copy(const char* api, void* dst, const void* src, size_t n, MemcpyKind kind, CopyPlan* plan) {
  if (static_cast<int>(kind) < 0 || static_cast<int>(kind) > static_cast<int>(MemcpyKind::kDefault)) {
    return fail(Status::kInvalidMemcpyDirection, std::string(api) + ": invalid MemcpyKind value");
  }
  if (!dst || !src) return fail(Status::kInvalidValue, std::string(api) + ": null pointer");
  if (Status st = classify(api, "source", src, n, &plan->src, plan->refs); st != Status::kSuccess) return st;
  if (Status st = classify(api, "destination", dst, n, &plan->dst, plan->refs); st != Status::kSuccess) return st;
  const bool src_dev = plan->src.where == Where::kDevice, dst_dev = plan->dst.where == Where::kDevice;
  const MemcpyKind actual = src_dev ? (dst_dev ? MemcpyKind::kDeviceToDevice : MemcpyKind::kDeviceToHost)
                                    : (dst_dev ? MemcpyKind::kHostToDevice : MemcpyKind::kHostToHost);
  if (kind != MemcpyKind::kDefault && kind != actual) {
    return fail(Status::kInvalidMemcpyDirection,
                std::string(api) + ": kind " + kind_name(kind) + " does not match the pointers: source is " +
                    describe(plan->src) + ", destination is " + describe(plan->dst) + " (that is " +
                    kind_name(actual) + ")");
  }
  return Status::kSuccess;
}

void copy_bytes(char* dst, const char* src, size_t n) {
  if (dst < src + n && src < dst + n) {  // overlap (same allocation): one pass
    std::memmove(dst, src, n);
    return;
  }
  if (n < kParallelBytes) {
    std::memcpy(dst, src, n);
    return;
  }
  parallel_for(0, static_cast<int64_t>(n), kChunkBytes, [&](int64_t b, int64_t e) {
    std::memcpy(dst + b, src + b, static_cast<size_t>(e - b));
  });
}

void set_bytes(char* dst, int value, size_t n) {
  if (n < kParallelBytes) {
    std::memset(dst, value, n);
    return;
  }
  parallel_for(0, static_cast<int64_t>(n), kChunkBytes, [&](int64_t b, int64_t e) {
    std::memset(dst + b, value, static_cast<size_t>(e - b));
  });
}

TraceKind trace_kind(const CopyPlan& plan) {
  const bool src_dev = plan.src.where == Where::kDevice, dst_dev = plan.dst.where == Where::kDevice;
  if (src_dev) return dst_dev ? TraceKind::kMemcpyDtoD : TraceKind::kMemcpyDtoH;
  return dst_dev ? TraceKind::kMemcpyHtoD : TraceKind::kMemcpyHtoH;
}

// Runs `task` on `s`, or inline when the caller is that stream's own worker
// (waiting for it would deadlock; in-order execution makes inline correct).
Status run_and_wait(StreamImpl* s, Task&& task) {
  if (s == t_exec.stream) {
    begin_access(task.allocs);
    task.fn();
    end_access(task.allocs);
    task.allocs.clear();
    return Status::kSuccess;
  }
  const uint64_t seq = enqueue(s, std::move(task));
  wait_for(s, seq);
  // A synchronous copy is a sync point: report an earlier kernel failure
  // on this stream here (the copied bytes may be garbage because of it).
  return take_error(s);
}

// With sync, returns after the copy and all earlier work on s ran (and
// reports their failures); otherwise follows memcpy_async's host rules.
Status submit_copy(CopyPlan& plan, void* dst, const void* src, size_t n, StreamImpl* s, bool sync) {
  const int64_t trace_begin = tracing_on() ? trace_clock_ns() : 0;  // staging counts as launch time
  const bool src_pageable = plan.src.where == Where::kPageable;
  const bool dst_pageable = plan.dst.where == Where::kPageable;
  if (src_pageable && dst_pageable && !sync) {  // no device or pinned memory: nothing to order
    std::memmove(dst, src, n);
    return Status::kSuccess;
  }
  const bool wait = sync || dst_pageable;
  std::shared_ptr<char> staging;
  const char* from = static_cast<const char*>(src);
  if (src_pageable && !wait) {
    // The caller may reuse its buffer as soon as we return.
    staging = staging_cache().take(n);
    if (!staging) {
      return fail(Status::kOutOfMemory, "memcpy_async: could not allocate " + std::to_string(n) +
                                            " bytes of host memory to stage the pageable source");
    }
    std::memcpy(staging.get(), src, n);
    from = staging.get();
  }
  Task task;
  task.name = "memcpy";
  task.allocs = std::move(plan.refs);
  plan.refs.clear();
  // `staging` goes back to the cache before the task counts as done, so a
  // copy issued after a synchronize finds it there.
  task.fn = [to = static_cast<char*>(dst), from, n, staging = std::move(staging)]() mutable {
    copy_bytes(to, from, n);
    staging.reset();
  };
  if (trace_begin != 0) stamp(task, trace_kind(plan), n, trace_begin);
  if (wait) return run_and_wait(s, std::move(task));
  enqueue(s, std::move(task));
  return Status::kSuccess;
}

// memcpy_async on a capturing stream: device and pinned memory are used in
// place at replay, so those copies are recorded; a pageable side would need
// staging or a wait now, which a graph cannot replay.
Status capture_copy(CaptureImpl* c, const CopyPlan& plan, void* dst, const void* src, size_t n) {
  if (plan.src.where == Where::kPageable || plan.dst.where == Where::kPageable) {
    return capture_refuse(c, "memcpy_async between a tpu and pageable host memory (use pinned memory)");
  }
  BufferList buffers;
  if (plan.src.where == Where::kDevice) buffers.push_back(src);
  if (plan.dst.where == Where::kDevice) buffers.push_back(dst);
  return capture_node(c, "memcpy", buffers,
                      [to = static_cast<char*>(dst), from = static_cast<const char*>(src), n] { copy_bytes(to, from, n); });
}

}  // namespace

}  // namespace detail

using namespace detail;

Status memcpy_async(void* dst, const void* src, size_t n, MemcpyKind kind, Stream s) {
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (bad_fork()) return forked_error();
  if (n == 0) return Status::kSuccess;
  CopyPlan plan;
  if (Status st = plan_copy("memcpy_async", dst, src, n, kind, &plan); st != Status::kSuccess) return st;
  if (CaptureImpl* c = capturing(impl)) return capture_copy(c, plan, dst, src, n);
  return submit_copy(plan, dst, src, n, impl, /*sync=*/false);
}

Status memcpy_and_sync(void* dst, const void* src, size_t n, MemcpyKind kind, Stream s) {
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (bad_fork()) return forked_error();
  if (CaptureImpl* c = capturing(impl)) return capture_refuse(c, "memcpy_and_sync (a synchronous copy, e.g. .item() or .cpu())");
  CopyPlan plan;
  if (n > 0) {
    if (Status st = plan_copy("memcpy_and_sync", dst, src, n, kind, &plan); st != Status::kSuccess) return st;
    return submit_copy(plan, dst, src, n, impl, /*sync=*/true);
  }
  // Nothing to copy, but still the sync point the caller asked for.
  if (impl == t_exec.stream) return Status::kSuccess;  // earlier work on s already ran
  wait_for(impl, impl->submitted.load(std::memory_order_acquire));
  return take_error(impl);
}

Status memcpy(void* dst, const void* src, size_t n, MemcpyKind kind) {
  if (bad_fork()) return forked_error();
  if (n == 0) return Status::kSuccess;
  num_devices();  // arenas must exist before pointers are classified
  CopyPlan plan;
  if (Status st = plan_copy("memcpy", dst, src, n, kind, &plan); st != Status::kSuccess) return st;
  // The destination device's default stream (the source's for D2H).
  int device = plan.dst.where == Where::kDevice ? plan.dst.device
               : plan.src.where == Where::kDevice ? plan.src.device : -1;
  if (device < 0) {  // host to host: plain host memory on both sides
    std::memmove(dst, src, n);
    return Status::kSuccess;
  }
  if (Status st = check_capture_unsafe(device, "memcpy (synchronous)"); st != Status::kSuccess) return st;
  return submit_copy(plan, dst, src, n, get_device(device)->default_stream, /*sync=*/true);
}

Status memset_async(void* dst, int value, size_t n, Stream s) {
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (bad_fork()) return forked_error();
  if (n == 0) return Status::kSuccess;
  if (!dst) return fail(Status::kInvalidValue, "memset_async: null pointer");
  CopyPlan plan;
  if (Status st = classify("memset_async", "destination", dst, n, &plan.dst, plan.refs); st != Status::kSuccess) {
    return st;
  }
  if (plan.dst.where != Where::kDevice) {
    return fail(Status::kInvalidDevicePointer, "memset_async: " + hex(dst) + " is not device memory");
  }
  auto fill = [to = static_cast<char*>(dst), value, n] { set_bytes(to, value, n); };
  if (CaptureImpl* c = capturing(impl)) return capture_node(c, "memset", {dst}, fill);
  Task task;
  task.name = "memset";
  task.allocs = std::move(plan.refs);
  plan.refs.clear();
  task.fn = fill;
  if (tracing_on()) stamp(task, TraceKind::kMemset, n, trace_clock_ns());
  enqueue(impl, std::move(task));
  return Status::kSuccess;
}

}  // namespace torch_tpu::runtime
