// Streams: an in-order task queue per stream, run by a dedicated worker
// thread started on first enqueue. Completion is tracked with monotonic
// sequence numbers (task seq = ++submitted; the worker publishes completed),
// so query is one atomic load and synchronize waits for a number.
#include <pthread.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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

void record_error(StreamImpl* s, const Task& t, const char* what) {
  std::string msg = "kernel '" + t.name + "' failed on tpu:" + std::to_string(s->device) + ": " + what;
  std::lock_guard<std::mutex> lock(s->error_mu);
  if (!s->has_error.load(std::memory_order_relaxed)) {
    s->error = std::move(msg);
    s->extra_errors = 0;
    s->has_error.store(true, std::memory_order_release);
  } else {
    ++s->extra_errors;  // first error wins
  }
}

void run_task(StreamImpl* s, Task& t) {
  if (const int64_t us = g_slow_device_us.load(std::memory_order_relaxed); us > 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
  }
  ExecContext& ctx = t_exec;
  ctx.task_name = t.name.c_str();
  ctx.task_allocs = &t.allocs;
  set_thread_task(ctx.slot, ctx.task_name);
  begin_access(t.allocs);
  try {
    t.fn();
  } catch (const std::exception& e) {
    record_error(s, t, e.what());
  } catch (...) {
    record_error(s, t, "unknown exception (not derived from std::exception)");
  }
  end_access(t.allocs);
  set_thread_task(ctx.slot, nullptr);
  ctx.task_name = nullptr;
  ctx.task_allocs = nullptr;

  // seq_cst store + seq_cst load of `waiters` pairs with wait_for's
  // increment-then-check, so a sleeping waiter is never missed.
  s->completed.store(t.seq, std::memory_order_seq_cst);
  if (s->waiters.load(std::memory_order_seq_cst) > 0) {
    std::lock_guard<std::mutex> lock(s->done_mu);
    s->done_cv.notify_all();
  }
  // The task itself (its captures) is destroyed later, on a host thread:
  // see StreamImpl::retired.
}

// Host side of StreamImpl::retired: collect() takes the retired tasks
// (under s->mu, which the caller holds), destroy() frees them after the
// lock is released, on the calling thread. One per host thread; empty
// between uses, so it keeps its buffer.
struct Reaper {
  std::vector<Task> dead;
  void collect(StreamImpl* s) {
    if (!s->retired.empty() && s != t_exec.stream) dead.swap(s->retired);
  }
  void destroy() {
    if (dead.empty()) return;
    // Destroyed from a local: a capture's destructor may enqueue (and so
    // collect) again.
    std::vector<Task> local = std::move(dead);
    dead.clear();
    local.clear();
    if (dead.capacity() == 0) dead.swap(local);  // keep the buffer
  }
};
thread_local Reaper t_reaper;

void worker_main(StreamImpl* s) {
  ExecContext& ctx = t_exec;
  ctx.stream = s;
  ctx.device = s->device;
  ctx.slot = register_runtime_thread(s->device);
  set_device(s->device);
  char name[16];
  std::snprintf(name, sizeof name, "tpu%d-stream", s->device);
  pthread_setname_np(pthread_self(), name);

  std::vector<Task> batch;
  batch.reserve(64);
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(s->mu);
      // Hand the finished batch to the host (StreamImpl::retired); if it
      // has not collected the last one yet, they wait together.
      if (s->retired.empty()) {
        s->retired.swap(batch);
      } else {
        std::move(batch.begin(), batch.end(), std::back_inserter(s->retired));
        batch.clear();
      }
      if (s->incoming.empty()) {
        lock.unlock();
        const uint64_t done = s->completed.load(std::memory_order_relaxed);
        spin_until([&] { return s->submitted.load(std::memory_order_acquire) > done; }, kWorkerSpinNs);
        lock.lock();
        while (s->incoming.empty()) {
          s->worker_sleeping = true;
          s->work_cv.wait(lock);
          s->worker_sleeping = false;
        }
      }
      // Take the whole queue; the two vectors trade buffers, so steady
      // state enqueues never allocate.
      batch.swap(s->incoming);
    }
    ctx.priority = s->priority;
    for (Task& t : batch) run_task(s, t);
    if (batch.capacity() > 4096) {  // give back memory after a burst
      std::vector<Task>().swap(batch);
      batch.reserve(64);
    }
  }
}

}  // namespace

