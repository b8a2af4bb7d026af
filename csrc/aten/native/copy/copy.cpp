// Copies between host and device and between devices: _copy_from (what
// Tensor.copy_, .to("tpu"), .cpu() and clone() reach) and
// _copy_from_and_resize (used by the host fallback for out= results).
//
// Every copy is ordered on the current stream. The host waits only where
// PyTorch semantics demand it: D2H into pageable memory, and any copy with
// non_blocking=False. Conversions and layout changes follow CUDA's scheme:
//   H2D  convert and make contiguous on the host, copy bytes, then (if dst is
//        strided) scatter on the device;
//   D2H  gather on the device into a contiguous buffer, copy bytes, then
//        convert and scatter on the host;
//   D2D  one device kernel (any strides, any dtype pair);
//   peer gather/convert on the source device, copy bytes between devices,
//        scatter on the destination, with events ordering both streams.
#include <ATen/ExpandUtils.h>
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <c10/core/DeviceGuard.h>

#include "aten/device/host_allocator.h"
#include "aten/launch.h"
#include "aten/device/runtime_check.h"
#include "aten/device/telemetry.h"
#include "aten/device/tpu_stream.h"
#include "generated/ops/_copy_from.h"
#include "generated/ops/_copy_from_and_resize.h"
#include "kernels/copy/copy.h"

