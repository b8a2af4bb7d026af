// launch: enqueue a kernel body on a stream. The buffers it names are
// resolved to their allocations now where a record is needed (pending
// references keep them from being unmapped under the queued task) and
// opened for it in strict mode.
#include <atomic>
#include <string>
#include <utility>
#include <vector>

#include "capture_internal.h"
#include "memory_internal.h"
#include "runtime_internal.h"
#include "stream_internal.h"

namespace torch_tpu::runtime {

using namespace detail;

namespace {
std::atomic<uint64_t> g_launches{0};
}  // namespace

uint64_t launch_count() { return g_launches.load(std::memory_order_relaxed); }

Status launch(Stream s, const char* name, const BufferList& buffers, TaskBody&& body) {
  return launch(s, name, buffers, std::move(body), nullptr);
}

Status launch(Stream s, const char* name, const BufferList& buffers, TaskBody&& body, LaunchOriginPtr origin) {
  const int64_t trace_begin = tracing_on() ? trace_clock_ns() : 0;
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (bad_fork()) return forked_error();
  if (!body) {
    return fail(Status::kInvalidValue, std::string("launch: kernel '") + (name ? name : "?") + "' has an empty body");
  }
  if (CaptureImpl* c = capturing(impl)) return capture_node(c, name, buffers, std::move(body));
  Task& task = claim_slot(impl);  // filled in place; publish() below
  task.name = name ? name : "<unnamed kernel>";
  task.fn = std::move(body);
  task.origin = std::move(origin);
  // Without strict mode, the buffers of the stream's own device need no
  // record: free() waits for that device to go idle before it unmaps, and
  // nothing changes their protection. So a launch takes no reference and the
  // worker touches no allocation record: no cache line bounces between them
  // per buffer (~0.1 us of a 1K-element add). Strict mode (protection per
  // task) and other devices' buffers (peer access: free() does not wait for
  // this stream) keep a pending reference on the record. Read under the
  // stream's lock (claim_slot): set_strict_mode relies on it.
  const bool record_all = record_all_buffers();
  for (const void* p : buffers) {
    // Host memory (pinned or not), null and one-past-the-end pointers of
    // empty views are not device allocations: nothing to open for them.
    const int device = p ? arena_of(p) : -1;
    if (device < 0) continue;
    if (!record_all && device == impl->device) {
      task.local.push_back(p);  // kept for free()'s own-buffer check
      continue;
    }
    if (Allocation* a = find_allocation(device, p, /*take_pending=*/true)) task.allocs.push_back(a);
  }
  if (trace_begin != 0) stamp(task, TraceKind::kKernel, 0, trace_begin);
  const uint64_t seq = publish(impl, task);
  g_launches.fetch_add(1, std::memory_order_relaxed);
  // Launch blocking: wait for the task and report a failure now (an earlier
  // task's too). A task launching onto its own stream cannot wait for itself.
  if (g_launch_blocking.load(std::memory_order_relaxed) && impl != t_exec.stream) {
    wait_for(impl, seq);
    return take_error(impl, seq);
  }
  return Status::kSuccess;
}

}  // namespace torch_tpu::runtime
