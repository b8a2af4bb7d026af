// The simulated TPU driver API: devices, memory, streams, events, copies,
// kernel launch. Think of a tiny CUDA runtime. This header (and everything in
// csrc/runtime) depends on the C++ standard library only: no torch headers.
//
// Conventions
// - Every fallible call returns a Status. kSuccess is 0. The calling thread's
//   last_error_message() has the details of the most recent failure.
// - Work on a stream runs asynchronously, in order, on that stream's device
//   worker thread. The host only enqueues. Sync points are explicit
//   (stream_synchronize, event_synchronize, device_synchronize, and the
//   copies documented as synchronous below).
// - A kernel that throws marks its stream with a sticky error; the next
//   synchronize/query on that stream (or device) returns kKernelFailure with
//   the kernel's message, then clears it, so the process keeps working.
// - Device memory lives in a per-device arena that is not host memory: with
//   strict mode on, any host access to it faults with a clear message. Only
//   work running on a stream may touch it (launch names the buffers it uses).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "runtime/small_vector.h"
#include "runtime/task_body.h"

namespace torch_tpu::runtime {

enum class Status : int {
  kSuccess = 0,
  kInvalidDevice,           // device index out of range
  kInvalidValue,            // bad argument (null pointer, bad size, ...)
  kOutOfMemory,             // device budget exhausted
  kInvalidDevicePointer,    // not the base of a live device allocation
  kInvalidHostPointer,      // not the base of a live pinned host allocation
  kInvalidMemcpyDirection,  // kind does not match the pointers
  kNotReady,                // query: work still pending
  kEventNotRecorded,        // elapsed_time on an event never recorded
  kTimingDisabled,          // elapsed_time on an event created without timing
  kKernelFailure,           // a kernel threw on the device (sticky, see above)
  kForkedProcess,           // runtime used in a child after fork()
  kCaptureUnsupported,      // not permitted while a stream is capturing (invalidates the capture)
  kCaptureInvalidated,      // the stream's capture was invalidated by an earlier error
};

const char* status_name(Status s);
// Details of the calling thread's most recent failure ("" if none).
std::string last_error_message();

// ---------------------------------------------------------------- devices --
// Number of devices: env TORCH_TPU_DEVICE_COUNT (default 2, 0 allowed).
int device_count();
// The calling host thread's current device (default 0).
Status set_device(int device);
int current_device();

struct DeviceProperties {
  std::string name;          // "torch_tpu simulated TPU"
  int index = 0;
  size_t total_memory = 0;   // env TORCH_TPU_DEVICE_MEMORY ("16GiB", "512MiB", or bytes); default 16 GiB
  int core_count = 1;        // env TORCH_TPU_CORES; default std::thread::hardware_concurrency()
};
Status get_device_properties(int device, DeviceProperties* out);

// Waits for all work on all streams of `device`.
Status device_synchronize(int device);

// ------------------------------------------------------- instruction sets --
// The device's "compute capability": which instruction set its kernels use.
// The kernel library is built for a baseline (x86-64-v3: AVX2, FMA, F16C)
// and, for the kernels that profit, also for AVX-512 and AVX-512 BF16; the
// variant is chosen once per process from the host CPU (CPUID + XGETBV, so
// an OS that does not save the AVX-512 state counts as no AVX-512).
enum class CpuIsa : int { kAvx2 = 0, kAvx512 = 1, kAvx512Bf16 = 2 };

struct CpuFeatures {
  bool avx2 = false, fma = false, f16c = false, bmi2 = false;
  bool avx512f = false, avx512bw = false, avx512dq = false, avx512vl = false, avx512cd = false;
  bool avx512_bf16 = false, avx512_vnni = false;
  bool amx_tile = false, amx_bf16 = false;  // reported; no kernel uses AMX yet
};
const CpuFeatures& cpu_features();
// The best ISA this CPU runs (kAvx2 also when it lacks AVX2: see cpu_isa_check).
CpuIsa best_cpu_isa();
// The ISA the kernels use: best_cpu_isa(), or a lower one named by env
// TORCH_TPU_CPU_CAPABILITY ("avx2", "avx512", "avx512_bf16"; like ATen's
// ATEN_CPU_CAPABILITY), read once.
CpuIsa cpu_isa();
const char* cpu_isa_name(CpuIsa isa);
// "" if the kernels can run here; else why not (no AVX2/FMA/F16C, or an
// unknown or unsupported TORCH_TPU_CPU_CAPABILITY). The extension checks it
// at import and refuses to load with this message.
std::string cpu_isa_check();

// ----------------------------------------------------------------- memory --
// Device allocations are page aligned and come from the device's arena and
// budget. malloc(…, 0, &p) sets p = nullptr and succeeds.
Status malloc(int device, size_t nbytes, void** ptr);
// Frees a device allocation. Synchronizes the owning device first (like
// cudaFree), so no queued work can still use the memory.
Status free(void* ptr);
// Bytes still available in the device budget, and the budget.
Status mem_get_info(int device, size_t* free_bytes, size_t* total_bytes);

// Pinned (page-locked) host memory: the only host memory that async copies
// can use without staging. It is ordinary host memory otherwise.
Status malloc_host(size_t nbytes, void** ptr);
Status free_host(void* ptr);

enum class MemoryType { kHostPageable, kHostPinned, kDevice };
struct PointerAttributes {
  MemoryType type = MemoryType::kHostPageable;
  int device = -1;         // owning device for kDevice, else -1
  void* base = nullptr;    // allocation base (interior pointers resolve)
  size_t size = 0;         // allocation size in bytes
};
// Never fails for host pointers: unknown pointers are kHostPageable.
Status pointer_get_attributes(const void* ptr, PointerAttributes* out);

// Strict mode (env TORCH_TPU_STRICT=1, or set at run time): device memory is
// mapped PROT_NONE except while stream work that names it is running
// (reference counted per allocation, thread safe). A host access then
// faults with a message naming the device and allocation.
void set_strict_mode(bool on);
bool strict_mode();

// ---------------------------------------------------------------- streams --
struct StreamImpl;
using Stream = StreamImpl*;

// Priorities: lower value = higher priority (CUDA convention).
// Range: least = 0 (normal), greatest = -1 (high).
void stream_priority_range(int* least, int* greatest);

// The default stream of `device` always exists; it is never destroyed.
Stream default_stream(int device);
Status stream_create(int device, int priority, Stream* out);
Status stream_destroy(Stream s);  // waits for its work first
int stream_device(Stream s);
int stream_priority(Stream s);
// kSuccess if all work enqueued so far has finished, else kNotReady.
Status stream_query(Stream s);
Status stream_synchronize(Stream s);

// ----------------------------------------------------------------- events --
struct EventImpl;
using Event = EventImpl*;
enum EventFlags : unsigned { kEventDefault = 0, kEventDisableTiming = 1 };

Status event_create(Event* out, unsigned flags = kEventDefault);
Status event_destroy(Event e);
// Captures all work enqueued on `s` so far. Re-recording is allowed.
Status event_record(Event e, Stream s);
// kSuccess if the captured work finished (or never recorded), else kNotReady.
Status event_query(Event e);
Status event_synchronize(Event e);
// Future work on `s` waits for the work captured by `e` (any device).
Status stream_wait_event(Stream s, Event e);
// Milliseconds between two completed, timing-enabled records.
Status event_elapsed_time(float* ms, Event start, Event end);
int event_device(Event e);  // device of the last record, -1 if never recorded

// ----------------------------------------------------------------- copies --
enum class MemcpyKind { kHostToHost, kHostToDevice, kDeviceToHost, kDeviceToDevice, kDefault };

// Synchronous copy (returns when the bytes have arrived). kDefault infers
// the kind from the pointers; an explicit kind that does not match the
// pointers is kInvalidMemcpyDirection. Device-to-device may cross devices.
Status memcpy(void* dst, const void* src, size_t n, MemcpyKind kind);

// Copy ordered on `s` (the stream's device runs it). Host-side rules, as CUDA:
// - pinned host memory: fully asynchronous; the caller keeps the host buffer
//   alive and untouched until the stream reaches the copy;
// - pageable host source: the bytes are staged at call time, then the copy is
//   enqueued; the host buffer may be reused as soon as the call returns;
// - pageable host destination: synchronous; returns after the copy ran.
// Device-to-device may cross devices (peer copy).
Status memcpy_async(void* dst, const void* src, size_t n, MemcpyKind kind, Stream s);

// Ordered on s like memcpy_async, but returns only after the copy (and all
// earlier work on s) ran, so host memory is used in place and never staged.
// Earlier kernel failures on s are reported like stream_synchronize reports
// them. Named after PyTorch's at::cuda::memcpy_and_sync; n == 0 still waits.
Status memcpy_and_sync(void* dst, const void* src, size_t n, MemcpyKind kind, Stream s);

// Sets n bytes of device memory to `value`, ordered on `s`.
Status memset_async(void* dst, int value, size_t n, Stream s);

// ----------------------------------------------------------------- launch --
// Enqueues `body` on `s`. `buffers` lists device pointers (any address inside
// an allocation) the body reads or writes; in strict mode exactly those
// allocations are accessible while it runs. `name` appears in errors.
// The device pointers of a launch: inline up to 8 (no allocation per launch).
using BufferList = SmallVector<const void*, 8>;
Status launch(Stream s, const char* name, const BufferList& buffers, TaskBody&& body);
// Kernels enqueued by launch() since the process started (all devices and
// streams): how a test proves that a rejected call launched nothing.
uint64_t launch_count();

// For use inside a launched body: splits [begin, end) into chunks of at least
// `grain` elements and runs fn(chunk_begin, chunk_end) on the device's cores
// (the calling worker takes part). Work from high-priority streams is taken
// first. Runs inline when called outside a launched body or when the range is
// small. Exceptions from fn propagate to the caller.
void parallel_for(int64_t begin, int64_t end, int64_t grain,
                  const std::function<void(int64_t, int64_t)>& fn);
// Core count of the device executing the calling body (1 outside one).
int current_core_count();

// ----------------------------------------------------------------- graphs --
// Stream capture, like CUDA graphs. Between stream_begin_capture and
// stream_end_capture, work enqueued on the stream is recorded, not run: the
// launches, async copies between device and pinned memory, and memsets. A
// stream that waits for an event recorded on a capturing stream joins the
// capture. Capture never runs or waits for anything:
// - a wait for captured work (stream_synchronize/stream_query on a capturing
//   stream, memcpy_and_sync on it, event_query/event_synchronize of an event
//   recorded in the capture) and a copy from or to pageable host memory
//   (staged or synchronous) fail with kCaptureUnsupported;
// - so do device_synchronize and memcpy on the capturing device, unless the
//   capture is kRelaxed (kThreadLocal: only from the capturing thread);
// - a capturing stream cannot wait for an event recorded outside the capture.
// Each such failure also invalidates the capture: later work on its streams
// fails with kCaptureInvalidated and stream_end_capture reports the first
// failure and ends the capture. The device stays usable throughout.
// A graph replays its recorded work, in the order it was recorded (a valid
// order for every dependency the capture saw), as one task on one stream.
enum class CaptureMode : int { kGlobal = 0, kThreadLocal = 1, kRelaxed = 2 };
struct GraphImpl;
using Graph = GraphImpl*;

// The default stream cannot capture (like CUDA's legacy stream): use a side stream.
Status stream_begin_capture(Stream s, CaptureMode mode);
// Ends the capture begun on `s` (the stream it began on) and returns the
// recorded graph, or the failure that invalidated the capture (out is then null).
Status stream_end_capture(Stream s, Graph* out);
// 0 if `s` is not capturing, else an id unique to its capture (joined
// streams share it). Cheap: one atomic load.
uint64_t stream_capture_id(Stream s);
// Checks that the graph's buffers are still allocated and builds its
// launch list (idempotent; graph_launch calls it if needed).
Status graph_instantiate(Graph g);
// Enqueues the whole graph on `s` (a stream of the device it was captured
// on) as one task. Inside another capture, records it as one node.
Status graph_launch(Graph g, Stream s);
Status graph_destroy(Graph g);  // queued replays keep what they need
size_t graph_node_count(Graph g);
// Writes the graph as Graphviz DOT: one node per recorded task, in order,
// with the device buffers it names.
Status graph_debug_dump(Graph g, const std::string& path);

// ------------------------------------------------------------- test modes --
// Slow device: every stream task sleeps this long before it runs (env
// TORCH_TPU_SLOW_DEVICE_US). Makes missing synchronisation visible.
void set_slow_device_us(int64_t us);
int64_t slow_device_us();

// True in a child process forked after the runtime started its threads; all
// stream/memory calls then return kForkedProcess (use the spawn start method).
bool in_bad_fork();

}  // namespace torch_tpu::runtime
