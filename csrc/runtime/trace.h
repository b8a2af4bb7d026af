// Device activity tracing: what a profiler needs from the simulated device.
// While tracing is on, every stream task (kernel, copy, memset) leaves one
// record: its name, stream, when the host enqueued it and when the device ran
// it, the host's correlation id at launch time, and the bytes a copy moved.
// While it is off, a launch pays one relaxed atomic load and the worker one
// test of a flag in the task it runs.
// Torch-free, like the rest of csrc/runtime (csrc/profiler feeds Kineto).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace torch_tpu::runtime {

enum class TraceKind : uint8_t { kKernel, kMemcpyHtoD, kMemcpyDtoH, kMemcpyDtoD, kMemcpyHtoH, kMemset };

struct TraceRecord {
  std::string name;           // the launch's name ("add", "memcpy", ...)
  TraceKind kind = TraceKind::kKernel;
  int device = 0;
  int stream = 0;             // index of the stream on its device (0: default stream)
  uint64_t correlation = 0;   // the launching thread's innermost correlation id (0: none)
  uint64_t host_thread = 0;   // the launching thread's system thread id
  uint64_t bytes = 0;         // copies and memsets
  int64_t launch_begin_ns = 0, launch_end_ns = 0;  // host side of the launch (unix-epoch ns)
  int64_t start_ns = 0, end_ns = 0;                // device side
};

// Unix-epoch nanoseconds from the system clock, the clock PyTorch's profiler
// stamps CPU ops with, so device records line up with them.
int64_t trace_clock_ns();

// Starts recording (clears records left from an earlier session). Stopping
// waits for the work launched while recording, so its records are complete.
void trace_start();
void trace_stop();
bool tracing();
// Takes every record kept so far (the caller synchronizes the devices first
// if it wants the work still queued).
std::vector<TraceRecord> trace_take();
// Records kept since the process started: how a test proves that nothing is
// recorded while tracing is off.
uint64_t trace_record_count();

// The calling host thread's correlation stack: the profiler pushes an id as
// each op starts and pops it when it ends; launches take the innermost one.
void trace_push_correlation(uint64_t id);
void trace_pop_correlation();
uint64_t trace_current_correlation();

}  // namespace torch_tpu::runtime