StreamImpl* new_stream(int device, int priority, bool is_default) {
  auto* s = new StreamImpl;
  s->device = device;
  s->priority = priority;
  s->is_default = is_default;
  s->incoming.reserve(64);
  return s;
}

uint64_t enqueue(StreamImpl* s, Task&& task) {
  std::unique_lock<std::mutex> lock(s->mu);
  const uint64_t seq = ++s->last_seq;
  task.seq = seq;
  s->incoming.push_back(std::move(task));
  if (!s->worker_started) {
    s->worker_started = true;
    s->submitted.store(seq, std::memory_order_release);
    note_thread_started();
    std::thread(worker_main, s).detach();  // leaky: lives as long as the process
    return seq;
  }
  const bool wake = s->worker_sleeping;
  t_reaper.collect(s);
  lock.unlock();
  // Published after the unlock: the spinning worker takes the lock as soon
  // as it sees the new seq, and would otherwise find it still held (a futex
  // sleep, and a wake-up syscall for this thread). Monotonic across
  // enqueuing threads.
  for (uint64_t cur = s->submitted.load(std::memory_order_relaxed);
       cur < seq && !s->submitted.compare_exchange_weak(cur, seq, std::memory_order_release,
                                                        std::memory_order_relaxed);) {
  }
  if (wake) s->work_cv.notify_one();
  t_reaper.destroy();
  // (completed may already be past seq when other threads enqueue too.)
  // A full queue makes the host wait until it is half drained, not for one
  // free slot: waiting per slot put host and worker in lockstep, a futex
  // wake-up per launch (3x the launch cost for a host that keeps it full).
  if (seq > s->completed.load(std::memory_order_relaxed) + kMaxQueuedTasks && s != t_exec.stream) {
    wait_for(s, seq - kMaxQueuedTasks / 2);
  }
  return seq;
}

void wait_for(StreamImpl* s, uint64_t seq) {
  if (!reached(s, seq) && !spin_until([&] { return reached(s, seq); }, kWaiterSpinNs)) {
    std::unique_lock<std::mutex> lock(s->done_mu);
    s->waiters.fetch_add(1, std::memory_order_seq_cst);
    while (s->completed.load(std::memory_order_seq_cst) < seq) s->done_cv.wait(lock);
    s->waiters.fetch_sub(1, std::memory_order_relaxed);
  }
  // A synchronization point: release what finished work captured. (The
  // worker retires a batch after its last task completes: what it still
  // holds is collected by the next enqueue or wait.)
  {
    std::lock_guard<std::mutex> lock(s->mu);
    t_reaper.collect(s);
  }
  t_reaper.destroy();
}

Status take_error(StreamImpl* s) {
  if (!s->has_error.load(std::memory_order_acquire)) return Status::kSuccess;
  std::string msg;
  int extra = 0;
  {
    std::lock_guard<std::mutex> lock(s->error_mu);
    if (!s->has_error.load(std::memory_order_relaxed)) return Status::kSuccess;
    msg = std::move(s->error);
    s->error.clear();
    extra = s->extra_errors;
    s->extra_errors = 0;
    s->has_error.store(false, std::memory_order_release);
  }
  if (extra) msg += " (and " + std::to_string(extra) + " later kernel failure(s) on the same stream)";
  return fail(Status::kKernelFailure, std::move(msg));
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

void wait_device_idle(int device) {
  Device* dev = get_device(device);
  if (!dev) return;
  std::vector<StreamImpl*> streams;
  {
    std::lock_guard<std::mutex> lock(dev->streams_mu);
    streams = dev->streams;
  }
  for (StreamImpl* s : streams) {
    if (s == t_exec.stream) continue;  // a task cannot wait for itself
    wait_for(s, s->submitted.load(std::memory_order_acquire));
  }
}

void wait_all_devices_idle() {
  const int n = num_devices();
  for (int d = 0; d < n; ++d) wait_device_idle(d);
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
  wait_for(impl, impl->submitted.load(std::memory_order_acquire));
  return take_error(impl);
}

}  // namespace torch_tpu::runtime
