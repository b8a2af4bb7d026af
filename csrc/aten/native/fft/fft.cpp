// _fft_r2c / _fft_c2r / _fft_c2c (direct route): ATen's CPU implementations call MKL or
// pocketfft. The transforms are kernels/fft/fft.h, one axis at a time in the
// data's precision. r2c runs the real-input transform (half the length)
// along the last dim when onesided and that size is even, then complex ones
// along the others; otherwise a complex transform of the real input, keeping
// the non-negative frequencies of the last dim when onesided. c2r runs
// complex inverse transforms over all but the last dim, then one Hermitian
// complex-to-real transform (half the length when even), as MKL and
// pocketfft do. Outputs get the
// strides of ATen's MKL path (_exec_fft: batch dims first in the input's
// stride order, then the transformed dims), which FakeTensor's meta predicts
// for every device but CUDA when torch has MKL, as this CPU build does.
// normalization is ATen's fft_norm_mode: 0 none, 1 1/sqrt(n), 2 1/n, with n
// the product of the signal sizes.
#include <ATen/core/Tensor.h>
#include <ATen/native/Resize.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_strided.h>
#include <c10/core/WrapDimMinimal.h>

#include <algorithm>
#include <cmath>

#include "aten/launch.h"
#include "generated/ops/_fft_c2c.h"
#include "generated/ops/_fft_c2c_out.h"
#include "generated/ops/_fft_c2r.h"
#include "generated/ops/_fft_c2r_out.h"
#include "generated/ops/_fft_r2c.h"
#include "generated/ops/_fft_r2c_out.h"
#include "kernels/fft/fft.h"

namespace torch_tpu::aten {
namespace {

double norm_scale(int64_t normalization, double n) {
  TORCH_CHECK(normalization >= 0 && normalization <= 2, "fft: invalid normalization mode ", normalization);
  if (n == 0 || normalization == 0) return 1.0;
  return normalization == 1 ? 1.0 / std::sqrt(n) : 1.0 / n;
}

struct Axis {
  int64_t outer = 1, n = 1, inner = 1;
};

Axis axis_of(at::IntArrayRef sizes, int64_t d) {
  Axis a;
  for (int64_t i = 0; i < d; ++i) a.outer *= sizes[i];
  a.n = sizes[d];
  for (int64_t i = d + 1; i < static_cast<int64_t>(sizes.size()); ++i) a.inner *= sizes[i];
  return a;
}

std::vector<int64_t> wrapped(at::IntArrayRef dim, int64_t rank, const char* name) {
  TORCH_CHECK(!dim.empty(), name, ": expected at least one dim to transform");
  std::vector<int64_t> out;
  for (int64_t d : dim) out.push_back(c10::maybe_wrap_dim(d, rank));
  return out;
}

// _sort_dims: the dims by decreasing input stride (stable), the last one
// kept last when exclude_last.
std::vector<int64_t> sort_dims(at::IntArrayRef strides, std::vector<int64_t> dims, bool exclude_last) {
  const auto end = dims.end() - (exclude_last ? 1 : 0);
  std::stable_sort(dims.begin(), end, [&](int64_t a, int64_t b) { return strides[a] > strides[b]; });
  return dims;
}

// _exec_fft's output strides: contiguous in the order (untransformed dims
// by decreasing input stride, then `dims` as given).
std::vector<int64_t> fft_strides(at::IntArrayRef out_sizes, at::IntArrayRef in_strides,
                                 const std::vector<int64_t>& dims) {
  const int64_t rank = static_cast<int64_t>(out_sizes.size());
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) order.push_back(d);
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return in_strides[a] > in_strides[b]; });
  order.insert(order.end(), dims.begin(), dims.end());
  std::vector<int64_t> strides(rank);
  int64_t step = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    strides[order[i]] = step;
    step *= std::max<int64_t>(out_sizes[order[i]], 1);
  }
  return strides;
}

// result (contiguous) in a tensor with those strides.
at::Tensor restrided(const at::Tensor& result, const std::vector<int64_t>& strides) {
  if (result.strides() == at::IntArrayRef(strides)) return result;
  at::Tensor out = at::empty_strided(result.sizes(), strides, result.options());
  out.copy_(result);
  return out;
}

// src (contiguous, complex) transformed along d into dst (contiguous, same
// sizes; src itself for in place).
void c2c_along(const at::Tensor& src, at::Tensor& dst, int64_t d, bool forward, double scale, const char* name) {
  const Axis a = axis_of(src.sizes(), d);
  const kernels::DType t = device_dtype(src.scalar_type(), name);
  const void* ip = src.const_data_ptr();
  void* op = dst.data_ptr();
  launch(src.device().index(), name, {ip, op},
         [=] { kernels::fft_c2c_axis(t, ip, op, a.outer, a.n, a.inner, forward, scale); });
}

void c2c_along(at::Tensor& x, int64_t d, bool forward, double scale, const char* name) {
  c2c_along(x, x, d, forward, scale, name);
}

}  // namespace

