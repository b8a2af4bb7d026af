// Compiled kernels are device work. torch_tpu/_compile/inductor.py compiles
// each Inductor C++ kernel with a trampoline `void tpu_entry(const uint64_t*)`
// that unpacks one 8-byte slot per argument into the kernel's typed
// parameters. _launch_compiled turns the Python call arguments into those
// slots on the host (tensors -> device pointers, ints and floats by value,
// so a host scalar that changes later does not change the enqueued task) and
// enqueues the call through runtime::launch on the current stream of the
// tensors' device: the host returns at once, and in strict mode only the
// named tensors' allocations are open while the kernel runs. A 0-dim CPU
// tensor is a scalar, as CUDA's Inductor takes it (torchvision's roi_align
// passes spatial_scale so): its value is copied into the task at launch
// and the kernel reads that copy.
#include "python/compiled_launch.h"

#include <ATen/EmptyTensor.h>
#include <c10/core/DeviceGuard.h>
#include <torch/csrc/Dtype.h>
#include <torch/csrc/autograd/python_variable.h>

#include <cstring>
#include <mutex>
#include <string>
#include <unordered_set>

#include "aten/device/caching_allocator.h"
#include "aten/device/tpu_stream.h"
#include "aten/launch.h"
#include "runtime/small_vector.h"

namespace py = pybind11;

namespace torch_tpu::python {
namespace {

using Entry = void (*)(const uint64_t*);
// 24 slots inline keep the task body within TaskBody's inline buffer; a
// kernel with more arguments spills the slots to the heap, still correct.
using Slots = SmallVector<uint64_t, 24>;

// The values of 0-dim CPU tensor arguments, and which slot points at each.
struct HostScalars {
  struct alignas(16) Value {
    unsigned char bytes[16];  // up to complex128
  };
  SmallVector<Value, 2> values;
  SmallVector<uint32_t, 2> slots;

