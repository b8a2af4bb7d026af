// Stream capture and graphs (runtime.h "graphs"). A capturing stream points
// at a CaptureImpl; launch, memcpy_async and memset_async record a Node
// there instead of filling a task slot, and everything that would wait for
// recorded work is refused (and invalidates the capture). A Graph is the
// recorded node list; a replay is one task that runs the nodes in order.
//
// Ended captures are kept (never freed), in g_ended: a launch on another
// thread may have read the stream's capture pointer just before the capture
// ended, and then finds it marked ended instead of freed memory (~200 bytes
// per capture). Kept reachable, so LeakSanitizer sees a choice, not a leak.
#include <algorithm>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "capture_internal.h"
#include "memory_internal.h"
#include "runtime_internal.h"
#include "stream_internal.h"

namespace torch_tpu::runtime {

namespace detail {

namespace {

std::mutex g_mu;                      // guards g_captures and g_next_id
std::vector<CaptureImpl*> g_captures;  // underway
std::vector<CaptureImpl*>* g_ended = new std::vector<CaptureImpl*>;  // see the file comment; never destroyed
uint64_t g_next_id = 0;

const char* mode_name(CaptureMode m) {
  switch (m) {
    case CaptureMode::kGlobal: return "global";
    case CaptureMode::kThreadLocal: return "thread_local";
    case CaptureMode::kRelaxed: return "relaxed";
  }
  return "?";
}

}  // namespace

// Lives as long as a graph or a queued replay of it.
struct GraphBody {
  std::vector<Node> nodes;

  // Runs on the replaying stream's worker, inside one task. A node's
  // failure names the node (the task itself is "graph replay").
  void run() {
    ExecContext& ctx = t_exec;
    const char* outer = ctx.task_name;
    for (Node& n : nodes) {
      ctx.task_name = n.name.c_str();  // what a fault in strict mode reports
      set_thread_task(ctx.slot, ctx.task_name);
      try {
        n.fn();
      } catch (const std::exception& e) {
        ctx.task_name = outer;
        set_thread_task(ctx.slot, outer);
        throw std::runtime_error("captured kernel '" + n.name + "': " + e.what());
      }
    }
    ctx.task_name = outer;
    set_thread_task(ctx.slot, outer);
  }
};

Status capture_node(CaptureImpl* c, const char* name, const BufferList& buffers, TaskBody&& fn) {
  std::lock_guard<std::mutex> lock(c->mu);
  if (c->streams.empty()) {
    return fail(Status::kInvalidValue, std::string("'") + (name ? name : "?") +
                                           "': the stream's capture ended while this call was recording into it");
  }
  if (!c->invalid.empty()) {
    return fail(Status::kCaptureInvalidated, "the graph capture on tpu:" + std::to_string(c->device) +
                                                 " was invalidated earlier (" + c->invalid +
                                                 "); end the capture and capture again");
  }
  c->nodes.push_back(Node{name ? name : "<unnamed kernel>", std::move(fn), buffers});
  return Status::kSuccess;
}

Status capture_refuse(CaptureImpl* c, const std::string& what) {
  std::string msg = what + " is not permitted while a stream of tpu:" + std::to_string(c->device) +
                    " is capturing a graph (capture_error_mode=" + mode_name(c->mode) +
                    "): captured work has not run, so nothing can wait for it or read its results "
                    "before the graph is replayed. The capture is invalidated; end it and capture again "
                    "without this call";
  std::lock_guard<std::mutex> lock(c->mu);
  if (c->invalid.empty()) c->invalid = what;
  return fail(Status::kCaptureUnsupported, std::move(msg));
}

Status check_capture_unsafe(int device, const char* api) {
  CaptureImpl* hit = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (CaptureImpl* c : g_captures) {
      if (c->device != device || c->mode == CaptureMode::kRelaxed) continue;
      if (c->mode == CaptureMode::kThreadLocal && c->thread != std::this_thread::get_id()) continue;
      hit = c;
      break;
    }
  }
  if (!hit) return Status::kSuccess;
  return capture_refuse(hit, api);
}

Status refuse_capture(uint64_t id, const std::string& what) {
  CaptureImpl* hit = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (CaptureImpl* c : g_captures) {
      if (c->id == id) hit = c;
    }
  }
  return hit ? capture_refuse(hit, what) : Status::kSuccess;  // captures are never freed
}

