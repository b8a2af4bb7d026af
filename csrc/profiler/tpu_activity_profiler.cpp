// The tpu's Kineto child profiler: torch.profiler.profile(activities=[CPU,
// PrivateUse1]) starts a session of it. While a session records, the
// runtime keeps one record per stream task (runtime/trace.h); when Kineto
// processes the trace, each record becomes
// - a device event (kernel, memcpy or memset) on the lane of its stream
//   (pid = tpu device index, tid = stream index), and
// - a host event ("tpuLaunchKernel", "tpuMemcpyAsync", ...) on the launching
//   thread, spanning the launch call,
// linked by a flow arrow, and both linked to the CPU op that was running on
// the launching thread (its correlation id, which Kineto pushes per op), so
// key_averages() charges the device time to that op.
#include "profiler/tpu_activity_profiler.h"

#include <unistd.h>

#include <libkineto.h>
#include <output_base.h>
#include <torch/csrc/profiler/standalone/privateuse1_profiler.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/runtime.h"
#include "runtime/trace.h"

namespace torch_tpu::profiler {
namespace {

using libkineto::ActivityType;
using runtime::TraceKind;

const char* host_event_name(TraceKind kind) {
  switch (kind) {
    case TraceKind::kKernel: return "tpuLaunchKernel";
    case TraceKind::kMemset: return "tpuMemsetAsync";
    default: return "tpuMemcpyAsync";
  }
}

// Named like CUDA's memcpy events, so tools that group them recognise them.
std::string device_event_name(const runtime::TraceRecord& r) {
  switch (r.kind) {
    case TraceKind::kKernel: return r.name;
    case TraceKind::kMemcpyHtoD: return "Memcpy HtoD (Host -> Device)";
    case TraceKind::kMemcpyDtoH: return "Memcpy DtoH (Device -> Host)";
    case TraceKind::kMemcpyDtoD: return "Memcpy DtoD (Device -> Device)";
    case TraceKind::kMemcpyHtoH: return "Memcpy HtoH (Host -> Host)";
    case TraceKind::kMemset: return "Memset (Device)";
  }
  return r.name;
}

ActivityType device_activity_type(TraceKind kind) {
  switch (kind) {
    case TraceKind::kKernel: return ActivityType::CONCURRENT_KERNEL;
    case TraceKind::kMemset: return ActivityType::GPU_MEMSET;
    default: return ActivityType::GPU_MEMCPY;
  }
}

// Activities hold a pointer to their span; Kineto's in-memory logger copies
// activities and may outlive the session, so the span lives forever.
const libkineto::TraceSpan& tpu_span() {
  static const auto* span = new libkineto::TraceSpan(0, 0, "tpu");
  return *span;
}

class TpuProfilerSession final : public libkineto::IActivityProfilerSession {
 public:
  // Kineto configures every child profiler for every trace, a CPU-only one
  // included (its host types overlap ours): record only when device
  // activities were asked for.
  explicit TpuProfilerSession(bool record) : record_(record) {}

  void start() override {
    if (record_) runtime::trace_start();
    status_ = libkineto::TraceStatus::RECORDING;
  }

  void stop() override {
    if (record_) runtime::trace_stop();  // waits for the work launched while recording
    status_ = libkineto::TraceStatus::PROCESSING;
  }

  std::vector<std::string> errors() override { return {}; }

  void processTrace(libkineto::ActivityLogger& logger) override {
    processTrace(logger, [](int32_t) -> const libkineto::ITraceActivity* { return nullptr; }, 0, 0);
  }

