// torch_tpu._C: registers the backend on import and exposes the few native
// entry points the Python package needs. Everything user facing is shaped in
// Python (torch_tpu/, torch.tpu).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <torch/csrc/Generator.h>
#include <torch/csrc/profiler/combined_traceback.h>

#include <chrono>
#include <utility>

#include "aten/device/backend.h"
#include "aten/device/caching_allocator.h"
#include "aten/device/fallback.h"
#include "aten/device/generator.h"
#include "aten/device/graph.h"
#include "aten/device/host_allocator.h"
#include "aten/device/launch_origin.h"
#include "aten/device/op_trace.h"
#include "aten/device/runtime_check.h"
#include "aten/device/telemetry.h"
#include "aten/device/tpu_stream.h"
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/lapack.h"
#include "python/autograd_exit.h"
#include "python/compiled_launch.h"
#include "python/stream_gate.h"
#include "python/graph_outputs.h"
#include "runtime/kernel_errors.h"
#include "runtime/runtime.h"
#include "runtime/utilization.h"
#include "runtime/trace.h"

namespace py = pybind11;
using namespace torch_tpu;

namespace torch {
// Declared in torch/csrc/profiler/python/combined_traceback.h, which the
// wheel cannot compile (it includes nlohmann/json.hpp, not shipped);
// exported by libtorch_python. Turns tracebacks into lists of frame dicts.
std::vector<pybind11::object> py_symbolize(std::vector<CapturedTraceback*>& to_symbolize);
}  // namespace torch

namespace {

py::dict device_properties(int index) {
  aten::check_device_index(static_cast<c10::DeviceIndex>(index));
  runtime::DeviceProperties p;
  runtime::get_device_properties(index, &p);
  py::dict d;
  d["name"] = p.name;
  d["index"] = p.index;
  d["total_memory"] = p.total_memory;
  d["core_count"] = p.core_count;
  d["cpu_capability"] = runtime::cpu_isa_name(runtime::cpu_isa());
  return d;
}

// Which kernel variants run (csrc/kernels/common/isa.h): the selected ISA, the best
// this CPU has, its features, and the GEMM micro-kernel per dtype.
py::dict cpu_capability() {
  py::dict d;
  d["selected"] = runtime::cpu_isa_name(runtime::cpu_isa());
  d["best"] = runtime::cpu_isa_name(runtime::best_cpu_isa());
  const runtime::CpuFeatures& f = runtime::cpu_features();
  py::dict feats;
  const std::pair<const char*, bool> flags[] = {
      {"avx2", f.avx2},           {"fma", f.fma},
      {"f16c", f.f16c},           {"bmi2", f.bmi2},
      {"avx512f", f.avx512f},     {"avx512bw", f.avx512bw},
      {"avx512dq", f.avx512dq},   {"avx512vl", f.avx512vl},
      {"avx512cd", f.avx512cd},   {"avx512_bf16", f.avx512_bf16},
      {"avx512_vnni", f.avx512_vnni}, {"amx_tile", f.amx_tile},
      {"amx_bf16", f.amx_bf16}};
  for (const auto& [name, on] : flags) feats[name] = on;
  d["features"] = feats;
  py::dict gemm;
  for (auto t : {kernels::DType::kFloat32, kernels::DType::kFloat64, kernels::DType::kFloat16,
                 kernels::DType::kBFloat16, kernels::DType::kInt64}) {
    gemm[kernels::dtype_name(t)] = kernels::gemm_kernel_name(t);
  }
  d["gemm"] = gemm;
  return d;
}

// Turns the gathered contexts (CapturedTraceback, see record_memory_history)
// into lists of {"filename", "line", "name"} frames; [] for none.
class FrameSymbolizer {
 public:
  // Returns the slot whose frames `ctx` will get.
  size_t add(const std::shared_ptr<c10::GatheredContext>& ctx) {
    auto* tb = dynamic_cast<torch::CapturedTraceback*>(ctx.get());
    slots_.push_back(tb);
    if (tb != nullptr) pending_.push_back(tb);
    return slots_.size() - 1;
  }
  std::vector<py::object> frames() {
    std::vector<py::object> symbolized = torch::py_symbolize(pending_);
    std::vector<py::object> out;
    size_t next = 0;
    for (auto* tb : slots_) out.push_back(tb != nullptr ? symbolized.at(next++) : py::list());
    return out;
  }