Status capture_join(StreamImpl* s, uint64_t id) {
  std::lock_guard<std::mutex> lock(g_mu);
  auto it = std::find_if(g_captures.begin(), g_captures.end(), [&](CaptureImpl* c) { return c->id == id; });
  if (it == g_captures.end()) return Status::kSuccess;  // ended: its work is in a graph, nothing to wait for
  CaptureImpl* c = *it;
  CaptureImpl* mine = capturing(s);
  if (mine == c) return Status::kSuccess;  // recorded in order already
  if (mine) return capture_refuse(mine, "stream_wait_event for an event recorded in another capture");
  if (s->is_default) {
    // Every thread's work on it would be captured (CUDA refuses the legacy stream too).
    return capture_refuse(c, "making the default stream wait for an event recorded in the capture");
  }
  if (s->device != c->device) {
    return capture_refuse(c, "stream_wait_event from a stream of tpu:" + std::to_string(s->device) +
                                 " for an event recorded in the capture (a graph runs on one device)");
  }
  std::lock_guard<std::mutex> clock(c->mu);
  c->streams.push_back(s);
  s->capture.store(c, std::memory_order_release);
  return Status::kSuccess;
}

}  // namespace detail

using namespace detail;

struct GraphImpl {
  static constexpr uint32_t kMagic = 0x47525048u;
  uint32_t magic = kMagic;
  int device = 0;
  std::shared_ptr<GraphBody> body;
  std::mutex mu;  // guards instantiation (replays may come from several threads)
  bool instantiated = false;
  BufferList bases;               // the device allocations the nodes name, once each
  std::vector<uint64_t> serials;  // ... and which allocations they were
};

namespace {

Status check_graph(Graph g, const char* api) {
  if (!g || g->magic != GraphImpl::kMagic) return fail(Status::kInvalidValue, std::string(api) + ": invalid graph handle");
  if (bad_fork()) return forked_error();
  return Status::kSuccess;
}

// The allocation holding p, or a clear error if it was freed since the capture.
Status live_base(const Node& n, const void* p, const void** base, uint64_t* serial) {
  *base = nullptr;
  const int device = arena_of(p);
  if (device < 0) return Status::kSuccess;  // pinned host memory: nothing to open
  const Allocation* a = find_allocation(device, p, /*take_pending=*/false);
  if (!a) {
    return fail(Status::kInvalidDevicePointer,
                "graph: captured kernel '" + n.name + "' uses " + hex(p) + " on tpu:" + std::to_string(device) +
                    ", which was freed after the capture; keep every tensor a graph uses alive while the "
                    "graph exists");
  }
  *base = a->base;
  *serial = a->serial;
  return Status::kSuccess;
}

Status freed_error(const GraphImpl* g, const void* base) {
  for (const Node& n : g->body->nodes) {
    for (const void* p : n.buffers) {
      const int device = arena_of(p);
      const Allocation* a = device >= 0 ? find_allocation(device, p, /*take_pending=*/false) : nullptr;
      if (device >= 0 && (!a || a->base == base)) {
        return fail(Status::kInvalidDevicePointer,
                    "graph: captured kernel '" + n.name + "' uses " + hex(p) + " on tpu:" + std::to_string(device) +
                        ", which was freed after the capture (the memory there now belongs to another "
                        "allocation, or to none); keep every tensor a graph uses alive while the graph exists");
      }
    }
  }
  return fail(Status::kInvalidDevicePointer, "graph: memory at " + hex(base) + " was freed after the capture");
}

// Instantiates (first call) or checks that every allocation the graph
// names is still the one it captured. Caller holds g->mu.
Status check_memory(GraphImpl* g) {
  if (!g->instantiated) {
    BufferList bases;
    std::vector<uint64_t> serials;
    for (const Node& n : g->body->nodes) {
      for (const void* p : n.buffers) {
        const void* base = nullptr;
        uint64_t serial = 0;
        if (Status st = live_base(n, p, &base, &serial); st != Status::kSuccess) return st;
        if (base && std::find(bases.begin(), bases.end(), base) == bases.end()) {
          bases.push_back(base);
          serials.push_back(serial);
        }
      }
    }
    g->bases = std::move(bases);
    g->serials = std::move(serials);
    g->instantiated = true;
    return Status::kSuccess;
  }
  for (size_t i = 0; i < g->bases.size(); ++i) {
    const void* base = g->bases[i];
    const Allocation* a = find_allocation(arena_of(base), base, /*take_pending=*/false);
    if (!a || a->serial != g->serials[i]) return freed_error(g, base);
  }
  return Status::kSuccess;
}

}  // namespace

Status stream_begin_capture(Stream s, CaptureMode mode) {
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (bad_fork()) return forked_error();
  if (mode != CaptureMode::kGlobal && mode != CaptureMode::kThreadLocal && mode != CaptureMode::kRelaxed) {
    return fail(Status::kInvalidValue, "stream_begin_capture: invalid CaptureMode");
  }
  if (impl->is_default) {
    return fail(Status::kInvalidValue, "stream_begin_capture: the default stream of tpu:" + std::to_string(impl->device) +
                                           " cannot capture; capture on a side stream (torch.tpu.Stream())");
  }
  if (impl == t_exec.stream) return fail(Status::kInvalidValue, "stream_begin_capture: called from a task on that stream");
  auto c = std::make_unique<CaptureImpl>();  // kept once published: see the file comment
  c->device = impl->device;
  c->mode = mode;
  c->thread = std::this_thread::get_id();
  c->origin = impl;
  c->streams.push_back(impl);
  {
    std::lock_guard<std::mutex> lock(g_mu);
    c->id = ++g_next_id;
    // Under g_mu, so two threads cannot both begin a capture on one stream
    // (joins take g_mu too).
    CaptureImpl* none = nullptr;
    if (!impl->capture.compare_exchange_strong(none, c.get(), std::memory_order_acq_rel)) {
      // never published: no other thread can hold it
      return fail(Status::kInvalidValue, "stream_begin_capture: the stream is already capturing");
    }
    g_captures.push_back(c.release());
  }
  return Status::kSuccess;
}

