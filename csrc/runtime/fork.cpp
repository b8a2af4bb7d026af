// fork() safety: the runtime's worker threads do not exist in a forked
// child, and its mutexes may be held by them. A child forked after any
// runtime thread started refuses all stream/memory work with a clear error.
#include <pthread.h>

#include <atomic>

#include "runtime_internal.h"

namespace torch_tpu::runtime {

namespace detail {

std::atomic<bool> g_bad_fork{false};

namespace {

std::atomic<bool> g_threads_started{false};

void on_fork_child() {
  if (g_threads_started.load(std::memory_order_relaxed)) g_bad_fork.store(true, std::memory_order_relaxed);
}

}  // namespace

void note_thread_started() { g_threads_started.store(true, std::memory_order_relaxed); }

void install_fork_handler() { pthread_atfork(nullptr, nullptr, on_fork_child); }

Status forked_error() {
  return fail(Status::kForkedProcess,
              "torch_tpu: this process was forked after the tpu runtime started its worker threads, "
              "which do not survive fork(); the device cannot be used in the child. Use the 'spawn' "
              "start method (multiprocessing.set_start_method('spawn') or "
              "torch.multiprocessing.start_processes(..., start_method='spawn')).");
}

}  // namespace detail

bool in_bad_fork() { return detail::bad_fork(); }

}  // namespace torch_tpu::runtime
