// A gate on a stream, for deterministic tests of asynchrony. See stream_gate.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_tpu::python {

// Adds torch_tpu._C._StreamGate and torch_tpu._C._close_stream_gate.
void register_stream_gate(pybind11::module& m);

}  // namespace torch_tpu::python