  void add(const at::Tensor& t, size_t slot) {
    Value v{};
    std::memcpy(v.bytes, t.const_data_ptr(), t.element_size());
    values.push_back(v);
    slots.push_back(static_cast<uint32_t>(slot));
  }
  // Points the slots at the copies (their address is known only in the task).
  void bind(Slots& s) {
    for (size_t k = 0; k < slots.size(); ++k) s[slots[k]] = reinterpret_cast<uintptr_t>(values[k].bytes);
  }
};

// Launch names must outlive every task that carries them: interned for the
// life of the process (one per generated kernel, a few hundred at most).
uintptr_t intern_kernel_name(const std::string& name) {
  static std::mutex mu;
  static std::unordered_set<std::string> names;
  std::lock_guard<std::mutex> lock(mu);
  return reinterpret_cast<uintptr_t>(names.insert(name).first->c_str());
}

void launch_compiled(uintptr_t entry, uintptr_t name, const py::args& args) {
  TORCH_CHECK(entry != 0 && name != 0, "_launch_compiled: null kernel entry or name");
  Slots slots;
  HostScalars scalars;
  runtime::BufferList buffers;
  c10::DeviceIndex device = -1;
  for (size_t i = 0; i < args.size(); ++i) {
    PyObject* obj = args[i].ptr();
    if (THPVariable_Check(obj)) {
      const at::Tensor& t = THPVariable_Unpack(obj);
      if (t.defined() && t.is_cpu() && t.dim() == 0) {
        scalars.add(t, slots.size());
        slots.push_back(0);
        continue;
      }
      TORCH_CHECK(t.defined() && t.device().type() == c10::DeviceType::PrivateUse1,
                  "compiled tpu kernel ", reinterpret_cast<const char*>(name), ": argument ", i,
                  " is a ", t.defined() ? t.device().str() : std::string("undefined"),
                  " tensor; compiled tpu kernels take tpu tensors and 0-dim CPU tensors (scalars) only");
      if (device < 0) device = t.device().index();
      TORCH_CHECK(t.device().index() == device, "compiled tpu kernel ",
                  reinterpret_cast<const char*>(name), ": tensors on tpu:", device, " and ",
                  t.device().str());
      const void* p = t.numel() > 0 ? t.const_data_ptr() : nullptr;
      if (p != nullptr) buffers.push_back(p);
      slots.push_back(reinterpret_cast<uintptr_t>(p));
    } else if (PyBool_Check(obj) || PyLong_Check(obj)) {
      slots.push_back(static_cast<uint64_t>(py::cast<int64_t>(args[i])));
    } else if (PyFloat_Check(obj)) {
      double v = PyFloat_AS_DOUBLE(obj);
      uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      slots.push_back(bits);
    } else {
      throw py::type_error("compiled tpu kernel " + std::string(reinterpret_cast<const char*>(name)) +
                           ": argument " + std::to_string(i) + " has unsupported type " +
                           std::string(py::str(py::type::of(args[i]))));
    }
  }
  if (device < 0) device = aten::current_device();
  Entry fn = reinterpret_cast<Entry>(entry);
  if (scalars.slots.empty()) {
    aten::launch(device, reinterpret_cast<const char*>(name), buffers,
                 [fn, slots = std::move(slots)] { fn(slots.data()); });
  } else {
    aten::launch(device, reinterpret_cast<const char*>(name), buffers,
                 [fn, slots = std::move(slots), scalars = std::move(scalars)]() mutable {
                   scalars.bind(slots);
                   fn(slots.data());
                 });
  }
}

// A tuple of Python ints into `out`.
void int_tuple(py::handle obj, const char* what, c10::SmallVector<int64_t, 6>& out) {
  TORCH_CHECK_TYPE(PyTuple_Check(obj.ptr()), "_empty_strided_tpu: ", what, " must be a tuple of ints");
  const Py_ssize_t n = PyTuple_GET_SIZE(obj.ptr());
  out.resize(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(obj.ptr(), i));
    if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
    out[i] = v;
  }
}

// What Inductor's wrapper allocates its buffers with on tpu, as it uses
// empty_strided_cuda on CUDA: the caching allocator without the Python
// argument parser and the dispatcher. torch.empty_strided(device="tpu:0")
// took 4.7 us a call against 2.1 here (AMD EPYC, family 23), and a training
// step of the GPT example allocates 65 buffers. device < 0: the current one.
py::object empty_strided_tpu(py::handle size, py::handle stride, py::handle dtype, int device) {
  c10::SmallVector<int64_t, 6> sizes, strides;
  int_tuple(size, "size", sizes);
  int_tuple(stride, "stride", strides);
  TORCH_CHECK_TYPE(THPDtype_Check(dtype.ptr()), "_empty_strided_tpu: dtype must be a torch.dtype");
  const auto scalar_type = reinterpret_cast<THPDtype*>(dtype.ptr())->scalar_type;
  c10::OptionalDeviceGuard guard;
  if (device >= 0) guard.reset_device(c10::Device(c10::DeviceType::PrivateUse1, device));
  at::Tensor t = at::detail::empty_strided_generic(sizes, strides, aten::device_allocator(),
                                                   c10::DispatchKeySet(c10::DispatchKey::PrivateUse1),
                                                   scalar_type);
  return py::reinterpret_steal<py::object>(THPVariable_Wrap(std::move(t)));
}

}  // namespace

void register_compiled_launch(py::module& m) {
  m.def("_empty_strided_tpu", &empty_strided_tpu, py::arg("size"), py::arg("stride"), py::arg("dtype"),
        py::arg("device") = -1,
        "_empty_strided_tpu(size, stride, dtype, device=-1): Inductor's buffer allocation on tpu.");
  m.def("_intern_kernel_name", &intern_kernel_name,
        "Interns a kernel name for _launch_compiled; returns its address.");
  m.def("_launch_compiled", &launch_compiled,
        "_launch_compiled(entry, name, *args): enqueue entry(slots) on the current tpu stream.");
}

}  // namespace torch_tpu::python