  void processTrace(libkineto::ActivityLogger& logger, libkineto::getLinkedActivityCallback linked_cpu_op,
                    int64_t /*start*/, int64_t /*end*/) override {
    if (!record_) return;
    const std::vector<runtime::TraceRecord> records = runtime::trace_take();
    const int64_t pid = ::getpid();
    std::set<int> devices;
    std::set<std::pair<int, int>> lanes;
    uint32_t flow_id = 0;
    for (const runtime::TraceRecord& r : records) {
      devices.insert(r.device);
      lanes.insert({r.device, r.stream});
      const auto correlation = static_cast<int32_t>(r.correlation);
      const libkineto::ITraceActivity* op = r.correlation != 0 ? linked_cpu_op(correlation) : nullptr;
      ++flow_id;

      libkineto::GenericTraceActivity host(tpu_span(), ActivityType::PRIVATEUSE1_RUNTIME, host_event_name(r.kind));
      host.startTime = r.launch_begin_ns;
      host.endTime = r.launch_end_ns;
      host.id = correlation;
      host.device = static_cast<int32_t>(pid);
      host.resource = static_cast<int32_t>(r.host_thread);
      host.threadId = static_cast<int32_t>(r.host_thread);
      host.linked = op;
      host.flow.id = flow_id;
      host.flow.type = libkineto::kLinkAsyncCpuGpu;
      host.flow.start = true;
      host.addMetadata("correlation", r.correlation);
      logger.handleGenericActivity(host);

      libkineto::GenericTraceActivity dev(tpu_span(), device_activity_type(r.kind), device_event_name(r));
      dev.startTime = r.start_ns;
      dev.endTime = r.end_ns;
      dev.id = correlation;
      dev.device = r.device;
      dev.resource = r.stream;
      dev.linked = op;
      dev.flow.id = flow_id;
      dev.flow.type = libkineto::kLinkAsyncCpuGpu;
      dev.flow.start = false;
      dev.addMetadata("device", r.device);
      dev.addMetadata("stream", r.stream);
      dev.addMetadata("correlation", r.correlation);
      if (op != nullptr) dev.addMetadataQuoted("op", op->name());
      if (r.kind != TraceKind::kKernel) {
        dev.addMetadata("bytes", r.bytes);
        const int64_t ns = r.end_ns - r.start_ns;
        if (ns > 0) dev.addMetadata("memory bandwidth (GB/s)", static_cast<double>(r.bytes) / ns);
      }
      logger.handleGenericActivity(dev);
    }
    devices_ = devices;
    lanes_ = lanes;
    // One process per tpu, one lane per stream that ran something. Kineto
    // names processes 0-15 "GPU N" after processTrace and then asks the
    // session for its device (one) and lanes: the first tpu is named there
    // (last, so its name wins), the others here.
    for (int d : devices) {
      if (d != *devices.begin()) logger.handleDeviceInfo(device_info(d), 0);
    }
  }

  std::unique_ptr<libkineto::DeviceInfo> getDeviceInfo() override {
    if (devices_.empty()) return nullptr;
    return std::make_unique<libkineto::DeviceInfo>(device_info(*devices_.begin()));
  }

  std::vector<libkineto::ResourceInfo> getResourceInfos() override {
    std::vector<libkineto::ResourceInfo> out;
    for (const auto& [d, s] : lanes_) out.push_back(libkineto::ResourceInfo{s, s, d, "stream " + std::to_string(s)});
    return out;
  }

  std::unique_ptr<libkineto::CpuTraceBuffer> getTraceBuffer() override { return nullptr; }

  // Kineto calls these on the thread of each CPU op as it starts and ends.
  void pushCorrelationId(uint64_t id) override {
    if (record_) runtime::trace_push_correlation(id);
  }
  void popCorrelationId() override {
    if (record_) runtime::trace_pop_correlation();
  }

 private:
  static libkineto::DeviceInfo device_info(int device) {
    return libkineto::DeviceInfo{device, device, "tpu:" + std::to_string(device), "torch_tpu simulated TPU"};
  }

  const bool record_;
  std::set<int> devices_;                 // the tpus and streams the records came from
  std::set<std::pair<int, int>> lanes_;
};

class TpuActivityProfiler final : public libkineto::IActivityProfiler {
 public:
  const std::string& name() const override { return name_; }

  const std::set<ActivityType>& availableActivities() const override { return activities_; }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(const std::set<ActivityType>& types,
                                                                 const libkineto::Config& /*config*/) override {
    const bool device = types.count(ActivityType::CONCURRENT_KERNEL) || types.count(ActivityType::GPU_MEMCPY) ||
                        types.count(ActivityType::GPU_MEMSET);
    return std::make_unique<TpuProfilerSession>(device);
  }

  std::unique_ptr<libkineto::IActivityProfilerSession> configure(int64_t /*ts_ms*/, int64_t /*duration_ms*/,
                                                                 const std::set<ActivityType>& types,
                                                                 const libkineto::Config& config) override {
    return configure(types, config);
  }

 private:
  std::string name_{"tpu"};
  std::set<ActivityType> activities_{ActivityType::CONCURRENT_KERNEL, ActivityType::GPU_MEMCPY,
                                     ActivityType::GPU_MEMSET, ActivityType::PRIVATEUSE1_RUNTIME};
};

}  // namespace

void register_profiler() {
  torch::profiler::impl::PrivateUse1ProfilerRegistry::instance().registerFactory(
      []() -> std::unique_ptr<libkineto::IActivityProfiler> { return std::make_unique<TpuActivityProfiler>(); });
}

}  // namespace torch_tpu::profiler
