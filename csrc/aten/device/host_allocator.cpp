#include "aten/device/host_allocator.h"

#include <utility>

#include "aten/device/runtime_check.h"
#include "aten/device/tpu_stream.h"

namespace torch_tpu::aten {
namespace {

// Owns one runtime event; what the host cache waits on before reusing a block.
// Recorded on a capturing stream it never completes: the block's last use is
// in a graph, which may replay it at any time (the block is kept, as CUDA's
// host allocator keeps blocks used during capture).
class HostEvent {
 public:
  HostEvent() = default;
  explicit HostEvent(const c10::Stream& stream) {
    const runtime::Stream s = native_stream(stream);
    if (runtime::stream_capture_id(s) != 0) {
      in_graph_ = true;
      return;
    }
    TPU_CHECK(runtime::event_create(&event_, runtime::kEventDisableTiming));
    TPU_CHECK(runtime::event_record(event_, s));
  }
  HostEvent(HostEvent&& other) noexcept
      : event_(std::exchange(other.event_, nullptr)), in_graph_(other.in_graph_) {}
  HostEvent& operator=(HostEvent&& other) noexcept {
    std::swap(event_, other.event_);
    std::swap(in_graph_, other.in_graph_);
    return *this;
  }
  HostEvent(const HostEvent&) = delete;
  HostEvent& operator=(const HostEvent&) = delete;
  ~HostEvent() {
    if (event_ != nullptr) runtime::event_destroy(event_);
  }
  bool done() const {
    if (in_graph_) return false;
    if (event_ == nullptr) return true;
    const runtime::Status st = runtime::event_query(event_);
    if (st == runtime::Status::kNotReady) return false;
    TPU_CHECK(st);
    return true;
  }

 private:
  runtime::Event event_ = nullptr;
  bool in_graph_ = false;
};

struct TpuHostAllocatorImpl final : at::CachingHostAllocatorImpl<c10::Stream, HostEvent> {
 private:
  void allocate_host_memory(size_t size, void** ptr) override {
    TPU_CHECK(runtime::malloc_host(size, ptr));
  }
  void free_block(at::HostBlock<c10::Stream>* block) override {
    runtime::free_host(block->ptr_);
  }
  void record_stream(std::optional<std::vector<HostEvent>>& events,
                     c10::Stream stream) override {
    events->emplace_back(stream);
  }
  bool query_event(HostEvent& event) override { return event.done(); }
  c10::Stream get_current_stream() const override { return current_stream(); }
  bool stream_is_capturing(c10::Stream s) const override {
    return runtime::stream_capture_id(native_stream(s)) != 0;
  }
};

void delete_host_block(void* ctx);

struct TpuHostAllocator final
    : at::CachingHostAllocatorInterface<TpuHostAllocatorImpl, delete_host_block> {};

TpuHostAllocator& instance() {
  static auto* allocator = new TpuHostAllocator();  // leaked: outlives statics
  return *allocator;
}

void delete_host_block(void* ctx) { instance().free(ctx); }

}  // namespace

at::HostAllocator* host_allocator() { return &instance(); }

void record_host_use(void* ptr, void* ctx, const c10::Stream& stream) {
  instance().record_event(ptr, ctx, stream);
}

}  // namespace torch_tpu::aten
