// torch 2.13's Python backward (torch.autograd.graph._engine_run_backward)
// stashes a Python object (the caller's contextvars) in the thread-local
// state every GraphTask carries. A device's autograd thread (pt_autograd_N)
// drops its reference to a GraphTask after the caller has already been
// told the backward finished, and dropping that state needs the GIL. When
// this happens while the interpreter finalizes, the thread is made to exit
// inside a destructor and the process aborts with "terminate called without
// an active exception" (seen in 6 of 10 runs of a script whose last act was
// a tpu backward). torch_tpu/tpu/autograd_exit.py calls this at exit: one
// backward per device through the C++ API (nothing Python in its state), on
// a stream of its own, with the GIL released. A device thread works through
// its queue in order, so when this backward completes the thread has let go
// of every earlier GraphTask, and this one holds nothing that needs the
// interpreter.
#include "python/autograd_exit.h"

#include <ATen/ops/ones.h>
#include <c10/core/GradMode.h>
#include <pybind11/stl.h>
#include <torch/csrc/autograd/autograd.h>

#include <vector>

namespace py = pybind11;

namespace torch_tpu::python {
namespace {

void drain_autograd_threads(const std::vector<int64_t>& devices) {
  py::gil_scoped_release no_gil;
  c10::AutoGradMode grad(true);  // a program may exit with gradients disabled
  for (int64_t d : devices) {
    const auto options = at::TensorOptions().device(c10::DeviceType::PrivateUse1, static_cast<c10::DeviceIndex>(d));
    at::Tensor x = at::ones({1}, options).requires_grad_(true);
    torch::autograd::backward({x.sum()});
  }
}

}  // namespace

void register_autograd_exit(py::module& m) {
  m.def("_drain_autograd_threads", &drain_autograd_threads, py::arg("devices"),
        "At exit: a C++ backward on each device, so its autograd thread has dropped every earlier backward's state.");
}

}  // namespace torch_tpu::python
