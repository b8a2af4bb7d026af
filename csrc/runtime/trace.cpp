// Device activity tracing (trace.h): the global switch, the host threads'
// correlation stacks, and the per-stream record buffers.
#include "runtime/trace.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <utility>

#include "runtime_internal.h"
#include "stream_internal.h"

namespace torch_tpu::runtime {

namespace detail {

std::atomic<bool> g_tracing{false};

namespace {

std::atomic<uint64_t> g_record_count{0};

// Nested ops push nested ids; a launch belongs to the innermost op.
thread_local std::vector<uint64_t> t_correlation;

uint64_t system_thread_id() {
  thread_local const uint64_t tid = static_cast<uint64_t>(::syscall(SYS_gettid));
  return tid;
}

}  // namespace

void stamp(Task& task, TraceKind kind, uint64_t bytes, int64_t launch_begin_ns) {
  task.trace.on = true;
  task.trace.kind = kind;
  task.trace.bytes = bytes;
  task.trace.correlation = t_correlation.empty() ? 0 : t_correlation.back();
  task.trace.host_thread = system_thread_id();
  task.trace.launch_begin_ns = launch_begin_ns;
  task.trace.launch_end_ns = trace_clock_ns();  // the task is filled in: only its publication is left
}

void record_trace(StreamImpl* s, const Task& task, int64_t start_ns, int64_t end_ns) {
  TraceRecord r;
  r.name = task.name;
  r.kind = task.trace.kind;
  r.device = s->device;
  r.stream = s->index;
  r.correlation = task.trace.correlation;
  r.host_thread = task.trace.host_thread;
  r.bytes = task.trace.bytes;
  r.launch_begin_ns = task.trace.launch_begin_ns;
  r.launch_end_ns = task.trace.launch_end_ns;
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  std::lock_guard<std::mutex> lock(s->trace_mu);
  s->trace_records.push_back(std::move(r));
  g_record_count.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace detail

using namespace detail;

int64_t trace_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void trace_start() {
  trace_take();  // drop what an earlier session left
  g_tracing.store(true, std::memory_order_relaxed);
}

void trace_stop() {
  g_tracing.store(false, std::memory_order_relaxed);
  // Launches that saw the switch on finish publishing (under their stream's
  // lock), then the devices run what they stamped: every record is in.
  // Waiting does not take the streams' sticky errors: the program's next
  // synchronization still reports them.
  if (in_bad_fork()) return;
  wait_for_launches_in_progress();
  wait_all_devices_idle();
}

bool tracing() { return tracing_on(); }

std::vector<TraceRecord> trace_take() {
  std::vector<TraceRecord> out;
  const int n = num_devices();
  for (int d = 0; d < n; ++d) {
    for (StreamImpl* s : streams_of(d)) {
      std::lock_guard<std::mutex> lock(s->trace_mu);
      for (TraceRecord& r : s->trace_records) out.push_back(std::move(r));
      s->trace_records.clear();
    }
  }
  return out;
}

uint64_t trace_record_count() { return g_record_count.load(std::memory_order_relaxed); }

void trace_push_correlation(uint64_t id) { t_correlation.push_back(id); }

void trace_pop_correlation() {
  if (!t_correlation.empty()) t_correlation.pop_back();
}

uint64_t trace_current_correlation() { return t_correlation.empty() ? 0 : t_correlation.back(); }

}  // namespace torch_tpu::runtime