 private:
  std::vector<torch::CapturedTraceback*> slots_, pending_;
};

py::list memory_snapshot() {
  py::list segments;
  FrameSymbolizer symbolizer;
  std::vector<std::pair<py::dict, size_t>> framed;  // (block, slot)
  for (const auto& seg : aten::memory_snapshot()) {
    py::dict s;
    s["device"] = static_cast<int>(seg.device);
    s["address"] = seg.address;
    s["total_size"] = seg.total_size;
    s["allocated_size"] = seg.allocated_size;
    s["active_size"] = seg.active_size;
    s["requested_size"] = seg.requested_size;
    s["stream"] = reinterpret_cast<uintptr_t>(seg.stream);
    s["segment_type"] = seg.is_large ? "large" : "small";
    // As torch.cuda.memory_snapshot(): the graph pool owning it, (0, 0) if none.
    s["segment_pool_id"] = py::make_tuple(seg.owner_private_pool_id.first, seg.owner_private_pool_id.second);
    py::list blocks;
    size_t address = seg.address;
    for (const auto& b : seg.blocks) {
      py::dict bd;
      bd["address"] = address;
      bd["size"] = b.size;
      bd["requested_size"] = b.requested_size;
      bd["state"] = b.allocated ? "active_allocated"
                                : (b.active ? "active_pending_free" : "inactive");
      framed.emplace_back(bd, symbolizer.add(b.context_when_allocated));
      blocks.append(bd);
      address += b.size;
    }
    s["blocks"] = blocks;
    s["frames"] = py::list();
    s["is_expandable"] = false;
    segments.append(s);
  }
  const std::vector<py::object> frames = symbolizer.frames();
  for (auto& [bd, slot] : framed) bd["frames"] = frames[slot];
  return segments;
}

// torch.tpu.memory._record_memory_history: contexts are Python stacks, with
// C++ frames too when `cpp`.
void record_memory_history(bool enabled, bool record_events, bool gather, bool gather_frees, bool cpp,
                           size_t max_entries) {
  aten::GatherContext gather_fn;
  if (gather) {
    gather_fn = [cpp]() -> std::shared_ptr<c10::GatheredContext> {
      return torch::CapturedTraceback::gather(/*python=*/true, /*script=*/false, cpp);
    };
  }
  aten::record_memory_history(enabled, record_events, std::move(gather_fn), gather_frees, max_entries);
}

// Each device's history events, as torch.cuda.memory._snapshot()["device_traces"].
py::list memory_history() {
  const auto history = aten::memory_history();
  FrameSymbolizer symbolizer;
  std::vector<std::pair<py::dict, size_t>> framed;
  py::list devices;
  for (const auto& events : history) {
    py::list trace;
    for (const auto& e : events) {
      py::dict d;
      d["action"] = aten::history_action_name(e.action);
      d["addr"] = e.addr;
      d["size"] = e.size;
      d["stream"] = e.stream;
      d["time_us"] = e.time_us;
      if (e.action == aten::HistoryEvent::kOom) d["device_free"] = e.device_free;
      d["compile_context"] = "";
      d["user_metadata"] = "";
      framed.emplace_back(d, symbolizer.add(e.context));
      trace.append(d);
    }
    devices.append(trace);
  }
  const std::vector<py::object> frames = symbolizer.frames();
  for (auto& [d, slot] : framed) d["frames"] = frames[slot];
  return devices;
}

py::dict stats() {
  aten::telemetry::Snapshot snap = aten::telemetry::snapshot();
  py::dict ops, stubs, copies, syncs;
  for (const auto& [op, routes] : snap.ops) ops[py::str(op)] = routes;
  for (const auto& [stub, n] : snap.stubs) stubs[py::str(stub)] = n;
  for (const auto& [kind, cb] : snap.copies) {
    py::dict c;
    c["calls"] = cb.first;
    c["bytes"] = cb.second;
    copies[py::str(kind)] = c;
  }
  for (const auto& [why, n] : snap.syncs) syncs[py::str(why)] = n;
  py::dict out;
  out["ops"] = ops;
  out["stubs"] = stubs;
  out["copies"] = copies;
  out["syncs"] = syncs;
  out["launches"] = snap.launches;
  return out;
}

py::tuple mem_get_info(int index) {
  aten::check_device_index(static_cast<c10::DeviceIndex>(index));
  size_t free_bytes = 0, total = 0;
  runtime::mem_get_info(index, &free_bytes, &total);
  return py::make_tuple(free_bytes, total);
}

int utilization(int index) {
  aten::check_device_index(static_cast<c10::DeviceIndex>(index));
  int percent = 0;
  runtime::utilization(index, &percent);
  return percent;
}

std::pair<double, double> time_empty_launches(int64_t n);

// For benchmarks/: host cost of enqueueing n empty kernels on the current
// stream, and the cost per kernel including the device running them.
py::tuple bench_empty_launches(int64_t n) {
  std::pair<double, double> per_launch;
  {
    py::gil_scoped_release no_gil;
    per_launch = time_empty_launches(n);
  }
  return py::make_tuple(per_launch.first, per_launch.second);
}

std::pair<double, double> time_empty_launches(int64_t n) {
  runtime::Stream s = aten::native_stream(aten::current_stream());
  TPU_CHECK(runtime::stream_synchronize(s));
  auto t0 = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < n; ++i) TPU_CHECK(runtime::launch(s, "empty", {}, [] {}));
  auto t1 = std::chrono::steady_clock::now();
  TPU_CHECK(runtime::stream_synchronize(s));
  auto t2 = std::chrono::steady_clock::now();
  auto per = [n](auto d) { return std::chrono::duration<double>(d).count() / n; };
  return {per(t1 - t0), per(t2 - t0)};
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "torch_tpu native extension (registers the 'tpu' PrivateUse1 backend)";
  // Before any kernel can run: a CPU without the baseline ISA, or a bad
  // TORCH_TPU_CPU_CAPABILITY, is an import error that says why.
  const std::string isa_error = runtime::cpu_isa_check();
  if (!isa_error.empty()) throw py::import_error(isa_error);
  aten::register_backend();

