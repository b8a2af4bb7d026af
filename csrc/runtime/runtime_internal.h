// Private to csrc/runtime: configuration, error reporting, devices, fork
// state and the per-thread execution context shared by the runtime's files.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernel_errors.h"
#include "runtime/runtime.h"

namespace torch_tpu::runtime::detail {

struct Arena;
struct CorePool;

// ------------------------------------------------------------------ errors --
// Records `msg` as the calling thread's last error and returns `s`.
Status fail(Status s, std::string msg);
// Records a kernel's failure (last_kernel_error, and its one-line message)
// and returns kKernelFailure.
Status fail_kernel(KernelError error);

// A pointer as error messages print it ("0x7f..."), like %p.
std::string hex(const void* p);

// ------------------------------------------------------------------ config --
// Read once from the environment on first use of the runtime.
struct Config {
  int device_count = 2;             // TORCH_TPU_DEVICE_COUNT
  size_t device_memory = size_t{16} << 30;  // TORCH_TPU_DEVICE_MEMORY
  int cores = 1;                    // TORCH_TPU_CORES
  bool strict = false;              // TORCH_TPU_STRICT
  int64_t slow_device_us = 0;       // TORCH_TPU_SLOW_DEVICE_US
  bool launch_blocking = false;     // TORCH_TPU_LAUNCH_BLOCKING
};
const Config& config();
// "16GiB", "512MiB", "64KiB", "16G" (binary), "1GB" (decimal), "4096".
bool parse_memory_size(std::string_view text, size_t* out);

// ----------------------------------------------------------------- devices --
// When the device had one or more tasks running, for utilization()
// (utilization.cpp): busy nanoseconds per 1/6-second period, the shortest
// sample period NVML reports over. Updated by stream workers as a task
// begins and ends, under `mu` (uncontended unless streams overlap); the
// clock is read only when the device turns busy or idle.
struct BusyClock {
  static constexpr int kSlots = 8;
  std::mutex mu;
  int running = 0;
  int64_t since_ns = 0;             // when `running` last went 0 -> 1
  int64_t period[kSlots] = {};      // which period each slot holds
  int64_t busy_ns[kSlots] = {};
};
void busy_begin(BusyClock& clock);
void busy_end(BusyClock& clock);
// The arithmetic of both, on a clock in nanoseconds that tests choose (under
// clock.mu): [begin, end) was busy; the percentage busy at `now`.
void add_busy(BusyClock& clock, int64_t begin, int64_t end);
int utilization_at(const BusyClock& clock, int64_t now);

struct Device {
  int index = 0;
  size_t budget = 0;
  int cores = 1;
  Arena* arena = nullptr;
  CorePool* pool = nullptr;
  StreamImpl* default_stream = nullptr;
  BusyClock busy;
  // Every stream ever created on this device (streams are recycled, never
  // freed, so events that captured one stay valid).
  std::mutex streams_mu;
  std::vector<StreamImpl*> streams;
  std::vector<StreamImpl*> free_streams;
};

// Per-device core pool for parallel_for (core_pool.cpp).
CorePool* new_core_pool(int device, int cores);
// Slow-device delay read by stream workers (test_modes.cpp).
extern std::atomic<int64_t> g_slow_device_us;
// Launch blocking (kernel_errors.h), set from the config when the runtime starts.
extern std::atomic<bool> g_launch_blocking;

// Initializes the runtime on first call (leaky singleton).
int num_devices();
// nullptr if out of range.
Device* get_device(int index);
// The host page size (the granularity of device allocations).
size_t page_size();

// ------------------------------------------------------------------- fork --
extern std::atomic<bool> g_bad_fork;
inline bool bad_fork() { return g_bad_fork.load(std::memory_order_relaxed); }
Status forked_error();
// Called before the runtime creates any thread (marks forks as unsafe).
void note_thread_started();
void install_fork_handler();

// ---------------------------------------------------------- fault handler --
void install_fault_handler();
// Lock-free registry of runtime threads so the fault handler can tell a
// kernel's access from a host access without touching locks or TLS.
int register_runtime_thread(int device);  // returns a slot id
void set_thread_task(int slot, const char* task_name);

// ------------------------------------------------------ execution context --
// What the calling thread is executing: set on stream workers while a task
// runs and on core helpers while a chunk runs.
struct ExecContext {
  StreamImpl* stream = nullptr;  // executing stream (workers), else nullptr
  int device = -1;               // executing device, -1 on host threads
  int priority = 0;              // executing stream's priority
  bool in_chunk = false;         // inside a parallel_for chunk
  int slot = -1;                 // runtime thread registry slot
  const char* task_name = nullptr;
  const void* task_allocs = nullptr;  // the running task's AllocList
  const void* task_local = nullptr;   // the running task's unresolved BufferList
};
inline thread_local ExecContext t_exec;

// --------------------------------------------------------------- waiting --
// Spin briefly, then let the caller block: returns false once `budget_ns`
// of polling passed without `ready()` turning true.
template <class Ready>
bool spin_until(Ready&& ready, int64_t budget_ns);
void cpu_relax();

}  // namespace torch_tpu::runtime::detail

#include <chrono>
#include <thread>

namespace torch_tpu::runtime::detail {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

template <class Ready>
bool spin_until(Ready&& ready, int64_t budget_ns) {
  if (ready()) return true;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    // A few pauses, then yield so a spinning thread never starves the thread
    // it waits for on a machine with fewer cores than runnable threads.
    if (i % 64 == 0) {
      std::this_thread::yield();
    } else {
      cpu_relax();
    }
    if (ready()) return true;
    if (i % 16 == 0) {
      auto waited = std::chrono::steady_clock::now() - start;
      if (std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count() > budget_ns) {
        return ready();
      }
    }
  }
}

}  // namespace torch_tpu::runtime::detail
