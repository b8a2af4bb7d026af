// Outputs of a replayed graph lent to the caller without a copy. See
// graph_outputs.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_tpu::python {

// Adds torch_tpu._C._GraphOutputs.
void register_graph_outputs(pybind11::module& m);

}  // namespace torch_tpu::python