  m.attr("_torch_version") = TORCH_TPU_TORCH_VERSION;
  m.def("_cpu_capability", &cpu_capability);
  // The device LAPACK (torch_tpu/_lapack.py): opened by the kernel library on first use.
  m.def("_set_lapack_library", [](const std::string& path, const std::string& prefix) {
    kernels::lapack::set_library(path, prefix);
  });
  m.def("_lapack_library", [] { return kernels::lapack::library_path(); });
  m.def("_device_count", [] { return static_cast<int>(aten::device_count()); });
  m.def("_current_device", [] { return static_cast<int>(aten::current_device()); });
  m.def("_set_device", [](int i) { aten::set_device(static_cast<c10::DeviceIndex>(i)); });
  m.def("_exchange_device", [](int i) {
    if (i < 0) return -1;
    return static_cast<int>(aten::exchange_device(static_cast<c10::DeviceIndex>(i)));
  });
  m.def("_synchronize", [](int i) {
    py::gil_scoped_release no_gil;
    aten::synchronize_device(static_cast<c10::DeviceIndex>(i), "torch.tpu.synchronize");
  });
  m.def("_get_device_properties", &device_properties);
  // ExternalStream: the StreamId of a stream made outside torch; and the
  // runtime's own stream API, which another library would call from C++
  // (exposed for Python users of such libraries and for the tests).
  m.def("_external_stream_id", [](uintptr_t handle, int device) {
    return aten::external_stream(static_cast<c10::DeviceIndex>(device), handle).id();
  });
  m.def("_runtime_stream_create", [](int device, int priority) {
    aten::check_device_index(static_cast<c10::DeviceIndex>(device));
    runtime::Stream s = nullptr;
    TPU_CHECK(runtime::stream_create(device, priority, &s));
    return reinterpret_cast<uintptr_t>(s);
  });
  m.def("_runtime_stream_destroy", [](uintptr_t handle) {
    TPU_CHECK(runtime::stream_destroy(reinterpret_cast<runtime::Stream>(handle)));
  });
  m.def("_mem_get_info", &mem_get_info);
  m.def("_utilization", &utilization);
  m.def("_get_default_generator", [](int i) {
    const at::Generator& gen = aten::default_generator(static_cast<c10::DeviceIndex>(i));
    return py::reinterpret_steal<py::object>(THPGenerator_initDefaultGenerator(gen));
  });
  m.def("_memory_snapshot", &memory_snapshot);
  m.def("_record_memory_history", &record_memory_history);
  m.def("_memory_history", &memory_history);
  // The profiler's device records (runtime/trace.h): how tests prove that
  // nothing is recorded while the profiler is off.
  m.def("_trace_record_count", [] { return runtime::trace_record_count(); });
  m.def("_tracing", [] { return runtime::tracing(); });
  m.def("_is_in_bad_fork", [] { return runtime::in_bad_fork(); });
  m.def("_set_memory_fraction", [](double fraction, int device) {
    aten::set_memory_fraction(static_cast<c10::DeviceIndex>(device), fraction);
  });
  m.def("_get_memory_fraction",
        [](int device) { return aten::memory_fraction(static_cast<c10::DeviceIndex>(device)); });
  m.def("_set_sync_debug_mode", [](int mode) { aten::telemetry::set_sync_debug_mode(mode); });
  m.def("_get_sync_debug_mode", [] { return aten::telemetry::sync_debug_mode(); });
  // Pinned-host allocator statistics, keyed as torch.cuda.host_memory_stats().
  m.def("_host_memory_stats", [] {
    const at::HostStats s = aten::host_allocator()->get_stats();
    py::dict d;
    auto stat = [&](const char* name, const c10::CachingAllocator::Stat& v) {
      const std::string n = name;
      d[py::str(n + ".current")] = v.current;
      d[py::str(n + ".peak")] = v.peak;
      d[py::str(n + ".allocated")] = v.allocated;
      d[py::str(n + ".freed")] = v.freed;
    };
    auto duration = [&](const char* name, const c10::CachingAllocator::DurationStat& v) {
      const std::string n = name;
      d[py::str(n + ".total")] = v.total;
      d[py::str(n + ".max")] = v.max;
      d[py::str(n + ".min")] = v.min;
      d[py::str(n + ".count")] = v.count;
      d[py::str(n + ".avg")] = v.count ? v.total / v.count : 0;
    };
    stat("active_requests", s.active_requests);
    stat("active_bytes", s.active_bytes);
    stat("allocations", s.allocations);
    stat("allocated_bytes", s.allocated_bytes);
    duration("host_alloc_time", s.host_alloc_time);
    duration("host_free_time", s.host_free_time);
    d["num_host_alloc"] = s.num_host_alloc;
    d["num_host_free"] = s.num_host_free;
    return d;
  });
  m.def("_reset_accumulated_host_memory_stats", [] { aten::host_allocator()->reset_accumulated_stats(); });
  m.def("_reset_peak_host_memory_stats", [] { aten::host_allocator()->reset_peak_stats(); });
  m.def("_mempool_retain", [](int device, std::pair<uint64_t, uint64_t> id) {
    aten::retain_pool(static_cast<c10::DeviceIndex>(device), id);
  });
  m.def("_mempool_release", [](int device, std::pair<uint64_t, uint64_t> id) {
    aten::release_pool(static_cast<c10::DeviceIndex>(device), id);
  });
  m.def("_mempool_begin_thread", [](int device, std::pair<uint64_t, uint64_t> id) {
    aten::begin_thread_route(static_cast<c10::DeviceIndex>(device), id);
  });
  m.def("_mempool_end_thread", [](int device, std::pair<uint64_t, uint64_t> id) {
    aten::end_thread_route(static_cast<c10::DeviceIndex>(device), id);
  });
  m.def("_mempool_use_count", [](int device, std::pair<uint64_t, uint64_t> id) {
    return aten::pool_use_count(static_cast<c10::DeviceIndex>(device), id);
  });
  m.def("_graph_pool_handle", [] {
    const c10::MempoolId_t id = aten::graph_pool_handle();
    return py::make_tuple(id.first, id.second);
  });

