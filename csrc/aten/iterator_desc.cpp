// TensorIterator -> kernels::ElementwiseDesc, scalar arguments, dtype checks
// and the launch (iterator_desc.h).
#include "aten/iterator_desc.h"

#include <ATen/Dispatch_v2.h>
#include <c10/util/complex.h>

#include <cstring>
#include <type_traits>

#include "aten/launch.h"

namespace torch_tpu::aten {

kernels::ElementwiseDesc describe_iterator(const at::TensorIteratorBase& iter, at::ScalarType compute,
                                           const char* op, Complex32 complex32) {
  kernels::ElementwiseDesc d;
  d.shape.assign(iter.shape().begin(), iter.shape().end());
  d.noutputs = static_cast<int>(iter.noutputs());
  d.compute = device_dtype(compute, op, complex32);
  const int ntensors = static_cast<int>(iter.ntensors());
  d.operands.reserve(ntensors);
  for (int arg = 0; arg < ntensors; ++arg) {
    const kernels::DType dtype = device_dtype(iter.dtype(arg), op, complex32);
    const c10::Device device = iter.device(arg);
    if (arg >= d.noutputs && iter.is_cpu_scalar(arg)) {
      // Host memory of a CPU tensor: read it now, by value.
      alignas(16) unsigned char bytes[16] = {};
      std::memcpy(bytes, iter.data_ptr(arg), kernels::dtype_size(dtype));
      d.operands.push_back(kernels::ElementwiseOperand::scalar(dtype, bytes));
      continue;
    }
    TORCH_CHECK(device.type() == c10::DeviceType::PrivateUse1, op, ": expected all tensors on tpu, but operand ",
                arg, " is on ", device, " and is not a CPU scalar");
    const at::IntArrayRef strides = iter.strides(arg);
    d.operands.push_back(
        kernels::ElementwiseOperand::tensor(iter.data_ptr(arg), dtype, kernels::Dims(strides.begin(), strides.end())));
  }
  return d;
}

namespace {

// A value of a compute dtype as a ScalarArg that converts back exactly.
template <typename T>
kernels::ScalarArg pack(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return kernels::ScalarArg::from_bool(v);
  } else if constexpr (std::is_integral_v<T>) {
    return kernels::ScalarArg::from_int(static_cast<int64_t>(v));  // uint64: the same bits
  } else if constexpr (c10::is_complex<T>::value) {
    return kernels::ScalarArg::from_complex(v.real(), v.imag());
  } else {
    return kernels::ScalarArg::from_double(static_cast<double>(v));  // exact, Half/BFloat16 too
  }
}

}  // namespace

kernels::ScalarArg scalar_arg(const c10::Scalar& s, at::ScalarType compute) {
  kernels::ScalarArg out;
  AT_DISPATCH_V2(
      compute, "scalar_arg", AT_WRAP([&] { out = pack(s.to<scalar_t>()); }), AT_EXPAND(AT_ALL_TYPES_AND_COMPLEX),
      at::kHalf, at::kBFloat16, at::kBool, at::kComplexHalf, AT_EXPAND(AT_BAREBONES_UNSIGNED_TYPES));
  return out;
}

kernels::ScalarArg scalar_value(const c10::Scalar& s) {
  if (s.isBoolean()) return kernels::ScalarArg::from_bool(s.toBool());
  if (s.isIntegral(/*includeBool=*/false)) return kernels::ScalarArg::from_int(s.toLong());
  if (s.isComplex()) {
    const c10::complex<double> c = s.toComplexDouble();
    return kernels::ScalarArg::from_complex(c.real(), c.imag());
  }
  return kernels::ScalarArg::from_double(s.toDouble());
}

void check_elementwise_dtype(kernels::ElementwiseOp op, at::ScalarType compute, const char* name) {
  // complex32: the elementwise kernels read and write it in any op (block
  // loads and stores), and compute in it where the op says so.
  const kernels::DType dt = device_dtype(compute, name, Complex32::kTaken);
  TORCH_CHECK_NOT_IMPLEMENTED(kernels::elementwise_supports(op, dt), "\"", name, "\" not implemented for '",
                              c10::toString(compute), "' on tpu");
}

void run_elementwise(const at::TensorIteratorBase& iter, kernels::ElementwiseOp op, at::ScalarType compute,
                     const char* name, kernels::ScalarArgs args) {
  check_elementwise_dtype(op, compute, name);
  if (iter.numel() == 0) return;
  kernels::ElementwiseDesc d = describe_iterator(iter, compute, name, Complex32::kTaken);
  d.args = std::move(args);
  runtime::BufferList buffers;
  for (const kernels::ElementwiseOperand& o : d.operands) {
    if (!o.by_value) buffers.push_back(o.data);
  }
  // The descriptor travels inside the task, not on the heap.
  static_assert(sizeof(kernels::ElementwiseDesc) + sizeof(op) <= runtime::TaskBody::kInlineBytes);
  launch(iter.device(0).index(), kernels::elementwise_op_name(op), std::move(buffers),
         [d = std::move(d), op] { kernels::elementwise(op, d); });
}

}  // namespace torch_tpu::aten
