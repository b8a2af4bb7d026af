// Bindings that launch compiler-generated kernels (Inductor's C++ kernels) as
// device work on the current tpu stream. See compiled_launch.cpp.
#pragma once

#include <pybind11/pybind11.h>

namespace torch_tpu::python {

// Adds _launch_compiled, _intern_kernel_name and _empty_strided_tpu (the
// wrapper's buffer allocation) to torch_tpu._C.
void register_compiled_launch(pybind11::module& m);

}  // namespace torch_tpu::python
