// Private to csrc/runtime: stream internals (task queue, worker, completion
// sequence numbers, sticky errors).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "memory_internal.h"
#include "runtime/trace.h"
#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {

struct CaptureImpl;

// What the host noted about a task while tracing was on (trace.h); `on`
// stays false otherwise, so the worker records only stamped tasks.
struct TraceStamp {
  bool on = false;
  TraceKind kind = TraceKind::kKernel;
  uint64_t bytes = 0;
  uint64_t correlation = 0;
  uint64_t host_thread = 0;
  int64_t launch_begin_ns = 0, launch_end_ns = 0;
};

// One unit of stream work. `allocs` are the device allocations it names
// that need a record (pending references already taken); `local` the named
// buffers of the stream's own device left unresolved (see launch.cpp);
// `name` appears in kernel errors. Cache-line aligned: the host fills one
// slot while the worker reads the one before it, and a line shared by the
// two moved between the cores on every launch.
struct alignas(64) Task {
  uint64_t seq = 0;
  TaskBody fn;
  std::string name;
  AllocList allocs;
  BufferList local;
  TraceStamp trace;
  LaunchOriginPtr origin;  // kernel_errors.h
  // Back to empty, keeping the name's and the lists' buffers.
  void reset() {
    fn.reset();
    origin.reset();
    name.clear();
    allocs.clear();
    local.clear();
    trace.on = false;
  }
};

// A run of consecutive task slots. A stream's blocks form a list from the
// oldest one not yet swept to the one producers fill; finished blocks are
// recycled, so a busy stream cycles through a few of them and steady-state
// launches never allocate. Slots are filled in place and never move: the
// worker runs a task where it lies while producers fill later slots.
struct TaskBlock {
  static constexpr uint64_t kSlots = 64;
  Task slots[kSlots];
  uint64_t first_seq = 1;  // seq of slots[0]
  std::atomic<TaskBlock*> next{nullptr};
};

}  // namespace detail

// Fields are grouped by the thread that writes them, one cache line each,
// so a launch does not pull lines the worker is writing (and the reverse).
struct StreamImpl {
  static constexpr uint32_t kMagic = 0x54505553u;

  // Identity: written at creation (and when a destroyed stream is reused).
  uint32_t magic = kMagic;
  int device = 0;
  int priority = 0;
  bool is_default = false;
  std::atomic<bool> in_use{true};
  int index = 0;  // position in its device's stream list (0: the default stream); the profiler's lane
  // Non-null while the stream records into a capture (capture_internal.h);
  // read by every enqueue, written when a capture begins, ends or is joined.
  std::atomic<detail::CaptureImpl*> capture{nullptr};

  // Producers: host threads fill slots in seq order under `mu` (it orders
  // producers only; the worker never takes it).
  alignas(64) std::mutex mu;
  uint64_t last_seq = 0;                     // guarded by mu
  detail::TaskBlock* fill_block = nullptr;   // holds last_seq's slot; guarded by mu
  std::vector<detail::TaskBlock*> spare_blocks;  // guarded by mu
  bool worker_started = false;               // guarded by mu

  // Published tail: every task up to `submitted` is filled in. The worker
  // runs up to it, then spins for more and finally sleeps on work_cv with
  // worker_sleeping set (a producer that sees it wakes it).
  alignas(64) std::atomic<uint64_t> submitted{0};
  std::atomic<bool> worker_sleeping{false};
  std::mutex sleep_mu;
  std::condition_variable work_cv;

  // Rung by a host that waits for this stream, so an idle worker, which
  // reads `submitted` only every few microseconds, looks at once.
  alignas(64) std::atomic<uint32_t> doorbell{0};

  // Sweeping: finished tasks are destroyed on host threads (the next
  // enqueue or wait), since their captures were allocated there and a free
  // from the worker of memory from the host's malloc arena contends for
  // that arena's lock. One sweeper at a time; a sweep that finds another
  // running (or itself, from a capture's destructor) skips.
  alignas(64) std::atomic<bool> sweeping{false};
  detail::TaskBlock* sweep_block = nullptr;  // oldest unrecycled block; owned by the sweeper
  std::atomic<uint64_t> swept{0};            // tasks <= swept are reset; written by the sweeper

  // Completion: the worker publishes the seq of each finished task;
  // synchronizers spin on it, then sleep on done_cv.
  alignas(64) std::atomic<uint64_t> completed{0};
  std::atomic<int> waiters{0};
  std::mutex done_mu;
  std::condition_variable done_cv;

  // Sticky error: first failure wins until a sync point reports it.
  std::atomic<bool> has_error{false};
  std::mutex error_mu;
  KernelError error;       // later_failures counts the ones after it
  uint64_t error_seq = 0;  // the failing task

  // Trace records of finished stamped tasks (trace.h); appended by the
  // worker, taken by the profiler.
  alignas(64) std::mutex trace_mu;
  std::vector<TraceRecord> trace_records;
};

namespace detail {

// Resolves a user stream argument: nullptr means the calling thread's
// current device's default stream. Fails for destroyed/garbage handles.
Status check_stream(Stream s, StreamImpl** out);
// Appends a task in two steps, so a launch builds it in place: claim_slot
// takes the producers' lock and returns the next (empty) slot, with its seq
// set; publish releases the lock and hands the task to the worker (started
// lazily), returning its seq. Nothing between the two may throw.
Task& claim_slot(StreamImpl* s);
uint64_t publish(StreamImpl* s, Task& slot);
inline uint64_t enqueue(StreamImpl* s, Task&& task) {
  Task& slot = claim_slot(s);
  const uint64_t seq = slot.seq;
  slot = std::move(task);
  slot.seq = seq;
  return publish(s, slot);
}
// Blocks until the stream completed `seq` (spins briefly first).
void wait_for(StreamImpl* s, uint64_t seq);
inline bool reached(const StreamImpl* s, uint64_t seq) {
  return s->completed.load(std::memory_order_acquire) >= seq;
}
// kKernelFailure (and clears the error) if the stream has a sticky error;
// `launched`: the seq of the task whose launch asks (launch blocking), 0 else.
Status take_error(StreamImpl* s, uint64_t launched = 0);
// A snapshot of a device's streams (empty for an invalid index). Streams are
// never freed, only reused, so the pointers stay valid.
std::vector<StreamImpl*> streams_of(int device);
// Tracing (trace.cpp): the global switch, read with one relaxed load per
// launch; stamp() notes the host side of a task about to be published (call
// it only when tracing_on(), last before publishing), record_trace() the device side once it ran.
extern std::atomic<bool> g_tracing;
inline bool tracing_on() { return g_tracing.load(std::memory_order_relaxed); }
void stamp(Task& task, TraceKind kind, uint64_t bytes, int64_t launch_begin_ns);
void record_trace(StreamImpl* s, const Task& task, int64_t start_ns, int64_t end_ns);
// Creates the default stream object of a device (no thread yet).
StreamImpl* new_stream(int device, int priority, bool is_default);

}  // namespace detail
}  // namespace torch_tpu::runtime
