// TpuGraph: the at::GraphImplInterface behind torch.accelerator.Graph on tpu
// (REGISTER_GRAPH_IMPL below), and so behind torch.tpu.TPUGraph.
//
// capture_begin: the current stream (a side stream) starts a runtime capture,
//   and the caching allocator routes that capture's allocations to the
//   graph's private pool (a new one, or the `pool` given).
// capture_end: the runtime graph is kept; the pool stays with the graph
//   until reset(), so every address the recording names stays reserved.
// replay: on the current stream, one small task that stores the seed and
//   offset of each generator the graph drew from (advancing the generator by
//   what the graph consumes, like CUDA graphs), then the graph as one task.
#include "aten/device/graph.h"

#include <ATen/core/GraphImplInterface.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "aten/device/caching_allocator.h"
#include "aten/device/host_allocator.h"
#include "aten/device/runtime_check.h"
#include "aten/device/tpu_stream.h"

namespace torch_tpu::aten {
namespace {

class TpuGraph;

std::atomic<int> g_capturing{0};                       // captures underway (fast path)
std::mutex g_mu;                                       // guards g_active
std::vector<std::pair<uint64_t, TpuGraph*>> g_active;  // runtime capture id -> graph
std::atomic<uint64_t> g_next_pool{0};

runtime::CaptureMode runtime_mode(at::GraphCaptureMode mode) {
  switch (mode) {
    case at::GraphCaptureMode::ThreadLocal: return runtime::CaptureMode::kThreadLocal;
    case at::GraphCaptureMode::Relaxed: return runtime::CaptureMode::kRelaxed;
    case at::GraphCaptureMode::Default:
    case at::GraphCaptureMode::Global: break;
  }
  return runtime::CaptureMode::kGlobal;  // CUDA's default too
}

class TpuGraph final : public at::GraphImplInterface {
 public:
  explicit TpuGraph(const at::GraphImplArgs& args) : keep_graph_(args.keep_graph) {}

  ~TpuGraph() override {
    try {
      reset();
    } catch (const std::exception& e) {  // a destructor must not throw
      TORCH_WARN("a replay of a tpu graph failed (reported when the graph was destroyed): ", e.what());
    }
  }

  void capture_begin(at::MempoolId_t pool, at::GraphCaptureMode mode) override {
    TORCH_CHECK(graph_ == nullptr && capture_id_ == 0,
                "This tpu graph already holds a capture. Call reset() before capturing again, or use a new graph.");
    device_ = current_device();
    const c10::Stream stream = current_stream(device_);
    TORCH_CHECK(stream != default_stream(device_),
                "tpu graphs must be captured on a non-default stream: use `with torch.tpu.graph(g):`, or make a "
                "side stream current first (`with torch.tpu.stream(torch.tpu.Stream()), g:`)");
    mempool_ = (pool.first != 0 || pool.second != 0) ? pool : at::MempoolId_t{++g_next_pool, 0};
    const runtime::Stream native = native_stream(stream);
    TPU_CHECK(runtime::stream_begin_capture(native, runtime_mode(mode)));
    capture_stream_ = native;
    capture_id_ = runtime::stream_capture_id(native);
    begin_allocate_to_pool(device_, mempool_, capture_id_);
    // Pinned host memory allocated during the capture (copies the graph
    // replays read or write) stays the graph's too.
    host_allocator()->begin_allocate_to_pool(mempool_, [id = capture_id_](c10::Stream s) {
      return s.device_type() == c10::DeviceType::PrivateUse1 && runtime::stream_capture_id(native_stream(s)) == id;
    });
    std::lock_guard<std::mutex> lock(g_mu);
    g_active.emplace_back(capture_id_, this);
    g_capturing.fetch_add(1, std::memory_order_relaxed);
  }

  void capture_end() override {
    TORCH_CHECK(capture_id_ != 0, "capture_end: this tpu graph is not capturing (call capture_begin first)");
    runtime::Graph g = nullptr;
    const runtime::Status st = runtime::stream_end_capture(capture_stream_, &g);
    const std::string why = st == runtime::Status::kSuccess ? "" : runtime::last_error_message();
    stop_capturing();
    if (st != runtime::Status::kSuccess) {
      release_pools();
      rngs_.clear();
      TORCH_CHECK(false, "tpu graph capture failed: ", why);
    }
    graph_ = g;
    if (!keep_graph_) instantiate();
  }

  void instantiate() override {
    TORCH_CHECK(graph_ != nullptr, "instantiate: this tpu graph holds no capture");
    TPU_CHECK(runtime::graph_instantiate(graph_));
    instantiated_ = true;
  }

  void replay() override {
    TORCH_CHECK(graph_ != nullptr, "replay: this tpu graph holds no capture (capture it first)");
    if (!instantiated_) instantiate();
    const runtime::Stream stream = native_stream(current_stream(device_));
    if (!rngs_.empty()) store_replay_rng(stream);
    TPU_CHECK(runtime::graph_launch(graph_, stream));
    // One event per stream replayed on: reset() waits for every queued replay.
    auto it = std::find_if(replays_.begin(), replays_.end(), [&](const auto& r) { return r.first == stream; });
    if (it == replays_.end()) {
      runtime::Event ev = nullptr;
      TPU_CHECK(runtime::event_create(&ev, runtime::kEventDisableTiming));
      it = replays_.emplace(replays_.end(), stream, ev);
    }
    TPU_CHECK(runtime::event_record(it->second, stream));
  }

