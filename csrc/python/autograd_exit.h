// Draining the device's autograd threads before the interpreter finalizes.
// See autograd_exit.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_tpu::python {

// Adds torch_tpu._C._drain_autograd_threads.
void register_autograd_exit(pybind11::module& m);

}  // namespace torch_tpu::python
