// Discrete Fourier transforms along one axis (fft.cpp), for the spectral
// ops (_fft_r2c, _fft_c2r, _fft_c2c): a contiguous tensor seen as
// [outer, n, inner], each of its outer * inner lines transformed
//   X[k] = scale * sum_t x[t] * exp(-+2 pi i t k / n)   (- forward, + backward)
// in the data's precision, by a mixed-radix Stockham FFT when n's prime
// factors are at most 13, else Bluestein's algorithm over a 2-3-5-smooth
// one (O(n log n) for every n).
// complex64 or complex128 data. Runtime headers only.
#pragma once

#include <cstdint>

#include "kernels/common/tensor_desc.h"

namespace torch_tpu::kernels {

// Real-to-complex forward along the axis, n even: in [outer, n, inner] of
// real dtype t, out [outer, n / 2 + 1, inner] (t's complex dtype) gets the
// non-negative frequencies, through a transform of length n / 2.
void fft_r2c_axis(DType t, const void* in, void* out, int64_t outer, int64_t n, int64_t inner, double scale);

// in and out [outer, n, inner] of complex dtype t; out may be in itself
// (in place) but must not overlap it otherwise.
void fft_c2c_axis(DType t, const void* in, void* out, int64_t outer, int64_t n, int64_t inner, bool forward,
                  double scale);

// Complex-to-real inverse along the axis: in [outer, m, inner] holds the
// first m coefficients of a Hermitian spectrum of length n (m <= n / 2 + 1;
// missing ones are 0), out [outer, n, inner] (t's real dtype) gets the real
// signal. The imaginary parts of X[0] and of X[n / 2] (n even) are ignored,
// as every c2r transform does.
void fft_c2r_axis(DType t, const void* in, int64_t m, void* out, int64_t outer, int64_t n, int64_t inner,
                  double scale);

}  // namespace torch_tpu::kernels