  void reset() override {
    if (capture_id_ != 0) {  // abandoned mid-capture: end it, keep nothing
      runtime::Graph g = nullptr;
      if (runtime::stream_end_capture(capture_stream_, &g) == runtime::Status::kSuccess) runtime::graph_destroy(g);
      stop_capturing();
      release_pools();
    }
    // Queued replays read the generator slots and the pool's memory: wait
    // for all of them. A replay's failure is reported here (a sync point).
    runtime::Status failed = runtime::Status::kSuccess;
    std::string why;
    for (auto& [stream, ev] : replays_) {
      const runtime::Status st = runtime::event_synchronize(ev);
      if (st != runtime::Status::kSuccess && failed == runtime::Status::kSuccess) {
        failed = st;
        why = runtime::last_error_message();
      }
      runtime::event_destroy(ev);
    }
    replays_.clear();
    if (graph_ != nullptr) {
      runtime::graph_destroy(graph_);
      graph_ = nullptr;
      instantiated_ = false;
      release_pools();
    }
    rngs_.clear();
    TORCH_CHECK(failed == runtime::Status::kSuccess, "a replay of this tpu graph failed: ", why);
  }

  at::MempoolId_t pool() const override { return mempool_; }

  // The runtime keeps what debug_dump needs for every capture: nothing to switch on.
  void enable_debug_mode() override {}

  void debug_dump(const std::string& path) override {
    TORCH_CHECK(graph_ != nullptr, "debug_dump: this tpu graph holds no capture");
    TPU_CHECK(runtime::graph_debug_dump(graph_, path));
  }

  kernels::PhiloxState reserve_philox(TpuGeneratorImpl* gen, uint64_t increment) {
    std::lock_guard<std::mutex> lock(rng_mu_);
    auto it = std::find_if(rngs_.begin(), rngs_.end(), [&](const Rng& r) { return r.gen.get() == gen; });
    if (it == rngs_.end()) {
      rngs_.push_back(Rng{c10::intrusive_ptr<c10::GeneratorImpl>::reclaim_copy(gen),
                          std::make_unique<uint64_t[]>(2), 0});
      it = std::prev(rngs_.end());
    }
    kernels::PhiloxState st;
    st.offset = it->increment;
    st.replay = it->slot.get();
    it->increment += (increment + 3) / 4 * 4;
    return st;
  }

 private:
  // What one generator contributes: the slot captured kernels read
  // ({seed, offset} of the running replay) and the words one replay uses.
  struct Rng {
    c10::intrusive_ptr<c10::GeneratorImpl> gen;
    std::unique_ptr<uint64_t[]> slot;
    uint64_t increment = 0;
  };

  void release_pools() {
    release_pool(device_, mempool_);
    host_allocator()->release_pool(mempool_);
  }

  void stop_capturing() {
    host_allocator()->end_allocate_to_pool(mempool_);
    end_allocate_to_pool(device_, capture_id_);
    std::lock_guard<std::mutex> lock(g_mu);
    g_active.erase(std::find(g_active.begin(), g_active.end(), std::make_pair(capture_id_, this)));
    g_capturing.fetch_sub(1, std::memory_order_relaxed);
    capture_id_ = 0;
  }

  // Ordered on the replay stream before the graph: each replay gets the
  // generator state of its own turn, even when several are queued. A replay
  // captured into another graph reserves its numbers in that graph, whose
  // replays then pass their own state down (`from`, read when it runs).
  void store_replay_rng(runtime::Stream stream) {
    struct Store {
      uint64_t* slot;
      const uint64_t* from;  // the outer graph's slot, or null
      uint64_t seed, offset;
    };
    std::vector<Store> stores;
    for (Rng& r : rngs_) {
      auto* gen = static_cast<TpuGeneratorImpl*>(r.gen.get());
      kernels::PhiloxState outer;
      if (reserve_graph_philox(device_, gen, r.increment, &outer)) {
        stores.push_back({r.slot.get(), outer.replay, 0, outer.offset});
        continue;
      }
      std::lock_guard<std::mutex> lock(gen->mutex_);
      const auto [seed, offset] = gen->philox_engine_inputs(r.increment);
      stores.push_back({r.slot.get(), nullptr, seed, offset});
    }
    TPU_CHECK(runtime::launch(stream, "graph rng state", {}, [stores = std::move(stores)] {
      for (const Store& s : stores) {
        s.slot[0] = s.from ? s.from[0] : s.seed;
        s.slot[1] = s.from ? s.from[1] + s.offset : s.offset;
      }
    }));
  }

  const bool keep_graph_;
  bool instantiated_ = false;
  c10::DeviceIndex device_ = 0;
  at::MempoolId_t mempool_{0, 0};
  runtime::Stream capture_stream_ = nullptr;
  uint64_t capture_id_ = 0;  // non-zero while capturing
  runtime::Graph graph_ = nullptr;
  std::vector<std::pair<runtime::Stream, runtime::Event>> replays_;  // last replay per stream
  std::mutex rng_mu_;
  std::vector<Rng> rngs_;
};

}  // namespace

bool reserve_graph_philox(c10::DeviceIndex device, TpuGeneratorImpl* gen, uint64_t increment,
                          kernels::PhiloxState* out) {
  if (g_capturing.load(std::memory_order_relaxed) == 0) return false;
  const uint64_t id = runtime::stream_capture_id(native_stream(current_stream(device)));
  if (id == 0) return false;
  TpuGraph* graph = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (auto& [capture, g] : g_active) {
      if (capture == id) graph = g;
    }
  }
  if (graph == nullptr) return false;  // a runtime capture without a graph object
  *out = graph->reserve_philox(gen, increment);
  return true;
}

c10::MempoolId_t graph_pool_handle() { return {0, ++g_next_pool}; }

}  // namespace torch_tpu::aten

// The registry key is the upper-cased backend name of PrivateUse1.
namespace at {
REGISTER_GRAPH_IMPL(TPU, torch_tpu::aten::TpuGraph);
}