Status stream_end_capture(Stream s, Graph* out) {
  if (!out) return fail(Status::kInvalidValue, "stream_end_capture: out is null");
  *out = nullptr;
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  CaptureImpl* c = capturing(impl);
  if (!c) return fail(Status::kInvalidValue, "stream_end_capture: the stream is not capturing");
  if (c->origin != impl) {
    return fail(Status::kInvalidValue, "stream_end_capture: the capture began on another stream; end it there");
  }
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_captures.erase(std::find(g_captures.begin(), g_captures.end(), c));
    g_ended->push_back(c);
  }
  std::vector<Node> nodes;
  std::string invalid;
  {
    std::lock_guard<std::mutex> lock(c->mu);
    for (StreamImpl* joined : c->streams) joined->capture.store(nullptr, std::memory_order_release);
    c->streams.clear();  // marks it ended (capture_node)
    nodes = std::move(c->nodes);
    c->nodes.clear();
    invalid = c->invalid;
  }
  if (!invalid.empty()) {
    return fail(Status::kCaptureInvalidated,
                "stream_end_capture: the capture was invalidated by an earlier call (" + invalid + ")");
  }
  auto* g = new GraphImpl;
  g->device = c->device;
  g->body = std::make_shared<GraphBody>();
  g->body->nodes = std::move(nodes);
  *out = g;
  return Status::kSuccess;
}

uint64_t stream_capture_id(Stream s) {
  StreamImpl* impl = nullptr;
  if (check_stream(s, &impl) != Status::kSuccess) return 0;
  CaptureImpl* c = capturing(impl);
  return c ? c->id : 0;
}

Status graph_instantiate(Graph g) {
  if (Status st = check_graph(g, "graph_instantiate"); st != Status::kSuccess) return st;
  std::lock_guard<std::mutex> lock(g->mu);
  return check_memory(g);
}

Status graph_launch(Graph g, Stream s) {
  if (Status st = check_graph(g, "graph_launch"); st != Status::kSuccess) return st;
  StreamImpl* impl = nullptr;
  if (Status st = check_stream(s, &impl); st != Status::kSuccess) return st;
  if (impl->device != g->device) {
    return fail(Status::kInvalidValue, "graph_launch: the graph was captured on tpu:" + std::to_string(g->device) +
                                           " and cannot run on a stream of tpu:" + std::to_string(impl->device));
  }
  std::lock_guard<std::mutex> lock(g->mu);
  // Every replay checks that its memory is still the memory it captured: a
  // freed buffer would fault on the device, or write into another tensor.
  if (Status st = check_memory(g); st != Status::kSuccess) return st;
  // One task, opening the union of the nodes' buffers (in strict mode).
  return launch(impl, "graph replay", g->bases, [body = g->body] { body->run(); });
}

Status graph_destroy(Graph g) {
  if (Status st = check_graph(g, "graph_destroy"); st != Status::kSuccess) return st;
  g->magic = 0;
  delete g;  // queued replays share the body
  return Status::kSuccess;
}

size_t graph_node_count(Graph g) {
  if (!g || g->magic != GraphImpl::kMagic) return 0;
  return g->body->nodes.size();
}

Status graph_debug_dump(Graph g, const std::string& path) {
  if (Status st = check_graph(g, "graph_debug_dump"); st != Status::kSuccess) return st;
  std::ofstream f(path);
  if (!f) return fail(Status::kInvalidValue, "graph_debug_dump: cannot write " + path);
  f << "digraph tpu_graph {\n  label=\"tpu:" << g->device << ", " << g->body->nodes.size()
    << " nodes, replayed in this order\";\n  node [shape=box];\n";
  const auto& nodes = g->body->nodes;
  for (size_t i = 0; i < nodes.size(); ++i) {
    f << "  n" << i << " [label=\"" << i << ": " << nodes[i].name;
    for (const void* p : nodes[i].buffers) f << "\\n" << hex(p);
    f << "\"];\n";
    if (i > 0) f << "  n" << i - 1 << " -> n" << i << ";\n";
  }
  f << "}\n";
  if (!f) return fail(Status::kInvalidValue, "graph_debug_dump: writing " + path + " failed");
  return Status::kSuccess;
}

}  // namespace torch_tpu::runtime