at::Tensor fft_r2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool onesided) {
  const char* name = "_fft_r2c";
  TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() == at::kFloat || self.scalar_type() == at::kDouble,
                              "\"_fft_r2c\" not implemented for '", self.scalar_type(), "' on tpu");
  const std::vector<int64_t> dims = wrapped(dim, self.dim(), name);
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(self.size(d));
  const double scale = norm_scale(normalization, n);
  const int64_t last = dims.back();
  at::Tensor x;
  if (onesided && self.size(last) % 2 == 0 && self.numel() > 0) {
    // The last dim by the real-input transform (half its length), straight
    // into the one-sided spectrum; then the other dims, on half the data.
    const at::Tensor real = self.contiguous();
    std::vector<int64_t> sizes = self.sizes().vec();
    sizes[last] = self.size(last) / 2 + 1;
    x = at::empty(sizes, self.options().dtype(c10::toComplexType(self.scalar_type())));
    const Axis a = axis_of(self.sizes(), last);
    const kernels::DType t = device_dtype(self.scalar_type(), name);
    const double s = dims.size() == 1 ? scale : 1.0;
    const void* ip = real.const_data_ptr();
    void* op = x.data_ptr();
    launch(self.device().index(), name, {ip, op},
           [=] { kernels::fft_r2c_axis(t, ip, op, a.outer, a.n, a.inner, s); });
    for (size_t i = 0; i + 1 < dims.size(); ++i) c2c_along(x, dims[i], true, i + 2 == dims.size() ? scale : 1.0, name);
  } else {
    x = self.to(c10::toComplexType(self.scalar_type())).contiguous();  // a new tensor
    if (x.numel() > 0) {
      for (size_t i = 0; i < dims.size(); ++i) c2c_along(x, dims[i], true, i + 1 == dims.size() ? scale : 1.0, name);
    }
    if (onesided) x = x.narrow(last, 0, self.size(last) / 2 + 1).contiguous();
  }
  return restrided(x, fft_strides(x.sizes(), self.strides(), sort_dims(self.strides(), dims, true)));
}

at::Tensor fft_c2c(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool forward) {
  const char* name = "_fft_c2c";
  TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() == at::kComplexFloat || self.scalar_type() == at::kComplexDouble,
                              "\"_fft_c2c\" not implemented for '", self.scalar_type(), "' on tpu");
  if (dim.empty()) return self.clone();
  // The first transform reads the input and writes a new tensor, the others
  // run in place on it.
  const at::Tensor src = self.contiguous();
  at::Tensor x = at::empty(src.sizes(), src.options());
  const std::vector<int64_t> dims = wrapped(dim, self.dim(), name);
  double n = 1;
  for (int64_t d : dims) n *= static_cast<double>(self.size(d));
  const double scale = norm_scale(normalization, n);
  if (x.numel() > 0) {
    for (size_t i = 0; i < dims.size(); ++i) {
      c2c_along(i == 0 ? src : x, x, dims[i], forward, i + 1 == dims.size() ? scale : 1.0, name);
    }
  }
  return restrided(x, fft_strides(x.sizes(), self.strides(), sort_dims(self.strides(), dims, false)));
}

at::Tensor fft_c2r(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  const char* name = "_fft_c2r";
  TORCH_CHECK_NOT_IMPLEMENTED(self.scalar_type() == at::kComplexFloat || self.scalar_type() == at::kComplexDouble,
                              "\"_fft_c2r\" not implemented for '", self.scalar_type(), "' on tpu");
  TORCH_CHECK(last_dim_size >= 1, name, ": invalid number of data points (", last_dim_size, ") specified");
  const std::vector<int64_t> dims = wrapped(dim, self.dim(), name);
  const int64_t last = dims.back();
  double n = static_cast<double>(last_dim_size);
  for (size_t i = 0; i + 1 < dims.size(); ++i) n *= static_cast<double>(self.size(dims[i]));
  const double scale = norm_scale(normalization, n);
  at::Tensor x = self.contiguous();
  if (dims.size() > 1) {
    if (x.data_ptr() == self.data_ptr()) x = x.clone();
    if (x.numel() > 0) {
      for (size_t i = 0; i + 1 < dims.size(); ++i) c2c_along(x, dims[i], false, 1.0, name);
    }
  }
  std::vector<int64_t> out_sizes = self.sizes().vec();
  out_sizes[last] = last_dim_size;
  at::Tensor out = at::empty(out_sizes, self.options().dtype(c10::toRealValueType(self.scalar_type())));
  if (out.numel() > 0) {
    const Axis a = axis_of(out.sizes(), last);
    const int64_t m = self.size(last);
    const kernels::DType t = device_dtype(x.scalar_type(), name);
    const void* ip = x.const_data_ptr();
    void* op = out.data_ptr();
    launch(self.device().index(), name, {ip, op},
           [=] { kernels::fft_c2r_axis(t, ip, m, op, a.outer, a.n, a.inner, scale); });
  }
  // MKL's c2r runs the c2c part first: the batch order follows its result.
  std::vector<int64_t> mid = self.strides().vec();
  if (dims.size() > 1) {
    const std::vector<int64_t> c2c_dims(dims.begin(), dims.end() - 1);
    mid = fft_strides(self.sizes(), self.strides(), sort_dims(self.strides(), c2c_dims, false));
  }
  return restrided(out, fft_strides(out.sizes(), mid, {last}));
}

// The out= forms, as CPU's _fft_*_mkl_out: the result, then copied into out.
at::Tensor& fft_c2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool forward,
                        at::Tensor& out) {
  const at::Tensor result = fft_c2c(self, dim, normalization, forward);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

at::Tensor& fft_r2c_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, bool onesided,
                        at::Tensor& out) {
  const at::Tensor result = fft_r2c(self, dim, normalization, onesided);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

at::Tensor& fft_c2r_out(const at::Tensor& self, at::IntArrayRef dim, int64_t normalization, int64_t last_dim_size,
                        at::Tensor& out) {
  const at::Tensor result = fft_c2r(self, dim, normalization, last_dim_size);
  at::native::resize_output(out, result.sizes());
  return out.copy_(result);
}

}  // namespace torch_tpu::aten