namespace torch_tpu::aten {
namespace {

using runtime::MemcpyKind;

// The same elements of the same memory: copy_ is a no-op (CPU skips it too).
bool is_same_data(const at::Tensor& a, const at::Tensor& b) {
  return a.has_storage() && b.has_storage() && a.storage().is_alias_of(b.storage()) &&
         a.storage_offset() == b.storage_offset() && a.sizes() == b.sizes() &&
         a.strides() == b.strides() && a.scalar_type() == b.scalar_type() &&
         a.is_conj() == b.is_conj() && a.is_neg() == b.is_neg();
}

size_t nbytes_of(const at::Tensor& t) { return t.numel() * t.element_size(); }

// Same dtype and the same dense layout: the copy is one run of bytes.
bool is_byte_copy(const at::Tensor& dst, const at::Tensor& src) {
  return dst.scalar_type() == src.scalar_type() && dst.is_non_overlapping_and_dense() &&
         dst.strides() == src.strides();
}

bool is_pinned(const at::Tensor& t) {
  runtime::PointerAttributes attr;
  return runtime::pointer_get_attributes(t.const_data_ptr(), &attr) ==
             runtime::Status::kSuccess &&
         attr.type == runtime::MemoryType::kHostPinned;
}

// The lowest address of a dense tensor's span (its strides may be permuted).
const void* span_start(const at::Tensor& t) { return t.const_data_ptr(); }

// Device kernel: dst = src (any strides, any dtypes), on dst's current stream.
void device_copy(const at::Tensor& dst, const at::Tensor& src) {
  kernels::TensorDesc d = describe(dst, "copy_", Complex32::kTaken);
  kernels::TensorDesc s = describe(src, "copy_", Complex32::kTaken);
  std::vector<const void*> buffers{d.data, s.data};  // before d, s are moved
  launch(dst.device().index(), "copy_strided", std::move(buffers),
         [d = std::move(d), s = std::move(s)] { kernels::copy_strided(d, s); });
}

// A pinned host buffer used by an async copy must not be recycled before the
// copy ran.
void keep_host_alive(const at::Tensor& host, const c10::Stream& stream) {
  const c10::DataPtr& p = host.storage().data_ptr();
  record_host_use(p.get(), p.get_context(), stream);
}

// Moves n bytes between host and device on `stream`. With `wait` the host
// blocks until the copy ran (and uses its memory in place); otherwise the copy
// is asynchronous: the runtime stages pageable host memory, and a pinned host
// buffer is kept from reuse until the stream got there.
void host_transfer(const c10::Stream& stream, void* dst, const void* src, size_t n,
                   MemcpyKind kind, const at::Tensor& host, bool wait, const char* why) {
  if (wait) {
    telemetry::count_sync(why);
    TPU_CHECK(runtime::memcpy_and_sync(dst, src, n, kind, native_stream(stream)));
    return;
  }
  TPU_CHECK(runtime::memcpy_async(dst, src, n, kind, native_stream(stream)));
  if (is_pinned(host)) keep_host_alive(host, stream);
}

void copy_host_to_device(const at::Tensor& src, const at::Tensor& dst, bool non_blocking) {
  c10::DeviceGuard guard(dst.device());
  const c10::Stream stream = current_stream(dst.device().index());
  if (is_byte_copy(dst, src)) {
    host_transfer(stream, dst.data_ptr(), span_start(src), nbytes_of(dst),
                  MemcpyKind::kHostToDevice, src, !non_blocking, "copy_h2d");
  } else {
    at::Tensor host = src.to(dst.scalar_type()).expand_as(dst).contiguous();
    at::Tensor staged = dst.is_contiguous() ? dst : at::empty_like(dst, at::MemoryFormat::Contiguous);
    host_transfer(stream, staged.data_ptr(), host.const_data_ptr(), nbytes_of(staged),
                  MemcpyKind::kHostToDevice, host, !non_blocking, "copy_h2d");
    if (!staged.is_same(dst)) {
      device_copy(dst, staged);
      if (!non_blocking) synchronize_stream(stream, "copy_h2d");
    }
  }
  telemetry::count_copy(telemetry::Copy::kHostToDevice, nbytes_of(dst));
}

// t without its conjugate and negative bits: the values as stored.
at::Tensor as_stored(const at::Tensor& t) {
  if (!t.is_conj() && !t.is_neg()) return t;
  at::Tensor raw = t.alias();
  raw._set_conj(false);
  raw._set_neg(false);
  return raw;
}

void copy_device_to_host(const at::Tensor& src, const at::Tensor& dst, bool non_blocking) {
  c10::DeviceGuard guard(src.device());
  const c10::Stream stream = current_stream(src.device().index());
  const bool lazy_bits = src.is_conj() || src.is_neg();
  if (is_byte_copy(dst, src) && !lazy_bits) {
    // Only a non-blocking copy into pinned memory may return before it ran.
    const bool wait = !non_blocking || !is_pinned(dst);
    host_transfer(stream, dst.data_ptr(), src.const_data_ptr(), nbytes_of(dst),
                  MemcpyKind::kDeviceToHost, dst, wait, "copy_d2h");
  } else {
    at::Tensor gathered = src;
    if (!src.is_contiguous()) {
      gathered = at::empty(dst.sizes(), src.options().memory_format(at::MemoryFormat::Contiguous));
      device_copy(gathered, src);
    }
    at::Tensor host = at::empty(dst.sizes(), dst.options().dtype(src.scalar_type()));
    host_transfer(stream, host.data_ptr(), gathered.const_data_ptr(), nbytes_of(host),
                  MemcpyKind::kDeviceToHost, host, /*wait=*/true, "copy_d2h");
    // Conjugate/negative views resolve on the host, in CPU's own copy_.
    host._set_conj(src.is_conj());
    host._set_neg(src.is_neg());
    dst.copy_(host);
  }
  telemetry::count_copy(telemetry::Copy::kDeviceToHost, nbytes_of(dst));
}

void copy_device_to_device(const at::Tensor& src, const at::Tensor& dst) {
  c10::DeviceGuard guard(dst.device());
  if (is_byte_copy(dst, src)) {
    TPU_CHECK(runtime::memcpy_async(dst.data_ptr(), src.const_data_ptr(), nbytes_of(dst),
                                    MemcpyKind::kDeviceToDevice,
                                    native_stream(current_stream(dst.device().index()))));
  } else {
    // Partial overlaps were rejected above; a full one (same memory, same
    // strides, another dtype of the same size) is safe element by element.
    device_copy(dst, src);
  }
  telemetry::count_copy(telemetry::Copy::kDeviceToDevice, nbytes_of(dst));
}

// Between two devices: the destination stream waits for the source stream's
// work, copies, and the source stream then waits for the copy so that the
// source memory (and the staging buffer) is not reused under it.
void copy_peer(const at::Tensor& src, const at::Tensor& dst) {
  const c10::DeviceIndex src_dev = src.device().index(), dst_dev = dst.device().index();
  const c10::Stream src_stream = current_stream(src_dev), dst_stream = current_stream(dst_dev);
  at::Tensor packed = src;  // src as dst's dtype, contiguous, on the source device
  {
    c10::DeviceGuard guard(src.device());
    if (!is_byte_copy(dst, src)) {
      packed = at::empty(dst.sizes(), src.options().dtype(dst.scalar_type()).memory_format(
                                          at::MemoryFormat::Contiguous));
      device_copy(packed, src);
    }
  }
  runtime::Event ready = nullptr, done = nullptr;
  TPU_CHECK(runtime::event_create(&ready, runtime::kEventDisableTiming));
  TPU_CHECK(runtime::event_create(&done, runtime::kEventDisableTiming));
  TPU_CHECK(runtime::event_record(ready, native_stream(src_stream)));
  TPU_CHECK(runtime::stream_wait_event(native_stream(dst_stream), ready));
  {
    c10::DeviceGuard guard(dst.device());
    at::Tensor landing = (packed.is_same(src) || dst.is_contiguous())
                             ? dst
                             : at::empty(dst.sizes(), dst.options().memory_format(
                                                          at::MemoryFormat::Contiguous));
    TPU_CHECK(runtime::memcpy_async(landing.data_ptr(), packed.const_data_ptr(), nbytes_of(dst),
                                    MemcpyKind::kDeviceToDevice, native_stream(dst_stream)));
    if (!landing.is_same(dst)) device_copy(dst, landing);
  }
  TPU_CHECK(runtime::event_record(done, native_stream(dst_stream)));
  TPU_CHECK(runtime::stream_wait_event(native_stream(src_stream), done));
  runtime::event_destroy(ready);
  runtime::event_destroy(done);
  telemetry::count_copy(telemetry::Copy::kPeer, nbytes_of(dst));
}

}  // namespace

at::Tensor copy_from(const at::Tensor& self, const at::Tensor& dst, bool non_blocking) {
  const bool src_tpu = self.is_privateuseone(), dst_tpu = dst.is_privateuseone();
  TORCH_CHECK((src_tpu || self.is_cpu()) && (dst_tpu || dst.is_cpu()),
              "copy between ", self.device(), " and ", dst.device(),
              " is not supported by tpu (only cpu <-> tpu and tpu <-> tpu)");
  // ATen's copy_ hands PrivateUse1 copies to us before any of its checks:
  // broadcasting, overlap, the complex warning and the empty case are ours.
  const std::vector<int64_t> shape = at::infer_size(dst.sizes(), self.sizes());
  TORCH_CHECK(c10::IntArrayRef(shape) == dst.sizes(), "output with shape ", dst.sizes(),
              " doesn't match the broadcast shape ", c10::IntArrayRef(shape));
  at::assert_no_internal_overlap(dst);
  at::assert_no_partial_overlap(dst, self);
  if (!(dst.is_complex() || dst.scalar_type() == at::kBool) && self.is_complex()) {
    TORCH_WARN_ONCE("Casting complex values to real discards the imaginary part");
  }
  if (dst.numel() == 0 || is_same_data(dst, self)) return dst;
  at::Tensor src = self.sizes() == dst.sizes() ? self : self.expand(dst.sizes());
  if (src_tpu && dst_tpu) {
    // Conjugate/negative views are copied as stored, then the stored values
    // of dst are fixed in place by the device's conj_physical_/neg_ where the
    // two tensors' bits differ: dst, read through its own bits, equals src
    // read through src's (raw(dst) = conj^(a xor b) neg^(c xor d) raw(src)).
    const at::Tensor stored = as_stored(src), target = as_stored(dst);
    if (src.device() == dst.device()) {
      copy_device_to_device(stored, target);
    } else {
      copy_peer(stored, target);
    }
    if (src.is_conj() != dst.is_conj() && dst.is_complex()) target.conj_physical_();
    if (src.is_neg() != dst.is_neg()) target.neg_();
  } else if (dst_tpu) {
    // The values dst must store, resolved on the host by CPU's own kernels.
    at::Tensor values = src;
    if (dst.is_conj()) values = values.conj();
    if (dst.is_neg()) values = values._neg_view();
    copy_host_to_device(values.resolve_conj().resolve_neg(), as_stored(dst), non_blocking);
  } else {
    copy_device_to_host(src, dst, non_blocking);
  }
  return dst;
}

at::Tensor copy_from_and_resize(const at::Tensor& self, const at::Tensor& dst) {
  dst.resize_(self.sizes());
  copy_from(self, dst, false);
  return dst;
}

}  // namespace torch_tpu::aten
