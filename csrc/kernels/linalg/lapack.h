// The device's LAPACK: entry points of a LAPACK shared library resolved at
// run time (dlopen), as a GPU's cuSOLVER is a library the driver loads.
//
// Why run-time resolution instead of linking: the library is a PyPI wheel
// (scipy-openblas32, see docs/kernels.md, "Linear algebra"), found by Python at import
// (scipy_openblas32.get_lib_dir()) and handed in with set_library(); the
// build needs neither its headers nor its path, and the kernel library stays
// torch-free. Its symbols carry a "scipy_" prefix and are opened
// RTLD_LOCAL, so they never meet the LAPACK/MKL symbols inside torch's wheel.
// 32-bit LAPACK integers, as ATen's int32 pivots and infos.
#pragma once

#include <string>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels::lapack {

// Records the library to open on first use and its symbol prefix.
void set_library(const std::string& path, const std::string& prefix);
// The library's path ("" before set_library).
std::string library_path();
// Opens the library (once) and returns the address of the routine `name`
// ("getrf") for `dtype` ('s', 'd', 'c' or 'z' prepended; "trsm" is BLAS).
// Throws std::runtime_error naming the routine when it cannot.
void* entry(DType dtype, const char* name);

}  // namespace torch_tpu::kernels::lapack
