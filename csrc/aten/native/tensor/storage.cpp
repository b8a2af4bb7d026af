// Operators that change which memory a tensor describes: resize_, the set_
// family and record_stream. Metadata work on the host; growing a storage
// copies its bytes on the current stream (see the hooks'
// resizePrivateUse1Bytes).
#include <ATen/native/Resize.h>
#include <ATen/native/ResizeCommon.h>
#include <c10/core/DeviceGuard.h>

#include "aten/device/caching_allocator.h"
#include "aten/device/tpu_stream.h"
#include "generated/ops/record_stream.h"
#include "generated/ops/resize_.h"
#include "generated/ops/set_.h"
#include "generated/ops/set__source_Storage_storage_offset.h"

namespace torch_tpu::aten {
namespace {

// Makes sure `self`'s storage holds `nbytes` (beyond its offset), growing it
// through the storage's resize path like CPU's maybe_resize_storage_cpu.
void maybe_resize_storage(c10::TensorImpl* self, size_t nbytes) {
  if (self->numel() == 0) return;
  const c10::Storage& storage = self->unsafe_storage();
  if (!storage) {
    auto fresh = c10::make_intrusive<c10::StorageImpl>(c10::StorageImpl::use_byte_size_t(),
                                                       nbytes, device_allocator(), true);
    self->set_storage_keep_dtype(std::move(fresh));
  } else if (nbytes > storage.nbytes()) {
    at::native::resize_bytes_nocuda(storage, static_cast<int64_t>(nbytes));
  }
}

// The tpu counterpart of ATen's resize_impl_cpu_: new sizes (and strides),
// storage grown when needed.
void resize_impl(c10::TensorImpl* self, at::IntArrayRef size, at::OptionalIntArrayRef stride) {
  if (self->sizes() == size && (!stride || self->strides() == *stride)) return;
  const int64_t itemsize = static_cast<int64_t>(self->dtype().itemsize());
  const int64_t offset = self->storage_offset();
  size_t nbytes = 1;
  if (stride) {
    self->set_sizes_and_strides(size, *stride);
    nbytes = at::detail::computeStorageNbytes(size, *stride, itemsize, offset);
  } else {
    self->set_sizes_contiguous(size);
    nbytes = at::detail::computeStorageNbytesContiguous(size, itemsize, offset);
  }
  maybe_resize_storage(self, nbytes);
}

}  // namespace

const at::Tensor& resize_(const at::Tensor& self, at::IntArrayRef size,
                          std::optional<at::MemoryFormat> memory_format) {
  c10::DeviceGuard guard(self.device());
  at::native::check_size_nonnegative(size);
  resize_impl(self.unsafeGetTensorImpl(), size, std::nullopt);
  if (memory_format.has_value()) {
    TORCH_CHECK(*memory_format != at::MemoryFormat::Preserve, "Unsupported memory format",
                *memory_format);
    self.unsafeGetTensorImpl()->empty_tensor_restride(*memory_format);
  }
  return self;
}

at::Tensor& set_storage_offset_(at::Tensor& self, at::Storage source, int64_t storage_offset,
                                at::IntArrayRef size, at::IntArrayRef stride) {
  at::native::checkSetStorage(self, std::move(source), storage_offset, size, stride);
  c10::DeviceGuard guard(self.device());
  self.unsafeGetTensorImpl()->set_storage_offset(storage_offset);
  at::OptionalIntArrayRef stride_opt =
      stride.data() != nullptr ? at::OptionalIntArrayRef(stride) : std::nullopt;
  resize_impl(self.unsafeGetTensorImpl(), size, stride_opt);
  return self;
}

// set_() with no source: an empty tensor on its own fresh, empty storage.
at::Tensor& set_empty_(at::Tensor& self) {
  caffe2::TypeMeta dtype = self.dtype();
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0, device_allocator(), true);
  self.set_(storage, 0, {0}, {});
  TORCH_INTERNAL_ASSERT(dtype == self.dtype());
  return self;
}

void record_stream(at::Tensor& self, at::Stream stream) {
  TORCH_CHECK(stream.device_type() == c10::DeviceType::PrivateUse1,
              "record_stream on a tpu tensor needs a tpu stream, got a stream on ",
              stream.device());
  device_allocator()->recordStream(self.storage().data_ptr(), stream);
}

}  // namespace torch_tpu::aten
