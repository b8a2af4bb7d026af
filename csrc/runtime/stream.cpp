// Streams: an in-order task queue per stream, run by a dedicated worker
// thread started on first enqueue. Completion is tracked with monotonic
// sequence numbers (task seq = ++submitted; the worker publishes completed),
// so query is one atomic load and synchronize waits for a number.
#include <pthread.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "capture_internal.h"
#include "memory_internal.h"
#include "runtime_internal.h"
#include "stream_internal.h"

namespace torch_tpu::runtime {

namespace detail {

namespace {

// Polling windows before sleeping: an idle worker stays hot for a short
// burst of launches; a synchronizing host catches a short task without a
// futex round trip. Both yield while spinning (see spin_until).
constexpr int64_t kWorkerSpinNs = 40'000;
constexpr int64_t kWaiterSpinNs = 20'000;
// Like a GPU's launch queue: a host that runs this far ahead of the device
// waits for it, so a loop that never synchronizes cannot queue unbounded
// memory (each task holds its closure).
constexpr uint64_t kMaxQueuedTasks = uint64_t{1} << 16;
constexpr uint64_t kSweepEvery = 16;
// An idle worker's period for reading `submitted` (see idle_poll): 2-8 us
// measured alike for a host launching 1 K-element adds back to back.
constexpr int64_t kPollNs = 4'000;

void record_error(StreamImpl* s, const Task& t, const char* what) {
  std::lock_guard<std::mutex> lock(s->error_mu);
  if (!s->has_error.load(std::memory_order_relaxed)) {
    s->error = KernelError{t.name, s->device, what, t.origin};
    s->error_seq = t.seq;
    s->has_error.store(true, std::memory_order_release);
  } else {
    ++s->error.later_failures;  // first error wins
  }
}

void run_task(StreamImpl* s, Task& t) {
  BusyClock& busy = get_device(s->device)->busy;  // utilization.cpp
  busy_begin(busy);
  if (const int64_t us = g_slow_device_us.load(std::memory_order_relaxed); us > 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
  ExecContext& ctx = t_exec;
  ctx.task_name = t.name.c_str();
  ctx.task_allocs = &t.allocs;
  ctx.task_local = &t.local;
  set_thread_task(ctx.slot, ctx.task_name);
  begin_access(t.allocs);
  const int64_t trace_start = t.trace.on ? trace_clock_ns() : 0;
  try {
    t.fn();
  } catch (const std::exception& e) {
    record_error(s, t, e.what());
  } catch (...) {
    record_error(s, t, "unknown exception (not derived from std::exception)");
  }
  if (t.trace.on) record_trace(s, t, trace_start, trace_clock_ns());
  busy_end(busy);
  end_access(t.allocs);
  set_thread_task(ctx.slot, nullptr);
  ctx.task_name = nullptr;
  ctx.task_allocs = nullptr;
  ctx.task_local = nullptr;

  // seq_cst store + seq_cst load of `waiters` pairs with wait_for's
  // increment-then-check, so a sleeping waiter is never missed.
  s->completed.store(t.seq, std::memory_order_seq_cst);
  if (s->waiters.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(s->done_mu);
    s->done_cv.notify_all();
  }
  // The task itself (its captures) is destroyed later, on a host thread:
  // see StreamImpl::sweeping.
}

TaskBlock* take_block(StreamImpl* s, uint64_t first_seq) {  // under s->mu
  TaskBlock* b = nullptr;
  if (!s->spare_blocks.empty()) {
    b = s->spare_blocks.back();
    s->spare_blocks.pop_back();
  } else {
    b = new TaskBlock;
  }
  b->first_seq = first_seq;
  b->next.store(nullptr, std::memory_order_relaxed);
  return b;
}

// Blocks kept for reuse per stream; more are freed (memory back after a burst).
constexpr size_t kSpareBlocks = 4;

void recycle_block(StreamImpl* s, TaskBlock* b) {
  {
    std::lock_guard<std::mutex> lock(s->mu);
    if (s->spare_blocks.size() < kSpareBlocks) {
      s->spare_blocks.push_back(b);
      return;
    }
  }
  delete b;  // its slots are reset already
}

// Resets the finished tasks not yet swept, on the calling (host) thread, and
// recycles the blocks the worker has left. Capture destructors may enqueue
// again (and so sweep: that nested sweep skips).
void sweep(StreamImpl* s) {
  if (s == t_exec.stream) return;  // a task's own stream: leave it to the host
  const uint64_t done = s->completed.load(std::memory_order_acquire);
  if (s->swept.load(std::memory_order_relaxed) >= done) return;  // nothing to do: no RMW
  if (s->sweeping.exchange(true, std::memory_order_acquire)) return;
  for (uint64_t seq = s->swept.load(std::memory_order_relaxed) + 1; seq <= done;) {
    TaskBlock* b = s->sweep_block;
    if (seq - b->first_seq == TaskBlock::kSlots) {
      // The worker completed `seq`, in the next block, so it no longer reads
      // this one (not even its `next`).
      s->sweep_block = b->next.load(std::memory_order_acquire);
      recycle_block(s, b);
      continue;
    }
    b->slots[seq - b->first_seq].reset();
    s->swept.store(seq, std::memory_order_relaxed);
    ++seq;
  }
  s->sweeping.store(false, std::memory_order_release);
}

// How an idle worker looks for work before it sleeps. Reading `submitted`
// on every pause pulled its cache line to the worker between any two
// launches, and the host then paid a cross-core round trip for its next
// store to it (~0.2 us of a 1.7 us small op, measured). So the worker reads
// it every kPollNs only (launch latency, like a device's doorbell
// polling), and reads `doorbell`, a line only synchronizing hosts write, on
// every pause: a host that waits is never held up by the poll period.
bool idle_poll(StreamImpl* s, uint64_t next) {
  auto has_work = [&] { return s->submitted.load(std::memory_order_acquire) >= next; };
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  auto last_poll = start;
  uint32_t rung = s->doorbell.load(std::memory_order_relaxed);
  for (int i = 1;; ++i) {
    if (i % 64 == 0) {
      std::this_thread::yield();
    } else {
      cpu_relax();
    }
    if (const uint32_t d = s->doorbell.load(std::memory_order_acquire); d != rung) {
      rung = d;
      if (has_work()) return true;
    }
    if (i % 16 == 0) {
      const auto now = Clock::now();
      if (now - last_poll >= std::chrono::nanoseconds(kPollNs)) {
        if (has_work()) return true;
        last_poll = now;
      }
      if (now - start >= std::chrono::nanoseconds(kWorkerSpinNs)) return has_work();
    }
  }
}

void worker_main(StreamImpl* s, TaskBlock* block) {
  ExecContext& ctx = t_exec;
  ctx.stream = s;
  ctx.device = s->device;
  ctx.slot = register_runtime_thread(s->device);
  set_device(s->device);
  char name[16];
  std::snprintf(name, sizeof name, "tpu%d-stream", s->device);
  pthread_setname_np(pthread_self(), name);

  uint64_t next = 1;
  for (;;) {
    const uint64_t tail = s->submitted.load(std::memory_order_acquire);
    if (tail < next) {
      if (!idle_poll(s, next)) {
        // seq_cst flag store, then seq_cst load of submitted: pairs with the
        // producer's publish-then-check in publish(), so a wake-up is never lost.
        std::unique_lock<std::mutex> lock(s->sleep_mu);
        s->worker_sleeping.store(true, std::memory_order_seq_cst);
        while (s->submitted.load(std::memory_order_seq_cst) < next) s->work_cv.wait(lock);
        s->worker_sleeping.store(false, std::memory_order_relaxed);
      }
      continue;
    }
    ctx.priority = s->priority;
    for (; next <= tail; ++next) {
      if (next - block->first_seq == TaskBlock::kSlots) {
        block = block->next.load(std::memory_order_acquire);  // linked before next was published
      }
      run_task(s, block->slots[next - block->first_seq]);
    }
  }
}

}  // namespace

StreamImpl* new_stream(int device, int priority, bool is_default) {
  auto* s = new StreamImpl;
  s->device = device;
  s->priority = priority;
  s->is_default = is_default;
  s->fill_block = s->sweep_block = new TaskBlock;  // first_seq 1
  return s;
}

Task& claim_slot(StreamImpl* s) {
  s->mu.lock();  // released by publish()
  const uint64_t seq = ++s->last_seq;
  TaskBlock* b = s->fill_block;
  if (seq - b->first_seq == TaskBlock::kSlots) {
    TaskBlock* fresh = take_block(s, seq);
    b->next.store(fresh, std::memory_order_release);
    s->fill_block = b = fresh;
  }
  Task& slot = b->slots[seq - b->first_seq];
  slot.seq = seq;
  return slot;
}

uint64_t publish(StreamImpl* s, Task& slot) {
  const uint64_t seq = slot.seq;
  if (!s->worker_started) {
    s->worker_started = true;
    s->submitted.store(seq, std::memory_order_release);
    s->mu.unlock();
    note_thread_started();
    std::thread(worker_main, s, s->fill_block).detach();  // seq 1's block; leaky: lives as long as the process
    return seq;
  }
  // Published under the lock, so `submitted` only grows. seq_cst: the load
  // of worker_sleeping below must not pass it (see worker_main).
  s->submitted.store(seq, std::memory_order_seq_cst);
  s->mu.unlock();
  if (s->worker_sleeping.load(std::memory_order_seq_cst)) {
    std::lock_guard<std::mutex> lock(s->sleep_mu);
    s->work_cv.notify_one();
  }
  // Every kSweepEvery launches: reading `completed` pulls a line the worker
  // writes per task, so a launch does not read it each time. Finished
  // captures wait at most that many launches (or until a synchronization).
  if (seq % kSweepEvery == 0) {
    sweep(s);
    // A full queue makes the host wait until it is half drained, not for
    // one free slot: waiting per slot put host and worker in lockstep, a
    // futex wake-up per launch (3x the launch cost for a host that keeps it
    // full). (completed may be past seq when other threads enqueue too.)
    if (seq > s->completed.load(std::memory_order_relaxed) + kMaxQueuedTasks && s != t_exec.stream) {
      wait_for(s, seq - kMaxQueuedTasks / 2);
    }
  }
  return seq;
}

void wait_for(StreamImpl* s, uint64_t seq) {
  if (!reached(s, seq)) s->doorbell.fetch_add(1, std::memory_order_release);  // see idle_poll
  if (!reached(s, seq) && !spin_until([&] { return reached(s, seq); }, kWaiterSpinNs)) {
    std::unique_lock<std::mutex> lock(s->done_mu);
    s->waiters.fetch_add(1, std::memory_order_seq_cst);
    while (s->completed.load(std::memory_order_seq_cst) < seq) s->done_cv.wait(lock);
    s->waiters.fetch_sub(1, std::memory_order_relaxed);
  }
  // A synchronization point: release what finished work captured.
  sweep(s);
}

Status take_error(StreamImpl* s, uint64_t launched) {
  if (!s->has_error.load(std::memory_order_acquire)) return Status::kSuccess;
  KernelError error;
  {
    std::lock_guard<std::mutex> lock(s->error_mu);
    if (!s->has_error.load(std::memory_order_relaxed)) return Status::kSuccess;
    error = std::move(s->error);
    error.at_launch = launched != 0 && s->error_seq == launched;
    s->error = KernelError{};
    s->has_error.store(false, std::memory_order_release);
  }
  return fail_kernel(std::move(error));
}

Status check_stream(Stream s, StreamImpl** out) {
  if (!s) {
    Device* dev = get_device(current_device());
    if (!dev) {
      return fail(Status::kInvalidDevice, "no stream given and the current device " +
                                              std::to_string(current_device()) + " does not exist");
    }
    *out = dev->default_stream;
    return Status::kSuccess;
  }
  if (s->magic != StreamImpl::kMagic) return fail(Status::kInvalidValue, "invalid stream handle");
  if (!s->in_use.load(std::memory_order_relaxed)) {
    return fail(Status::kInvalidValue, "the stream was destroyed");
  }
  *out = s;
  return Status::kSuccess;
}

std::vector<StreamImpl*> streams_of(int device) {
  Device* dev = get_device(device);
  if (!dev) return {};
  std::lock_guard<std::mutex> lock(dev->streams_mu);
  return dev->streams;
}

void wait_device_idle(int device) {
  for (StreamImpl* s : streams_of(device)) {
    if (s == t_exec.stream) continue;  // a task cannot wait for itself
    wait_for(s, s->submitted.load(std::memory_order_acquire));
  }
}

void wait_all_devices_idle() {
  const int n = num_devices();
  for (int d = 0; d < n; ++d) wait_device_idle(d);
}

void wait_for_launches_in_progress() {
  const int n = num_devices();
  for (int d = 0; d < n; ++d) {
    for (StreamImpl* s : streams_of(d)) std::lock_guard<std::mutex> producers(s->mu);
  }
}

}  // namespace detail

using namespace detail;

void stream_priority_range(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -1;
}

Stream default_stream(int device) {
  Device* dev = get_device(device);
  return dev ? dev->default_stream : nullptr;
}

Status stream_create(int device, int priority, Stream* out) {
  Device* dev = get_device(device);
  if (!dev) return fail(Status::kInvalidDevice, "stream_create: invalid device index " + std::to_string(device));
  if (!out) return fail(Status::kInvalidValue, "stream_create: out is null");
  if (bad_fork()) return forked_error();
  priority = priority < -1 ? -1 : (priority > 0 ? 0 : priority);  // clamp like CUDA
  StreamImpl* s = nullptr;
  {
    // Destroyed streams are recycled (never freed): an event that captured
    // one keeps a valid pointer, and its seq stays completed forever.
    std::lock_guard<std::mutex> lock(dev->streams_mu);
    if (!dev->free_streams.empty()) {
      s = dev->free_streams.back();
      dev->free_streams.pop_back();
      s->priority = priority;
      s->in_use.store(true, std::memory_order_relaxed);
    } else {
      s = new_stream(device, priority, /*is_default=*/false);
      s->index = static_cast<int>(dev->streams.size());
      dev->streams.push_back(s);
    }
  }
  *out = s;
  return Status::kSuccess;
}

Status stream_destroy(Stream s) {
  if (!s) return fail(Status::kInvalidValue, "stream_destroy: null stream");
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (bad_fork()) return forked_error();
  if (impl->is_default) return fail(Status::kInvalidValue, "stream_destroy: the default stream cannot be destroyed");
  if (impl == t_exec.stream) return fail(Status::kInvalidValue, "stream_destroy: called from a task on that stream");
  if (capturing(impl)) return fail(Status::kInvalidValue, "stream_destroy: the stream is capturing a graph; end the capture first");
  wait_for(impl, impl->submitted.load(std::memory_order_acquire));
  const Status st = take_error(impl);
  Device* dev = get_device(impl->device);
  {
    std::lock_guard<std::mutex> lock(dev->streams_mu);
    impl->in_use.store(false, std::memory_order_relaxed);
    dev->free_streams.push_back(impl);
  }
  return st;  // a pending kernel failure is still reported; the stream is gone either way
}

int stream_device(Stream s) {
  if (!s) return current_device();
  return s->device;
}

int stream_priority(Stream s) {
  if (!s) return 0;
  return s->priority;
}

Status stream_query(Stream s) {
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (bad_fork()) return forked_error();
  if (CaptureImpl* c = capturing(impl)) return capture_refuse(c, "stream_query on the capturing stream");
  // Completion first: a failure is recorded before its task completes, so
  // a query that sees the work done also sees (and reports) its error.
  const bool done = reached(impl, impl->submitted.load(std::memory_order_acquire));
  if (Status st = take_error(impl); st != Status::kSuccess) return st;
  if (done) return Status::kSuccess;
  return Status::kNotReady;  // not a failure: last_error_message() is left alone
}

Status stream_synchronize(Stream s) {
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (bad_fork()) return forked_error();
  if (impl == t_exec.stream) {
    return fail(Status::kInvalidValue, "stream_synchronize: called from a task on the same stream (it would wait for itself)");
  }
  if (CaptureImpl* c = capturing(impl)) return capture_refuse(c, "stream_synchronize on the capturing stream");
  wait_for(impl, impl->submitted.load(std::memory_order_acquire));
  return take_error(impl);
}

}  // namespace torch_tpu::runtime
