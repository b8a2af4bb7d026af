// Shared by the device solvers (solvers.cpp, solvers_factor.cpp,
// solvers_eig_lstsq.cpp): LAPACK entry lookup, 32-bit size checks, batch
// addressing and the dtype switch. Private to the kernel library.
#pragma once

#include <algorithm>
#include <complex>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "kernels/linalg/lapack.h"
#include "kernels/linalg/solvers.h"
#include "runtime/runtime.h"

namespace torch_tpu::kernels::solvers {
namespace detail {

using Len = size_t;  // gfortran's hidden length of a character argument

template <typename T> struct Real { using type = T; };
template <typename T> struct Real<std::complex<T>> { using type = T; };
template <typename T> using real_t = typename Real<T>::type;
template <typename T> constexpr bool is_complex = !std::is_same_v<T, real_t<T>>;

template <typename T> T conj_of(T x) {
  if constexpr (is_complex<T>) return std::conj(x);
  else return x;
}

template <typename Fn>
Fn fn(DType dtype, const char* name) {
  return reinterpret_cast<Fn>(lapack::entry(dtype, name));
}

inline int to_int(int64_t v, const char* what) {
  if (v > INT32_MAX) throw std::runtime_error(std::string("device LAPACK: ") + what + " exceeds 32-bit LAPACK");
  return static_cast<int>(v);
}

template <typename T> T* matrix(const MatrixBatch& m, int64_t i) { return static_cast<T*>(m.data) + i * m.stride; }
template <typename T> T* vec(VectorBatch v, int64_t i) { return static_cast<T*>(v.data) + i * v.stride; }

// Runs fn(begin, end) over the batch on the device's cores, one matrix a task.
template <typename F>
void over_batch(int64_t count, F&& f) {
  runtime::parallel_for(0, count, 1, [&](int64_t b, int64_t e) { f(b, e); });
}

// Rounds a workspace query's answer up to an element count.
template <typename T> int lwork_of(T query) { return std::max(1, static_cast<int>(std::real(query))); }

// Calls body.template operator()<T>() with T the LAPACK scalar of `dtype`.
template <typename Body>
void dispatch(DType dtype, Body&& body) {
  switch (dtype) {
    case DType::kFloat32: body.template operator()<float>(); break;
    case DType::kFloat64: body.template operator()<double>(); break;
    case DType::kComplex64: body.template operator()<std::complex<float>>(); break;
    case DType::kComplex128: body.template operator()<std::complex<double>>(); break;
    default: throw std::runtime_error(std::string("device LAPACK: no routines for ") + dtype_name(dtype));
  }
}

}  // namespace detail

}  // namespace torch_tpu::kernels::solvers