  m.def("_stats", &stats);
  m.def("_reset_stats", [] { aten::telemetry::reset(); });
  m.def("_enable_composite_tracing", &aten::enable_composite_tracing);
  m.def("_disable_composite_tracing", &aten::disable_composite_tracing);
  m.def("_set_fallback_policy", [](const std::string& name) {
    aten::set_fallback_policy(aten::parse_fallback_policy(name));
  });
  m.def("_get_fallback_policy",
        [] { return std::string(aten::fallback_policy_name(aten::fallback_policy())); });

  m.def("_set_strict_mode", [](bool on) {
    py::gil_scoped_release no_gil;
    runtime::set_strict_mode(on);
  });
  m.def("_strict_mode", [] { return runtime::strict_mode(); });
  m.def("_bench_empty_launches", &bench_empty_launches);
  m.def("_set_launch_blocking", [](bool on) { runtime::set_launch_blocking(on); });
  m.def("_launch_blocking", [] { return runtime::launch_blocking(); });
  m.def("_set_launch_stacks", [](bool on) { aten::set_launch_stacks(on); });
  m.def("_launch_stacks", [] { return aten::launch_stacks(); });
  m.def("_set_slow_device_us", [](int64_t us) { runtime::set_slow_device_us(us); });
  m.def("_slow_device_us", [] { return runtime::slow_device_us(); });
  python::register_compiled_launch(m);
  python::register_graph_outputs(m);
  python::register_autograd_exit(m);
  python::register_stream_gate(m);
}
