// Launchers: the bridge from at::Tensor to device code. They turn tensors
// into kernel descriptors and enqueue kernels on the current stream. Device
// lambdas capture descriptors and plain values only, never tensors: a tensor
// destroyed on a device thread would re-enter the allocator there.
#pragma once

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

#include "kernels/common/tensor_desc.h"
#include "runtime/runtime.h"

namespace torch_tpu::aten {

// Whether the kernel a launcher calls takes complex32 (ComplexHalf): tpu
// stores it, but only kernels written for it take it (those that move bits
// by element size, copies, the elementwise ops CPU computes in it); any
// other launcher raises NotImplementedError for it, before any launch.
enum class Complex32 : bool { kRejected, kTaken };

// The device element type for a ScalarType; NotImplementedError naming `op`
// for types the device has no kernels for.
kernels::DType device_dtype(at::ScalarType type, const char* op, Complex32 complex32 = Complex32::kRejected);
bool device_supports(at::ScalarType type);

// ptr (with storage offset), dtype, sizes, strides of `t`.
kernels::TensorDesc describe(const at::Tensor& t, const char* op, Complex32 complex32 = Complex32::kRejected);

// Enqueues `body` on the current stream of tpu:`device`; `buffers` are the
// device pointers it touches (see runtime::launch).
void launch(c10::DeviceIndex device, const char* name, const runtime::BufferList& buffers, runtime::TaskBody&& body);

// launch() for a kernel that checks the data it is given and raises
// PyTorch's error for bad data (an index out of range,
// kernels/common/data_errors.h): the error is the user's, found after the
// launch returned, so the launch records the op and the Python stack that
// launched it for the report (device/launch_origin.h).
void launch_validating(c10::DeviceIndex device, const char* name, const runtime::BufferList& buffers,
                       runtime::TaskBody&& body);

}  // namespace torch_tpu::aten
