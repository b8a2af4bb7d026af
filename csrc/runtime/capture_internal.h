// Private to csrc/runtime: stream capture (graph.cpp). A capturing stream
// points at its CaptureImpl; enqueue paths check that pointer first and
// record a node instead of filling a task slot.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime_internal.h"
#include "stream_internal.h"

namespace torch_tpu::runtime::detail {

// One recorded task: what launch() would have enqueued.
struct Node {
  std::string name;
  TaskBody fn;
  BufferList buffers;  // device (or pinned host) pointers it names
};

struct CaptureImpl {
  uint64_t id = 0;
  int device = 0;
  CaptureMode mode = CaptureMode::kGlobal;
  std::thread::id thread;     // the thread that began it
  StreamImpl* origin = nullptr;
  std::mutex mu;              // guards everything below
  std::vector<Node> nodes;
  std::vector<StreamImpl*> streams;  // origin first, then the joined ones
  std::string invalid;        // why the capture was invalidated ("" if valid)
};

inline CaptureImpl* capturing(const StreamImpl* s) { return s->capture.load(std::memory_order_acquire); }

// Records a node into `c` (kCaptureInvalidated once the capture failed).
Status capture_node(CaptureImpl* c, const char* name, const BufferList& buffers, TaskBody&& fn);
// Invalidates `c` and fails with kCaptureUnsupported, naming `what`.
Status capture_refuse(CaptureImpl* c, const std::string& what);
// For calls that wait for a whole device or use its default stream
// (device_synchronize, memcpy): refused while a capture on `device` forbids
// them (kGlobal: any thread; kThreadLocal: its own thread). kSuccess if not.
Status check_capture_unsafe(int device, const char* api);
// capture_refuse for the capture with this id if it is still underway
// (kSuccess once it ended).
Status refuse_capture(uint64_t id, const std::string& what);
// stream_wait_event for an event recorded in capture `id`: `s` joins it.
Status capture_join(StreamImpl* s, uint64_t id);

}  // namespace torch_tpu::runtime::detail
