// Private to csrc/runtime: stream internals (task queue, worker, completion
// sequence numbers, sticky errors).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "memory_internal.h"
#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {

// One unit of stream work. `allocs` are the device allocations it names
// (pending references already taken); `name` appears in kernel errors.
struct Task {
  uint64_t seq = 0;
  TaskBody fn;
  std::string name;
  AllocList allocs;
};

}  // namespace detail

struct StreamImpl {
  static constexpr uint32_t kMagic = 0x54505553u;

  uint32_t magic = kMagic;
  int device = 0;
  int priority = 0;
  bool is_default = false;
  std::atomic<bool> in_use{true};

  // Producer side: host threads append under `mu`; the worker swaps the
  // whole vector out, so steady-state enqueues do not allocate.
  std::mutex mu;
  std::condition_variable work_cv;
  bool worker_sleeping = false;
  bool worker_started = false;
  std::vector<detail::Task> incoming;
  // Tasks the worker ran, handed back to be destroyed on a host thread (the
  // next enqueue or wait): their captures were allocated there, and a free
  // from the worker of memory from the host's malloc arena contends for
  // that arena's lock (a futex wake-up per launch; small ops ran ~2x slower).
  std::vector<detail::Task> retired;     // guarded by mu
  uint64_t last_seq = 0;                 // guarded by mu
  std::atomic<uint64_t> submitted{0};    // = last_seq, readable lock free

  // Completion side, on its own cache line: the worker publishes the seq of
  // each finished task; synchronizers spin on it, then sleep on done_cv.
  alignas(64) std::atomic<uint64_t> completed{0};
  std::atomic<int> waiters{0};
  std::mutex done_mu;
  std::condition_variable done_cv;

  // Sticky error: first failure wins until a sync point reports it.
  std::atomic<bool> has_error{false};
  std::mutex error_mu;
  std::string error;
  int extra_errors = 0;
};

namespace detail {

// Resolves a user stream argument: nullptr means the calling thread's
// current device's default stream. Fails for destroyed/garbage handles.
Status check_stream(Stream s, StreamImpl** out);
// Appends a task; returns its sequence number. Starts the worker lazily.
uint64_t enqueue(StreamImpl* s, Task&& task);
// Blocks until the stream completed `seq` (spins briefly first).
void wait_for(StreamImpl* s, uint64_t seq);
inline bool reached(const StreamImpl* s, uint64_t seq) {
  return s->completed.load(std::memory_order_acquire) >= seq;
}
// kKernelFailure (and clears the error) if the stream has a sticky error.
Status take_error(StreamImpl* s);
// Creates the default stream object of a device (no thread yet).
StreamImpl* new_stream(int device, int priority, bool is_default);

}  // namespace detail
}  // namespace torch_tpu::runtime
